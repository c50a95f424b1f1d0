//! One message of a conversation (SPEC §B.1, seeds/Message.md): both the local record and the
//! element of the request's `messages` array.

use crate::text::Text;
use serde_json::{Map, Value};

/// The role a message plays. `Prompt` is local only: on the wire it is `user`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum Role {
    System = 0,
    #[default]
    User = 1,
    Assistant = 2,
    Tool = 3,
    Prompt = 4,
}

impl Role {
    /// The name stored by `to_json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Prompt => "prompt",
        }
    }

    /// Exact, case-sensitive match of a stored name (SPEC §F).
    pub fn from_name(name: &str) -> Option<Role> {
        Some(match name {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            "prompt" => Role::Prompt,
            _ => return None,
        })
    }

    pub fn from_u32(v: u32) -> Option<Role> {
        Some(match v {
            0 => Role::System,
            1 => Role::User,
            2 => Role::Assistant,
            3 => Role::Tool,
            4 => Role::Prompt,
            _ => return None,
        })
    }

    /// The role on the wire: Prompt is sent as user.
    pub fn wire_name(self) -> &'static str {
        match self {
            Role::Prompt => "user",
            other => other.as_str(),
        }
    }
}

/// An image attached to a message (SPEC §E.9, as 4D AIKit's `addImageURL`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Image {
    pub url: String,
    pub detail: String,
}

/// What a tool call answered, as its Tool message keeps it: the text, and the images an MCP
/// tool returned (SPEC §H.4.3), which each API's request then carries as images.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ToolOutput {
    pub content: String,
    pub images: Vec<Image>,
}

impl From<String> for ToolOutput {
    fn from(content: String) -> Self {
        ToolOutput { content, images: Vec::new() }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Message {
    pub role: Role,
    /// Shared, not copied, by the history, events and snapshots (`Text`).
    pub content: Text,
    pub name: String,
    pub tool_call_id: String,
    /// Raw JSON array text, kept verbatim and re-sent as-is (seeds/Message.md).
    pub tool_calls: String,
    /// Shown to the user, never sent to the server.
    pub reasoning: String,
    pub images: Vec<Image>,
    /// The reasoning of this answer its API wants back, as the API sent it (a JSON array
    /// text): Anthropic's thinking blocks with their signatures (SPEC §H.2.2), the Responses
    /// API's reasoning items with the order of the output (SPEC §I.2.3). Each wire sends back
    /// its own entries in the rounds that follow. Empty for every other message.
    pub thinking_blocks: String,
}

impl Message {
    pub fn new(role: Role, content: impl Into<Text>) -> Self {
        Message { role, content: content.into(), ..Default::default() }
    }

    /// Empty means neither content nor tool calls: a tool-call-only message is not empty.
    pub fn is_empty(&self) -> bool {
        self.content.is_empty() && self.tool_calls.is_empty()
    }

    pub fn add_image_url(&mut self, url: impl Into<String>, detail: impl Into<String>) {
        self.images.push(Image { url: url.into(), detail: detail.into() });
    }

    /// `{"role", "content"}` plus the optional fields that are set (one writer for this and
    /// the Center document: `persist::MessageOut`).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(crate::persist::MessageOut(self)).expect("a message serialises to JSON")
    }

    /// Overwrites every field; returns whether the role was recognised. An unknown role reads
    /// as User: answering it as user input does less harm than dropping it.
    /// (One reader for this and the Center document: `persist`'s `FromEntries for Message`.)
    pub fn from_json(&mut self, o: &Map<String, Value>) -> bool {
        *self = crate::persist::read_map(o);
        o.get("role").and_then(Value::as_str).and_then(Role::from_name).is_some()
    }

    pub fn image_urls(&self) -> Vec<String> {
        self.images.iter().map(|i| i.url.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn default_is_empty_user() {
        let m = Message::default();
        assert_eq!(m.role, Role::User);
        assert!(m.is_empty());
    }

    #[test]
    fn tool_call_only_message_is_not_empty() {
        let m = Message { role: Role::Assistant, tool_calls: "[]".into(), ..Default::default() };
        assert!(!m.is_empty());
        let m = Message { name: "n".into(), reasoning: "r".into(), ..Default::default() };
        assert!(m.is_empty());
    }

    #[test]
    fn to_json_writes_optional_fields_only_when_set() {
        let m = Message::new(Role::Prompt, "hi");
        assert_eq!(m.to_json().to_string(), r#"{"role":"prompt","content":"hi"}"#);
        let mut m = Message::new(Role::Tool, "");
        m.name = "clock".into();
        m.tool_call_id = "Call_1".into();
        m.tool_calls = "[1]".into();
        m.reasoning = "because".into();
        m.add_image_url("http://x/a.png", "");
        assert_eq!(
            m.to_json().to_string(),
            r#"{"role":"tool","content":"","name":"clock","toolCallId":"Call_1","toolCalls":"[1]","reasoning":"because","images":[{"url":"http://x/a.png","detail":""}]}"#
        );
    }

    #[test]
    fn from_json_unknown_role_is_user_and_false() {
        let mut m = Message::new(Role::Assistant, "old");
        m.name = "old".into();
        assert!(!m.from_json(&obj(json!({"role": "Assistant", "content": "x"}))));
        assert_eq!(m.role, Role::User);
        assert_eq!(m.content, "x");
        assert_eq!(m.name, "");
        assert!(!m.from_json(&obj(json!({}))));
        assert!(m.from_json(&obj(json!({"role": "tool", "content": 3, "toolCallId": "a"}))));
        assert_eq!((m.role, m.content.as_str(), m.tool_call_id.as_str()), (Role::Tool, "", "a"));
    }

    #[test]
    fn json_round_trip_keeps_everything() {
        let mut m = Message::new(Role::Assistant, "answer");
        m.tool_calls = r#"[{"id":"c"}]"#.into();
        m.reasoning = "think".into();
        m.add_image_url("u", "high");
        let mut back = Message::default();
        assert!(back.from_json(m.to_json().as_object().unwrap()));
        assert_eq!(back, m);
    }
}
