//! The run's side of a dialog (SPEC §D.1, §E.6, §F): the named transitions through which
//! `crate::run` changes it. This is the one place that sets or clears a dialog's run and its
//! streaming state during a run. Every transition takes the run's ticket and does nothing once
//! that run is no longer the dialog's current one (aborted, replaced, or the dialog destroyed),
//! so whatever a cancelled run was awaiting cannot reach the dialog.

use super::{ActiveRun, Dialog, WeakDialog};
use crate::event::Event;
use crate::message::Message;
use crate::text::Text;
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio_util::sync::CancellationToken;

pub(crate) const ALREADY_RUNNING: &str = "Dialog is already running.";
const ABORTED: &str = "[Aborted] Run aborted.";

/// One piece of a streamed answer, in the order it arrived.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    Content(String),
    Reasoning(String),
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
                events.push(Event::RunFailed(ALREADY_RUNNING.to_owned()));
                return false;
            }
            s.run = Some(ActiveRun { generation, cancel });
            s.last_usage = None;
            s.begin_assistant_message(events);
            true
        });
        started.then(|| RunTicket { dialog: self.downgrade(), generation })
    }

    /// A run that could not start (SPEC §D.1.1–2): only `RunFailed`.
    pub(crate) fn fail_early(&self, message: &str) {
        self.emit_all(vec![Event::RunFailed(message.to_owned())]);
    }

    /// Ends the run in progress, discarding its round: synchronous, so `is_streaming()` is
    /// false when this returns (SPEC §F).
    pub(crate) fn abort_run(&self) {
        self.update(|s, events| {
            if let Some(run) = s.run.take() {
                run.cancel.cancel();
                s.streaming = false;
                s.streaming_content.clear();
                events.push(Event::RunFailed(ABORTED.to_owned()));
            }
        });
    }
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
                }
            }
            if usage.is_some() {
                s.last_usage = usage;
            }
        })
        .is_some()
    }

    /// Ends a round that asked for tools: the assistant message with its `tool_calls` (JSON
    /// text) is appended, then `StreamEnded`.
    pub fn end_round(&self, tool_calls: String) -> bool {
        self.with(|s, events| s.end_assistant_message(tool_calls, events)).is_some()
    }

    /// Appends a tool's answer.
    pub fn append_tool_result(&self, message: Message) -> bool {
        self.with(|s, events| s.push_message(message, events)).is_some()
    }

    /// Starts the next round (`StreamBegan`).
    pub fn begin_round(&self) -> bool {
        self.with(|s, events| s.begin_assistant_message(events)).is_some()
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
                    events.push(Event::RunFailed(message));
                }
                RunEnd::TooManyRounds => {
                    s.streaming = false;
                    events.push(Event::StreamEnded(Text::from(std::mem::take(&mut s.streaming_content))));
                    events.push(Event::RunFailed("Too many tool call rounds.".to_owned()));
                }
            }
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
        assert!(run.end_round(r#"[{"id":"c1"}]"#.into()));
        let mut answer = Message::new(Role::Tool, "12:00");
        answer.tool_call_id = "c1".into();
        assert!(run.append_tool_result(answer));
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
                Event::StreamEnded("Let me".into()),
                Event::MessageAppended(1),
                Event::StreamBegan,
                Event::StreamDelta("It is noon.".into()),
                Event::MessageAppended(2),
                Event::StreamEnded("It is noon.".into()),
            ]
        );
        let messages = d.messages();
        assert_eq!((messages[0].tool_calls.as_str(), messages[0].reasoning.as_str()), (r#"[{"id":"c1"}]"#, "think"));
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
        assert_eq!(r.take(), vec![Event::RunFailed(ALREADY_RUNNING.into())]);
        let (manual, r) = dialog_with_recorder();
        manual.begin_assistant_message();
        r.take();
        assert!(manual.start_run(CancellationToken::new()).is_none());
        assert_eq!(r.take(), vec![Event::RunFailed(ALREADY_RUNNING.into())]);
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
        assert_eq!(r.take(), vec![Event::RunFailed(ABORTED.into())]);
        assert!(!run.append_stream(vec![Piece::Content("late".into())], None));
        assert!(!run.end_round(String::new()));
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
        run.append_stream(vec![Piece::Content("x".into())], None);
        r.take();
        run.finish(RunEnd::Failed("[ServerError] boom".into()));
        assert_eq!(r.take(), vec![Event::RunFailed("[ServerError] boom".into())]);
        assert_eq!((d.message_count(), d.streaming_content(), d.is_streaming()), (0, String::new(), false));

        let run = d.start_run(CancellationToken::new()).unwrap();
        run.append_stream(vec![Piece::Content("more".into())], None);
        r.take();
        run.finish(RunEnd::TooManyRounds);
        assert_eq!(r.take(), vec![Event::StreamEnded("more".into()), Event::RunFailed("Too many tool call rounds.".into())]);
        assert_eq!(d.message_count(), 0);
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
