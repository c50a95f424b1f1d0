//! `Prompt` (SPEC §B.6): a value handle, owned by whoever received it, released with
//! `vi_prompt_free`.

use super::boundary;
use super::handle::{Handle, access, impl_handle};
use super::message::ViMessage;
use super::status::ViStatus;
use super::string::{self, ViStr, ViString};
use crate::prompt::Prompt;
use std::collections::HashMap;
use std::ffi::c_char;

/// A prompt template (opaque).
pub struct ViPrompt {
    _private: [u8; 0],
}
impl_handle!(ViPrompt => Prompt, "the prompt");

/// A new prompt with `name` and `content` (either may be empty).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_new(
    name: *const c_char,
    name_len: usize,
    content: *const c_char,
    content_len: usize,
    prompt_out: *mut *mut ViPrompt,
) -> ViStatus {
    unsafe {
        access::new("vi_prompt_new", prompt_out, || {
            Ok(Prompt::new(string::arg("name", name, name_len)?, string::arg("content", content, content_len)?))
        })
    }
}

/// An independent copy in `*prompt_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_clone(prompt: *const ViPrompt, prompt_out: *mut *mut ViPrompt) -> ViStatus {
    unsafe { access::clone("vi_prompt_clone", prompt, prompt_out) }
}

/// Releases a prompt; NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_free(prompt: *mut ViPrompt) {
    unsafe { access::free("vi_prompt_free", prompt) }
}

/// Sets the name.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_set_name(prompt: *mut ViPrompt, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_prompt_set_name", prompt, data, len, |p, v| p.name = v.to_owned()) }
}

/// The name; lives until the prompt changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_name(prompt: *const ViPrompt) -> ViStr {
    unsafe { access::get_str("vi_prompt_name", prompt, |p| &p.name) }
}

/// Sets the description.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_set_description(prompt: *mut ViPrompt, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_prompt_set_description", prompt, data, len, |p, v| p.description = v.to_owned()) }
}

/// The description; lives until the prompt changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_description(prompt: *const ViPrompt) -> ViStr {
    unsafe { access::get_str("vi_prompt_description", prompt, |p| &p.description) }
}

/// Sets the template text with `{{ name }}` placeholders.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_set_content(prompt: *mut ViPrompt, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_prompt_set_content", prompt, data, len, |p, v| p.content = v.to_owned()) }
}

/// The template text; lives until the prompt changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_content(prompt: *const ViPrompt) -> ViStr {
    unsafe { access::get_str("vi_prompt_content", prompt, |p| &p.content) }
}

/// Replaces the tags with a JSON array of strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_set_tags(prompt: *mut ViPrompt, tags_json: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_prompt_set_tags", || {
        let tags = unsafe { string::json_strings_arg("tags", tags_json, len) }?;
        unsafe { ViPrompt::get_mut(prompt) }?.tags = tags;
        Ok(())
    })
}

/// The tags as JSON array text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_tags(prompt: *const ViPrompt, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_prompt_tags", prompt, json_out, |p| access::strings_json(&p.tags)) }
}

/// The distinct placeholder names in order of first appearance, as JSON array text.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_variables(prompt: *const ViPrompt, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_prompt_variables", prompt, json_out, |p| access::strings_json(&p.variables())) }
}

/// Name and content are both set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_is_valid(prompt: *const ViPrompt) -> bool {
    unsafe { access::get("vi_prompt_is_valid", prompt, Prompt::is_valid) }
}

/// Renders with `variables` (a JSON object of strings) into a new Prompt-role message in
/// `*message_out` (free with `vi_message_free`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_render(
    prompt: *const ViPrompt,
    variables_json: *const c_char,
    len: usize,
    message_out: *mut *mut ViMessage,
) -> ViStatus {
    boundary::status("vi_prompt_render", || {
        let p = unsafe { ViPrompt::get(prompt) }?;
        let vars: HashMap<String, String> = unsafe { string::json_string_map_arg("variables", variables_json, len) }?.into_iter().collect();
        unsafe { ViMessage::write(message_out, p.render(&vars)) }
    })
}

/// The prompt as JSON object text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_to_json(prompt: *const ViPrompt, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_prompt_to_json", prompt, json_out, Prompt::to_json) }
}

/// Applies JSON object text; `*valid_out` (optional) gets `vi_prompt_is_valid` afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_prompt_from_json(prompt: *mut ViPrompt, json: *const c_char, len: usize, valid_out: *mut bool) -> ViStatus {
    unsafe { access::from_json("vi_prompt_from_json", prompt, json, len, valid_out, Prompt::from_json) }
}
