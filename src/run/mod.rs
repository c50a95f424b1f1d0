//! `Dialog::run()` (SPEC §D.1, §E.2–E.6): resolve the provider and model, stream rounds from
//! the server, call tools between rounds, fall back to the next model when one is down.
//!
//! A run is a task on the library's runtime. It changes its dialog only through the
//! transitions of its `RunTicket` (`crate::dialog`), which do nothing once the run is no longer
//! the dialog's current one, so an abort silences it at once, whatever it was awaiting.

pub(crate) mod chunk;
pub(crate) mod context;
mod failure;
mod pairing;
pub(crate) mod request;
mod scan;
mod server_requests;
pub(crate) mod shape;
mod transport;
pub(crate) mod wire;

use crate::{
    center::Center,
    dialog::{CallSpec, ContextPolicy, ContextSummary, Decision, Dialog, Piece, RunEnd, RunTicket},
    message::Message,
    event::Event,
    function::ToolReply,
    mcp_client::{Progress, Watch},
    message::ToolOutput,
    model::Model,
    provider::Provider,
};
use chunk::{Parsed, ToolCall, ToolCallAccumulator};
use context::Sizes;
use failure::{Failure, Kind};
use serde_json::{Value, json};
use futures_util::FutureExt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Largest plain-JSON (non-streaming) answer read, and largest single SSE event: a server's one
/// endless line or event fails the attempt instead of taking the host's memory.
const JSON_ANSWER_LIMIT: usize = 64 * 1024 * 1024;

impl Dialog {
    /// Starts a run (SPEC §D.1); every outcome is reported through events.
    pub fn run(&self) {
        start(self);
    }
}

/// Resolves provider and model and starts the first round; early failures emit only
/// `RunFailed` (SPEC §D.1.1–2).
fn start(dialog: &Dialog) {
    if dialog.is_streaming() {
        return dialog.fail_early(crate::dialog::ALREADY_RUNNING);
    }
    let Some(center) = dialog.center() else {
        return dialog.fail_early("No provider available.");
    };
    let requirement = dialog.capability_requirement();
    let provider = center
        .provider(&dialog.provider_id())
        .filter(Provider::is_valid)
        .or_else(|| center.provider(&center.default_provider()).filter(Provider::is_valid));
    let Some(provider) = provider else {
        return dialog.fail_early("No provider available.");
    };
    let model = center.model(&dialog.model_id()).filter(Model::is_valid).or_else(|| {
        let picked = center.pick_first(&provider, requirement);
        center.model(&picked)
    });
    let Some(model) = model else {
        return dialog.fail_early("No model satisfies the capability requirement.");
    };
    let cancel = CancellationToken::new();
    let max_tool_rounds = dialog.max_tool_rounds();
    let Some(ticket) = dialog.start_run(cancel.clone()) else { return };
    tracing::info!(target: crate::log::RUN, dialog = %dialog.id(), model = %model.id, name = %model.name, api = model.api.name(), "run started");
    let run = Run { ticket, center, provider, requirement, max_tool_rounds, mcp: Default::default(), context: Default::default() };
    let slot = crate::runtime::RunSlot::take();
    slot.runtime().spawn(async move {
        let _slot = slot;
        let outcome = tokio::select! {
            _ = cancel.cancelled() => return,
            outcome = AssertUnwindSafe(run.rounds(model)).catch_unwind() => outcome,
        };
        // A bug of ours (or a host function's panic) ends this run, never leaves the dialog
        // streaming forever; other dialogs never see it.
        if let Err(panic) = outcome {
            run.ticket.finish(RunEnd::Failed(format!("[InternalError] {}", crate::error::panic_text(&*panic))));
        }
    });
}

struct Run {
    ticket: RunTicket,
    center: Center,
    provider: Provider,
    requirement: u32,
    /// Answers with tool calls that are followed by another round (SPEC §H.3.6); tool calls
    /// in the next one fail the run.
    max_tool_rounds: i32,
    /// The MCP servers this run uses and the names their tools were offered under.
    mcp: crate::mcp_client::RunTools,
    /// What the run knows of its requests' sizes (SPEC §I.4).
    context: std::sync::Mutex<RunContext>,
}

#[derive(Default)]
struct RunContext {
    /// The estimated tokens of the last request sent.
    last_estimate: i64,
    /// A budget below the window's, after the provider said the last request did not fit.
    squeeze: Option<i64>,
    /// The last attempt's failure was the provider's overflow answer.
    provider_overflowed: bool,
}

/// A request body and, when its size was estimated, what a measurement of it compares with.
struct Prepared {
    body: String,
    sent: Option<Sent>,
}

/// The messages a request held ended at `to`; the fast estimate put it at `estimated`.
#[derive(Clone, Copy)]
struct Sent {
    to: usize,
    estimated: i64,
}

/// How an attempt ended badly, and whether anything had been streamed by then.
struct AttemptFailure {
    failure: Failure,
    streamed: bool,
}

impl Run {
    async fn rounds(&self, mut model: Model) {
        for round in 0.. {
            let calls = match self.round(&mut model).await {
                Ok(calls) => calls,
                Err(failure) => {
                    let message = failure.message(&model.token);
                    tracing::warn!(target: crate::log::RUN, model = %model.id, failure = %message, "run failed");
                    return self.ticket.finish(RunEnd::Failed(message));
                }
            };
            if calls.is_empty() {
                tracing::debug!(target: crate::log::RUN, model = %model.id, rounds = round + 1, "run answered");
                return self.ticket.finish(RunEnd::Answered);
            }
            tracing::debug!(target: crate::log::RUN, model = %model.id, round, calls = calls.len(), "tool calls asked for");
            if round >= self.max_tool_rounds {
                return self.ticket.finish(RunEnd::TooManyRounds);
            }
            let specs: Vec<CallSpec> =
                calls.iter().map(|c| CallSpec { id: &c.id, name: &c.name, arguments: &c.arguments }).collect();
            if !self.ticket.end_round(chunk::tool_calls_json(&calls), &specs) {
                return;
            }
            self.call_tools(&calls).await;
            if !self.ticket.begin_round() {
                return;
            }
        }
    }

    /// Runs the calls of one answer: together, or one after another when the dialog says so
    /// (SPEC §H.3.5); their Tool messages are appended in call order either way (the
    /// transitions keep that order).
    async fn call_tools(&self, calls: &[ToolCall]) {
        let Some(dialog) = self.ticket.dialog() else { return };
        let (approval, parallel) = (dialog.tool_approval(), dialog.parallel_tool_calls());
        drop(dialog);
        let each = calls.iter().enumerate().map(|(index, call)| self.tool_call(index, call, approval));
        if parallel {
            futures_util::future::join_all(each).await;
        } else {
            for call in each {
                call.await;
            }
        }
    }

    /// One call: the host's approval when asked for (SPEC §H.3.4), then the tool. Returns
    /// early once the run is over (a stop or abort answers what is left).
    async fn tool_call(&self, index: usize, call: &ToolCall, approval: bool) {
        if approval {
            let Some(decision) = self.ticket.request_approval(index) else { return };
            match decision.await {
                Ok(Decision::Approved) => {}
                Ok(Decision::Rejected(reason)) => {
                    let declined = json!({"error": format!("the user declined this call: {reason}")});
                    self.ticket.finish_tool_call(index, declined.to_string());
                    return;
                }
                Err(_) => return,
            }
        }
        if !self.ticket.start_tool_call(index) {
            return;
        }
        let result = self.tool_result(call).await;
        self.ticket.finish_tool_call(index, result);
    }

    /// One round: the request, falling back along the provider while attempts fail before
    /// anything was streamed with a failure that allows it (SPEC §E.2); when the chain is
    /// exhausted, starting it over from `pickFirst` after a wait, as often as the provider's
    /// retries allow (SPEC §H.1.4). `model` ends as the model that answered.
    async fn round(&self, model: &mut Model) -> Result<Vec<ToolCall>, Failure> {
        let mut tried = vec![model.id.clone()];
        let mut passes = 0;
        // The longest wait a failed attempt of this pass asked for.
        let mut hint: Option<Duration> = None;
        let mut trimmed_again = false;
        loop {
            let failure = match self.attempt(model).await {
                Ok(calls) => return Ok(calls),
                Err(AttemptFailure { failure, streamed: false }) if !trimmed_again && self.retry_smaller(&failure) => {
                    trimmed_again = true;
                    continue;
                }
                Err(AttemptFailure { failure, streamed }) if streamed || !failure.falls_back() => return Err(failure),
                Err(AttemptFailure { failure, .. }) => failure,
            };
            hint = hint.max(failure.retry_after);
            self.ticket.forget_usage();
            let next_id = self.center.pick_next(&self.provider, &model.id, self.requirement);
            if let Some(next) = self.center.model(&next_id).filter(|_| !tried.contains(&next_id)) {
                tracing::warn!(target: crate::log::RUN, from = %model.id, to = %next_id, failure = %failure.message(&model.token), "falling back");
                self.ticket.emit(Event::ModelFallback {
                    from: model.id.clone(),
                    to: next_id.clone(),
                    reason: failure.message(&model.token),
                });
                tried.push(next_id);
                *model = next;
                continue;
            }
            if !failure.is_retried() || passes >= self.provider.retries {
                return Err(failure);
            }
            passes += 1;
            let delay = match hint {
                Some(asked) if asked.as_millis() > self.provider.max_retry_delay_ms.max(0) as u128 => return Err(failure),
                Some(asked) => asked,
                None => backoff(passes),
            };
            tracing::warn!(target: crate::log::RUN, pass = passes, delay_ms = delay.as_millis() as u64, failure = %failure.message(&model.token), "every model failed: retrying");
            self.ticket.emit(Event::Retrying {
                attempt: passes,
                delay_ms: delay.as_millis().min(i32::MAX as u128) as i32,
                reason: failure.message(&model.token),
            });
            // An abort ends the wait at once: the run's task is dropped (`start`).
            tokio::time::sleep(delay).await;
            let first_id = self.center.pick_first(&self.provider, self.requirement);
            let Some(first) = self.center.model(&first_id) else { return Err(failure) };
            *model = first;
            tried = vec![first_id];
            hint = None;
        }
    }

    /// After the provider's overflow answer (SPEC §I.4.3): whether the dialog's policy lets
    /// the round try once more with a request a quarter smaller than the one refused.
    fn retry_smaller(&self, failure: &Failure) -> bool {
        let mut context = self.context.lock().unwrap_or_else(|e| e.into_inner());
        let theirs = std::mem::take(&mut context.provider_overflowed);
        let policy = self.ticket.dialog().map_or(ContextPolicy::Fail, |d| d.context_policy());
        if failure.kind != Kind::ContextOverflow || !theirs || policy == ContextPolicy::Fail || context.last_estimate <= 0 {
            return false;
        }
        context.squeeze = Some(context.last_estimate * 3 / 4);
        tracing::info!(target: crate::log::RUN, estimate = context.last_estimate, "the provider said the request does not fit: trimming it and trying once more");
        true
    }

    /// The request body for `model` in its API's terms, built from the dialog as it is now,
    /// leaving out what the context window cannot hold (SPEC §I.4.2).
    async fn body(&self, model: &Model, wire: &dyn wire::Wire) -> Result<Option<Prepared>, Failure> {
        let Some(dialog) = self.ticket.dialog() else { return Ok(None) };
        let (center_skills, center_functions) = {
            let c = self.center.read();
            (c.skills.values().cloned().collect::<Vec<_>>(), c.functions.values().cloned().collect::<Vec<_>>())
        };
        let own_skills = dialog.skills();
        let active = request::active_skills(&own_skills, &center_skills);
        let system = request::system_prompt(&active);
        let mut tools = request::function_tools(&dialog.functions(), &center_functions, &active, |id| dialog.function(id));
        let offered = self.mcp.offer(request::tool_names(&tools));
        tools.extend(offered.iter().map(|t| request::ToolSpec::new(&t.name, &t.description, &t.input_schema)));
        let schema = dialog.response_schema();
        let dialog_id = dialog.id();
        let policy = dialog.context_policy();
        let squeeze = self.context.lock().unwrap_or_else(|e| e.into_inner()).squeeze;
        let budget = match (context::budget(model), squeeze) {
            (Some(window), Some(squeeze)) => Some(window.min(squeeze)),
            (window, squeeze) => window.or(squeeze),
        };
        // Without a window, a policy that may trim still estimates: the provider's overflow
        // answer then retries a quarter below the estimate.
        let budget = budget.or((policy != ContextPolicy::Fail).then_some(i64::MAX));
        let Some(budget) = budget else {
            // Fail without a window: nothing to estimate.
            return Ok(Some(Prepared {
                body: dialog.read_messages(|messages| {
                    wire.body(&wire::BodyParts { model, dialog_id: &dialog_id, system: &system, messages, tools: &tools, response_schema: schema.as_ref() })
                }),
                sent: None,
            }));
        };
        let messages = dialog.messages();
        let measured = dialog.measured();
        let mut summary = if policy == ContextPolicy::Summarize { dialog.context_summary() } else { None };
        drop(dialog);
        let sizes_with = |summary: Option<&ContextSummary>| {
            let tokenizer = context::Tokenizer::of(&model.name);
            Sizes::new(wire, tokenizer, context::fixed_tokens(tokenizer, &system, &tools, summary), &messages, measured)
        };
        let mut sizes = sizes_with(summary.as_ref());
        let from = summary.as_ref().map_or(0, |s| s.covered);
        let fit = match (policy, context::fit(&sizes, &messages, from, budget)) {
            (ContextPolicy::Fail, _) => {
                let whole = sizes.total(&messages, 0);
                if whole > budget {
                    return Err(context::overflow(whole, budget));
                }
                context::Fit { cut: 0, estimated: whole }
            }
            (ContextPolicy::DropOldest, Ok(fit)) => fit,
            (ContextPolicy::DropOldest, Err(tightest)) => return Err(context::overflow(tightest.estimated, budget)),
            (ContextPolicy::Summarize, Ok(fit)) if fit.cut == from => fit,
            (ContextPolicy::Summarize, _) => {
                // Renew the summary: it covers up to the first cut that fits beside a summary
                // of a reasonable length.
                let room = (budget / 8).clamp(1, 1024);
                let cut = match context::fit(&sizes, &messages, from, budget - room) {
                    Ok(fit) => fit.cut,
                    Err(tightest) => tightest.cut,
                };
                if cut > from {
                    let turns: Vec<Message> = messages[from..cut].iter().filter(|m| m.role != crate::message::Role::System).cloned().collect();
                    let text = self.summarize(model, summary.as_ref(), &turns).await?;
                    let renewed = ContextSummary { text, covered: cut };
                    let Some(dialog) = self.ticket.dialog() else { return Ok(None) };
                    dialog.set_context_summary(renewed.clone());
                    tracing::info!(target: crate::log::RUN, covered = cut, "context summary renewed");
                    summary = Some(renewed);
                    sizes = sizes_with(summary.as_ref());
                }
                let from = summary.as_ref().map_or(0, |s| s.covered);
                context::fit(&sizes, &messages, from, budget).map_err(|tightest| context::overflow(tightest.estimated, budget))?
            }
        };
        self.context.lock().unwrap_or_else(|e| e.into_inner()).last_estimate = fit.estimated;
        let left_out = context::left_out(&messages, fit.cut);
        if left_out > 0 {
            tracing::info!(target: crate::log::RUN, left_out, estimated = fit.estimated, budget, "context trimmed");
            let clamp = |n: i64| n.clamp(0, i32::MAX as i64) as i32;
            self.ticket.emit(Event::ContextTrimmed { left_out: clamp(left_out as i64), estimated: clamp(fit.estimated) });
        }
        let system = context::system_with_summary(&system, summary.as_ref().filter(|_| fit.cut > 0));
        let sent_messages = if fit.cut > 0 { context::kept(&messages, fit.cut) } else { messages.clone() };
        let body = wire.body(&wire::BodyParts { model, dialog_id: &dialog_id, system: &system, messages: &sent_messages, tools: &tools, response_schema: schema.as_ref() });
        Ok(Some(Prepared { body, sent: Some(Sent { to: messages.len(), estimated: sizes.raw_total(&messages, fit.cut) }) }))
    }

    /// One completion of the summary model (SPEC §I.4.2; the run's own model when none is set
    /// or the one set is unavailable): the summary of `previous` and `turns`.
    async fn summarize(&self, run_model: &Model, previous: Option<&ContextSummary>, turns: &[Message]) -> Result<String, Failure> {
        let (provider_id, model_id) = self.ticket.dialog().map(|d| d.summary_model()).unwrap_or_default();
        let chosen = if !model_id.is_empty() {
            self.center.model(&model_id)
        } else if let Some(provider) = self.center.provider(&provider_id) {
            self.center.model(&self.center.pick_first(&provider, crate::model::capability::TEXT))
        } else {
            None
        };
        let model = match chosen.filter(Model::is_valid) {
            Some(model) => model,
            None => {
                if !model_id.is_empty() || !provider_id.is_empty() {
                    tracing::warn!(target: crate::log::RUN, provider = %provider_id, model = %model_id, "the summary model is unavailable: the run's own model summarises");
                }
                run_model.clone()
            }
        };
        let wire = wire::for_api(model.api);
        crate::redact::register(&model.token);
        let asked = [Message::new(crate::message::Role::User, context::summary_request(previous, turns))];
        let body = wire.body(&wire::BodyParts { model: &model, dialog_id: "", system: context::SUMMARY_INSTRUCTIONS, messages: &asked, tools: &[], response_schema: None });
        let request = transport::Request {
            base_url: &model.url,
            path: &wire.path(&model),
            query: wire.query(),
            headers: wire.headers(&model),
            keyed: wire.keyed(&model),
            body,
            timeout_ms: model.timeout_ms,
            idle_timeout_ms: model.idle_timeout_ms,
        };
        let summary_failed = |failure: Failure| Failure::new(Kind::ContextOverflow, format!("the summary failed: {}", failure.message(&model.token)));
        let mut response = transport::open(request).await.map_err(summary_failed)?;
        let mut parsed = Vec::new();
        if response.is_json {
            let text = response.read_to_limit(JSON_ANSWER_LIMIT).await.map_err(summary_failed)?;
            parsed = wire.answer(&text);
        } else {
            let mut decoder = crate::sse::SseDecoder::new();
            let mut events = wire.events();
            loop {
                let piece = response.next().await.map_err(summary_failed)?;
                match &piece {
                    Some(bytes) => decoder.feed_named(bytes, |name, data| events.event(name, data, &mut parsed)),
                    None => decoder.finish_named(|name, data| events.event(name, data, &mut parsed)),
                }
                if decoder.pending_bytes() > JSON_ANSWER_LIMIT {
                    return Err(summary_failed(Failure::new(Kind::ProtocolError, "an event too large")));
                }
                if piece.is_none() || parsed.iter().any(|p| matches!(p, Parsed::Done | Parsed::Error(_) | Parsed::Overloaded(_))) {
                    break;
                }
            }
        }
        let mut text = String::new();
        for p in parsed {
            match p {
                Parsed::Text(piece) => text.push_str(&piece),
                Parsed::Chunk(chunk) => text.push_str(chunk.content.as_deref().unwrap_or_default()),
                Parsed::Reasoning(_) | Parsed::Usage(_) => {}
                Parsed::Error(message) | Parsed::Overloaded(message) => return Err(summary_failed(Failure::new(Kind::ServerError, message))),
                Parsed::Done => break,
                Parsed::Ignored => {}
            }
        }
        if text.trim().is_empty() {
            return Err(summary_failed(Failure::new(Kind::ProtocolError, "the summary model answered nothing")));
        }
        Ok(text.trim().to_owned())
    }

    /// One request to `model`; the provider's overflow answer becomes `[ContextOverflow]`, and
    /// the provider's count of a request that succeeded is kept (SPEC §I.4).
    async fn attempt(&self, model: &Model) -> Result<Vec<ToolCall>, AttemptFailure> {
        let wire = wire::for_api(model.api);
        let mut sent = None;
        let mut stream = Stream::default();
        let outcome = self.attempt_once(model, wire, &mut sent, &mut stream).await;
        match outcome {
            Ok(calls) => {
                if let (Some(sent), Some(tokens), Some(dialog)) = (sent, stream.input_tokens, self.ticket.dialog()) {
                    dialog.set_measured(sent.to, tokens, sent.estimated);
                }
                Ok(calls)
            }
            Err(AttemptFailure { failure, streamed: false }) if failure.kind != Kind::ContextOverflow && wire.overflow(&failure) => {
                tracing::warn!(target: crate::log::RUN, model = %model.id, failure = %failure.message(&model.token), "the provider says the request does not fit");
                self.context.lock().unwrap_or_else(|e| e.into_inner()).provider_overflowed = true;
                Err(AttemptFailure { failure: failure.into_overflow(), streamed: false })
            }
            Err(failure) => Err(failure),
        }
    }

    async fn attempt_once(&self, model: &Model, wire: &dyn wire::Wire, sent: &mut Option<Sent>, stream: &mut Stream) -> Result<Vec<ToolCall>, AttemptFailure> {
        let aborted = || AttemptFailure { failure: Failure::new(Kind::Aborted, "Run aborted."), streamed: true };
        self.prepare_mcp().await;
        crate::redact::register(&model.token);
        let prepared = self.body(model, wire).await.map_err(|failure| AttemptFailure { failure, streamed: false })?.ok_or_else(aborted)?;
        *sent = prepared.sent;
        let body = prepared.body;
        let request = transport::Request {
            base_url: &model.url,
            path: &wire.path(model),
            query: wire.query(),
            headers: wire.headers(model),
            keyed: wire.keyed(model),
            body,
            timeout_ms: model.timeout_ms,
            idle_timeout_ms: model.idle_timeout_ms,
        };
        let mut response = transport::open(request).await.map_err(|failure| AttemptFailure { failure, streamed: false })?;
        if response.is_json {
            let text = response
                .read_to_limit(JSON_ANSWER_LIMIT)
                .await
                .map_err(|failure| AttemptFailure { failure, streamed: false })?;
            let answer = wire.answer(&text);
            if answer.is_empty() {
                return Err(AttemptFailure { failure: response.unreadable(), streamed: false });
            }
            self.apply(stream, wire, answer)
                .map_err(|failure| AttemptFailure { failure, streamed: stream.streamed })?
                .ok_or_else(aborted)?;
            return Ok(std::mem::take(&mut stream.tool_calls).finish());
        }
        let mut decoder = crate::sse::SseDecoder::new();
        let mut events = wire.events();
        let mut pending = Vec::new();
        let mut any_event = false;
        loop {
            let piece = match response.next().await {
                Ok(piece) => piece,
                Err(failure) => return Err(AttemptFailure { failure, streamed: stream.streamed }),
            };
            match &piece {
                Some(bytes) => decoder.feed_named(bytes, |name, data| events.event(name, data, &mut pending)),
                None => decoder.finish_named(|name, data| events.event(name, data, &mut pending)),
            }
            if decoder.pending_bytes() > JSON_ANSWER_LIMIT {
                let failure = Failure::new(Kind::ProtocolError, format!("an event of more than {} MiB", JSON_ANSWER_LIMIT >> 20));
                return Err(AttemptFailure { failure, streamed: stream.streamed });
            }
            if !pending.is_empty() {
                // An event with data: comments and empty events are not progress (SPEC §H.1.7).
                response.progressed();
                any_event = true;
            }
            let done = self
                .apply(stream, wire, pending.drain(..))
                .map_err(|failure| AttemptFailure { failure, streamed: stream.streamed })?
                .ok_or_else(aborted)?;
            if piece.is_none() && !any_event {
                // An HTML page, a captive portal, an unreadable encoding (SPEC §H.1.6).
                return Err(AttemptFailure { failure: response.unreadable(), streamed: false });
            }
            if !done
                && piece.is_none()
                && let Some(why) = events.end()
            {
                return Err(AttemptFailure { failure: Failure::new(Kind::ProtocolError, why), streamed: stream.streamed });
            }
            if done || piece.is_none() {
                if piece.is_some() {
                    response.finish_in_background();
                }
                return Ok(std::mem::take(&mut stream.tool_calls).finish());
            }
        }
    }

    /// Applies parsed chunks to the dialog in one transition (usage in `wire`'s terms and the
    /// normalised ones). Ok(Some(done)) tells whether `[DONE]` was seen; Ok(None) that the
    /// run is no longer current.
    fn apply(&self, stream: &mut Stream, wire: &dyn wire::Wire, chunks: impl IntoIterator<Item = Parsed>) -> Result<Option<bool>, Failure> {
        let mut outcome = Ok(false);
        let mut usage = None;
        let chunks = chunks.into_iter();
        let mut pieces = Vec::with_capacity(chunks.size_hint().0);
        'chunks: for parsed in chunks {
            match parsed {
                Parsed::Done => {
                    outcome = Ok(true);
                    break;
                }
                Parsed::Error(message) => {
                    outcome = Err(Failure::new(Kind::ServerError, message));
                    break;
                }
                Parsed::Overloaded(message) => {
                    outcome = Err(Failure::overloaded(message));
                    break;
                }
                Parsed::Ignored => {}
                Parsed::Text(text) => pieces.push(Piece::Content(text)),
                Parsed::Reasoning(text) => pieces.push(Piece::Reasoning(text)),
                Parsed::Usage(u) => usage = Some(u),
                Parsed::Chunk(c) => {
                    let c = *c;
                    if let Some(reasoning) = c.reasoning {
                        pieces.push(Piece::Reasoning(reasoning));
                    }
                    if let Some(content) = c.content {
                        pieces.push(Piece::Content(content));
                    }
                    if let Some(block) = c.thinking_block {
                        pieces.push(Piece::Thinking(block));
                    }
                    for delta in &c.tool_calls {
                        if let Err(limit) = stream.tool_calls.add(delta) {
                            outcome = Err(Failure::new(Kind::ProtocolError, limit));
                            stream.streamed = true;
                            break 'chunks;
                        }
                    }
                    stream.streamed |= !c.tool_calls.is_empty();
                    if c.usage.is_some() {
                        usage = c.usage;
                    }
                }
            }
        }
        // Read and normalised once per network read, not per chunk: Gemini repeats its usage in
        // each.
        let usage = usage.and_then(|raw| raw.value()).map(|raw| wire::normalised_usage(wire, raw));
        if let Some(input) = usage.as_ref().and_then(|u| u.get("inputTokens")).and_then(Value::as_i64).filter(|n| *n > 0) {
            stream.input_tokens = Some(input);
        }
        if let Some(usage) = &usage {
            tracing::trace!(target: crate::log::STREAM, usage = %usage, "usage");
        }
        stream.streamed |= !pieces.is_empty();
        if pieces.is_empty() && usage.is_none() {
            return outcome.map(Some);
        }
        if self.ticket.append_stream(pieces, usage) { outcome.map(Some) } else { Ok(None) }
    }

    /// Connects the MCP servers the dialog uses (SPEC §E.11); an unreachable one is reported
    /// once per run and its tools are left out.
    async fn prepare_mcp(&self) {
        let Some(dialog) = self.ticket.dialog() else { return };
        let own = dialog.mcps();
        drop(dialog);
        let center: Vec<crate::mcp::Mcp> = self.center.read().mcps.values().cloned().collect();
        let servers = crate::mcp_client::active_servers(&own, &center);
        self.mcp
            .prepare(&servers, &self.center, |server, message| {
                let message = crate::redact::redact(&message).into_owned();
                tracing::warn!(target: crate::log::MCP, server, failure = %message, "MCP server left out of the run");
                self.ticket.emit(Event::McpFailed { server: server.to_owned(), message });
            })
            .await;
    }

    /// The Tool message of a call: a function's JSON result, else an MCP tool's result (SPEC
    /// §E.11, §H.4.3), else the unknown-tool error.
    async fn tool_result(&self, call: &ToolCall) -> ToolOutput {
        let is_function = self.ticket.dialog().is_some_and(|d| d.function(&call.name).is_some());
        if !is_function && let Some(target) = self.mcp.target(&call.name) {
            let arguments = match parse_arguments(&call.arguments) {
                Ok(arguments) => arguments,
                Err(error) => return json!({"error": error}).to_string().into(),
            };
            let on_progress = |p: Progress| {
                self.ticket.emit(Event::McpProgress {
                    server: target.server.clone(),
                    tool: target.tool.clone(),
                    progress: p.progress,
                    total: p.total.unwrap_or(0.0),
                    message: p.message.unwrap_or_default(),
                });
            };
            let asker = server_requests::RunAsker {
                ticket: self.ticket.clone(),
                center: self.center.clone(),
                server: target.server.clone(),
                sampling_provider_id: target.sampling_provider_id.clone(),
            };
            let watch = Watch { limit: target.limit, on_progress: &on_progress, asker: Some(Arc::new(asker)) };
            return target.connection.call(&target.tool, arguments, &watch).await;
        }
        self.invoke(call).await.to_string().into()
    }

    /// Calls the tool the model asked for and returns its result (errors as `{"error": …}`).
    async fn invoke(&self, call: &ToolCall) -> Value {
        let Some(dialog) = self.ticket.dialog() else {
            return json!({"error": "the dialog is gone"});
        };
        let Some(function) = dialog.function(&call.name) else {
            return json!({"error": format!("unknown tool {}", call.name)});
        };
        let arguments = match parse_arguments(&call.arguments) {
            Ok(arguments) => arguments,
            Err(error) => return json!({"error": error}),
        };
        let context = dialog.host_context();
        drop(dialog);
        let (reply, answer) = ToolReply::new(&call.name);
        function.invoke(arguments, context, reply);
        answer.await.unwrap_or_else(|_| json!({"error": format!("tool {} returned no result", call.name)}))
    }
}

/// 1 s × 2^(pass − 1), ±20 % so that many clients turned away together do not return together.
fn backoff(pass: i32) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    let base = 1000.0 * 2f64.powi(pass.clamp(1, 20) - 1);
    // RandomState is seeded per instance: a cheap random number without another dependency.
    let random = std::collections::hash_map::RandomState::new().build_hasher().finish();
    let jitter = (random % 4001) as f64 / 10_000.0 - 0.2;
    Duration::from_millis((base * (1.0 + jitter)) as u64)
}

/// What one attempt has received so far.
#[derive(Default)]
struct Stream {
    tool_calls: ToolCallAccumulator,
    /// Whether any text, reasoning or tool call arrived (after that, no fallback).
    streamed: bool,
    /// The prompt's tokens as the provider counted them, when it said.
    input_tokens: Option<i64>,
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
    fn backoff_doubles_within_its_jitter() {
        for (pass, base) in [(1, 1000.0), (2, 2000.0), (3, 4000.0)] {
            for _ in 0..50 {
                let ms = backoff(pass).as_millis() as f64;
                assert!((base * 0.8..=base * 1.2).contains(&ms), "pass {pass}: {ms}");
            }
        }
    }

    #[test]
    fn arguments_must_be_an_object() {
        assert_eq!(parse_arguments("").unwrap(), json!({}));
        assert_eq!(parse_arguments(r#"{"a":1}"#).unwrap(), json!({"a": 1}));
        assert!(parse_arguments("[1]").unwrap_err().contains("not a JSON object"));
        assert!(parse_arguments("{oops").unwrap_err().contains("not valid JSON"));
    }
}
