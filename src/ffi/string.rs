//! Strings across the boundary. In: UTF-8 pointer + length (Qt's `toUtf8()` has both; no
//! `strlen`, embedded NULs allowed). Out: a borrowed `ViStr` view into a handle, or an owned
//! `ViString` that the caller releases with `vi_string_free` — never the caller's `free()`.

use super::boundary::{Failure, Result};
use super::status::ViStatus;
use std::ffi::c_char;

/// A borrowed UTF-8 view (not NUL-terminated). Valid until the object it was read from is next
/// modified or freed; copy it before that.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ViStr {
    /// The first byte (may be NULL when `len` is 0).
    pub data: *const c_char,
    /// The length in bytes.
    pub len: usize,
}

impl Default for ViStr {
    fn default() -> Self {
        ViStr { data: c"".as_ptr(), len: 0 }
    }
}

impl ViStr {
    pub(crate) fn of(s: &str) -> ViStr {
        ViStr { data: s.as_ptr().cast(), len: s.len() }
    }
}

/// An owned UTF-8 string made by the library; release it with `vi_string_free`.
pub struct ViString(String);

/// The text of an owned string (NULL reads as ""). Valid until `vi_string_free`.
#[unsafe(no_mangle)]
pub extern "C" fn vi_string_view(string: *const ViString) -> ViStr {
    // SAFETY: a non-NULL `string` comes from this library and is alive (caller's contract).
    match unsafe { string.as_ref() } {
        Some(s) => ViStr::of(&s.0),
        None => ViStr::default(),
    }
}

/// Releases an owned string; NULL is a no-op.
#[unsafe(no_mangle)]
pub extern "C" fn vi_string_free(string: *mut ViString) {
    if !string.is_null() {
        // SAFETY: made by `Box::into_raw` in `owned` and not freed before (caller's contract).
        drop(unsafe { Box::from_raw(string) });
    }
}

/// Reads a string argument. NULL with length 0 is ""; NULL with a length, or invalid UTF-8, is
/// an error naming the argument.
///
/// # Safety
/// `data` must point to `len` readable bytes when it is not NULL.
pub(crate) unsafe fn arg<'a>(name: &str, data: *const c_char, len: usize) -> Result<&'a str> {
    if data.is_null() {
        return if len == 0 { Ok("") } else { Err(Failure::null(name)) };
    }
    // SAFETY: the caller promises `len` readable bytes at `data`.
    let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) };
    // simdutf8 checks valid text several times faster (a 14 MB Center document: ~5 ms → ~1 ms);
    // std's check runs only to describe an error.
    simdutf8::basic::from_utf8(bytes)
        .or_else(|_| std::str::from_utf8(bytes))
        .map_err(|e| Failure::new(ViStatus::InvalidUtf8, format!("{name} is not valid UTF-8 ({e})")))
}

/// Writes an owned string to an out-parameter.
///
/// # Safety
/// `out` must be NULL or valid for a pointer write.
pub(crate) unsafe fn write_owned(out: *mut *mut ViString, value: String) -> Result<()> {
    if out.is_null() {
        return Err(Failure::null("the out-parameter"));
    }
    // SAFETY: checked non-NULL; the caller promises it is writable.
    unsafe { *out = Box::into_raw(Box::new(ViString(value))) };
    Ok(())
}

/// Parses a JSON object argument.
///
/// # Safety
/// As `arg`.
pub(crate) unsafe fn json_object_arg(
    name: &str,
    data: *const c_char,
    len: usize,
) -> Result<serde_json::Map<String, serde_json::Value>> {
    // SAFETY: forwarded contract.
    let text = unsafe { arg(name, data, len) }?;
    crate::json::parse_object(text).map_err(|e| Failure::new(ViStatus::InvalidJson, format!("{name}: {e}")))
}

/// Parses a JSON argument that must hold an array of strings.
///
/// # Safety
/// As `arg`.
pub(crate) unsafe fn json_strings_arg(name: &str, data: *const c_char, len: usize) -> Result<Vec<String>> {
    // SAFETY: forwarded contract.
    let text = unsafe { arg(name, data, len) }?;
    serde_json::from_str::<Vec<String>>(text)
        .map_err(|e| Failure::new(ViStatus::InvalidJson, format!("{name} must be a JSON array of strings: {e}")))
}

/// Parses a JSON argument that must hold an object of strings.
///
/// # Safety
/// As `arg`.
pub(crate) unsafe fn json_string_map_arg(
    name: &str,
    data: *const c_char,
    len: usize,
) -> Result<std::collections::BTreeMap<String, String>> {
    // SAFETY: forwarded contract.
    let text = unsafe { arg(name, data, len) }?;
    serde_json::from_str(text)
        .map_err(|e| Failure::new(ViStatus::InvalidJson, format!("{name} must be a JSON object of strings: {e}")))
}

/// Writes a bool out-parameter when it is not NULL (optional outputs).
///
/// # Safety
/// `out` must be NULL or valid for a write.
pub(crate) unsafe fn write_optional<T>(out: *mut T, value: T) {
    // SAFETY: the caller promises NULL or writable.
    if let Some(slot) = unsafe { out.as_mut() } {
        *slot = value;
    }
}
