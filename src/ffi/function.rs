//! `Function` (SPEC §B.7) for hosts: the host's object behind a C vtable, and the one-shot
//! reply through which it answers a call.

use super::boundary::{self, Failure};
use super::status::ViStatus;
use super::string;
use crate::function::{Function, FunctionSpec, HostToken, ToolReply};
use serde_json::Value;
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// Starts a call of the host's function. Fires on a library thread; must not block for long
/// and must not throw or unwind. `context` is the `user_data` of the event callback of the
/// dialog running the call (NULL when it has none), so the host can route the call to that
/// dialog's thread. `arguments` (JSON object text, `len` bytes, not NUL-terminated) lives only
/// during this call. `reply` belongs to the host from now on: answer it exactly once with
/// `vi_tool_reply_complete`, from any thread, now or later, or release it with
/// `vi_tool_reply_free` (which answers with an error).
pub type ViFunctionInvoke =
    Option<unsafe extern "C" fn(user_data: *mut c_void, context: *mut c_void, arguments: *const c_char, len: usize, reply: *mut ViToolReply)>;

/// Releases the host's object once the library holds no reference to it any more; may fire on
/// any thread.
pub type ViFunctionDestroy = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// A function ready to be registered with `vi_center_add_function` or
/// `vi_dialog_add_function` (opaque). Registering takes ownership; an unregistered one is
/// released with `vi_function_free`.
pub struct ViFunction {
    _private: [u8; 0],
}
super::handle::impl_handle!(ViFunction => Arc<dyn Function>, "the function");

/// The answer channel of one tool call (opaque).
pub struct ViToolReply {
    _private: [u8; 0],
}
super::handle::impl_handle!(ViToolReply => ToolReply, "the tool reply");

/// A host function as the core sees it. Its `user_data` is also `spec.host`, so that
/// `vi_dialog_get_function` can give it back.
struct CFunction {
    spec: FunctionSpec,
    user_data: *mut c_void,
    invoke: unsafe extern "C" fn(*mut c_void, *mut c_void, *const c_char, usize, *mut ViToolReply),
    destroy: ViFunctionDestroy,
}

// SAFETY: the vtable's contract (header) requires `invoke` and `destroy` to be callable from any
// thread with this `user_data`.
unsafe impl Send for CFunction {}
// SAFETY: as above; the library never touches `user_data` itself.
unsafe impl Sync for CFunction {}

impl Function for CFunction {
    fn spec(&self) -> &FunctionSpec {
        &self.spec
    }

    fn invoke(&self, arguments: Value, context: HostToken, reply: ToolReply) {
        // The token is the dialog's event-callback `user_data` (vi_dialog_set_event_callback).
        let context = context.0 as *mut c_void;
        let text = arguments.to_string();
        let reply = <ViToolReply as super::handle::Handle>::into_raw(reply);
        // SAFETY: per the vtable contract; the text outlives the call.
        unsafe { (self.invoke)(self.user_data, context, text.as_ptr().cast(), text.len(), reply) };
    }
}

impl Drop for CFunction {
    fn drop(&mut self) {
        if let Some(destroy) = self.destroy {
            // SAFETY: per the vtable contract, exactly once.
            unsafe { destroy(self.user_data) };
        }
    }
}

/// The host's `user_data` behind a registered function, if a host registered it here.
pub(crate) fn host_user_data(function: &Arc<dyn Function>) -> Option<*mut c_void> {
    function.spec().host.map(|host| host.0 as *mut c_void)
}

/// Wraps a host function. `id` (the tool name; must match `^[a-zA-Z0-9_-]{1,64}$` to be
/// offered), `name`, `description` and `parameter_schema` (JSON object text) are read now, once.
/// `invoke` is required; `destroy` (optional) releases `user_data` when the library is done with
/// it — also when this call fails. `*function_out` owns the result.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_function_new(
    id: *const c_char,
    id_len: usize,
    name: *const c_char,
    name_len: usize,
    description: *const c_char,
    description_len: usize,
    parameter_schema: *const c_char,
    parameter_schema_len: usize,
    user_data: *mut c_void,
    invoke: ViFunctionInvoke,
    destroy: ViFunctionDestroy,
    function_out: *mut *mut ViFunction,
) -> ViStatus {
    boundary::status("vi_function_new", || {
        let release = || {
            if let Some(destroy) = destroy {
                // SAFETY: the contract says `destroy` runs when the call fails too.
                unsafe { destroy(user_data) };
            }
        };
        let spec = (|| {
            let invoke = invoke.ok_or_else(|| Failure::null("invoke"))?;
            let schema_text = unsafe { string::arg("parameter schema", parameter_schema, parameter_schema_len) }?;
            let parameter_schema = if schema_text.trim().is_empty() {
                Value::Object(Default::default())
            } else {
                serde_json::from_str(schema_text)
                    .map_err(|e| Failure::new(ViStatus::InvalidJson, format!("the parameter schema is not JSON: {e}")))?
            };
            let spec = FunctionSpec {
                id: unsafe { string::arg("id", id, id_len) }?.to_owned(),
                name: unsafe { string::arg("name", name, name_len) }?.to_owned(),
                description: unsafe { string::arg("description", description, description_len) }?.to_owned(),
                parameter_schema,
                host: Some(HostToken(user_data as usize)),
            };
            if function_out.is_null() {
                return Err(Failure::null("the out-parameter"));
            }
            Ok((spec, invoke))
        })();
        let (spec, invoke) = spec.inspect_err(|_| release())?;
        let function: Arc<dyn Function> = Arc::new(CFunction { spec, user_data, invoke, destroy });
        unsafe { <ViFunction as super::handle::Handle>::write(function_out, function) }
    })
}

/// Releases a function that was not registered; NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_function_free(function: *mut ViFunction) {
    unsafe { super::handle::access::free("vi_function_free", function) }
}

/// Answers a tool call with `result` (JSON text; text that is not JSON is sent as a JSON string)
/// and releases `reply`. A late answer (after an abort) is dropped. Any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_tool_reply_complete(reply: *mut ViToolReply, result: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_tool_reply_complete", || {
        let text = unsafe { string::arg("result", result, len) };
        let Some(reply) = (unsafe { <ViToolReply as super::handle::Handle>::take(reply) }) else {
            return Err(Failure::null("the tool reply"));
        };
        let text = text?;
        let value = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()));
        reply.complete(value);
        Ok(())
    })
}

/// Releases `reply` without an answer: the call's result becomes an error. NULL is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_tool_reply_free(reply: *mut ViToolReply) {
    unsafe { super::handle::access::free("vi_tool_reply_free", reply) }
}
