//! What a dialog tells its host: one event per Qt signal of the native `Dialog`.

use std::any::Any;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    MessageAppended(usize),
    StreamBegan,
    StreamDelta(String),
    StreamReasoning(String),
    StreamEnded(String),
    RunFailed(String),
    ModelFallback { from: String, to: String, reason: String },
    McpFailed { server: String, message: String },
}

/// Receives a dialog's events, in order. Called on whatever thread produced the event (the
/// caller's for direct edits, a library thread during a run) and never with a lock held, so an
/// implementation may call back into the dialog.
pub trait EventSink: Send + Sync + 'static {
    fn emit(&self, event: &Event);

    /// Lets a binding find its own type behind the trait object.
    fn as_any(&self) -> &dyn Any;
}
