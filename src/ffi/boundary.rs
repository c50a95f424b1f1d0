//! The panic boundary every export goes through: a Rust panic must never unwind into C or
//! C++ (it would abort the host). Failures become a status (or the return type's failure
//! value) plus the thread's last-error message.

use super::status::{ViStatus, set_last_error};
use crate::Error;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Why a call failed, on its way to the C caller.
pub(crate) struct Failure {
    pub status: ViStatus,
    pub message: String,
}

impl Failure {
    pub fn new(status: ViStatus, message: impl Into<String>) -> Failure {
        Failure { status, message: message.into() }
    }

    pub fn null(what: &str) -> Failure {
        Failure::new(ViStatus::NullArgument, format!("{what} is NULL"))
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let status = match &e {
            Error::Json(_) => ViStatus::InvalidJson,
            Error::InvalidArgument(_) => ViStatus::InvalidArgument,
            Error::NotFound(_) => ViStatus::NotFound,
            Error::State(_) => ViStatus::WrongState,
        };
        Failure::new(status, e.to_string())
    }
}

pub(crate) type Result<T> = std::result::Result<T, Failure>;

/// What a function returns when it fails: a status for fallible calls, an empty value for
/// getters (which "never fail": a NULL handle reads as a default object).
pub(crate) trait Outcome {
    fn failed(status: ViStatus) -> Self;
}

impl Outcome for ViStatus {
    fn failed(status: ViStatus) -> Self {
        status
    }
}

macro_rules! outcome_default {
    ($($t:ty),*) => { $(impl Outcome for $t { fn failed(_: ViStatus) -> Self { Default::default() } })* };
}
outcome_default!((), bool, u32, i32, i64, u64, usize, super::string::ViStr);

impl<T> Outcome for *mut T {
    fn failed(_: ViStatus) -> Self {
        std::ptr::null_mut()
    }
}

/// Runs an export's body: `Err` and panics set the last error (prefixed with the function's
/// name) and return the failure value.
pub(crate) fn boundary<T: Outcome>(function: &str, body: impl FnOnce() -> Result<T>) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(value)) => value,
        Ok(Err(failure)) => {
            set_last_error(&format!("{function}: {}", failure.message));
            T::failed(failure.status)
        }
        Err(panic) => {
            let what = crate::error::panic_text(&*panic);
            set_last_error(&format!("{function}: internal error: {what}"));
            T::failed(ViStatus::Panic)
        }
    }
}

/// `boundary` for calls that only report a status.
pub(crate) fn status(function: &str, body: impl FnOnce() -> Result<()>) -> ViStatus {
    boundary(function, || body().map(|()| ViStatus::Ok))
}
