//! Events for C: one callback per dialog, called with batches of `ViEvent`s, one per Qt
//! signal; and one per Center, called with batches of `ViCenterEvent`s (its dialogs coming and
//! going).

use super::string::ViStr;
use super::user_data::{UserData, ViUserDataDestroy};
use crate::event::{CenterEvent, CenterSink, Event, EventSink};
use std::cell::RefCell;
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
    /// A running call of MCP tool `tool_name` (its name on the server) on `server_name`
    /// reported `progress` of `total` (0: unknown); `text` is its message, if any (SPEC §H.4.2).
    McpProgress = 15,
    /// MCP server `server_name` asks the user for input during a tool call (SPEC §H.4.5):
    /// `text` is its message, `json` the JSON Schema of what it asks for, `call_id` the request
    /// id to answer with `vi_dialog_answer_mcp_elicitation`. Declined when the run ends first.
    McpElicitationRequested = 16,
    /// The usage a round reported (SPEC §I.2.2), once at its end: `json` is the object
    /// `vi_dialog_last_usage` gives (the provider's keys, `inputTokens`, `outputTokens`,
    /// `cachedInputTokens`, `cacheWriteTokens`, `reasoningTokens`, `raw`).
    UsageUpdated = 17,
    /// MCP server `server_name` asks the user to open `url` during a tool call (URL-mode
    /// elicitation, SPEC §I.3.5; always http or https): `text` is its message, `call_id` the
    /// request id to answer with `vi_dialog_answer_mcp_elicitation` ("accept" once the user
    /// went there, "decline", "cancel"; no content). Declined when the run ends first.
    McpUrlElicitationRequested = 18,
    /// A request of the run left out `messages_left_out` of the dialog's messages to fit the
    /// model's context window; `estimated_tokens` is its estimated size after the trim (SPEC
    /// §I.4.2). The dialog's history is unchanged.
    ContextTrimmed = 19,
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
    /// `McpFailed`, `McpProgress` and the elicitation events only: the server.
    pub server_name: ViStr,
    /// `Retrying` only (else 0).
    pub attempt: i32,
    /// `Retrying` only (else 0).
    pub delay_ms: i32,
    /// The tool call events only (else empty); the elicitation events: the request id.
    pub call_id: ViStr,
    /// The tool call events and `McpProgress` only (else empty).
    pub tool_name: ViStr,
    /// `McpProgress` only (else 0).
    pub progress: f64,
    /// `McpProgress` only: the total, 0 when the server gave none (else 0).
    pub total: f64,
    /// `McpElicitationRequested`: the requested schema; `UsageUpdated`: the usage; as JSON
    /// text (else empty).
    pub json: ViStr,
    /// `McpUrlElicitationRequested` only: the url to open (else empty).
    pub url: ViStr,
    /// `ContextTrimmed` only: how many messages the request left out (else 0).
    pub messages_left_out: i32,
    /// `ContextTrimmed` only: the request's estimated tokens after the trim (else 0).
    pub estimated_tokens: i32,
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
        // The JSON texts, kept alive for the call; none for a batch without JSON (every
        // streamed batch but a round's last), which so costs nothing more.
        let carries_json = |e: &Event| matches!(e, Event::McpElicitationRequested { .. } | Event::UsageUpdated(_));
        let json: Vec<String> = if events.iter().any(carries_json) {
            events
                .iter()
                .map(|event| match event {
                    Event::McpElicitationRequested { schema, .. } => schema.to_string(),
                    Event::UsageUpdated(usage) => usage.to_string(),
                    _ => String::new(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let fill = |batch: &mut Vec<ViEvent>| {
            batch.clear();
            batch.extend(events.iter().enumerate().map(|(i, event)| ViEvent::of(event, json.get(i).map_or("", String::as_str))));
            // SAFETY: per the callback contract; the array and its views outlive the call.
            unsafe { (self.callback)(self.user_data.pointer(), batch.as_ptr(), batch.len()) };
            batch.clear(); // no views kept past the call
        };
        // The thread's array, unless a callback that feeds another dialog on this thread is
        // using it: then one of this call's own.
        BATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut batch) => {
                fill(&mut batch);
                if batch.capacity() > KEEP_BATCH_CAPACITY {
                    *batch = Vec::new();
                }
            }
            Err(_) => fill(&mut Vec::new()),
        });
    }
}

thread_local! {
    /// The array a batch is handed over in, kept from one batch to the next: a network read's
    /// batch (~1,000 events of 176 bytes while streaming) made afresh each time came from pages
    /// the allocator had just given back, and touching them again cost a page fault per 4 KiB
    /// (issue 34).
    static BATCH: RefCell<Vec<ViEvent>> = const { RefCell::new(Vec::new()) };
}

/// Above this many events the array is released after its batch, not kept.
const KEEP_BATCH_CAPACITY: usize = 16 * 1024;

impl ViEvent {
    /// A view of `event` (and of its JSON text), valid while they live.
    fn of(event: &Event, json: &str) -> ViEvent {
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
            progress: 0.0,
            total: 0.0,
            json: none,
            url: none,
            messages_left_out: 0,
            estimated_tokens: 0,
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
            Event::McpProgress { server, tool, progress, total, message } => {
                e.kind = ViEventKind::McpProgress;
                (e.server_name, e.tool_name, e.text) = (ViStr::of(server), ViStr::of(tool), ViStr::of(message));
                (e.progress, e.total) = (*progress, *total);
            }
            Event::McpElicitationRequested { request_id, server, message, .. } => {
                e.kind = ViEventKind::McpElicitationRequested;
                (e.call_id, e.server_name, e.text, e.json) = (ViStr::of(request_id), ViStr::of(server), ViStr::of(message), ViStr::of(json));
            }
            Event::McpUrlElicitationRequested { request_id, server, message, url } => {
                e.kind = ViEventKind::McpUrlElicitationRequested;
                (e.call_id, e.server_name, e.text, e.url) = (ViStr::of(request_id), ViStr::of(server), ViStr::of(message), ViStr::of(url));
            }
            Event::Retrying { attempt, delay_ms, reason } => {
                e.kind = ViEventKind::Retrying;
                (e.attempt, e.delay_ms) = (*attempt, *delay_ms);
                e.text = ViStr::of(reason);
            }
            Event::RunFinished => e.kind = ViEventKind::RunFinished,
            Event::UsageUpdated(_) => (e.kind, e.json) = (ViEventKind::UsageUpdated, ViStr::of(json)),
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
            Event::ContextTrimmed { left_out, estimated } => {
                e.kind = ViEventKind::ContextTrimmed;
                (e.messages_left_out, e.estimated_tokens) = (*left_out, *estimated);
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
    /// MCP server `server_name` (the entry's name) sent notification `method` with
    /// `params_json` (JSON text, `null` when it had none) (SPEC §H.4.4). Fires on a library
    /// thread.
    McpNotification = 4,
    /// MCP server `server_name` needs the user to authorize this client (SPEC §H.4.6): open
    /// `url` in a browser; the library listens for the redirect on 127.0.0.1 and goes on by
    /// itself (for at most 300 s). Fires on a library thread.
    McpAuthorizationRequired = 5,
    /// MCP server `server_name` issued new tokens (authorized or refreshed): `tokens_json`, to
    /// be stored by the application (they are secrets) and given back with
    /// `vi_mcp_set_oauth_tokens`. Fires on a library thread.
    McpTokensChanged = 6,
}

/// One Center event; its views live only during the callback; fields that do not apply to
/// the kind are empty.
#[repr(C)]
pub struct ViCenterEvent {
    /// What changed.
    pub kind: ViCenterEventKind,
    /// The dialog it concerns (the dialog events).
    pub dialog_id: ViStr,
    /// `McpNotification` only: the MCP entry's name.
    pub server_name: ViStr,
    /// `McpNotification` only: the notification's method.
    pub method: ViStr,
    /// `McpNotification` only: its params as JSON text.
    pub params_json: ViStr,
    /// `McpAuthorizationRequired` only: the authorization url to open.
    pub url: ViStr,
    /// `McpTokensChanged` only: the tokens as JSON text.
    pub tokens_json: ViStr,
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
        // The params' or tokens' text, kept alive for the call.
        let texts: Vec<String> = events
            .iter()
            .map(|event| match event {
                CenterEvent::McpNotification { params, .. } => params.to_string(),
                CenterEvent::McpTokensChanged { tokens, .. } => tokens.to_json().to_string(),
                _ => String::new(),
            })
            .collect();
        let batch: Vec<ViCenterEvent> = events
            .iter()
            .zip(&texts)
            .map(|(event, text)| {
                let none = ViStr::default();
                let mut e = ViCenterEvent {
                    kind: ViCenterEventKind::DialogsReset,
                    dialog_id: none,
                    server_name: none,
                    method: none,
                    params_json: none,
                    url: none,
                    tokens_json: none,
                };
                match event {
                    CenterEvent::DialogAdded(id) => (e.kind, e.dialog_id) = (ViCenterEventKind::DialogAdded, ViStr::of(id)),
                    CenterEvent::DialogRemoved(id) => (e.kind, e.dialog_id) = (ViCenterEventKind::DialogRemoved, ViStr::of(id)),
                    CenterEvent::DialogsReset => {}
                    CenterEvent::McpNotification { server, method, .. } => {
                        e.kind = ViCenterEventKind::McpNotification;
                        (e.server_name, e.method, e.params_json) = (ViStr::of(server), ViStr::of(method), ViStr::of(text));
                    }
                    CenterEvent::McpAuthorizationRequired { server, url } => {
                        e.kind = ViCenterEventKind::McpAuthorizationRequired;
                        (e.server_name, e.url) = (ViStr::of(server), ViStr::of(url));
                    }
                    CenterEvent::McpTokensChanged { server, .. } => {
                        e.kind = ViCenterEventKind::McpTokensChanged;
                        (e.server_name, e.tokens_json) = (ViStr::of(server), ViStr::of(text));
                    }
                }
                e
            })
            .collect();
        // SAFETY: per the callback contract; the array and its views outlive the call.
        unsafe { (self.callback)(self.user_data.pointer(), batch.as_ptr(), batch.len()) };
    }
}
