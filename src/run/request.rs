//! What a request tells the model, whatever the API (SPEC §D.1.3, §F): the skills' system
//! prompt and the tools offered. Each wire module (`wire/`) writes them in its own terms.

use crate::{
    function::{Function, is_valid_tool_name},
    skill::Skill,
};
use serde_json::Value;
use std::sync::Arc;

/// The skills whose instructions go into the system prompt: the dialog's own enabled, valid
/// ones in order, then the Center's (in name order) that the dialog does not override by name,
/// even with a disabled entry (SPEC §F).
pub fn active_skills<'a>(own: &'a [Skill], center: &'a [Skill]) -> Vec<&'a Skill> {
    let usable = |s: &&Skill| s.enabled && s.is_valid();
    let overridden = |s: &&Skill| own.iter().any(|o| o.name == s.name);
    own.iter().filter(usable).chain(center.iter().filter(|s| !overridden(s)).filter(usable)).collect()
}

/// The instructions of `skills` joined by a blank line ("" when there are none).
pub fn system_prompt(skills: &[&Skill]) -> String {
    skills.iter().map(|s| s.instruction.as_str()).collect::<Vec<_>>().join("\n\n")
}

/// One tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// A JSON Schema; left out of the request when it is not an object.
    pub schema: Value,
}

impl ToolSpec {
    pub fn new(name: &str, description: &str, schema: &Value) -> ToolSpec {
        ToolSpec { name: name.to_owned(), description: description.to_owned(), schema: schema.clone() }
    }
}

/// The tools offered: the dialog's functions, the Center's, then ids named by the active
/// skills, de-duplicated, skipping ids that break the tool-name pattern or resolve to nothing.
pub fn function_tools(
    own: &[Arc<dyn Function>],
    center: &[Arc<dyn Function>],
    skills: &[&Skill],
    resolve: impl Fn(&str) -> Option<Arc<dyn Function>>,
) -> Vec<ToolSpec> {
    let mut offered: Vec<String> = Vec::new();
    let mut tools = Vec::new();
    let mut offer = |f: &Arc<dyn Function>, offered: &mut Vec<String>| {
        let spec = f.spec();
        if is_valid_tool_name(&spec.id) && !offered.contains(&spec.id) {
            offered.push(spec.id.clone());
            tools.push(ToolSpec::new(&spec.id, &spec.description, &spec.parameter_schema));
        }
    };
    for f in own.iter().chain(center) {
        offer(f, &mut offered);
    }
    for id in skills.iter().flat_map(|s| s.function_ids()) {
        if !offered.contains(id) {
            if let Some(f) = resolve(id) {
                offer(&f, &mut offered);
            }
        }
    }
    tools
}

/// The names of `tools`.
pub fn tool_names(tools: &[ToolSpec]) -> std::collections::HashSet<String> {
    tools.iter().map(|t| t.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{FunctionSpec, HostToken, ToolReply};
    use serde_json::json;

    struct Named(FunctionSpec);

    impl Function for Named {
        fn spec(&self) -> &FunctionSpec {
            &self.0
        }
        fn invoke(&self, _: Value, _: HostToken, reply: ToolReply) {
            reply.complete(json!({}));
        }
    }

    fn f(id: &str) -> Arc<dyn Function> {
        Arc::new(Named(FunctionSpec {
            id: id.into(),
            name: id.into(),
            description: format!("does {id}"),
            parameter_schema: json!({"type": "object"}),
            host: None,
        }))
    }

    fn skill(name: &str, instruction: &str, enabled: bool) -> Skill {
        let mut s = Skill::with_instruction(name, instruction);
        s.enabled = enabled;
        s
    }

    #[test]
    fn system_prompt_from_own_then_center_skills_not_overridden() {
        let own = [skill("b", "own b", true), skill("off", "own off", false), skill("bad", "", true)];
        let center = [skill("a", "center a", true), skill("b", "center b", true), skill("off", "center off", true)];
        let active = active_skills(&own, &center);
        assert_eq!(system_prompt(&active), "own b\n\ncenter a");
    }

    #[test]
    fn tools_are_ordered_deduplicated_and_filtered() {
        let own = [f("local"), f("bad name")];
        let center = [f("global"), f("local")];
        let mut s = skill("s", "i", true);
        s.add_function("extra");
        s.add_function("global");
        s.add_function("ghost");
        let skills = [&s];
        let tools = function_tools(&own, &center, &skills, |id| (id == "extra").then(|| f("extra")));
        let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["local", "global", "extra"]);
        assert_eq!(tools[0], ToolSpec::new("local", "does local", &json!({"type": "object"})));
    }

}
