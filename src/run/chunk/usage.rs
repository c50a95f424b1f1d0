//! A chunk's usage object, kept as the JSON text the provider sent.
//!
//! Gemini repeats the usage so far in every chunk, and only the last one of a network read is
//! kept (`Run::apply`): built as a `serde_json::Value` for each chunk, it cost ~14,000
//! instructions a delta, twenty times the rest of the chunk (issue 34). The fast readers copy
//! its text instead, read into a tree once, when it is the one kept. The tree readers keep
//! their tree: written out and read again, a number `serde_json` rounded would come back as a
//! different one.

use serde_json::Value;
use std::fmt;

/// A usage object: its text as the scanner validated it, or a tree reader's tree.
#[derive(Clone)]
pub struct Usage(Kept);

/// Both boxed, so that a usage is as small as `Parsed`'s other payloads (a `Value` is 72 bytes).
#[derive(Clone)]
enum Kept {
    Text(Box<str>),
    Tree(Box<Value>),
}

impl Usage {
    /// The usage in `raw`, a value the scanner validated (`Scanner::raw`), when it is an object.
    pub fn read(raw: &str) -> Option<Usage> {
        raw.starts_with('{').then(|| Usage(Kept::Text(raw.into())))
    }

    /// The usage `value` of a tree reader, when it is an object.
    pub fn of(value: &Value) -> Option<Usage> {
        value.is_object().then(|| Usage(Kept::Tree(Box::new(value.clone()))))
    }

    /// [`Usage::of`] a tree that is the reader's to give.
    pub fn tree(value: Value) -> Option<Usage> {
        value.is_object().then(|| Usage(Kept::Tree(Box::new(value))))
    }

    /// The usage as a tree; None only if a reader kept a text that is not JSON (a fault the
    /// fuzz targets look for: the fast and the tree readers would then disagree).
    pub fn value(&self) -> Option<Value> {
        match &self.0 {
            Kept::Text(text) => serde_json::from_str(text).ok(),
            Kept::Tree(value) => Some(Value::clone(value)),
        }
    }
}

/// Two usages are the same when they read as the same tree, whatever the spacing: the fast
/// readers keep the provider's text, the tree readers compact JSON.
impl PartialEq for Usage {
    fn eq(&self, other: &Usage) -> bool {
        self.value() == other.value()
    }
}

impl fmt::Debug for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Kept::Text(text) => f.write_str(text),
            Kept::Tree(value) => write!(f, "{value}"),
        }
    }
}

#[cfg(test)]
impl From<Value> for Usage {
    /// For tests: an object's usage (a non-object reads as `{}`).
    fn from(value: Value) -> Usage {
        Usage::tree(value).unwrap_or_else(|| Usage(Kept::Text("{}".into())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_an_object_is_a_usage_and_it_reads_back_as_sent() {
        let usage = Usage::read(r#"{"promptTokenCount": 9, "details": [{"n": 1}]}"#).unwrap();
        assert_eq!(usage.value().unwrap(), json!({"promptTokenCount": 9, "details": [{"n": 1}]}));
        assert_eq!(usage, Usage::of(&json!({"promptTokenCount": 9, "details": [{"n": 1}]})).unwrap());
        assert_ne!(usage, Usage::from(json!({"promptTokenCount": 8})));
        for not_an_object in ["5", "null", "[1]", r#""{}""#] {
            assert!(Usage::read(not_an_object).is_none(), "{not_an_object}");
        }
        assert!(Usage::of(&json!([1])).is_none());
    }

    #[test]
    fn a_number_serde_json_rounds_is_the_same_from_the_text_and_from_the_tree() {
        // serde_json reads a long number to a float that its own text would not read back to.
        let text = format!(r#"{{"total_tokens":14{}}}"#, "9".repeat(69));
        let tree: Value = serde_json::from_str(&text).unwrap();
        assert_ne!(serde_json::from_str::<Value>(&tree.to_string()).unwrap(), tree, "no longer rounded");
        assert_eq!(Usage::read(&text).unwrap(), Usage::of(&tree).unwrap());
    }
}
