//! Differential: the Center document's text reader (`Center::from_json_text`, one lenient pass
//! through `src/persist.rs`) gives the verdict `serde_json` gives, and for a document serde_json
//! accepts the same Center as reading its `Value` (`Center::from_json`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use visindigo_agent::Center;

/// The document without the ids a reader makes up (fresh uuids for dialogs that have none).
fn comparable(mut document: Value) -> Value {
    for dialog in document["dialogs"].as_array_mut().into_iter().flatten() {
        if let Some(id) = dialog.get_mut("id")
            && id.as_str().is_some_and(|s| s.len() == 36)
        {
            *id = Value::from("<uuid>");
        }
    }
    document
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
