//! The C ABI called as C would call it: NULL handles, invalid UTF-8, malformed JSON, ownership
//! and callbacks. Nothing may crash or unwind; every failure is a status plus a last error.

use std::ffi::{CStr, c_char, c_void};
use std::ptr::{null, null_mut};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use visindigo_agent::ffi::center::*;
use visindigo_agent::ffi::dialog::*;
use visindigo_agent::ffi::event::*;
use visindigo_agent::ffi::function::*;
use visindigo_agent::ffi::log::*;
use visindigo_agent::ffi::message::*;
use visindigo_agent::ffi::model::*;
use visindigo_agent::ffi::prompt::*;
use visindigo_agent::ffi::provider::*;
use visindigo_agent::ffi::skill::*;
use visindigo_agent::ffi::mcp::*;
use visindigo_agent::ffi::status::*;
use visindigo_agent::ffi::string::*;

fn s(text: &str) -> (*const c_char, usize) {
    (text.as_ptr().cast(), text.len())
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(vi_last_error()) }.to_string_lossy().into_owned()
}

fn view(v: ViStr) -> String {
    let bytes = unsafe { std::slice::from_raw_parts(v.data.cast::<u8>(), v.len) };
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn take(string: *mut ViString) -> String {
    let text = view(vi_string_view(string));
    vi_string_free(string);
    text
}

const BAD_UTF8: &[u8] = b"\xff\xfe oops";

#[test]
fn null_handles_give_a_status_and_a_message() {
    unsafe {
        let (p, n) = s("x");
        assert_eq!(vi_message_set_content(null_mut(), p, n), ViStatus::NullArgument);
        assert!(last_error().contains("vi_message_set_content: the message is NULL"), "{}", last_error());
        assert_eq!(view(vi_message_content(null())), "");
        assert!(vi_message_is_empty(null()));
        assert_eq!(vi_model_timeout_ms(null()), 0);
        assert!(!vi_provider_is_valid(null()));
        let mut out = null_mut();
        assert_eq!(vi_model_to_json(null(), &mut out), ViStatus::NullArgument);
        assert!(out.is_null(), "out-parameters are written only on success");
        assert_eq!(vi_dialog_run(null()), ViStatus::NullArgument);
        assert_eq!(vi_dialog_abort(null()), ViStatus::NullArgument);
        assert_eq!(vi_message_new(1, p, n, null_mut()), ViStatus::NullArgument);
        assert_eq!(vi_message_new(1, null(), 3, &mut null_mut()), ViStatus::NullArgument);
        // Releasing NULL is a no-op everywhere.
        vi_message_free(null_mut());
        vi_model_free(null_mut());
        vi_provider_free(null_mut());
        vi_skill_free(null_mut());
        vi_mcp_free(null_mut());
        vi_prompt_free(null_mut());
        vi_dialog_free(null_mut());
        vi_center_free(null_mut());
        vi_center_free(vi_center_global());
        vi_string_free(null_mut());
        vi_function_free(null_mut());
        vi_tool_reply_free(null_mut());
        vi_message_list_free(null_mut());
    }
}

#[test]
fn invalid_utf8_is_rejected_and_changes_nothing() {
    unsafe {
        let mut m = null_mut();
        let (p, n) = s("kept");
        assert_eq!(vi_message_new(1, p, n, &mut m), ViStatus::Ok);
        assert_eq!(vi_message_set_content(m, BAD_UTF8.as_ptr().cast(), BAD_UTF8.len()), ViStatus::InvalidUtf8);
        assert!(last_error().contains("not valid UTF-8"));
        assert_eq!(view(vi_message_content(m)), "kept");
        assert_eq!(vi_message_new(1, BAD_UTF8.as_ptr().cast(), BAD_UTF8.len(), &mut null_mut()), ViStatus::InvalidUtf8);
        // NULL with length 0 is the empty string.
        assert_eq!(vi_message_set_name(m, null(), 0), ViStatus::Ok);
        // Embedded NULs are kept: lengths, not terminators.
        let with_nul = "a\0b";
        assert_eq!(vi_message_set_content(m, with_nul.as_ptr().cast(), 3), ViStatus::Ok);
        assert_eq!(view(vi_message_content(m)), "a\0b");
        vi_message_free(m);
    }
}

#[test]
fn malformed_json_is_rejected_by_every_from_json() {
    unsafe {
        let mut msg = null_mut();
        vi_message_new(0, null(), 0, &mut msg);
        let mut model = null_mut();
        vi_model_new(&mut model);
        let mut provider = null_mut();
        vi_provider_new(null(), 0, &mut provider);
        let mut skill = null_mut();
        vi_skill_new(null(), 0, &mut skill);
        let mut mcp = null_mut();
        vi_mcp_new(null(), 0, &mut mcp);
        let mut prompt = null_mut();
        vi_prompt_new(null(), 0, null(), 0, &mut prompt);
        let mut dialog = null_mut();
        vi_dialog_new(null(), &mut dialog);
        let mut center = null_mut();
        vi_center_new(&mut center);
        for bad in ["", "{", "[1,2]", "42", "\"text\"", "null", "{\"a\":}"] {
            let (p, n) = s(bad);
            let mut flag = true;
            assert_eq!(vi_message_from_json(msg, p, n, &mut flag), ViStatus::InvalidJson, "{bad}");
            assert!(flag, "not written on failure");
            assert_eq!(vi_model_from_json(model, p, n, null_mut()), ViStatus::InvalidJson);
            assert_eq!(vi_provider_from_json(provider, p, n, null_mut()), ViStatus::InvalidJson);
            assert_eq!(vi_skill_from_json(skill, p, n, null_mut()), ViStatus::InvalidJson);
            assert_eq!(vi_mcp_from_json(mcp, p, n, null_mut()), ViStatus::InvalidJson);
            assert_eq!(vi_prompt_from_json(prompt, p, n, null_mut()), ViStatus::InvalidJson);
            assert_eq!(vi_dialog_from_json(dialog, p, n, null_mut()), ViStatus::InvalidJson);
            assert_eq!(vi_center_from_json(center, p, n, null_mut()), ViStatus::InvalidJson);
            assert_eq!(vi_center_restore_dialog(center, p, n, &mut null_mut()), ViStatus::InvalidJson);
        }
        // Wrongly typed fields read as empty values; nothing fails.
        let wrong = r#"{"role": 3, "content": [], "id": 7, "name": {}, "models": "x", "timeoutMs": "y", "messages": {"a": 1}, "enabled": "no"}"#;
        let (p, n) = s(wrong);
        let mut recognized = true;
        assert_eq!(vi_message_from_json(msg, p, n, &mut recognized), ViStatus::Ok);
        assert!(!recognized);
        assert_eq!(vi_message_role(msg), VI_ROLE_USER);
        assert_eq!(vi_model_from_json(model, p, n, null_mut()), ViStatus::Ok);
        assert_eq!(vi_provider_from_json(provider, p, n, null_mut()), ViStatus::Ok);
        assert_eq!(vi_skill_from_json(skill, p, n, null_mut()), ViStatus::Ok);
        assert!(!vi_skill_is_enabled(skill));
        assert_eq!(vi_mcp_from_json(mcp, p, n, null_mut()), ViStatus::Ok);
        assert_eq!(vi_prompt_from_json(prompt, p, n, null_mut()), ViStatus::Ok);
        assert_eq!(vi_dialog_from_json(dialog, p, n, null_mut()), ViStatus::Ok);
        let mut replaced = false;
        assert_eq!(vi_center_from_json(center, p, n, &mut replaced), ViStatus::Ok);
        assert!(replaced);
        let (p, n) = s("{}");
        assert_eq!(vi_center_from_json(center, p, n, &mut replaced), ViStatus::Ok);
        assert!(!replaced);
        vi_message_free(msg);
        vi_model_free(model);
        vi_provider_free(provider);
        vi_skill_free(skill);
        vi_mcp_free(mcp);
        vi_prompt_free(prompt);
        vi_dialog_free(dialog);
        vi_center_free(center);
    }
}

#[test]
fn out_of_range_enums_are_invalid_arguments() {
    unsafe {
        let mut m = null_mut();
        assert_eq!(vi_message_new(9, null(), 0, &mut m), ViStatus::InvalidArgument);
        vi_message_new(2, null(), 0, &mut m);
        assert_eq!(vi_message_set_role(m, 5), ViStatus::InvalidArgument);
        assert_eq!(vi_message_role(m), VI_ROLE_ASSISTANT);
        vi_message_free(m);
        let mut mcp = null_mut();
        vi_mcp_new(null(), 0, &mut mcp);
        assert_eq!(vi_mcp_set_transport(mcp, 3), ViStatus::InvalidArgument);
        vi_mcp_free(mcp);
        let mut model = null_mut();
        vi_model_new(&mut model);
        let (k, kn) = s("temperature");
        let (v, vn) = s("not json");
        assert_eq!(vi_model_set_parameter(model, k, kn, v, vn), ViStatus::InvalidJson);
        let (v, vn) = s("256.0");
        assert_eq!(vi_model_set_parameter(model, k, kn, v, vn), ViStatus::Ok);
        let mut out = null_mut();
        vi_model_parameters(model, &mut out);
        assert_eq!(take(out), r#"{"temperature":256}"#);
        assert_eq!(vi_model_set_api(model, 4), ViStatus::InvalidArgument);
        assert_eq!(vi_model_api(model), VI_API_CHAT_COMPLETIONS);
        assert_eq!(vi_model_set_api(model, VI_API_ANTHROPIC_MESSAGES), ViStatus::Ok);
        assert_eq!(vi_model_api(model), VI_API_ANTHROPIC_MESSAGES);
        assert_eq!(vi_model_api(null()), VI_API_CHAT_COMPLETIONS);
        vi_model_free(model);

        let mut dialog = null_mut();
        vi_dialog_new(null(), &mut dialog);
        let (name, name_len) = s("city");
        let (bad, bad_len) = s("[1]");
        assert_eq!(vi_dialog_set_response_schema(dialog, name, name_len, bad, bad_len), ViStatus::InvalidJson);
        let (schema, schema_len) = s(r#"{"type":"object"}"#);
        assert_eq!(vi_dialog_set_response_schema(dialog, name, name_len, schema, schema_len), ViStatus::Ok);
        let mut out = null_mut();
        vi_dialog_response_schema(dialog, &mut out);
        assert_eq!(take(out), r#"{"name":"city","schema":{"type":"object"}}"#);
        assert_eq!(vi_dialog_set_response_schema(dialog, name, name_len, null(), 0), ViStatus::Ok);
        let mut out = null_mut();
        vi_dialog_response_schema(dialog, &mut out);
        assert_eq!(take(out), "");
        vi_dialog_free(dialog);
    }
}

#[test]
fn a_center_round_trips_through_the_abi() {
    unsafe {
        let mut center = null_mut();
        vi_center_new(&mut center);
        let mut model = null_mut();
        vi_model_new(&mut model);
        let (p, n) = s("gpt");
        vi_model_set_name(model, p, n);
        let (p, n) = s("http://127.0.0.1:1/v1");
        vi_model_set_url(model, p, n);
        let (p, n) = s("tok");
        vi_model_set_token(model, p, n);
        assert!(vi_model_is_valid(model));
        let id = view(vi_model_id(model));
        assert_eq!(vi_center_add_model(center, model), ViStatus::Ok);
        let mut provider = null_mut();
        vi_provider_new(null(), 0, &mut provider);
        let (p, n) = s(&id);
        vi_provider_add_model(provider, p, n, 5);
        let mut picked = null_mut();
        assert_eq!(vi_provider_pick_first(provider, center, VI_CAPABILITY_TEXT, &mut picked), ViStatus::Ok);
        assert_eq!(take(picked), id);
        vi_provider_pick_first(provider, center, VI_CAPABILITY_IMAGE, &mut picked);
        assert_eq!(take(picked), "");
        let mut found = null_mut();
        let (p, n) = s("missing");
        assert_eq!(vi_center_get_model(center, p, n, &mut found), ViStatus::NotFound);
        let mut json = null_mut();
        vi_center_to_json(center, &mut json);
        let text = take(json);
        let mut other = null_mut();
        vi_center_new(&mut other);
        let (p, n) = s(&text);
        let mut replaced = false;
        assert_eq!(vi_center_from_json(other, p, n, &mut replaced), ViStatus::Ok);
        assert!(replaced);
        vi_center_to_json(other, &mut json);
        assert_eq!(take(json), text);
        // Without the secrets (SPEC §I.5.2): the model's token is left out.
        assert_eq!(vi_center_to_json_with(other, VI_SECRETS_OMIT, &mut json), ViStatus::Ok);
        let omitted: serde_json::Value = serde_json::from_str(&take(json)).unwrap();
        assert!(omitted["models"][0].get("token").is_none() && omitted["secretsOmitted"] == true, "{omitted}");
        assert_eq!(vi_center_to_json_with(other, VI_SECRETS_INCLUDE, &mut json), ViStatus::Ok);
        assert_eq!(take(json), text);
        assert_eq!(vi_center_to_json_with(other, 2, &mut json), ViStatus::InvalidArgument);
        assert!(last_error().contains("secrets 2"), "{}", last_error());
        assert_eq!(vi_center_to_json_with(other, VI_SECRETS_OMIT, null_mut()), ViStatus::NullArgument);
        vi_model_free(model);
        vi_provider_free(provider);
        vi_center_free(center);
        vi_center_free(other);
    }
}

static EVENTS: Mutex<Vec<(ViEventKind, i64, String)>> = Mutex::new(Vec::new());
static DESTROYED: AtomicUsize = AtomicUsize::new(0);

/// The batch behind a callback's `events` pointer.
unsafe fn batch<'a>(events: *const ViEvent, count: usize) -> &'a [ViEvent] {
    assert!(!events.is_null() && count > 0, "a batch is never empty");
    unsafe { std::slice::from_raw_parts(events, count) }
}

unsafe extern "C" fn on_event(user_data: *mut c_void, events: *const ViEvent, count: usize) {
    assert_eq!(user_data as usize, 0xfeed);
    for e in unsafe { batch(events, count) } {
        EVENTS.lock().unwrap().push((e.kind, e.index, view(e.text)));
    }
}

unsafe extern "C" fn on_destroy(user_data: *mut c_void) {
    assert!(user_data as usize == 0xfeed || user_data as usize == 0xf00d);
    DESTROYED.fetch_add(1, Ordering::SeqCst);
}

unsafe extern "C" fn invoke_echo(_: *mut c_void, context: *mut c_void, arguments: *const c_char, len: usize, reply: *mut ViToolReply) {
    assert_eq!(context as usize, 0xfeed, "the context is the dialog's callback user_data");
    let args = unsafe { std::slice::from_raw_parts(arguments.cast::<u8>(), len) };
    let result = format!("{{\"echo\":{}}}", String::from_utf8_lossy(args));
    assert_eq!(unsafe { vi_tool_reply_complete(reply, result.as_ptr().cast(), result.len()) }, ViStatus::Ok);
}

#[test]
fn events_callbacks_and_host_functions() {
    unsafe {
        let mut dialog = null_mut();
        vi_dialog_new(null(), &mut dialog);
        assert_eq!(vi_dialog_set_event_callback(dialog, Some(on_event), 0xfeed as *mut c_void, Some(on_destroy)), ViStatus::Ok);
        vi_dialog_begin_assistant_message(dialog);
        let (p, n) = s("Hi");
        vi_dialog_append_delta(dialog, p, n);
        vi_dialog_end_assistant_message(dialog);
        let kinds: Vec<_> = EVENTS.lock().unwrap().iter().map(|e| (e.0, e.1, e.2.clone())).collect();
        assert_eq!(
            kinds,
            vec![
                (ViEventKind::StreamBegan, -1, String::new()),
                (ViEventKind::StreamDelta, -1, "Hi".into()),
                (ViEventKind::MessageAppended, 0, String::new()),
                (ViEventKind::StreamEnded, -1, "Hi".into()),
            ]
        );
        let mut list = null_mut();
        assert_eq!(vi_dialog_messages(dialog, &mut list), ViStatus::Ok);
        assert_eq!(vi_message_list_len(list), 1);
        assert_eq!(vi_message_list_revision(list), vi_dialog_revision(dialog));
        let first = vi_message_list_take(list, 0);
        assert!(vi_message_list_take(list, 0).is_null(), "taken once");
        assert!(vi_message_list_take(list, 7).is_null());
        assert_eq!(view(vi_message_content(first)), "Hi");
        vi_message_free(first);
        vi_message_list_free(list);

        // A host function: registered, found back by its user_data, invoked with the context.
        let mut function = null_mut();
        let (id, idn) = s("echo");
        let (schema, sn) = s(r#"{"type":"object"}"#);
        assert_eq!(
            vi_function_new(id, idn, id, idn, null(), 0, schema, sn, 0xf00d as *mut c_void, Some(invoke_echo), Some(on_destroy), &mut function),
            ViStatus::Ok
        );
        assert_eq!(vi_dialog_add_function(dialog, function), ViStatus::Ok);
        let mut user_data = null_mut();
        assert_eq!(vi_dialog_get_function(dialog, id, idn, &mut user_data), ViStatus::Ok);
        assert_eq!(user_data as usize, 0xf00d);
        let (missing, mn) = s("nope");
        assert_eq!(vi_dialog_get_function(dialog, missing, mn, &mut user_data), ViStatus::NotFound);

        // A function without invoke is refused and its user_data released at once.
        let before = DESTROYED.load(Ordering::SeqCst);
        assert_eq!(
            vi_function_new(id, idn, id, idn, null(), 0, null(), 0, 0xf00d as *mut c_void, None, Some(on_destroy), &mut null_mut()),
            ViStatus::NullArgument
        );
        assert_eq!(DESTROYED.load(Ordering::SeqCst), before + 1);

        vi_dialog_remove_function(dialog, id, idn);
        assert_eq!(DESTROYED.load(Ordering::SeqCst), before + 2, "removing a function releases it");
        vi_dialog_set_event_callback(dialog, None, null_mut(), None);
        assert_eq!(DESTROYED.load(Ordering::SeqCst), before + 3, "replacing the callback releases its user_data");
        vi_dialog_free(dialog);
    }
}

#[test]
fn the_version_matches_the_crate() {
    let v = unsafe { CStr::from_ptr(visindigo_agent::ffi::version::vi_version()) };
    assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    let name = unsafe { CStr::from_ptr(vi_status_name(ViStatus::InvalidUtf8)) };
    assert_eq!(name.to_str().unwrap(), "invalid UTF-8");
}

/// (kind, text, call_id, tool_name) of every event of the run test.
static RUN_EVENTS: Mutex<Vec<(ViEventKind, String, String, String)>> = Mutex::new(Vec::new());

unsafe extern "C" fn on_run_event(_: *mut c_void, events: *const ViEvent, count: usize) {
    for e in unsafe { batch(events, count) } {
        // The usage travels as JSON (SPEC §I.2.2); recorded in place of the (empty) text.
        let text = if e.kind == ViEventKind::UsageUpdated { view(e.json) } else { view(e.text) };
        RUN_EVENTS.lock().unwrap().push((e.kind, text, view(e.call_id), view(e.tool_name)));
    }
}

static LOG_LINES: std::sync::Mutex<Vec<(u32, String, String)>> = std::sync::Mutex::new(Vec::new());
static LOG_RELEASED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

unsafe extern "C" fn on_log(_: *mut c_void, severity: u32, category: ViStr, message: ViStr) {
    LOG_LINES.lock().unwrap().push((severity, view(category), view(message)));
}

unsafe extern "C" fn on_log_release(_: *mut c_void) {
    LOG_RELEASED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

fn run_event(kind: ViEventKind) -> Option<(ViEventKind, String, String, String)> {
    RUN_EVENTS.lock().unwrap().iter().find(|e| e.0 == kind).cloned()
}

/// A Center whose default provider has one model "m" at `url` with `context_window`, all
/// through the C ABI; the caller frees the three.
unsafe fn center_with_default_model(url: &str, context_window: i32) -> (*mut ViCenter, *mut ViModel, *mut ViProvider) {
    unsafe {
        let mut center = null_mut();
        vi_center_new(&mut center);
        let mut model = null_mut();
        vi_model_new(&mut model);
        for (setter, value) in [
            (vi_model_set_name as unsafe extern "C" fn(_, _, _) -> _, "m"),
            (vi_model_set_url, url),
            (vi_model_set_token, "t"),
        ] {
            let (p, n) = s(value);
            assert_eq!(setter(model, p, n), ViStatus::Ok);
        }
        assert_eq!(vi_model_set_context_window(model, context_window), ViStatus::Ok);
        vi_center_add_model(center, model);
        let mut provider = null_mut();
        vi_provider_new(null(), 0, &mut provider);
        let id = view(vi_model_id(model));
        let (p, n) = s(&id);
        vi_provider_add_model(provider, p, n, 0);
        vi_center_add_provider(center, provider);
        let pid = view(vi_provider_id(provider));
        let (p, n) = s(&pid);
        vi_center_set_default_provider(center, p, n);
        (center, model, provider)
    }
}

#[test]
fn a_run_through_the_abi_asks_for_approval_and_calls_the_host_function_with_its_context() {
    use vi_scripted_server::{ScriptedServer, Step, chat_chunk_content, chat_chunk_tool_call, done, script, usage_chunk};
    let server = ScriptedServer::start(script(vec![
        Step::sse(vec![chat_chunk_tool_call(0, "c1", "echo", "{\"x\":1}"), done()]),
        Step::sse(vec![chat_chunk_content("done"), usage_chunk(7, 2), done()]),
    ]))
    .unwrap();
    unsafe {
        let (center, model, provider) = center_with_default_model(&server.base_url(), 0);
        let mut function = null_mut();
        let (fid, fn_) = s("echo");
        vi_function_new(fid, fn_, fid, fn_, null(), 0, null(), 0, null_mut(), Some(invoke_echo), None, &mut function);
        vi_center_add_function(center, function);
        let mut dialog = null_mut();
        vi_center_create_dialog(center, &mut dialog);
        vi_dialog_set_event_callback(dialog, Some(on_run_event), 0xfeed as *mut c_void, None);
        // The log (SPEC §I.5.1): debug on every category, bad levels and categories refused.
        assert_eq!(vi_set_log_callback(Some(on_log), null_mut(), Some(on_log_release)), ViStatus::Ok);
        assert_eq!(vi_set_log_level(null(), 0, VI_LOG_DEBUG), ViStatus::Ok);
        assert_eq!(vi_set_log_level(null(), 0, 6), ViStatus::InvalidArgument);
        let (nope, nope_len) = s("visindigo.agent.nope");
        assert_eq!(vi_set_log_level(nope, nope_len, VI_LOG_DEBUG), ViStatus::InvalidArgument);
        assert!(last_error().contains("visindigo.agent.http"), "{}", last_error());
        assert_eq!(vi_set_log_level(BAD_UTF8.as_ptr().cast(), BAD_UTF8.len(), VI_LOG_DEBUG), ViStatus::InvalidUtf8);
        assert_eq!(vi_dialog_set_tool_approval(dialog, true), ViStatus::Ok);
        assert!(vi_dialog_tool_approval(dialog));
        assert!(vi_dialog_parallel_tool_calls(dialog));
        assert_eq!(vi_dialog_max_tool_rounds(dialog), 8);
        assert_eq!(vi_dialog_run(dialog), ViStatus::Ok);
        let start = std::time::Instant::now();
        while run_event(ViEventKind::ToolApprovalRequested).is_none() {
            assert!(start.elapsed().as_secs() < 20, "no approval request");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let asked = run_event(ViEventKind::ToolApprovalRequested).unwrap();
        assert_eq!((asked.1.as_str(), asked.2.as_str(), asked.3.as_str()), ("{\"x\":1}", "c1", "echo"));
        assert_eq!(vi_dialog_approve_tool_call(dialog, BAD_UTF8.as_ptr().cast(), BAD_UTF8.len()), ViStatus::InvalidUtf8);
        let (other, other_len) = s("c2");
        assert_eq!(vi_dialog_approve_tool_call(dialog, other, other_len), ViStatus::NotFound);
        assert!(last_error().contains("no tool call waits for a decision under the id \"c2\""), "{}", last_error());
        assert_eq!(vi_dialog_reject_tool_call(dialog, other, other_len, null(), 0), ViStatus::NotFound);
        assert_eq!(vi_dialog_approve_tool_call(null(), other, other_len), ViStatus::NullArgument);
        let (c1, c1_len) = s("c1");
        assert_eq!(vi_dialog_approve_tool_call(dialog, c1, c1_len), ViStatus::Ok);
        while vi_dialog_is_streaming(dialog) {
            assert!(start.elapsed().as_secs() < 20);
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let mut last = null_mut();
        vi_dialog_last_message(dialog, &mut last);
        assert_eq!(view(vi_message_content(last)), "done");
        vi_message_free(last);
        let mut list = null_mut();
        vi_dialog_messages(dialog, &mut list);
        let tool = vi_message_list_take(list, 1);
        assert_eq!(view(vi_message_content(tool)), r#"{"echo":{"x":1}}"#);
        vi_message_free(tool);
        vi_message_list_free(list);
        let start = std::time::Instant::now();
        while RUN_EVENTS.lock().unwrap().last().map(|e| e.0) != Some(ViEventKind::RunFinished) {
            assert!(start.elapsed().as_secs() < 20, "no RunFinished");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        assert!(RUN_EVENTS.lock().unwrap().iter().any(|e| e.0 == ViEventKind::StreamEnded && e.1 == "done"));
        let started = run_event(ViEventKind::ToolCallStarted).unwrap();
        assert_eq!((started.2.as_str(), started.3.as_str()), ("c1", "echo"));
        let finished = run_event(ViEventKind::ToolCallFinished).unwrap();
        assert_eq!((finished.1.as_str(), finished.2.as_str()), (r#"{"echo":{"x":1}}"#, "c1"));
        let usage: serde_json::Value = serde_json::from_str(&run_event(ViEventKind::UsageUpdated).unwrap().1).unwrap();
        assert_eq!((usage["inputTokens"].as_i64(), usage["outputTokens"].as_i64(), usage["prompt_tokens"].as_i64()), (Some(7), Some(2), Some(7)));
        let mut last_usage = null_mut();
        assert_eq!(vi_dialog_last_usage(dialog, &mut last_usage), ViStatus::Ok);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&take(last_usage)).unwrap(), usage);
        let mut id_out = null_mut();
        vi_dialog_id(dialog, &mut id_out);
        let dialog_id = take(id_out);
        {
            let lines = LOG_LINES.lock().unwrap();
            let started = lines.iter().find(|(_, c, m)| c == "visindigo.agent.run" && m.starts_with("run started") && m.contains(&dialog_id));
            assert_eq!(started.map(|l| l.0), Some(VI_LOG_INFO), "{lines:?}");
            let port = server.base_url().rsplit(':').next().unwrap().to_owned();
            let response = lines.iter().find(|(_, c, m)| c == "visindigo.agent.http" && m.contains(&port));
            assert!(response.is_some_and(|(s, _, m)| *s == VI_LOG_DEBUG && m.contains("status=200")), "{lines:?}");
        }
        assert_eq!(vi_set_log_callback(None, null_mut(), None), ViStatus::Ok);
        // Released once no line is being delivered to it: another test's run may be logging.
        let start = std::time::Instant::now();
        while LOG_RELEASED.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            assert!(start.elapsed().as_secs() < 10, "the old user_data is not released");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        assert_eq!(LOG_RELEASED.load(std::sync::atomic::Ordering::SeqCst), 1, "the old user_data is released once");
        assert_eq!(vi_set_log_level(null(), 0, VI_LOG_OFF), ViStatus::Ok);
        assert_eq!(vi_dialog_stop(dialog), ViStatus::Ok, "a stop without a run does nothing");
        assert_eq!(vi_dialog_stop(null()), ViStatus::NullArgument);
        assert_eq!(vi_dialog_set_max_tool_rounds(dialog, -3), ViStatus::Ok);
        assert_eq!(vi_dialog_max_tool_rounds(dialog), 0);
        vi_dialog_free(dialog);
        vi_model_free(model);
        vi_provider_free(provider);
        vi_center_free(center);
    }
}

#[test]
fn oauth_tokens_are_set_and_read_but_never_written_to_the_json() {
    unsafe {
        let mut mcp = null_mut();
        vi_mcp_new(null(), 0, &mut mcp);
        let (p, n) = s("app-1");
        assert_eq!(vi_mcp_set_oauth_client_id(mcp, p, n), ViStatus::Ok);
        assert_eq!(view(vi_mcp_oauth_client_id(mcp)), "app-1");
        let (p, n) = s(r#"{"accessToken": "SECRET-A", "refreshToken": "SECRET-R", "expiresAt": 1700000000, "clientId": "c"}"#);
        assert_eq!(vi_mcp_set_oauth_tokens(mcp, p, n), ViStatus::Ok);
        let mut out = null_mut();
        assert_eq!(vi_mcp_oauth_tokens(mcp, &mut out), ViStatus::Ok);
        let tokens: serde_json::Value = serde_json::from_str(&take(out)).unwrap();
        assert_eq!(tokens["refreshToken"], "SECRET-R");
        assert_eq!(tokens["expiresAt"], 1_700_000_000);
        assert_eq!(vi_mcp_to_json(mcp, &mut out), ViStatus::Ok);
        let json = take(out);
        assert!(json.contains("\"oauthClientId\":\"app-1\"") && !json.contains("SECRET"), "{json}");
        for bad in ["", "[1]", "{"] {
            let (p, n) = s(bad);
            assert_eq!(vi_mcp_set_oauth_tokens(mcp, p, n), ViStatus::InvalidJson, "{bad}");
        }
        assert_eq!(vi_mcp_set_oauth_tokens(null_mut(), p, n), ViStatus::NullArgument);
        assert_eq!(vi_mcp_oauth_tokens(mcp, null_mut()), ViStatus::NullArgument);
        vi_mcp_free(mcp);
    }
}

#[test]
fn mcp_server_info_is_an_empty_object_until_connected_and_checks_its_arguments() {
    unsafe {
        let mut center = null_mut();
        assert_eq!(vi_center_new(&mut center), ViStatus::Ok);
        let mut mcp = null_mut();
        let (p, n) = s("rev");
        vi_mcp_new(p, n, &mut mcp);
        let (c, cn) = s("python3");
        assert_eq!(vi_mcp_set_command(mcp, c, cn), ViStatus::Ok);
        assert_eq!(vi_center_add_mcp(center, mcp), ViStatus::Ok);
        let mut out = null_mut();
        for name in ["rev", "nobody"] {
            let (p, n) = s(name);
            assert_eq!(vi_center_mcp_server_info(center, p, n, &mut out), ViStatus::Ok);
            assert_eq!(take(out), "{}", "{name}");
        }
        // NULL is the process-wide Center, which has no such entry.
        assert_eq!(vi_center_mcp_server_info(null(), p, n, &mut out), ViStatus::Ok);
        assert_eq!(take(out), "{}");
        assert_eq!(vi_center_mcp_server_info(center, p, n, null_mut()), ViStatus::NullArgument);
        assert_eq!(vi_center_mcp_server_info(center, null(), 3, &mut out), ViStatus::NullArgument);
        assert!(last_error().contains("vi_center_mcp_server_info"), "{}", last_error());
        let bad = [0xffu8, 0xfe];
        assert_eq!(vi_center_mcp_server_info(center, bad.as_ptr().cast(), 2, &mut out), ViStatus::InvalidUtf8);
        vi_mcp_free(mcp);
        vi_center_free(center);
    }
}

// ---- The context window (SPEC §I.4, issue 32) through the C ABI ----

fn model_json(model: *const ViModel) -> serde_json::Value {
    let mut out = null_mut();
    assert_eq!(unsafe { vi_model_to_json(model, &mut out) }, ViStatus::Ok);
    serde_json::from_str(&take(out)).unwrap()
}

fn dialog_json(dialog: *const ViDialog) -> serde_json::Value {
    let mut out = null_mut();
    assert_eq!(unsafe { vi_dialog_to_json(dialog, &mut out) }, ViStatus::Ok);
    serde_json::from_str(&take(out)).unwrap()
}

#[test]
fn the_context_window_clamps_negative_counts_and_round_trips_through_json() {
    unsafe {
        let mut model = null_mut();
        vi_model_new(&mut model);
        assert_eq!(vi_model_context_window(model), 0, "unknown by default");
        assert!(model_json(model).get("contextWindow").is_none(), "written only when set");
        assert_eq!(vi_model_set_context_window(model, 128_000), ViStatus::Ok);
        assert_eq!(vi_model_context_window(model), 128_000);
        assert_eq!(model_json(model)["contextWindow"], 128_000);
        // A negative count is 0 (unknown), and 0 is not written.
        assert_eq!(vi_model_set_context_window(model, -5), ViStatus::Ok);
        assert_eq!(vi_model_context_window(model), 0);
        assert!(model_json(model).get("contextWindow").is_none());
        assert_eq!(vi_model_set_context_window(model, i32::MIN), ViStatus::Ok);
        assert_eq!(vi_model_context_window(model), 0);
        // JSON in: read back through another model, a negative count read as 0.
        vi_model_set_context_window(model, 32_768);
        let mut out = null_mut();
        vi_model_to_json(model, &mut out);
        let text = take(out);
        let mut other = null_mut();
        vi_model_new(&mut other);
        let (p, n) = s(&text);
        assert_eq!(vi_model_from_json(other, p, n, null_mut()), ViStatus::Ok);
        assert_eq!(vi_model_context_window(other), 32_768);
        let (p, n) = s(r#"{"contextWindow": -7}"#);
        assert_eq!(vi_model_from_json(other, p, n, null_mut()), ViStatus::Ok);
        assert_eq!(vi_model_context_window(other), 0);
        // Through a Center's JSON as the chat window saves it.
        let mut center = null_mut();
        vi_center_new(&mut center);
        vi_center_add_model(center, model);
        let mut saved = null_mut();
        vi_center_to_json(center, &mut saved);
        let saved = take(saved);
        let mut restored = null_mut();
        vi_center_new(&mut restored);
        let (p, n) = s(&saved);
        assert_eq!(vi_center_from_json(restored, p, n, null_mut()), ViStatus::Ok);
        let id = view(vi_model_id(model));
        let (p, n) = s(&id);
        let mut back = null_mut();
        assert_eq!(vi_center_get_model(restored, p, n, &mut back), ViStatus::Ok);
        assert_eq!(vi_model_context_window(back), 32_768);
        // NULL handles.
        assert_eq!(vi_model_set_context_window(null_mut(), 5), ViStatus::NullArgument);
        assert!(last_error().contains("vi_model_set_context_window"), "{}", last_error());
        assert_eq!(vi_model_context_window(null()), 0);
        for m in [model, other, back] {
            vi_model_free(m);
        }
        vi_center_free(center);
        vi_center_free(restored);
    }
}

#[test]
fn the_context_policy_refuses_unknown_values_and_null_and_round_trips_through_json() {
    unsafe {
        let mut dialog = null_mut();
        vi_dialog_new(null(), &mut dialog);
        assert_eq!(vi_dialog_context_policy(dialog), VI_CONTEXT_POLICY_FAIL);
        let o = dialog_json(dialog);
        for key in ["contextPolicy", "summaryModel", "contextSummary"] {
            assert!(o.get(key).is_none(), "{key} only when not default: {o}");
        }
        // Out of range: VI_STATUS_INVALID_ARGUMENT, the policy unchanged.
        assert_eq!(vi_dialog_set_context_policy(dialog, VI_CONTEXT_POLICY_DROP_OLDEST), ViStatus::Ok);
        for bad in [3, 7, u32::MAX] {
            assert_eq!(vi_dialog_set_context_policy(dialog, bad), ViStatus::InvalidArgument, "{bad}");
            assert!(last_error().contains(&format!("context policy {bad}")), "{}", last_error());
            assert_eq!(vi_dialog_context_policy(dialog), VI_CONTEXT_POLICY_DROP_OLDEST);
        }
        assert_eq!(dialog_json(dialog)["contextPolicy"], "dropOldest");
        // NULL: VI_STATUS_NULL_ARGUMENT, and the getters read the defaults.
        assert_eq!(vi_dialog_set_context_policy(null(), VI_CONTEXT_POLICY_SUMMARIZE), ViStatus::NullArgument);
        assert!(last_error().contains("vi_dialog_set_context_policy"), "{}", last_error());
        assert_eq!(vi_dialog_context_policy(null()), VI_CONTEXT_POLICY_FAIL);
        let (p, pn) = s("prov");
        let (m, mn) = s("small");
        assert_eq!(vi_dialog_set_summary_model(null(), p, pn, m, mn), ViStatus::NullArgument);
        assert_eq!(vi_dialog_set_summary_model(dialog, BAD_UTF8.as_ptr().cast(), BAD_UTF8.len(), m, mn), ViStatus::InvalidUtf8);

        assert_eq!(vi_dialog_set_context_policy(dialog, VI_CONTEXT_POLICY_SUMMARIZE), ViStatus::Ok);
        assert_eq!(vi_dialog_set_summary_model(dialog, p, pn, m, mn), ViStatus::Ok);
        let mut out = null_mut();
        assert_eq!(vi_dialog_summary_provider_id(dialog, &mut out), ViStatus::Ok);
        assert_eq!(take(out), "prov");
        assert_eq!(vi_dialog_summary_model_id(dialog, &mut out), ViStatus::Ok);
        assert_eq!(take(out), "small");
        let o = dialog_json(dialog);
        assert_eq!(o["contextPolicy"], "summarize");
        assert_eq!((o["summaryModel"]["providerId"].as_str(), o["summaryModel"]["modelId"].as_str()), (Some("prov"), Some("small")), "{o}");

        let mut other = null_mut();
        vi_dialog_new(null(), &mut other);
        let text = o.to_string();
        let (j, jn) = s(&text);
        assert_eq!(vi_dialog_from_json(other, j, jn, null_mut()), ViStatus::Ok);
        assert_eq!(vi_dialog_context_policy(other), VI_CONTEXT_POLICY_SUMMARIZE);
        vi_dialog_summary_model_id(other, &mut out);
        assert_eq!(take(out), "small");
        // Back to Fail: the key goes.
        assert_eq!(vi_dialog_set_context_policy(other, VI_CONTEXT_POLICY_FAIL), ViStatus::Ok);
        assert!(dialog_json(other).get("contextPolicy").is_none());
        vi_dialog_free(dialog);
        vi_dialog_free(other);
    }
}

#[test]
fn the_context_summary_is_empty_until_made_and_comes_back_from_json() {
    unsafe {
        let mut dialog = null_mut();
        vi_dialog_new(null(), &mut dialog);
        let mut text = null_mut();
        let mut covered = -1i64;
        assert_eq!(vi_dialog_context_summary(dialog, &mut text, &mut covered), ViStatus::Ok);
        assert_eq!((take(text), covered), (String::new(), 0));
        // `covered_out` is optional; `text_out` is not; NULL dialog.
        assert_eq!(vi_dialog_context_summary(dialog, &mut text, null_mut()), ViStatus::Ok);
        vi_string_free(text);
        assert_eq!(vi_dialog_context_summary(dialog, null_mut(), &mut covered), ViStatus::NullArgument);
        let mut untouched = null_mut();
        assert_eq!(vi_dialog_context_summary(null(), &mut untouched, &mut covered), ViStatus::NullArgument);
        assert!(untouched.is_null() && last_error().contains("vi_dialog_context_summary"), "{}", last_error());

        for (role, content) in [(VI_ROLE_USER, "q0"), (VI_ROLE_ASSISTANT, "a0"), (VI_ROLE_USER, "q1")] {
            let mut m = null_mut();
            let (p, n) = s(content);
            vi_message_new(role, p, n, &mut m);
            vi_dialog_append_message(dialog, m);
            vi_message_free(m);
        }
        let mut o = dialog_json(dialog);
        o["contextSummary"] = serde_json::json!({"text": "the user asked q0", "lastMessage": 1});
        let saved = o.to_string();
        let (p, n) = s(&saved);
        assert_eq!(vi_dialog_from_json(dialog, p, n, null_mut()), ViStatus::Ok);
        assert_eq!(vi_dialog_context_summary(dialog, &mut text, &mut covered), ViStatus::Ok);
        assert_eq!((take(text).as_str(), covered), ("the user asked q0", 2), "covered = lastMessage + 1");
        assert_eq!(dialog_json(dialog)["contextSummary"], o["contextSummary"]);
        vi_dialog_free(dialog);
    }
}

/// (kind, messages_left_out, estimated_tokens, text) of every event of the context run test.
static CONTEXT_EVENTS: Mutex<Vec<(ViEventKind, i32, i32, String)>> = Mutex::new(Vec::new());

unsafe extern "C" fn on_context_event(user_data: *mut c_void, events: *const ViEvent, count: usize) {
    assert_eq!(user_data as usize, 0xc0de);
    for e in unsafe { batch(events, count) } {
        CONTEXT_EVENTS.lock().unwrap().push((e.kind, e.messages_left_out, e.estimated_tokens, view(e.text)));
    }
}

/// Runs `dialog` and returns the events of the run once its `RunFinished` arrived.
unsafe fn run_to_the_end(dialog: *const ViDialog) -> Vec<(ViEventKind, i32, i32, String)> {
    CONTEXT_EVENTS.lock().unwrap().clear();
    assert_eq!(unsafe { vi_dialog_run(dialog) }, ViStatus::Ok);
    let start = std::time::Instant::now();
    while !CONTEXT_EVENTS.lock().unwrap().iter().any(|e| e.0 == ViEventKind::RunFinished) {
        assert!(start.elapsed().as_secs() < 20, "no RunFinished: {:?}", CONTEXT_EVENTS.lock().unwrap());
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    std::mem::take(&mut *CONTEXT_EVENTS.lock().unwrap())
}

#[test]
fn context_trimmed_reaches_the_c_callback_with_its_counts() {
    use vi_scripted_server::{ScriptedServer, Step, chat_chunk_content, done, script, usage_chunk};
    let answer = |text: &str| Step::sse(vec![chat_chunk_content(text), usage_chunk(50, 5), done()]);
    // Summarize's round on the run's own model comes first, then the answer.
    let server = ScriptedServer::start(script(vec![answer("fits"), answer("THE SUMMARY"), answer("summarised")])).unwrap();
    unsafe {
        let (center, model, provider) = center_with_default_model(&server.base_url(), 900);
        let mut dialog = null_mut();
        vi_center_create_dialog(center, &mut dialog);
        // A history of six long turns, about 2,000 tokens, for a window of 900.
        let append = |role: u32, text: String| {
            let mut m = null_mut();
            let (p, n) = s(&text);
            vi_message_new(role, p, n, &mut m);
            vi_dialog_append_message(dialog, m);
            vi_message_free(m);
        };
        append(VI_ROLE_SYSTEM, "You are brief.".into());
        for i in 0..6 {
            append(VI_ROLE_USER, format!("question {i}: {}", "lorem ipsum dolor sit amet ".repeat(40)));
            append(VI_ROLE_ASSISTANT, format!("answer {i}: {}", "consectetur adipiscing elit ".repeat(40)));
        }
        append(VI_ROLE_USER, "the last question".into());
        let before = vi_dialog_message_count(dialog);
        assert_eq!(before, 14);
        vi_dialog_set_event_callback(dialog, Some(on_context_event), 0xc0de as *mut c_void, None);

        // Fail (the default): refused before sending, no trim.
        let events = run_to_the_end(dialog);
        let failed = events.iter().find(|e| e.0 == ViEventKind::RunFailed).map(|e| e.3.clone()).expect("the run fails");
        assert!(failed.starts_with("[ContextOverflow] ") && failed.ends_with(" of 900 tokens"), "{failed}");
        assert!(!events.iter().any(|e| e.0 == ViEventKind::ContextTrimmed), "{events:?}");
        assert!(server.requests().is_empty(), "nothing was sent");

        // DropOldest: one ContextTrimmed with what the request left out and its estimate.
        assert_eq!(vi_dialog_set_context_policy(dialog, VI_CONTEXT_POLICY_DROP_OLDEST), ViStatus::Ok);
        let events = run_to_the_end(dialog);
        assert!(!events.iter().any(|e| e.0 == ViEventKind::RunFailed), "{events:?}");
        let trims: Vec<_> = events.iter().filter(|e| e.0 == ViEventKind::ContextTrimmed).collect();
        assert_eq!(trims.len(), 1, "{events:?}");
        let sent = server.requests()[0].body_json.clone().unwrap();
        let sent_count = sent["messages"].as_array().unwrap().len();
        assert_eq!(trims[0].1 as usize, before - sent_count, "messages_left_out is what the request lacked");
        assert!(trims[0].1 >= 2 && trims[0].1 % 2 == 0, "whole turns: {}", trims[0].1);
        assert!(trims[0].2 > 0 && trims[0].2 <= 900, "estimated_tokens within the window: {}", trims[0].2);
        // Only ContextTrimmed carries the counts.
        assert!(events.iter().filter(|e| e.0 != ViEventKind::ContextTrimmed).all(|e| e.1 == 0 && e.2 == 0), "{events:?}");
        // The dialog kept every message, plus the answer.
        assert_eq!(vi_dialog_message_count(dialog), before + 1);
        let mut list = null_mut();
        vi_dialog_messages(dialog, &mut list);
        let first_question = vi_message_list_take(list, 1);
        assert!(view(vi_message_content(first_question)).starts_with("question 0"));
        vi_message_free(first_question);
        vi_message_list_free(list);

        // Summarize: the summary round on the run's own model, the summary kept by the dialog.
        let (q, qn) = s("one more");
        let mut m = null_mut();
        vi_message_new(VI_ROLE_USER, q, qn, &mut m);
        vi_dialog_append_message(dialog, m);
        vi_message_free(m);
        assert_eq!(vi_dialog_set_context_policy(dialog, VI_CONTEXT_POLICY_SUMMARIZE), ViStatus::Ok);
        let events = run_to_the_end(dialog);
        assert!(!events.iter().any(|e| e.0 == ViEventKind::RunFailed), "{events:?}");
        assert_eq!(events.iter().filter(|e| e.0 == ViEventKind::ContextTrimmed).count(), 1, "{events:?}");
        let mut text = null_mut();
        let mut covered = 0i64;
        assert_eq!(vi_dialog_context_summary(dialog, &mut text, &mut covered), ViStatus::Ok);
        assert_eq!(take(text), "THE SUMMARY");
        assert!(covered >= 2 && (covered as usize) < before, "covered {covered}");
        assert_eq!(server.requests().len(), 3);
        let last = server.requests()[2].body_json.clone().unwrap().to_string();
        assert!(last.contains("THE SUMMARY") && !last.contains("question 0"), "{last}");

        vi_dialog_free(dialog);
        vi_model_free(model);
        vi_provider_free(provider);
        vi_center_free(center);
    }
}
