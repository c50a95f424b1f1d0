//! The reference reading of a chunk: the rules of `parse`, applied to a `serde_json::Value`
//! tree. The unit tests and `fuzz/` (differential target `chunk`) hold `parse` to it; it is
//! compiled for them only.

use super::{Chunk, DeltaText, Parsed, ToolCallDelta, Usage, error_message};
use serde_json::Value;

/// The reference reading: the same lenient rules applied to a `serde_json::Value` tree.
pub fn reference(data: &str) -> Parsed {
    let trimmed = data.trim();
    if trimmed == "[DONE]" {
        return Parsed::Done;
    }
    let Ok(Value::Object(top)) = serde_json::from_str::<Value>(trimmed) else {
        return Parsed::Ignored;
    };
    if let Some(error) = top.get("error").filter(|e| !e.is_null()) {
        return Parsed::Error(error_message(error.clone()));
    }
    let text = |v: Option<&Value>| v.and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let int = |v: &Value| match v {
        Value::Number(n) if n.is_i64() => n.as_i64(),
        Value::Number(n) if n.is_u64() => None,
        Value::Number(n) => n.as_f64().filter(|v| v.fract() == 0.0 && *v >= -(2f64.powi(63)) && *v < 2f64.powi(63)).map(|v| v as i64),
        _ => None,
    };
    let mut chunk = Chunk { usage: top.get("usage").and_then(Usage::of), ..Chunk::default() };
    let choice = top.get("choices").and_then(Value::as_array).and_then(|a| a.first()).and_then(Value::as_object);
    if let Some(choice) = choice {
        chunk.finish_reason = text(choice.get("finish_reason"));
        if let Some(delta) = choice.get("delta").and_then(Value::as_object) {
            chunk.content = text(delta.get("content")).map(DeltaText::from);
            chunk.reasoning = text(delta.get("reasoning_content")).or_else(|| text(delta.get("reasoning"))).map(DeltaText::from);
            let calls = delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten();
            chunk.tool_calls = calls
                .filter_map(Value::as_object)
                .map(|call| {
                    let function = call.get("function").and_then(Value::as_object);
                    let arguments = match function.and_then(|f| f.get("arguments")) {
                        Some(Value::String(a)) => Some(a.clone()),
                        Some(a @ (Value::Object(_) | Value::Array(_))) => Some(a.to_string()),
                        _ => None,
                    };
                    ToolCallDelta {
                        index: call.get("index").and_then(int).unwrap_or(0),
                        id: text(call.get("id")),
                        name: text(function.and_then(|f| f.get("name"))),
                        arguments: arguments.filter(|a| !a.is_empty()),
                    }
                })
                .collect();
        }
    }
    chunk.into()
}
