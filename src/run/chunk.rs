//! What one stream event means for the run, whatever the API (`Chunk`, `Parsed`, the tool-call
//! accumulator), and the reader of one SSE `data` payload of an OpenAI-compatible
//! chat-completions stream (SPEC §D.1 items 4–7, §E.3–E.5, §E.10).
//!
//! Parsing is lenient: unknown fields are skipped, and a field of the wrong JSON type reads as
//! absent instead of failing the whole chunk (`"content": 5`, `"index": "x"`, `"choices": {}` …).
//! A payload that is not valid JSON (as `serde_json` reads it) is ignored whole. The JSON is
//! walked by a zero-copy scanner (`scan.rs`) straight into small private structs — no
//! `serde_json::Value` tree, no allocation for skipped fields or unescaped text — because this
//! runs once per chunk of very long streams. Nothing here panics.

#[cfg(any(test, fuzzing))]
pub mod reference;
mod usage;

use std::borrow::Cow;
use std::collections::HashMap;

use super::scan::{self, Scanner};
use super::shape::{self, Ignored, Shape};
pub use crate::event::DeltaText;
use serde_json::Value;
pub use usage::Usage;

/// One entry of `choices[0].delta.tool_calls[]`: a piece of a tool call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCallDelta {
    /// `index`; missing or not an integer ⇒ 0.
    pub index: i64,
    /// `id`; absent, empty or not a string ⇒ `None`.
    pub id: Option<String>,
    /// `function.name` piece; absent, empty or not a string ⇒ `None`.
    pub name: Option<String>,
    /// `function.arguments` piece; absent, empty or not a string ⇒ `None`. (An object or array —
    /// sent by a few servers instead of a string — reads as its compact JSON text.)
    pub arguments: Option<String>,
}

/// What one ordinary chunk carries. Every field is optional; a chunk may carry nothing at all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chunk {
    /// `choices[0].delta.content` (a non-empty string, else `None`).
    pub content: Option<DeltaText>,
    /// `choices[0].delta.reasoning_content`, else `choices[0].delta.reasoning` (SPEC §E.4); the
    /// first of them that is a non-empty string.
    pub reasoning: Option<DeltaText>,
    /// `choices[0].delta.tool_calls[]` in the order received (non-object entries are skipped).
    pub tool_calls: Vec<ToolCallDelta>,
    /// Top-level `usage` when it is an object (SPEC §E.10).
    pub usage: Option<Usage>,
    /// `choices[0].finish_reason` (a non-empty string, else `None`).
    pub finish_reason: Option<String>,
    /// A complete Anthropic thinking block (compact JSON, signature included) to keep with the
    /// answer and send back verbatim (SPEC §H.2.2). Never set by Chat Completions.
    pub thinking_block: Option<String>,
}

/// The meaning of one SSE `data` payload.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// The payload is `[DONE]` (surrounding whitespace ignored): the round is complete (§E.5).
    Done,
    /// A top-level `error` (§E.3): its `message` when it is an object with a string `message`,
    /// the string itself when it is a string, otherwise its compact JSON text. (`"error": null`
    /// counts as no error.)
    Error(String),
    /// A chunk that carries a piece of answer and nothing else — most of a stream, so it is
    /// its own small variant: the full `Chunk` is ~200 bytes, moved several times per event.
    Text(DeltaText),
    /// A chunk that carries a piece of reasoning and nothing else.
    Reasoning(DeltaText),
    /// A chunk that carries the tokens so far and nothing else (Gemini's usage, which it sends
    /// with every piece, is read as a piece and then this).
    Usage(Usage),
    /// Any other chunk (made with `Parsed::from`, which gives the three above where they
    /// apply).
    Chunk(Box<Chunk>),
    /// The server is overloaded for now (Anthropic's `overloaded_error`): fails the attempt
    /// like HTTP 529 does, so it falls back and is retried. Never produced by Chat Completions.
    Overloaded(String),
    /// Not JSON, or JSON that is not an object: ignored (§D.1 item 4).
    Ignored,
}

impl From<Chunk> for Parsed {
    fn from(chunk: Chunk) -> Parsed {
        let alone = chunk.tool_calls.is_empty() && chunk.finish_reason.is_none() && chunk.thinking_block.is_none();
        match chunk {
            Chunk { content: Some(text), reasoning: None, usage: None, .. } if alone => Parsed::Text(text),
            Chunk { content: None, reasoning: Some(text), usage: None, .. } if alone => Parsed::Reasoning(text),
            Chunk { content: None, reasoning: None, usage: Some(usage), .. } if alone => Parsed::Usage(usage),
            chunk => Parsed::Chunk(Box::new(chunk)),
        }
    }
}

impl Parsed {
    /// Pushes `usage` to the parsed events of a network read, and drops the usage before it
    /// when only pieces came between: `Run::apply` keeps only the last usage of a read, and
    /// one dropped at once leaves its memory to the next. Gemini sends the usage so far with
    /// every piece, and a read holds ~200 of them: kept to the end, each cost an allocation
    /// the allocator's thread cache could not serve (issue 34).
    pub fn push_usage(out: &mut Vec<Parsed>, usage: Usage) {
        for earlier in out.iter_mut().rev() {
            match earlier {
                Parsed::Text(_) | Parsed::Reasoning(_) => {}
                Parsed::Usage(_) => {
                    *earlier = Parsed::Ignored;
                    break;
                }
                // Anything else may end `apply` before this usage, or is where the last
                // dropped one was.
                _ => break,
            }
        }
        out.push(Parsed::Usage(usage));
    }
}

/// Interprets one SSE `data` payload.
pub fn parse(data: &str) -> Parsed {
    walk(data, None)
}

/// [`parse`] for the payloads of one stream: one shaped like the last piece of answer is read
/// by `shape`, and a piece of answer read in full becomes the shape (`shape.rs`).
pub fn parse_in_stream(data: &str, shape: &mut Shape) -> Parsed {
    match shape.read_carrying(data) {
        Some((parsed, None)) => parsed,
        Some((parsed, Some(usage))) => match (parsed, Usage::read(usage)) {
            (Parsed::Text(text), usage @ Some(_)) => Chunk { content: Some(text), usage, ..Chunk::default() }.into(),
            (Parsed::Reasoning(text), usage @ Some(_)) => Chunk { reasoning: Some(text), usage, ..Chunk::default() }.into(),
            (parsed, _) => parsed,
        },
        None => walk(data, Some(shape)),
    }
}

fn walk(data: &str, shape: Option<&mut Shape>) -> Parsed {
    // An object from its first byte to its last (every chunk of a stream) has nothing to trim;
    // trim() would still decode a character at each end (~50 instructions a delta).
    let trimmed = match data.as_bytes() {
        [b'{', .., b'}'] => data,
        _ => data.trim(),
    };
    if trimmed == "[DONE]" {
        return Parsed::Done;
    }
    if !trimmed.starts_with('{') {
        return Parsed::Ignored; // cheap exit for keep-alive text, arrays, scalars
    }
    let mut scanner = Scanner::new(trimmed);
    let mut top = RawTop::default();
    match scanner.object(|s, key| top.field(s, key)).and_then(|()| scanner.end()) {
        Ok(()) => top.parsed(trimmed, shape),
        Err(_) => Parsed::Ignored,
    }
}

/// A finished tool call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// Assembles tool calls from their streamed pieces, per `index` (SPEC §D.1 item 4).
#[derive(Debug, Clone, Default)]
pub struct ToolCallAccumulator {
    /// The calls in order of first appearance, each with its index.
    calls: Vec<(i64, ToolCall)>,
    /// index → position in `calls`: a stream with many indexes must not cost a scan per piece
    /// (10k distinct indexes took 37 ms, 100k 13.5 s on the one runtime thread).
    positions: HashMap<i64, usize>,
    /// The bytes of every call's name and arguments so far.
    bytes: usize,
}

/// More tool calls than this in one answer fails the attempt (no model asks for that many).
pub const MAX_TOOL_CALLS: usize = 1024;

/// More name and argument text than this over an answer's tool calls fails the attempt.
pub const MAX_TOOL_CALL_BYTES: usize = 64 * 1024 * 1024;

impl ToolCallAccumulator {
    /// Adds one piece: a non-empty `id` replaces the stored id; `name` and `arguments` pieces are
    /// appended to what the same index has so far. `Err` names the limit a new index would pass.
    pub fn add(&mut self, delta: &ToolCallDelta) -> Result<(), String> {
        // Pieces of one call usually arrive together: the most recent entry first.
        let position = match self.calls.last() {
            Some((index, _)) if *index == delta.index => self.calls.len() - 1,
            _ => match self.positions.get(&delta.index) {
                Some(&position) => position,
                None if self.calls.len() == MAX_TOOL_CALLS => {
                    return Err(format!("the answer has more than {MAX_TOOL_CALLS} tool calls"));
                }
                None => {
                    self.positions.insert(delta.index, self.calls.len());
                    self.calls.push((delta.index, ToolCall::default()));
                    self.calls.len() - 1
                }
            },
        };
        self.bytes += delta.name.as_ref().map_or(0, String::len) + delta.arguments.as_ref().map_or(0, String::len);
        if self.bytes > MAX_TOOL_CALL_BYTES {
            return Err(format!("the answer's tool calls hold more than {} MiB", MAX_TOOL_CALL_BYTES >> 20));
        }
        let slot = &mut self.calls[position].1;
        if let Some(id) = delta.id.as_deref().filter(|id| !id.is_empty()) {
            id.clone_into(&mut slot.id);
        }
        if let Some(name) = &delta.name {
            slot.name.push_str(name);
        }
        if let Some(arguments) = &delta.arguments {
            slot.arguments.push_str(arguments);
        }
        Ok(())
    }

    /// The calls in ascending index order.
    pub fn finish(mut self) -> Vec<ToolCall> {
        self.calls.sort_by_key(|(index, _)| *index);
        self.calls.into_iter().map(|(_, call)| call).collect()
    }
}

/// The compact JSON array stored in the assistant message (SPEC §D.1 item 6):
/// `[{"id":…,"type":"function","function":{"name":…,"arguments":…}}, …]`, keys in exactly that
/// order (written by hand, so the order does not depend on `serde_json`'s `preserve_order`).
pub fn tool_calls_json(calls: &[ToolCall]) -> String {
    let mut out = String::with_capacity(
        2 + calls
            .iter()
            .map(|c| 64 + c.id.len() + c.name.len() + c.arguments.len() * 2)
            .sum::<usize>(),
    );
    out.push('[');
    for (i, call) in calls.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"id\":");
        push_json_string(&mut out, &call.id);
        out.push_str(",\"type\":\"function\",\"function\":{\"name\":");
        push_json_string(&mut out, &call.name);
        out.push_str(",\"arguments\":");
        push_json_string(&mut out, &call.arguments);
        out.push_str("}}");
    }
    out.push(']');
    out
}

fn push_json_string(out: &mut String, s: &str) {
    // Serialising a `&str` cannot fail; the fallback only keeps this panic-free by construction.
    match serde_json::to_string(s) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
}

// ---------------------------------------------------------------------------------------------
// Lenient reading
// ---------------------------------------------------------------------------------------------

/// The decoded top-level object.
#[derive(Default)]
struct RawTop<'a> {
    /// Boxed: rare, and a `Value` inline would make this struct, built once per delta, twice
    /// as large.
    error: Option<Box<Value>>,
    choice: Option<RawChoice<'a>>,
    usage: Option<&'a str>,
}

#[derive(Default)]
struct RawChoice<'a> {
    delta: Option<RawDelta<'a>>,
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Default)]
struct RawDelta<'a> {
    content: Option<Cow<'a, str>>,
    reasoning_content: Option<Cow<'a, str>>,
    reasoning: Option<Cow<'a, str>>,
    tool_calls: Vec<ToolCallDelta>,
}

#[derive(Default)]
struct RawToolCall<'a> {
    index: Option<i64>,
    id: Option<Cow<'a, str>>,
    function: Option<RawFunction<'a>>,
}

#[derive(Default)]
struct RawFunction<'a> {
    name: Option<Cow<'a, str>>,
    arguments: Option<Cow<'a, str>>,
}

impl RawTop<'_> {
    /// Read in place, and a piece of answer or of reasoning alone (most of a stream) made
    /// `Parsed::Text` or `Parsed::Reasoning` as `Parsed::from` would make it, without a `Chunk`
    /// moved and dropped around it: those moves cost ~60 instructions a delta (issue 34).
    /// Such a piece that was a slice of `data` becomes `shape`, with the usage so far when the
    /// shape carries it.
    fn parsed(&mut self, data: &str, shape: Option<&mut Shape>) -> Parsed {
        if let Some(error) = self.error.take() {
            return Parsed::Error(error_message(*error));
        }
        let usage = self.usage.take().and_then(Usage::read);
        let (finish_reason, delta) = match &mut self.choice {
            Some(choice) => (non_empty(choice.finish_reason.take()), choice.delta.as_mut()),
            None => (None, None),
        };
        let Some(delta) = delta else {
            return Chunk { usage, finish_reason, ..Chunk::default() }.into();
        };
        let content_piece = shape::borrowed(delta.content.as_ref());
        let mut content: Option<DeltaText> = non_empty(delta.content.take());
        // DeepSeek's `reasoning_content`, else vLLM's and OpenRouter's `reasoning`.
        let chosen = match delta.reasoning_content.take() {
            Some(r) if !r.is_empty() => Some(r),
            _ => delta.reasoning.take(),
        };
        let reasoning_piece = shape::borrowed(chosen.as_ref());
        let mut reasoning: Option<DeltaText> = non_empty(chosen);
        // A piece of answer or of reasoning alone, perhaps with the usage so far.
        if finish_reason.is_none() && delta.tool_calls.is_empty() {
            if let Some(shape) = shape
                && (usage.is_none() || shape.carries(USAGE))
            {
                match (&content, &reasoning) {
                    (Some(text), None) => shape.learn_text(data, text.as_str(), false, content_piece),
                    (None, Some(text)) => shape.learn_text(data, text.as_str(), true, reasoning_piece),
                    _ => false,
                };
            }
            if usage.is_none() {
                match (content, reasoning) {
                    (Some(text), None) => return Parsed::Text(text),
                    (None, Some(text)) => return Parsed::Reasoning(text),
                    both_or_neither => (content, reasoning) = both_or_neither,
                }
            }
        }
        Chunk { content, reasoning, tool_calls: std::mem::take(&mut delta.tool_calls), usage, finish_reason, thinking_block: None }.into()
    }
}

impl RawToolCall<'_> {
    fn into_delta(self) -> ToolCallDelta {
        let (name, arguments) = match self.function {
            Some(f) => (non_empty(f.name), non_empty(f.arguments)),
            None => (None, None),
        };
        ToolCallDelta {
            index: self.index.unwrap_or(0),
            id: non_empty(self.id),
            name,
            arguments,
        }
    }
}

/// A non-empty string as the owned kind the field holds (`String`, or `DeltaText` for deltas).
fn non_empty<'a, T: From<Cow<'a, str>>>(s: Option<Cow<'a, str>>) -> Option<T> {
    s.filter(|s| !s.is_empty()).map(T::from)
}

fn error_message(error: Value) -> String {
    match error {
        Value::String(s) => s,
        Value::Object(map) => match map.get("message") {
            Some(Value::String(message)) => message.clone(),
            _ => Value::Object(map).to_string(),
        },
        other => other.to_string(),
    }
}

/// A string (borrowed from the input when it has no escapes); any other JSON value ⇒ `None`.
fn lenient_str<'a>(s: &mut Scanner<'a>) -> scan::Result<Option<Cow<'a, str>>> {
    if s.peek() == Some(b'"') {
        return s.string().map(Some);
    }
    s.skip().map(|()| None)
}

/// Like [`lenient_str`], but an object or array reads as its compact JSON text (tool-call
/// arguments).
fn lenient_args<'a>(s: &mut Scanner<'a>) -> scan::Result<Option<Cow<'a, str>>> {
    match s.peek() {
        Some(b'{' | b'[') => Ok(Some(Cow::Owned(s.value()?.to_string()))),
        _ => lenient_str(s),
    }
}

/// An integer (an integral float counts; out-of-range or fractional ⇒ `None`); any other JSON
/// value ⇒ `None`.
fn lenient_int(s: &mut Scanner<'_>) -> scan::Result<Option<i64>> {
    if !matches!(s.peek(), Some(b'-' | b'0'..=b'9')) {
        return s.skip().map(|()| None);
    }
    let token = s.number()?;
    if let Ok(n) = token.parse::<i64>() {
        return Ok(Some(n));
    }
    // Rare forms (floats, huge integers) read as serde_json reads them.
    Ok(match serde_json::from_str::<Value>(token).map_err(|_| scan::Invalid)? {
        Value::Number(n) if n.is_u64() => None, // above i64::MAX
        Value::Number(n) => n.as_f64().and_then(|v| {
            // The `as` cast saturates; the range check keeps saturated values out.
            let ok = v.fract() == 0.0 && v >= -(2f64.powi(63)) && v < 2f64.powi(63);
            ok.then_some(v as i64)
        }),
        _ => None,
    })
}

/// An object read member by member into `T`; any other JSON value ⇒ `None`.
///
/// Read into `slot` in place: these structs are large, and perf put the moves of each level
/// out of the one below at ~7 % of a delta's time (issue 34).
fn lenient_obj<'a, T: Default>(
    s: &mut Scanner<'a>,
    slot: &mut Option<T>,
    mut field: impl FnMut(&mut T, &mut Scanner<'a>, &str) -> scan::Result<()>,
) -> scan::Result<()> {
    if s.peek() != Some(b'{') {
        *slot = None;
        return s.skip();
    }
    let out = slot.insert(T::default());
    s.object(|s, key| field(out, s, key))
}

/// The member with the tokens so far: read by [`RawTop::field`] and carried by the shape.
const USAGE: &str = "usage";

/// What OpenAI's chunks carry that differs in every one: a padding, skipped by
/// [`RawTop::field`], so a hole in a piece of answer's shape (`shape.rs`).
const IGNORED: &[Ignored] = &[Ignored::string("obfuscation")];

/// The shape of a stream's pieces of answer: OpenAI's padding is a hole, and the usage so far
/// that some servers send in every chunk (vLLM's `continuous_usage_stats`) is carried.
pub fn stream_shape() -> Shape {
    Shape::ignoring(IGNORED).carrying(USAGE)
}

impl<'a> RawTop<'a> {
    fn field(&mut self, s: &mut Scanner<'a>, key: &str) -> scan::Result<()> {
        match key {
            // `choices`: the first element of an array (read as an object); anything else ⇒ `None`.
            "choices" => {
                self.choice = None;
                if s.peek() != Some(b'[') {
                    return s.skip();
                }
                let mut first = true;
                s.array(|s| {
                    if std::mem::take(&mut first) {
                        lenient_obj(s, &mut self.choice, RawChoice::field)
                    } else {
                        s.skip()
                    }
                })?;
            }
            "error" => {
                let error = s.value()?;
                self.error = (!error.is_null()).then(|| Box::new(error));
            }
            USAGE => self.usage = Some(s.raw()?),
            _ => s.skip()?,
        }
        Ok(())
    }
}

impl<'a> RawChoice<'a> {
    fn field(&mut self, s: &mut Scanner<'a>, key: &str) -> scan::Result<()> {
        match key {
            "delta" => lenient_obj(s, &mut self.delta, RawDelta::field)?,
            "finish_reason" => self.finish_reason = lenient_str(s)?,
            _ => s.skip()?,
        }
        Ok(())
    }
}

impl<'a> RawDelta<'a> {
    fn field(&mut self, s: &mut Scanner<'a>, key: &str) -> scan::Result<()> {
        match key {
            "content" => self.content = lenient_str(s)?,
            "reasoning_content" => self.reasoning_content = lenient_str(s)?,
            "reasoning" => self.reasoning = lenient_str(s)?,
            // The object elements of an array; anything else ⇒ empty.
            "tool_calls" => {
                self.tool_calls.clear();
                if s.peek() != Some(b'[') {
                    return s.skip();
                }
                s.array(|s| {
                    let mut call = None;
                    lenient_obj(s, &mut call, RawToolCall::field)?;
                    self.tool_calls.extend(call.map(RawToolCall::into_delta));
                    Ok(())
                })?;
            }
            _ => s.skip()?,
        }
        Ok(())
    }
}

impl<'a> RawToolCall<'a> {
    fn field(&mut self, s: &mut Scanner<'a>, key: &str) -> scan::Result<()> {
        match key {
            "index" => self.index = lenient_int(s)?,
            "id" => self.id = lenient_str(s)?,
            "function" => lenient_obj(s, &mut self.function, RawFunction::field)?,
            _ => s.skip()?,
        }
        Ok(())
    }
}

impl<'a> RawFunction<'a> {
    fn field(&mut self, s: &mut Scanner<'a>, key: &str) -> scan::Result<()> {
        match key {
            "name" => self.name = lenient_str(s)?,
            "arguments" => self.arguments = lenient_args(s)?,
            _ => s.skip()?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chunk(data: &str) -> Chunk {
        match parse(data) {
            Parsed::Chunk(c) => *c,
            Parsed::Text(text) => Chunk { content: Some(text), ..Chunk::default() },
            Parsed::Reasoning(text) => Chunk { reasoning: Some(text), ..Chunk::default() },
            Parsed::Usage(usage) => Chunk { usage: Some(usage), ..Chunk::default() },
            other => panic!("expected a chunk for {data}, got {other:?}"),
        }
    }

    fn delta_chunk(delta: Value) -> Chunk {
        chunk(&json!({"choices": [{"index": 0, "delta": delta}]}).to_string())
    }

    fn tc(index: i64, id: Option<&str>, name: Option<&str>, args: Option<&str>) -> ToolCallDelta {
        ToolCallDelta {
            index,
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
            arguments: args.map(str::to_owned),
        }
    }

    // --- content -------------------------------------------------------------------------------

    #[test]
    fn content_is_read() {
        let c = chunk(
            r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m",
               "system_fingerprint":null,
               "choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},
               "logprobs":null,"finish_reason":null}]}"#,
        );
        assert_eq!(c.content.as_deref(), Some("Hello"));
        assert_eq!(c.reasoning, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.usage, None);
        assert_eq!(c.finish_reason, None);
    }

    #[test]
    fn content_with_escapes_and_unicode() {
        let c = delta_chunk(json!({"content": "line\n\"q\" \\ é 你好 🎉 \u{0001}"}));
        assert_eq!(
            c.content.as_deref(),
            Some("line\n\"q\" \\ é 你好 🎉 \u{0001}")
        );
        let c = chunk(r#"{"choices":[{"delta":{"content":"\u00e9\ud83c\udf89"}}]}"#);
        assert_eq!(c.content.as_deref(), Some("é🎉"));
    }

    #[test]
    fn content_null_absent_or_empty_is_none() {
        assert_eq!(delta_chunk(json!({"content": null})).content, None);
        assert_eq!(delta_chunk(json!({})).content, None);
        assert_eq!(delta_chunk(json!({"content": ""})).content, None);
        assert_eq!(delta_chunk(json!({"role": "assistant"})).content, None);
    }

    #[test]
    fn content_whitespace_is_kept() {
        assert_eq!(
            delta_chunk(json!({"content": " "})).content.as_deref(),
            Some(" ")
        );
        assert_eq!(
            delta_chunk(json!({"content": "\n\n"})).content.as_deref(),
            Some("\n\n")
        );
    }

    #[test]
    fn only_first_choice_matters() {
        let c =
            chunk(r#"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}},5,"x",[1]]}"#);
        assert_eq!(c.content.as_deref(), Some("a"));
        let c = chunk(r#"{"choices":[{"index":1,"delta":{}},{"delta":{"content":"b"}}]}"#);
        assert_eq!(c.content, None);
    }

    #[test]
    fn finish_reason_is_read() {
        let c = chunk(r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#);
        assert_eq!(c.finish_reason.as_deref(), Some("tool_calls"));
        let c = chunk(r#"{"choices":[{"delta":{},"finish_reason":""}]}"#);
        assert_eq!(c.finish_reason, None);
        let c = chunk(r#"{"choices":[{"delta":{},"finish_reason":7}]}"#);
        assert_eq!(c.finish_reason, None);
    }

    #[test]
    fn duplicate_keys_last_wins() {
        let c = chunk(r#"{"choices":[{"delta":{"content":"a","content":"b"}}]}"#);
        assert_eq!(c.content.as_deref(), Some("b"));
    }

    #[test]
    fn escaped_keys_are_recognised() {
        let c = chunk(r#"{"choic\u0065s":[{"delta":{"cont\u0065nt":"x"}}]}"#);
        assert_eq!(c.content.as_deref(), Some("x"));
    }

    // --- reasoning ---------------------------------------------------------------------------

    #[test]
    fn reasoning_content_key() {
        let c = delta_chunk(json!({"content": null, "reasoning_content": "think"}));
        assert_eq!(c.reasoning.as_deref(), Some("think"));
        assert_eq!(c.content, None);
    }

    #[test]
    fn reasoning_key() {
        let c = delta_chunk(json!({"content": "", "reasoning": "ponder"}));
        assert_eq!(c.reasoning.as_deref(), Some("ponder"));
    }

    #[test]
    fn reasoning_content_wins_over_reasoning() {
        let c = delta_chunk(json!({"reasoning": "B", "reasoning_content": "A"}));
        assert_eq!(c.reasoning.as_deref(), Some("A"));
        let c = delta_chunk(json!({"reasoning_content": "A", "reasoning": "B"}));
        assert_eq!(c.reasoning.as_deref(), Some("A"));
    }

    #[test]
    fn empty_or_null_reasoning_content_falls_back_to_reasoning() {
        let c = delta_chunk(json!({"reasoning_content": "", "reasoning": "B"}));
        assert_eq!(c.reasoning.as_deref(), Some("B"));
        let c = delta_chunk(json!({"reasoning_content": null, "reasoning": "B"}));
        assert_eq!(c.reasoning.as_deref(), Some("B"));
        let c = delta_chunk(json!({"reasoning_content": 3, "reasoning": "B"}));
        assert_eq!(c.reasoning.as_deref(), Some("B"));
        let c = delta_chunk(json!({"reasoning_content": "", "reasoning": ""}));
        assert_eq!(c.reasoning, None);
    }

    #[test]
    fn content_and_reasoning_together() {
        let c = delta_chunk(json!({"content": "x", "reasoning_content": "y"}));
        assert_eq!(c.content.as_deref(), Some("x"));
        assert_eq!(c.reasoning.as_deref(), Some("y"));
    }

    // --- tool calls --------------------------------------------------------------------------

    #[test]
    fn tool_call_delta_is_read() {
        let c = chunk(
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"call_1","type":"function",
               "function":{"name":"get_weather","arguments":"{\"ci"}}]}}]}"#,
        );
        assert_eq!(
            c.tool_calls,
            [tc(1, Some("call_1"), Some("get_weather"), Some("{\"ci"))]
        );
    }

    #[test]
    fn tool_call_missing_fields() {
        let c = delta_chunk(json!({"tool_calls": [{"function": {"arguments": "ty\"}"}}]}));
        assert_eq!(c.tool_calls, [tc(0, None, None, Some("ty\"}"))]);
        let c = delta_chunk(json!({"tool_calls": [{"id": "", "function": {"name": ""}}]}));
        assert_eq!(c.tool_calls, [tc(0, None, None, None)]);
        let c = delta_chunk(json!({"tool_calls": [{}]}));
        assert_eq!(c.tool_calls, [tc(0, None, None, None)]);
    }

    #[test]
    fn tool_calls_several_in_one_chunk_and_non_objects_skipped() {
        let c = delta_chunk(json!({"tool_calls": [
            {"index": 0, "id": "a", "function": {"name": "f"}},
            7, "x", null, [],
            {"index": 1, "id": "b", "function": {"name": "g", "arguments": "{}"}}
        ]}));
        assert_eq!(
            c.tool_calls,
            [
                tc(0, Some("a"), Some("f"), None),
                tc(1, Some("b"), Some("g"), Some("{}"))
            ]
        );
    }

    #[test]
    fn tool_call_index_forms() {
        let idx = |v: Value| delta_chunk(json!({"tool_calls": [{"index": v}]})).tool_calls[0].index;
        assert_eq!(idx(json!(3)), 3);
        assert_eq!(idx(json!(2.0)), 2);
        assert_eq!(idx(json!(2.5)), 0);
        assert_eq!(idx(json!(-1)), -1);
        assert_eq!(idx(json!("x")), 0);
        assert_eq!(idx(json!("1")), 0);
        assert_eq!(idx(json!(null)), 0);
        assert_eq!(idx(json!(true)), 0);
        assert_eq!(idx(json!([1])), 0);
        assert_eq!(idx(json!({"i": 1})), 0);
        assert_eq!(idx(json!(u64::MAX)), 0);
        assert_eq!(idx(json!(1e300)), 0);
    }

    #[test]
    fn tool_call_arguments_object_reads_as_json_text() {
        let c = delta_chunk(json!({"tool_calls": [{"function": {"name": "f",
            "arguments": {"city": "Paris", "n": [1, 2]}}}]}));
        assert_eq!(
            c.tool_calls[0].arguments.as_deref(),
            Some(r#"{"city":"Paris","n":[1,2]}"#)
        );
        let c = delta_chunk(json!({"tool_calls": [{"function": {"arguments": 5}}]}));
        assert_eq!(c.tool_calls[0].arguments, None);
    }

    #[test]
    fn accumulate_across_many_chunks() {
        let stream = [
            r#"{"choices":[{"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"weather"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"now","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#,
        ];
        assert_eq!(ToolCallAccumulator::default().finish(), []);
        let mut acc = ToolCallAccumulator::default();
        for data in stream {
            for d in &chunk(data).tool_calls {
                acc.add(d).unwrap();
            }
        }
        assert_eq!(
            acc.finish(),
            [
                ToolCall {
                    id: "call_a".into(),
                    name: "get_weather".into(),
                    arguments: r#"{"city":"Paris"}"#.into()
                },
                ToolCall {
                    id: "call_b".into(),
                    name: "now".into(),
                    arguments: "{}".into()
                },
            ]
        );
    }

    #[test]
    fn accumulate_with_missing_index() {
        // Servers that omit `index` (e.g. some Gemini/Ollama gateways) put everything in call 0.
        let mut acc = ToolCallAccumulator::default();
        for data in [
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{\"a\""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":"bogus","function":{"arguments":""}}]}}]}"#,
        ] {
            for d in &chunk(data).tool_calls {
                acc.add(d).unwrap();
            }
        }
        assert_eq!(
            acc.finish(),
            [ToolCall {
                id: "c1".into(),
                name: "f".into(),
                arguments: r#"{"a":1}"#.into()
            }]
        );
    }

    #[test]
    fn accumulator_id_replacement() {
        let mut acc = ToolCallAccumulator::default();
        acc.add(&tc(0, Some("first"), Some("f"), None)).unwrap();
        acc.add(&tc(0, None, None, Some("{"))).unwrap();
        acc.add(&tc(0, Some(""), None, Some("}"))).unwrap(); // empty id does not replace
        assert_eq!(acc.clone().finish()[0].id, "first");
        acc.add(&tc(0, Some("second"), None, None)).unwrap(); // non-empty id replaces
        let calls = acc.finish();
        assert_eq!(calls[0].id, "second");
        assert_eq!(calls[0].name, "f");
        assert_eq!(calls[0].arguments, "{}");
    }

    #[test]
    fn many_indexes_are_collected_and_bounded() {
        let mut acc = ToolCallAccumulator::default();
        for index in 0..MAX_TOOL_CALLS as i64 {
            acc.add(&tc(index, Some("id"), Some("f"), Some("{"))).unwrap();
        }
        for index in (0..MAX_TOOL_CALLS as i64).rev() {
            acc.add(&tc(index, None, None, Some("}"))).unwrap();
        }
        let error = acc.add(&tc(-1, None, None, None)).unwrap_err();
        assert_eq!(error, format!("the answer has more than {MAX_TOOL_CALLS} tool calls"));
        let calls = acc.finish();
        assert_eq!(calls.len(), MAX_TOOL_CALLS);
        assert!(calls.iter().all(|c| c.arguments == "{}"));

        let mut acc = ToolCallAccumulator::default();
        let piece = "x".repeat(1 << 20);
        for _ in 0..MAX_TOOL_CALL_BYTES >> 20 {
            acc.add(&tc(0, None, None, Some(&piece))).unwrap();
        }
        assert_eq!(acc.add(&tc(1, None, None, Some("y"))).unwrap_err(), "the answer's tool calls hold more than 64 MiB");
    }

    #[test]
    fn accumulator_orders_by_index() {
        let mut acc = ToolCallAccumulator::default();
        acc.add(&tc(2, Some("c"), Some("h"), None)).unwrap();
        acc.add(&tc(0, Some("a"), Some("f"), None)).unwrap();
        acc.add(&tc(1, Some("b"), Some("g"), None)).unwrap();
        acc.add(&tc(2, None, None, Some("x"))).unwrap();
        acc.add(&tc(0, None, None, Some("y"))).unwrap();
        let calls = acc.finish();
        let ids: Vec<_> = calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        assert_eq!(calls[0].arguments, "y");
        assert_eq!(calls[2].arguments, "x");
    }

    #[test]
    fn accumulator_empty_delta_registers_index() {
        let mut acc = ToolCallAccumulator::default();
        acc.add(&tc(5, None, None, None)).unwrap();
        assert_eq!(acc.finish(), [ToolCall::default()]);
        assert!(ToolCallAccumulator::default().finish().is_empty());
    }

    #[test]
    fn tool_calls_json_shape_and_order() {
        let calls = [
            ToolCall {
                id: "call_1".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"Paris"}"#.into(),
            },
            ToolCall {
                id: "c\"2".into(),
                name: "now".into(),
                arguments: "".into(),
            },
        ];
        let text = tool_calls_json(&calls);
        assert_eq!(
            text,
            r#"[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"c\"2","type":"function","function":{"name":"now","arguments":""}}]"#
        );
        // Same as the json! construction (with preserve_order) and valid JSON.
        let built = Value::Array(
            calls
                .iter()
                .map(|c| {
                    json!({"id": c.id, "type": "function",
                                "function": {"name": c.name, "arguments": c.arguments}})
                })
                .collect(),
        );
        assert_eq!(text, built.to_string());
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), built);
        assert_eq!(tool_calls_json(&[]), "[]");
    }

    #[test]
    fn tool_calls_json_escapes_control_and_unicode() {
        let calls = [ToolCall {
            id: "i".into(),
            name: "n\u{1}".into(),
            arguments: "é\n\t🎉".into(),
        }];
        let text = tool_calls_json(&calls);
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back[0]["function"]["name"], "n\u{1}");
        assert_eq!(back[0]["function"]["arguments"], "é\n\t🎉");
    }

    // --- usage -------------------------------------------------------------------------------

    #[test]
    fn a_usage_with_only_pieces_before_the_next_is_dropped() {
        let usage = |n: i64| Usage::from(json!({"n": n}));
        let mut out = Vec::new();
        Parsed::push_usage(&mut out, usage(1));
        out.extend([Parsed::Text("a".into()), Parsed::Reasoning("b".into())]);
        Parsed::push_usage(&mut out, usage(2));
        assert_eq!(out, [Parsed::Ignored, Parsed::Text("a".into()), Parsed::Reasoning("b".into()), Parsed::Usage(usage(2))]);
        // A usage before what may end `Run::apply` (an error, a chunk with tool calls) is kept,
        // and so is the one before a dropped one.
        let call = Chunk { tool_calls: vec![tc(0, Some("c"), Some("f"), None)], ..Chunk::default() };
        for end in [Parsed::Error("x".into()), Parsed::Done, call.into()] {
            let mut out = vec![Parsed::Usage(usage(1)), end.clone(), Parsed::Text("a".into())];
            Parsed::push_usage(&mut out, usage(2));
            Parsed::push_usage(&mut out, usage(3));
            assert_eq!(out, [Parsed::Usage(usage(1)), end, Parsed::Text("a".into()), Parsed::Ignored, Parsed::Usage(usage(3))]);
        }
    }

    #[test]
    fn usage_only_chunk() {
        let c = chunk(
            r#"{"id":"x","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}"#,
        );
        assert_eq!(
            c.usage,
            Some(json!({"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}).into())
        );
        assert_eq!(c.content, None);
        assert!(c.tool_calls.is_empty());
        let c = chunk(r#"{"usage":{"total_tokens":1}}"#);
        assert_eq!(c.usage, Some(json!({"total_tokens":1}).into()));
    }

    #[test]
    fn usage_keeps_key_order() {
        let c = chunk(r#"{"usage":{"z":1,"a":{"y":2,"b":3}}}"#);
        assert_eq!(c.usage.unwrap().value().unwrap().to_string(), r#"{"z":1,"a":{"y":2,"b":3}}"#);
    }

    #[test]
    fn usage_with_content_and_non_object_usage() {
        let c = chunk(r#"{"choices":[{"delta":{"content":"hi"}}],"usage":{"total_tokens":2}}"#);
        assert_eq!(c.content.as_deref(), Some("hi"));
        assert_eq!(c.usage, Some(json!({"total_tokens":2}).into()));
        assert_eq!(chunk(r#"{"usage":null}"#).usage, None);
        assert_eq!(chunk(r#"{"usage":5}"#).usage, None);
        assert_eq!(chunk(r#"{"usage":[1]}"#).usage, None);
    }

    // --- error frames ------------------------------------------------------------------------

    #[test]
    fn error_object_with_message() {
        assert_eq!(
            parse(r#"{"error":{"message":"Rate limit exceeded","type":"rate_limit","code":429}}"#),
            Parsed::Error("Rate limit exceeded".into())
        );
    }

    #[test]
    fn error_string() {
        assert_eq!(parse(r#"{"error":"boom"}"#), Parsed::Error("boom".into()));
    }

    #[test]
    fn error_other_is_compact_json() {
        assert_eq!(
            parse(r#"{"error": {"code": 500, "x": [1, 2]}}"#),
            Parsed::Error(r#"{"code":500,"x":[1,2]}"#.into())
        );
        assert_eq!(
            parse(r#"{"error":{"message":42,"code":1}}"#),
            Parsed::Error(r#"{"message":42,"code":1}"#.into())
        );
        assert_eq!(parse(r#"{"error":42}"#), Parsed::Error("42".into()));
        assert_eq!(
            parse(r#"{"error":[ "a" ]}"#),
            Parsed::Error(r#"["a"]"#.into())
        );
        assert_eq!(parse(r#"{"error":false}"#), Parsed::Error("false".into()));
    }

    #[test]
    fn error_wins_over_choices() {
        assert_eq!(
            parse(r#"{"choices":[{"delta":{"content":"x"}}],"error":{"message":"late"}}"#),
            Parsed::Error("late".into())
        );
    }

    #[test]
    fn null_error_is_no_error() {
        let c = chunk(r#"{"error":null,"choices":[{"delta":{"content":"ok"}}]}"#);
        assert_eq!(c.content.as_deref(), Some("ok"));
    }

    // --- [DONE], non-JSON, wrong types -------------------------------------------------------

    #[test]
    fn done_marker() {
        assert_eq!(parse("[DONE]"), Parsed::Done);
        assert_eq!(parse("  [DONE] \n"), Parsed::Done);
        assert_eq!(parse("\t[DONE]\r\n"), Parsed::Done);
        assert_eq!(parse("[done]"), Parsed::Ignored);
        assert_eq!(parse("[DONE] x"), Parsed::Ignored);
        assert_eq!(parse(r#""[DONE]""#), Parsed::Ignored);
    }

    #[test]
    fn non_json_is_ignored() {
        for data in [
            "",
            " ",
            "hello",
            "{",
            "{\"choices\":",
            "{\"a\":1}}",
            "{'a':1}",
            "nul",
            ": ping",
        ] {
            assert_eq!(parse(data), Parsed::Ignored, "{data:?}");
        }
    }

    #[test]
    fn json_that_is_not_an_object_is_ignored() {
        for data in ["[]", "[{\"choices\":[]}]", "1", "\"text\"", "null", "true"] {
            assert_eq!(parse(data), Parsed::Ignored, "{data:?}");
        }
    }

    #[test]
    fn whitespace_around_json_is_fine() {
        let c = chunk("  \n{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n ");
        assert_eq!(c.content.as_deref(), Some("x"));
    }

    #[test]
    fn empty_object_is_an_empty_chunk() {
        assert_eq!(chunk("{}"), Chunk::default());
        assert_eq!(chunk(r#"{"choices":[]}"#), Chunk::default());
        assert_eq!(chunk(r#"{"choices":[{}]}"#), Chunk::default());
    }

    #[test]
    fn wrong_types_read_as_absent() {
        assert_eq!(delta_chunk(json!({"content": 5})).content, None);
        assert_eq!(delta_chunk(json!({"content": ["a"]})).content, None);
        assert_eq!(delta_chunk(json!({"content": {"text": "a"}})).content, None);
        assert_eq!(delta_chunk(json!({"content": true})).content, None);
        assert_eq!(chunk(r#"{"choices":{}}"#), Chunk::default());
        assert_eq!(chunk(r#"{"choices":"x"}"#), Chunk::default());
        assert_eq!(chunk(r#"{"choices":[5]}"#), Chunk::default());
        assert_eq!(chunk(r#"{"choices":[{"delta":"x"}]}"#), Chunk::default());
        assert_eq!(
            chunk(r#"{"choices":[{"delta":[{"content":"x"}]}]}"#),
            Chunk::default()
        );
        assert!(
            delta_chunk(json!({"tool_calls": {"index": 0}}))
                .tool_calls
                .is_empty()
        );
        assert!(
            delta_chunk(json!({"tool_calls": "x"}))
                .tool_calls
                .is_empty()
        );
        let c = delta_chunk(json!({"tool_calls": [{"index": "x", "id": 7, "function": "f"}]}));
        assert_eq!(c.tool_calls, [tc(0, None, None, None)]);
        let c = delta_chunk(json!({"tool_calls": [{"function": {"name": 1, "arguments": null}}]}));
        assert_eq!(c.tool_calls, [tc(0, None, None, None)]);
    }

    #[test]
    fn wrong_types_do_not_hide_usable_fields() {
        let c = chunk(
            r#"{"choices":[{"index":"zero","delta":{"role":5,"content":"ok","reasoning":{},
               "tool_calls":[{"index":"x","id":"c","function":{"name":"f","arguments":7}}]},
               "finish_reason":[]}],"usage":"n/a","created":"yesterday","model":{"x":[1,{"y":null}]}}"#,
        );
        assert_eq!(c.content.as_deref(), Some("ok"));
        assert_eq!(c.reasoning, None);
        assert_eq!(c.tool_calls, [tc(0, Some("c"), Some("f"), None)]);
        assert_eq!(c.usage, None);
        assert_eq!(c.finish_reason, None);
    }

    #[test]
    fn unknown_nested_structures_are_skipped() {
        let c = chunk(
            r#"{"x":{"choices":[{"delta":{"content":"nested"}}]},"choices":[{"logprobs":{"content":[{"token":"a","bytes":[97],"top_logprobs":[]}]},"delta":{"content":"real","audio":{"data":"..."}}}],"y":[[[[]]]]}"#,
        );
        assert_eq!(c.content.as_deref(), Some("real"));
    }

    #[test]
    fn deep_nesting_does_not_panic_and_is_refused_as_serde_json_refuses_it() {
        // Skipped values are skipped without recursion, and past serde_json's nesting limit
        // the frame is ignored, as serde_json would refuse it.
        let deep = format!("{{\"x\":{}{}}}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(parse(&deep), Parsed::Ignored);
        let deep = format!(
            "{{\"choices\":[{{\"delta\":{{\"content\":{}{}}}}}]}}",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        assert_eq!(parse(&deep), Parsed::Ignored);
        // Values that are built (usage, error) too.
        let deep = format!("{{\"usage\":{}{}}}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(parse(&deep), Parsed::Ignored);
        let deep = format!(
            "{{\"error\":{}{}}}",
            "{\"a\":".repeat(10_000),
            "}".repeat(10_000)
        );
        assert_eq!(parse(&deep), Parsed::Ignored);
        // Truncated deep input.
        let deep = format!("{{\"choices\":{}", "[".repeat(10_000));
        assert_eq!(parse(&deep), Parsed::Ignored);
    }

    #[test]
    fn numbers_and_floats_do_not_break_parsing() {
        let c = chunk(
            r#"{"created":1.7e9,"n":-0,"big":123456789012345678901234567890,"choices":[{"delta":{"content":"x"}}]}"#,
        );
        assert_eq!(c.content.as_deref(), Some("x"));
    }

    /// Tiny deterministic LCG.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    #[test]
    fn a_stream_reads_each_payload_as_the_reference_does() {
        // (payload, read by the shape the ones before left)
        let stream = [
            (r#"{"choices":[{"delta":{"content":"Hel"},"index":0}]}"#, false),
            (r#"{"choices":[{"delta":{"content":"lo, wé😀"},"index":0}]}"#, true),
            (r#"{"choices":[{"delta":{"content":"a\"b"},"index":0}]}"#, false),
            (r#"{"choices":[{"delta":{"content":""},"index":0}]}"#, false),
            ("{\"choices\":[{\"delta\":{\"content\":\"a\u{1}\"},\"index\":0}]}", false),
            (r#"{"choices":[{"delta":{"content":"x"},"index":0}]} "#, false),
            (r#"{"choices":[{"delta":{"content":"x"},"index":0}],"usage":{"t":1}}"#, false),
            (r#"{"choices":[{"delta":{"content":"still"},"index":0}]}"#, true),
            (r#"{"choices":[{"delta":{"content":"a","content":"b"},"index":0}]}"#, false),
            (r#"{"choices":[{"delta":{"content":"a","content":"cd"},"index":0}]}"#, true),
            (r#"{"choices":[{"delta":{"content":"a","content":"c"},"index":0}]}"#, true),
            (r#"{"choices":[{"delta":{"reasoning_content":"hm"},"index":0}]}"#, false),
            (r#"{"choices":[{"delta":{"reasoning_content":"more"},"index":0}]}"#, true),
            (r#"{"choices":[{"delta":{"content":"a","content":"e"},"index":0}]}"#, false),
            (r#"{"choices":[{"delta":{"content":"a","content":"f"},"index":0}]}"#, true),
            ("[DONE]", false),
        ];
        let mut shape = Shape::default();
        for (payload, shaped) in stream {
            assert_eq!(shape.read(payload).is_some(), shaped, "{payload}");
            assert_eq!(parse_in_stream(payload, &mut shape), reference::reference(payload), "{payload}");
        }
    }

    #[test]
    fn openai_chunks_read_around_their_padding_as_the_reference_does() {
        let chunk = |content: &str, padding: &str| {
            format!(
                r#"{{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{"content":"{content}"}},"logprobs":null,"finish_reason":null}}],"obfuscation":"{padding}"}}"#
            )
        };
        let stream = [
            (chunk("Hel", "abc"), false),
            (chunk("lo", "Zk9"), true),
            (chunk(", w", ""), true),
            (chunk("a\"b", "q"), false),
            (chunk("!", "q\\"), false), // the padding never ends: not JSON
            // A padding with an escape is no hole: the shape learnt from it has none, and the
            // next padding is read in full and learnt in its place.
            (chunk("or", "q\\\\"), false),
            (chunk("ld", "0123456789abcdef"), false),
            (chunk("ld", "q"), true),
            (chunk("", "x"), false),
            (chunk("!", "x").replace(r#","created":1,"#, r#","created":2,"#), false),
            (chunk("?", "y").replace(r#","created":1,"#, r#","created":2,"#), true),
            (chunk(".", "y").replace(r#""obfuscation""#, r#""obfuscatiom""#), false),
        ];
        // The padding before the text, too.
        let first = |content: &str, padding: &str| format!(r#"{{"obfuscation":"{padding}","choices":[{{"index":0,"delta":{{"content":"{content}"}}}}]}}"#);
        let stream = stream.into_iter().chain([(first("a", "b"), false), (first("c", "defgh"), true), (first("i", ""), true)]);
        let mut shape = stream_shape();
        for (payload, shaped) in stream {
            assert_eq!(shape.read_carrying(&payload).is_some(), shaped, "{payload}");
            assert_eq!(parse_in_stream(&payload, &mut shape), reference::reference(&payload), "{payload}");
        }
    }

    #[test]
    fn chunks_with_the_usage_so_far_read_as_the_reference_does() {
        // vLLM with `continuous_usage_stats`: the usage so far in every chunk.
        let chunk = |content: &str, usage: &str| {
            format!(r#"{{"id":"c","choices":[{{"index":0,"delta":{{"content":"{content}"}},"finish_reason":null}}],"usage":{usage}}}"#)
        };
        let counts = |n: u32| format!(r#"{{"prompt_tokens":9,"total_tokens":{},"completion_tokens":{n}}}"#, 9 + n);
        let stream = [
            (chunk("Hel", &counts(1)), false),
            (chunk("lo", &counts(2)), true),
            (chunk(", w", &counts(1234)), true),
            (chunk("a\"b", &counts(4)), false),
            (chunk("or", &counts(5)), true),
            (chunk("ld", r#"{"prompt_tokens":9,"total_tokens":-1,"completion_tokens":6}"#), false),
            (chunk("!", "null"), false),
            (chunk("?", "null"), true),
            (chunk(".", "7"), false),
            (chunk(".", &counts(8)), false),
            // The reader keeps the last of two: not this shape, and not learnt (the 3rd miss).
            (chunk(".", &format!("{},\"usage\":{}", counts(9), counts(10))), false),
            (chunk(".", &counts(11)), true),
            (chunk("..", &counts(12)), true),
        ];
        let mut shape = stream_shape();
        for (payload, shaped) in stream {
            assert_eq!(shape.read_carrying(&payload).is_some(), shaped, "{payload}");
            assert_eq!(parse_in_stream(&payload, &mut shape), reference::reference(&payload), "{payload}");
        }
        // A shape that does not carry the usage learns no chunk that has one.
        let mut shape = Shape::ignoring(IGNORED);
        for n in 1..4 {
            let payload = chunk("x", &counts(n));
            assert_eq!(shape.read(&payload), None, "{payload}");
            assert_eq!(parse_in_stream(&payload, &mut shape), reference::reference(&payload), "{payload}");
        }
    }

    #[test]
    fn pieces_of_reasoning_alone_read_as_the_reference_does() {
        // DeepSeek's reasoner: `reasoning_content` beside a null `content`.
        let deepseek = |r: &str| format!(r#"{{"id":"d","object":"chat.completion.chunk","created":1,"model":"deepseek-reasoner","system_fingerprint":"fp","choices":[{{"index":0,"delta":{{"content":null,"reasoning_content":"{r}"}},"logprobs":null,"finish_reason":null}}]}}"#);
        // vLLM's `reasoning`, with the usage so far; an empty `reasoning_content` gives way to it.
        let vllm = |r: &str, n: u32| format!(r#"{{"choices":[{{"index":0,"delta":{{"reasoning_content":"","reasoning":"{r}"}}}}],"usage":{{"completion_tokens":{n}}}}}"#);
        let stream = [
            (deepseek("Let"), false),
            (deepseek(" me"), true),
            (deepseek("a\\nb"), false),
            (deepseek(""), false),
            (deepseek("think"), true),
            (deepseek("x").replace(r#""content":null"#, r#""content":"y""#), false),
            (vllm("Hm", 1), false),
            (vllm("m", 2), true),
            (vllm("mm", 345), true),
            (vllm("x", 4).replace(r#""reasoning_content":"""#, r#""reasoning_content":"z""#), false),
            (vllm("done", 5).replace(r#"}}],"#, r#"},"finish_reason":"stop"}],"#), false),
        ];
        let mut shape = stream_shape();
        for (payload, shaped) in stream {
            assert_eq!(shape.read_carrying(&payload).is_some(), shaped, "{payload}");
            let parsed = parse_in_stream(&payload, &mut shape);
            assert_eq!(parsed, reference::reference(&payload), "{payload}");
            if shaped {
                assert!(matches!(parsed, Parsed::Reasoning(_)) || matches!(&parsed, Parsed::Chunk(c) if c.reasoning.is_some() && c.usage.is_some()), "{parsed:?}");
            }
        }
    }

    #[test]
    fn random_mutations_read_as_the_reference_reads_them() {
        let bases: [&[u8]; 4] = [
            br#"{"choices":[{"index":0,"delta":{"content":"a\"b","reasoning":"r","tool_calls":[{"index":1,"id":"c","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null}],"usage":{"t":1},"error":null}"#,
            br#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"h\u00e9llo \ud83d\ude00 w\u00f6rld"},"logprobs":null,"finish_reason":null}]}"#,
            br#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":{"x":[1,2.5e3,-0]}}},7,{"index":1.0,"id":"d"}]}}],"usage":null}"#,
            br#"{"error":{"message":"quota\n exceeded","code":429},"choices":[]}"#,
        ];
        let pool = b"{}[]\":,0123456789.eE-+ \\/unlltrueafsxyzbfnrtABCDEF\x01\xC3\xA9";
        let mut rng = Lcg(7);
        let mut read = 0;
        for round in 0..40_000 {
            let mut bytes = bases[round % bases.len()].to_vec();
            for _ in 0..(1 + rng.next() % 3) {
                let at = (rng.next() as usize) % bytes.len();
                let b = pool[(rng.next() as usize) % pool.len()];
                match rng.next() % 3 {
                    0 => bytes[at] = b,
                    1 => bytes.insert(at, b),
                    _ => {
                        bytes.remove(at);
                    }
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            let ours = parse(&text);
            assert_eq!(ours, reference::reference(&text), "{text}");
            read += usize::from(ours != Parsed::Ignored);
        }
        // The mutations must leave enough documents valid for the comparison to mean something.
        assert!(read > 8_000, "only {read} mutated documents were valid JSON");
    }
}

/// A plain (non-streaming) chat completion — what a server sends when it ignores
/// `"stream": true` or the model's parameters turn it off — read as one chunk: its
/// `choices[0].message` becomes the delta, its tool calls indexed in order.
pub fn completion_as_chunk(text: &str) -> Parsed {
    let Ok(serde_json::Value::Object(mut completion)) = serde_json::from_str::<serde_json::Value>(text) else {
        return Parsed::Ignored;
    };
    if completion.get("error").is_some_and(|e| !e.is_null()) {
        return parse(text);
    }
    let message = completion
        .get_mut("choices")
        .and_then(|c| c.get_mut(0))
        .and_then(|c| c.get_mut("message"))
        .map(serde_json::Value::take);
    if let Some(mut message) = message {
        if let Some(calls) = message.get_mut("tool_calls").and_then(serde_json::Value::as_array_mut) {
            for (index, call) in calls.iter_mut().enumerate() {
                if let Some(call) = call.as_object_mut() {
                    call.insert("index".into(), index.into());
                }
            }
        }
        completion.insert("choices".into(), serde_json::json!([{"index": 0, "delta": message}]));
    }
    parse(&serde_json::Value::Object(completion).to_string())
}

#[cfg(test)]
mod completion_tests {
    use super::*;

    #[test]
    fn a_plain_completion_reads_as_one_chunk() {
        let text = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi","tool_calls":[
            {"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},
            {"id":"b","type":"function","function":{"name":"g","arguments":"{\"x\":1}"}}]}}],
            "usage":{"total_tokens":3}}"#;
        let Parsed::Chunk(c) = completion_as_chunk(text) else { panic!("not a chunk") };
        assert_eq!(c.content.as_deref(), Some("Hi"));
        let mut acc = ToolCallAccumulator::default();
        c.tool_calls.iter().for_each(|d| acc.add(d).unwrap());
        let calls = acc.finish();
        assert_eq!(calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert!(c.usage.is_some());
        assert_eq!(completion_as_chunk(r#"{"error":{"message":"nope"}}"#), Parsed::Error("nope".into()));
        assert_eq!(completion_as_chunk("not json"), Parsed::Ignored);
    }
}
