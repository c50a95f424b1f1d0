//! Chat Completions (SPEC §D.1.3–4, §E.9, §H.2.3): `POST <base>/chat/completions`, the
//! request body built straight from the dialog's messages into JSON text without copying them
//! first, and the stream's chunks read by `chunk.rs`.

use super::{BodyParts, Events, Failure, Wire};
use crate::message::{Image, Message, Role};
use crate::model::Model;
use crate::run::chunk::{self, Parsed};
use crate::run::pairing::{self, Turn};
use crate::run::request::ToolSpec;
use crate::run::shape::Shape;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Value, json};

pub struct ChatCompletions;

impl Wire for ChatCompletions {
    fn path(&self, _model: &Model) -> String {
        "/chat/completions".into()
    }

    fn headers(&self, model: &Model) -> Vec<(&'static str, String)> {
        vec![("authorization", format!("Bearer {}", model.token))]
    }

    fn body(&self, parts: &BodyParts) -> String {
        serde_json::to_string(&Body(parts)).expect("serialising JSON values into a String cannot fail")
    }

    fn events(&self) -> Box<dyn Events> {
        Box::new(ChunkEvents::default())
    }

    /// The chunk scanner's reference (`chunk/reference.rs`), which has no shape to learn.
    #[cfg(fuzzing)]
    fn tree_events(&self) -> Box<dyn Events> {
        Box::new(ReferenceEvents)
    }

    fn answer(&self, text: &str) -> Vec<Parsed> {
        match chunk::completion_as_chunk(text) {
            Parsed::Ignored => Vec::new(),
            parsed => vec![parsed],
        }
    }

    fn usage(&self, raw: &Value) -> super::Usage {
        super::Usage {
            input: super::count(raw, "/prompt_tokens"),
            output: super::count(raw, "/completion_tokens"),
            cached_input: super::count(raw, "/prompt_tokens_details/cached_tokens"),
            cache_write: super::count(raw, "/prompt_tokens_details/cache_write_tokens"),
            reasoning: super::count(raw, "/completion_tokens_details/reasoning_tokens"),
        }
    }

    fn overflow(&self, failure: &Failure) -> bool {
        super::openai_overflow(failure)
    }

    /// OpenAI's published figure for its chat format: 3 tokens a message.
    fn message_overhead(&self) -> i64 {
        3
    }
}

/// Chat Completions events are independent chunks: nothing between them but the shape of the
/// last piece of answer, which reads the next one like it faster (`shape.rs`).
struct ChunkEvents {
    shape: Shape,
}

impl Default for ChunkEvents {
    fn default() -> Self {
        Self { shape: chunk::stream_shape() }
    }
}

impl Events for ChunkEvents {
    fn event(&mut self, name: &[u8], data: &str, out: &mut Vec<Parsed>) {
        out.push(if name == b"error" { super::error_event(data) } else { chunk::parse_in_stream(data, &mut self.shape) });
    }
}

#[cfg(fuzzing)]
struct ReferenceEvents;

#[cfg(fuzzing)]
impl Events for ReferenceEvents {
    fn event(&mut self, name: &[u8], data: &str, out: &mut Vec<Parsed>) {
        out.push(if name == b"error" { super::error_event(data) } else { chunk::reference::reference(data) });
    }
}

/// The whole body without tools or schema (for `benches/`).
pub fn body(model: &Model, system: &str, messages: &[Message]) -> String {
    ChatCompletions.body(&BodyParts { model, dialog_id: "", system, messages, tools: &[], response_schema: None })
}

/// `messages`, `"stream": true`, the model's parameters, `model`, `tools`, and
/// `response_format` when a schema is asked for (SPEC §H.2.3).
struct Body<'a>(&'a BodyParts<'a>);

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let parts = self.0;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("messages", &Messages { system: parts.system, messages: parts.messages })?;
        map.serialize_entry("stream", &true)?;
        for (key, value) in super::parameters(parts.model, &[]) {
            map.serialize_entry(key, value)?;
        }
        map.serialize_entry("model", &parts.model.name)?;
        if let Some(key) = super::prompt_cache_key(parts) {
            map.serialize_entry("prompt_cache_key", key)?;
        }
        if !parts.tools.is_empty() {
            map.serialize_entry("tools", &Tools(parts.tools))?;
        }
        if let Some(schema) = parts.response_schema {
            let format = json!({"type": "json_schema", "json_schema": {"name": schema.name, "schema": schema.schema, "strict": true}});
            map.serialize_entry("response_format", &format)?;
        }
        map.end()
    }
}

/// `[{"type":"function","function":{"name","description","parameters"}}, …]`; a schema that is
/// not an object is left out.
struct Tools<'a>(&'a [ToolSpec]);

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for tool in self.0 {
            let mut function = json!({"name": tool.name, "description": tool.description});
            if tool.schema.is_object() {
                function["parameters"] = tool.schema.clone();
            }
            seq.serialize_element(&json!({"type": "function", "function": function}))?;
        }
        seq.end()
    }
}

struct Messages<'a> {
    system: &'a str,
    messages: &'a [Message],
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        if !self.system.is_empty() {
            let mut system = serde_json::Map::new();
            system.insert("role".into(), "system".into());
            system.insert("content".into(), self.system.into());
            seq.serialize_element(&system)?;
        }
        // Tool messages carry text only: the images of a round's results follow its Tool
        // messages as one user message (SPEC §H.4.3).
        let mut held: Vec<&Image> = Vec::new();
        pairing::visit(self.messages, |turn| match turn {
            Turn::Message { message, tool_calls } if message.role == Role::Tool => {
                held.extend(&message.images);
                seq.serialize_element(&WireMessage(message, tool_calls))
            }
            Turn::Message { message, tool_calls } => {
                if !held.is_empty() {
                    seq.serialize_element(&ToolImages(&std::mem::take(&mut held)))?;
                }
                seq.serialize_element(&WireMessage(message, tool_calls))
            }
            Turn::MissingAnswer { call_id, .. } => seq.serialize_element(
                &json!({"role": "tool", "content": pairing::MISSING_ANSWER, "tool_call_id": call_id}),
            ),
        })?;
        if !held.is_empty() {
            seq.serialize_element(&ToolImages(&held))?;
        }
        seq.end()
    }
}

/// A stored message as the server sees it: Prompt ⇒ user; name and reasoning never sent;
/// `tool_calls` as `pairing` parsed them.
struct WireMessage<'a>(&'a Message, Option<Value>);

impl Serialize for WireMessage<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let WireMessage(m, tool_calls) = self;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("role", m.role.wire_name())?;
        if !m.images.is_empty() && m.role != Role::Tool {
            map.serialize_entry("content", &ContentParts(m))?;
        } else if m.content.is_empty() && tool_calls.is_some() {
            map.serialize_entry("content", &Value::Null)?;
        } else {
            map.serialize_entry("content", &m.content)?;
        }
        if m.role == Role::Tool {
            map.serialize_entry("tool_call_id", &m.tool_call_id)?;
        }
        if let Some(calls) = tool_calls {
            map.serialize_entry("tool_calls", calls)?;
        }
        map.end()
    }
}

/// The user message after a round's Tool messages with the images their results held.
struct ToolImages<'a>(&'a [&'a Image]);

impl Serialize for ToolImages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut parts = vec![json!({"type": "text", "text": "The images the tool results above refer to, in order:"})];
        parts.extend(self.0.iter().map(|image| image_part(image)));
        json!({"role": "user", "content": parts}).serialize(s)
    }
}

fn image_part(image: &Image) -> Value {
    let mut url = json!({"url": image.url});
    if !image.detail.is_empty() {
        url["detail"] = image.detail.clone().into();
    }
    json!({"type": "image_url", "image_url": url})
}

/// Text then images, as content parts (SPEC §E.9).
struct ContentParts<'a>(&'a Message);

impl Serialize for ContentParts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut seq = s.serialize_seq(None)?;
        if !m.content.is_empty() {
            seq.serialize_element(&json!({"type": "text", "text": m.content}))?;
        }
        for image in &m.images {
            seq.serialize_element(&image_part(image))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_of(model: &Model, system: &str, messages: &[Message], tools: &[ToolSpec]) -> String {
        ChatCompletions.body(&BodyParts { model, dialog_id: "d1", system, messages, tools, response_schema: None })
    }

    #[test]
    fn body_fields_roles_and_parameters() {
        let mut model = Model { name: "gpt-x".into(), ..Model::new() };
        model.set_parameter("max_tokens", json!(256.0));
        model.set_parameter("stream_options.include_usage", json!(true));
        model.set_parameter("model", json!("ignored"));
        let mut tool = Message::new(Role::Tool, r#"{"t":1}"#);
        tool.tool_call_id = "Call_A".into();
        tool.name = "clock".into();
        let mut calls = Message::new(Role::Assistant, "");
        calls.tool_calls = r#"[{"id":"Call_A","type":"function","function":{"name":"clock","arguments":"{}"}}]"#.into();
        calls.reasoning = "secret thoughts".into();
        let mut not_array = Message::new(Role::Assistant, "");
        not_array.tool_calls = "{oops".into();
        let messages = [Message::new(Role::Prompt, "from template"), calls, tool, not_array];
        let text = body_of(&model, "be brief", &messages, &[]);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            json!({
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "from template"},
                    {"role": "assistant", "content": null, "tool_calls": [{"id":"Call_A","type":"function","function":{"name":"clock","arguments":"{}"}}]},
                    {"role": "tool", "content": "{\"t\":1}", "tool_call_id": "Call_A"},
                    {"role": "assistant", "content": ""}
                ],
                "stream": true,
                "max_tokens": 256,
                "stream_options": {"include_usage": true},
                "model": "gpt-x"
            })
        );
        assert!(text.contains("\"max_tokens\":256,"));
        assert!(!text.contains("secret thoughts"));
        assert!(!text.contains("\"tools\""));
    }

    #[test]
    fn prompt_caching_sends_the_dialogs_id_unless_a_parameter_sets_the_key() {
        let mut model = Model { name: "gpt-x".into(), ..Model::new() };
        let key = |model: &Model| serde_json::from_str::<Value>(&body_of(model, "", &[], &[])).unwrap().get("prompt_cache_key").cloned();
        assert_eq!(key(&model), None);
        model.prompt_caching = true;
        assert_eq!(key(&model), Some(json!("d1")));
        model.set_parameter("prompt_cache_key", json!("mine"));
        assert_eq!(key(&model), Some(json!("mine")));
    }

    #[test]
    fn usage_counts() {
        let raw = json!({"prompt_tokens": 100, "completion_tokens": 30, "total_tokens": 130,
            "prompt_tokens_details": {"cached_tokens": 64, "cache_write_tokens": 12},
            "completion_tokens_details": {"reasoning_tokens": 20}});
        let counts = super::super::Usage { input: 100, output: 30, cached_input: 64, cache_write: 12, reasoning: 20 };
        assert_eq!(ChatCompletions.usage(&raw), counts);
        assert_eq!(ChatCompletions.usage(&json!({"total_tokens": "x"})), super::super::Usage::default());
    }

    #[test]
    fn images_become_content_parts() {
        let mut m = Message::new(Role::User, "what is this?");
        m.add_image_url("https://x/cat.png", "high");
        m.add_image_url("data:image/png;base64,AAAA", "");
        let v: Value = serde_json::from_str(&body_of(&Model::new(), "", &[m], &[])).unwrap();
        assert_eq!(
            v["messages"][0]["content"],
            json!([
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "https://x/cat.png", "detail": "high"}},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ])
        );
    }

    #[test]
    fn tools_and_the_response_schema() {
        let tools = [ToolSpec::new("f", "does f", &json!({"type": "object"})), ToolSpec::new("g", "", &json!(null))];
        let schema = crate::dialog::ResponseSchema { name: "answer".into(), schema: json!({"type": "object"}) };
        let parts = BodyParts { model: &Model::new(), dialog_id: "d1", system: "", messages: &[], tools: &tools, response_schema: Some(&schema) };
        let v: Value = serde_json::from_str(&ChatCompletions.body(&parts)).unwrap();
        assert_eq!(
            v["tools"],
            json!([
                {"type": "function", "function": {"name": "f", "description": "does f", "parameters": {"type": "object"}}},
                {"type": "function", "function": {"name": "g", "description": ""}}
            ])
        );
        assert_eq!(v["response_format"], json!({"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": true}}));
    }
}
