//! Differential: the Center document's text reader (`Center::from_json_text`, one lenient pass
//! through `src/persist.rs`) gives the verdict `serde_json` gives, and for a document serde_json
//! accepts the same Center as reading its `Value` (`Center::from_json`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use visindigo_agent::Center;

/// The document without the ids a reader makes up (a fresh uuid for a dialog or provider that
/// has none): every "id" that is a uuid reads "<uuid>", and since the Center keeps entries in
/// id order, the top-level lists are compared as sets.
fn comparable(mut document: Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(o) => {
                for (key, v) in o.iter_mut() {
                    if key == "id" && v.as_str().is_some_and(is_uuid) {
                        *v = Value::from("<uuid>");
                    } else {
                        strip(v);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut document);
    if let Value::Object(o) = &mut document {
        for list in o.values_mut().filter_map(Value::as_array_mut) {
            list.sort_by_cached_key(Value::to_string);
        }
    }
    document
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36 && s.char_indices().all(|(i, c)| if [8, 13, 18, 23].contains(&i) { c == '-' } else { c.is_ascii_hexdigit() })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (by_text, by_value) = (Center::new(), Center::new());
    let expected = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => Some(by_value.from_json(&o)),
        _ => None,
    };
    assert_eq!(by_text.from_json_text(text).ok(), expected, "{text:?}");
    assert_eq!(comparable(by_text.to_json()), comparable(by_value.to_json()), "{text:?}");
});
