//! A history as a request may carry it (SPEC §H.3.3): every assistant tool call is followed by
//! a Tool answer for its id before the next non-tool message. A history does not always say
//! so — a run aborted while tools ran, a hand-edited or imported dialog — and the APIs reject
//! such a request outright, so every body is built through `visit`, which supplies the missing
//! answers and leaves out Tool messages that answer no open call. The dialog is not changed.

use crate::message::{Message, Role};
use serde_json::Value;

/// The content supplied for a call no Tool message answers.
pub const MISSING_ANSWER: &str = r#"{"error":"no result was recorded for this call"}"#;

/// One entry of the paired history, in order.
pub enum Turn<'a> {
    /// A stored message; `tool_calls` is its `tool_calls` text parsed, when that is a JSON
    /// array (the only form ever sent, SPEC §B.1).
    Message { message: &'a Message, tool_calls: Option<Value> },
    /// The answer supplied for call `call_id`: `MISSING_ANSWER`.
    MissingAnswer { call_id: String },
}

/// Calls `f` with the history's turns, pairs repaired; stops at `f`'s first error.
pub fn visit<'a, E>(messages: &'a [Message], mut f: impl FnMut(Turn<'a>) -> Result<(), E>) -> Result<(), E> {
    // The ids of the last assistant message's calls still without an answer.
    let mut open: Vec<String> = Vec::new();
    for message in messages {
        if message.role == Role::Tool {
            match open.iter().position(|id| *id == message.tool_call_id) {
                Some(at) => {
                    open.remove(at);
                    f(Turn::Message { message, tool_calls: None })?;
                }
                None => continue, // answers no open call: the APIs refuse it
            }
            continue;
        }
        for call_id in open.drain(..) {
            f(Turn::MissingAnswer { call_id })?;
        }
        let tool_calls = parse_tool_calls(message);
        if message.role == Role::Assistant
            && let Some(Value::Array(calls)) = &tool_calls
        {
            // A call without an id cannot be answered; it is left as it is.
            open = calls.iter().filter_map(|c| c.get("id")?.as_str().map(str::to_owned)).collect();
        }
        f(Turn::Message { message, tool_calls })?;
    }
    for call_id in open {
        f(Turn::MissingAnswer { call_id })?;
    }
    Ok(())
}

fn parse_tool_calls(m: &Message) -> Option<Value> {
    if m.tool_calls.is_empty() {
        return None;
    }
    serde_json::from_str::<Value>(&m.tool_calls).ok().filter(Value::is_array)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assistant_calling(ids: &[&str]) -> Message {
        let calls: Vec<Value> = ids
            .iter()
            .map(|id| serde_json::json!({"id": id, "type": "function", "function": {"name": "f", "arguments": "{}"}}))
            .collect();
        let mut m = Message::new(Role::Assistant, "");
        m.tool_calls = Value::Array(calls).to_string();
        m
    }

    fn answer(id: &str) -> Message {
        let mut m = Message::new(Role::Tool, "ok");
        m.tool_call_id = id.into();
        m
    }

    /// The turns as short labels: "user", "assistant", "tool a", "missing a".
    fn labels(messages: &[Message]) -> Vec<String> {
        let mut out = Vec::new();
        visit(messages, |turn| {
            out.push(match turn {
                Turn::Message { message, .. } if message.role == Role::Tool => format!("tool {}", message.tool_call_id),
                Turn::Message { message, .. } => message.role.wire_name().to_owned(),
                Turn::MissingAnswer { call_id } => format!("missing {call_id}"),
            });
            Ok::<(), ()>(())
        })
        .unwrap();
        out
    }

    #[test]
    fn a_complete_history_is_unchanged() {
        let h = [Message::new(Role::User, "hi"), assistant_calling(&["a", "b"]), answer("b"), answer("a"), Message::new(Role::Assistant, "done")];
        assert_eq!(labels(&h), ["user", "assistant", "tool b", "tool a", "assistant"]);
    }

    #[test]
    fn missing_answers_are_supplied_before_the_next_message_and_at_the_end() {
        let h = [assistant_calling(&["a", "b"]), answer("b"), Message::new(Role::User, "go on"), assistant_calling(&["c"])];
        assert_eq!(labels(&h), ["assistant", "tool b", "missing a", "user", "assistant", "missing c"]);
    }

    #[test]
    fn tool_messages_that_answer_no_open_call_are_left_out() {
        let h = [
            answer("x"),                       // before any call
            assistant_calling(&["a"]),
            answer("a"),
            answer("a"),                       // a second answer
            Message::new(Role::User, "next"),
            answer("a"),                       // after the turn closed
        ];
        assert_eq!(labels(&h), ["assistant", "tool a", "user"]);
    }

    #[test]
    fn calls_without_an_id_and_tool_calls_that_are_not_an_array_open_nothing() {
        let mut no_id = Message::new(Role::Assistant, "");
        no_id.tool_calls = r#"[{"type":"function","function":{"name":"f"}}]"#.into();
        let mut broken = Message::new(Role::Assistant, "");
        broken.tool_calls = "{oops".into();
        assert_eq!(labels(&[no_id, broken, answer("a")]), ["assistant", "assistant"]);
    }
}
