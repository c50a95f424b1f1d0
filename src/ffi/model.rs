//! `Model` (SPEC §B.2): a value handle, owned by whoever received it, released with
//! `vi_model_free`. Capability bits: 1 Text, 2 Image, 4 Audio, 8 ToolUse.

use super::boundary::{self, Failure};
use super::handle::{Handle, access, impl_handle};
use super::status::ViStatus;
use super::string::{self, ViStr, ViString};
use crate::model::{Api, Model};
use std::ffi::c_char;

/// A model (opaque).
pub struct ViModel {
    _private: [u8; 0],
}
impl_handle!(ViModel => Model, "the model");

/// A new model with a fresh id and the defaults of SPEC §B.2.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_new(model_out: *mut *mut ViModel) -> ViStatus {
    unsafe { access::new("vi_model_new", model_out, || Ok(Model::new())) }
}

/// An independent copy (same id) in `*model_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_clone(model: *const ViModel, model_out: *mut *mut ViModel) -> ViStatus {
    unsafe { access::clone("vi_model_clone", model, model_out) }
}

/// Releases a model; NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_free(model: *mut ViModel) {
    unsafe { access::free("vi_model_free", model) }
}

/// The id (a UUID); lives until the model changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_id(model: *const ViModel) -> ViStr {
    unsafe { access::get_str("vi_model_id", model, |m| &m.id) }
}

/// Sets the name sent as the request's `model`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_name(model: *mut ViModel, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_model_set_name", model, data, len, |m, v| m.name = v.to_owned()) }
}

/// The name; lives until the model changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_name(model: *const ViModel) -> ViStr {
    unsafe { access::get_str("vi_model_name", model, |m| &m.name) }
}

/// Sets the base url (the API's path is appended at run time).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_url(model: *mut ViModel, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_model_set_url", model, data, len, |m, v| m.url = v.to_owned()) }
}

/// Sets the wire protocol (`VI_API_*`; anything else is `VI_STATUS_INVALID_ARGUMENT`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_api(model: *mut ViModel, api: u32) -> ViStatus {
    boundary::status("vi_model_set_api", || {
        let api = Api::from_u32(api).ok_or_else(|| Failure::new(ViStatus::InvalidArgument, format!("api {api} is not 0..3")))?;
        unsafe { ViModel::get_mut(model) }?.api = api;
        Ok(())
    })
}

/// The wire protocol (`VI_API_CHAT_COMPLETIONS` for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_api(model: *const ViModel) -> u32 {
    boundary::boundary("vi_model_api", || Ok(unsafe { ViModel::get(model) }.map_or(Api::ChatCompletions, |m| m.api) as u32))
}

/// Sets the API's version where the API has versions (Anthropic's `anthropic-version`, e.g.
/// "2023-06-01"); "" = the newest the library knows (SPEC §I.2.1). Sent as given.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_api_version(model: *mut ViModel, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_model_set_api_version", model, data, len, |m, v| m.api_version = v.to_owned()) }
}

/// The API version as set ("" = the newest); lives until the model changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_api_version(model: *const ViModel) -> ViStr {
    unsafe { access::get_str("vi_model_api_version", model, |m| &m.api_version) }
}

/// Asks the server to cache each request's stable prefix (SPEC §I.2.2; default false).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_prompt_caching(model: *mut ViModel, on: bool) -> ViStatus {
    unsafe { access::set("vi_model_set_prompt_caching", model, |m| m.prompt_caching = on) }
}

/// Whether prompt caching is asked for (false for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_prompt_caching(model: *const ViModel) -> bool {
    unsafe { access::get("vi_model_prompt_caching", model, |m| m.prompt_caching) }
}

/// Sets the model's context window in tokens (SPEC §I.4.1; 0 = unknown, the default; a
/// negative count is 0). Before each request the library estimates its size against it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_context_window(model: *mut ViModel, tokens: i32) -> ViStatus {
    unsafe { access::set("vi_model_set_context_window", model, |m| m.context_window = tokens.max(0)) }
}

/// The context window in tokens (0 = unknown; 0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_context_window(model: *const ViModel) -> i32 {
    unsafe { access::get("vi_model_context_window", model, |m| m.context_window) }
}

/// API: OpenAI-compatible `POST <url>/chat/completions` (the default).
pub const VI_API_CHAT_COMPLETIONS: u32 = 0;
/// API: OpenAI Responses, `POST <url>/responses`.
pub const VI_API_RESPONSES: u32 = 1;
/// API: Anthropic Messages, `POST <url>/messages`.
pub const VI_API_ANTHROPIC_MESSAGES: u32 = 2;
/// API: Gemini, `POST <url>/models/<name>:streamGenerateContent?alt=sse` (SPEC §I.2.4).
pub const VI_API_GEMINI: u32 = 3;

/// The base url; lives until the model changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_url(model: *const ViModel) -> ViStr {
    unsafe { access::get_str("vi_model_url", model, |m| &m.url) }
}

/// Sets the bearer token (sent only in the Authorization header).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_token(model: *mut ViModel, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_model_set_token", model, data, len, |m, v| m.token = v.to_owned()) }
}

/// The token; lives until the model changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_token(model: *const ViModel) -> ViStr {
    unsafe { access::get_str("vi_model_token", model, |m| &m.token) }
}

/// Sets the total timeout of one request in ms (0 = unlimited).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_timeout_ms(model: *mut ViModel, ms: i32) -> ViStatus {
    unsafe { access::set("vi_model_set_timeout_ms", model, |m| m.timeout_ms = ms) }
}

/// The total timeout in ms.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_timeout_ms(model: *const ViModel) -> i32 {
    unsafe { access::get("vi_model_timeout_ms", model, |m| m.timeout_ms) }
}

/// Sets the longest silence between received bytes in ms (0 = the default 60000).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_idle_timeout_ms(model: *mut ViModel, ms: i32) -> ViStatus {
    unsafe { access::set("vi_model_set_idle_timeout_ms", model, |m| m.idle_timeout_ms = ms) }
}

/// The idle timeout in ms as set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_idle_timeout_ms(model: *const ViModel) -> i32 {
    unsafe { access::get("vi_model_idle_timeout_ms", model, |m| m.idle_timeout_ms) }
}

/// Replaces the capability bits.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_capabilities(model: *mut ViModel, capabilities: u32) -> ViStatus {
    unsafe { access::set("vi_model_set_capabilities", model, |m| m.capabilities = capabilities) }
}

/// Adds capability bits (OR).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_add_capability(model: *mut ViModel, capability: u32) -> ViStatus {
    unsafe { access::set("vi_model_add_capability", model, |m| m.capabilities |= capability) }
}

/// The capability bits.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_capabilities(model: *const ViModel) -> u32 {
    unsafe { access::get("vi_model_capabilities", model, |m| m.capabilities) }
}

/// Whether the single bit `capability` is set (false for 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_has_capability(model: *const ViModel, capability: u32) -> bool {
    unsafe { access::get("vi_model_has_capability", model, |m| m.has_capability(capability)) }
}

/// Sets a request parameter: `key` may be dotted (nested objects), `value` is JSON text of
/// any JSON value. Integral numbers are sent as integers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_parameter(
    model: *mut ViModel,
    key: *const c_char,
    key_len: usize,
    value_json: *const c_char,
    value_len: usize,
) -> ViStatus {
    boundary::status("vi_model_set_parameter", || {
        let m = unsafe { ViModel::get_mut(model) }?;
        let key = unsafe { string::arg("key", key, key_len) }?;
        let text = unsafe { string::arg("value", value_json, value_len) }?;
        let value = serde_json::from_str(text)
            .map_err(|e| Failure::new(ViStatus::InvalidJson, format!("the value of {key} is not JSON: {e}")))?;
        m.set_parameter(key, value);
        Ok(())
    })
}

/// Removes a (dotted) parameter; removing a missing one is not an error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_remove_parameter(model: *mut ViModel, key: *const c_char, key_len: usize) -> ViStatus {
    unsafe {
        access::set_str("vi_model_remove_parameter", model, key, key_len, |m, k| {
            m.remove_parameter(k);
        })
    }
}

/// `temperature` as a parameter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_temperature(model: *mut ViModel, value: f64) -> ViStatus {
    unsafe { access::set("vi_model_set_temperature", model, |m| m.set_parameter("temperature", value.into())) }
}

/// `top_p` as a parameter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_top_p(model: *mut ViModel, value: f64) -> ViStatus {
    unsafe { access::set("vi_model_set_top_p", model, |m| m.set_parameter("top_p", value.into())) }
}

/// `max_tokens` as a parameter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_set_max_tokens(model: *mut ViModel, value: i32) -> ViStatus {
    unsafe { access::set("vi_model_set_max_tokens", model, |m| m.set_parameter("max_tokens", value.into())) }
}

/// The parameters as JSON object text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_parameters(model: *const ViModel, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_model_parameters", model, json_out, |m| serde_json::Value::Object(m.parameters.clone())) }
}

/// Name, a url with a scheme and a token are all set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_is_valid(model: *const ViModel) -> bool {
    unsafe { access::get("vi_model_is_valid", model, Model::is_valid) }
}

/// The model as JSON object text (token included) in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_to_json(model: *const ViModel, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_model_to_json", model, json_out, Model::to_json) }
}

/// Applies JSON object text; `*id_read_out` (optional) tells whether a non-empty id was read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_model_from_json(model: *mut ViModel, json: *const c_char, len: usize, id_read_out: *mut bool) -> ViStatus {
    unsafe { access::from_json("vi_model_from_json", model, json, len, id_read_out, Model::from_json) }
}

/// Capability bit: no requirement.
pub const VI_CAPABILITY_NONE: u32 = 0;
/// Capability bit: text.
pub const VI_CAPABILITY_TEXT: u32 = 1;
/// Capability bit: images.
pub const VI_CAPABILITY_IMAGE: u32 = 2;
/// Capability bit: audio.
pub const VI_CAPABILITY_AUDIO: u32 = 4;
/// Capability bit: tool use.
pub const VI_CAPABILITY_TOOL_USE: u32 = 8;
