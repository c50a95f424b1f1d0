//! The `/chat/completions` request body (SPEC §D.1.3, §E.9): what the model is told, built
//! straight from the dialog's messages into JSON text without copying them first.

use crate::{
    function::{Function, is_valid_tool_name},
    message::{Message, Role},
    model::Model,
    skill::Skill,
};
use super::pairing::Turn;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Value, json};
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

/// The `tools` entries: the dialog's functions, the Center's, then ids named by the active
/// skills, de-duplicated, skipping ids that break the tool-name pattern or resolve to nothing.
pub fn function_tools(
    own: &[Arc<dyn Function>],
    center: &[Arc<dyn Function>],
    skills: &[&Skill],
    resolve: impl Fn(&str) -> Option<Arc<dyn Function>>,
) -> Vec<Value> {
    let mut offered: Vec<String> = Vec::new();
    let mut tools = Vec::new();
    let mut offer = |f: &Arc<dyn Function>, offered: &mut Vec<String>| {
        let spec = f.spec();
        if is_valid_tool_name(&spec.id) && !offered.contains(&spec.id) {
            offered.push(spec.id.clone());
            tools.push(tool_entry(&spec.id, &spec.description, &spec.parameter_schema));
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

/// One `{"type":"function","function":{…}}` entry; a schema that is not an object is left out.
pub fn tool_entry(name: &str, description: &str, schema: &Value) -> Value {
    let mut function = json!({"name": name, "description": description});
    if schema.is_object() {
        function["parameters"] = schema.clone();
    }
    json!({"type": "function", "function": function})
}

/// The names of `tools` (entries of `function_tools` / `tool_entry`).
pub fn tool_names(tools: &[Value]) -> std::collections::HashSet<String> {
    tools.iter().filter_map(|t| t["function"]["name"].as_str()).map(str::to_owned).collect()
}

/// The whole body: `messages`, `"stream": true`, the model's parameters, `model`, `tools`.
pub fn body(model: &Model, system: &str, messages: &[Message], tools: &[Value]) -> String {
    let body = Body { model, system, messages, tools };
    serde_json::to_string(&body).expect("serialising JSON values into a String cannot fail")
}

struct Body<'a> {
    model: &'a Model,
    system: &'a str,
    messages: &'a [Message],
    tools: &'a [Value],
}

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("messages", &Messages { system: self.system, messages: self.messages })?;
        map.serialize_entry("stream", &true)?;
        for (key, value) in &self.model.parameters {
            if key != "model" {
                map.serialize_entry(key, value)?;
            }
        }
        map.serialize_entry("model", &self.model.name)?;
        if !self.tools.is_empty() {
            map.serialize_entry("tools", self.tools)?;
        }
        map.end()
    }
}

struct Messages<'a> {
    system: &'a str,
    messages: &'a [Message],
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        if !self.system.is_empty() {
            let mut system = serde_json::Map::new();
            system.insert("role".into(), "system".into());
            system.insert("content".into(), self.system.into());
            seq.serialize_element(&system)?;
        }
        super::pairing::visit(self.messages, |turn| match turn {
            Turn::Message { message, tool_calls } => seq.serialize_element(&WireMessage(message, tool_calls)),
            Turn::MissingAnswer { call_id, .. } => seq.serialize_element(
                &json!({"role": "tool", "content": super::pairing::MISSING_ANSWER, "tool_call_id": call_id}),
            ),
        })?;
        seq.end()
    }
}

/// A stored message as the server sees it: Prompt ⇒ user; name and reasoning never sent;
/// `tool_calls` as `pairing` parsed them.
struct WireMessage<'a>(&'a Message, Option<Value>);

impl Serialize for WireMessage<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let WireMessage(m, tool_calls) = self;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("role", m.role.wire_name())?;
        if !m.images.is_empty() {
            map.serialize_entry("content", &ContentParts(m))?;
        } else if m.content.is_empty() && tool_calls.is_some() {
            map.serialize_entry("content", &Value::Null)?;
        } else {
            map.serialize_entry("content", &m.content)?;
        }
        if m.role == Role::Tool {
            map.serialize_entry("tool_call_id", &m.tool_call_id)?;
        }
        if let Some(calls) = tool_calls {
            map.serialize_entry("tool_calls", calls)?;
        }
        map.end()
    }
}

/// Text then images, as content parts (SPEC §E.9).
struct ContentParts<'a>(&'a Message);

impl Serialize for ContentParts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut seq = s.serialize_seq(None)?;
        if !m.content.is_empty() {
            seq.serialize_element(&json!({"type": "text", "text": m.content}))?;
        }
        for image in &m.images {
            let mut url = json!({"url": image.url});
            if !image.detail.is_empty() {
                url["detail"] = image.detail.clone().into();
            }
            seq.serialize_element(&json!({"type": "image_url", "image_url": url}))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{FunctionSpec, HostToken, ToolReply};

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
        let names: Vec<_> = tools.iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, vec!["local", "global", "extra"]);
        assert_eq!(tools[0], json!({"type":"function","function":{"name":"local","description":"does local","parameters":{"type":"object"}}}));
    }

    #[test]
    fn body_fields_roles_and_parameters() {
        let mut model = Model { name: "gpt-x".into(), ..Model::new() };
        model.set_parameter("max_tokens", json!(256.0));
        model.set_parameter("stream_options.include_usage", json!(true));
        model.set_parameter("model", json!("ignored"));
        let mut tool = Message::new(Role::Tool, r#"{"t":1}"#);
        tool.tool_call_id = "Call_A".into();
        tool.name = "clock".into();
        let mut calls = Message::new(Role::Assistant, "");
        calls.tool_calls = r#"[{"id":"Call_A","type":"function","function":{"name":"clock","arguments":"{}"}}]"#.into();
        calls.reasoning = "secret thoughts".into();
        let mut not_array = Message::new(Role::Assistant, "");
        not_array.tool_calls = "{oops".into();
        let messages = [Message::new(Role::Prompt, "from template"), calls, tool, not_array];
        let text = body(&model, "be brief", &messages, &[]);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            json!({
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "from template"},
                    {"role": "assistant", "content": null, "tool_calls": [{"id":"Call_A","type":"function","function":{"name":"clock","arguments":"{}"}}]},
                    {"role": "tool", "content": "{\"t\":1}", "tool_call_id": "Call_A"},
                    {"role": "assistant", "content": ""}
                ],
                "stream": true,
                "max_tokens": 256,
                "stream_options": {"include_usage": true},
                "model": "gpt-x"
            })
        );
        assert!(text.contains("\"max_tokens\":256,"));
        assert!(!text.contains("secret thoughts"));
        assert!(!text.contains("\"tools\""));
    }

    #[test]
    fn images_become_content_parts() {
        let mut m = Message::new(Role::User, "what is this?");
        m.add_image_url("https://x/cat.png", "high");
        m.add_image_url("data:image/png;base64,AAAA", "");
        let v: Value = serde_json::from_str(&body(&Model::new(), "", &[m], &[])).unwrap();
        assert_eq!(
            v["messages"][0]["content"],
            json!([
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "https://x/cat.png", "detail": "high"}},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ])
        );
    }
}
