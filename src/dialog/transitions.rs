//! The run's side of a dialog (SPEC §D.1, §E.6, §F): the named transitions through which
//! `crate::run` changes it. This is the one place that sets or clears a dialog's run and its
//! streaming state during a run. Every transition takes the run's ticket and does nothing once
//! that run is no longer the dialog's current one (aborted, replaced, or the dialog destroyed),
//! so whatever a cancelled run was awaiting cannot reach the dialog.

use super::{ActiveRun, Dialog, WeakDialog};
use crate::event::{DeltaText, Event};
use crate::message::{Message, Role, ToolOutput};
use crate::text::Text;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

pub(crate) const ALREADY_RUNNING: &str = "Dialog is already running.";
const ABORTED: &str = "[Aborted] Run aborted.";

/// The answer of a tool call that `stop()` ended before it had one (SPEC §H.3.2).
fn stopped() -> String {
    json!({"error": "stopped by the user"}).to_string()
}

/// The host's answer to `ToolApprovalRequested` (SPEC §H.3.4).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decision {
    Approved,
    Rejected(String),
}

/// One tool call of the answer being worked on.
pub(crate) struct PendingCall {
    id: String,
    name: String,
    arguments: String,
    started: bool,
    /// Known once the call ended (or was declined); appended in call order.
    result: Option<ToolOutput>,
    /// Set while the call waits for the host's decision.
    approval: Option<oneshot::Sender<Decision>>,
}

impl PendingCall {
    fn answer(&self, output: ToolOutput) -> Message {
        Message {
            role: Role::Tool,
            content: output.content.into(),
            name: self.name.clone(),
            tool_call_id: self.id.clone(),
            images: output.images,
            ..Message::default()
        }
    }
}

/// A tool call as the run hands it to `end_round`.
pub(crate) struct CallSpec<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub arguments: &'a str,
}

/// One piece of a streamed answer, in the order it arrived.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    Content(DeltaText),
    Reasoning(DeltaText),
    /// A complete thinking block (JSON) to keep with the answer (SPEC §H.2.2).
    Thinking(String),
}

/// How a run ends.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RunEnd {
    /// The last round had no tool calls: its text becomes the assistant message.
    Answered,
    /// The run failed with this message (`[Kind] …`); the round's text is discarded.
    Failed(String),
    /// The model still asked for tools after the last allowed round (SPEC §D.1.6).
    TooManyRounds,
}

/// A run's claim on its dialog, handed out by `Dialog::start_run`. Holds the dialog weakly:
/// a run never keeps its dialog alive.
#[derive(Clone)]
pub(crate) struct RunTicket {
    dialog: WeakDialog,
    generation: u64,
}

impl Dialog {
    /// Starts a run: the first round begins (`StreamBegan`). None, after `RunFailed`, when the
    /// dialog is already running or streaming by hand. `cancel` is cancelled by an abort or
    /// when the dialog is destroyed.
    pub(crate) fn start_run(&self, cancel: CancellationToken) -> Option<RunTicket> {
        static GENERATION: AtomicU64 = AtomicU64::new(1);
        let generation = GENERATION.fetch_add(1, Ordering::Relaxed);
        let started = self.update(|s, events| {
            if s.streaming || s.run.is_some() {
                events.extend([Event::RunFailed(ALREADY_RUNNING.to_owned()), Event::RunFinished]);
                return false;
            }
            s.run = Some(ActiveRun { generation, cancel, calls: Vec::new(), appended: 0, elicitations: Vec::new() });
            s.last_usage = None;
            s.usage_unreported = false;
            s.begin_assistant_message(events);
            true
        });
        started.then(|| RunTicket { dialog: self.downgrade(), generation })
    }

    /// A run that could not start (SPEC §D.1.1–2): `RunFailed`, then `RunFinished`.
    pub(crate) fn fail_early(&self, message: &str) {
        self.emit_all(vec![Event::RunFailed(message.to_owned()), Event::RunFinished]);
    }

    /// Ends the run in progress, discarding its round: synchronous, so `is_streaming()` is
    /// false when this returns (SPEC §F).
    pub(crate) fn abort_run(&self) {
        self.update(|s, events| {
            if let Some(run) = s.run.take() {
                run.cancel.cancel();
                s.streaming = false;
                s.streaming_content.clear();
                s.usage_unreported = false;
                events.extend([Event::RunFailed(ABORTED.to_owned()), Event::RunFinished]);
            }
        });
    }

    /// Ends the run in progress keeping what was said (SPEC §H.3.2): a streaming round ends
    /// as if the server had finished (its partial tool calls were never recorded); while tools
    /// run, every call without a Tool message gets one — its result when it has one, else
    /// "stopped by the user". Synchronous like `abort_run`.
    pub(crate) fn stop_run(&self) {
        self.update(|s, events| {
            let Some(run) = s.run.take() else { return };
            run.cancel.cancel();
            if s.streaming {
                s.end_assistant_message(String::new(), events);
            } else {
                for call in &run.calls[run.appended..] {
                    let content = match &call.result {
                        Some(result) => result.clone(),
                        None if call.started => {
                            events.push(finished(call, stopped()));
                            stopped().into()
                        }
                        None => stopped().into(),
                    };
                    s.push_message(call.answer(content), events);
                }
            }
            events.push(Event::RunFinished);
        });
    }

    /// Answers a call waiting for approval; false when no call of the current round waits
    /// under that id (already decided, never asked, or the run is over).
    pub(crate) fn decide_tool_call(&self, call_id: &str, decision: Decision) -> bool {
        self.update(|s, _| {
            let Some(run) = s.run.as_mut() else { return false };
            let waiting = run.calls.iter_mut().find(|c| c.id == call_id && c.approval.is_some());
            match waiting.and_then(|c| c.approval.take()) {
                Some(sender) => sender.send(decision).is_ok(),
                None => false,
            }
        })
    }
}

/// What an MCP elicitation asks of the user.
pub(crate) enum Elicitation {
    /// A form matching `schema`.
    Form { schema: Value },
    /// To open `url`.
    Url { url: String },
}

/// The host's answer to an MCP elicitation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Elicited {
    pub action: String,
    pub content: Option<Value>,
}

impl Dialog {
    pub(super) fn answer_elicitation(&self, request_id: &str, action: &str, content: Option<Value>) -> bool {
        if !matches!(action, "accept" | "decline" | "cancel") {
            return false;
        }
        let content = content.filter(|_| action == "accept");
        self.update(|s, _| {
            let Some(run) = s.run.as_mut() else { return false };
            let Some(at) = run.elicitations.iter().position(|(id, _)| id == request_id) else { return false };
            let (_, sender) = run.elicitations.remove(at);
            sender.send(Elicited { action: action.to_owned(), content }).is_ok()
        })
    }
}

fn finished(call: &PendingCall, result: String) -> Event {
    Event::ToolCallFinished { call_id: call.id.clone(), tool_name: call.name.clone(), result }
}

impl RunTicket {
    /// Applies `change` while this run is the dialog's current one; None otherwise, and then
    /// the run must stop.
    fn with<R>(&self, change: impl FnOnce(&mut super::State, &mut Vec<Event>) -> R) -> Option<R> {
        let dialog = self.dialog.upgrade()?;
        dialog.update(|s, events| s.runs(self.generation).then(|| change(s, events)))
    }

    /// The dialog, to read what a request needs; None once it is gone.
    pub fn dialog(&self) -> Option<Dialog> {
        self.dialog.upgrade()
    }

    /// Announces something about the run (a fallback, an MCP server that failed).
    pub fn emit(&self, event: Event) -> bool {
        self.with(|_, events| events.push(event)).is_some()
    }

    /// Adds what one network read brought: the pieces in order, and the round's usage when it
    /// came (it replaces the previous one).
    pub fn append_stream(&self, pieces: Vec<Piece>, usage: Option<Value>) -> bool {
        self.with(|s, events| {
            events.reserve(pieces.len());
            for piece in pieces {
                match piece {
                    Piece::Reasoning(text) => {
                        s.reasoning_content.push_str(&text);
                        events.push(Event::StreamReasoning(text));
                    }
                    Piece::Content(text) => {
                        s.streaming_content.push_str(&text);
                        events.push(Event::StreamDelta(text));
                    }
                    Piece::Thinking(block) => s.thinking_blocks.push(block),
                }
            }
            if usage.is_some() {
                s.last_usage = usage;
                s.usage_unreported = true;
            }
        })
        .is_some()
    }

    /// Forgets the usage of an attempt that failed: the round's usage is that of the model
    /// that answers it (SPEC §I.2.2).
    pub fn forget_usage(&self) -> bool {
        self.with(|s, _| {
            s.last_usage = None;
            s.usage_unreported = false;
        })
        .is_some()
    }

    /// Ends a round that asked for tools: the assistant message with its `tool_calls` (JSON
    /// text) is appended, then `StreamEnded`; `calls` (in call order) are the round's pending
    /// calls, addressed by position from now on.
    pub fn end_round(&self, tool_calls: String, calls: &[CallSpec]) -> bool {
        self.with(|s, events| {
            s.end_assistant_message(tool_calls, events);
            let run = s.run.as_mut().expect("`with` runs only for the current run");
            run.calls = calls
                .iter()
                .map(|c| PendingCall {
                    id: c.id.to_owned(),
                    name: c.name.to_owned(),
                    arguments: c.arguments.to_owned(),
                    started: false,
                    result: None,
                    approval: None,
                })
                .collect();
            run.appended = 0;
        })
        .is_some()
    }

    /// Asks the host about call `index` (`ToolApprovalRequested`); the receiver yields its
    /// decision, or fails when the run ends first.
    pub fn request_approval(&self, index: usize) -> Option<oneshot::Receiver<Decision>> {
        self.with(|s, events| {
            let call = s.run.as_mut()?.calls.get_mut(index)?;
            let (sender, receiver) = oneshot::channel();
            call.approval = Some(sender);
            events.push(Event::ToolApprovalRequested {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            Some(receiver)
        })
        .flatten()
    }

    /// Asks the host to answer an MCP server's elicitation (`McpElicitationRequested`, or
    /// `McpUrlElicitationRequested`); the receiver yields the answer, or fails when the run
    /// ends first. None when the run is over.
    pub fn request_elicitation(&self, server: &str, message: &str, what: Elicitation) -> Option<oneshot::Receiver<Elicited>> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        self.with(|s, events| {
            let run = s.run.as_mut()?;
            let request_id = format!("elicitation-{}", NEXT.fetch_add(1, Ordering::Relaxed));
            let (sender, receiver) = oneshot::channel();
            run.elicitations.push((request_id.clone(), sender));
            let (server, message) = (server.to_owned(), message.to_owned());
            events.push(match what {
                Elicitation::Form { schema } => Event::McpElicitationRequested { request_id, server, message, schema },
                Elicitation::Url { url } => Event::McpUrlElicitationRequested { request_id, server, message, url },
            });
            Some(receiver)
        })
        .flatten()
    }

    /// Call `index` begins (`ToolCallStarted`).
    pub fn start_tool_call(&self, index: usize) -> bool {
        self.with(|s, events| {
            let Some(call) = s.run.as_mut().and_then(|r| r.calls.get_mut(index)) else { return false };
            call.started = true;
            events.push(Event::ToolCallStarted {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            true
        })
        .unwrap_or(false)
    }

    /// Call `index` has its result (`ToolCallFinished` when it had started); every call up to
    /// the first without a result gets its Tool message, so they are appended in call order
    /// whatever order the calls end in (SPEC §H.3.5).
    pub fn finish_tool_call(&self, index: usize, result: impl Into<ToolOutput>) -> bool {
        let result = result.into();
        self.with(|s, events| {
            let Some(run) = s.run.as_mut() else { return false };
            let Some(call) = run.calls.get_mut(index).filter(|c| c.result.is_none()) else { return false };
            if call.started {
                events.push(finished(call, result.content.clone()));
            }
            call.result = Some(result);
            let mut ready = Vec::new();
            while let Some(call) = run.calls.get_mut(run.appended) {
                let Some(result) = call.result.clone() else { break };
                ready.push(call.answer(result));
                run.appended += 1;
            }
            for message in ready {
                s.push_message(message, events);
            }
            true
        })
        .unwrap_or(false)
    }

    /// Starts the next round (`StreamBegan`).
    pub fn begin_round(&self) -> bool {
        self.with(|s, events| {
            if let Some(run) = s.run.as_mut() {
                run.calls.clear();
                run.appended = 0;
            }
            s.begin_assistant_message(events)
        })
        .is_some()
    }

    /// Ends the run.
    pub fn finish(&self, end: RunEnd) {
        self.with(|s, events| {
            s.run = None;
            match end {
                RunEnd::Answered => s.end_assistant_message(String::new(), events),
                RunEnd::Failed(message) => {
                    s.streaming = false;
                    s.streaming_content.clear();
                    s.report_usage(events);
                    events.push(Event::RunFailed(message));
                }
                RunEnd::TooManyRounds => {
                    s.streaming = false;
                    s.report_usage(events);
                    events.push(Event::StreamEnded(Text::from(std::mem::take(&mut s.streaming_content))));
                    events.push(Event::RunFailed("Too many tool call rounds.".to_owned()));
                }
            }
            events.push(Event::RunFinished);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{Recorder, dialog_with_recorder};
    use super::*;
    use crate::message::Role;

    impl Recorder {
        fn take(&self) -> Vec<Event> {
            std::mem::take(&mut self.0.lock().unwrap())
        }
    }

    #[test]
    fn a_tool_round_then_an_answer() {
        let (d, r) = dialog_with_recorder();
        let run = d.start_run(CancellationToken::new()).unwrap();
        assert!(d.is_streaming());
        assert!(run.append_stream(vec![Piece::Reasoning("think".into()), Piece::Content("Let me".into())], None));
        // Usage that grows during the round is announced once, at its end.
        assert!(run.append_stream(vec![], Some(serde_json::json!({"total_tokens": 1}))));
        assert!(run.append_stream(vec![], Some(serde_json::json!({"total_tokens": 2}))));
        assert!(run.end_round(r#"[{"id":"c1"}]"#.into(), &[CallSpec { id: "c1", name: "clock", arguments: "{}" }]));
        assert!(run.start_tool_call(0));
        assert!(run.finish_tool_call(0, "12:00".to_owned()));
        assert!(run.begin_round());
        assert!(run.append_stream(vec![Piece::Content("It is noon.".into())], Some(serde_json::json!({"total_tokens": 3}))));
        run.finish(RunEnd::Answered);
        assert_eq!(
            r.take(),
            vec![
                Event::StreamBegan,
                Event::StreamReasoning("think".into()),
                Event::StreamDelta("Let me".into()),
                Event::MessageAppended(0),
                Event::UsageUpdated(serde_json::json!({"total_tokens": 2})),
                Event::StreamEnded("Let me".into()),
                Event::ToolCallStarted { call_id: "c1".into(), tool_name: "clock".into(), arguments: "{}".into() },
                Event::ToolCallFinished { call_id: "c1".into(), tool_name: "clock".into(), result: "12:00".into() },
                Event::MessageAppended(1),
                Event::StreamBegan,
                Event::StreamDelta("It is noon.".into()),
                Event::MessageAppended(2),
                Event::UsageUpdated(serde_json::json!({"total_tokens": 3})),
                Event::StreamEnded("It is noon.".into()),
                Event::RunFinished,
            ]
        );
        let messages = d.messages();
        assert_eq!((messages[0].tool_calls.as_str(), messages[0].reasoning.as_str()), (r#"[{"id":"c1"}]"#, "think"));
        assert_eq!((messages[1].role, messages[1].name.as_str(), messages[1].tool_call_id.as_str()), (Role::Tool, "clock", "c1"));
        assert_eq!(d.last_usage(), Some(serde_json::json!({"total_tokens": 3})));
        assert!(!d.is_streaming());
        assert!(!run.begin_round(), "the ticket of a finished run changes nothing");
        assert_eq!((r.take(), d.is_streaming()), (vec![], false));
    }

    #[test]
    fn a_second_run_is_refused_while_one_is_in_progress() {
        let (d, r) = dialog_with_recorder();
        let _run = d.start_run(CancellationToken::new()).unwrap();
        r.take();
        assert!(d.start_run(CancellationToken::new()).is_none());
        assert_eq!(r.take(), vec![Event::RunFailed(ALREADY_RUNNING.into()), Event::RunFinished]);
        let (manual, r) = dialog_with_recorder();
        manual.begin_assistant_message();
        r.take();
        assert!(manual.start_run(CancellationToken::new()).is_none());
        assert_eq!(r.take(), vec![Event::RunFailed(ALREADY_RUNNING.into()), Event::RunFinished]);
    }

    #[test]
    fn an_abort_silences_the_ticket_and_cancels() {
        let (d, r) = dialog_with_recorder();
        let cancel = CancellationToken::new();
        let run = d.start_run(cancel.clone()).unwrap();
        run.append_stream(vec![Piece::Content("partial".into())], None);
        r.take();
        d.abort();
        assert!(cancel.is_cancelled());
        assert!(!d.is_streaming());
        assert_eq!(d.streaming_content(), "");
        assert_eq!(r.take(), vec![Event::RunFailed(ABORTED.into()), Event::RunFinished]);
        assert!(!run.append_stream(vec![Piece::Content("late".into())], None));
        assert!(!run.end_round(String::new(), &[]));
        assert!(!run.begin_round());
        run.finish(RunEnd::Answered);
        assert_eq!((r.take(), d.message_count()), (vec![], 0));
        // a new run is not reachable through the old ticket
        let _new = d.start_run(CancellationToken::new()).unwrap();
        r.take();
        assert!(!run.emit(Event::StreamBegan));
        assert_eq!(r.take(), vec![]);
    }

    #[test]
    fn failures_discard_the_round_and_too_many_rounds_ends_it() {
        let (d, r) = dialog_with_recorder();
        let run = d.start_run(CancellationToken::new()).unwrap();
        run.append_stream(vec![Piece::Content("x".into())], Some(serde_json::json!({"total_tokens": 5})));
        r.take();
        run.finish(RunEnd::Failed("[ServerError] boom".into()));
        let spent = Event::UsageUpdated(serde_json::json!({"total_tokens": 5}));
        assert_eq!(r.take(), vec![spent, Event::RunFailed("[ServerError] boom".into()), Event::RunFinished], "tokens spent are told");
        assert_eq!((d.message_count(), d.streaming_content(), d.is_streaming()), (0, String::new(), false));

        let run = d.start_run(CancellationToken::new()).unwrap();
        run.append_stream(vec![Piece::Content("more".into())], None);
        r.take();
        run.finish(RunEnd::TooManyRounds);
        assert_eq!(
            r.take(),
            vec![Event::StreamEnded("more".into()), Event::RunFailed("Too many tool call rounds.".into()), Event::RunFinished]
        );
        assert_eq!(d.message_count(), 0);
    }

    fn three_calls() -> [CallSpec<'static>; 3] {
        [
            CallSpec { id: "a", name: "fa", arguments: "{}" },
            CallSpec { id: "b", name: "fb", arguments: "{\"x\":1}" },
            CallSpec { id: "c", name: "fc", arguments: "{}" },
        ]
    }

    fn tool_messages(d: &Dialog) -> Vec<(String, String)> {
        d.messages().into_iter().filter(|m| m.role == Role::Tool).map(|m| (m.tool_call_id, m.content.into())).collect()
    }

    #[test]
    fn results_are_appended_in_call_order_whatever_order_they_come_in() {
        let (d, r) = dialog_with_recorder();
        let run = d.start_run(CancellationToken::new()).unwrap();
        assert!(run.end_round("[]".into(), &three_calls()));
        for i in 0..3 {
            assert!(run.start_tool_call(i));
        }
        r.take();
        assert!(run.finish_tool_call(2, "C".to_owned()));
        assert!(run.finish_tool_call(1, "B".to_owned()));
        assert_eq!(d.message_count(), 1, "nothing before the first call's answer");
        assert!(run.finish_tool_call(0, "A".to_owned()));
        assert!(!run.finish_tool_call(0, "again".to_owned()), "one answer per call");
        let finished = |id: &str, result: &str| Event::ToolCallFinished {
            call_id: id.into(),
            tool_name: format!("f{id}"),
            result: result.into(),
        };
        assert_eq!(
            r.take(),
            vec![
                finished("c", "C"),
                finished("b", "B"),
                finished("a", "A"),
                Event::MessageAppended(1),
                Event::MessageAppended(2),
                Event::MessageAppended(3),
            ]
        );
        assert_eq!(tool_messages(&d), [("a".into(), "A".into()), ("b".into(), "B".into()), ("c".into(), "C".into())]);
    }

    #[test]
    fn stop_while_streaming_keeps_the_partial_answer() {
        let (d, r) = dialog_with_recorder();
        let cancel = CancellationToken::new();
        let run = d.start_run(cancel.clone()).unwrap();
        run.append_stream(vec![Piece::Reasoning("hmm".into()), Piece::Content("Half an".into())], None);
        r.take();
        d.stop();
        assert!(cancel.is_cancelled());
        assert!(!d.is_streaming());
        assert_eq!(r.take(), vec![Event::MessageAppended(0), Event::StreamEnded("Half an".into()), Event::RunFinished]);
        let m = d.last_message();
        assert_eq!((m.role, String::from(m.content), m.reasoning.as_str()), (Role::Assistant, "Half an".into(), "hmm"));
        assert!(!run.append_stream(vec![Piece::Content("late".into())], None));
        d.stop();
        assert_eq!(r.take(), vec![], "a stop without a run does nothing");

        let run = d.start_run(CancellationToken::new()).unwrap();
        r.take();
        d.stop();
        assert_eq!(r.take(), vec![Event::StreamEnded(Text::default()), Event::RunFinished], "nothing said: nothing appended");
        assert!(!run.begin_round());
    }

    #[test]
    fn stop_during_tools_answers_every_call_without_one() {
        let (d, r) = dialog_with_recorder();
        let run = d.start_run(CancellationToken::new()).unwrap();
        assert!(run.end_round("[]".into(), &three_calls()));
        assert!(run.start_tool_call(0));
        assert!(run.start_tool_call(1));
        assert!(run.finish_tool_call(1, "B".to_owned())); // done, but waits behind a
        r.take();
        d.stop();
        let stopped = stopped();
        assert_eq!(
            r.take(),
            vec![
                Event::ToolCallFinished { call_id: "a".into(), tool_name: "fa".into(), result: stopped.clone() },
                Event::MessageAppended(1),
                Event::MessageAppended(2),
                Event::MessageAppended(3),
                Event::RunFinished,
            ]
        );
        assert_eq!(tool_messages(&d), [("a".into(), stopped.clone()), ("b".into(), "B".into()), ("c".into(), stopped)]);
        assert!(!d.is_streaming());
        assert!(!run.finish_tool_call(0, "late".to_owned()));
        assert_eq!(d.message_count(), 4);
    }

    #[test]
    fn approval_waits_for_the_hosts_decision_by_call_id() {
        let (d, r) = dialog_with_recorder();
        let run = d.start_run(CancellationToken::new()).unwrap();
        assert!(run.end_round("[]".into(), &three_calls()));
        r.take();
        let mut a = run.request_approval(0).unwrap();
        let mut b = run.request_approval(1).unwrap();
        assert_eq!(
            r.take(),
            vec![
                Event::ToolApprovalRequested { call_id: "a".into(), tool_name: "fa".into(), arguments: "{}".into() },
                Event::ToolApprovalRequested { call_id: "b".into(), tool_name: "fb".into(), arguments: "{\"x\":1}".into() },
            ]
        );
        assert!(!d.approve_tool_call("c"), "never asked");
        assert!(d.reject_tool_call("b", "too risky"));
        assert!(!d.approve_tool_call("b"), "decided already");
        assert!(d.approve_tool_call("a"));
        assert_eq!(a.try_recv().unwrap(), Decision::Approved);
        assert_eq!(b.try_recv().unwrap(), Decision::Rejected("too risky".into()));

        let mut c = run.request_approval(2).unwrap();
        d.abort();
        assert!(c.try_recv().is_err(), "an abort ends the wait");
        assert!(!d.approve_tool_call("c"));
    }

    #[test]
    fn a_destroyed_dialog_cancels_its_run() {
        let (d, _r) = dialog_with_recorder();
        let cancel = CancellationToken::new();
        let run = d.start_run(cancel.clone()).unwrap();
        drop(d);
        assert!(cancel.is_cancelled());
        assert!(run.dialog().is_none());
        assert!(!run.begin_round());
    }
}
