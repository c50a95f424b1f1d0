//! OpenAI Responses (SPEC §H.2.1): `POST <base>/responses` with `input` items, and its typed
//! stream events mapped onto the run's chunks.
//!
//! Assistant text goes back as an input message with string content (the API takes
//! `output_text` parts only from output items, which need ids a `store: false` conversation
//! does not have); stored tool calls as `function_call` items, Tool messages as
//! `function_call_output` items.
//!
//! Reasoning survives tool rounds (SPEC §I.2.3): every request asks for the reasoning's
//! encrypted content, and an answer's finished reasoning items are kept verbatim with its
//! message (`Message::thinking_blocks`) together with the order of the output they came in —
//! `{"type":"function_call","call_id"}` and `{"type":"message"}` stand for the items that
//! followed them — so each goes back right before the item it preceded, as the API requires.

use super::{BodyParts, Events, Failure, Wire};
use crate::message::{Image, Message, Role};
use crate::model::Model;
use crate::run::shape::{self, Ignored, Shape};
use super::typed::{Fast, Typed};
use crate::run::chunk::{Chunk, DeltaText, Parsed, ToolCallDelta, Usage};
use crate::run::pairing::{self, Turn};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

pub struct Responses;

impl Wire for Responses {
    fn path(&self, _model: &Model) -> String {
        "/responses".into()
    }

    fn headers(&self, model: &Model) -> Vec<(&'static str, String)> {
        vec![("authorization", format!("Bearer {}", model.token))]
    }

    fn body(&self, parts: &BodyParts) -> String {
        let mut o = Map::new();
        o.insert("model".into(), parts.model.name.clone().into());
        o.insert("stream".into(), true.into());
        for (key, value) in super::parameters(parts.model, &["stream"]) {
            o.insert(key.clone(), value.clone());
        }
        // Nothing is kept on the server unless the model's parameters say so: the reasoning
        // comes back encrypted, for the next round to send it back.
        o.entry("store").or_insert(false.into());
        include_encrypted_reasoning(&mut o);
        if let Some(key) = super::prompt_cache_key(parts) {
            o.insert("prompt_cache_key".into(), key.into());
        }
        if !parts.system.is_empty() {
            o.insert("instructions".into(), parts.system.into());
        }
        o.insert("input".into(), Value::Array(input(parts.messages)));
        if !parts.tools.is_empty() {
            let tools = parts.tools.iter().map(|t| {
                let mut tool = json!({"type": "function", "name": t.name, "description": t.description, "strict": false});
                if t.schema.is_object() {
                    tool["parameters"] = t.schema.clone();
                }
                tool
            });
            o.insert("tools".into(), tools.collect());
        }
        if let Some(schema) = parts.response_schema {
            let format = json!({"type": "json_schema", "name": schema.name, "schema": schema.schema, "strict": true});
            super::put_format(&mut o, "text", format);
        }
        Value::Object(o).to_string()
    }

    fn events(&self) -> Box<dyn Events> {
        Box::new(ResponseEvents::default())
    }

    #[cfg(fuzzing)]
    fn tree_events(&self) -> Box<dyn Events> {
        Box::new(ResponseEvents { tree_only: true, ..ResponseEvents::default() })
    }

    fn answer(&self, text: &str) -> Vec<Parsed> {
        let Ok(Value::Object(response)) = serde_json::from_str::<Value>(text) else { return Vec::new() };
        if !response.contains_key("output") && !response.contains_key("status") {
            return match response.get("error") {
                Some(error) if !error.is_null() => vec![super::error_event(text)],
                _ => Vec::new(),
            };
        }
        let mut out = Vec::new();
        let mut order = OutputOrder::default();
        for (index, item) in response.get("output").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let mut chunk = Chunk { thinking_block: order.keep(item), ..Chunk::default() };
            match item.get("type").and_then(Value::as_str) {
                Some("message") => chunk.content = joined(item.get("content"), "output_text").map(DeltaText::from),
                Some("reasoning") => chunk.reasoning = joined(item.get("summary"), "summary_text").map(DeltaText::from),
                Some("function_call") => chunk.tool_calls.push(call_delta(index as i64, item, true)),
                _ => continue,
            }
            out.push(chunk.into());
        }
        out.extend(end_of(&Value::Object(response)));
        out
    }

    fn usage(&self, raw: &Value) -> super::Usage {
        super::Usage {
            input: super::count(raw, "/input_tokens"),
            output: super::count(raw, "/output_tokens"),
            cached_input: super::count(raw, "/input_tokens_details/cached_tokens"),
            cache_write: super::count(raw, "/input_tokens_details/cache_write_tokens"),
            reasoning: super::count(raw, "/output_tokens_details/reasoning_tokens"),
        }
    }

    fn overflow(&self, failure: &Failure) -> bool {
        super::openai_overflow(failure)
    }
}

const ENCRYPTED_REASONING: &str = "reasoning.encrypted_content";

/// Adds the encrypted reasoning to what the model's parameters `include` (once).
/// An empty `include` parameter is left empty: OpenAI answers 400 to a model that does not
/// reason (gpt-4o, gpt-4.1) asking for encrypted reasoning, and that is how such a model
/// says no.
fn include_encrypted_reasoning(body: &mut Map<String, Value>) {
    match body.entry("include").or_insert_with(|| json!([ENCRYPTED_REASONING])) {
        Value::Array(include) if include.is_empty() || include.iter().any(|i| i == ENCRYPTED_REASONING) => {}
        Value::Array(include) => include.push(ENCRYPTED_REASONING.into()),
        other => *other = json!([ENCRYPTED_REASONING]),
    }
}

/// What of an answer's output is kept with its message: its finished reasoning items that
/// can go back (with `encrypted_content`: under `store: false` nothing else can), and, once
/// there is one, where the other items stood.
#[derive(Default)]
struct OutputOrder {
    reasoning: bool,
}

impl OutputOrder {
    /// The entry for the finished output `item` (JSON text), if it is one to keep.
    fn keep(&mut self, item: &Value) -> Option<String> {
        match item.get("type").and_then(Value::as_str)? {
            "reasoning" if item.get("encrypted_content").and_then(Value::as_str).is_some_and(|e| !e.is_empty()) => {
                self.reasoning = true;
                Some(item.to_string())
            }
            "function_call" if self.reasoning => {
                Some(json!({"type": "function_call", "call_id": item.get("call_id")?}).to_string())
            }
            "message" if self.reasoning => Some(json!({"type": "message"}).to_string()),
            _ => None,
        }
    }
}

/// An assistant message's items: its text and calls, each reasoning item right before the
/// item it preceded; what the kept order does not place follows in the usual order.
fn assistant_items(m: &Message, tool_calls: Option<&Value>, items: &mut Vec<Value>) {
    let mut calls: Vec<Option<(&str, &str, &str)>> = tool_calls.map(super::stored_calls).into_iter().flatten().map(Some).collect();
    let mut text = (!m.content.is_empty()).then(|| json!({"role": "assistant", "content": m.content}));
    let call_item = |(id, name, arguments): (&str, &str, &str)| json!({"type": "function_call", "call_id": id, "name": name, "arguments": arguments});
    if let Ok(Value::Array(kept)) = serde_json::from_str::<Value>(&m.thinking_blocks) {
        for entry in kept {
            match entry.get("type").and_then(Value::as_str) {
                Some("reasoning") => items.push(entry),
                Some("message") => items.extend(text.take()),
                Some("function_call") => {
                    let id = entry.get("call_id").and_then(Value::as_str);
                    let call = calls.iter_mut().find(|c| c.is_some_and(|(call_id, ..)| Some(call_id) == id));
                    items.extend(call.and_then(Option::take).map(call_item));
                }
                _ => {}
            }
        }
    }
    items.extend(text);
    items.extend(calls.into_iter().flatten().map(call_item));
}

/// The input items of a history, pairs repaired (SPEC §H.3.3).
fn input(messages: &[Message]) -> Vec<Value> {
    let mut items = Vec::new();
    let _ = pairing::visit(messages, |turn| {
        match turn {
            Turn::MissingAnswer { call_id } => {
                items.push(json!({"type": "function_call_output", "call_id": call_id, "output": pairing::MISSING_ANSWER}));
            }
            Turn::Message { message: m, tool_calls } => match m.role {
                Role::System if !m.content.is_empty() => items.push(json!({"role": "system", "content": m.content})),
                Role::System => {}
                Role::User | Role::Prompt => {
                    let mut parts = Vec::new();
                    if !m.content.is_empty() {
                        parts.push(json!({"type": "input_text", "text": m.content}));
                    }
                    parts.extend(m.images.iter().map(input_image));
                    if !parts.is_empty() {
                        items.push(json!({"role": "user", "content": parts}));
                    }
                }
                Role::Assistant => assistant_items(m, tool_calls.as_ref(), &mut items),
                Role::Tool if m.images.is_empty() => {
                    items.push(json!({"type": "function_call_output", "call_id": m.tool_call_id, "output": m.content}));
                }
                // A result with images is a list of parts (SPEC §H.4.3).
                Role::Tool => {
                    let mut output = Vec::new();
                    if !m.content.is_empty() {
                        output.push(json!({"type": "input_text", "text": m.content}));
                    }
                    output.extend(m.images.iter().map(input_image));
                    items.push(json!({"type": "function_call_output", "call_id": m.tool_call_id, "output": output}));
                }
            },
        }
        Ok::<(), ()>(())
    });
    items
}

fn input_image(image: &Image) -> Value {
    let detail = if image.detail.is_empty() { "auto" } else { image.detail.as_str() };
    json!({"type": "input_image", "image_url": image.url, "detail": detail})
}

/// The text of the parts of `kind` in a content or summary array, joined.
fn joined(parts: Option<&Value>, kind: &str) -> Option<String> {
    let text: String = parts
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some(kind))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    (!text.is_empty()).then_some(text)
}

/// A `function_call` item as a tool-call piece (its arguments only when asked for).
fn call_delta(index: i64, item: &Value, with_arguments: bool) -> ToolCallDelta {
    let text = |key: &str| item.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    ToolCallDelta { index, id: text("call_id"), name: text("name"), arguments: if with_arguments { text("arguments") } else { None } }
}

/// What a finished response (`response.completed`, `.failed`, `.incomplete`, or a whole JSON
/// answer) says: its usage, then the end of the round or the failure.
fn end_of(response: &Value) -> Vec<Parsed> {
    let mut out = Vec::new();
    if let Some(usage) = response.get("usage").and_then(Usage::of) {
        out.push(Chunk { usage: Some(usage), ..Chunk::default() }.into());
    }
    out.push(match response.get("status").and_then(Value::as_str) {
        Some("failed") => {
            let message = response.pointer("/error/message").and_then(Value::as_str).unwrap_or("the response failed");
            Parsed::Error(message.to_owned())
        }
        Some("incomplete") => {
            let reason = response.pointer("/incomplete_details/reason").and_then(Value::as_str).unwrap_or("unknown");
            Parsed::Error(format!("the response is incomplete ({reason})"))
        }
        _ => Parsed::Done,
    });
    out
}

/// What OpenAI's events carry that differs in every one: a count and a padding. The fast path
/// skips both (`Typed::field`), so they are holes in a delta's shape (`shape.rs`).
const IGNORED: &[Ignored] = &[Ignored::count("sequence_number"), Ignored::string("obfuscation")];

/// One attempt's stream: which function-call items were announced and which got argument
/// deltas, so an item's `done` event adds only what its deltas did not bring.
struct ResponseEvents {
    /// output_index → (announced by `output_item.added`, arguments streamed).
    calls: HashMap<i64, (bool, bool)>,
    order: OutputOrder,
    /// Never take the fast path (the fuzz target's reference reader).
    tree_only: bool,
    /// The last text delta's, for reading the next one like it (`shape.rs`).
    shape: Shape,
}

impl Default for ResponseEvents {
    fn default() -> Self {
        Self { calls: HashMap::new(), order: OutputOrder::default(), tree_only: false, shape: Shape::ignoring(IGNORED) }
    }
}

impl Fast for ResponseEvents {
    fn shape(&mut self) -> &mut Shape {
        &mut self.shape
    }

    /// Text and reasoning deltas change no state: their outcome is the event's alone. (A
    /// Responses reader that kept reasoning text for an item would have to leave it out here.)
    fn piece<'a>(_: &Parsed, t: &Typed<'a>) -> Option<&'a str> {
        shape::borrowed(t.delta.as_ref())
    }

    /// The deltas, read without a tree (`typed.rs`); None for every other event.
    fn fast(&mut self, t: &Typed) -> Option<Parsed> {
        let piece = || t.delta.as_deref().filter(|d| !d.is_empty());
        let delta = || piece().map(DeltaText::new);
        let chunk = super::chunk_or_nothing;
        Some(match t.kind.as_deref()? {
            "response.output_text.delta" => delta().map_or(Parsed::Ignored, Parsed::Text),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => delta().map_or(Parsed::Ignored, Parsed::Reasoning),
            "response.function_call_arguments.delta" => {
                let index = t.output_index.unwrap_or(0);
                self.calls.entry(index).or_default().1 = true;
                let piece = ToolCallDelta { index, arguments: piece().map(str::to_owned), ..ToolCallDelta::default() };
                chunk(Chunk { tool_calls: vec![piece], ..Chunk::default() })
            }
            _ => return None,
        })
    }
}

impl Events for ResponseEvents {
    fn event(&mut self, name: &[u8], data: &str, out: &mut Vec<Parsed>) {
        if !self.tree_only
            && let Some(parsed) = self.fast_event(data)
        {
            return out.push(parsed);
        }
        let Ok(Value::Object(event)) = serde_json::from_str::<Value>(data) else {
            return out.push(if name == b"error" { super::error_event(data) } else { Parsed::Ignored });
        };
        let kind = event.get("type").and_then(Value::as_str).unwrap_or_default();
        let text = |key: &str| event.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
        let index = event.get("output_index").and_then(Value::as_i64).unwrap_or(0);
        let item = event.get("item").unwrap_or(&Value::Null);
        let is_call = item.get("type").and_then(Value::as_str) == Some("function_call");
        let chunk = super::chunk_or_nothing;
        out.push(match kind {
            "response.output_text.delta" => chunk(Chunk { content: text("delta").map(DeltaText::from), ..Chunk::default() }),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                chunk(Chunk { reasoning: text("delta").map(DeltaText::from), ..Chunk::default() })
            }
            "response.output_item.added" if is_call => {
                self.calls.entry(index).or_default().0 = true;
                chunk(Chunk { tool_calls: vec![call_delta(index, item, true)], ..Chunk::default() })
            }
            "response.function_call_arguments.delta" => {
                self.calls.entry(index).or_default().1 = true;
                let delta = ToolCallDelta { index, arguments: text("delta"), ..ToolCallDelta::default() };
                chunk(Chunk { tool_calls: vec![delta], ..Chunk::default() })
            }
            "response.output_item.done" if is_call => {
                let (announced, streamed) = self.calls.get(&index).copied().unwrap_or_default();
                let mut delta = call_delta(index, item, !streamed);
                if announced {
                    delta.name = None; // names are appended: once is enough
                }
                chunk(Chunk { tool_calls: vec![delta], thinking_block: self.order.keep(item), ..Chunk::default() })
            }
            // A finished reasoning item (its text came in deltas) or message.
            "response.output_item.done" => chunk(Chunk { thinking_block: self.order.keep(item), ..Chunk::default() }),
            "response.completed" | "response.failed" | "response.incomplete" => {
                let response = event.get("response").unwrap_or(&Value::Null);
                return out.extend(end_of(response));
            }
            "error" => super::error_event(data),
            _ if name == b"error" => super::error_event(data),
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

    fn events(stream: &[(&str, Value)]) -> Vec<Parsed> {
        let mut reader = ResponseEvents::default();
        let mut out = Vec::new();
        for (name, data) in stream {
            reader.event(name.as_bytes(), &data.to_string(), &mut out);
        }
        out.retain(|p| *p != Parsed::Ignored);
        out
    }

    fn content(text: &str) -> Parsed {
        Parsed::Text(text.into())
    }

    #[test]
    fn text_reasoning_usage_and_the_end() {
        let got = events(&[
            ("response.created", json!({"type": "response.created", "response": {"status": "in_progress"}})),
            ("response.reasoning_summary_text.delta", json!({"type": "response.reasoning_summary_text.delta", "delta": "Hmm"})),
            ("response.reasoning_text.delta", json!({"type": "response.reasoning_text.delta", "delta": " yes"})),
            ("response.output_text.delta", json!({"type": "response.output_text.delta", "delta": "Hi"})),
            ("response.completed", json!({"type": "response.completed", "response": {"status": "completed", "usage": {"total_tokens": 7}}})),
        ]);
        assert_eq!(
            got,
            vec![
                Parsed::Reasoning("Hmm".into()),
                Parsed::Reasoning(" yes".into()),
                content("Hi"),
                Chunk { usage: Some(json!({"total_tokens": 7}).into()), ..Chunk::default() }.into(),
                Parsed::Done,
            ]
        );
    }

    #[test]
    fn openai_deltas_read_around_their_count_and_padding_as_the_tree_reads_them() {
        // The order OpenAI sends, and the SDK's (alphabetical): the holes before and after the
        // text, or both after it.
        let sent = |n: usize, delta: &str, padding: &str| {
            format!(
                r#"{{"type":"response.output_text.delta","sequence_number":{n},"item_id":"msg_1","output_index":0,"content_index":0,"delta":"{delta}","logprobs":[],"obfuscation":"{padding}"}}"#
            )
        };
        let sorted = |n: usize, delta: &str, padding: &str| {
            format!(
                r#"{{"content_index":0,"delta":"{delta}","item_id":"msg_1","logprobs":[],"obfuscation":"{padding}","output_index":0,"sequence_number":{n},"type":"response.output_text.delta"}}"#
            )
        };
        for event in [sent, sorted] {
            let (mut fast, mut tree) = (ResponseEvents::default(), ResponseEvents { tree_only: true, ..ResponseEvents::default() });
            let (mut got, mut want, mut shaped) = (Vec::new(), Vec::new(), 0);
            for n in 7..200 {
                let data = event(n, &format!("w{n} "), &"x".repeat(1 + n % 16));
                shaped += usize::from(fast.shape.read(&data).is_some());
                fast.event(b"response.output_text.delta", &data, &mut got);
                tree.event(b"response.output_text.delta", &data, &mut want);
            }
            for data in [event(200, "a\\nb", "p"), event(201, "c", "p\\\\"), event(202, "c", "p\\"), event(203, "", "p"), event(204, "d", "p").replace(":0,", ":1,")] {
                assert!(fast.shape.read(&data).is_none(), "{data}");
                fast.event(b"response.output_text.delta", &data, &mut got);
                tree.event(b"response.output_text.delta", &data, &mut want);
            }
            assert_eq!(got, want);
            assert_eq!(shaped, 192, "all but the first");
        }
    }

    #[test]
    fn function_calls_from_deltas_or_from_the_done_item_alone() {
        let mut acc = crate::run::chunk::ToolCallAccumulator::default();
        let got = events(&[
            ("", json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "call_id": "c1", "name": "f", "arguments": ""}})),
            ("", json!({"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "{\"a\":"})),
            ("", json!({"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "1}"})),
            ("", json!({"type": "response.output_item.done", "output_index": 1, "item": {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{\"a\":1}"}})),
            // a server that sends only the finished item
            ("", json!({"type": "response.output_item.done", "output_index": 2, "item": {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"}})),
        ]);
        for parsed in got {
            let Parsed::Chunk(c) = parsed else { panic!() };
            c.tool_calls.iter().for_each(|d| acc.add(d).unwrap());
        }
        let calls: Vec<_> = acc.finish().into_iter().map(|c| (c.id, c.name, c.arguments)).collect();
        assert_eq!(calls, [("c1".into(), "f".into(), "{\"a\":1}".into()), ("c2".into(), "g".into(), "{}".into())]);
    }

    #[test]
    fn failures_are_server_errors() {
        let failed = json!({"type": "response.failed", "response": {"status": "failed", "error": {"code": "server_error", "message": "it broke"}}});
        assert_eq!(events(&[("response.failed", failed)]), [Parsed::Error("it broke".into())]);
        let incomplete = json!({"type": "response.incomplete", "response": {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}});
        assert_eq!(events(&[("", incomplete)]), [Parsed::Error("the response is incomplete (max_output_tokens)".into())]);
        assert_eq!(events(&[("error", json!({"type": "error", "message": "bad"}))]), [Parsed::Error("bad".into())]);
        let mut out = Vec::new();
        ResponseEvents::default().event(b"error", "not JSON", &mut out);
        assert_eq!(out, [Parsed::Error("not JSON".into())]);
    }

    #[test]
    fn the_body_has_input_items_tools_and_the_schema() {
        let mut model = Model { name: "o4".into(), ..Model::new() };
        model.set_parameter("reasoning.effort", json!("high"));
        model.set_parameter("text.verbosity", json!("low"));
        let mut user = Message::new(Role::User, "look");
        user.add_image_url("https://x/a.png", "");
        let mut call = Message::new(Role::Assistant, "Checking.");
        call.tool_calls = r#"[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]"#.into();
        let mut answer = Message::new(Role::Tool, "42");
        answer.tool_call_id = "c1".into();
        let messages = [Message::new(Role::System, "sys"), user, call, answer, Message::new(Role::Assistant, "It is 42.")];
        let tools = [ToolSpec::new("f", "does f", &json!({"type": "object"}))];
        let schema = ResponseSchema { name: "r".into(), schema: json!({"type": "object"}) };
        let parts = BodyParts { model: &model, dialog_id: "d1", system: "be brief", messages: &messages, tools: &tools, response_schema: Some(&schema) };
        let body: Value = serde_json::from_str(&Responses.body(&parts)).unwrap();
        assert_eq!(
            body,
            json!({
                "model": "o4", "stream": true, "reasoning": {"effort": "high"},
                "text": {"verbosity": "low", "format": {"type": "json_schema", "name": "r", "schema": {"type": "object"}, "strict": true}},
                "store": false, "include": ["reasoning.encrypted_content"], "instructions": "be brief",
                "input": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": [{"type": "input_text", "text": "look"}, {"type": "input_image", "image_url": "https://x/a.png", "detail": "auto"}]},
                    {"role": "assistant", "content": "Checking."},
                    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "c1", "output": "42"},
                    {"role": "assistant", "content": "It is 42."}
                ],
                "tools": [{"type": "function", "name": "f", "description": "does f", "strict": false, "parameters": {"type": "object"}}]
            })
        );
    }

    fn kept(got: &[Parsed]) -> Vec<Value> {
        let blocks = got.iter().filter_map(|p| match p {
            Parsed::Chunk(c) => c.thinking_block.as_ref().map(|block| serde_json::from_str(block).unwrap()),
            _ => None,
        });
        blocks.collect()
    }

    #[test]
    fn reasoning_items_are_kept_with_the_order_of_the_output() {
        let r1 = json!({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "plan"}], "encrypted_content": "gAAA1"});
        let r2 = json!({"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gAAA2"});
        let call = |index: i64, id: &str| {
            ("", json!({"type": "response.output_item.done", "output_index": index, "item": {"type": "function_call", "call_id": id, "name": "f", "arguments": "{}"}}))
        };
        let got = events(&[
            ("", json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1", "summary": []}})),
            ("", json!({"type": "response.output_item.done", "output_index": 0, "item": r1})),
            call(1, "c1"),
            ("", json!({"type": "response.output_item.done", "output_index": 2, "item": r2})),
            call(3, "c2"),
        ]);
        let fc = |id: &str| json!({"type": "function_call", "call_id": id});
        assert_eq!(kept(&got), [r1.clone(), fc("c1"), r2.clone(), fc("c2")]);
        // Without reasoning nothing is kept, nor reasoning that cannot go back.
        assert!(kept(&events(&[call(0, "c1")])).is_empty());
        let bare = json!({"type": "reasoning", "id": "rs_3", "summary": []});
        assert!(kept(&events(&[("", json!({"type": "response.output_item.done", "output_index": 0, "item": bare})), call(1, "c3")])).is_empty());
    }

    #[test]
    fn reasoning_goes_back_before_the_items_it_preceded() {
        let r1 = json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "e1"});
        let r2 = json!({"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "e2"});
        let mut call = Message::new(Role::Assistant, "Let me look.");
        call.tool_calls = r#"[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]"#.into();
        let fc = |id: &str| json!({"type": "function_call", "call_id": id});
        call.thinking_blocks = Value::Array(vec![r1.clone(), json!({"type": "message"}), fc("c1"), r2.clone(), fc("c2"), json!({"type": "thinking"})]).to_string();
        let answers = ["c1", "c2"].map(|id| {
            let mut m = Message::new(Role::Tool, "ok");
            m.tool_call_id = id.into();
            m
        });
        let messages = [Message::new(Role::User, "q"), call, answers[0].clone(), answers[1].clone()];
        let item = |id: &str, name: &str| json!({"type": "function_call", "call_id": id, "name": name, "arguments": "{}"});
        let output = |id: &str| json!({"type": "function_call_output", "call_id": id, "output": "ok"});
        assert_eq!(
            input(&messages)[1..],
            [r1, json!({"role": "assistant", "content": "Let me look."}), item("c1", "f"), r2, item("c2", "g"), output("c1"), output("c2")]
        );
        // An order that names a call the message no longer has places what it can.
        let mut edited = messages[1].clone();
        edited.thinking_blocks = json!([{"type": "reasoning", "id": "rs_9", "summary": []}, fc("gone")]).to_string();
        let items = input(&[edited]);
        assert_eq!(items[0]["id"], "rs_9");
        assert_eq!(items[1..].iter().map(|i| i["call_id"].as_str().unwrap_or("text")).collect::<Vec<_>>(), ["text", "c1", "c2", "c1", "c2"]);
    }

    #[test]
    fn every_request_asks_for_the_encrypted_reasoning_and_caching_uses_the_dialog() {
        let mut model = Model { name: "gpt-5".into(), prompt_caching: true, ..Model::new() };
        model.set_parameter("include", json!(["web_search_call.action.sources"]));
        let body = |model: &Model| {
            let parts = BodyParts { model, dialog_id: "d1", system: "", messages: &[], tools: &[], response_schema: None };
            serde_json::from_str::<Value>(&Responses.body(&parts)).unwrap()
        };
        let sent = body(&model);
        assert_eq!(sent["include"], json!(["web_search_call.action.sources", "reasoning.encrypted_content"]));
        assert_eq!((sent["prompt_cache_key"].as_str(), sent["store"].as_bool()), (Some("d1"), Some(false)));
        model.set_parameter("include", json!(["reasoning.encrypted_content"]));
        assert_eq!(body(&model)["include"], json!(["reasoning.encrypted_content"]));
        model.set_parameter("include", json!([]));
        assert_eq!(body(&model)["include"], json!([]), "a model that does not reason says no");
        model.remove_parameter("include");
        assert_eq!(body(&model)["include"], json!(["reasoning.encrypted_content"]));
    }

    #[test]
    fn usage_counts() {
        let raw = json!({"input_tokens": 2000, "input_tokens_details": {"cached_tokens": 1536, "cache_write_tokens": 0},
            "output_tokens": 300, "output_tokens_details": {"reasoning_tokens": 256}, "total_tokens": 2300});
        let counts = super::super::Usage { input: 2000, output: 300, cached_input: 1536, cache_write: 0, reasoning: 256 };
        assert_eq!(Responses.usage(&raw), counts);
    }

    #[test]
    fn a_whole_json_response_reads_as_its_events() {
        let text = json!({"status": "completed", "output": [
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}], "encrypted_content": "e"},
            {"type": "message", "content": [{"type": "output_text", "text": "Hi"}]},
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}
        ], "usage": {"total_tokens": 1}})
        .to_string();
        let got = Responses.answer(&text);
        assert_eq!(got.len(), 5, "{got:?}");
        let marked = |block: &str| Some(block.to_owned());
        assert_eq!(got[1], Chunk { content: Some("Hi".into()), thinking_block: marked(r#"{"type":"message"}"#), ..Chunk::default() }.into());
        assert_eq!(kept(&got)[2], json!({"type": "function_call", "call_id": "c"}));
        assert_eq!(got[4], Parsed::Done);
        assert!(Responses.answer("[]").is_empty());
        assert_eq!(Responses.answer(r#"{"error":{"message":"no"}}"#), [Parsed::Error("no".into())]);
    }
}
