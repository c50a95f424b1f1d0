//! Gemini (SPEC §I.2.4): `POST <base>/models/<model>:streamGenerateContent?alt=sse` with
//! `x-goog-api-key`, `contents` of `user` and `model` turns, and each streamed
//! `GenerateContentResponse` mapped onto the run's chunks.
//!
//! Thought signatures: a part that carries a `thoughtSignature` is kept verbatim with the
//! answer (`Message::thinking_blocks`, the entries without a `type`), and goes back in the
//! model turn it came from — a function call's part as it was, a text's signature on the
//! answer's text — because Gemini 3 refuses a function-call turn without its signatures.
//!
//! Call ids: Gemini may send none. Then the id is made here (`GENERATED_ID` + the response's
//! id + the call's place), and never sent back: the function response is matched by name and
//! order, as the API does without ids.

mod fast;

use super::{BodyParts, Events, Wire};
use crate::message::{Image, Message, Role};
use crate::model::Model;
use crate::run::shape::{self, Shape};
use crate::run::chunk::{Chunk, Parsed, ToolCallDelta, Usage};
use crate::run::pairing::{self, Turn};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// The start of a call id made here, for a call the server sent without one.
const GENERATED_ID: &str = "gemini-call:";

/// Parameters that belong to the request itself; every other one goes to `generationConfig`
/// (`tools`, e.g. `[{"googleSearch": {}}]`, joins the function declarations).
const REQUEST_FIELDS: [&str; 5] = ["safetySettings", "toolConfig", "cachedContent", "labels", "serviceTier"];

/// The model's parameters under their names in `generationConfig` (the setters of `Model`,
/// and applications written for OpenAI, use these).
const RENAMED: [(&str, &str); 7] = [
    ("max_tokens", "maxOutputTokens"),
    ("top_p", "topP"),
    ("top_k", "topK"),
    ("stop", "stopSequences"),
    ("presence_penalty", "presencePenalty"),
    ("frequency_penalty", "frequencyPenalty"),
    ("n", "candidateCount"),
];

/// Finish reasons of an answer that ended as it should; any other one fails the round.
const FINISHED: [&str; 3] = ["STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"];

/// Gemini always ends an answer with a finish reason: without one it was cut off.
const UNFINISHED: &str = "the answer ended without a finishReason (cut off)";

pub struct Gemini;

impl Wire for Gemini {
    fn path(&self, model: &Model) -> String {
        format!("/{}:streamGenerateContent", resource(&model.name))
    }

    fn query(&self) -> &'static [(&'static str, &'static str)] {
        &[("alt", "sse")]
    }

    fn headers(&self, model: &Model) -> Vec<(&'static str, String)> {
        vec![("x-goog-api-key", model.token.clone())]
    }

    fn keyed(&self, _model: &Model) -> bool {
        true
    }

    fn body(&self, parts: &BodyParts) -> String {
        let (system, contents) = contents(parts.messages);
        let mut o = Map::new();
        o.insert("contents".into(), Value::Array(contents));
        let system = [parts.system].into_iter().chain(system.iter().map(String::as_str)).filter(|s| !s.is_empty());
        let system = system.collect::<Vec<_>>().join("\n\n");
        if !system.is_empty() {
            o.insert("systemInstruction".into(), json!({"parts": [{"text": system}]}));
        }
        let mut tools = Vec::new();
        if !parts.tools.is_empty() {
            let declarations = parts.tools.iter().map(|t| {
                let mut declaration = json!({"name": t.name, "description": t.description});
                if t.schema.is_object() {
                    declaration["parametersJsonSchema"] = t.schema.clone();
                }
                declaration
            });
            tools.push(json!({"functionDeclarations": declarations.collect::<Vec<_>>()}));
        }
        if let Some(Value::Array(more)) = parts.model.parameters.get("tools") {
            tools.extend(more.iter().cloned());
        }
        if !tools.is_empty() {
            o.insert("tools".into(), Value::Array(tools));
        }
        let mut config = Map::new();
        for (key, value) in super::parameters(parts.model, &["stream", "tools"]) {
            if REQUEST_FIELDS.contains(&key.as_str()) {
                o.insert(key.clone(), value.clone());
            } else {
                let name = RENAMED.iter().find(|(from, _)| from == key).map_or(key.as_str(), |(_, to)| to);
                config.insert(name.to_owned(), value.clone());
            }
        }
        // Thinking asked for (a thinkingConfig): its thoughts are streamed too, unless it says no.
        if let Some(Value::Object(thinking)) = config.get_mut("thinkingConfig") {
            thinking.entry("includeThoughts").or_insert(true.into());
        }
        if let Some(schema) = parts.response_schema {
            config.insert("responseMimeType".into(), "application/json".into());
            config.insert("responseJsonSchema".into(), schema.schema.clone());
        }
        if !config.is_empty() {
            o.insert("generationConfig".into(), Value::Object(config));
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

    /// A `GenerateContentResponse`, or the array of them `streamGenerateContent` sends without
    /// `alt=sse`.
    fn answer(&self, text: &str) -> Vec<Parsed> {
        let responses = match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(responses)) => responses,
            Ok(response @ Value::Object(_)) => vec![response],
            _ => return Vec::new(),
        };
        let known = |r: &Value| ["candidates", "error", "promptFeedback", "usageMetadata"].iter().any(|k| r.get(k).is_some());
        if responses.is_empty() || !responses.iter().all(known) {
            return Vec::new();
        }
        let mut reader = ResponseEvents::default();
        let mut out = Vec::new();
        for response in &responses {
            let from = out.len();
            reader.response(response, &mut out);
            if out[from..].iter().any(|p| matches!(p, Parsed::Done | Parsed::Error(_) | Parsed::Overloaded(_))) {
                return out;
            }
        }
        out.push(Parsed::Error(UNFINISHED.into()));
        out
    }

    /// `promptTokenCount` includes the cached part; the thoughts are output (SPEC §I.2.2).
    fn usage(&self, raw: &Value) -> super::Usage {
        let thoughts = super::count(raw, "/thoughtsTokenCount");
        super::Usage {
            input: super::count(raw, "/promptTokenCount"),
            output: super::count(raw, "/candidatesTokenCount") + thoughts,
            cached_input: super::count(raw, "/cachedContentTokenCount"),
            cache_write: 0,
            reasoning: thoughts,
        }
    }
}

/// `models/<name>`, unless the name already names its resource (`models/…`, `tunedModels/…`).
fn resource(name: &str) -> String {
    if name.starts_with("models/") || name.starts_with("tunedModels/") { name.to_owned() } else { format!("models/{name}") }
}

/// The System messages' texts, and the turns of a history: `user` and `model` alternate
/// (consecutive turns of one role merged), Tool messages become `functionResponse` parts of
/// the user turn that follows, pairs repaired (SPEC §H.3.3).
fn contents(messages: &[Message]) -> (Vec<String>, Vec<Value>) {
    let mut system = Vec::new();
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, parts: Vec<Value>| {
        if parts.is_empty() {
            return;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(parts),
            _ => turns.push((role, parts)),
        }
    };
    // The names of the calls of the assistant message being answered, by id.
    let mut names: HashMap<String, String> = HashMap::new();
    let _ = pairing::visit(messages, |turn| {
        match turn {
            Turn::MissingAnswer { call_id } => {
                let name = names.get(&call_id).cloned().unwrap_or_default();
                let missing: Value = serde_json::from_str(pairing::MISSING_ANSWER).unwrap_or_default();
                push("user", vec![function_response(&call_id, &name, missing)]);
            }
            Turn::Message { message: m, tool_calls } => match m.role {
                Role::System => system.push(m.content.to_string()),
                Role::User | Role::Prompt => {
                    let mut parts = Vec::new();
                    if !m.content.is_empty() {
                        parts.push(json!({"text": m.content}));
                    }
                    parts.extend(m.images.iter().map(image));
                    push("user", parts);
                }
                Role::Assistant => {
                    names = tool_calls.iter().flat_map(super::stored_calls).map(|(id, name, _)| (id.to_owned(), name.to_owned())).collect();
                    push("model", model_parts(m, tool_calls.as_ref()));
                }
                Role::Tool => {
                    let name = if m.name.is_empty() { names.get(&m.tool_call_id).cloned().unwrap_or_default() } else { m.name.clone() };
                    let mut parts = vec![function_response(&m.tool_call_id, &name, response_object(&m.content))];
                    // A result's images follow it in the same turn (SPEC §H.4.3).
                    parts.extend(m.images.iter().map(image));
                    push("user", parts);
                }
            },
        }
        Ok::<(), ()>(())
    });
    let turns = turns.into_iter().map(|(role, parts)| json!({"role": role, "parts": parts})).collect();
    (system, turns)
}

/// A `functionResponse` part; the id only when the server gave the call one.
fn function_response(call_id: &str, name: &str, response: Value) -> Value {
    let mut answer = json!({"name": name, "response": response});
    if !call_id.starts_with(GENERATED_ID) {
        answer["id"] = call_id.into();
    }
    json!({"functionResponse": answer})
}

/// A tool's result as the object `functionResponse.response` must be: a JSON object as it
/// is, anything else under `result`.
fn response_object(content: &str) -> Value {
    match serde_json::from_str::<Value>(content) {
        Ok(object @ Value::Object(_)) => object,
        Ok(other) => json!({"result": other}),
        Err(_) => json!({"result": content}),
    }
}

/// The model turn of an assistant message: its signed thoughts as they came, its text (with
/// the signature its last text part carried), its calls — each kept part in place of the call
/// it stands for, matched by id or else by name in order.
fn model_parts(m: &Message, tool_calls: Option<&Value>) -> Vec<Value> {
    let kept: Vec<Value> = match serde_json::from_str::<Value>(&m.thinking_blocks) {
        // Another API's entries have a `type`; Gemini's parts never do.
        Ok(Value::Array(entries)) => entries.into_iter().filter(|e| e.is_object() && e.get("type").is_none()).collect(),
        _ => Vec::new(),
    };
    let is_call = |part: &Value| part.get("functionCall").is_some();
    let is_thought = |part: &Value| part.get("thought").and_then(Value::as_bool) == Some(true);
    let mut parts: Vec<Value> = kept.iter().filter(|p| is_thought(p) && !is_call(p)).cloned().collect();
    if !m.content.is_empty() {
        let mut text = json!({"text": m.content});
        if let Some(signature) = kept.iter().rev().find(|p| !is_thought(p) && !is_call(p)).and_then(|p| p.get("thoughtSignature")) {
            text["thoughtSignature"] = signature.clone();
        }
        parts.push(text);
    }
    let mut kept_calls: Vec<&Value> = kept.iter().filter(|p| is_call(p)).collect();
    for (id, name, arguments) in tool_calls.map(super::stored_calls).into_iter().flatten() {
        let call_field = |part: &Value, key: &str| {
            part.pointer(&format!("/functionCall/{key}")).and_then(Value::as_str).filter(|v| !v.is_empty()).map(str::to_owned)
        };
        let same = |part: &&Value| match call_field(part, "id") {
            Some(kept_id) => kept_id == id,
            None => call_field(part, "name").as_deref() == Some(name),
        };
        match kept_calls.iter().position(same) {
            Some(at) => parts.push(kept_calls.remove(at).clone()),
            None => {
                let mut call = json!({"name": name, "args": super::arguments_object(arguments)});
                if !id.starts_with(GENERATED_ID) {
                    call["id"] = id.into();
                }
                parts.push(json!({"functionCall": call}));
            }
        }
    }
    parts
}

/// An image part: a `data:` url as inline data, any other url as a file reference.
fn image(image: &Image) -> Value {
    if let Some(rest) = image.url.strip_prefix("data:")
        && let Some((mime_type, data)) = rest.split_once(";base64,")
    {
        return json!({"inlineData": {"mimeType": mime_type, "data": data}});
    }
    json!({"fileData": {"fileUri": image.url}})
}

/// One text part as the run's chunk: a thought is reasoning, anything else the answer.
fn text_piece(text: &str, thought: bool) -> Parsed {
    match (text.is_empty(), thought) {
        (true, _) => Parsed::Ignored,
        (false, true) => Parsed::Reasoning(text.into()),
        (false, false) => Parsed::Text(text.into()),
    }
}

/// An `error` object (in the stream or as the whole answer): overloaded and rate-limited
/// are temporary (they fall back and are retried, as HTTP 429 and 503 are), anything else
/// fails the run.
fn error(error: &Value) -> Parsed {
    let message = error.get("message").and_then(Value::as_str).unwrap_or_default();
    let status = error.get("status").and_then(Value::as_str).unwrap_or_default();
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
    let text = match (message.is_empty(), status.is_empty()) {
        (true, _) => super::error_event(&json!({"error": error}).to_string()),
        (false, true) => Parsed::Error(message.to_owned()),
        (false, false) => Parsed::Error(format!("{message} ({status})")),
    };
    let temporary = matches!(status, "RESOURCE_EXHAUSTED" | "UNAVAILABLE") || matches!(code, 429 | 503);
    match text {
        Parsed::Error(text) if temporary => Parsed::Overloaded(text),
        other => other,
    }
}

/// One attempt's stream: how many calls it brought (a call's place among them), and whether
/// it said the answer was finished.
struct ResponseEvents {
    calls: i64,
    finished: bool,
    /// Never take the fast path (the fuzz target's reference reader).
    tree_only: bool,
    /// The last chunk of one text part's, for reading the next one like it (`shape.rs`); the
    /// usage so far, in nearly every chunk, is carried.
    shape: Shape,
}

impl Default for ResponseEvents {
    fn default() -> Self {
        Self { calls: 0, finished: false, tree_only: false, shape: Shape::default().carrying("usageMetadata") }
    }
}

impl ResponseEvents {
    /// What one `GenerateContentResponse` says, read as a tree.
    fn response(&mut self, response: &Value, out: &mut Vec<Parsed>) {
        if let Some(e) = response.get("error").filter(|e| !e.is_null()) {
            return out.push(error(e));
        }
        let candidate = response.pointer("/candidates/0");
        let parts = candidate.and_then(|c| c.pointer("/content/parts")).and_then(Value::as_array);
        let response_id = response.get("responseId").and_then(Value::as_str).unwrap_or_default();
        for part in parts.into_iter().flatten() {
            out.push(self.part(part, response_id));
        }
        if let Some(usage) = response.get("usageMetadata").and_then(Usage::of) {
            Parsed::push_usage(out, usage);
        }
        if candidate.is_none()
            && let Some(reason) = response.pointer("/promptFeedback/blockReason").and_then(Value::as_str)
        {
            return out.push(Parsed::Error(format!("the prompt was blocked ({reason})")));
        }
        match candidate.and_then(|c| c.get("finishReason")).and_then(Value::as_str) {
            Some(reason) if FINISHED.contains(&reason) => {
                self.finished = true;
                out.push(Parsed::Done);
            }
            Some(reason) => out.push(Parsed::Error(format!("the answer was stopped ({reason})"))),
            None => {}
        }
    }

    /// One part of the answer: text or thought, a function call, and its signature kept.
    fn part(&mut self, part: &Value, response_id: &str) -> Parsed {
        let signed = part.get("thoughtSignature").is_some_and(|s| !s.is_null());
        let thinking_block = signed.then(|| part.to_string());
        if let Some(call) = part.get("functionCall").filter(|c| c.is_object()) {
            let index = self.calls;
            self.calls += 1;
            let text = |key: &str| call.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
            let id = text("id").unwrap_or_else(|| format!("{GENERATED_ID}{response_id}:{index}"));
            let arguments = Some(call.get("args").filter(|a| a.is_object()).map_or_else(|| "{}".to_owned(), Value::to_string));
            let delta = ToolCallDelta { index, id: Some(id), name: text("name"), arguments };
            return Chunk { tool_calls: vec![delta], thinking_block, ..Chunk::default() }.into();
        }
        let text = part.get("text").and_then(Value::as_str).unwrap_or_default();
        let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
        match (text_piece(text, thought), thinking_block) {
            (piece, None) => piece,
            (Parsed::Text(text), block) => Chunk { content: Some(text), thinking_block: block, ..Chunk::default() }.into(),
            (Parsed::Reasoning(text), block) => Chunk { reasoning: Some(text), thinking_block: block, ..Chunk::default() }.into(),
            (_, block) => Chunk { thinking_block: block, ..Chunk::default() }.into(),
        }
    }
}

impl Events for ResponseEvents {
    fn event(&mut self, name: &[u8], data: &str, out: &mut Vec<Parsed>) {
        // An `event: error` fails the run whatever its data says (SPEC §H.1.6).
        if name == b"error" {
            return out.push(match serde_json::from_str::<Value>(data) {
                Ok(Value::Object(o)) if o.get("error").is_some_and(Value::is_object) => error(&o["error"]),
                _ => super::error_event(data),
            });
        }
        if !self.tree_only {
            if let Some((parsed, usage)) = self.shape.read_carrying(data) {
                out.push(parsed);
                if let Some(usage) = usage.and_then(Usage::read) {
                    Parsed::push_usage(out, usage);
                }
                return;
            }
            if let Some(chunk) = fast::read(data) {
                if let [part] = chunk.parts.as_slice() {
                    // A chunk of text and the usage so far changes no state, and its usage is
                    // the text of its `usageMetadata`, which the shape carries.
                    let parsed = text_piece(&part.text, part.thought);
                    self.shape.learn(data, &parsed, shape::borrowed(Some(&part.text)));
                    out.push(parsed);
                } else {
                    out.extend(chunk.parts.iter().map(|p| text_piece(&p.text, p.thought)));
                }
                if let Some(usage) = chunk.usage {
                    Parsed::push_usage(out, usage);
                }
                return;
            }
        }
        match serde_json::from_str::<Value>(data) {
            Ok(response @ Value::Object(_)) => self.response(&response, out),
            _ => out.push(Parsed::Ignored),
        }
    }

    fn end(&mut self) -> Option<String> {
        (!self.finished).then(|| UNFINISHED.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialog::ResponseSchema;
    use crate::run::request::ToolSpec;

    fn events(stream: &[Value]) -> Vec<Parsed> {
        let mut reader = ResponseEvents::default();
        let mut out = Vec::new();
        for data in stream {
            reader.event(b"", &data.to_string(), &mut out);
        }
        out.retain(|p| *p != Parsed::Ignored);
        out
    }

    fn chunk(parts: Value) -> Value {
        json!({"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}], "responseId": "r1", "modelVersion": "gemini-3-pro"})
    }

    #[test]
    fn thoughts_text_calls_signatures_usage_and_the_end() {
        let call = json!({"functionCall": {"name": "get_time", "args": {"zone": "UTC"}}, "thoughtSignature": "c2ln"});
        let mut last = chunk(json!([{"text": "."}]));
        last["candidates"][0]["finishReason"] = "STOP".into();
        last["usageMetadata"] = json!({"promptTokenCount": 12, "candidatesTokenCount": 5, "thoughtsTokenCount": 30, "totalTokenCount": 47});
        let got = events(&[
            chunk(json!([{"text": "Think", "thought": true}])),
            chunk(json!([{"text": "Let me "}, {"text": "check"}])),
            chunk(json!([call.clone(), {"functionCall": {"id": "fc-9", "name": "f", "args": {}}}])),
            last,
        ]);
        let piece = Parsed::from;
        assert_eq!(got[0], piece(Chunk { reasoning: Some("Think".into()), ..Chunk::default() }));
        assert_eq!(got[1], piece(Chunk { content: Some("Let me ".into()), ..Chunk::default() }));
        assert_eq!(got[2], piece(Chunk { content: Some("check".into()), ..Chunk::default() }));
        let first = ToolCallDelta { index: 0, id: Some("gemini-call:r1:0".into()), name: Some("get_time".into()), arguments: Some(r#"{"zone":"UTC"}"#.into()) };
        assert_eq!(got[3], piece(Chunk { tool_calls: vec![first], thinking_block: Some(call.to_string()), ..Chunk::default() }));
        let second = ToolCallDelta { index: 1, id: Some("fc-9".into()), name: Some("f".into()), arguments: Some("{}".into()) };
        assert_eq!(got[4], piece(Chunk { tool_calls: vec![second], ..Chunk::default() }));
        assert_eq!(got[5], piece(Chunk { content: Some(".".into()), ..Chunk::default() }));
        assert!(matches!(&got[6], Parsed::Usage(u) if u.value().is_some_and(|u| u["thoughtsTokenCount"] == 30)));
        assert_eq!(got[7], Parsed::Done);
        assert_eq!(got.len(), 8);
    }

    #[test]
    fn errors_blocks_and_stops() {
        let overloaded = json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}});
        assert_eq!(events(&[overloaded]), [Parsed::Overloaded("The model is overloaded. (UNAVAILABLE)".into())]);
        let quota = json!({"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}});
        assert_eq!(events(&[quota]), [Parsed::Overloaded("Quota exceeded (RESOURCE_EXHAUSTED)".into())]);
        let bad = json!({"error": {"code": 400, "message": "Invalid JSON payload", "status": "INVALID_ARGUMENT"}});
        assert_eq!(events(&[bad]), [Parsed::Error("Invalid JSON payload (INVALID_ARGUMENT)".into())]);
        let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 3}});
        assert_eq!(events(&[blocked])[1], Parsed::Error("the prompt was blocked (SAFETY)".into()));
        let mut stopped = chunk(json!([]));
        stopped["candidates"][0]["finishReason"] = "MALFORMED_FUNCTION_CALL".into();
        assert_eq!(events(&[stopped]), [Parsed::Error("the answer was stopped (MALFORMED_FUNCTION_CALL)".into())]);
        let mut out = Vec::new();
        ResponseEvents::default().event(b"error", "not JSON", &mut out);
        assert_eq!(out, [Parsed::Error("not JSON".into())]);
        // A named error event fails whatever its data looks like (SPEC §H.1.6).
        let mut out = Vec::new();
        let mut reader = ResponseEvents::default();
        reader.event(b"error", r#"{"message":"x"}"#, &mut out);
        reader.event(b"error", &chunk(json!([{"text": "not an answer"}])).to_string(), &mut out);
        reader.event(b"error", &json!({"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}}).to_string(), &mut out);
        assert_eq!(out[..2], [Parsed::Error("x".into()), out[1].clone()]);
        assert!(matches!(&out[1], Parsed::Error(_)), "{out:?}");
        assert_eq!(out[2], Parsed::Overloaded("busy (UNAVAILABLE)".into()));
    }

    #[test]
    fn chunks_with_the_usage_so_far_read_as_the_tree_reads_them() {
        // As Google writes them: the usage so far in every chunk, spaces after the colons.
        let google = |text: &str, thought: bool, n: usize| {
            let thought = if thought { r#","thought": true"# } else { "" };
            format!(
                r#"{{"candidates": [{{"content": {{"parts": [{{"text": "{text}"{thought}}}],"role": "model"}},"index": 0}}],"usageMetadata": {{"promptTokenCount": 9,"candidatesTokenCount": {n},"totalTokenCount": {},"promptTokensDetails": [{{"modality": "TEXT","tokenCount": 9}}]}},"modelVersion": "gemini-3-pro-preview","responseId": "r"}}"#,
                9 + n
            )
        };
        let (mut reader, mut tree) = (ResponseEvents::default(), ResponseEvents { tree_only: true, ..ResponseEvents::default() });
        let texts = ["Hm", "a", "b", "é,", "c\\n", "d", "", "e"];
        for (n, text) in texts.iter().enumerate().chain([(98, &"f"), (1000, &"g")]) {
            for thought in [true, false] {
                let data = google(text, thought, n);
                let (mut fast, mut full) = (Vec::new(), Vec::new());
                reader.event(b"", &data, &mut fast);
                tree.event(b"", &data, &mut full);
                assert_eq!(fast, full, "{data}");
                let usage = fast.iter().find_map(|p| match p {
                    Parsed::Usage(u) => u.value(),
                    _ => None,
                });
                assert_eq!(usage.unwrap()["totalTokenCount"], 9 + n, "{data}");
            }
        }
        let data = google("x", false, 5000);
        assert!(reader.shape.read_carrying(&data).is_some(), "the shape is read, and carries the usage");
    }

    #[test]
    fn a_stream_without_a_finish_reason_was_cut_off() {
        let mut reader = ResponseEvents::default();
        reader.event(b"", &chunk(json!([{"text": "half"}])).to_string(), &mut Vec::new());
        assert_eq!(reader.end(), Some(UNFINISHED.to_owned()));
        let mut last = chunk(json!([]));
        last["candidates"][0]["finishReason"] = "STOP".into();
        reader.event(b"", &last.to_string(), &mut Vec::new());
        assert_eq!(reader.end(), None);
    }

    #[test]
    fn openai_parameter_names_and_extra_tools() {
        let mut model = Model { name: "gemini".into(), ..Model::new() };
        model.set_parameter("presence_penalty", json!(0.5));
        model.set_parameter("n", json!(2));
        model.set_parameter("tools", json!([{"googleSearch": {}}]));
        let tools = [ToolSpec::new("f", "", &Value::Null)];
        let parts = BodyParts { model: &model, dialog_id: "", system: "", messages: &[], tools: &tools, response_schema: None };
        let body: Value = serde_json::from_str(&Gemini.body(&parts)).unwrap();
        assert_eq!(body["generationConfig"], json!({"presencePenalty": 0.5, "candidateCount": 2}));
        assert_eq!(body["tools"], json!([{"functionDeclarations": [{"name": "f", "description": ""}]}, {"googleSearch": {}}]));
    }

    #[test]
    fn the_body_has_contents_tools_config_and_sends_signatures_back() {
        let mut model = Model { name: "gemini-3-pro".into(), ..Model::new() };
        model.set_parameter("temperature", json!(0.5));
        model.set_parameter("max_tokens", json!(512));
        model.set_parameter("thinkingConfig.thinkingLevel", json!("high"));
        model.set_parameter("safetySettings", json!([{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]));
        let mut user = Message::new(Role::User, "what is in it?");
        user.add_image_url("data:image/png;base64,AAAA", "");
        let mut call = Message::new(Role::Assistant, "Checking.");
        call.tool_calls = r#"[{"id":"gemini-call:r1:0","type":"function","function":{"name":"get_time","arguments":"{\"zone\":\"UTC\"}"}},{"id":"fc-9","type":"function","function":{"name":"f","arguments":"{}"}}]"#.into();
        let signed_call = json!({"functionCall": {"name": "get_time", "args": {"zone": "UTC"}}, "thoughtSignature": "c2ln"});
        let signed_text = json!({"text": "ing.", "thoughtSignature": "dGV4dA=="});
        let anthropic = json!({"type": "thinking", "thinking": "t", "signature": "s"});
        call.thinking_blocks = Value::Array(vec![anthropic, signed_text, signed_call.clone()]).to_string();
        let mut answer = Message::new(Role::Tool, r#"{"time":"noon"}"#);
        answer.tool_call_id = "gemini-call:r1:0".into();
        answer.name = "get_time".into();
        let messages = [Message::new(Role::System, "house rules"), user, call, answer, Message::new(Role::User, "and?")];
        let tools = [ToolSpec::new("get_time", "Tells the time", &json!({"type": "object"})), ToolSpec::new("f", "", &Value::Null)];
        let schema = ResponseSchema { name: "r".into(), schema: json!({"type": "object"}) };
        let parts = BodyParts { model: &model, dialog_id: "d1", system: "be brief", messages: &messages, tools: &tools, response_schema: Some(&schema) };
        let body: Value = serde_json::from_str(&Gemini.body(&parts)).unwrap();
        assert_eq!(
            body,
            json!({
                "contents": [
                    {"role": "user", "parts": [{"text": "what is in it?"}, {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]},
                    {"role": "model", "parts": [
                        {"text": "Checking.", "thoughtSignature": "dGV4dA=="},
                        signed_call,
                        {"functionCall": {"name": "f", "args": {}, "id": "fc-9"}}
                    ]},
                    {"role": "user", "parts": [
                        {"functionResponse": {"name": "get_time", "response": {"time": "noon"}}},
                        {"functionResponse": {"name": "f", "response": {"error": "no result was recorded for this call"}, "id": "fc-9"}},
                        {"text": "and?"}
                    ]}
                ],
                "systemInstruction": {"parts": [{"text": "be brief\n\nhouse rules"}]},
                "tools": [{"functionDeclarations": [
                    {"name": "get_time", "description": "Tells the time", "parametersJsonSchema": {"type": "object"}},
                    {"name": "f", "description": ""}
                ]}],
                "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
                "generationConfig": {
                    "temperature": 0.5, "maxOutputTokens": 512,
                    "thinkingConfig": {"thinkingLevel": "high", "includeThoughts": true},
                    "responseMimeType": "application/json", "responseJsonSchema": {"type": "object"}
                }
            })
        );
        assert_eq!(Gemini.path(&model), "/models/gemini-3-pro:streamGenerateContent");
        model.name = "tunedModels/mine".into();
        assert_eq!(Gemini.path(&model), "/tunedModels/mine:streamGenerateContent");
        assert_eq!(Gemini.headers(&Model { token: "k".into(), ..Model::new() }), [("x-goog-api-key", "k".to_owned())]);
    }

    #[test]
    fn a_signed_call_with_an_empty_id_is_matched_by_name() {
        let signed = json!({"functionCall": {"id": "", "name": "f", "args": {}}, "thoughtSignature": "c2ln"});
        let got = events(&[chunk(json!([signed.clone()]))]);
        let Parsed::Chunk(c) = &got[0] else { panic!("{got:?}") };
        assert_eq!(c.tool_calls[0].id.as_deref(), Some("gemini-call:r1:0"));
        let mut answer = Message::new(Role::Assistant, "");
        answer.tool_calls = r#"[{"id":"gemini-call:r1:0","type":"function","function":{"name":"f","arguments":"{}"}}]"#.into();
        answer.thinking_blocks = Value::Array(vec![signed.clone()]).to_string();
        let calls: Value = serde_json::from_str(&answer.tool_calls).unwrap();
        assert_eq!(model_parts(&answer, Some(&calls)), [signed]);
    }

    #[test]
    fn tool_results_become_response_objects() {
        assert_eq!(response_object(r#"{"a":1}"#), json!({"a": 1}));
        assert_eq!(response_object("[1,2]"), json!({"result": [1, 2]}));
        assert_eq!(response_object("plain"), json!({"result": "plain"}));
    }

    #[test]
    fn a_whole_answer_or_an_array_of_them() {
        let mut one = chunk(json!([{"text": "Hi"}]));
        one["candidates"][0]["finishReason"] = "STOP".into();
        let got = Gemini.answer(&one.to_string());
        assert_eq!(got, [Parsed::Text("Hi".into()), Parsed::Done]);
        let array = Value::Array(vec![chunk(json!([{"text": "a"}])), chunk(json!([{"text": "b"}]))]);
        let got = Gemini.answer(&array.to_string());
        assert_eq!((got.len(), got.last()), (3, Some(&Parsed::Error(UNFINISHED.into()))), "cut off without a finish reason");
        assert!(Gemini.answer("{}").is_empty() && Gemini.answer("[]").is_empty() && Gemini.answer(r#"[{"x":1}]"#).is_empty());
        let failed = json!({"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}});
        assert_eq!(Gemini.answer(&failed.to_string()), [Parsed::Overloaded("busy (UNAVAILABLE)".into())]);
    }

    #[test]
    fn usage_counts_thoughts_as_output() {
        let raw = json!({"promptTokenCount": 1200, "cachedContentTokenCount": 1024, "candidatesTokenCount": 40, "thoughtsTokenCount": 200});
        let counts = super::super::Usage { input: 1200, output: 240, cached_input: 1024, cache_write: 0, reasoning: 200 };
        assert_eq!(Gemini.usage(&raw), counts);
    }
}
