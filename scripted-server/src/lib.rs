//! A scripted OpenAI-compatible test server.
//!
//! The Visindigo Agent client is tested against this server: it answers every
//! `POST <anything>/chat/completions`, `…/responses` (OpenAI Responses) and `…/messages`
//! (Anthropic Messages) with the next step of a *script*, and records every request
//! so a test can check what the client sent, field by field. It listens on 127.0.0.1 only.
//!
//! ```
//! use vi_scripted_server::{ScriptedServer, Step, chat_chunk_content, done, script};
//!
//! let server = ScriptedServer::start(script([
//!     Step::sse(vec![chat_chunk_content("Hello"), done()]),
//! ]))?;
//! let url = format!("{}/chat/completions", server.base_url());
//! // ... point the client at `url` and run it; then check what it sent with
//! // `server.wait_for_requests(1, timeout)` or `server.requests()`.
//! assert!(server.requests().is_empty());
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Script format
//!
//! A script is a JSON object `{"responses": [step, ...], "repeat_last": false}` (both keys
//! optional). The n-th chat request (counted from server start or the last script replacement)
//! gets step n; the step index is taken atomically when the request has been read, so concurrent
//! clients get distinct steps. When the steps run out the answer is HTTP 500
//! `{"error":{"message":"script exhausted","type":"server_error"}}`, or the last step again when
//! `repeat_last` is true.
//!
//! A step is an object with these keys, all optional:
//!
//! | key | meaning |
//! | --- | --- |
//! | `status` | HTTP status, default 200 |
//! | `reason` | reason phrase, default the standard one (`OK`, `Unauthorized`, `Too Many Requests`…) |
//! | `headers` | object of extra response headers (strings); each replaces a default of the same name. `Content-Length`, `Transfer-Encoding` and `Connection` are set by the server and rejected here |
//! | `body` | a plain body sent with `Content-Length`: a string verbatim, any other JSON value serialised compactly. Default `Content-Type: application/json` |
//! | `events` | a server-sent-events body sent with `Transfer-Encoding: chunked`. Default `Content-Type: text/event-stream` |
//! | `line_ending` | `"\n"` (default), `"\r"` or `"\r\n"`: used for every line end the SSE framing writes |
//! | `delay_ms` | wait this long before sending the status line |
//! | `close_after_headers` | `true`: close the connection right after the response head |
//! | `content_encoding` | `"gzip"`, `"deflate"` (zlib), `"br"` or `"zstd"`: the body is compressed and `Content-Encoding` set; an event stream is one compressed stream, sync-flushed after each event, so every event decodes as soon as its chunk arrives |
//!
//! `body` and `events` exclude each other; a step with neither has an empty body.
//!
//! Each item of `events` is one of the following (LE is the step's line ending):
//!
//! | item | sent |
//! | --- | --- |
//! | a string | `data: <string>` LE LE; a string with line breaks gives one `data:` line per line |
//! | any other JSON value (not a directive) | `data: <compact JSON>` LE LE |
//! | `{"$raw": "text"}` | the text verbatim (the line ending does not apply) |
//! | `{"$comment": "text"}` | `: text` LE LE |
//! | `{"$event": {"name": "n", "data": d}}` | `event: n` LE then `d` as a string or any other JSON value is |
//! | `{"$done": true}` | `data: [DONE]` LE LE |
//! | `{"$sleep_ms": n}` | nothing; pauses n milliseconds |
//! | `{"$reset": true}` | aborts the connection (SO_LINGER 0, close): the client sees ECONNRESET |
//! | `{"$stall": true}` | nothing more, ever; the connection stays open until the client closes it or the server shuts down |
//! | `{"$repeat": {"count": N, "delta": "text"}}` | N chunks `{"choices":[{"index":0,"delta":{"content":"text"}}]}` as fast as possible, generated on the fly; with `"api": "responses"`, `"anthropic"` or `"gemini"` N `response.output_text.delta` or `content_block_delta` events or Gemini text chunks instead (with `"anthropic-thinking"` `content_block_delta` events of a `thinking_delta`), with `"openai"` chunks and with `"openai-responses"` Responses deltas as OpenAI's own API sends them (every one different: an `obfuscation` padding, and Responses' `sequence_number`), with `"google"` Gemini chunks as Google's own API sends them (the usage so far, counting, in every one), with `"deepseek"` Chat Completions chunks of reasoning as DeepSeek's reasoner sends them (`reasoning_content`, `content` null) |
//! | `{"$paced": {"count": N, "delta": "text", "per_second": R}}` | the same chunks at R per second, each with `"vi_sent_ns"` (send time in nanoseconds since the UNIX epoch) after `choices`; optional `"stamp_content": true` also appends that number to each chunk's content (for latency measured from the delta alone) |
//!
//! A directive is an object with exactly one key, which starts with `$`. Each listed event is
//! sent as its own HTTP chunk; `$repeat` output goes out in 32 KiB chunks. Bytes already sent
//! before a `$reset` may be discarded by the client's kernel when the reset arrives: put a
//! `$sleep_ms` before the `$reset` if the client must see them first.
//!
//! Scripts are validated when given: unknown keys, unknown directives and wrongly-typed values
//! are errors ([`ScriptError`]).
//!
//! # Routes
//!
//! * `POST …/chat/completions`: the next step (any other method: 405).
//! * Any other path outside `/__`: 404 with an OpenAI-style JSON error. Both are recorded.
//! * `GET /__requests`: the recorded requests as a JSON array ([`RecordedRequest::to_json`]).
//! * `POST /__script`: replaces the script (as [`ScriptedServer::set_script`]): step index back
//!   to 0, request log cleared. Answers `{"ok":true}`, or 400 with the validation error.
//!
//! `/__` requests are not recorded.
//!
//! # HTTP
//!
//! HTTP/1.1 on 127.0.0.1. Request bodies may use `Content-Length` or `Transfer-Encoding:
//! chunked`; `Expect: 100-continue` is answered. Connections are kept alive between requests
//! unless the client sends `Connection: close` (or speaks HTTP/1.0 without keep-alive) or the
//! step cuts the connection (`close_after_headers`, `$stall`, `$reset`); the server never closes
//! an idle connection itself before it shuts down. Unreadable requests get 400 (431, 413 for
//! oversized heads and bodies) and the connection is closed.

mod body_log;
mod builders;
mod connection;
mod http;
mod record;
mod script;
mod server;
mod sse;
mod socks;
mod state;
mod tls;

pub use builders::{
    Step, chat_chunk_content, chat_chunk_delta, chat_chunk_reasoning, chat_chunk_tool_call,
    comment, done, error_chunk, finish_chunk, named_event, paced, raw, repeat, reset, script,
    script_repeat_last, sleep_ms, stall, typed_event, usage_chunk,
};
pub use record::RecordedRequest;
pub use script::ScriptError;
pub use socks::Socks5Proxy;
pub use tls::TlsIdentity;
pub use server::ScriptedServer;
