//! A tool the model may call (SPEC §B.7). The application implements it (in C++ through the C
//! vtable of `ffi::function`); the run loop only needs its description and a way to invoke it.

use serde_json::{Value, json};
use tokio::sync::oneshot;

/// What the model is told about a function. Read once, when the function is registered.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionSpec {
    /// Also the tool name sent to the model.
    pub id: String,
    pub name: String,
    pub description: String,
    /// A JSON Schema object.
    pub parameter_schema: Value,
    /// Whatever the registering host wants to find the function by again (the C ABI keeps its
    /// `user_data` here); the core never looks at it.
    pub host: Option<HostToken>,
}

/// A value a host asks the core to carry without looking at it: the C ABI stores its
/// `user_data` pointers in it, so that only `ffi` knows they are pointers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct HostToken(pub usize);

impl HostToken {
    pub const NONE: HostToken = HostToken(0);
}

pub trait Function: Send + Sync + 'static {
    fn spec(&self) -> &FunctionSpec;

    /// Starts the call. `context` is the token the calling dialog's host gave with its sink
    /// (`Dialog::set_sink`), so a host can route the call to that dialog's thread. Answer
    /// through `reply`, from any thread, now or later.
    fn invoke(&self, arguments: Value, context: HostToken, reply: ToolReply);
}

/// Whether `id` may be offered to the model: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_tool_name(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The one-shot answer channel of a tool call. Dropping it unanswered answers with an error,
/// so a host that loses a call can never leave the run waiting for ever.
pub struct ToolReply {
    sender: Option<oneshot::Sender<Value>>,
    tool: String,
}

impl ToolReply {
    pub fn new(tool: impl Into<String>) -> (ToolReply, oneshot::Receiver<Value>) {
        let (sender, receiver) = oneshot::channel();
        (ToolReply { sender: Some(sender), tool: tool.into() }, receiver)
    }

    /// Delivers the result; a late answer (after an abort) is silently dropped.
    pub fn complete(mut self, result: Value) {
        if let Some(sender) = self.sender.take() {
            let _ = sender.send(result);
        }
    }
}

impl Drop for ToolReply {
    fn drop(&mut self) {
        if let Some(sender) = self.sender.take() {
            let _ = sender.send(json!({"error": format!("tool {} returned no result", self.tool)}));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_name_pattern() {
        assert!(is_valid_tool_name("get_time-2"));
        assert!(is_valid_tool_name(&"a".repeat(64)));
        assert!(!is_valid_tool_name(&"a".repeat(65)));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("has space"));
        assert!(!is_valid_tool_name("ünïcode"));
    }

    #[test]
    fn a_dropped_reply_answers_with_an_error() {
        let (reply, mut rx) = ToolReply::new("clock");
        drop(reply);
        assert_eq!(rx.try_recv().unwrap(), json!({"error": "tool clock returned no result"}));
        let (reply, mut rx) = ToolReply::new("clock");
        reply.complete(json!({"ok": 1}));
        assert_eq!(rx.try_recv().unwrap(), json!({"ok": 1}));
    }
}
