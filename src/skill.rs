//! A named instruction injected into the system prompt, with the functions it brings
//! (SPEC §B.4).

use crate::json;
use serde_json::{Map, Value, json};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub instruction: String,
    pub enabled: bool,
    pub tags: Vec<String>,
    /// Function ids in insertion order, without duplicates.
    function_ids: Vec<String>,
}

impl Default for Skill {
    fn default() -> Self {
        Skill {
            name: String::new(),
            description: String::new(),
            instruction: String::new(),
            enabled: true,
            tags: Vec::new(),
            function_ids: Vec::new(),
        }
    }
}

impl Skill {
    pub fn new(name: impl Into<String>) -> Self {
        Skill { name: name.into(), ..Self::default() }
    }

    /// A named skill with its instruction: the usual way to make one.
    pub fn with_instruction(name: impl Into<String>, instruction: impl Into<String>) -> Self {
        Skill { name: name.into(), instruction: instruction.into(), ..Self::default() }
    }

    pub fn add_function(&mut self, id: &str) {
        if !id.is_empty() && !self.has_function(id) {
            self.function_ids.push(id.to_owned());
        }
    }

    pub fn remove_function(&mut self, id: &str) {
        self.function_ids.retain(|f| f != id);
    }

    pub fn has_function(&self, id: &str) -> bool {
        self.function_ids.iter().any(|f| f == id)
    }

    pub fn function_ids(&self) -> &[String] {
        &self.function_ids
    }

    pub fn is_valid(&self) -> bool {
        !self.name.is_empty() && !self.instruction.is_empty()
    }

    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "instruction": self.instruction,
            "enabled": self.enabled,
            "tags": self.tags,
            "functions": self.function_ids,
        })
    }

    /// Applies every field (missing `enabled` ⇒ true); returns `is_valid()`.
    pub fn from_json(&mut self, o: &Map<String, Value>) -> bool {
        self.name = json::string(o, "name");
        self.description = json::string(o, "description");
        self.instruction = json::string(o, "instruction");
        self.enabled = json::boolean(o, "enabled", true);
        self.tags = json::string_list(o, "tags");
        self.function_ids.clear();
        for id in json::string_list(o, "functions") {
            self.add_function(&id);
        }
        self.is_valid()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_keep_order_without_duplicates_or_empties() {
        let mut s = Skill::new("s");
        assert!(s.enabled);
        for id in ["b", "a", "b", ""] {
            s.add_function(id);
        }
        assert_eq!(s.function_ids(), ["b", "a"]);
        s.remove_function("b");
        assert!(!s.has_function("b") && s.has_function("a"));
    }

    #[test]
    fn validity_and_json() {
        let mut s = Skill::new("s");
        assert!(!s.is_valid());
        s.instruction = "do".into();
        s.tags = vec!["t".into()];
        s.add_function("f");
        assert!(s.is_valid());
        let mut back = Skill::default();
        assert!(back.from_json(s.to_json().as_object().unwrap()));
        assert_eq!(back, s);
        let mut e = Skill { enabled: false, ..Skill::default() };
        assert!(!e.from_json(json!({"name": "x", "functions": ["f", "f", 3]}).as_object().unwrap()));
        assert!(e.enabled);
        assert_eq!(e.function_ids(), ["f"]);
    }
}
