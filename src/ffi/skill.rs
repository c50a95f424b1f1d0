//! `Skill` (SPEC §B.4): a value handle, owned by whoever received it, released with
//! `vi_skill_free`. String lists cross as JSON array text.

use super::handle::{access, impl_handle};
use super::status::ViStatus;
use super::string::{self, ViStr, ViString};
use crate::skill::Skill;
use std::ffi::c_char;

/// A skill (opaque).
pub struct ViSkill {
    _private: [u8; 0],
}
impl_handle!(ViSkill => Skill, "the skill");

/// A new, enabled skill named `name` (may be empty).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_new(name: *const c_char, len: usize, skill_out: *mut *mut ViSkill) -> ViStatus {
    unsafe { access::new("vi_skill_new", skill_out, || Ok(Skill::new(string::arg("name", name, len)?))) }
}

/// An independent copy in `*skill_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_clone(skill: *const ViSkill, skill_out: *mut *mut ViSkill) -> ViStatus {
    unsafe { access::clone("vi_skill_clone", skill, skill_out) }
}

/// Releases a skill; NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_free(skill: *mut ViSkill) {
    unsafe { access::free("vi_skill_free", skill) }
}

/// Sets the name (the key in a Center or dialog).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_set_name(skill: *mut ViSkill, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_skill_set_name", skill, data, len, |s, v| s.name = v.to_owned()) }
}

/// The name; lives until the skill changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_name(skill: *const ViSkill) -> ViStr {
    unsafe { access::get_str("vi_skill_name", skill, |s| &s.name) }
}

/// Sets the description.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_set_description(skill: *mut ViSkill, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_skill_set_description", skill, data, len, |s, v| s.description = v.to_owned()) }
}

/// The description; lives until the skill changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_description(skill: *const ViSkill) -> ViStr {
    unsafe { access::get_str("vi_skill_description", skill, |s| &s.description) }
}

/// Sets the instruction injected into the system prompt.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_set_instruction(skill: *mut ViSkill, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_skill_set_instruction", skill, data, len, |s, v| s.instruction = v.to_owned()) }
}

/// The instruction; lives until the skill changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_instruction(skill: *const ViSkill) -> ViStr {
    unsafe { access::get_str("vi_skill_instruction", skill, |s| &s.instruction) }
}

/// Enables or disables the skill.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_set_enabled(skill: *mut ViSkill, enabled: bool) -> ViStatus {
    unsafe { access::set("vi_skill_set_enabled", skill, |s| s.enabled = enabled) }
}

/// Whether the skill is enabled.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_is_enabled(skill: *const ViSkill) -> bool {
    unsafe { access::get("vi_skill_is_enabled", skill, |s| s.enabled) }
}

/// Replaces the tags with a JSON array of strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_set_tags(skill: *mut ViSkill, tags_json: *const c_char, len: usize) -> ViStatus {
    super::boundary::status("vi_skill_set_tags", || {
        let tags = unsafe { string::json_strings_arg("tags", tags_json, len) }?;
        unsafe { <ViSkill as super::handle::Handle>::get_mut(skill) }?.tags = tags;
        Ok(())
    })
}

/// The tags as JSON array text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_tags(skill: *const ViSkill, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_skill_tags", skill, json_out, |s| access::strings_json(&s.tags)) }
}

/// Adds a function id (duplicates and "" ignored; insertion order kept).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_add_function(skill: *mut ViSkill, id: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_skill_add_function", skill, id, len, Skill::add_function) }
}

/// Removes a function id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_remove_function(skill: *mut ViSkill, id: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_skill_remove_function", skill, id, len, Skill::remove_function) }
}

/// Whether the skill names that function id (false on a bad argument).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_has_function(skill: *const ViSkill, id: *const c_char, len: usize) -> bool {
    super::boundary::boundary("vi_skill_has_function", || {
        let s = unsafe { <ViSkill as super::handle::Handle>::get(skill) }?;
        Ok(s.has_function(unsafe { string::arg("function id", id, len) }?))
    })
}

/// The function ids as JSON array text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_function_ids(skill: *const ViSkill, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_skill_function_ids", skill, json_out, |s| access::strings_json(s.function_ids())) }
}

/// Name and instruction are both set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_is_valid(skill: *const ViSkill) -> bool {
    unsafe { access::get("vi_skill_is_valid", skill, Skill::is_valid) }
}

/// The skill as JSON object text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_to_json(skill: *const ViSkill, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_skill_to_json", skill, json_out, Skill::to_json) }
}

/// Applies JSON object text; `*valid_out` (optional) gets `vi_skill_is_valid` afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_skill_from_json(skill: *mut ViSkill, json: *const c_char, len: usize, valid_out: *mut bool) -> ViStatus {
    unsafe { access::from_json("vi_skill_from_json", skill, json, len, valid_out, Skill::from_json) }
}
