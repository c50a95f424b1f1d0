//! The library's log for C (SPEC §I.5.1): one process-wide callback and a level per category
//! (`visindigo.agent.http`, `.stream`, `.mcp`, `.run`; all off until set). The Qt layer
//! bridges it to `QLoggingCategory`; a C host prints or keeps the lines itself.

use super::boundary::{self, Failure};
use super::status::ViStatus;
use super::string::{self, ViStr};
use super::user_data::{UserData, ViUserDataDestroy};
use crate::log::{LogSink, Severity};
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// Severity: nothing (a category's level only).
pub const VI_LOG_OFF: u32 = 0;
/// Severity: an error.
pub const VI_LOG_ERROR: u32 = 1;
/// Severity: a warning (a parameter dropped, a fallback, a run that failed).
pub const VI_LOG_WARNING: u32 = 2;
/// Severity: information (a run started).
pub const VI_LOG_INFO: u32 = 3;
/// Severity: debugging detail (each response, each round).
pub const VI_LOG_DEBUG: u32 = 4;
/// Severity: everything (each usage report).
pub const VI_LOG_TRACE: u32 = 5;

/// Receives one log line: its severity (`VI_LOG_ERROR` … `VI_LOG_TRACE`), its category
/// (`visindigo.agent.http`, …) and its text; the views live only during the call. Fires on the
/// thread that logged — a library thread during a run — never with a library lock held; it
/// must not block for long, nor unwind.
pub type ViLogCallback = Option<unsafe extern "C" fn(user_data: *mut c_void, severity: u32, category: ViStr, message: ViStr)>;

struct CLogSink {
    callback: unsafe extern "C" fn(*mut c_void, u32, ViStr, ViStr),
    user_data: UserData,
}

impl LogSink for CLogSink {
    fn log(&self, severity: Severity, category: &str, message: &str) {
        // SAFETY: per the callback contract; the views outlive the call.
        unsafe { (self.callback)(self.user_data.pointer(), severity as u32, ViStr::of(category), ViStr::of(message)) };
    }
}

/// Sets the process's log callback (NULL removes it; the previous `user_data` is then
/// released through its `destroy` as soon as no line is being delivered to it — on the
/// delivering thread if one is). Lines arrive only for categories whose level is set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_set_log_callback(callback: ViLogCallback, user_data: *mut c_void, destroy: ViUserDataDestroy) -> ViStatus {
    boundary::status("vi_set_log_callback", || {
        let sink = callback.map(|callback| Arc::new(CLogSink { callback, user_data: UserData::new(user_data, destroy) }) as Arc<dyn LogSink>);
        crate::log::set_sink(sink);
        Ok(())
    })
}

/// Sets the least severe level `category` logs (`VI_LOG_OFF` … `VI_LOG_TRACE`); an empty
/// category sets all four. `VI_STATUS_INVALID_ARGUMENT` for another category or level.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_set_log_level(category: *const c_char, len: usize, severity: u32) -> ViStatus {
    boundary::status("vi_set_log_level", || {
        let category = unsafe { string::arg("category", category, len) }?;
        let severity = Severity::from_u32(severity)
            .ok_or_else(|| Failure::new(ViStatus::InvalidArgument, format!("log level {severity} is not 0..5")))?;
        if !crate::log::set_level(category, severity) {
            let known = crate::log::CATEGORIES.join(", ");
            return Err(Failure::new(ViStatus::InvalidArgument, format!("no log category \"{category}\" (known: {known})")));
        }
        Ok(())
    })
}
