//! `MCP` (SPEC §B.5): a value handle with a server's configuration, owned by whoever received
//! it, released with `vi_mcp_free`. Transports: 0 Stdio, 1 Sse, 2 StreamableHttp. Lists and maps
//! cross as JSON text.

use super::boundary::{self, Failure};
use super::handle::{Handle, access, impl_handle};
use super::status::ViStatus;
use super::string::{self, ViStr, ViString};
use crate::mcp::{Mcp, Transport};
use crate::mcp_client::oauth::Tokens;
use std::ffi::c_char;

/// An MCP server configuration (opaque).
pub struct ViMcp {
    _private: [u8; 0],
}
impl_handle!(ViMcp => Mcp, "the MCP entry");

/// A new, enabled, auto-starting stdio entry named `name` (may be empty).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_new(name: *const c_char, len: usize, mcp_out: *mut *mut ViMcp) -> ViStatus {
    unsafe { access::new("vi_mcp_new", mcp_out, || Ok(Mcp::new(string::arg("name", name, len)?))) }
}

/// An independent copy in `*mcp_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_clone(mcp: *const ViMcp, mcp_out: *mut *mut ViMcp) -> ViStatus {
    unsafe { access::clone("vi_mcp_clone", mcp, mcp_out) }
}

/// Releases an entry; NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_free(mcp: *mut ViMcp) {
    unsafe { access::free("vi_mcp_free", mcp) }
}

/// Sets the name (the key, and the prefix of its tools' names).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_name(mcp: *mut ViMcp, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_mcp_set_name", mcp, data, len, |m, v| m.name = v.to_owned()) }
}

/// The name; lives until the entry changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_name(mcp: *const ViMcp) -> ViStr {
    unsafe { access::get_str("vi_mcp_name", mcp, |m| &m.name) }
}

/// Sets the transport (0..2; anything else is `VI_STATUS_INVALID_ARGUMENT`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_transport(mcp: *mut ViMcp, transport: u32) -> ViStatus {
    boundary::status("vi_mcp_set_transport", || {
        let t = Transport::from_u32(transport)
            .ok_or_else(|| Failure::new(ViStatus::InvalidArgument, format!("transport {transport} is not 0..2")))?;
        unsafe { ViMcp::get_mut(mcp) }?.transport = t;
        Ok(())
    })
}

/// The transport.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_transport(mcp: *const ViMcp) -> u32 {
    unsafe { access::get("vi_mcp_transport", mcp, |m| m.transport as u32) }
}

/// Sets the url (Sse and StreamableHttp).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_url(mcp: *mut ViMcp, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_mcp_set_url", mcp, data, len, |m, v| m.url = v.to_owned()) }
}

/// The url; lives until the entry changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_url(mcp: *const ViMcp) -> ViStr {
    unsafe { access::get_str("vi_mcp_url", mcp, |m| &m.url) }
}

/// Sets the command (Stdio).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_command(mcp: *mut ViMcp, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_mcp_set_command", mcp, data, len, |m, v| m.command = v.to_owned()) }
}

/// The command; lives until the entry changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_command(mcp: *const ViMcp) -> ViStr {
    unsafe { access::get_str("vi_mcp_command", mcp, |m| &m.command) }
}

/// Replaces the arguments with a JSON array of strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_arguments(mcp: *mut ViMcp, json: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_mcp_set_arguments", || {
        let arguments = unsafe { string::json_strings_arg("arguments", json, len) }?;
        unsafe { ViMcp::get_mut(mcp) }?.arguments = arguments;
        Ok(())
    })
}

/// The arguments as JSON array text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_arguments(mcp: *const ViMcp, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_mcp_arguments", mcp, json_out, |m| access::strings_json(&m.arguments)) }
}

/// Replaces the extra environment with a JSON object of strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_environment(mcp: *mut ViMcp, json: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_mcp_set_environment", || {
        let map = unsafe { string::json_string_map_arg("environment", json, len) }?;
        unsafe { ViMcp::get_mut(mcp) }?.environment = map;
        Ok(())
    })
}

/// The extra environment as JSON object text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_environment(mcp: *const ViMcp, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_mcp_environment", mcp, json_out, |m| serde_json::json!(m.environment)) }
}

/// Replaces the HTTP headers with a JSON object of strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_headers(mcp: *mut ViMcp, json: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_mcp_set_headers", || {
        let map = unsafe { string::json_string_map_arg("headers", json, len) }?;
        unsafe { ViMcp::get_mut(mcp) }?.headers = map;
        Ok(())
    })
}

/// The HTTP headers as JSON object text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_headers(mcp: *const ViMcp, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_mcp_headers", mcp, json_out, |m| serde_json::json!(m.headers)) }
}

/// Enables or disables the server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_enabled(mcp: *mut ViMcp, enabled: bool) -> ViStatus {
    unsafe { access::set("vi_mcp_set_enabled", mcp, |m| m.enabled = enabled) }
}

/// Whether the server is enabled.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_is_enabled(mcp: *const ViMcp) -> bool {
    unsafe { access::get("vi_mcp_is_enabled", mcp, |m| m.enabled) }
}

/// Whether the server is started when a run first needs it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_auto_start(mcp: *mut ViMcp, auto_start: bool) -> ViStatus {
    unsafe { access::set("vi_mcp_set_auto_start", mcp, |m| m.auto_start = auto_start) }
}

/// Whether the server auto-starts.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_is_auto_start(mcp: *const ViMcp) -> bool {
    unsafe { access::get("vi_mcp_is_auto_start", mcp, |m| m.auto_start) }
}

/// Replaces the roots the server may ask for with `roots/list` (SPEC §H.4.5), a JSON array of
/// URIs (`file:///…`; a local absolute path is turned into one). A connected server is told
/// when they change.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_roots(mcp: *mut ViMcp, json: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_mcp_set_roots", || {
        let roots = unsafe { string::json_strings_arg("roots", json, len) }?;
        unsafe { ViMcp::get_mut(mcp) }?.roots = roots;
        Ok(())
    })
}

/// The roots as JSON array text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_roots(mcp: *const ViMcp, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_mcp_roots", mcp, json_out, |m| access::strings_json(&m.roots)) }
}

/// Sets how long a tool call may go without an answer or a progress notification, in
/// milliseconds (default 60,000; 0 is `VI_STATUS_INVALID_ARGUMENT`) (SPEC §H.4.2).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_call_timeout(mcp: *mut ViMcp, milliseconds: u32) -> ViStatus {
    boundary::status("vi_mcp_set_call_timeout", || {
        if milliseconds == 0 {
            return Err(Failure::new(ViStatus::InvalidArgument, "a call timeout of 0 ms"));
        }
        unsafe { ViMcp::get_mut(mcp) }?.call_timeout_ms = milliseconds;
        Ok(())
    })
}

/// The call timeout in milliseconds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_call_timeout(mcp: *const ViMcp) -> u32 {
    unsafe { access::get("vi_mcp_call_timeout", mcp, |m| m.call_timeout_ms) }
}

/// Sets the provider whose models answer the server's `sampling/createMessage` requests
/// (SPEC §H.4.5); empty (the default) declines them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_sampling_provider_id(mcp: *mut ViMcp, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_mcp_set_sampling_provider_id", mcp, data, len, |m, v| m.sampling_provider_id = v.to_owned()) }
}

/// The sampling provider's id; lives until the entry changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_sampling_provider_id(mcp: *const ViMcp) -> ViStr {
    unsafe { access::get_str("vi_mcp_sampling_provider_id", mcp, |m| &m.sampling_provider_id) }
}

/// Sets the OAuth client id registered for this application with the server's authorization
/// server (SPEC §H.4.6); empty (the default): the library registers a client dynamically.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_oauth_client_id(mcp: *mut ViMcp, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_mcp_set_oauth_client_id", mcp, data, len, |m, v| m.oauth_client_id = v.to_owned()) }
}

/// The configured OAuth client id; lives until the entry changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_oauth_client_id(mcp: *const ViMcp) -> ViStr {
    unsafe { access::get_str("vi_mcp_oauth_client_id", mcp, |m| &m.oauth_client_id) }
}

/// Gives the entry the tokens of an earlier authorization: JSON object text as a
/// `McpTokensChanged` event carried it. They are used when the entry is next connected through
/// a Center (newer ones the library got meanwhile stay unless these differ from the ones given
/// last; `{}` gives none, and the kept ones end with the entry's removal), and never written
/// by `vi_mcp_to_json`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_set_oauth_tokens(mcp: *mut ViMcp, json: *const c_char, len: usize) -> ViStatus {
    unsafe {
        access::from_json("vi_mcp_set_oauth_tokens", mcp, json, len, std::ptr::null_mut(), |m, o| {
            m.oauth_tokens = Tokens::from_json(o);
            true
        })
    }
}

/// The tokens given with `vi_mcp_set_oauth_tokens` as JSON object text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_oauth_tokens(mcp: *const ViMcp, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_mcp_oauth_tokens", mcp, json_out, |m| m.oauth_tokens.to_json()) }
}

/// A name, and a command (Stdio) or a url with a scheme (Sse, StreamableHttp).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_is_valid(mcp: *const ViMcp) -> bool {
    unsafe { access::get("vi_mcp_is_valid", mcp, Mcp::is_valid) }
}

/// The entry as JSON object text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_to_json(mcp: *const ViMcp, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_mcp_to_json", mcp, json_out, Mcp::to_json) }
}

/// Applies JSON object text; `*valid_out` (optional) gets `vi_mcp_is_valid` afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_mcp_from_json(mcp: *mut ViMcp, json: *const c_char, len: usize, valid_out: *mut bool) -> ViStatus {
    unsafe { access::from_json("vi_mcp_from_json", mcp, json, len, valid_out, Mcp::from_json) }
}

/// Shuts down every MCP server connection the library holds: stdio servers get their stdin
/// closed, then SIGTERM and SIGKILL (on Windows: their Job Object is terminated), and are
/// reaped; HTTP sessions are ended. Runs started
/// later connect again. Thread: any, except a library callback thread; blocks for at most
/// about 8 seconds. The library also ends remaining stdio servers when the process exits.
#[unsafe(no_mangle)]
pub extern "C" fn vi_mcp_shutdown_all() -> ViStatus {
    boundary::status("vi_mcp_shutdown_all", || {
        crate::mcp_client::shutdown_all();
        Ok(())
    })
}

/// Transport: a child process speaking JSON-RPC on stdin/stdout.
pub const VI_TRANSPORT_STDIO: u32 = 0;
/// Transport: the legacy HTTP+SSE transport.
pub const VI_TRANSPORT_SSE: u32 = 1;
/// Transport: streamable HTTP.
pub const VI_TRANSPORT_STREAMABLE_HTTP: u32 = 2;
