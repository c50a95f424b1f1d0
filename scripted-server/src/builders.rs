//! Helpers for tests that build scripts in Rust instead of writing JSON by hand.
//!
//! Everything here produces plain [`serde_json::Value`]s in the script format documented at the
//! crate root, so a built script can be mixed freely with hand-written JSON, printed, or saved to
//! a file for the binary.

use serde_json::{Value, json};

/// Builder for one script step (one HTTP response).
///
/// ```
/// use vi_scripted_server::{Step, chat_chunk_content, done, script};
/// let s = script([
///     Step::error(429, "slow down"),
///     Step::sse(vec![chat_chunk_content("Hi"), done()]).line_ending("\r\n"),
/// ]);
/// assert_eq!(s["responses"][0]["status"], 429);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Step(Value);

impl Step {
    /// A 200 response streaming `events` (strings, JSON chunks or directives such as [`done`]).
    pub fn sse(events: Vec<Value>) -> Step {
        Step(json!({ "events": events }))
    }

    /// A plain response: a string body is sent verbatim, other JSON serialised.
    pub fn body(status: u16, body: impl Into<Value>) -> Step {
        Step(json!({ "status": status, "body": body.into() }))
    }

    /// An OpenAI-style error response: `{"error":{"message":..,"type":..}}`, with the type
    /// `invalid_request_error` for 4xx and `server_error` otherwise.
    pub fn error(status: u16, message: &str) -> Step {
        let kind = if (400..500).contains(&status) {
            "invalid_request_error"
        } else {
            "server_error"
        };
        Step::body(
            status,
            json!({ "error": { "message": message, "type": kind } }),
        )
    }

    pub fn status(self, status: u16) -> Step {
        self.with("status", status)
    }

    pub fn reason(self, reason: &str) -> Step {
        self.with("reason", reason)
    }

    /// Adds (or replaces) an extra response header.
    pub fn header(mut self, name: &str, value: &str) -> Step {
        if !self.0["headers"].is_object() {
            self.0["headers"] = json!({});
        }
        self.0["headers"][name] = value.into();
        self
    }

    /// `"\n"`, `"\r"` or `"\r\n"`, used for every line end of the SSE framing.
    pub fn line_ending(self, line_ending: &str) -> Step {
        self.with("line_ending", line_ending)
    }

    /// Waits this long before sending the status line.
    pub fn delay_ms(self, ms: u64) -> Step {
        self.with("delay_ms", ms)
    }

    /// Closes the connection right after the response head.
    pub fn close_after_headers(self) -> Step {
        self.with("close_after_headers", true)
    }

    /// `"gzip"`, `"deflate"`, `"br"` or `"zstd"`: the body is compressed (an event stream is
    /// flushed per event).
    pub fn content_encoding(self, encoding: &str) -> Step {
        self.with("content_encoding", encoding)
    }

    fn with(mut self, key: &str, value: impl Into<Value>) -> Step {
        self.0[key] = value.into();
        self
    }
}

impl From<Step> for Value {
    fn from(step: Step) -> Value {
        step.0
    }
}

/// A script serving `steps` in order, then "script exhausted".
pub fn script(steps: impl IntoIterator<Item = Step>) -> Value {
    json!({ "responses": steps.into_iter().map(Value::from).collect::<Vec<_>>() })
}

/// A script serving `steps` in order, then repeating the last one forever.
pub fn script_repeat_last(steps: impl IntoIterator<Item = Step>) -> Value {
    let mut script = script(steps);
    script["repeat_last"] = true.into();
    script
}

/// A streamed chat chunk whose `choices[0].delta` is `delta`.
pub fn chat_chunk_delta(delta: Value) -> Value {
    json!({ "choices": [{ "index": 0, "delta": delta }] })
}

/// `{"choices":[{"index":0,"delta":{"content":text}}]}` (also what `$repeat` sends).
pub fn chat_chunk_content(text: &str) -> Value {
    chat_chunk_delta(json!({ "content": text }))
}

/// A reasoning delta in the DeepSeek / llama.cpp form, `delta.reasoning_content`.
pub fn chat_chunk_reasoning(text: &str) -> Value {
    chat_chunk_delta(json!({ "reasoning_content": text }))
}

/// A tool-call delta. Servers send `id` and `name` in the first piece of a call and only
/// `arguments` afterwards: empty `id` / `name` are left out.
pub fn chat_chunk_tool_call(index: u64, id: &str, name: &str, args_piece: &str) -> Value {
    let mut call =
        json!({ "index": index, "type": "function", "function": { "arguments": args_piece } });
    if !id.is_empty() {
        call["id"] = id.into();
    }
    if !name.is_empty() {
        call["function"]["name"] = name.into();
    }
    chat_chunk_delta(json!({ "tool_calls": [call] }))
}

/// The closing chunk of a choice: empty delta plus `finish_reason` (`"stop"`, `"tool_calls"`…).
pub fn finish_chunk(reason: &str) -> Value {
    json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": reason }] })
}

/// The usage chunk sent with `stream_options.include_usage`: no choices, token counts.
pub fn usage_chunk(prompt_tokens: u64, completion_tokens: u64) -> Value {
    json!({
        "choices": [],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens
        }
    })
}

/// An in-stream error frame: `{"error":{"message":..}}`.
pub fn error_chunk(message: &str) -> Value {
    json!({ "error": { "message": message } })
}

/// `{"$done": true}`: `data: [DONE]`.
pub fn done() -> Value {
    json!({ "$done": true })
}

/// `{"$raw": text}`: bytes sent verbatim.
pub fn raw(text: &str) -> Value {
    json!({ "$raw": text })
}

/// `{"$comment": text}`: an SSE comment line.
/// `event: <name>` with `data` (JSON, or a string sent as it is).
pub fn named_event(name: &str, data: Value) -> Value {
    json!({"$event": {"name": name, "data": data}})
}

/// An event named after its data's `type`, as the Responses and Anthropic streams send them.
pub fn typed_event(data: Value) -> Value {
    let name = data["type"].as_str().unwrap_or_default().to_owned();
    named_event(&name, data)
}

pub fn comment(text: &str) -> Value {
    json!({ "$comment": text })
}

/// `{"$sleep_ms": ms}`: pause the stream.
pub fn sleep_ms(ms: u64) -> Value {
    json!({ "$sleep_ms": ms })
}

/// `{"$reset": true}`: abort the connection with a TCP reset.
pub fn reset() -> Value {
    json!({ "$reset": true })
}

/// `{"$stall": true}`: send nothing more, keep the connection open.
pub fn stall() -> Value {
    json!({ "$stall": true })
}

/// `{"$repeat": ..}`: `count` content chunks carrying `delta`, as fast as possible.
pub fn repeat(count: u64, delta: &str) -> Value {
    json!({ "$repeat": { "count": count, "delta": delta } })
}

/// `{"$paced": ..}`: `count` content chunks at `per_second`, stamped with `vi_sent_ns`.
pub fn paced(count: u64, delta: &str, per_second: f64) -> Value {
    json!({ "$paced": { "count": count, "delta": delta, "per_second": per_second } })
}
