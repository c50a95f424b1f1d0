//! The MCP messages this client uses (protocol revisions 2024-11-05 to 2025-06-18):
//! `initialize` and version negotiation, `tools/list`, and turning a `tools/call` result into
//! the text of a Tool message.

use serde_json::{Value, json};

/// The revision asked for in `initialize`.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// The revisions accepted in the server's answer.
pub const SUPPORTED_VERSIONS: [&str; 3] = ["2024-11-05", "2025-03-26", "2025-06-18"];

pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "visindigo-agent", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// The revision the server chose, if it is one this client speaks.
pub fn negotiated_version(result: &Value) -> Result<String, String> {
    let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
    if SUPPORTED_VERSIONS.contains(&version) {
        Ok(version.to_owned())
    } else {
        Err(format!(
            "the server answered initialize with MCP protocol version \"{version}\"; this client supports {}",
            SUPPORTED_VERSIONS.join(", ")
        ))
    }
}

/// A tool as `tools/list` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// The tools of one `tools/list` page and the cursor of the next page, if any.
pub fn parse_tools(result: &Value) -> (Vec<Tool>, Option<String>) {
    let tools = result
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let name = t.get("name")?.as_str()?.to_owned();
            Some(Tool {
                name,
                description: t.get("description").and_then(Value::as_str).unwrap_or_default().to_owned(),
                input_schema: t.get("inputSchema").cloned().unwrap_or_else(|| json!({"type": "object"})),
            })
        })
        .collect();
    let cursor = result.get("nextCursor").and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_owned);
    (tools, cursor)
}

/// The Tool message content for a `tools/call` result: the text parts joined with "\n" (other
/// parts as their JSON; `structuredContent` when there is no content), or `{"error": text}`
/// when the result says `isError`.
pub fn call_result_content(result: &Value) -> String {
    let parts = result.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let text = if parts.is_empty() {
        result.get("structuredContent").map(Value::to_string).unwrap_or_default()
    } else {
        parts
            .iter()
            .map(|p| match (p.get("type").and_then(Value::as_str), p.get("text").and_then(Value::as_str)) {
                (Some("text"), Some(text)) => text.to_owned(),
                _ => p.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        json!({"error": text}).to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_negotiation() {
        assert_eq!(negotiated_version(&json!({"protocolVersion": "2024-11-05"})).unwrap(), "2024-11-05");
        let e = negotiated_version(&json!({"protocolVersion": "1999-01-01"})).unwrap_err();
        assert!(e.contains("1999-01-01") && e.contains("2025-06-18"), "{e}");
    }

    #[test]
    fn tools_and_cursor() {
        let (tools, cursor) = parse_tools(&json!({"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": {}}}, {"description": "nameless"}], "nextCursor": "2"}));
        assert_eq!(tools, vec![Tool { name: "a".into(), description: "".into(), input_schema: json!({"type": "object", "properties": {}}) }]);
        assert_eq!(cursor.as_deref(), Some("2"));
        assert_eq!(parse_tools(&json!({"tools": [], "nextCursor": ""})).1, None);
    }

    #[test]
    fn call_results() {
        let img = json!({"type": "image", "data": "AA", "mimeType": "image/png"});
        assert_eq!(call_result_content(&json!({"content": [{"type": "text", "text": "a"}, img, {"type": "text", "text": "b"}]})), format!("a\n{img}\nb"));
        assert_eq!(call_result_content(&json!({"content": [{"type": "text", "text": "bad \"x\""}], "isError": true})), r#"{"error":"bad \"x\""}"#);
        assert_eq!(call_result_content(&json!({"content": [], "structuredContent": {"r": 1}})), r#"{"r":1}"#);
    }
}
