//! A prompt template with `{{ name }}` placeholders (SPEC §B.6).

use crate::{
    json,
    message::{Message, Role},
};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prompt {
    pub name: String,
    pub description: String,
    pub content: String,
    pub tags: Vec<String>,
}

/// One `{{ name }}` occurrence: its byte range in the content and the name inside.
struct Placeholder<'a> {
    start: usize,
    end: usize,
    name: &'a str,
}

/// The placeholders of `text` in order. Names are letters, digits, `_`, `.`, `-`; blanks
/// around the name inside the braces are allowed.
fn placeholders(text: &str) -> impl Iterator<Item = Placeholder<'_>> {
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(offset) = text[from..].find("{{") {
            let start = from + offset;
            let inner_start = start + 2;
            let Some(close) = text[inner_start..].find("}}") else {
                from = text.len();
                return None;
            };
            let name = text[inner_start..inner_start + close].trim_matches([' ', '\t']);
            let valid = !name.is_empty()
                && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'));
            if valid {
                let end = inner_start + close + 2;
                from = end;
                return Some(Placeholder { start, end, name });
            }
            from = start + 1;
        }
        None
    })
}

impl Prompt {
    pub fn new(name: impl Into<String>, content: impl Into<String>) -> Self {
        Prompt { name: name.into(), content: content.into(), ..Self::default() }
    }

    /// Distinct placeholder names in order of first appearance.
    pub fn variables(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for p in placeholders(&self.content) {
            if !names.iter().any(|n| n == p.name) {
                names.push(p.name.to_owned());
            }
        }
        names
    }

    /// Replaces each placeholder that has a value (substituted text is not re-scanned) and
    /// leaves the others verbatim; the message is role Prompt, named after this prompt.
    pub fn render(&self, vars: &HashMap<String, String>) -> Message {
        let mut out = String::with_capacity(self.content.len());
        let mut copied = 0;
        for p in placeholders(&self.content) {
            if let Some(value) = vars.get(p.name) {
                out.push_str(&self.content[copied..p.start]);
                out.push_str(value);
                copied = p.end;
            }
        }
        out.push_str(&self.content[copied..]);
        Message { role: Role::Prompt, content: out.into(), name: self.name.clone(), ..Message::default() }
    }

    pub fn is_valid(&self) -> bool {
        !self.name.is_empty() && !self.content.is_empty()
    }

    pub fn to_json(&self) -> Value {
        json!({"name": self.name, "description": self.description, "content": self.content, "tags": self.tags})
    }

    /// Applies every field; returns `is_valid()`.
    pub fn from_json(&mut self, o: &Map<String, Value>) -> bool {
        self.name = json::string(o, "name");
        self.description = json::string(o, "description");
        self.content = json::string(o, "content");
        self.tags = json::string_list(o, "tags");
        self.is_valid()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn variables_in_first_appearance_order() {
        let p = Prompt::new("p", "{{b}} {{ a.x }} {{b}} {{ bad name }} {{}} {{c-1}} {{ a.x}}");
        assert_eq!(p.variables(), vec!["b", "a.x", "c-1"]);
    }

    #[test]
    fn render_substitutes_once_and_keeps_unknown() {
        let p = Prompt::new("greet", "Hi {{ who }}, {{missing}}! {{who}}");
        let m = p.render(&vars(&[("who", "{{missing}}")]));
        assert_eq!(m.content, "Hi {{missing}}, {{missing}}! {{missing}}");
        assert_eq!(m.role, Role::Prompt);
        assert_eq!(m.name, "greet");
    }

    #[test]
    fn unclosed_and_unicode_text_is_safe() {
        let p = Prompt::new("p", "é{{ ü }} {{ x");
        assert_eq!(p.variables(), vec!["ü"]);
        assert_eq!(p.render(&vars(&[("ü", "1")])).content, "é1 {{ x");
    }

    #[test]
    fn json_round_trip_and_validity() {
        let mut p = Prompt::new("n", "c");
        p.tags = vec!["t".into()];
        assert!(p.is_valid());
        let mut back = Prompt::default();
        assert!(back.from_json(p.to_json().as_object().unwrap()));
        assert_eq!(back, p);
        assert!(!back.from_json(json!({"name": 1}).as_object().unwrap()));
    }
}
