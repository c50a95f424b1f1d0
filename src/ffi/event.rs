//! Events for C: one callback per dialog, called with batches of `ViEvent`s, one per Qt
//! signal; and one per Center, called with batches of `ViCenterEvent`s (its dialogs coming and
//! going).

use super::string::ViStr;
use super::user_data::{UserData, ViUserDataDestroy};
use crate::event::{CenterEvent, CenterSink, Event, EventSink};
use std::ffi::c_void;

/// Which signal an event stands for.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViEventKind {
    /// `index` is the new message's position.
    MessageAppended = 1,
    StreamBegan = 2,
    /// `text` is the piece of answer.
    StreamDelta = 3,
    /// `text` is the piece of reasoning.
    StreamReasoning = 4,
    /// `text` is the full content of the round.
    StreamEnded = 5,
    /// `text` is the failure message (`[Kind] …`).
    RunFailed = 6,
    /// `from_model_id` failed with `text` as the reason; `to_model_id` is tried next.
    ModelFallback = 7,
    /// `server_name` could not be used; `text` says why.
    McpFailed = 8,
    /// Every model failed with `text` as the last reason; pass `attempt` (1, 2, …) over the
    /// provider's models starts after `delay_ms`.
    Retrying = 9,
    /// The run's last event (SPEC §H.3.1): after the final `StreamEnded` or `RunFailed`,
    /// exactly once per `vi_dialog_run`.
    RunFinished = 10,
    /// The run waits for `vi_dialog_approve_tool_call` / `vi_dialog_reject_tool_call` on
    /// `call_id` (`tool_name`, `text` = its arguments as the model wrote them).
    ToolApprovalRequested = 11,
    /// Call `call_id` of `tool_name` begins; `text` is its arguments.
    ToolCallStarted = 12,
    /// Call `call_id` of `tool_name` ended; `text` is its result (the Tool message content).
    ToolCallFinished = 13,
    /// The messages changed other than by an append (clear, truncate, from JSON, a copy into
    /// the dialog): read them again.
    MessagesReset = 14,
}

/// One event. Every view lives only during the callback; fields that do not apply to the
/// kind are empty (and `index` is -1).
#[repr(C)]
pub struct ViEvent {
    /// Which signal.
    pub kind: ViEventKind,
    /// `MessageAppended` only: the new message's position.
    pub index: i64,
    /// The kind's text (see `ViEventKind`).
    pub text: ViStr,
    /// `ModelFallback` only: the model that failed.
    pub from_model_id: ViStr,
    /// `ModelFallback` only: the model tried next.
    pub to_model_id: ViStr,
    /// `McpFailed` only: the server.
    pub server_name: ViStr,
    /// `Retrying` only (else 0).
    pub attempt: i32,
    /// `Retrying` only (else 0).
    pub delay_ms: i32,
    /// The tool call events only (else empty).
    pub call_id: ViStr,
    /// The tool call events only (else empty).
    pub tool_name: ViStr,
}

/// Receives a dialog's events, in order, as batches: `events[0..count]` (`count` ≥ 1) are the
/// events of one change — one edit, or every chunk of one network read during a run — so a
/// host can take its lock and wake its thread once per batch. The array and its views live only
/// during the call. Batches arrive in the order the changes happened, one at a time. Fires on
/// the thread that caused the events — the caller's thread for direct edits
/// (`vi_dialog_append_message`, …) and for early run failures, a library thread during a run —
/// unless another thread is delivering this dialog's events at that moment: then that thread
/// delivers them, after the ones before them (so does a callback that edits the dialog: its
/// edit's events follow once it returns). Never called with a library lock held, so it may call
/// back into the dialog; it must not throw or unwind, and must not block for long (the library
/// thread serves every dialog).
pub type ViEventCallback = Option<unsafe extern "C" fn(user_data: *mut c_void, events: *const ViEvent, count: usize)>;

// SAFETY (for the sinks below): the callback contracts (header) require the callbacks to be
// callable from any thread.
pub(crate) struct CEventSink {
    callback: unsafe extern "C" fn(*mut c_void, *const ViEvent, usize),
    user_data: UserData,
}

impl CEventSink {
    pub fn new(
        callback: unsafe extern "C" fn(*mut c_void, *const ViEvent, usize),
        user_data: *mut c_void,
        destroy: ViUserDataDestroy,
    ) -> CEventSink {
        CEventSink { callback, user_data: UserData::new(user_data, destroy) }
    }
}

impl EventSink for CEventSink {
    fn emit(&self, events: &[Event]) {
        let batch: Vec<ViEvent> = events.iter().map(ViEvent::of).collect();
        // SAFETY: per the callback contract; the array and its views outlive the call.
        unsafe { (self.callback)(self.user_data.pointer(), batch.as_ptr(), batch.len()) };
    }
}

impl ViEvent {
    /// A view of `event`, valid while it lives.
    fn of(event: &Event) -> ViEvent {
        let none = ViStr::default();
        let mut e = ViEvent {
            kind: ViEventKind::StreamBegan,
            index: -1,
            text: none,
            from_model_id: none,
            to_model_id: none,
            server_name: none,
            attempt: 0,
            delay_ms: 0,
            call_id: none,
            tool_name: none,
        };
        match event {
            Event::MessageAppended(index) => {
                e.kind = ViEventKind::MessageAppended;
                e.index = *index as i64;
            }
            Event::StreamBegan => {}
            Event::StreamDelta(text) => (e.kind, e.text) = (ViEventKind::StreamDelta, ViStr::of(text)),
            Event::StreamReasoning(text) => (e.kind, e.text) = (ViEventKind::StreamReasoning, ViStr::of(text)),
            Event::StreamEnded(text) => (e.kind, e.text) = (ViEventKind::StreamEnded, ViStr::of(text)),
            Event::RunFailed(text) => (e.kind, e.text) = (ViEventKind::RunFailed, ViStr::of(text)),
            Event::ModelFallback { from, to, reason } => {
                e.kind = ViEventKind::ModelFallback;
                e.from_model_id = ViStr::of(from);
                e.to_model_id = ViStr::of(to);
                e.text = ViStr::of(reason);
            }
            Event::McpFailed { server, message } => {
                e.kind = ViEventKind::McpFailed;
                e.server_name = ViStr::of(server);
                e.text = ViStr::of(message);
            }
            Event::Retrying { attempt, delay_ms, reason } => {
                e.kind = ViEventKind::Retrying;
                (e.attempt, e.delay_ms) = (*attempt, *delay_ms);
                e.text = ViStr::of(reason);
            }
            Event::RunFinished => e.kind = ViEventKind::RunFinished,
            Event::MessagesReset => e.kind = ViEventKind::MessagesReset,
            Event::ToolApprovalRequested { call_id, tool_name, arguments } => {
                e.kind = ViEventKind::ToolApprovalRequested;
                (e.call_id, e.tool_name, e.text) = (ViStr::of(call_id), ViStr::of(tool_name), ViStr::of(arguments));
            }
            Event::ToolCallStarted { call_id, tool_name, arguments } => {
                e.kind = ViEventKind::ToolCallStarted;
                (e.call_id, e.tool_name, e.text) = (ViStr::of(call_id), ViStr::of(tool_name), ViStr::of(arguments));
            }
            Event::ToolCallFinished { call_id, tool_name, result } => {
                e.kind = ViEventKind::ToolCallFinished;
                (e.call_id, e.tool_name, e.text) = (ViStr::of(call_id), ViStr::of(tool_name), ViStr::of(result));
            }
        }
        e
    }
}

/// What changed in a Center's list of dialogs (extension, SPEC §H.5.2).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViCenterEventKind {
    /// Dialog `dialog_id` was registered (created, restored, cloned, branched for regenerate).
    DialogAdded = 1,
    /// Dialog `dialog_id` was unregistered: removed, or replaced by one restored under the same
    /// id (`DialogAdded` of that id follows in the same batch).
    DialogRemoved = 2,
    /// `vi_center_from_json` replaced every dialog (`dialog_id` empty): read the list again.
    DialogsReset = 3,
}

/// One Center event; `dialog_id` lives only during the callback.
#[repr(C)]
pub struct ViCenterEvent {
    /// What changed.
    pub kind: ViCenterEventKind,
    /// The dialog it concerns (empty for `DialogsReset`).
    pub dialog_id: ViStr,
}

/// Receives a Center's events as batches, `events[0..count]` (`count` ≥ 1) being those of one
/// change, in the order the changes happened. Fires on the thread that made the change —
/// unless another thread is delivering this Center's events at that moment: then that one
/// delivers them, after its own. Never called with a library lock held, so it may call back
/// into the Center (e.g. `vi_center_get_dialog`); it must not throw or unwind.
pub type ViCenterEventCallback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, events: *const ViCenterEvent, count: usize)>;

pub(crate) struct CCenterSink {
    callback: unsafe extern "C" fn(*mut c_void, *const ViCenterEvent, usize),
    user_data: UserData,
}

impl CCenterSink {
    pub fn new(
        callback: unsafe extern "C" fn(*mut c_void, *const ViCenterEvent, usize),
        user_data: *mut c_void,
        destroy: ViUserDataDestroy,
    ) -> CCenterSink {
        CCenterSink { callback, user_data: UserData::new(user_data, destroy) }
    }
}

impl CenterSink for CCenterSink {
    fn emit(&self, events: &[CenterEvent]) {
        let batch: Vec<ViCenterEvent> = events
            .iter()
            .map(|event| match event {
                CenterEvent::DialogAdded(id) => {
                    ViCenterEvent { kind: ViCenterEventKind::DialogAdded, dialog_id: ViStr::of(id) }
                }
                CenterEvent::DialogRemoved(id) => {
                    ViCenterEvent { kind: ViCenterEventKind::DialogRemoved, dialog_id: ViStr::of(id) }
                }
                CenterEvent::DialogsReset => {
                    ViCenterEvent { kind: ViCenterEventKind::DialogsReset, dialog_id: ViStr::default() }
                }
            })
            .collect();
        // SAFETY: per the callback contract; the array and its views outlive the call.
        unsafe { (self.callback)(self.user_data.pointer(), batch.as_ptr(), batch.len()) };
    }
}
