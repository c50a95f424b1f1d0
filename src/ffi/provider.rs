//! `Provider` (SPEC §B.3, seeds/Provider.md): a value handle, owned by whoever received it,
//! released with `vi_provider_free`.

use super::boundary;
use super::center::ViCenter;
use super::handle::{Handle, access, impl_handle};
use super::status::ViStatus;
use super::string::{self, ViStr, ViString};
use crate::provider::Provider;
use std::ffi::c_char;

/// A provider (opaque).
pub struct ViProvider {
    _private: [u8; 0],
}
impl_handle!(ViProvider => Provider, "the provider");

/// A new provider with a fresh id and the display name `name` (may be empty).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_new(name: *const c_char, len: usize, provider_out: *mut *mut ViProvider) -> ViStatus {
    unsafe { access::new("vi_provider_new", provider_out, || Ok(Provider::with_name(string::arg("name", name, len)?))) }
}

/// An independent copy (same id) in `*provider_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_clone(provider: *const ViProvider, provider_out: *mut *mut ViProvider) -> ViStatus {
    unsafe { access::clone("vi_provider_clone", provider, provider_out) }
}

/// Releases a provider; NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_free(provider: *mut ViProvider) {
    unsafe { access::free("vi_provider_free", provider) }
}

/// The id; lives until the provider changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_id(provider: *const ViProvider) -> ViStr {
    unsafe { access::get_str("vi_provider_id", provider, |p| &p.id) }
}

/// Sets the display name.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_set_name(provider: *mut ViProvider, data: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_provider_set_name", provider, data, len, |p, v| p.name = v.to_owned()) }
}

/// The display name; lives until the provider changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_name(provider: *const ViProvider) -> ViStr {
    unsafe { access::get_str("vi_provider_name", provider, |p| &p.name) }
}

/// How many more passes over the models a run makes when all of them failed with a
/// retryable failure (SPEC §H.1.4); default 2, 0 = none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_set_retries(provider: *mut ViProvider, retries: i32) -> ViStatus {
    unsafe { access::set("vi_provider_set_retries", provider, |p| p.retries = retries.max(0)) }
}

/// The number of retry passes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_retries(provider: *const ViProvider) -> i32 {
    unsafe { access::get("vi_provider_retries", provider, |p| p.retries) }
}

/// The longest wait a server may ask for (`Retry-After`) before a retry pass; a longer one
/// ends the run with its failure instead. Default 60000.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_set_max_retry_delay_ms(provider: *mut ViProvider, ms: i32) -> ViStatus {
    unsafe { access::set("vi_provider_set_max_retry_delay_ms", provider, |p| p.max_retry_delay_ms = ms.max(0)) }
}

/// The longest accepted wait in ms.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_max_retry_delay_ms(provider: *const ViProvider) -> i32 {
    unsafe { access::get("vi_provider_max_retry_delay_ms", provider, |p| p.max_retry_delay_ms) }
}

/// Adds a model id with a priority (higher is picked first); re-adding overwrites the priority;
/// an empty id is ignored. The id is not checked against any Center.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_add_model(provider: *mut ViProvider, model_id: *const c_char, len: usize, priority: i32) -> ViStatus {
    unsafe { access::set_str("vi_provider_add_model", provider, model_id, len, |p, id| p.add_model(id, priority)) }
}

/// Removes a model id (a missing one is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_remove_model(provider: *mut ViProvider, model_id: *const c_char, len: usize) -> ViStatus {
    unsafe { access::set_str("vi_provider_remove_model", provider, model_id, len, |p, id| p.remove_model(id)) }
}

/// Removes every model id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_clear_models(provider: *mut ViProvider) -> ViStatus {
    unsafe { access::set("vi_provider_clear_models", provider, Provider::clear_models) }
}

/// The model ids, in id order, as JSON array text in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_model_ids(provider: *const ViProvider, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_provider_model_ids", provider, json_out, |p| access::strings_json(&p.model_ids())) }
}

/// The priority of a model id (0 when absent, or on a bad argument).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_model_priority(provider: *const ViProvider, model_id: *const c_char, len: usize) -> i32 {
    boundary::boundary("vi_provider_model_priority", || {
        let p = unsafe { ViProvider::get(provider) }?;
        Ok(p.model_priority(unsafe { string::arg("model id", model_id, len) }?))
    })
}

/// At least one model id is held (ids are not resolved).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_is_valid(provider: *const ViProvider) -> bool {
    unsafe { access::get("vi_provider_is_valid", provider, Provider::is_valid) }
}

/// The first model of `center` (NULL = the global Center) that is valid and has every bit of
/// `required`, by priority then id; "" when none. Owned result in `*model_id_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_pick_first(
    provider: *const ViProvider,
    center: *const ViCenter,
    required: u32,
    model_id_out: *mut *mut ViString,
) -> ViStatus {
    unsafe {
        access::owned("vi_provider_pick_first", provider, model_id_out, |p| {
            Ok(super::center::resolve(center)?.pick_first(p, required))
        })
    }
}

/// Like `vi_provider_pick_first`, after `after_model_id` in the same order; no wrap-around; an
/// `after_model_id` not in this provider picks first.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_pick_next(
    provider: *const ViProvider,
    center: *const ViCenter,
    after_model_id: *const c_char,
    len: usize,
    required: u32,
    model_id_out: *mut *mut ViString,
) -> ViStatus {
    unsafe {
        access::owned("vi_provider_pick_next", provider, model_id_out, |p| {
            let after = string::arg("after model id", after_model_id, len)?;
            Ok(super::center::resolve(center)?.pick_next(p, after, required))
        })
    }
}

/// `{"id","name","models":[{"id","priority"}]}` (no credentials) in `*json_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_to_json(provider: *const ViProvider, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_provider_to_json", provider, json_out, Provider::to_json) }
}

/// Applies JSON object text; `*id_read_out` (optional) tells whether a non-empty id was read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_provider_from_json(provider: *mut ViProvider, json: *const c_char, len: usize, id_read_out: *mut bool) -> ViStatus {
    unsafe { access::from_json("vi_provider_from_json", provider, json, len, id_read_out, Provider::from_json) }
}
