//! The one error type of the core. Each variant maps to one C status code (src/ffi/status.rs).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Text that should have been JSON of a given shape was not.
    Json(String),
    /// An argument the operation cannot accept (empty id, bad index, …).
    InvalidArgument(String),
    /// Nothing is registered under that key.
    NotFound(String),
    /// The object is in the wrong state for the call (e.g. a run is in progress).
    State(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Json(m) => write!(f, "malformed JSON: {m}"),
            Error::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            Error::NotFound(m) => write!(f, "not found: {m}"),
            Error::State(m) => write!(f, "wrong state: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// The text of a caught panic (a `&str` or `String` payload), for the message that reports it.
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}
