//! `Message` (SPEC §B.1): a value handle. Every `ViMessage*` is owned by whoever received it
//! and released with `vi_message_free`. Not shared: use one handle from one thread at a time.

use super::boundary::{Failure, boundary};
use super::handle::{Handle, access, impl_handle};
use super::status::ViStatus;
use super::string::{self, ViStr, ViString};
use crate::message::{Message, Role};
use std::ffi::c_char;

/// A message (opaque). Roles: 0 System, 1 User, 2 Assistant, 3 Tool, 4 Prompt.
pub struct ViMessage {
    _private: [u8; 0],
}
impl_handle!(ViMessage => Message, "the message");

fn role(value: u32) -> super::boundary::Result<Role> {
    Role::from_u32(value).ok_or_else(|| Failure::new(ViStatus::InvalidArgument, format!("role {value} is not 0..4")))
}

/// A new message with `role` and `content` (UTF-8, `len` bytes); `*message_out` owns it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_new(role_value: u32, content: *const c_char, len: usize, message_out: *mut *mut ViMessage) -> ViStatus {
    // SAFETY: caller's contract on `content` and `message_out`.
    unsafe { access::new("vi_message_new", message_out, || Ok(Message::new(role(role_value)?, string::arg("content", content, len)?))) }
}

/// A copy of `message` (independent of it) in `*message_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_clone(message: *const ViMessage, message_out: *mut *mut ViMessage) -> ViStatus {
    unsafe { access::clone("vi_message_clone", message, message_out) }
}

/// Releases a message; NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_free(message: *mut ViMessage) {
    unsafe { access::free("vi_message_free", message) }
}

/// Sets the role (0..4; anything else is `VI_STATUS_INVALID_ARGUMENT`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_set_role(message: *mut ViMessage, role_value: u32) -> ViStatus {
    super::boundary::status("vi_message_set_role", || {
        let r = role(role_value)?;
        unsafe { ViMessage::get_mut(message) }?.role = r;
        Ok(())
    })
}

/// The role (1, User, for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_role(message: *const ViMessage) -> u32 {
    boundary("vi_message_role", || Ok(unsafe { ViMessage::get(message) }.map_or(Role::User, |m| m.role) as u32))
}

/// Sets the kept reasoning: Anthropic thinking blocks, Responses reasoning items (JSON array
/// text, kept verbatim; SPEC §H.2.2, §I.2.3).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_set_thinking_blocks(message: *mut ViMessage, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_message_set_thinking_blocks", message, data, len, |m, v| m.thinking_blocks = v.to_owned()) }
}

/// The thinking blocks ("" for most messages); lives until the message changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_thinking_blocks(message: *const ViMessage) -> ViStr {
    unsafe { access::get_str("vi_message_thinking_blocks", message, |m| &m.thinking_blocks) }
}

/// Sets the content.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_set_content(message: *mut ViMessage, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_message_set_content", message, data, len, |m, v| m.content = v.into()) }
}

/// The content; the view lives until the message is next changed or freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_content(message: *const ViMessage) -> ViStr {
    unsafe { access::get_str("vi_message_content", message, |m| &m.content) }
}

/// Sets the sender name (the prompt or tool a message came from).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_set_name(message: *mut ViMessage, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_message_set_name", message, data, len, |m, v| m.name = v.to_owned()) }
}

/// The sender name; the view lives until the message is next changed or freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_name(message: *const ViMessage) -> ViStr {
    unsafe { access::get_str("vi_message_name", message, |m| &m.name) }
}

/// Sets the tool call id a Tool message answers (must match the model's id exactly).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_set_tool_call_id(message: *mut ViMessage, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_message_set_tool_call_id", message, data, len, |m, v| m.tool_call_id = v.to_owned()) }
}

/// The tool call id; the view lives until the message is next changed or freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_tool_call_id(message: *const ViMessage) -> ViStr {
    unsafe { access::get_str("vi_message_tool_call_id", message, |m| &m.tool_call_id) }
}

/// Sets the raw JSON array text of the tool calls (stored verbatim).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_set_tool_calls(message: *mut ViMessage, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_message_set_tool_calls", message, data, len, |m, v| m.tool_calls = v.to_owned()) }
}

/// The raw tool calls text; the view lives until the message is next changed or freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_tool_calls(message: *const ViMessage) -> ViStr {
    unsafe { access::get_str("vi_message_tool_calls", message, |m| &m.tool_calls) }
}

/// Sets the reasoning (shown to the user, never sent to the server).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_set_reasoning(message: *mut ViMessage, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_message_set_reasoning", message, data, len, |m, v| m.reasoning = v.to_owned()) }
}

/// The reasoning; the view lives until the message is next changed or freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_reasoning(message: *const ViMessage) -> ViStr {
    unsafe { access::get_str("vi_message_reasoning", message, |m| &m.reasoning) }
}

/// True when neither content nor tool calls are set (true for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_is_empty(message: *const ViMessage) -> bool {
    boundary("vi_message_is_empty", || Ok(unsafe { ViMessage::get(message) }.map_or(true, Message::is_empty)))
}

/// Attaches an image by URL (http(s) or a data: URL); `detail` may be empty.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_add_image_url(
    message: *mut ViMessage,
    url: *const c_char,
    url_len: usize,
    detail: *const c_char,
    detail_len: usize,
) -> ViStatus {
    super::boundary::status("vi_message_add_image_url", || {
        let m = unsafe { ViMessage::get_mut(message) }?;
        let url = unsafe { string::arg("url", url, url_len) }?;
        let detail = unsafe { string::arg("detail", detail, detail_len) }?;
        m.add_image_url(url, detail);
        Ok(())
    })
}

/// The number of attached images.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_image_count(message: *const ViMessage) -> usize {
    boundary("vi_message_image_count", || Ok(unsafe { ViMessage::get(message) }?.images.len()))
}

/// The URL of image `index` ("" when out of range); lives until the message changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_image_url(message: *const ViMessage, index: usize) -> ViStr {
    unsafe { access::get_str("vi_message_image_url", message, |m| m.images.get(index).map_or("", |i| &i.url)) }
}

/// The detail of image `index` ("" when out of range); lives until the message changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_image_detail(message: *const ViMessage, index: usize) -> ViStr {
    unsafe { access::get_str("vi_message_image_detail", message, |m| m.images.get(index).map_or("", |i| &i.detail)) }
}

/// The message as JSON object text (SPEC §B.1) in `*json_out` (free with `vi_string_free`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_to_json(message: *const ViMessage, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_message_to_json", message, json_out, Message::to_json) }
}

/// Overwrites every field from JSON object text. `*recognized_out` (optional) tells whether the
/// role was recognised; text that is not a JSON object is `VI_STATUS_INVALID_JSON` and changes
/// nothing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_from_json(message: *mut ViMessage, json: *const c_char, len: usize, recognized_out: *mut bool) -> ViStatus {
    unsafe { access::from_json("vi_message_from_json", message, json, len, recognized_out, Message::from_json) }
}

/// Role: system prompt.
pub const VI_ROLE_SYSTEM: u32 = 0;
/// Role: user input.
pub const VI_ROLE_USER: u32 = 1;
/// Role: model output.
pub const VI_ROLE_ASSISTANT: u32 = 2;
/// Role: tool result.
pub const VI_ROLE_TOOL: u32 = 3;
/// Role: rendered prompt template (sent as user).
pub const VI_ROLE_PROMPT: u32 = 4;
