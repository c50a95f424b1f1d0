//! A prompt template with `{{ name }}` placeholders (SPEC §B.6).

use crate::{
    json,
    message::{Message, Role},
};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

#[cfg(any(test, fuzzing))]
pub mod reference;

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
///
/// Linear in the text: the inside of a placeholder holds only name characters and blanks, so
/// each `{{` is followed only as far as the first other character, and a placeholder is there
/// iff that character starts `}}`. (Searching for the next `}}` from every `{{` instead made
/// `"{{" × 50,000 + "}}"` take 1.6 s.)
fn placeholders(text: &str) -> impl Iterator<Item = Placeholder<'_>> {
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(offset) = text[from..].find("{{") {
            let start = from + offset;
            let inner_start = start + 2;
            let inner_len = text[inner_start..]
                .find(|c: char| !(is_name_char(c) || matches!(c, ' ' | '\t')))
                .unwrap_or(text.len() - inner_start);
            let close = inner_start + inner_len;
            if text[close..].starts_with("}}") {
                let name = text[inner_start..close].trim_matches([' ', '\t']);
                if !name.is_empty() && name.chars().all(is_name_char) {
                    from = close + 2;
                    return Some(Placeholder { start, end: close + 2, name });
                }
            }
            from = start + 1;
        }
        None
    })
}

pub(crate) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-')
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
    fn the_linear_scan_finds_what_the_rule_says() {
        let alphabet = ['{', '}', ' ', 'a', 'é', '-', '\t', 'x', '{', '}'];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut text = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for i in 0..(state % 24) {
                text.push(alphabet[((state >> (i * 2 % 60)) % alphabet.len() as u64) as usize]);
            }
            let linear: Vec<_> = placeholders(&text).map(|p| (p.start, p.end, p.name.to_owned())).collect();
            assert_eq!(linear, reference::placeholders(&text), "{text:?}");
            let prompt = Prompt::new("p", text.as_str());
            let empty: HashMap<String, String> = prompt.variables().into_iter().map(|n| (n, String::new())).collect();
            assert_eq!(prompt.render(&empty).content, reference::without_placeholders(&text).as_str(), "{text:?}");
        }
    }

    #[test]
    fn many_opening_braces_without_a_name_are_no_placeholder() {
        let text = format!("{}}}}} {{{{ok}}}}", "{{".repeat(500_000));
        let p = Prompt::new("p", text);
        assert_eq!(p.variables(), vec!["ok"]);
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
