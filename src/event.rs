//! What a dialog tells its host: one event per Qt signal of the native `Dialog`.

use crate::text::Text;
use serde_json::Value;

/// A streamed piece of answer or reasoning, from the reader to the host's callback. Held inline
/// up to 24 bytes — nearly every delta of a stream — so a delta costs no allocation of its own.
pub type DeltaText = compact_str::CompactString;

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    MessageAppended(usize),
    StreamBegan,
    StreamDelta(DeltaText),
    StreamReasoning(DeltaText),
    /// The round's full content, shared with the message appended for it.
    StreamEnded(Text),
    RunFailed(String),
    ModelFallback { from: String, to: String, reason: String },
    McpFailed { server: String, message: String },
    /// A running MCP tool call reported progress (SPEC §H.4.2); `total` is 0 when the server
    /// gave none (an indeterminate progress, as a `QProgressBar` with range 0..0 shows it).
    McpProgress { server: String, tool: String, progress: f64, total: f64, message: String },
    /// Every model failed; the chain starts over after `delay_ms` (SPEC §H.1.4).
    Retrying { attempt: i32, delay_ms: i32, reason: String },
    /// The last event of every run (SPEC §H.3.1).
    RunFinished,
    /// The usage a round reported, normalised (SPEC §I.2.2): once at the end of that round,
    /// before its `StreamEnded` (or its `RunFailed`).
    UsageUpdated(Value),
    /// The messages changed other than by an append (`clear_messages`, `truncate_to`,
    /// `from_json`, a copy into this dialog): a view re-reads them all.
    MessagesReset,
    /// The run waits for `Dialog::approve_tool_call` / `reject_tool_call` (SPEC §H.3.4).
    ToolApprovalRequested { call_id: String, tool_name: String, arguments: String },
    /// An MCP server asks the user for input during a tool call (SPEC §H.4.5); answered by
    /// `Dialog::answer_mcp_elicitation(request_id, …)`, declined when the run ends first.
    McpElicitationRequested { request_id: String, server: String, message: String, schema: Value },
    /// An MCP server asks the user to open `url` (an http(s) url) during a tool call — URL-mode
    /// elicitation (SPEC §I.3.5); answered like a form's, by `Dialog::answer_mcp_elicitation`
    /// (`accept` once the user went there, `decline`, `cancel`), declined when the run ends
    /// first.
    McpUrlElicitationRequested { request_id: String, server: String, message: String, url: String },
    /// A tool call begins (SPEC §H.3.6).
    ToolCallStarted { call_id: String, tool_name: String, arguments: String },
    /// A started tool call has its result (SPEC §H.3.6).
    ToolCallFinished { call_id: String, tool_name: String, result: String },
    /// A request left out `left_out` of the dialog's messages to fit the model's context
    /// window (SPEC §I.4.2); `estimated` is the request's estimated tokens after the trim.
    ContextTrimmed { left_out: i32, estimated: i32 },
}

/// Receives a dialog's events, in order, a batch at a time: the events of one change (one edit,
/// or every chunk of one network read during a run), so a host pays its locking and thread
/// hand-off once per batch rather than once per chunk. Called on whatever thread produced the
/// events (the caller's for direct edits, a library thread during a run) and never with a lock
/// held, so an implementation may call back into the dialog.
pub trait EventSink: Send + Sync + 'static {
    /// `events` is never empty.
    fn emit(&self, events: &[Event]);
}

/// What a Center tells its host about its dialogs (extension, SPEC §H.5.2), so that a list of
/// conversations stays live whoever changes the registry (the Qt layer, the C ABI, a clone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CenterEvent {
    /// A dialog was registered (created, restored, cloned, branched for regenerate).
    DialogAdded(String),
    /// A dialog was unregistered: removed, or replaced by one restored under the same id
    /// (then `DialogAdded` of that id follows in the same batch).
    DialogRemoved(String),
    /// `from_json` replaced every dialog: read the list again.
    DialogsReset,
    /// A notification from an MCP server this Center used (SPEC §H.4.4), e.g.
    /// `notifications/resources/updated`; `server` is the entry's name.
    McpNotification { server: String, method: String, params: Value },
    /// The server of MCP entry `server` needs the user to authorize this client: the
    /// application opens `url` in a browser (SPEC §H.4.6).
    McpAuthorizationRequired { server: String, url: String },
    /// The server of MCP entry `server` issued new tokens (authorized or refreshed), for the
    /// application to store and give back with the entry (`Mcp::oauth_tokens`).
    McpTokensChanged { server: String, tokens: crate::mcp_client::oauth::Tokens },
}

/// Receives a Center's events in the order of the changes, a batch per change, on the thread
/// that made the change (or the one delivering at that moment), never with a lock held.
pub trait CenterSink: Send + Sync + 'static {
    /// `events` is never empty.
    fn emit(&self, events: &[CenterEvent]);
}
