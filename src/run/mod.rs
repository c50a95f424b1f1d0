//! `Dialog::run()` (SPEC §D.1, §E.2–E.6): resolve the provider and model, stream rounds from
//! the server, call tools between rounds, fall back to the next model when one is down.
//!
//! A run is a task on the library's runtime. It holds the dialog weakly and acts on it only
//! while its generation is the dialog's current run, so an abort (which clears the run under the
//! dialog's lock) silences it at once, whatever it was awaiting.

pub mod chunk;
pub mod failure;
pub mod request;
mod scan;
pub mod transport;

use crate::{
    center::Center,
    dialog::{Dialog, State, WeakDialog},
    event::Event,
    message::{Message, Role},
    model::Model,
    provider::Provider,
    text::Text,
};
use chunk::{Parsed, ToolCall, ToolCallAccumulator};
use failure::{Failure, Kind};
use serde_json::{Value, json};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio_util::sync::CancellationToken;

/// Responses with tool calls that are followed by another round; tool calls in the next one
/// fail the run.
pub const MAX_TOOL_ROUNDS: usize = 8;

/// Largest plain-JSON (non-streaming) answer read.
const JSON_ANSWER_LIMIT: usize = 64 * 1024 * 1024;

/// The run in progress on a dialog.
pub struct ActiveRun {
    generation: u64,
    cancel: CancellationToken,
}

impl ActiveRun {
    pub fn cancel(&self) {
        self.cancel.cancel();
    }
}

/// The library's runtime: one worker thread named `visindigo-agent`, started on first use and
/// kept for the life of the process.
///
/// One, because the work is I/O and parsing: with two, hyper's connection task and the run's
/// task woke each other across threads for every read, which cost a 300k-chunk stream a third
/// of its throughput (180 → 115 ms) and every paced delta ~8 µs (BENCHMARKS.md). Host callbacks
/// run on this thread, hence their "must not block for long" contracts.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("visindigo-agent")
            .enable_all()
            .build()
            .expect("the tokio runtime could not start (no threads or timers available)")
    })
}

fn fail_early(dialog: &Dialog, message: &str) {
    dialog.emit_all(&[Event::RunFailed(message.to_owned())]);
}

/// Resolves provider and model and starts the first round; early failures emit only
/// `RunFailed` (SPEC §D.1.1–2).
pub fn start(dialog: &Dialog) {
    const ALREADY_RUNNING: &str = "Dialog is already running.";
    if dialog.is_streaming() {
        return fail_early(dialog, ALREADY_RUNNING);
    }
    let Some(center) = dialog.center() else {
        return fail_early(dialog, "No provider available.");
    };
    let (provider_id, model_id, requirement) = {
        let s = dialog.lock();
        (s.provider_id.clone(), s.model_id.clone(), s.requirement)
    };
    let provider = center
        .provider(&provider_id)
        .filter(Provider::is_valid)
        .or_else(|| center.provider(&center.default_provider()).filter(Provider::is_valid));
    let Some(provider) = provider else {
        return fail_early(dialog, "No provider available.");
    };
    let model = center.model(&model_id).filter(Model::is_valid).or_else(|| {
        let picked = center.pick_first(&provider, requirement);
        center.model(&picked)
    });
    let Some(model) = model else {
        return fail_early(dialog, "No model satisfies the capability requirement.");
    };

    static GENERATION: AtomicU64 = AtomicU64::new(1);
    let generation = GENERATION.fetch_add(1, Ordering::Relaxed);
    let cancel = CancellationToken::new();
    let started = dialog.update(|s, events| {
        if s.streaming || s.run.is_some() {
            events.push(Event::RunFailed(ALREADY_RUNNING.to_owned()));
            return false;
        }
        s.run = Some(ActiveRun { generation, cancel: cancel.clone() });
        s.last_usage = None;
        s.begin_assistant_message(events);
        true
    });
    if started {
        let run = Run { dialog: dialog.downgrade(), generation, center, provider, requirement, mcp: Default::default() };
        runtime().spawn(async move {
            tokio::select! {
                _ = cancel.cancelled() => {}
                _ = run.rounds(model) => {}
            }
        });
    }
}

/// Cancels the run in progress: synchronous, so `is_streaming()` is false and `RunFailed` has
/// been emitted when this returns (SPEC §F).
pub fn abort(dialog: &Dialog) {
    dialog.update(|s, events| {
        if let Some(run) = s.run.take() {
            run.cancel();
            s.streaming = false;
            s.streaming_content.clear();
            events.push(Event::RunFailed("[Aborted] Run aborted.".to_owned()));
        }
    });
}

struct Run {
    dialog: WeakDialog,
    generation: u64,
    center: Center,
    provider: Provider,
    requirement: u32,
    /// The MCP servers this run uses and the names their tools were offered under.
    mcp: crate::mcp_client::RunTools,
}

/// How an attempt ended badly, and whether anything had been streamed by then.
struct AttemptFailure {
    failure: Failure,
    streamed: bool,
}

impl Run {
    /// Applies `change` to the dialog if this run is still its current one; None otherwise
    /// (aborted, replaced or destroyed), and then the run must stop.
    fn with<R>(&self, change: impl FnOnce(&mut State, &mut Vec<Event>) -> R) -> Option<R> {
        let dialog = self.dialog.upgrade()?;
        dialog.update(|s, events| {
            let current = s.run.as_ref().is_some_and(|r| r.generation == self.generation);
            current.then(|| change(s, events))
        })
    }

    fn emit(&self, event: Event) {
        self.with(|_, events| events.push(event));
    }

    async fn rounds(&self, mut model: Model) {
        for round in 0.. {
            let calls = match self.round(&mut model).await {
                Ok(calls) => calls,
                Err(failure) => {
                    let message = failure.message(&model.token);
                    self.with(|s, events| {
                        s.run = None;
                        s.streaming = false;
                        s.streaming_content.clear();
                        events.push(Event::RunFailed(message));
                    });
                    return;
                }
            };
            if calls.is_empty() {
                self.with(|s, events| {
                    s.run = None;
                    s.end_assistant_message(events);
                });
                return;
            }
            if round == MAX_TOOL_ROUNDS {
                self.with(|s, events| {
                    s.run = None;
                    s.streaming = false;
                    events.push(Event::StreamEnded(std::mem::take(&mut s.streaming_content).into()));
                    events.push(Event::RunFailed("Too many tool call rounds.".to_owned()));
                });
                return;
            }
            let appended = self.with(|s, events| {
                let content = Text::from(std::mem::take(&mut s.streaming_content));
                let message = Message {
                    role: Role::Assistant,
                    content: content.clone(),
                    reasoning: s.reasoning_content.clone(),
                    tool_calls: chunk::tool_calls_json(&calls),
                    ..Message::default()
                };
                s.push_message(message, events);
                s.streaming = false;
                events.push(Event::StreamEnded(content));
            });
            if appended.is_none() {
                return;
            }
            for call in &calls {
                let content = self.tool_result(call).await;
                let message = Message {
                    role: Role::Tool,
                    content: content.into(),
                    name: call.name.clone(),
                    tool_call_id: call.id.clone(),
                    ..Message::default()
                };
                if self.with(|s, events| s.push_message(message, events)).is_none() {
                    return;
                }
            }
            if self.with(|s, events| s.begin_assistant_message(events)).is_none() {
                return;
            }
        }
    }

    /// One round: the request, falling back along the provider while attempts fail before
    /// anything was streamed with a retryable failure (SPEC §E.2). `model` ends as the model
    /// that answered.
    async fn round(&self, model: &mut Model) -> Result<Vec<ToolCall>, Failure> {
        let mut tried = vec![model.id.clone()];
        loop {
            let failure = match self.attempt(model).await {
                Ok(calls) => return Ok(calls),
                Err(AttemptFailure { failure, streamed }) if streamed || !failure.is_retryable() => return Err(failure),
                Err(AttemptFailure { failure, .. }) => failure,
            };
            let next_id = self.center.pick_next(&self.provider, &model.id, self.requirement);
            let next = match self.center.model(&next_id) {
                Some(next) if !tried.contains(&next_id) => next,
                _ => return Err(failure),
            };
            self.emit(Event::ModelFallback {
                from: model.id.clone(),
                to: next_id.clone(),
                reason: failure.message(&model.token),
            });
            tried.push(next_id);
            *model = next;
        }
    }

    /// The request body for `model`, built from the dialog as it is now.
    fn body(&self, model: &Model) -> Option<String> {
        let dialog = self.dialog.upgrade()?;
        let (center_skills, center_functions) = {
            let c = self.center.read();
            (c.skills.values().cloned().collect::<Vec<_>>(), c.functions.values().cloned().collect::<Vec<_>>())
        };
        let (own_skills, own_functions) = {
            let s = dialog.lock();
            (s.skills.clone(), s.functions.clone())
        };
        let active = request::active_skills(&own_skills, &center_skills);
        let system = request::system_prompt(&active);
        let mut tools = request::function_tools(&own_functions, &center_functions, &active, |id| dialog.function(id));
        self.mcp.offer(&mut tools);
        let s = dialog.lock();
        Some(request::body(model, &system, &s.messages, &tools))
    }

    async fn attempt(&self, model: &Model) -> Result<Vec<ToolCall>, AttemptFailure> {
        let aborted = || AttemptFailure { failure: Failure::new(Kind::Aborted, "Run aborted."), streamed: true };
        self.prepare_mcp().await;
        let body = self.body(model).ok_or_else(aborted)?;
        let request = transport::Request {
            base_url: &model.url,
            token: &model.token,
            body,
            timeout_ms: model.timeout_ms,
            idle_timeout_ms: model.idle_timeout_ms,
        };
        let mut response = transport::open(request).await.map_err(|failure| AttemptFailure { failure, streamed: false })?;
        let mut stream = Stream::default();
        if response.is_json {
            let text = response
                .read_to_limit(JSON_ANSWER_LIMIT)
                .await
                .map_err(|failure| AttemptFailure { failure, streamed: false })?;
            self.apply(&mut stream, [chunk::completion_as_chunk(&text)])
                .map_err(|failure| AttemptFailure { failure, streamed: stream.streamed })?
                .ok_or_else(aborted)?;
            return Ok(stream.tool_calls.finish());
        }
        let mut decoder = crate::sse::SseDecoder::new();
        let mut pending = Vec::new();
        loop {
            let piece = match response.next().await {
                Ok(piece) => piece,
                Err(failure) => return Err(AttemptFailure { failure, streamed: stream.streamed }),
            };
            match &piece {
                Some(bytes) => decoder.feed(bytes, |data| pending.push(chunk::parse(data))),
                None => decoder.finish(|data| pending.push(chunk::parse(data))),
            }
            let done = self
                .apply(&mut stream, pending.drain(..))
                .map_err(|failure| AttemptFailure { failure, streamed: stream.streamed })?
                .ok_or_else(aborted)?;
            if done || piece.is_none() {
                return Ok(stream.tool_calls.finish());
            }
        }
    }

    /// Applies parsed chunks to the dialog under one lock. Ok(Some(done)) tells whether `[DONE]`
    /// was seen; Ok(None) that the run is no longer current.
    fn apply(&self, stream: &mut Stream, chunks: impl IntoIterator<Item = Parsed>) -> Result<Option<bool>, Failure> {
        let mut outcome = Ok(false);
        let mut usage = None;
        let mut texts: Vec<(bool, String)> = Vec::new();
        for parsed in chunks {
            match parsed {
                Parsed::Done => {
                    outcome = Ok(true);
                    break;
                }
                Parsed::Error(message) => {
                    outcome = Err(Failure::new(Kind::ServerError, message));
                    break;
                }
                Parsed::Ignored => {}
                Parsed::Chunk(c) => {
                    if let Some(reasoning) = c.reasoning {
                        texts.push((true, reasoning));
                    }
                    if let Some(content) = c.content {
                        texts.push((false, content));
                    }
                    for delta in &c.tool_calls {
                        stream.tool_calls.add(delta);
                    }
                    stream.streamed |= !c.tool_calls.is_empty();
                    if c.usage.is_some() {
                        usage = c.usage;
                    }
                }
            }
        }
        stream.streamed |= !texts.is_empty();
        if texts.is_empty() && usage.is_none() {
            return outcome.map(Some);
        }
        let current = self.with(|s, events| {
            for (is_reasoning, text) in texts {
                if is_reasoning {
                    s.reasoning_content.push_str(&text);
                    events.push(Event::StreamReasoning(text));
                } else {
                    s.streaming_content.push_str(&text);
                    events.push(Event::StreamDelta(text));
                }
            }
            if usage.is_some() {
                s.last_usage = usage;
            }
        });
        match current {
            Some(()) => outcome.map(Some),
            None => Ok(None),
        }
    }

    /// Connects the MCP servers the dialog uses (SPEC §E.11); an unreachable one is reported
    /// once per run and its tools are left out.
    async fn prepare_mcp(&self) {
        let Some(dialog) = self.dialog.upgrade() else { return };
        let own = dialog.lock().mcps.clone();
        drop(dialog);
        let center: Vec<crate::mcp::Mcp> = self.center.read().mcps.values().cloned().collect();
        let servers = crate::mcp_client::active_servers(&own, &center);
        self.mcp.prepare(&servers, |server, message| self.emit(Event::McpFailed { server: server.to_owned(), message })).await;
    }

    /// The Tool message content of a call: a function's JSON result, else an MCP tool's
    /// result text (SPEC §E.11), else the unknown-tool error.
    async fn tool_result(&self, call: &ToolCall) -> String {
        let is_function = self.dialog.upgrade().is_some_and(|d| d.function(&call.name).is_some());
        if !is_function && let Some((connection, tool)) = self.mcp.target(&call.name) {
            return match parse_arguments(&call.arguments) {
                Ok(arguments) => connection.call(&tool, arguments).await,
                Err(error) => json!({"error": error}).to_string(),
            };
        }
        self.invoke(call).await.to_string()
    }

    /// Calls the tool the model asked for and returns its result (errors as `{"error": …}`).
    async fn invoke(&self, call: &ToolCall) -> Value {
        let Some(dialog) = self.dialog.upgrade() else {
            return json!({"error": "the dialog is gone"});
        };
        let Some(function) = dialog.function(&call.name) else {
            return json!({"error": format!("unknown tool {}", call.name)});
        };
        let arguments = match parse_arguments(&call.arguments) {
            Ok(arguments) => arguments,
            Err(error) => return json!({"error": error}),
        };
        let sink = dialog.sink();
        drop(dialog);
        let (reply, answer) = crate::function::ToolReply::new(&call.name);
        function.invoke(arguments, sink.as_ref(), reply);
        answer.await.unwrap_or_else(|_| json!({"error": format!("tool {} returned no result", call.name)}))
    }
}

/// What one attempt has received so far.
#[derive(Default)]
struct Stream {
    tool_calls: ToolCallAccumulator,
    /// Whether any text, reasoning or tool call arrived (after that, no fallback).
    streamed: bool,
}

/// The model's `arguments` text as a JSON object; "" (some servers send it for tools without
/// parameters) is `{}`.
fn parse_arguments(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(format!("the arguments are not a JSON object: {text}")),
        Err(e) => Err(format!("the arguments are not valid JSON ({e}): {text}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_must_be_an_object() {
        assert_eq!(parse_arguments("").unwrap(), json!({}));
        assert_eq!(parse_arguments(r#"{"a":1}"#).unwrap(), json!({"a": 1}));
        assert!(parse_arguments("[1]").unwrap_err().contains("not a JSON object"));
        assert!(parse_arguments("{oops").unwrap_err().contains("not valid JSON"));
    }
}
