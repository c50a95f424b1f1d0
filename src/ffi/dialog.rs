//! `Dialog` (SPEC §D): a shared handle. A `ViDialog*` is one reference to a conversation (the
//! same one a Center may hold); `vi_dialog_free` releases the reference, and the conversation
//! (and its run) ends when the last reference goes. Thread-safe: any call from any thread.

use super::boundary::{self, Failure};
use super::center::{ViCenter, resolve};
use super::event::{CEventSink, ViEventCallback};
use super::user_data::ViUserDataDestroy;
use super::function::{ViFunction, host_user_data};
use super::handle::{Handle, access, impl_handle};
use super::mcp::ViMcp;
use super::message::ViMessage;
use super::prompt::ViPrompt;
use super::skill::ViSkill;
use super::status::ViStatus;
use super::string::{self, ViString};
use crate::dialog::{ContextPolicy, Dialog};
use crate::function::HostToken;
use crate::message::Message;
use std::collections::HashMap;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// A reference to a dialog (opaque).
pub struct ViDialog {
    _private: [u8; 0],
}
impl_handle!(ViDialog => Dialog, "the dialog");

/// A snapshot of a dialog's messages (opaque), taken under one lock.
pub struct ViMessageList {
    _private: [u8; 0],
}
impl_handle!(ViMessageList => (Vec<Option<Message>>, u64), "the message list");

/// A new, unregistered dialog resolving in `center` (NULL = the global Center).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_new(center: *const ViCenter, dialog_out: *mut *mut ViDialog) -> ViStatus {
    unsafe { access::new("vi_dialog_new", dialog_out, || Ok(Dialog::new(resolve(center)?))) }
}

/// Another reference to the same dialog.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_clone_ref(dialog: *const ViDialog, dialog_out: *mut *mut ViDialog) -> ViStatus {
    unsafe { access::clone("vi_dialog_clone_ref", dialog, dialog_out) }
}

/// Whether two references name the same dialog.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_same(a: *const ViDialog, b: *const ViDialog) -> bool {
    boundary::boundary("vi_dialog_same", || Ok(unsafe { ViDialog::get(a) }?.same_as(unsafe { ViDialog::get(b) }?)))
}

/// Releases this reference; NULL is a no-op. The last reference aborts a run in progress
/// (silently: its callback is gone with it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_free(dialog: *mut ViDialog) {
    unsafe { access::free("vi_dialog_free", dialog) }
}

/// Sets (or, with a NULL `callback`, clears) the event callback. The previous `user_data` is
/// released through its `destroy` once no call through it is in flight, on whichever thread
/// finishes last. Events of a run already queued keep flowing to the new callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_event_callback(
    dialog: *const ViDialog,
    callback: ViEventCallback,
    user_data: *mut c_void,
    destroy: ViUserDataDestroy,
) -> ViStatus {
    boundary::status("vi_dialog_set_event_callback", || {
        let d = unsafe { ViDialog::get(dialog) };
        let sink = callback.map(|cb| Arc::new(CEventSink::new(cb, user_data, destroy)) as Arc<dyn crate::EventSink>);
        // The functions a run calls get this `user_data` as their `context`.
        let context = if sink.is_some() { HostToken(user_data as usize) } else { HostToken::NONE };
        let d = match d {
            Ok(d) => d,
            Err(e) => {
                drop(sink); // releases user_data: the contract says so on failure too
                return Err(e);
            }
        };
        d.set_sink(sink, context);
        Ok(())
    })
}

/// The id (owned) in `*id_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_id(dialog: *const ViDialog, id_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_id", dialog, id_out, |d| Ok(d.id())) }
}

/// Sets the id of the dialog this one branched from.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_branch_from_id(dialog: *const ViDialog, id: *const c_char, len: usize) -> ViStatus {
    unsafe { with_str("vi_dialog_set_branch_from_id", dialog, id, len, Dialog::set_branch_from_id) }
}

/// The branch-from id (owned) in `*id_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_branch_from_id(dialog: *const ViDialog, id_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_branch_from_id", dialog, id_out, |d| Ok(d.branch_from_id())) }
}

/// Sets the provider id ("" = the Center's default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_provider_id(dialog: *const ViDialog, id: *const c_char, len: usize) -> ViStatus {
    unsafe { with_str("vi_dialog_set_provider_id", dialog, id, len, Dialog::set_provider_id) }
}

/// The provider id (owned) in `*id_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_provider_id(dialog: *const ViDialog, id_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_provider_id", dialog, id_out, |d| Ok(d.provider_id())) }
}

/// Sets the model id ("" = picked by the provider).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_model_id(dialog: *const ViDialog, id: *const c_char, len: usize) -> ViStatus {
    unsafe { with_str("vi_dialog_set_model_id", dialog, id, len, Dialog::set_model_id) }
}

/// The model id (owned) in `*id_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_model_id(dialog: *const ViDialog, id_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_model_id", dialog, id_out, |d| Ok(d.model_id())) }
}

/// Sets the capability bits a picked model must have.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_capability_requirement(dialog: *const ViDialog, required: u32) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_set_capability_requirement", |d| d.set_capability_requirement(required)) }
}

/// The capability requirement (1, Text, by default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_capability_requirement(dialog: *const ViDialog) -> u32 {
    unsafe { access::get("vi_dialog_capability_requirement", dialog, Dialog::capability_requirement) }
}

/// Appends a copy of `message`; the callback gets `MessageAppended`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_append_message(dialog: *const ViDialog, message: *const ViMessage) -> ViStatus {
    boundary::status("vi_dialog_append_message", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        d.append_message(unsafe { ViMessage::get(message) }?.clone());
        Ok(())
    })
}

/// Removes every message.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_clear_messages(dialog: *const ViDialog) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_clear_messages", Dialog::clear_messages) }
}

/// A snapshot of the messages and their revision in `*list_out` (free with
/// `vi_message_list_free`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_messages(dialog: *const ViDialog, list_out: *mut *mut ViMessageList) -> ViStatus {
    boundary::status("vi_dialog_messages", || {
        let (messages, revision) = unsafe { ViDialog::get(dialog) }?.messages_with_revision();
        unsafe { ViMessageList::write(list_out, (messages.into_iter().map(Some).collect(), revision)) }
    })
}

/// The messages changed since a snapshot of `count` messages taken at `revision` (a
/// `vi_message_list_revision`): when only appends happened since, the list holds just the
/// appended messages and `*first_out` is `count` (they belong at index `count` on); otherwise
/// the list holds every message and `*first_out` is 0. The list's revision is the current
/// one. Free the list with `vi_message_list_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_messages_since(
    dialog: *const ViDialog,
    revision: u64,
    count: usize,
    list_out: *mut *mut ViMessageList,
    first_out: *mut usize,
) -> ViStatus {
    boundary::status("vi_dialog_messages_since", || {
        if first_out.is_null() {
            return Err(Failure::null("first_out"));
        }
        let (messages, first, now) = unsafe { ViDialog::get(dialog) }?.messages_since(revision, count);
        unsafe { ViMessageList::write(list_out, (messages.into_iter().map(Some).collect(), now)) }?;
        // SAFETY: checked non-null above; the caller's contract on `first_out`.
        unsafe { *first_out = first };
        Ok(())
    })
}

/// A number that changes whenever the messages change (cheap: no lock); lets a host keep a
/// cached copy of the messages.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_revision(dialog: *const ViDialog) -> u64 {
    unsafe { access::get("vi_dialog_revision", dialog, Dialog::revision) }
}

/// The number of messages in a snapshot.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_list_len(list: *const ViMessageList) -> usize {
    unsafe { access::get("vi_message_list_len", list, |l| l.0.len()) }
}

/// The revision a snapshot belongs to (see `vi_dialog_revision`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_list_revision(list: *const ViMessageList) -> u64 {
    unsafe { access::get("vi_message_list_revision", list, |l| l.1) }
}

/// Moves message `index` out of the snapshot into a new handle (NULL when out of range or
/// already taken); the caller frees it with `vi_message_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_list_take(list: *mut ViMessageList, index: usize) -> *mut ViMessage {
    boundary::boundary("vi_message_list_take", || {
        let l = unsafe { ViMessageList::get_mut(list) }?;
        Ok(l.0.get_mut(index).and_then(Option::take).map_or(std::ptr::null_mut(), ViMessage::into_raw))
    })
}

/// Releases a snapshot (and the messages not taken); NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_message_list_free(list: *mut ViMessageList) {
    unsafe { access::free("vi_message_list_free", list) }
}

/// A copy of the last message (a default User message when there is none) in `*message_out`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_last_message(dialog: *const ViDialog, message_out: *mut *mut ViMessage) -> ViStatus {
    boundary::status("vi_dialog_last_message", || {
        let last = unsafe { ViDialog::get(dialog) }?.last_message();
        unsafe { ViMessage::write(message_out, last) }
    })
}

/// The number of messages.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_message_count(dialog: *const ViDialog) -> usize {
    unsafe { access::get("vi_dialog_message_count", dialog, Dialog::message_count) }
}

/// Keeps the first `count` messages; negative or ≥ the count changes nothing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_truncate_to(dialog: *const ViDialog, count: i64) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_truncate_to", |d| d.truncate_to(count)) }
}

/// The index of the last assistant message, -1 when none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_find_last_assistant_message(dialog: *const ViDialog) -> i64 {
    boundary::boundary("vi_dialog_find_last_assistant_message", || Ok(unsafe { ViDialog::get(dialog) }?.find_last_assistant_message()))
}

/// Copies messages, skills, MCP servers, prompts, provider, model and requirement (not
/// functions) into `target`; false for NULL or the same dialog.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_copy_to(dialog: *const ViDialog, target: *const ViDialog) -> bool {
    boundary::boundary("vi_dialog_copy_to", || {
        let source = unsafe { ViDialog::get(dialog) }?;
        Ok(unsafe { target.cast::<Dialog>().as_ref() }.is_some_and(|t| source.copy_to(t)))
    })
}

/// Starts streaming an assistant message by hand (`StreamBegan`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_begin_assistant_message(dialog: *const ViDialog) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_begin_assistant_message", Dialog::begin_assistant_message) }
}

/// Appends streamed text (`StreamDelta`); ignored unless streaming.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_append_delta(dialog: *const ViDialog, text: *const c_char, len: usize) -> ViStatus {
    unsafe { with_str("vi_dialog_append_delta", dialog, text, len, Dialog::append_delta) }
}

/// Ends the stream: appends the message when anything was said, then `StreamEnded`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_end_assistant_message(dialog: *const ViDialog) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_end_assistant_message", Dialog::end_assistant_message) }
}

/// True while streaming or while a run is in progress.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_is_streaming(dialog: *const ViDialog) -> bool {
    unsafe { access::get("vi_dialog_is_streaming", dialog, Dialog::is_streaming) }
}

/// The text streamed so far in this round (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_streaming_content(dialog: *const ViDialog, text_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_streaming_content", dialog, text_out, |d| Ok(d.streaming_content())) }
}

/// The reasoning streamed in the current or last round (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_reasoning_content(dialog: *const ViDialog, text_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_reasoning_content", dialog, text_out, |d| Ok(d.reasoning_content())) }
}

/// Adds a copy of `skill` (same name replaced and moved to the end; no name ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_add_skill(dialog: *const ViDialog, skill: *const ViSkill) -> ViStatus {
    boundary::status("vi_dialog_add_skill", || {
        unsafe { ViDialog::get(dialog) }?.add_skill(unsafe { ViSkill::get(skill) }?.clone());
        Ok(())
    })
}

/// Removes the dialog's skill `name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_remove_skill(dialog: *const ViDialog, name: *const c_char, len: usize) -> ViStatus {
    unsafe { with_str("vi_dialog_remove_skill", dialog, name, len, Dialog::remove_skill) }
}

/// The dialog's skills as a JSON array of skill objects (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_skills(dialog: *const ViDialog, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_skills", dialog, json_out, |d| Ok(json_array(d.skills().iter().map(|s| s.to_json())))) }
}

/// Adds a copy of `mcp` (same name replaced and moved to the end).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_add_mcp(dialog: *const ViDialog, mcp: *const ViMcp) -> ViStatus {
    boundary::status("vi_dialog_add_mcp", || {
        unsafe { ViDialog::get(dialog) }?.add_mcp(unsafe { ViMcp::get(mcp) }?.clone());
        Ok(())
    })
}

/// Removes the dialog's MCP entry `name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_remove_mcp(dialog: *const ViDialog, name: *const c_char, len: usize) -> ViStatus {
    unsafe { with_str("vi_dialog_remove_mcp", dialog, name, len, Dialog::remove_mcp) }
}

/// The dialog's MCP entries as a JSON array of objects (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_mcps(dialog: *const ViDialog, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_mcps", dialog, json_out, |d| Ok(json_array(d.mcps().iter().map(|m| m.to_json())))) }
}

/// Adds a copy of `prompt` (same name replaced and moved to the end).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_add_prompt(dialog: *const ViDialog, prompt: *const ViPrompt) -> ViStatus {
    boundary::status("vi_dialog_add_prompt", || {
        unsafe { ViDialog::get(dialog) }?.add_prompt(unsafe { ViPrompt::get(prompt) }?.clone());
        Ok(())
    })
}

/// Removes the dialog's prompt `name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_remove_prompt(dialog: *const ViDialog, name: *const c_char, len: usize) -> ViStatus {
    unsafe { with_str("vi_dialog_remove_prompt", dialog, name, len, Dialog::remove_prompt) }
}

/// The dialog's prompts as a JSON array of objects (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_prompts(dialog: *const ViDialog, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_prompts", dialog, json_out, |d| Ok(json_array(d.prompts().iter().map(|p| p.to_json())))) }
}

/// Renders the dialog's prompt `name` (else the Center's) with `variables` (a JSON object of
/// strings) and appends it; `*appended_out` (optional) tells whether one was found.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_append_prompt(
    dialog: *const ViDialog,
    name: *const c_char,
    name_len: usize,
    variables_json: *const c_char,
    variables_len: usize,
    appended_out: *mut bool,
) -> ViStatus {
    boundary::status("vi_dialog_append_prompt", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        let name = unsafe { string::arg("name", name, name_len) }?;
        let vars: HashMap<String, String> =
            unsafe { string::json_string_map_arg("variables", variables_json, variables_len) }?.into_iter().collect();
        let appended = d.append_prompt(name, &vars);
        unsafe { string::write_optional(appended_out, appended) };
        Ok(())
    })
}

/// Registers `function` with this dialog, taking ownership of it (also on failure); one with
/// the same id is replaced.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_add_function(dialog: *const ViDialog, function: *mut ViFunction) -> ViStatus {
    boundary::status("vi_dialog_add_function", || {
        let f = unsafe { ViFunction::take(function) }.ok_or_else(|| Failure::null("the function"))?;
        unsafe { ViDialog::get(dialog) }?.add_function(f);
        Ok(())
    })
}

/// Removes (and releases) the dialog's function `id`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_remove_function(dialog: *const ViDialog, id: *const c_char, len: usize) -> ViStatus {
    unsafe { with_str("vi_dialog_remove_function", dialog, id, len, Dialog::remove_function) }
}

/// The `user_data` of the host function `id` — the dialog's, else its Center's — in
/// `*user_data_out`; `VI_STATUS_NOT_FOUND` when there is none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_get_function(dialog: *const ViDialog, id: *const c_char, len: usize, user_data_out: *mut *mut c_void) -> ViStatus {
    boundary::status("vi_dialog_get_function", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        let id = unsafe { string::arg("id", id, len) }?;
        let found = d.function(id).and_then(|f| host_user_data(&f));
        let user_data = found.ok_or_else(|| Failure::new(ViStatus::NotFound, format!("no function {id}")))?;
        unsafe { string::write_optional(user_data_out, user_data) };
        Ok(())
    })
}

/// The ids of the dialog's own functions as JSON array text (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_function_ids(dialog: *const ViDialog, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_function_ids", dialog, json_out, |d| access::strings_json(&d.function_ids())) }
}

/// Starts a run (SPEC §D.1). Returns at once; the outcome arrives through the event callback
/// (early failures synchronously, on this thread).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_run(dialog: *const ViDialog) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_run", Dialog::run) }
}

/// Aborts the run in progress, if any: when this returns, the dialog is not streaming and
/// `RunFailed("[Aborted] Run aborted.")` has been delivered to the callback on this thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_abort(dialog: *const ViDialog) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_abort", Dialog::abort) }
}

/// "Stop generating" (SPEC §H.3.2): ends the run in progress keeping what was said — a
/// streaming round becomes the assistant message (`MessageAppended` when non-empty, then
/// `StreamEnded`), tool calls without an answer are answered `{"error":"stopped by the user"}`
/// — and cancels the request. When this returns the dialog is not streaming and every event
/// of the stop, `RunFinished` last, has been delivered to the callback on this thread (or is
/// queued behind a delivery in progress). Nothing happens without a run.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_stop(dialog: *const ViDialog) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_stop", Dialog::stop) }
}

/// Whether every tool call waits for `vi_dialog_approve_tool_call` /
/// `vi_dialog_reject_tool_call` after a `ToolApprovalRequested` event (SPEC §H.3.4; default
/// false).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_tool_approval(dialog: *const ViDialog, on: bool) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_set_tool_approval", |d| d.set_tool_approval(on)) }
}

/// Whether tool calls wait for approval (false by default; false for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_tool_approval(dialog: *const ViDialog) -> bool {
    unsafe { access::get("vi_dialog_tool_approval", dialog, Dialog::tool_approval) }
}

/// Runs the waiting call `call_id`. Any thread. `VI_STATUS_NOT_FOUND` when no call of the
/// run waits for a decision under that id (decided already, or the run is over).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_approve_tool_call(dialog: *const ViDialog, call_id: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_dialog_approve_tool_call", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        let id = unsafe { string::arg("the call id", call_id, len) }?;
        decided(d.approve_tool_call(id), id)
    })
}

/// Answers the waiting call `call_id` with `{"error":"the user declined this call: <reason>"}`
/// (`reason` may be NULL with `reason_len` 0). Any thread. `VI_STATUS_NOT_FOUND` as for
/// `vi_dialog_approve_tool_call`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_reject_tool_call(
    dialog: *const ViDialog,
    call_id: *const c_char,
    len: usize,
    reason: *const c_char,
    reason_len: usize,
) -> ViStatus {
    boundary::status("vi_dialog_reject_tool_call", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        let id = unsafe { string::arg("the call id", call_id, len) }?;
        let reason = unsafe { string::arg("the reason", reason, reason_len) }?;
        decided(d.reject_tool_call(id, reason), id)
    })
}

/// Answers the MCP elicitation `request_id` (`VI_EVENT_KIND_MCP_ELICITATION_REQUESTED`, SPEC
/// §H.4.5): `action` is "accept" (with `content_json`, a JSON object matching the requested
/// schema), "decline" or "cancel" (`content_json` NULL with length 0). Any thread.
/// `VI_STATUS_NOT_FOUND` when nothing waits under that id (answered, or the run is over);
/// `VI_STATUS_INVALID_ARGUMENT` for another action.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_answer_mcp_elicitation(
    dialog: *const ViDialog,
    request_id: *const c_char,
    request_id_len: usize,
    action: *const c_char,
    action_len: usize,
    content_json: *const c_char,
    content_json_len: usize,
) -> ViStatus {
    boundary::status("vi_dialog_answer_mcp_elicitation", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        let id = unsafe { string::arg("the request id", request_id, request_id_len) }?;
        let action = unsafe { string::arg("the action", action, action_len) }?;
        if !matches!(action, "accept" | "decline" | "cancel") {
            return Err(Failure::new(ViStatus::InvalidArgument, format!("the action {action:?} is not accept, decline or cancel")));
        }
        let content = if content_json_len == 0 {
            None
        } else {
            Some(serde_json::Value::Object(unsafe { string::json_object_arg("the content", content_json, content_json_len) }?))
        };
        if d.answer_mcp_elicitation(id, action, content) {
            Ok(())
        } else {
            Err(Failure::new(ViStatus::NotFound, format!("no MCP elicitation waits for an answer under the id {id:?}")))
        }
    })
}

/// Whether the calls of one answer start together (SPEC §H.3.5; default true).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_parallel_tool_calls(dialog: *const ViDialog, on: bool) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_set_parallel_tool_calls", |d| d.set_parallel_tool_calls(on)) }
}

/// Whether the calls of one answer start together (true by default; false for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_parallel_tool_calls(dialog: *const ViDialog) -> bool {
    unsafe { access::get("vi_dialog_parallel_tool_calls", dialog, Dialog::parallel_tool_calls) }
}

/// How many answers with tool calls a run follows with another round (SPEC §H.3.6; default
/// 8; a negative count is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_max_tool_rounds(dialog: *const ViDialog, rounds: i32) -> ViStatus {
    unsafe { with(dialog, "vi_dialog_set_max_tool_rounds", |d| d.set_max_tool_rounds(rounds)) }
}

/// The tool-round limit (8 by default; 0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_max_tool_rounds(dialog: *const ViDialog) -> i32 {
    unsafe { access::get("vi_dialog_max_tool_rounds", dialog, Dialog::max_tool_rounds) }
}

/// Asks every answer to match `schema` (JSON Schema object text) under `name`, in the API's
/// own way (SPEC §H.2.3); an empty object (or `schema_len` 0) asks for nothing. Text that is
/// not a JSON object is `VI_STATUS_INVALID_JSON` and changes nothing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_response_schema(
    dialog: *const ViDialog,
    name: *const c_char,
    name_len: usize,
    schema: *const c_char,
    schema_len: usize,
) -> ViStatus {
    boundary::status("vi_dialog_set_response_schema", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        let name = unsafe { string::arg("the name", name, name_len) }?;
        let schema = match schema_len {
            0 => serde_json::Map::new(),
            _ => unsafe { string::json_object_arg("the schema", schema, schema_len) }?,
        };
        d.set_response_schema(name, serde_json::Value::Object(schema));
        Ok(())
    })
}

/// The response schema as `{"name","schema"}` JSON text, "" when none (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_response_schema(dialog: *const ViDialog, json_out: *mut *mut ViString) -> ViStatus {
    unsafe {
        access::owned("vi_dialog_response_schema", dialog, json_out, |d| {
            Ok(d.response_schema().map(|r| serde_json::json!({"name": r.name, "schema": r.schema}).to_string()).unwrap_or_default())
        })
    }
}

/// Context policy: a request that would not fit the model's context window fails before
/// sending with `[ContextOverflow] <estimated> of <window> tokens` (the default).
pub const VI_CONTEXT_POLICY_FAIL: u32 = 0;
/// Context policy: the request leaves out the oldest turns until it fits; the dialog keeps them.
pub const VI_CONTEXT_POLICY_DROP_OLDEST: u32 = 1;
/// Context policy: the oldest turns are replaced in the request by a summary the dialog keeps.
pub const VI_CONTEXT_POLICY_SUMMARIZE: u32 = 2;

/// Sets what a request that would not fit the model's context window does (SPEC §I.4.2;
/// `VI_CONTEXT_POLICY_*`, anything else is `VI_STATUS_INVALID_ARGUMENT`). Any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_context_policy(dialog: *const ViDialog, policy: u32) -> ViStatus {
    boundary::status("vi_dialog_set_context_policy", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        let policy = ContextPolicy::from_u32(policy)
            .ok_or_else(|| Failure::new(ViStatus::InvalidArgument, format!("context policy {policy} is not 0..2")))?;
        d.set_context_policy(policy);
        Ok(())
    })
}

/// The context policy (`VI_CONTEXT_POLICY_FAIL` for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_context_policy(dialog: *const ViDialog) -> u32 {
    unsafe { access::get("vi_dialog_context_policy", dialog, |d| d.context_policy() as u32) }
}

/// Sets the provider and model whose one completion makes the summary of
/// `VI_CONTEXT_POLICY_SUMMARIZE` (SPEC §I.4.2); both "" (the default) = the run's own model. A
/// model id names the model; a provider id alone picks its first model. An unavailable one
/// falls back to the run's model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_set_summary_model(
    dialog: *const ViDialog,
    provider_id: *const c_char,
    provider_id_len: usize,
    model_id: *const c_char,
    model_id_len: usize,
) -> ViStatus {
    boundary::status("vi_dialog_set_summary_model", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        let provider_id = unsafe { string::arg("the provider id", provider_id, provider_id_len) }?;
        let model_id = unsafe { string::arg("the model id", model_id, model_id_len) }?;
        d.set_summary_model(provider_id, model_id);
        Ok(())
    })
}

/// The summary model's provider id (owned) in `*id_out` ("" = the run's own).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_summary_provider_id(dialog: *const ViDialog, id_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_summary_provider_id", dialog, id_out, |d| Ok(d.summary_model().0)) }
}

/// The summary model's model id (owned) in `*id_out` ("" = the run's own).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_summary_model_id(dialog: *const ViDialog, id_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_summary_model_id", dialog, id_out, |d| Ok(d.summary_model().1)) }
}

/// The summary `VI_CONTEXT_POLICY_SUMMARIZE` keeps (owned) in `*text_out`, "" when none has
/// been made; `*covered_out` (optional) is how many of the first messages it stands for.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_context_summary(dialog: *const ViDialog, text_out: *mut *mut ViString, covered_out: *mut i64) -> ViStatus {
    boundary::status("vi_dialog_context_summary", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        let summary = d.context_summary().unwrap_or_default();
        // SAFETY: per the contract, NULL or writable storage.
        unsafe { string::write_owned(text_out, summary.text) }?;
        unsafe { string::write_optional(covered_out, summary.covered as i64) };
        Ok(())
    })
}

/// The `usage` object the server last reported, as JSON text ("" when none) (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_last_usage(dialog: *const ViDialog, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::owned("vi_dialog_last_usage", dialog, json_out, |d| Ok(d.last_usage().map(|u| u.to_string()).unwrap_or_default())) }
}

/// The dialog as JSON object text (SPEC §D) (owned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_to_json(dialog: *const ViDialog, json_out: *mut *mut ViString) -> ViStatus {
    unsafe { access::to_json("vi_dialog_to_json", dialog, json_out, Dialog::to_json) }
}

/// Applies JSON object text; `*id_read_out` (optional) tells whether an id was restored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_dialog_from_json(dialog: *const ViDialog, json: *const c_char, len: usize, id_read_out: *mut bool) -> ViStatus {
    boundary::status("vi_dialog_from_json", || {
        let d = unsafe { ViDialog::get(dialog) }?;
        let object = unsafe { string::json_object_arg("the JSON", json, len) }?;
        let read = d.from_json(&object);
        unsafe { string::write_optional(id_read_out, read) };
        Ok(())
    })
}

/// Runs a call on a dialog reference.
///
/// # Safety
/// As `Handle::get`.
unsafe fn with(dialog: *const ViDialog, function: &str, f: impl FnOnce(&Dialog)) -> ViStatus {
    boundary::status(function, || {
        f(unsafe { ViDialog::get(dialog) }?);
        Ok(())
    })
}

/// Runs a call with a string argument on a dialog reference.
///
/// # Safety
/// As `Handle::get` and `string::arg`.
unsafe fn with_str(function: &str, dialog: *const ViDialog, data: *const c_char, len: usize, f: impl FnOnce(&Dialog, &str)) -> ViStatus {
    boundary::status(function, || {
        let d = unsafe { ViDialog::get(dialog) }?;
        f(d, unsafe { string::arg("the string", data, len) }?);
        Ok(())
    })
}

/// `NotFound` unless a waiting call took the decision.
fn decided(found: bool, call_id: &str) -> boundary::Result<()> {
    if found { Ok(()) } else { Err(Failure::new(ViStatus::NotFound, format!("no tool call waits for a decision under the id {call_id:?}"))) }
}

pub(crate) fn json_array(items: impl Iterator<Item = serde_json::Value>) -> String {
    serde_json::Value::Array(items.collect()).to_string()
}
