//! `Center` (SPEC §C): the registry. `vi_center_global()` is the process-wide instance
//! (never freed); `vi_center_new` makes a private one (for tests or isolation). Thread-safe:
//! any call from any thread. Registering copies value handles; lists cross as JSON arrays.

use super::boundary::{self, Failure};
use super::dialog::{ViDialog, json_array};
use super::event::{CCenterSink, ViCenterEventCallback};
use super::function::{ViFunction, host_user_data};
use super::handle::{Handle, access, impl_handle};
use super::mcp::ViMcp;
use super::model::ViModel;
use super::prompt::ViPrompt;
use super::provider::ViProvider;
use super::skill::ViSkill;
use super::status::ViStatus;
use super::string::{self, ViStr, ViString};
use super::user_data::{UserData, ViUserDataDestroy};
use crate::center::Center;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// A registry (opaque).
pub struct ViCenter {
    _private: [u8; 0],
}
impl_handle!(ViCenter => Center, "the center");

/// `center`, or the global Center for NULL.
///
/// # Safety
/// A non-NULL `center` must be a live handle.
pub(crate) unsafe fn resolve<'a>(center: *const ViCenter) -> boundary::Result<&'a Center> {
    if center.is_null() { Ok(Center::global()) } else { unsafe { ViCenter::get(center) } }
}

/// The process-wide Center (`Center::getInstance()`); never freed, valid for the whole process.
#[unsafe(no_mangle)]
pub extern "C" fn vi_center_global() -> *mut ViCenter {
    boundary::boundary("vi_center_global", || Ok((Center::global() as *const Center).cast_mut().cast()))
}

/// A new, empty, private Center in `*center_out` (free with `vi_center_free`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_new(center_out: *mut *mut ViCenter) -> ViStatus {
    unsafe { access::new("vi_center_new", center_out, || Ok(Center::new())) }
}

/// Releases a private Center (its dialogs live on while referenced); NULL and the global
/// Center are no-ops.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_free(center: *mut ViCenter) {
    if center.cast_const() != vi_center_global().cast_const() {
        unsafe { access::free("vi_center_free", center) }
    }
}

/// Registers a copy of `model` under its id (an existing one is replaced).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_add_model(center: *const ViCenter, model: *const ViModel) -> ViStatus {
    boundary::status("vi_center_add_model", || {
        unsafe { resolve(center) }?.add_model(unsafe { ViModel::get(model) }?.clone());
        Ok(())
    })
}

/// Unregisters model `id`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_remove_model(center: *const ViCenter, id: *const c_char, len: usize) -> ViStatus {
    unsafe { with_key("vi_center_remove_model", center, id, len, Center::remove_model) }
}

/// A copy of model `id` in `*model_out`; `VI_STATUS_NOT_FOUND` when unknown.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_get_model(center: *const ViCenter, id: *const c_char, len: usize, model_out: *mut *mut ViModel) -> ViStatus {
    unsafe { get_one("vi_center_get_model", center, id, len, model_out, Center::model) }
}

/// Every model (sorted by id) as a JSON array of model objects (owned; tokens included).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_models(center: *const ViCenter, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { list("vi_center_models", center, json_out, |c| json_array(c.models().iter().map(|m| m.to_json()))) }
}

/// Every model id, sorted, as JSON array text (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_model_ids(center: *const ViCenter, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { list("vi_center_model_ids", center, json_out, |c| serde_json::json!(c.model_ids()).to_string()) }
}

/// Registers a copy of `provider` under its id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_add_provider(center: *const ViCenter, provider: *const ViProvider) -> ViStatus {
    boundary::status("vi_center_add_provider", || {
        unsafe { resolve(center) }?.add_provider(unsafe { ViProvider::get(provider) }?.clone());
        Ok(())
    })
}

/// Unregisters provider `id` (and clears the default provider when it was that one).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_remove_provider(center: *const ViCenter, id: *const c_char, len: usize) -> ViStatus {
    unsafe { with_key("vi_center_remove_provider", center, id, len, Center::remove_provider) }
}

/// A copy of provider `id` in `*provider_out`; `VI_STATUS_NOT_FOUND` when unknown.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_get_provider(
    center: *const ViCenter,
    id: *const c_char,
    len: usize,
    provider_out: *mut *mut ViProvider,
) -> ViStatus {
    unsafe { get_one("vi_center_get_provider", center, id, len, provider_out, Center::provider) }
}

/// Every provider (sorted by id) as a JSON array of provider objects (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_providers(center: *const ViCenter, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { list("vi_center_providers", center, json_out, |c| json_array(c.providers().iter().map(|p| p.to_json()))) }
}

/// Sets the default provider id (stored unchecked).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_set_default_provider(center: *const ViCenter, id: *const c_char, len: usize) -> ViStatus {
    unsafe { with_key("vi_center_set_default_provider", center, id, len, Center::set_default_provider) }
}

/// The default provider id (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_default_provider(center: *const ViCenter, id_out: *mut *mut ViString) -> ViStatus {
    unsafe { list("vi_center_default_provider", center, id_out, Center::default_provider) }
}

/// Registers a copy of `skill` under its name.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_add_skill(center: *const ViCenter, skill: *const ViSkill) -> ViStatus {
    boundary::status("vi_center_add_skill", || {
        unsafe { resolve(center) }?.add_skill(unsafe { ViSkill::get(skill) }?.clone());
        Ok(())
    })
}

/// Unregisters skill `name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_remove_skill(center: *const ViCenter, name: *const c_char, len: usize) -> ViStatus {
    unsafe { with_key("vi_center_remove_skill", center, name, len, Center::remove_skill) }
}

/// A copy of skill `name` in `*skill_out`; `VI_STATUS_NOT_FOUND` when unknown.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_get_skill(center: *const ViCenter, name: *const c_char, len: usize, skill_out: *mut *mut ViSkill) -> ViStatus {
    unsafe { get_one("vi_center_get_skill", center, name, len, skill_out, Center::skill) }
}

/// Every skill (sorted by name) as a JSON array of skill objects (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_skills(center: *const ViCenter, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { list("vi_center_skills", center, json_out, |c| json_array(c.skills().iter().map(|s| s.to_json()))) }
}

/// Registers a copy of `mcp` under its name.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_add_mcp(center: *const ViCenter, mcp: *const ViMcp) -> ViStatus {
    boundary::status("vi_center_add_mcp", || {
        unsafe { resolve(center) }?.add_mcp(unsafe { ViMcp::get(mcp) }?.clone());
        Ok(())
    })
}

/// Unregisters MCP entry `name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_remove_mcp(center: *const ViCenter, name: *const c_char, len: usize) -> ViStatus {
    unsafe { with_key("vi_center_remove_mcp", center, name, len, Center::remove_mcp) }
}

/// A copy of MCP entry `name` in `*mcp_out`; `VI_STATUS_NOT_FOUND` when unknown.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_get_mcp(center: *const ViCenter, name: *const c_char, len: usize, mcp_out: *mut *mut ViMcp) -> ViStatus {
    unsafe { get_one("vi_center_get_mcp", center, name, len, mcp_out, Center::mcp) }
}

/// Every MCP entry (sorted by name) as a JSON array of objects (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_mcps(center: *const ViCenter, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { list("vi_center_mcps", center, json_out, |c| json_array(c.mcps().iter().map(|m| m.to_json()))) }
}

/// What MCP server `name` speaks, as a JSON object `{protocolVersion, serverInfo,
/// capabilities}` (owned); `{}` while it is not connected or when no entry has that name
/// (SPEC §I.3.1).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_mcp_server_info(center: *const ViCenter, name: *const c_char, len: usize, json_out: *mut *mut ViString) -> ViStatus {
    boundary::status("vi_center_mcp_server_info", || {
        let c = unsafe { resolve(center) }?;
        let name = unsafe { string::arg("the server name", name, len) }?;
        let info = c.mcp_server_info(name).to_string();
        unsafe { string::write_owned(json_out, info) }
    })
}

/// Registers a copy of `prompt` under its name.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_add_prompt(center: *const ViCenter, prompt: *const ViPrompt) -> ViStatus {
    boundary::status("vi_center_add_prompt", || {
        unsafe { resolve(center) }?.add_prompt(unsafe { ViPrompt::get(prompt) }?.clone());
        Ok(())
    })
}

/// Unregisters prompt `name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_remove_prompt(center: *const ViCenter, name: *const c_char, len: usize) -> ViStatus {
    unsafe { with_key("vi_center_remove_prompt", center, name, len, Center::remove_prompt) }
}

/// A copy of prompt `name` in `*prompt_out`; `VI_STATUS_NOT_FOUND` when unknown.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_get_prompt(center: *const ViCenter, name: *const c_char, len: usize, prompt_out: *mut *mut ViPrompt) -> ViStatus {
    unsafe { get_one("vi_center_get_prompt", center, name, len, prompt_out, Center::prompt) }
}

/// Every prompt (sorted by name) as a JSON array of objects (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_prompts(center: *const ViCenter, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { list("vi_center_prompts", center, json_out, |c| json_array(c.prompts().iter().map(|p| p.to_json()))) }
}

/// Registers `function`, taking ownership of it (also on failure); one with the same id is
/// replaced and released.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_add_function(center: *const ViCenter, function: *mut ViFunction) -> ViStatus {
    boundary::status("vi_center_add_function", || {
        let f = unsafe { ViFunction::take(function) }.ok_or_else(|| Failure::null("the function"))?;
        unsafe { resolve(center) }?.add_function(f);
        Ok(())
    })
}

/// Unregisters (and releases, once no run uses it) function `id`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_remove_function(center: *const ViCenter, id: *const c_char, len: usize) -> ViStatus {
    unsafe { with_key("vi_center_remove_function", center, id, len, Center::remove_function) }
}

/// The `user_data` of host function `id` in `*user_data_out`; `VI_STATUS_NOT_FOUND` when none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_get_function(center: *const ViCenter, id: *const c_char, len: usize, user_data_out: *mut *mut c_void) -> ViStatus {
    boundary::status("vi_center_get_function", || {
        let c = unsafe { resolve(center) }?;
        let id = unsafe { string::arg("id", id, len) }?;
        let found = c.function(id).as_ref().and_then(host_user_data);
        let user_data = found.ok_or_else(|| Failure::new(ViStatus::NotFound, format!("no function {id}")))?;
        unsafe { string::write_optional(user_data_out, user_data) };
        Ok(())
    })
}

/// Every function id, sorted, as JSON array text (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_function_ids(center: *const ViCenter, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { list("vi_center_function_ids", center, json_out, |c| serde_json::json!(c.function_ids()).to_string()) }
}

/// Sets (or, with a NULL `callback`, clears) the callback told of dialogs registered and
/// unregistered (extension, SPEC §H.5.2). One per Center: the Qt layer sets the global
/// Center's. The previous `user_data` is released through its `destroy` once no call through
/// it is in flight (also when this fails).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_set_event_callback(
    center: *const ViCenter,
    callback: ViCenterEventCallback,
    user_data: *mut c_void,
    destroy: ViUserDataDestroy,
) -> ViStatus {
    boundary::status("vi_center_set_event_callback", || {
        let sink = callback.map(|cb| Arc::new(CCenterSink::new(cb, user_data, destroy)) as Arc<dyn crate::CenterSink>);
        unsafe { resolve(center) }?.set_sink(sink);
        Ok(())
    })
}

/// Receives the outcome of `vi_center_request_mcp`, exactly once: `result_json` is the
/// request's `result` as JSON text and `error` empty, or `error` says why there is none (then
/// `result_json` is empty). Both live only during the call. Fires on a library thread (on the
/// caller's, before `vi_center_request_mcp` returns, when the Center has no usable entry of
/// that name); `user_data` is released through its `destroy` right after. It must not throw or
/// unwind.
pub type ViMcpResultCallback = Option<unsafe extern "C" fn(user_data: *mut c_void, result_json: ViStr, error: ViStr)>;

/// Sends request `method` with `params_json` (a JSON object; NULL or empty for none) to the
/// Center's MCP server `server_name` (SPEC §H.4.4: `resources/list`, `resources/read`,
/// `prompts/get`, `completion/complete`, `resources/subscribe`, …) over the pooled connection,
/// connecting it if needed. From then on the Center's event callback receives that server's
/// notifications (`VI_CENTER_EVENT_KIND_MCP_NOTIFICATION`). On an error status the callback is
/// never called and `user_data` is released at once; otherwise the callback is called once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_request_mcp(
    center: *const ViCenter,
    server_name: *const c_char,
    server_name_len: usize,
    method: *const c_char,
    method_len: usize,
    params_json: *const c_char,
    params_json_len: usize,
    callback: ViMcpResultCallback,
    user_data: *mut c_void,
    destroy: ViUserDataDestroy,
) -> ViStatus {
    let user_data = UserData::new(user_data, destroy);
    boundary::status("vi_center_request_mcp", || {
        let c = unsafe { resolve(center) }?;
        let server = unsafe { string::arg("the server name", server_name, server_name_len) }?;
        let method = unsafe { string::arg("the method", method, method_len) }?;
        if method.is_empty() {
            return Err(Failure::new(ViStatus::InvalidArgument, "the method is empty"));
        }
        let params = if params_json_len == 0 {
            None
        } else {
            Some(serde_json::Value::Object(unsafe { string::json_object_arg("the params", params_json, params_json_len) }?))
        };
        let callback = callback.ok_or_else(|| Failure::null("the callback"))?;
        c.request_mcp(server, method, params, move |outcome| {
            let (result, error) = match outcome {
                Ok(result) => (result.to_string(), String::new()),
                Err(error) => (String::new(), error),
            };
            // SAFETY: per the callback contract; the views outlive the call, `user_data`
            // is released after it (when the closure is dropped).
            unsafe { callback(user_data.pointer(), ViStr::of(&result), ViStr::of(&error)) };
        });
        Ok(())
    })
}

/// A new dialog registered in the Center; `*dialog_out` is a reference to it (free with
/// `vi_dialog_free`, which does not unregister it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_create_dialog(center: *const ViCenter, dialog_out: *mut *mut ViDialog) -> ViStatus {
    boundary::status("vi_center_create_dialog", || {
        let d = unsafe { resolve(center) }?.create_dialog();
        unsafe { ViDialog::write(dialog_out, d) }
    })
}

/// A dialog read from JSON object text and registered under its id (a dialog with that id is
/// replaced and its run aborted); a reference in `*dialog_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_restore_dialog(center: *const ViCenter, json: *const c_char, len: usize, dialog_out: *mut *mut ViDialog) -> ViStatus {
    boundary::status("vi_center_restore_dialog", || {
        let c = unsafe { resolve(center) }?;
        let object = unsafe { string::json_object_arg("the JSON", json, len) }?;
        if dialog_out.is_null() {
            return Err(Failure::null("the out-parameter"));
        }
        unsafe { ViDialog::write(dialog_out, c.restore_dialog(&object)) }
    })
}

/// Unregisters dialog `id` and aborts its run.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_remove_dialog(center: *const ViCenter, id: *const c_char, len: usize) -> ViStatus {
    unsafe { with_key("vi_center_remove_dialog", center, id, len, Center::remove_dialog) }
}

/// A reference to dialog `id` in `*dialog_out`; `VI_STATUS_NOT_FOUND` when unknown.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_get_dialog(center: *const ViCenter, id: *const c_char, len: usize, dialog_out: *mut *mut ViDialog) -> ViStatus {
    unsafe { get_one("vi_center_get_dialog", center, id, len, dialog_out, Center::dialog) }
}

/// Every dialog id, sorted, as JSON array text (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_dialog_ids(center: *const ViCenter, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { list("vi_center_dialog_ids", center, json_out, |c| serde_json::json!(c.dialog_ids()).to_string()) }
}

/// A registered copy of dialog `id` (new id, branching from it; functions not copied) in
/// `*dialog_out`; `VI_STATUS_NOT_FOUND` when unknown.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_clone_dialog(center: *const ViCenter, id: *const c_char, len: usize, dialog_out: *mut *mut ViDialog) -> ViStatus {
    unsafe { get_one("vi_center_clone_dialog", center, id, len, dialog_out, Center::clone_dialog) }
}

/// Like `vi_center_clone_dialog`, with the last assistant message and everything after it
/// dropped: the dialog `regenerate` runs. A host attaches its callback, then `vi_dialog_run`s it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_branch_for_regenerate(
    center: *const ViCenter,
    id: *const c_char,
    len: usize,
    dialog_out: *mut *mut ViDialog,
) -> ViStatus {
    unsafe { get_one("vi_center_branch_for_regenerate", center, id, len, dialog_out, Center::branch_for_regenerate) }
}

/// Everything but functions as JSON object text (tokens included) (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_to_json(center: *const ViCenter, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { list("vi_center_to_json", center, json_out, |c| c.to_json_string()) }
}

/// Secrets: the Center document with them (`vi_center_to_json`'s).
pub const VI_SECRETS_INCLUDE: u32 = 0;
/// Secrets: without any model token or credential MCP header (SPEC §I.5.2); read back, the
/// document keeps the secrets in memory for the same models and MCP entries.
pub const VI_SECRETS_OMIT: u32 = 1;

/// `vi_center_to_json` with `secrets` (`VI_SECRETS_*`; another value is
/// `VI_STATUS_INVALID_ARGUMENT`) (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_to_json_with(center: *const ViCenter, secrets: u32, json_out: *mut *mut ViString) -> ViStatus {
    let secrets = match secrets {
        VI_SECRETS_INCLUDE => crate::center::Secrets::Include,
        VI_SECRETS_OMIT => crate::center::Secrets::Omit,
        other => {
            return boundary::status("vi_center_to_json_with", || {
                Err(Failure::new(ViStatus::InvalidArgument, format!("secrets {other} is not 0..1")))
            });
        }
    };
    unsafe { list("vi_center_to_json_with", center, json_out, |c| c.to_json_string_with(secrets)) }
}

/// Replaces everything but functions from JSON object text (old dialogs aborted and dropped);
/// an empty object changes nothing. `*replaced_out` (optional) tells whether it replaced.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_center_from_json(center: *const ViCenter, json: *const c_char, len: usize, replaced_out: *mut bool) -> ViStatus {
    boundary::status("vi_center_from_json", || {
        let c = unsafe { resolve(center) }?;
        let text = unsafe { string::arg("the JSON", json, len) }?;
        let replaced = c
            .from_json_text(text)
            .map_err(|e| Failure::new(ViStatus::InvalidJson, format!("the JSON: {e}")))?;
        unsafe { string::write_optional(replaced_out, replaced) };
        Ok(())
    })
}

/// Runs a call with a key argument on a Center.
///
/// # Safety
/// As `resolve` and `string::arg`.
unsafe fn with_key(function: &str, center: *const ViCenter, key: *const c_char, len: usize, f: impl FnOnce(&Center, &str)) -> ViStatus {
    boundary::status(function, || {
        let c = unsafe { resolve(center) }?;
        f(c, unsafe { string::arg("the key", key, len) }?);
        Ok(())
    })
}

/// Looks one entry up by key into a new handle.
///
/// # Safety
/// As `resolve`, `string::arg` and `Handle::write`.
unsafe fn get_one<H: Handle>(
    function: &str,
    center: *const ViCenter,
    key: *const c_char,
    len: usize,
    out: *mut *mut H,
    find: impl FnOnce(&Center, &str) -> Option<H::Target>,
) -> ViStatus {
    boundary::status(function, || {
        let c = unsafe { resolve(center) }?;
        let key = unsafe { string::arg("the key", key, len) }?;
        let found = find(c, key).ok_or_else(|| Failure::new(ViStatus::NotFound, format!("nothing registered as {key:?}")))?;
        unsafe { H::write(out, found) }
    })
}

/// Writes text computed from a Center.
///
/// # Safety
/// As `resolve` and `string::write_owned`.
unsafe fn list(function: &str, center: *const ViCenter, out: *mut *mut ViString, make: impl FnOnce(&Center) -> String) -> ViStatus {
    boundary::status(function, || {
        let text = make(unsafe { resolve(center) }?);
        unsafe { string::write_owned(out, text) }
    })
}
