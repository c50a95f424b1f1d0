//! A chunk's usage object, kept as the JSON text the provider sent.
//!
//! Gemini repeats the usage so far in every chunk, and only the last one of a network read is
//! kept (`Run::apply`): built as a `serde_json::Value` for each chunk, it cost ~14,000
//! instructions a delta, twenty times the rest of the chunk (issue 34). Its text is copied
//! instead, and read into a tree once, when it is the one kept.

use serde_json::Value;
use std::fmt;

/// The text of a usage object: JSON the scanner or `serde_json` validated, so it reads back
/// into the tree it was.
#[derive(Clone)]
pub struct Usage(Box<str>);

impl Usage {
    /// The usage in `raw`, a value the scanner validated (`Scanner::raw`), when it is an object.
    pub fn read(raw: &str) -> Option<Usage> {
        raw.starts_with('{').then(|| Usage(raw.into()))
    }

    /// The usage `value` of a tree reader, when it is an object.
    pub fn of(value: &Value) -> Option<Usage> {
        value.is_object().then(|| Usage(value.to_string().into()))
    }

    /// The usage as a tree; None only if a reader kept a text that is not JSON (a fault the
    /// fuzz targets look for: the fast and the tree readers would then disagree).
    pub fn value(&self) -> Option<Value> {
        serde_json::from_str(&self.0).ok()
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
        f.write_str(&self.0)
    }
}

#[cfg(test)]
impl From<Value> for Usage {
    /// For tests: an object's usage (a non-object reads as `{}`).
    fn from(value: Value) -> Usage {
        Usage::of(&value).unwrap_or_else(|| Usage("{}".into()))
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
}
