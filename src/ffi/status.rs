//! Status codes and the thread-local last-error message (the libgit2/rustls-ffi habit).

use std::cell::RefCell;
use std::ffi::{CString, c_char};

/// The result of every fallible `vi_` function. `VI_STATUS_OK` is 0 so `if (status)` reads
/// naturally; errors start at 7000 so they can't be mistaken for errno values or booleans.
/// Retired values are never reused.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViStatus {
    Ok = 0,
    /// A required pointer (handle, out-parameter, string with a length) was NULL.
    NullArgument = 7001,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 7002,
    /// A JSON argument did not parse, or was not of the expected shape.
    InvalidJson = 7003,
    /// Some other argument was out of its range.
    InvalidArgument = 7004,
    /// Nothing is registered under the key given.
    NotFound = 7005,
    /// The call does not fit the object's state.
    WrongState = 7006,
    /// The library hit an internal error (a Rust panic); the object is still usable.
    Panic = 7007,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(crate) fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// The message of the last failed call on this thread, NUL-terminated UTF-8 ("" when none
/// failed yet). Owned by the library; valid until the next failing `vi_` call on this thread.
/// Successful calls leave it unchanged.
#[unsafe(no_mangle)]
pub extern "C" fn vi_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// A human-readable name for `status` (static, NUL-terminated).
#[unsafe(no_mangle)]
pub extern "C" fn vi_status_name(status: ViStatus) -> *const c_char {
    let name: &'static [u8] = match status {
        ViStatus::Ok => b"ok\0",
        ViStatus::NullArgument => b"null argument\0",
        ViStatus::InvalidUtf8 => b"invalid UTF-8\0",
        ViStatus::InvalidJson => b"invalid JSON\0",
        ViStatus::InvalidArgument => b"invalid argument\0",
        ViStatus::NotFound => b"not found\0",
        ViStatus::WrongState => b"wrong state\0",
        ViStatus::Panic => b"internal error\0",
    };
    name.as_ptr().cast()
}
