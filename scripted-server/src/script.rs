//! Parsing and validation of scripts.
//!
//! A script arrives as JSON (from a test, a file or `POST /__script`) and is turned into a
//! [`ParsedScript`] once, up front, so that a typo in a test's script is reported when the server
//! starts instead of surfacing as a puzzling client failure half-way through a test. Parsing is
//! strict for that reason: unknown keys, unknown directives and wrongly-typed values are errors.

use std::fmt;

use serde_json::{Map, Value};

/// Why a script was rejected; the text names the offending step and key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError(String);

impl ScriptError {
    fn new(message: impl Into<String>) -> Self {
        ScriptError(message.into())
    }

    fn in_step(index: usize, message: impl fmt::Display) -> Self {
        ScriptError(format!("responses[{index}]: {message}"))
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid script: {}", self.0)
    }
}

impl std::error::Error for ScriptError {}

/// A validated script: the responses served in order, one per chat request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParsedScript {
    pub responses: Vec<ParsedStep>,
    pub repeat_last: bool,
}

impl ParsedScript {
    /// The script with no responses: every chat request is answered "script exhausted".
    pub fn empty() -> Self {
        ParsedScript {
            responses: Vec::new(),
            repeat_last: false,
        }
    }

    /// Index of the step that answers the `sequence`-th chat request, or `None` when the script
    /// has run out.
    pub fn step_index_for(&self, sequence: usize) -> Option<usize> {
        if sequence < self.responses.len() {
            Some(sequence)
        } else if self.repeat_last && !self.responses.is_empty() {
            Some(self.responses.len() - 1)
        } else {
            None
        }
    }
}

/// One scripted HTTP response.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParsedStep {
    pub status: u16,
    /// `None` means the standard reason phrase for `status`.
    pub reason: Option<String>,
    /// Extra headers; they replace default headers of the same name.
    pub headers: Vec<(String, String)>,
    pub body: StepBody,
    pub line_ending: &'static str,
    pub delay_ms: u64,
    pub close_after_headers: bool,
    /// `content_encoding`: the body is compressed (an event stream flushed per event).
    pub encoding: Option<Encoding>,
}

/// A `Content-Encoding` the server can produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Gzip,
    /// HTTP's "deflate": the zlib format (RFC 9110 §8.4.1.2).
    Deflate,
    Brotli,
    Zstd,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Gzip => "gzip",
            Encoding::Deflate => "deflate",
            Encoding::Brotli => "br",
            Encoding::Zstd => "zstd",
        }
    }
}

/// What follows the response head.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StepBody {
    /// A complete body sent with `Content-Length` (empty when the step gave neither `body` nor
    /// `events`).
    Plain(Vec<u8>),
    /// A server-sent-events stream sent with `Transfer-Encoding: chunked`.
    Events(Vec<Event>),
}

/// The shape of `$repeat`'s deltas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RepeatApi {
    /// `data: {"choices":[{"index":0,"delta":{"content":…}}]}`
    ChatCompletions,
    /// `event: response.output_text.delta` with its data.
    Responses,
    /// `event: content_block_delta` with a `text_delta`.
    Anthropic,
    /// `data: {"candidates":[{"content":{"parts":[{"text":…}],"role":"model"},"index":0}]}`
    Gemini,
    /// Chat Completions as OpenAI's own API streams it: ids, a fingerprint, `logprobs` and
    /// `finish_reason` in every chunk, and an `obfuscation` padding that differs in each.
    OpenAi,
    /// Responses' text deltas as OpenAI's own API streams them: a `sequence_number` that counts
    /// and an `obfuscation` padding that differs in each.
    OpenAiResponses,
    /// Gemini's text chunks as Google's own API streams them: the usage so far, counting, in
    /// every chunk.
    Google,
    /// Chat Completions chunks of reasoning as DeepSeek's reasoner streams them
    /// (`reasoning_content` beside a null `content`).
    DeepSeek,
    /// `event: content_block_delta` with a `thinking_delta` (Claude's extended thinking).
    AnthropicThinking,
}

/// One item of a step's `events` list.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// `data: ...` lines; the text is already serialised (JSON events) and may span lines.
    Data(String),
    /// `event: <name>` then `data: ...` lines (the Responses and Anthropic streams name
    /// every event).
    Named { name: String, data: String },
    /// `: ...` comment lines.
    Comment(String),
    /// Bytes sent verbatim, ignoring the step's line ending.
    Raw(String),
    SleepMs(u64),
    /// Abort the connection with a TCP reset.
    Reset,
    /// Send nothing more but keep the connection open.
    Stall,
    /// `count` content deltas as fast as possible, in the chunk shape of `api`.
    Repeat {
        count: u64,
        delta: String,
        api: RepeatApi,
    },
    /// `count` content chunks at `per_second`, each stamped with `vi_sent_ns`.
    Paced {
        count: u64,
        delta: String,
        per_second: f64,
        /// Also append the send time (decimal ns) to each chunk's content, so a client that
        /// only sees the content (a delta signal) can measure latency.
        stamp_content: bool,
    },
}

/// Response headers the server computes itself; a script may not set them because the body
/// framing depends on them.
const RESERVED_HEADERS: [&str; 3] = ["content-length", "transfer-encoding", "connection"];

/// Parses and validates a whole script.
pub(crate) fn parse_script(script: &Value) -> Result<ParsedScript, ScriptError> {
    let object = script
        .as_object()
        .ok_or_else(|| ScriptError::new("a script must be a JSON object with \"responses\""))?;
    let mut parsed = ParsedScript::empty();
    for (key, value) in object {
        match key.as_str() {
            "responses" => {
                let steps = value
                    .as_array()
                    .ok_or_else(|| ScriptError::new("\"responses\" must be an array"))?;
                parsed.responses = steps
                    .iter()
                    .enumerate()
                    .map(|(index, step)| {
                        parse_step(step).map_err(|e| ScriptError::in_step(index, e))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "repeat_last" => {
                parsed.repeat_last = value
                    .as_bool()
                    .ok_or_else(|| ScriptError::new("\"repeat_last\" must be a boolean"))?;
            }
            other => return Err(ScriptError::new(format!("unknown key \"{other}\""))),
        }
    }
    Ok(parsed)
}

fn parse_step(step: &Value) -> Result<ParsedStep, String> {
    let object = step.as_object().ok_or("a step must be a JSON object")?;
    let mut parsed = ParsedStep {
        status: 200,
        reason: None,
        headers: Vec::new(),
        body: StepBody::Plain(Vec::new()),
        line_ending: "\n",
        delay_ms: 0,
        close_after_headers: false,
        encoding: None,
    };
    if object.contains_key("body") && object.contains_key("events") {
        return Err("a step has either \"body\" or \"events\", not both".into());
    }
    for (key, value) in object {
        match key.as_str() {
            "status" => parsed.status = parse_status(value)?,
            "reason" => parsed.reason = Some(header_text(value, "\"reason\"")?),
            "headers" => parsed.headers = parse_headers(value)?,
            "body" => parsed.body = StepBody::Plain(body_bytes(value)),
            "events" => {
                let items = value.as_array().ok_or("\"events\" must be an array")?;
                let events = items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| {
                        parse_event(item).map_err(|e| format!("events[{index}]: {e}"))
                    })
                    .collect::<Result<_, _>>()?;
                parsed.body = StepBody::Events(events);
            }
            "line_ending" => {
                parsed.line_ending = match value.as_str() {
                    Some("\n") => "\n",
                    Some("\r") => "\r",
                    Some("\r\n") => "\r\n",
                    _ => {
                        return Err("\"line_ending\" must be \"\\n\", \"\\r\" or \"\\r\\n\"".into());
                    }
                }
            }
            "delay_ms" => parsed.delay_ms = non_negative(value, "\"delay_ms\"")?,
            "close_after_headers" => {
                parsed.close_after_headers = value
                    .as_bool()
                    .ok_or("\"close_after_headers\" must be a boolean")?
            }
            "content_encoding" => {
                parsed.encoding = Some(match value.as_str() {
                    Some("gzip") => Encoding::Gzip,
                    Some("deflate") => Encoding::Deflate,
                    Some("br") => Encoding::Brotli,
                    Some("zstd") => Encoding::Zstd,
                    _ => return Err("\"content_encoding\" must be \"gzip\", \"deflate\", \"br\" or \"zstd\"".into()),
                })
            }
            other => return Err(format!("unknown key \"{other}\"")),
        }
    }
    Ok(parsed)
}

fn parse_status(value: &Value) -> Result<u16, String> {
    match value.as_u64() {
        Some(status @ 100..=999) => Ok(status as u16),
        _ => Err("\"status\" must be an integer from 100 to 999".into()),
    }
}

fn parse_headers(value: &Value) -> Result<Vec<(String, String)>, String> {
    let object = value
        .as_object()
        .ok_or("\"headers\" must be an object of strings")?;
    object
        .iter()
        .map(|(name, value)| {
            if name.is_empty() || !name.bytes().all(is_token_byte) {
                return Err(format!("header name \"{name}\" is not a valid HTTP token"));
            }
            if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
                return Err(format!(
                    "header \"{name}\" is set by the server and cannot be scripted"
                ));
            }
            Ok((
                name.clone(),
                header_text(value, &format!("header \"{name}\""))?,
            ))
        })
        .collect()
}

/// Text that ends up inside the response head: a string without line breaks, so a script cannot
/// corrupt the head by accident.
fn header_text(value: &Value, what: &str) -> Result<String, String> {
    match value.as_str() {
        Some(text) if !text.contains(['\r', '\n']) => Ok(text.to_owned()),
        Some(_) => Err(format!("{what} must not contain line breaks")),
        None => Err(format!("{what} must be a string")),
    }
}

/// RFC 9110 `tchar`.
fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// A string body is sent verbatim; any other JSON value is sent serialised.
fn body_bytes(value: &Value) -> Vec<u8> {
    match value {
        Value::String(text) => text.clone().into_bytes(),
        other => other.to_string().into_bytes(),
    }
}

fn parse_event(item: &Value) -> Result<Event, String> {
    match item {
        Value::String(text) => Ok(Event::Data(text.clone())),
        Value::Object(object) if object.keys().any(|key| key.starts_with('$')) => {
            parse_directive(object)
        }
        other => Ok(Event::Data(other.to_string())),
    }
}

fn parse_directive(object: &Map<String, Value>) -> Result<Event, String> {
    let mut entries = object.iter();
    let (Some((name, value)), None) = (entries.next(), entries.next()) else {
        return Err("a directive object has exactly one key".into());
    };
    match name.as_str() {
        "$raw" => Ok(Event::Raw(string(value, "$raw")?)),
        "$comment" => Ok(Event::Comment(string(value, "$comment")?)),
        "$event" => {
            let args = arguments(value, "$event", &["name", "data"])?;
            let data = match &args["data"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            Ok(Event::Named { name: string(&args["name"], "$event.name")?, data })
        }
        "$sleep_ms" => Ok(Event::SleepMs(non_negative(value, "$sleep_ms")?)),
        "$done" => flag(value, "$done").map(|()| Event::Data("[DONE]".into())),
        "$reset" => flag(value, "$reset").map(|()| Event::Reset),
        "$stall" => flag(value, "$stall").map(|()| Event::Stall),
        "$repeat" => {
            let mut plain = value.clone();
            let api = match plain.as_object_mut().and_then(|o| o.remove("api")) {
                None => RepeatApi::ChatCompletions,
                Some(Value::String(name)) if name == "responses" => RepeatApi::Responses,
                Some(Value::String(name)) if name == "anthropic" => RepeatApi::Anthropic,
                Some(Value::String(name)) if name == "gemini" => RepeatApi::Gemini,
                Some(Value::String(name)) if name == "openai" => RepeatApi::OpenAi,
                Some(Value::String(name)) if name == "openai-responses" => RepeatApi::OpenAiResponses,
                Some(Value::String(name)) if name == "google" => RepeatApi::Google,
                Some(Value::String(name)) if name == "deepseek" => RepeatApi::DeepSeek,
                Some(Value::String(name)) if name == "anthropic-thinking" => RepeatApi::AnthropicThinking,
                Some(_) => {
                    return Err("$repeat.api must be \"responses\", \"anthropic\", \"anthropic-thinking\", \"gemini\", \"openai\", \"openai-responses\", \"google\" or \"deepseek\"".into());
                }
            };
            let args = arguments(&plain, "$repeat", &["count", "delta"])?;
            Ok(Event::Repeat {
                count: non_negative(&args["count"], "$repeat.count")?,
                delta: string(&args["delta"], "$repeat.delta")?,
                api,
            })
        }
        "$paced" => {
            let mut plain = value.clone();
            let stamp_content = match plain.as_object_mut().and_then(|o| o.remove("stamp_content")) {
                None => false,
                Some(Value::Bool(b)) => b,
                Some(_) => return Err("$paced.stamp_content must be a boolean".into()),
            };
            let args = arguments(&plain, "$paced", &["count", "delta", "per_second"])?;
            let per_second = args["per_second"]
                .as_f64()
                .filter(|rate| rate.is_finite() && *rate > 0.0)
                .ok_or("$paced.per_second must be a positive number")?;
            Ok(Event::Paced {
                count: non_negative(&args["count"], "$paced.count")?,
                delta: string(&args["delta"], "$paced.delta")?,
                per_second,
                stamp_content,
            })
        }
        other => Err(format!("unknown directive \"{other}\"")),
    }
}

/// The argument object of `$repeat` / `$paced`: exactly the listed keys.
fn arguments<'a>(
    value: &'a Value,
    what: &str,
    keys: &[&str],
) -> Result<&'a Map<String, Value>, String> {
    let object = value
        .as_object()
        .ok_or_else(|| format!("{what} takes an object"))?;
    if let Some(unknown) = object.keys().find(|key| !keys.contains(&key.as_str())) {
        return Err(format!("{what}: unknown key \"{unknown}\""));
    }
    if let Some(missing) = keys.iter().find(|key| !object.contains_key(**key)) {
        return Err(format!("{what}: missing \"{missing}\""));
    }
    Ok(object)
}

fn string(value: &Value, what: &str) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{what} must be a string"))
}

fn non_negative(value: &Value, what: &str) -> Result<u64, String> {
    value
        .as_u64()
        .ok_or_else(|| format!("{what} must be a non-negative integer"))
}

/// Directives like `{"$done": true}` only make sense with `true`; anything else is a mistake.
fn flag(value: &Value, what: &str) -> Result<(), String> {
    if value == &Value::Bool(true) {
        Ok(())
    } else {
        Err(format!("{what} must be true"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_apply_to_a_minimal_step() {
        let script = parse_script(&json!({"responses": [{}]})).unwrap();
        let step = &script.responses[0];
        assert_eq!(step.status, 200);
        assert_eq!(step.body, StepBody::Plain(Vec::new()));
        assert_eq!(step.line_ending, "\n");
        assert!(!script.repeat_last);
    }

    #[test]
    fn events_of_every_kind_parse() {
        let script = parse_script(&json!({"responses": [{"events": [
            "text", {"a": 1}, [1, 2], {"$raw": "r"}, {"$comment": "c"}, {"$sleep_ms": 5},
            {"$done": true}, {"$reset": true}, {"$stall": true},
            {"$repeat": {"count": 3, "delta": "x"}},
            {"$paced": {"count": 2, "delta": "y", "per_second": 10}}
        ]}]}))
        .unwrap();
        let StepBody::Events(events) = &script.responses[0].body else {
            panic!("not events")
        };
        assert_eq!(
            events,
            &vec![
                Event::Data("text".into()),
                Event::Data("{\"a\":1}".into()),
                Event::Data("[1,2]".into()),
                Event::Raw("r".into()),
                Event::Comment("c".into()),
                Event::SleepMs(5),
                Event::Data("[DONE]".into()),
                Event::Reset,
                Event::Stall,
                Event::Repeat {
                    count: 3,
                    delta: "x".into(),
                    api: RepeatApi::ChatCompletions,
                },
                Event::Paced {
                    count: 2,
                    delta: "y".into(),
                    per_second: 10.0,
                    stamp_content: false
                },
            ]
        );
    }

    #[test]
    fn mistakes_are_reported_with_their_location() {
        let cases = [
            (json!([]), "must be a JSON object"),
            (
                json!({"responses": [], "extra": 1}),
                "unknown key \"extra\"",
            ),
            (
                json!({"responses": [{"stauts": 200}]}),
                "responses[0]: unknown key \"stauts\"",
            ),
            (
                json!({"responses": [{"body": "", "events": []}]}),
                "not both",
            ),
            (json!({"responses": [{"status": 42}]}), "\"status\""),
            (
                json!({"responses": [{"headers": {"Content-Length": "1"}}]}),
                "set by the server",
            ),
            (
                json!({"responses": [{"headers": {"X-A": "a\nb"}}]}),
                "line breaks",
            ),
            (
                json!({"responses": [{"line_ending": "\n\n"}]}),
                "\"line_ending\"",
            ),
            (
                json!({"responses": [{}, {"events": [{"$sleep": 1}]}]}),
                "responses[1]: events[0]: unknown directive",
            ),
            (
                json!({"responses": [{"events": [{"$done": true, "x": 1}]}]}),
                "exactly one key",
            ),
            (
                json!({"responses": [{"events": [{"$done": false}]}]}),
                "$done must be true",
            ),
            (
                json!({"responses": [{"events": [{"$repeat": {"count": 1}}]}]}),
                "missing \"delta\"",
            ),
            (
                json!({"responses": [{"events": [{"$paced": {"count": 1, "delta": "", "per_second": 0}}]}]}),
                "positive",
            ),
        ];
        for (script, expected) in cases {
            let error = parse_script(&script).unwrap_err().to_string();
            assert!(
                error.contains(expected),
                "{script}: {error:?} lacks {expected:?}"
            );
        }
    }

    #[test]
    fn exhaustion_and_repeat_last_pick_the_right_step() {
        let mut script = parse_script(&json!({"responses": [{}, {}]})).unwrap();
        assert_eq!(script.step_index_for(1), Some(1));
        assert_eq!(script.step_index_for(2), None);
        script.repeat_last = true;
        assert_eq!(script.step_index_for(7), Some(1));
        assert_eq!(
            ParsedScript {
                repeat_last: true,
                ..ParsedScript::empty()
            }
            .step_index_for(0),
            None
        );
    }
}
