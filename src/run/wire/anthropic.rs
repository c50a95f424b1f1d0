//! Anthropic Messages (SPEC §H.2.2, §I.2.1): `POST <base>/messages` with the token and
//! `anthropic-version` as the version asks, content blocks in turns that alternate, and the
//! stream's content-block events mapped onto the run's chunks.
//!
//! Thinking blocks arrive in pieces (`thinking_delta`, `signature_delta`) and are kept whole
//! with the answer (`Message::thinking_blocks`), because the API refuses a tool loop whose
//! earlier assistant turns lack their signed thinking.

use super::{BodyParts, Events, Wire};
use crate::message::{Image, Message, Role};
use crate::model::Model;
use crate::run::shape::{self, Shape};
use super::typed::{Fast, Typed};
use crate::run::chunk::{Chunk, DeltaText, Parsed, ToolCallDelta, Usage};
use crate::run::pairing::{self, Turn};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// `max_tokens` is required by the API; this when the model's parameters do not set it.
const DEFAULT_MAX_TOKENS: i64 = 4096;

/// The version sent when the model names none: the newest this library knows, the one the
/// official SDKs (2.x) send.
const NEWEST_VERSION: &str = "2026-10-21";

/// The parameters versions from 2026-10-21 on refuse, even at their default values.
const SAMPLING_PARAMETERS: [&str; 3] = ["temperature", "top_p", "top_k"];

/// What the model's `anthropic-version` changes, decided here once (SPEC §I.2.1). Versions
/// are dates: one that sorts before 2026-10-21 keeps the rules of 2023-06-01 (`x-api-key`,
/// sampling parameters sent).
struct Version<'a> {
    name: &'a str,
    /// `Authorization: Bearer` instead of `x-api-key`, and no sampling parameters.
    current: bool,
}

impl<'a> Version<'a> {
    fn of(model: &'a Model) -> Version<'a> {
        let name = if model.api_version.is_empty() { NEWEST_VERSION } else { model.api_version.as_str() };
        Version { name, current: name >= NEWEST_VERSION }
    }
}

pub struct AnthropicMessages;

impl Wire for AnthropicMessages {
    fn path(&self, _model: &Model) -> String {
        "/messages".into()
    }

    fn headers(&self, model: &Model) -> Vec<(&'static str, String)> {
        let version = Version::of(model);
        let token = match version.current {
            true => ("authorization", format!("Bearer {}", model.token)),
            false => ("x-api-key", model.token.clone()),
        };
        vec![token, ("anthropic-version", version.name.to_owned())]
    }

    fn keyed(&self, model: &Model) -> bool {
        !Version::of(model).current
    }

    fn body(&self, parts: &BodyParts) -> String {
        let (system, messages) = turns(parts.messages);
        let mut o = Map::new();
        o.insert("model".into(), parts.model.name.clone().into());
        let max_tokens = parts.model.parameters.get("max_tokens").cloned().unwrap_or(DEFAULT_MAX_TOKENS.into());
        o.insert("max_tokens".into(), max_tokens);
        o.insert("stream".into(), true.into());
        let system = [parts.system].into_iter().chain(system.iter().map(String::as_str)).filter(|s| !s.is_empty());
        let system = system.collect::<Vec<_>>().join("\n\n");
        if !system.is_empty() {
            o.insert("system".into(), system.into());
        }
        o.insert("messages".into(), Value::Array(messages));
        if !parts.tools.is_empty() {
            let tools = parts.tools.iter().map(|t| {
                let schema = if t.schema.is_object() { t.schema.clone() } else { json!({"type": "object"}) };
                json!({"name": t.name, "description": t.description, "input_schema": schema})
            });
            o.insert("tools".into(), tools.collect());
        }
        let mut own = vec!["max_tokens", "stream"];
        let version = Version::of(parts.model);
        if version.current {
            own.extend(SAMPLING_PARAMETERS);
            warn_of_dropped_parameters(parts.model, version.name);
        }
        for (key, value) in super::parameters(parts.model, &own) {
            o.insert(key.clone(), value.clone());
        }
        // Automatic caching of the longest stable prefix (SPEC §I.2.2); a `cache_control`
        // parameter adds to it (`ttl`).
        if parts.model.prompt_caching {
            match o.entry("cache_control").or_insert_with(|| json!({})) {
                Value::Object(control) => {
                    control.entry("type").or_insert("ephemeral".into());
                }
                other => *other = json!({"type": "ephemeral"}),
            }
        }
        if let Some(schema) = parts.response_schema {
            super::put_format(&mut o, "output_config", json!({"type": "json_schema", "schema": schema.schema}));
        }
        Value::Object(o).to_string()
    }

    fn events(&self) -> Box<dyn Events> {
        Box::new(MessageEvents::default())
    }

    #[cfg(fuzzing)]
    fn tree_events(&self) -> Box<dyn Events> {
        Box::new(MessageEvents { tree_only: true, ..MessageEvents::default() })
    }

    fn answer(&self, text: &str) -> Vec<Parsed> {
        let Ok(Value::Object(message)) = serde_json::from_str::<Value>(text) else { return Vec::new() };
        match message.get("type").and_then(Value::as_str) {
            Some("error") => return vec![error(&Value::Object(message))],
            Some("message") => {}
            _ => return Vec::new(),
        }
        let mut out = Vec::new();
        for (index, block) in message.get("content").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let text = |key: &str| block.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
            let mut chunk = Chunk::default();
            match block.get("type").and_then(Value::as_str) {
                Some("text") => chunk.content = text("text").map(DeltaText::from),
                Some("thinking") => {
                    chunk.reasoning = text("thinking").map(DeltaText::from);
                    chunk.thinking_block = Some(block.to_string());
                }
                Some("redacted_thinking") => chunk.thinking_block = Some(block.to_string()),
                Some("tool_use") => {
                    let arguments = block.get("input").filter(|i| i.is_object()).map(Value::to_string);
                    chunk.tool_calls.push(ToolCallDelta { index: index as i64, id: text("id"), name: text("name"), arguments });
                }
                _ => continue,
            }
            out.push(chunk.into());
        }
        if let Some(usage) = message.get("usage").and_then(Usage::of) {
            out.push(Chunk { usage: Some(usage), ..Chunk::default() }.into());
        }
        out.push(Parsed::Done);
        out
    }

    /// `input_tokens` counts only what was neither read from nor written to the cache.
    fn usage(&self, raw: &Value) -> super::Usage {
        let (read, written) = (super::count(raw, "/cache_read_input_tokens"), super::count(raw, "/cache_creation_input_tokens"));
        super::Usage {
            input: super::count(raw, "/input_tokens") + read + written,
            output: super::count(raw, "/output_tokens"),
            cached_input: read,
            cache_write: written,
            reasoning: super::count(raw, "/output_tokens_details/thinking_tokens"),
        }
    }
}

/// The System messages' texts, and the turns of a history as the API wants them: roles
/// alternate (consecutive turns of one role merged), Tool messages become `tool_result` blocks
/// of the user turn that follows, pairs repaired (SPEC §H.3.3).
fn turns(messages: &[Message]) -> (Vec<String>, Vec<Value>) {
    let mut system = Vec::new();
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, blocks: Vec<Value>| {
        if blocks.is_empty() {
            return;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    };
    let _ = pairing::visit(messages, |turn| {
        match turn {
            Turn::MissingAnswer { call_id } => {
                push("user", vec![json!({"type": "tool_result", "tool_use_id": call_id, "content": pairing::MISSING_ANSWER})]);
            }
            Turn::Message { message: m, tool_calls } => match m.role {
                Role::System => system.push(m.content.to_string()),
                Role::User | Role::Prompt => {
                    let mut blocks: Vec<Value> = m.images.iter().map(image).collect();
                    if !m.content.is_empty() {
                        blocks.push(json!({"type": "text", "text": m.content}));
                    }
                    push("user", blocks);
                }
                Role::Assistant => {
                    // Signed thinking first, verbatim, as the API sent it (another API's
                    // reasoning, kept when it answered an earlier round, is not ours).
                    let mut blocks: Vec<Value> = match serde_json::from_str::<Value>(&m.thinking_blocks) {
                        Ok(Value::Array(thinking)) => thinking.into_iter().filter(is_thinking).collect(),
                        _ => Vec::new(),
                    };
                    if !m.content.is_empty() {
                        blocks.push(json!({"type": "text", "text": m.content}));
                    }
                    for (id, name, arguments) in tool_calls.as_ref().map(super::stored_calls).into_iter().flatten() {
                        blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": super::arguments_object(arguments)}));
                    }
                    push("assistant", blocks);
                }
                Role::Tool if m.images.is_empty() => {
                    push("user", vec![json!({"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content})]);
                }
                // A result with images is a list of blocks (SPEC §H.4.3).
                Role::Tool => {
                    let mut blocks = Vec::new();
                    if !m.content.is_empty() {
                        blocks.push(json!({"type": "text", "text": m.content}));
                    }
                    blocks.extend(m.images.iter().map(image));
                    push("user", vec![json!({"type": "tool_result", "tool_use_id": m.tool_call_id, "content": blocks})]);
                }
            },
        }
        Ok::<(), ()>(())
    });
    let turns = turns.into_iter().map(|(role, content)| json!({"role": role, "content": content})).collect();
    (system, turns)
}

/// One warning per model that sets a sampling parameter its version refuses (SPEC §I.2.1).
fn warn_of_dropped_parameters(model: &Model, version: &str) {
    static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let dropped: Vec<&str> = SAMPLING_PARAMETERS.into_iter().filter(|p| model.parameters.contains_key(*p)).collect();
    if dropped.is_empty() {
        return;
    }
    let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    if warned.contains(&model.id) {
        return;
    }
    warned.push(model.id.clone());
    drop(warned);
    tracing::warn!(
        target: crate::log::RUN,
        model = %model.id,
        name = %model.name,
        dropped = ?dropped,
        "anthropic-version {version} refuses temperature, top_p and top_k: not sent (set apiVersion 2023-06-01 to send them)"
    );
}

fn is_thinking(block: &Value) -> bool {
    matches!(block.get("type").and_then(Value::as_str), Some("thinking" | "redacted_thinking"))
}

/// An image block: a `data:` url as base64 data, any other url by reference.
fn image(image: &Image) -> Value {
    if let Some(rest) = image.url.strip_prefix("data:")
        && let Some((media_type, data)) = rest.split_once(";base64,")
    {
        return json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}});
    }
    json!({"type": "image", "source": {"type": "url", "url": image.url}})
}

/// An `error` event or answer: `overloaded_error` is temporary (as HTTP 529 is), anything
/// else fails the run.
fn error(event: &Value) -> Parsed {
    let message = event.pointer("/error/message").and_then(Value::as_str).unwrap_or_default();
    let message = if message.is_empty() { super::error_event(&event.to_string()) } else { Parsed::Error(message.to_owned()) };
    match (event.pointer("/error/type").and_then(Value::as_str), message) {
        (Some("overloaded_error"), Parsed::Error(text)) => Parsed::Overloaded(text),
        (_, parsed) => parsed,
    }
}

/// A thinking block being streamed.
#[derive(Default)]
struct Thinking {
    thinking: String,
    signature: String,
}

/// One attempt's stream: the thinking blocks in progress (by block index) and the usage so
/// far (`message_start` has the input tokens, `message_delta` the output tokens).
#[derive(Default)]
struct MessageEvents {
    thinking: HashMap<i64, Thinking>,
    usage: Map<String, Value>,
    /// Never take the fast path (the fuzz target's reference reader).
    tree_only: bool,
    /// The last text or thinking delta's, for reading the next one like it (`shape.rs`).
    shape: Shape,
    /// The block of the thinking delta that is the shape: a delta the shape reads as thinking
    /// adds its piece there, as the full read would.
    shaped_block: i64,
}

impl Fast for MessageEvents {
    fn shape(&mut self) -> &mut Shape {
        &mut self.shape
    }

    /// A text delta changes no state. A thinking delta adds its piece to its block, which
    /// `shaped` does again for each delta the shape reads: the block's index is in the bytes
    /// the shape compares.
    fn piece<'a>(parsed: &Parsed, t: &Typed<'a>) -> Option<&'a str> {
        match parsed {
            Parsed::Text(_) => shape::borrowed(t.delta_text.as_ref()),
            Parsed::Reasoning(_) => shape::borrowed(t.delta_thinking.as_ref()),
            _ => None,
        }
    }

    fn learnt(&mut self, t: &Typed) {
        self.shaped_block = t.index.unwrap_or(0);
    }

    fn shaped(&mut self, parsed: &Parsed) {
        if let Parsed::Reasoning(piece) = parsed {
            self.thinking.entry(self.shaped_block).or_default().thinking.push_str(piece);
        }
    }

    /// The block deltas and the end, read without a tree (`typed.rs`); None for every other
    /// event.
    fn fast(&mut self, t: &Typed) -> Option<Parsed> {
        let index = t.index.unwrap_or(0);
        fn piece<'a>(piece: &'a Option<std::borrow::Cow<str>>) -> Option<&'a str> {
            piece.as_deref().filter(|p| !p.is_empty())
        }
        let owned = |p: &Option<std::borrow::Cow<str>>| piece(p).map(str::to_owned);
        let text = |p: &Option<std::borrow::Cow<str>>| piece(p).map(DeltaText::new);
        let chunk = super::chunk_or_nothing;
        Some(match t.kind.as_deref()? {
            "content_block_delta" => match t.delta_kind.as_deref() {
                Some("text_delta") => text(&t.delta_text).map_or(Parsed::Ignored, Parsed::Text),
                Some("thinking_delta") => {
                    let piece = text(&t.delta_thinking);
                    if let Some(piece) = &piece {
                        self.thinking.entry(index).or_default().thinking.push_str(piece);
                    }
                    piece.map_or(Parsed::Ignored, Parsed::Reasoning)
                }
                Some("signature_delta") => {
                    let piece = owned(&t.delta_signature).unwrap_or_default();
                    self.thinking.entry(index).or_default().signature.push_str(&piece);
                    Parsed::Ignored
                }
                Some("input_json_delta") => {
                    let piece = ToolCallDelta { index, arguments: owned(&t.delta_partial_json), ..ToolCallDelta::default() };
                    chunk(Chunk { tool_calls: vec![piece], ..Chunk::default() })
                }
                _ => Parsed::Ignored,
            },
            "message_stop" => Parsed::Done,
            _ => return None,
        })
    }
}

impl Events for MessageEvents {
    fn event(&mut self, name: &[u8], data: &str, out: &mut Vec<Parsed>) {
        if !self.tree_only
            && let Some(parsed) = self.fast_event(data)
        {
            return out.push(parsed);
        }
        let Ok(event @ Value::Object(_)) = serde_json::from_str::<Value>(data) else {
            return out.push(if name == b"error" { super::error_event(data) } else { Parsed::Ignored });
        };
        let kind = event.get("type").and_then(Value::as_str).unwrap_or_default();
        let index = event.get("index").and_then(Value::as_i64).unwrap_or(0);
        let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
        let chunk = super::chunk_or_nothing;
        out.push(match kind {
            "content_block_delta" => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => chunk(Chunk { content: text(delta, "text").map(DeltaText::from), ..Chunk::default() }),
                    Some("thinking_delta") => {
                        let piece = text(delta, "thinking");
                        if let Some(piece) = &piece {
                            self.thinking.entry(index).or_default().thinking.push_str(piece);
                        }
                        chunk(Chunk { reasoning: piece.map(DeltaText::from), ..Chunk::default() })
                    }
                    Some("signature_delta") => {
                        let piece = text(delta, "signature").unwrap_or_default();
                        self.thinking.entry(index).or_default().signature.push_str(&piece);
                        Parsed::Ignored
                    }
                    Some("input_json_delta") => {
                        let piece = ToolCallDelta { index, arguments: text(delta, "partial_json"), ..ToolCallDelta::default() };
                        chunk(Chunk { tool_calls: vec![piece], ..Chunk::default() })
                    }
                    _ => Parsed::Ignored,
                }
            }
            "content_block_start" => {
                let block = event.get("content_block").unwrap_or(&Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => chunk(Chunk { content: text(block, "text").map(DeltaText::from), ..Chunk::default() }),
                    Some("thinking") => {
                        let started = Thinking {
                            thinking: text(block, "thinking").unwrap_or_default(),
                            signature: text(block, "signature").unwrap_or_default(),
                        };
                        let reasoning = (!started.thinking.is_empty()).then(|| DeltaText::new(&started.thinking));
                        self.thinking.insert(index, started);
                        chunk(Chunk { reasoning, ..Chunk::default() })
                    }
                    Some("redacted_thinking") => chunk(Chunk { thinking_block: Some(block.to_string()), ..Chunk::default() }),
                    Some("tool_use") => {
                        let piece = ToolCallDelta { index, id: text(block, "id"), name: text(block, "name"), arguments: None };
                        chunk(Chunk { tool_calls: vec![piece], ..Chunk::default() })
                    }
                    _ => Parsed::Ignored,
                }
            }
            "content_block_stop" => match self.thinking.remove(&index) {
                Some(Thinking { thinking, signature }) => {
                    let block = json!({"type": "thinking", "thinking": thinking, "signature": signature});
                    chunk(Chunk { thinking_block: Some(block.to_string()), ..Chunk::default() })
                }
                None => Parsed::Ignored,
            },
            "message_start" | "message_delta" => {
                let usage = match kind {
                    "message_start" => event.pointer("/message/usage"),
                    _ => event.get("usage"),
                };
                match usage.and_then(Value::as_object) {
                    Some(usage) => {
                        // A later event's null (an optional count it leaves out) keeps the count.
                        self.usage.extend(usage.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())));
                        chunk(Chunk { usage: Usage::tree(Value::Object(self.usage.clone())), ..Chunk::default() })
                    }
                    None => Parsed::Ignored,
                }
            }
            "message_stop" => Parsed::Done,
            "error" => error(&event),
            _ if name == b"error" => error(&event),
            _ => Parsed::Ignored,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialog::ResponseSchema;
    use crate::model::Model;
    use crate::run::request::ToolSpec;

    fn events(stream: &[Value]) -> Vec<Parsed> {
        let mut reader = MessageEvents::default();
        let mut out = Vec::new();
        for data in stream {
            let name = data["type"].as_str().unwrap_or_default().to_owned();
            reader.event(name.as_bytes(), &data.to_string(), &mut out);
        }
        out.retain(|p| *p != Parsed::Ignored);
        out
    }

    #[test]
    fn text_thinking_with_its_signature_tool_use_and_usage() {
        let got = events(&[
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig=="}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Sure."}}),
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "tu_1", "name": "f", "input": {}}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"a\":"}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "1}"}}),
            json!({"type": "ping"}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30, "input_tokens": null}}),
            json!({"type": "message_stop"}),
        ]);
        let chunk = Parsed::from;
        assert_eq!(got[0], chunk(Chunk { usage: Some(json!({"input_tokens": 10, "output_tokens": 1}).into()), ..Chunk::default() }));
        assert_eq!(got[1], chunk(Chunk { reasoning: Some("Let me".into()), ..Chunk::default() }));
        let block = r#"{"type":"thinking","thinking":"Let me","signature":"sig=="}"#;
        assert_eq!(got[2], chunk(Chunk { thinking_block: Some(block.into()), ..Chunk::default() }));
        assert_eq!(got[3], chunk(Chunk { content: Some("Sure.".into()), ..Chunk::default() }));
        let mut acc = crate::run::chunk::ToolCallAccumulator::default();
        for parsed in &got[4..7] {
            let Parsed::Chunk(c) = parsed else { panic!() };
            c.tool_calls.iter().for_each(|d| acc.add(d).unwrap());
        }
        let calls: Vec<_> = acc.finish().into_iter().map(|c| (c.id, c.name, c.arguments)).collect();
        assert_eq!(calls, [("tu_1".into(), "f".into(), "{\"a\":1}".into())]);
        assert_eq!(got[7], chunk(Chunk { usage: Some(json!({"input_tokens": 10, "output_tokens": 30}).into()), ..Chunk::default() }));
        assert_eq!(got[8], Parsed::Done);
    }

    #[test]
    fn deltas_shaped_like_the_last_read_the_same_and_thinking_is_still_kept() {
        let text = |t: &str| json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": t}});
        // A thinking delta whose `text` is its thinking too: the shape compares its `text`.
        let thinking = |t: &str| json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": t, "text": t}});
        let got = events(&[
            text("x"),
            text("yz"),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            thinking("a"),
            thinking("b"),
            thinking("c"),
            json!({"type": "content_block_stop", "index": 0}),
            text("w"),
        ]);
        let reasoning = |t: &str| Parsed::Reasoning(t.into());
        assert_eq!(got[..5], [Parsed::Text("x".into()), Parsed::Text("yz".into()), reasoning("a"), reasoning("b"), reasoning("c")]);
        let Parsed::Chunk(block) = &got[5] else { panic!("{:?}", got[5]) };
        assert!(block.thinking_block.as_deref().is_some_and(|b| b.contains(r#""thinking":"abc""#)), "{block:?}");
        assert_eq!(got[6..], [Parsed::Text("w".into())]);
    }

    #[test]
    fn thinking_deltas_read_by_the_shape_are_kept_in_their_block() {
        let thinking = |index: i64, t: &str| json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": t}}).to_string();
        let start = |index: i64| json!({"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": ""}}).to_string();
        let signature = |index: i64| json!({"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": "s="}}).to_string();
        let stop = |index: i64| json!({"type": "content_block_stop", "index": index}).to_string();
        // Two blocks: the second is learnt while the first's shape is still there, and each
        // block gets only its own pieces, whichever way each delta was read.
        let stream = [
            start(0),
            thinking(0, "Let"),
            thinking(0, " me"),
            thinking(0, "a\"b"),
            thinking(0, " see"),
            signature(0),
            stop(0),
            start(3),
            thinking(3, "Now"),
            thinking(3, " this"),
            thinking(3, ""),
            thinking(3, " one"),
            signature(3),
            stop(3),
        ];
        let (mut reader, mut tree) = (MessageEvents::default(), MessageEvents { tree_only: true, ..MessageEvents::default() });
        let (mut fast, mut full) = (Vec::new(), Vec::new());
        let mut shaped = 0;
        for data in &stream {
            shaped += usize::from(reader.shape.read(data).is_some());
            reader.event(b"", data, &mut fast);
            tree.event(b"", data, &mut full);
        }
        assert_eq!(fast, full);
        assert_eq!(shaped, 4, "' me', ' see', ' this' and ' one'");
        let blocks: Vec<_> = fast.iter().filter_map(|p| match p {
            Parsed::Chunk(c) => c.thinking_block.clone(),
            _ => None,
        }).collect();
        assert_eq!(blocks, [r#"{"type":"thinking","thinking":"Let mea\"b see","signature":"s="}"#, r#"{"type":"thinking","thinking":"Now this one","signature":"s="}"#]);
    }

    #[test]
    fn errors_and_overload() {
        let overloaded = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        assert_eq!(events(&[overloaded]), [Parsed::Overloaded("Overloaded".into())]);
        let other = json!({"type": "error", "error": {"type": "api_error", "message": "Internal"}});
        assert_eq!(events(&[other]), [Parsed::Error("Internal".into())]);
        let mut reader = MessageEvents::default();
        let mut out = Vec::new();
        reader.event(b"error", "garbage", &mut out);
        assert_eq!(out, [Parsed::Error("garbage".into())]);
    }

    #[test]
    fn the_body_merges_turns_groups_tool_results_and_sends_thinking_back() {
        let mut model = Model { name: "claude".into(), ..Model::new() };
        model.set_parameter("thinking", json!({"type": "enabled", "budget_tokens": 1024}));
        let mut user = Message::new(Role::User, "what is in it?");
        user.add_image_url("data:image/png;base64,AAAA", "");
        user.add_image_url("https://x/a.png", "");
        let mut call = Message::new(Role::Assistant, "Checking.");
        call.tool_calls = r#"[{"id":"tu_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},{"id":"tu_2","type":"function","function":{"name":"g","arguments":"oops"}}]"#.into();
        call.thinking_blocks = r#"[{"type":"thinking","thinking":"Let me","signature":"sig=="}]"#.into();
        let mut answer = Message::new(Role::Tool, "42");
        answer.tool_call_id = "tu_1".into();
        let messages = [Message::new(Role::System, "house rules"), user, Message::new(Role::User, "quickly"), call, answer, Message::new(Role::User, "and?")];
        let tools = [ToolSpec::new("f", "does f", &json!({"type": "object"})), ToolSpec::new("g", "", &Value::Null)];
        let schema = ResponseSchema { name: "r".into(), schema: json!({"type": "object"}) };
        let parts = BodyParts { model: &model, dialog_id: "d1", system: "be brief", messages: &messages, tools: &tools, response_schema: Some(&schema) };
        let body: Value = serde_json::from_str(&AnthropicMessages.body(&parts)).unwrap();
        assert_eq!(
            body,
            json!({
                "model": "claude", "max_tokens": 4096, "stream": true, "system": "be brief\n\nhouse rules",
                "messages": [
                    {"role": "user", "content": [
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                        {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
                        {"type": "text", "text": "what is in it?"},
                        {"type": "text", "text": "quickly"}
                    ]},
                    {"role": "assistant", "content": [
                        {"type": "thinking", "thinking": "Let me", "signature": "sig=="},
                        {"type": "text", "text": "Checking."},
                        {"type": "tool_use", "id": "tu_1", "name": "f", "input": {"a": 1}},
                        {"type": "tool_use", "id": "tu_2", "name": "g", "input": {}}
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "tu_1", "content": "42"},
                        {"type": "tool_result", "tool_use_id": "tu_2", "content": pairing::MISSING_ANSWER},
                        {"type": "text", "text": "and?"}
                    ]}
                ],
                "tools": [
                    {"name": "f", "description": "does f", "input_schema": {"type": "object"}},
                    {"name": "g", "description": "", "input_schema": {"type": "object"}}
                ],
                "thinking": {"type": "enabled", "budget_tokens": 1024},
                "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}
            })
        );
    }

    fn body_of(model: &Model, messages: &[Message]) -> Value {
        let parts = BodyParts { model, dialog_id: "d1", system: "", messages, tools: &[], response_schema: None };
        serde_json::from_str(&AnthropicMessages.body(&parts)).unwrap()
    }

    #[test]
    fn the_version_decides_the_token_header_and_the_sampling_parameters() {
        let mut model = Model { name: "claude".into(), token: "sk-ant".into(), ..Model::new() };
        model.set_parameter("temperature", json!(0.2));
        model.set_parameter("top_k", json!(5));
        model.set_parameter("metadata.user_id", json!("u"));
        let headers = |model: &Model| AnthropicMessages.headers(model);
        let newest = [("authorization", "Bearer sk-ant".to_owned()), ("anthropic-version", "2026-10-21".to_owned())];
        assert_eq!(headers(&model), newest);
        assert!(!AnthropicMessages.keyed(&model));
        let body = body_of(&model, &[Message::new(Role::User, "hi")]);
        assert!(body.get("temperature").is_none() && body.get("top_k").is_none(), "{body}");
        assert_eq!(body["metadata"], json!({"user_id": "u"}));
        for (version, current) in [("2023-06-01", false), ("2025-01-01", false), ("2026-10-21", true), ("2027-03-01", true)] {
            model.api_version = version.into();
            assert_eq!(headers(&model)[1], ("anthropic-version", version.to_owned()));
            assert_eq!(headers(&model)[0].0, if current { "authorization" } else { "x-api-key" }, "{version}");
            assert_eq!(AnthropicMessages.keyed(&model), !current);
            let body = body_of(&model, &[Message::new(Role::User, "hi")]);
            assert_eq!(body.get("temperature").is_none(), current, "{version}: {body}");
        }
        model.api_version = "2023-06-01".into();
        assert_eq!(headers(&model)[0], ("x-api-key", "sk-ant".to_owned()));
    }

    #[test]
    fn a_dropped_parameter_is_warned_about_once_per_model() {
        let mut model = Model { name: "claude".into(), ..Model::new() };
        model.set_parameter("temperature", json!(0.2));
        let quiet = Model { name: "claude".into(), ..Model::new() };
        let lines = crate::log::tests::capture(|| {
            for _ in 0..3 {
                body_of(&model, &[]);
                body_of(&quiet, &[]);
            }
        });
        // Other tests run meanwhile and may log about their own models.
        let lines: Vec<_> = lines.into_iter().filter(|(_, _, message)| message.contains(&model.id) || message.contains(&quiet.id)).collect();
        assert_eq!(lines.len(), 1, "{lines:?}");
        let (severity, category, message) = &lines[0];
        assert_eq!((*severity, category.as_str()), (crate::log::Severity::Warning, crate::log::RUN));
        assert!(message.contains("2026-10-21") && message.contains(&model.id) && message.contains(r#"dropped=["temperature"]"#), "{message}");
    }

    #[test]
    fn prompt_caching_is_the_top_level_cache_control() {
        let mut model = Model { name: "claude".into(), ..Model::new() };
        assert!(body_of(&model, &[]).get("cache_control").is_none());
        model.prompt_caching = true;
        assert_eq!(body_of(&model, &[])["cache_control"], json!({"type": "ephemeral"}));
        model.set_parameter("cache_control.ttl", json!("1h"));
        assert_eq!(body_of(&model, &[])["cache_control"], json!({"ttl": "1h", "type": "ephemeral"}));
    }

    #[test]
    fn another_apis_reasoning_is_not_sent_back() {
        let mut answer = Message::new(Role::Assistant, "done");
        answer.thinking_blocks = r#"[{"type":"reasoning","id":"rs_1","summary":[]},{"type":"thinking","thinking":"t","signature":"s"}]"#.into();
        let body = body_of(&Model::new(), &[Message::new(Role::User, "q"), answer]);
        assert_eq!(
            body["messages"][1]["content"],
            json!([{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "done"}])
        );
    }

    #[test]
    fn usage_counts_every_prompt_token() {
        let raw = json!({"input_tokens": 5, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 40,
            "output_tokens": 70, "output_tokens_details": {"thinking_tokens": 50}});
        let counts = super::super::Usage { input: 945, output: 70, cached_input: 900, cache_write: 40, reasoning: 50 };
        assert_eq!(AnthropicMessages.usage(&raw), counts);
    }

    #[test]
    fn a_whole_json_message_reads_as_its_events() {
        let text = json!({"type": "message", "content": [
            {"type": "thinking", "thinking": "t", "signature": "s"},
            {"type": "text", "text": "Hi"},
            {"type": "tool_use", "id": "tu", "name": "f", "input": {"x": 1}}
        ], "usage": {"output_tokens": 3}})
        .to_string();
        let got = AnthropicMessages.answer(&text);
        assert_eq!(got.len(), 5, "{got:?}");
        assert_eq!(got[4], Parsed::Done);
        let overloaded = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(AnthropicMessages.answer(overloaded), [Parsed::Overloaded("Overloaded".into())]);
        assert!(AnthropicMessages.answer("{}").is_empty());
    }
}
