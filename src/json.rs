//! Reading JSON the way Qt's `QJsonValue` conversions do: a missing or wrongly-typed value
//! reads as the type's empty value, never as an error (SPEC §F). Every `from_json` uses these
//! so that all classes forgive the same inputs in the same way.

use serde_json::{Map, Value};

/// The string at `key`, or "" when absent or not a string.
pub fn string(obj: &Map<String, Value>, key: &str) -> String {
    match obj.get(key) {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

/// The boolean at `key`, or `default` when absent; a non-boolean reads as false (Qt's `toBool`).
pub fn boolean(obj: &Map<String, Value>, key: &str, default: bool) -> bool {
    match obj.get(key) {
        None => default,
        Some(Value::Bool(b)) => *b,
        Some(_) => false,
    }
}

/// The integer at `key`: a number with an integral value in range, else 0 (Qt's `toInt`).
pub fn int(obj: &Map<String, Value>, key: &str) -> i64 {
    obj.get(key).and_then(integral).unwrap_or(0)
}

/// A number's value as an integer when it has one.
pub fn integral(v: &Value) -> Option<i64> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64).then_some(f as i64)
}

/// The strings of the array at `key`; non-string elements read as "" (Qt's `toVariantList` of
/// a `QStringList`), a non-array as empty.
/// The object elements of the array at `key` (SPEC §F: other elements are skipped, a
/// non-array reads as none).
pub fn objects<'a>(obj: &'a Map<String, Value>, key: &str) -> impl Iterator<Item = &'a Map<String, Value>> {
    obj.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object)
}

pub fn string_list(obj: &Map<String, Value>, key: &str) -> Vec<String> {
    match obj.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect(),
        _ => Vec::new(),
    }
}

/// The object at `key` as a string map; non-string values read as "".
pub fn string_map(obj: &Map<String, Value>, key: &str) -> std::collections::BTreeMap<String, String> {
    match obj.get(key) {
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
            .collect(),
        _ => Default::default(),
    }
}

/// The id to adopt from `obj`: only a non-empty string counts (SPEC §F).
pub fn id(obj: &Map<String, Value>) -> Option<String> {
    match obj.get("id") {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// Writes integral floating-point numbers as JSON integers, recursively, so that `256.0` from a
/// `qreal` goes on the wire as `256` (SPEC §F).
pub fn normalize_numbers(value: Value) -> Value {
    match value {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => match integral(&Value::Number(n.clone())) {
            Some(i) => Value::from(i),
            None => Value::Number(n),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(normalize_numbers).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, normalize_numbers(v))).collect()),
        other => other,
    }
}

/// Sets `value` at a dotted path of object keys, creating (or replacing non-object)
/// intermediates with objects.
pub fn set_dotted(root: &mut Map<String, Value>, path: &str, value: Value) {
    let mut segments = path.split('.').peekable();
    let mut node = root;
    while let Some(segment) = segments.next() {
        if segments.peek().is_none() {
            node.insert(segment.to_owned(), value);
            return;
        }
        let child = node
            .entry(segment.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if !child.is_object() {
            *child = Value::Object(Map::new());
        }
        node = child.as_object_mut().expect("made an object just above");
    }
}

/// Removes the value at a dotted path; returns whether something was removed.
pub fn remove_dotted(root: &mut Map<String, Value>, path: &str) -> bool {
    match path.rsplit_once('.') {
        None => root.remove(path).is_some(),
        Some((parent, last)) => {
            let mut node = root;
            for segment in parent.split('.') {
                match node.get_mut(segment).and_then(Value::as_object_mut) {
                    Some(child) => node = child,
                    None => return false,
                }
            }
            node.remove(last).is_some()
        }
    }
}

/// Parses text that must hold a JSON object; the error names what was wrong.
pub fn parse_object(text: &str) -> Result<Map<String, Value>, crate::Error> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(crate::Error::Json(format!("expected a JSON object, got {}", kind(&other)))),
        Err(e) => Err(crate::Error::Json(e.to_string())),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrong_types_read_as_empty() {
        let o = json!({"s": 5, "b": "yes", "i": "7", "l": [1, "a"], "m": {"k": 1}}).as_object().unwrap().clone();
        assert_eq!(string(&o, "s"), "");
        assert!(!boolean(&o, "b", true));
        assert!(boolean(&o, "missing", true));
        assert_eq!(int(&o, "i"), 0);
        assert_eq!(string_list(&o, "l"), vec!["".to_owned(), "a".to_owned()]);
        assert_eq!(string_map(&o, "m").get("k").map(String::as_str), Some(""));
    }

    #[test]
    fn integral_floats_become_integers() {
        let v = normalize_numbers(json!({"a": 256.0, "b": [1.5, 2.0]}));
        assert_eq!(v.to_string(), r#"{"a":256,"b":[1.5,2]}"#);
    }

    #[test]
    fn dotted_paths_nest_objects() {
        let mut m = Map::new();
        set_dotted(&mut m, "stream_options.include_usage", json!(true));
        set_dotted(&mut m, "a", json!(1));
        set_dotted(&mut m, "a.b", json!(2));
        assert_eq!(Value::Object(m.clone()).to_string(), r#"{"stream_options":{"include_usage":true},"a":{"b":2}}"#);
        assert!(remove_dotted(&mut m, "a.b"));
        assert!(!remove_dotted(&mut m, "x.y"));
        assert_eq!(Value::Object(m).to_string(), r#"{"stream_options":{"include_usage":true},"a":{}}"#);
    }
}
