//! The MCP messages this client uses (protocol revisions 2024-11-05 to 2025-11-25):
//! `initialize` and version negotiation, `tools/list`, the roots it offers, and turning a
//! `tools/call` result into the text of a Tool message.

use crate::message::{Image, ToolOutput};
use serde_json::{Value, json};

/// The revision asked for in `initialize`.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The revisions accepted in the server's answer (SPEC §H.4.1).
pub const SUPPORTED_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Every client capability is always offered — roots (an entry without them lists none),
/// elicitation in form mode, sampling (declined when the entry names no provider) — because
/// a connection is shared by every entry that connects the same way, and setting roots later
/// then needs only `notifications/roots/list_changed`, not a new connection.
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {"roots": {"listChanged": true}, "elicitation": {"form": {}, "url": {}}, "sampling": {}},
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

/// The root objects of `roots/list` for an entry's roots: URIs as given, a local path as its
/// `file://` URI (`C:\\proj` as `file:///C:/proj` on Windows); each named after its last
/// component. A path the platform cannot make a URI of (a relative one) is passed as given.
pub fn roots(uris: &[String]) -> Vec<Value> {
    /// What separates a local path's components: Windows takes both; on Unix a backslash is
    /// part of a file name.
    const SEPARATORS: &[char] = if cfg!(windows) { &['\\', '/'] } else { &['/'] };
    let last = |s: &str, separators: &[char]| s.trim_end_matches(separators).rsplit(separators).next().unwrap_or_default().to_owned();
    uris.iter()
        .filter(|u| !u.is_empty())
        .map(|u| {
            let (uri, name) = if u.contains("://") {
                (u.clone(), last(u, &['/']))
            } else {
                let uri = reqwest::Url::from_file_path(u).map(String::from).unwrap_or_else(|()| u.clone());
                (uri, last(u, SEPARATORS))
            };
            if name.is_empty() { json!({"uri": uri}) } else { json!({"uri": uri, "name": name}) }
        })
        .collect()
}

/// A tool as `tools/list` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// Whether it may or must be called as a task (2025-11-25 `execution.taskSupport`).
    pub task: super::tasks::Support,
}

/// The tools of one `tools/list` page, with their task support (SPEC §I.3.4; the connection
/// leaves out those it cannot call), and the cursor of the next page, if any.
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
                task: super::tasks::support(t),
            })
        })
        .collect();
    let cursor = result.get("nextCursor").and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_owned);
    (tools, cursor)
}

/// The Tool message for a `tools/call` result (SPEC §E.11, §H.4.3): the parts' text joined
/// with "\n" — text as is, an embedded text resource as its text, an image as an `[image: …]`
/// line while the image itself goes into `images` (a `data:` URL), a resource link, audio or
/// a binary resource as a line naming it, anything else as its JSON; `structuredContent` when
/// there is no content. `{"error": text}` when the result says `isError`.
pub fn call_result(result: &Value) -> ToolOutput {
    let parts = result.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut images = Vec::new();
    let text = if parts.is_empty() {
        result.get("structuredContent").map(Value::to_string).unwrap_or_default()
    } else {
        parts.iter().map(|p| part_text(p, &mut images)).collect::<Vec<_>>().join("\n")
    };
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        ToolOutput { content: json!({"error": text}).to_string(), images }
    } else {
        ToolOutput { content: text, images }
    }
}

fn part_text(part: &Value, images: &mut Vec<Image>) -> String {
    let field = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let base64_len = |data: &str| data.len() / 4 * 3;
    match part.get("type").and_then(Value::as_str) {
        Some("text") if part.get("text").is_some_and(Value::is_string) => field(part, "text"),
        Some("image") if part.get("data").is_some_and(Value::is_string) => {
            let mime = field(part, "mimeType");
            images.push(Image { url: format!("data:{mime};base64,{}", field(part, "data")), detail: String::new() });
            format!("[image: {mime}]")
        }
        Some("audio") => format!("[audio: {}, {} bytes]", field(part, "mimeType"), base64_len(&field(part, "data"))),
        Some("resource_link") => {
            let description = field(part, "description");
            let link = format!("[resource link: {} <{}>]", field(part, "name"), field(part, "uri"));
            if description.is_empty() { link } else { format!("{link} {description}") }
        }
        Some("resource") if part.get("resource").is_some_and(Value::is_object) => {
            let resource = &part["resource"];
            let (uri, mime) = (field(resource, "uri"), field(resource, "mimeType"));
            if let Some(text) = resource.get("text").and_then(Value::as_str) {
                text.to_owned()
            } else if let Some(blob) = resource.get("blob").and_then(Value::as_str).filter(|_| mime.starts_with("image/")) {
                images.push(Image { url: format!("data:{mime};base64,{blob}"), detail: String::new() });
                format!("[image: {mime}, {uri}]")
            } else {
                format!("[resource {uri}: {mime}, {} bytes]", base64_len(&field(resource, "blob")))
            }
        }
        _ => part.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_negotiation() {
        assert_eq!(negotiated_version(&json!({"protocolVersion": "2024-11-05"})).unwrap(), "2024-11-05");
        let e = negotiated_version(&json!({"protocolVersion": "1999-01-01"})).unwrap_err();
        assert!(e.contains("1999-01-01") && e.contains("2025-11-25"), "{e}");
        assert_eq!(initialize_params()["protocolVersion"], "2025-11-25");
    }

    #[cfg(unix)]
    #[test]
    fn roots_are_uris() {
        let r = roots(&["/srv/my data".into(), "file:///work/".into(), "".into(), "relative".into()]);
        assert_eq!(r, vec![
            json!({"uri": "file:///srv/my%20data", "name": "my data"}),
            json!({"uri": "file:///work/", "name": "work"}),
            json!({"uri": "relative", "name": "relative"}),
        ]);
    }

    #[cfg(windows)]
    #[test]
    fn roots_are_uris() {
        let r = roots(&[r"C:\Users\me\my proj".into(), "D:/work/".into(), r"\\server\share\docs\".into(), "file:///C:/x/".into(), "relative".into()]);
        assert_eq!(r, vec![
            json!({"uri": "file:///C:/Users/me/my%20proj", "name": "my proj"}),
            json!({"uri": "file:///D:/work", "name": "work"}),
            json!({"uri": "file://server/share/docs", "name": "docs"}),
            json!({"uri": "file:///C:/x/", "name": "x"}),
            json!({"uri": "relative", "name": "relative"}),
        ]);
    }

    #[test]
    fn tools_and_cursor() {
        let (tools, cursor) = parse_tools(&json!({"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": {}}}, {"description": "nameless"}], "nextCursor": "2"}));
        assert_eq!(tools, vec![Tool { name: "a".into(), description: "".into(), input_schema: json!({"type": "object", "properties": {}}), task: Default::default() }]);
        assert_eq!(cursor.as_deref(), Some("2"));
        assert_eq!(parse_tools(&json!({"tools": [], "nextCursor": ""})).1, None);
    }

    #[test]
    fn tools_keep_their_task_support() {
        use super::super::tasks::Support;
        let tool = |name: &str, support: &str| json!({"name": name, "execution": {"taskSupport": support}});
        let listed = json!({"tools": [tool("required", "required"), tool("optional", "optional"), tool("forbidden", "forbidden"), {"name": "plain"}]});
        let read: Vec<(String, Support)> = parse_tools(&listed).0.into_iter().map(|t| (t.name, t.task)).collect();
        assert_eq!(read, [
            ("required".to_owned(), Support::Required),
            ("optional".to_owned(), Support::Optional),
            ("forbidden".to_owned(), Support::Forbidden),
            ("plain".to_owned(), Support::Forbidden),
        ]);
    }

    #[test]
    fn call_results() {
        let text = |result: Value| call_result(&result).content;
        let img = json!({"type": "image", "data": "AAAA", "mimeType": "image/png"});
        let out = call_result(&json!({"content": [{"type": "text", "text": "a"}, img, {"type": "text", "text": "b"}]}));
        assert_eq!(out.content, "a\n[image: image/png]\nb");
        assert_eq!(out.images, vec![Image { url: "data:image/png;base64,AAAA".into(), detail: String::new() }]);
        assert_eq!(text(json!({"content": [{"type": "text", "text": "bad \"x\""}], "isError": true})), r#"{"error":"bad \"x\""}"#);
        assert_eq!(text(json!({"content": [], "structuredContent": {"r": 1}})), r#"{"r":1}"#);
        let resources = json!({"content": [
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "description": "the notes"},
            {"type": "resource", "resource": {"uri": "file:///b.txt", "mimeType": "text/plain", "text": "inside b"}},
            {"type": "resource", "resource": {"uri": "file:///c.bin", "mimeType": "application/zip", "blob": "AAAAAAAA"}},
            {"type": "resource", "resource": {"uri": "file:///d.jpg", "mimeType": "image/jpeg", "blob": "BBBB"}},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "hologram"},
        ]});
        let out = call_result(&resources);
        assert_eq!(out.content, "[resource link: a.txt <file:///a.txt>] the notes\ninside b\n[resource file:///c.bin: application/zip, 6 bytes]\n[image: image/jpeg, file:///d.jpg]\n[audio: audio/wav, 3 bytes]\n{\"type\":\"hologram\"}");
        assert_eq!(out.images[0].url, "data:image/jpeg;base64,BBBB");
    }
}
