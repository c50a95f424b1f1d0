//! The library's version, for hosts that load it dynamically.

use std::ffi::c_char;

/// The version of the loaded library ("0.17.0"), NUL-terminated and static. Compare with the
/// header's `VI_VERSION` to detect a mismatch.
#[unsafe(no_mangle)]
pub extern "C" fn vi_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
