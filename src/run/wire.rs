//! The wire protocols a model is reached through (SPEC §H.2). Each API's module knows its
//! request body and what its stream's events mean, behind `Wire`; the transport, the SSE
//! decoder and the run loop are shared. Adding an API touches its module, `for_api` and
//! `model::Api` only.

mod anthropic;
mod chat_completions;
mod gemini;
mod responses;
mod typed;

pub use chat_completions::body as chat_completions_body;

use super::chunk::{Chunk, Parsed};
use super::failure::Failure;
use super::request::ToolSpec;
use crate::dialog::ResponseSchema;
use crate::message::Message;
use crate::model::{Api, Model};
use serde_json::Value;

/// Everything a request body is made of.
pub struct BodyParts<'a> {
    pub model: &'a Model,
    /// The dialog's id: OpenAI's `prompt_cache_key` when the model asks for caching.
    pub dialog_id: &'a str,
    /// The skills' instructions ("" when none).
    pub system: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
    pub response_schema: Option<&'a ResponseSchema>,
}

pub trait Wire: Sync {
    /// Appended to the model's base url's path (Gemini's names the model).
    fn path(&self, model: &Model) -> String;
    /// Added to the base url's query.
    fn query(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// The headers that carry the model's token (and the API's version).
    fn headers(&self, model: &Model) -> Vec<(&'static str, String)>;
    /// Whether the token travels in a header of its own, which reqwest does not drop across
    /// origins as it drops `Authorization`: such a request never follows a redirect elsewhere.
    fn keyed(&self, _model: &Model) -> bool {
        false
    }
    fn body(&self, parts: &BodyParts) -> String;
    /// A reader of one attempt's stream (it may keep state between events).
    fn events(&self) -> Box<dyn Events>;
    /// The same reader without its fast path (`typed.rs`): the fuzz target's reference.
    #[cfg(fuzzing)]
    fn tree_events(&self) -> Box<dyn Events>;
    /// A whole JSON answer (a server that did not stream) as the events it stands for;
    /// empty when it is none of this API's answers.
    fn answer(&self, text: &str) -> Vec<Parsed>;
    /// The counts of one of this API's usage objects, in the terms of [`Usage`].
    fn usage(&self, raw: &Value) -> Usage;
    /// Whether `failure` is the provider's answer that the request does not fit the model's
    /// context window (SPEC §I.4.3): each API's own words, which gateways (LiteLLM, OpenRouter)
    /// pass through whatever API they speak, so every API knows them all; an API with a
    /// code of its own adds it.
    fn overflow(&self, failure: &Failure) -> bool {
        super::context::overflow_words(failure)
    }
    /// The tokens one message costs on this API besides its text (its role, separators).
    fn message_overhead(&self) -> i64 {
        4
    }
}

/// OpenAI's overflow code (Chat Completions and Responses, and the gateways that copy
/// OpenAI's error object): `{"error": {"code": "context_length_exceeded", …}}`.
fn openai_overflow(failure: &Failure) -> bool {
    let code = |body: &str| {
        serde_json::from_str::<Value>(body).ok()?.pointer("/error/code")?.as_str().map(|c| c == "context_length_exceeded")
    };
    code(&failure.body).unwrap_or(false) || super::context::overflow_words(failure)
}

/// Token counts in the same terms on every API (SPEC §I.2.2): `input` is every prompt token,
/// cached or not; `output` includes the reasoning tokens.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub input: i64,
    pub output: i64,
    pub cached_input: i64,
    pub cache_write: i64,
    pub reasoning: i64,
}

/// The usage object as `getLastUsage()` shows it: the provider's own keys where §E.10 put
/// them, the normalised counts beside them, and `raw`, the provider's object unchanged.
pub fn normalised_usage(wire: &dyn Wire, raw: Value) -> Value {
    let Value::Object(own) = &raw else { return raw };
    let counts = wire.usage(&raw);
    let mut o = own.clone();
    for (key, count) in [
        ("inputTokens", counts.input),
        ("outputTokens", counts.output),
        ("cachedInputTokens", counts.cached_input),
        ("cacheWriteTokens", counts.cache_write),
        ("reasoningTokens", counts.reasoning),
    ] {
        o.insert(key.into(), count.into());
    }
    o.insert("raw".into(), raw);
    Value::Object(o)
}

/// The count at `pointer` in a usage object (0 when absent or not an integer).
fn count(usage: &Value, pointer: &str) -> i64 {
    usage.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// One attempt's stream.
pub trait Events: Send {
    /// Adds the meaning of one SSE event to `out` (`name` is "" without an `event:` field).
    fn event(&mut self, name: &[u8], data: &str, out: &mut Vec<Parsed>);
    /// The body ended before the stream said its round was over: why that is a failure, or
    /// None when an API's stream may end so.
    fn end(&mut self) -> Option<String> {
        None
    }
}

pub fn for_api(api: Api) -> &'static dyn Wire {
    match api {
        Api::ChatCompletions => &chat_completions::ChatCompletions,
        Api::Responses => &responses::Responses,
        Api::AnthropicMessages => &anthropic::AnthropicMessages,
        Api::Gemini => &gemini::Gemini,
    }
}

/// An `event: error` of any API fails the run whatever its data looks like (SPEC §H.1.6).
fn error_event(data: &str) -> Parsed {
    match super::transport::server_error_message(data) {
        message if message.is_empty() => Parsed::Error("the server sent an error event without a message".into()),
        message => Parsed::Error(message),
    }
}

/// A chunk that carries nothing (an empty first piece of a block) is nothing.
fn chunk_or_nothing(chunk: Chunk) -> Parsed {
    if chunk == Chunk::default() { Parsed::Ignored } else { chunk.into() }
}

/// The model's parameters, but `model` and the keys the wire writes itself.
fn parameters<'a>(model: &'a Model, own: &'a [&str]) -> impl Iterator<Item = (&'a String, &'a Value)> {
    model.parameters.iter().filter(move |(key, _)| key.as_str() != "model" && !own.contains(&key.as_str()))
}

/// OpenAI's `prompt_cache_key` (SPEC §I.2.2): the dialog's id when the model asks for
/// caching, unless its parameters set one.
fn prompt_cache_key<'a>(parts: &BodyParts<'a>) -> Option<&'a str> {
    let wanted = parts.model.prompt_caching && !parts.dialog_id.is_empty();
    (wanted && !parts.model.parameters.contains_key("prompt_cache_key")).then_some(parts.dialog_id)
}

/// Puts `format` under `key` beside whatever options the model's parameters put there
/// (`text.verbosity`, `output_config.effort`).
fn put_format(body: &mut serde_json::Map<String, Value>, key: &str, format: Value) {
    match body.entry(key).or_insert_with(|| Value::Object(Default::default())) {
        Value::Object(options) => {
            options.insert("format".into(), format);
        }
        other => *other = serde_json::json!({"format": format}),
    }
}

/// A stored call's arguments as the JSON object some APIs want instead of text (`{}` when
/// they are not one).
fn arguments_object(text: &str) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::Object(Default::default()),
    }
}

/// The stored calls of an assistant message (the `tool_calls` JSON array `pairing` parsed):
/// `(id, name, arguments text)` of each call that has an id.
fn stored_calls(tool_calls: &Value) -> impl Iterator<Item = (&str, &str, &str)> {
    tool_calls.as_array().into_iter().flatten().filter_map(|call| {
        let id = call.get("id")?.as_str()?;
        let name = call.pointer("/function/name").and_then(Value::as_str).unwrap_or_default();
        let arguments = call.pointer("/function/arguments").and_then(Value::as_str).unwrap_or_default();
        Some((id, name, arguments))
    })
}

/// Everything a wire does with what a server sends, for the `wire_events` fuzz target: each
/// line of `stream` is one event (`<name> <data>`) read by the API's event reader — which must
/// read it as its tree reader does — and the whole text is read as a JSON answer. Must never
/// panic.
#[cfg(fuzzing)]
pub fn read_server_text(api: Api, stream: &str) {
    let wire = for_api(api);
    let (mut events, mut reference) = (wire.events(), wire.tree_events());
    let mut out = Vec::new();
    for line in stream.split('\n') {
        let (name, data) = line.split_once(' ').unwrap_or(("", line));
        let (mut fast, mut tree) = (Vec::new(), Vec::new());
        events.event(name.as_bytes(), data, &mut fast);
        reference.event(name.as_bytes(), data, &mut tree);
        assert_eq!(fast, tree, "the fast path and the tree disagree on {line:?}");
        out.extend(fast);
    }
    assert_eq!(events.end(), reference.end(), "the fast path and the tree disagree on the end");
    out.extend(wire.answer(stream));
    let mut calls = super::chunk::ToolCallAccumulator::default();
    for parsed in out {
        if let Parsed::Chunk(chunk) = parsed {
            for delta in &chunk.tool_calls {
                let _ = calls.add(delta);
            }
        }
    }
    let _ = super::chunk::tool_calls_json(&calls.finish());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_event_fails_whatever_its_data() {
        assert_eq!(error_event("overloaded"), Parsed::Error("overloaded".into()));
        assert_eq!(error_event(r#"{"message":"m"}"#), Parsed::Error("m".into()));
        assert_eq!(error_event(r#"{"error":{"message":"e"}}"#), Parsed::Error("e".into()));
        assert!(matches!(error_event(" "), Parsed::Error(m) if m.contains("without a message")));
    }

    #[test]
    fn usage_keeps_the_providers_keys_and_adds_the_normalised_counts() {
        let raw = serde_json::json!({"prompt_tokens": 10, "completion_tokens": 4, "prompt_tokens_details": {"cached_tokens": 6}});
        let usage = normalised_usage(for_api(Api::ChatCompletions), raw.clone());
        assert_eq!(usage["prompt_tokens"], 10);
        assert_eq!((usage["inputTokens"].as_i64(), usage["cachedInputTokens"].as_i64(), usage["reasoningTokens"].as_i64()), (Some(10), Some(6), Some(0)));
        assert_eq!(usage["raw"], raw);
        assert_eq!(normalised_usage(for_api(Api::Responses), serde_json::json!(3)), serde_json::json!(3));
    }

    #[test]
    fn stored_calls_and_their_arguments() {
        let calls = serde_json::json!([
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}},
            {"type": "function", "function": {"name": "no id"}},
            {"id": "b", "function": {"name": "g"}}
        ]);
        assert_eq!(stored_calls(&calls).collect::<Vec<_>>(), [("a", "f", "{\"x\":1}"), ("b", "g", "")]);
        assert_eq!(arguments_object("{\"x\":1}"), serde_json::json!({"x": 1}));
        assert_eq!(arguments_object("[1]"), serde_json::json!({}));
        assert_eq!(arguments_object(""), serde_json::json!({}));
    }
}
