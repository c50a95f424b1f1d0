//! The MCP client (SPEC §E.11, §F) against real servers built on the official MCP Python SDK
//! (tests/mcp_servers/), over stdio, streamable HTTP and legacy SSE, with the scripted chat
//! server playing the model.
//!
//! Needs the project venv: `python3 -m venv .venv && .venv/bin/pip install -r
//! tests/requirements.txt` (or `VI_PYTHON` naming an interpreter that has `mcp`).
//!
//! The tests run one at a time (they share the process-wide pool and count child processes).

mod support;

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::mcp_servers::{HttpServer, answer, calls, python, script_path, serial, stdio_entry};
use support::*;
use vi_scripted_server::ScriptedServer;
use visindigo_agent::{Center, Event, Function, FunctionSpec, HostToken, Mcp, Message, Role, ToolReply, Transport, shutdown_mcp_servers};

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"].as_array().into_iter().flatten().map(|t| t["function"]["name"].as_str().unwrap().to_owned()).collect()
}

fn tool<'a>(body: &'a Value, name: &str) -> &'a Value {
    let tools = body["tools"].as_array().expect("tools are offered");
    &tools.iter().find(|t| t["function"]["name"] == name).unwrap_or_else(|| panic!("{name} is offered"))["function"]
}

fn mcp_failures(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::McpFailed { server, message } => Some((server.clone(), message.clone())),
            _ => None,
        })
        .collect()
}

/// The stdio servers among the child processes of this test process.
fn stdio_children() -> Vec<i32> {
    children().into_iter().filter(|(_, cmd)| cmd.contains("tools_server.py stdio")).map(|(pid, _)| pid).collect()
}

/// Runs the dialog to its end and returns the request bodies the chat server received.
fn run(d: &visindigo_agent::Dialog, srv: &ScriptedServer) -> Vec<Value> {
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_for("the run to finish", || !d.is_streaming());
    bodies(srv)
}

#[test]
fn stdio_tools_are_offered_with_their_schemas_and_called() {
    let _serial = serial();
    let srv = chat_server(vec![
        calls(&[("calc_tools__add", r#"{"a":2,"b":3}"#), ("calc_tools__env", r#"{"name":"VI_MCP_TEST"}"#)]),
        answer("done"),
    ]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let mut entry = stdio_entry("calc tools");
    entry.environment.insert("VI_MCP_TEST".into(), "from the entry".into());
    c.add_mcp(entry);
    let bodies = run(&d, &srv);
    assert!(mcp_failures(&rec.snapshot()).is_empty(), "{:?}", rec.snapshot());
    assert_eq!(
        tool_names(&bodies[0]),
        [
            "calc_tools__add",
            "calc_tools__shout_loud_",
            "calc_tools__broken",
            "calc_tools__die",
            "calc_tools__slow",
            "calc_tools__rendezvous",
            "calc_tools__env"
        ]
    );
    let add = tool(&bodies[0], "calc_tools__add");
    assert_eq!(add["description"], "Adds two integers.");
    assert_eq!(add["parameters"]["type"], "object");
    assert_eq!(add["parameters"]["properties"]["a"]["type"], "integer");
    assert_eq!(add["parameters"]["required"], json!(["a", "b"]));
    let messages = d.messages();
    assert_eq!((messages[2].role, messages[2].content.as_str(), messages[2].name.as_str()), (Role::Tool, "5", "calc_tools__add"));
    assert_eq!(messages[3].content, "from the entry");
    assert_eq!(bodies[1]["messages"][2], json!({"role": "tool", "content": "5", "tool_call_id": "call_0"}));
    assert_eq!(bodies[1]["messages"][3]["content"], "from the entry");
    assert_eq!(messages[4].content, "done");
}

struct Local(FunctionSpec);

impl Function for Local {
    fn spec(&self) -> &FunctionSpec {
        &self.0
    }
    fn invoke(&self, _: Value, _: HostToken, reply: ToolReply) {
        reply.complete(json!({"local": true}));
    }
}

#[test]
fn a_dialog_entry_overrides_the_centers_and_functions_come_first() {
    let _serial = serial();
    shutdown_mcp_servers();
    let srv = chat_server(vec![answer("a"), calls(&[("calc__add", "{}"), ("calc__add_2", r#"{"a":1,"b":1}"#)]), answer("b")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(stdio_entry("calc"));
    let mut off = stdio_entry("calc");
    off.enabled = false;
    d.add_mcp(off);
    let mut lazy = stdio_entry("lazy");
    lazy.auto_start = false;
    d.add_mcp(lazy);
    let bodies = run(&d, &srv);
    assert!(bodies[0].get("tools").is_none(), "nothing offered: {}", bodies[0]);
    assert!(mcp_failures(&rec.snapshot()).is_empty());
    assert!(stdio_children().is_empty(), "neither the overridden nor the non-autoStart server is started");

    // Without the dialog's entry the Center's is used; its tools come after the functions and
    // avoid their names.
    d.remove_mcp("calc");
    let spec = FunctionSpec { id: "calc__add".into(), name: "local".into(), description: "local".into(), parameter_schema: json!({"type": "object"}), host: None };
    d.add_function(Arc::new(Local(spec)));
    let bodies = run(&d, &srv);
    assert_eq!(&tool_names(&bodies[1])[..3], ["calc__add", "calc__add_2", "calc__shout_loud_"]);
    assert_eq!(tool(&bodies[1], "calc__add_2")["description"], "Adds two integers.");
    let messages = d.messages();
    assert_eq!(messages[messages.len() - 3].content, r#"{"local":true}"#);
    assert_eq!(messages[messages.len() - 2].content, "2");
    assert_eq!(stdio_children().len(), 1);
}

#[test]
fn streamable_http_tools_work_and_a_forgotten_session_is_initialised_again() {
    let _serial = serial();
    // Sessions are of 2025-11-25 and older: the server refuses server/discover.
    let server = HttpServer::start_with("tools_server.py", "streamable-http", None, &["--legacy"]);
    let srv = chat_server(vec![
        calls(&[("web__shout_loud_", r#"{"text":"hello"}"#)]),
        answer("done"),
        calls(&[("web__add", r#"{"a":40,"b":2}"#)]),
        answer("again"),
    ]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(server.entry("web", Transport::StreamableHttp, "/mcp"));
    let bodies = run(&d, &srv);
    assert!(mcp_failures(&rec.snapshot()).is_empty(), "{:?}", rec.snapshot());
    assert!(tool_names(&bodies[0]).contains(&"web__shout_loud_".to_owned()));
    assert_eq!(d.messages()[2].content, "HELLO");
    // A new server process on the same port knows nothing of the session.
    let port = server.port;
    drop(server);
    let _server = HttpServer::start_with("tools_server.py", "streamable-http", Some(port), &["--legacy"]);
    let bodies = run(&d, &srv);
    assert!(mcp_failures(&rec.snapshot()).is_empty(), "{:?}", rec.snapshot());
    assert_eq!(bodies[3]["messages"].as_array().unwrap().last().unwrap()["content"], "42");
    assert_eq!(d.last_message().content, "again");
}

/// Puts the library's default proxy back when dropped (the tests here run one at a time).
struct DefaultProxy;

impl DefaultProxy {
    fn set(url: &str) -> DefaultProxy {
        visindigo_agent::update_network_defaults(|s| s.set_proxy(Some(url))).unwrap();
        DefaultProxy
    }
}

impl Drop for DefaultProxy {
    fn drop(&mut self) {
        visindigo_agent::update_network_defaults(|s| s.set_proxy(None)).unwrap();
    }
}

#[test]
fn streamable_http_goes_through_the_same_proxy_as_the_model() {
    if !support::require("tinyproxy") {
        return;
    }
    let _serial = serial();
    let server = HttpServer::start("streamable-http", None);
    let proxy = support::tinyproxy::Tinyproxy::start(None);
    let _proxy = DefaultProxy::set(&proxy.url());
    let srv = chat_server(vec![calls(&[("proxied__add", r#"{"a":1,"b":2}"#)]), answer("done")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(server.entry("proxied", Transport::StreamableHttp, "/mcp"));
    let bodies = run(&d, &srv);
    assert!(mcp_failures(&rec.snapshot()).is_empty(), "{:?}", rec.snapshot());
    assert_eq!(bodies[1]["messages"].as_array().unwrap().last().unwrap()["content"], "3");
    let forwarded = proxy.requests();
    let mcp_posts = format!("POST http://127.0.0.1:{}/mcp HTTP/1.1", server.port);
    assert!(forwarded.iter().filter(|r| **r == mcp_posts).count() >= 2, "initialize and the call: {forwarded:?}");
    assert!(forwarded.contains(&format!("POST {}/chat/completions HTTP/1.1", srv.base_url())), "{forwarded:?}");
    c.remove_mcp("proxied");
}

#[test]
fn legacy_sse_tools_work() {
    let _serial = serial();
    let server = HttpServer::start("sse", None);
    let srv = chat_server(vec![calls(&[("old__add", r#"{"a":1,"b":1}"#)]), answer("done")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(server.entry("old", Transport::Sse, "/sse"));
    let bodies = run(&d, &srv);
    assert!(mcp_failures(&rec.snapshot()).is_empty(), "{:?}", rec.snapshot());
    assert_eq!(tool(&bodies[0], "old__add")["parameters"]["properties"]["b"]["type"], "integer");
    assert_eq!(bodies[1]["messages"][2]["content"], "2");
    assert_eq!(d.last_message().content, "done");
}

#[test]
fn tool_errors_and_a_dying_server_become_error_results_and_it_restarts_next_run() {
    let _serial = serial();
    let srv = chat_server(vec![
        calls(&[("crash__broken", "{}")]),
        calls(&[("crash__die", "")]),
        answer("still here"),
        calls(&[("crash__add", r#"{"a":1,"b":2}"#)]),
        answer("back"),
    ]);
    let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(stdio_entry("crash"));
    run(&d, &srv);
    let messages = d.messages();
    let broken: Value = serde_json::from_str(&messages[2].content).unwrap();
    assert!(broken["error"].as_str().unwrap().contains("broken on purpose"), "{broken}");
    let died: Value = serde_json::from_str(&messages[4].content).expect("the result is JSON");
    let reason = died["error"].as_str().unwrap();
    assert!(reason.contains("exited") && reason.contains("dying on request"), "{reason}");
    assert_eq!(messages[5].content, "still here");
    run(&d, &srv);
    let messages = d.messages();
    assert_eq!(messages[8].content, "3");
    assert_eq!(messages[9].content, "back");
}

#[test]
fn unreachable_servers_are_reported_once_and_the_run_goes_on() {
    let _serial = serial();
    let srv = chat_server(vec![answer("fine")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let mut ghost = Mcp::new("ghost");
    ghost.command = "/nonexistent/visindigo-mcp-server".into();
    c.add_mcp(ghost);
    let mut silent = Mcp::new("silent");
    silent.command = python().to_owned();
    silent.arguments = vec![script_path("silent_server.py")];
    d.add_mcp(silent);
    let started = Instant::now();
    let bodies = run(&d, &srv);
    let took = started.elapsed();
    assert!(took >= Duration::from_secs(9) && took < Duration::from_secs(19), "{took:?}");
    let failures = mcp_failures(&rec.snapshot());
    assert_eq!(failures.len(), 2, "{failures:?}");
    let ghost = failures.iter().find(|f| f.0 == "ghost").unwrap();
    assert!(ghost.1.contains("could not start") && ghost.1.contains("No such file"), "{}", ghost.1);
    let silent = failures.iter().find(|f| f.0 == "silent").unwrap();
    assert!(silent.1.contains("initialize within 10 s"), "{}", silent.1);
    assert!(bodies[0].get("tools").is_none());
    assert_eq!(d.last_message().content, "fine");
    assert!(children().iter().all(|(_, cmd)| !cmd.contains("silent_server.py")), "the silent server was ended");
}

#[test]
fn a_server_that_sends_an_endless_line_is_closed_at_the_message_limit() {
    let _serial = serial();
    let srv = chat_server(vec![answer("fine")]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let mut endless = Mcp::new("endless");
    endless.command = python().to_owned();
    endless.arguments = vec![script_path("endless_line_server.py")];
    d.add_mcp(endless);
    let bodies = run(&d, &srv);
    let failures = mcp_failures(&rec.snapshot());
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].1.contains("a message of more than 64 MiB"), "{}", failures[0].1);
    assert!(bodies[0].get("tools").is_none());
    assert_eq!(d.last_message().content, "fine");
}

#[test]
fn the_mcp_calls_of_one_answer_run_at_the_same_time() {
    // `rendezvous` answers "met" only when a second call is in progress with it (SPEC §H.3.5).
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("meet__rendezvous", "{}"), ("meet__rendezvous", "{}")]), answer("ok")]);
    let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(stdio_entry("meet"));
    run(&d, &srv);
    let messages = d.messages();
    assert_eq!((messages[2].content.as_str(), messages[3].content.as_str()), ("met", "met"));
    assert_eq!((messages[2].tool_call_id.as_str(), messages[3].tool_call_id.as_str()), ("call_0", "call_1"));
}

#[test]
fn approval_covers_mcp_tools() {
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("calc__add", r#"{"a":1,"b":2}"#), ("calc__shout_loud_", r#"{"text":"no"}"#)]), answer("ok")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(stdio_entry("calc"));
    d.set_tool_approval(true);
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_for("both approval requests", || {
        rec.snapshot().iter().filter(|e| matches!(e, Event::ToolApprovalRequested { .. })).count() == 2
    });
    assert!(d.reject_tool_call("call_1", "no shouting"));
    assert!(d.approve_tool_call("call_0"));
    rec.wait_finished();
    let messages = d.messages();
    assert_eq!(messages[2].content, "3");
    assert_eq!(messages[3].content, r#"{"error":"the user declined this call: no shouting"}"#);
    assert_eq!(d.last_message().content, "ok");
}

#[test]
fn an_abort_during_a_call_leaves_the_connection_usable() {
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("nap__slow", r#"{"seconds":30}"#)]), calls(&[("nap__add", r#"{"a":2,"b":2}"#)]), answer("ok")]);
    let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(stdio_entry("nap"));
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_for("the tool call", || d.message_count() == 2);
    std::thread::sleep(Duration::from_millis(200));
    let before = stdio_children();
    d.abort();
    let started = Instant::now();
    run(&d, &srv);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(d.messages()[4].content, "4");
    assert_eq!(d.last_message().content, "ok");
    assert_eq!(stdio_children(), before, "the same server process served both runs");
}

#[test]
fn removing_or_replacing_an_entry_stops_its_server_and_shutdown_all_leaves_no_child() {
    let _serial = serial();
    let srv = chat_server(vec![answer("1"), answer("2"), answer("3")]);
    let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    shutdown_mcp_servers();
    c.add_mcp(stdio_entry("gone"));
    run(&d, &srv);
    assert_eq!(stdio_children().len(), 1);
    c.remove_mcp("gone");
    wait_for("the removed server to end", || stdio_children().is_empty());

    d.add_mcp(stdio_entry("swap"));
    run(&d, &srv);
    let first = stdio_children();
    assert_eq!(first.len(), 1);
    let mut changed = stdio_entry("swap");
    changed.environment.insert("CHANGED".into(), "1".into());
    d.add_mcp(changed);
    wait_for("the replaced server to end", || stdio_children().is_empty());
    run(&d, &srv);
    let second = stdio_children();
    assert_eq!(second.len(), 1);
    assert_ne!(first, second);

    let started = Instant::now();
    shutdown_mcp_servers();
    assert!(started.elapsed() < Duration::from_secs(9));
    let left = children();
    assert!(left.is_empty(), "children left after shutdown_all: {left:?}");
}

#[test]
fn a_stdio_server_that_quotes_its_credential_environment_cannot_carry_it_out() {
    // SPEC §I.5.1, §I.5.2: a credential environment variable is a secret like a header; a
    // server that fails writing it to stderr (kept for the error message) shows `***`.
    let _serial = serial();
    let secret = "ghp-env-secret-0123456789";
    let mut entry = Mcp::new("quoting");
    entry.command = python().to_owned();
    let script = "import os, sys; sys.stdin.readline(); sys.stderr.write('bad credentials: ' + os.environ['GITHUB_TOKEN'] + '\\n'); sys.exit(3)";
    entry.arguments = vec!["-c".into(), script.into()];
    entry.environment.insert("GITHUB_TOKEN".into(), secret.into());
    let (c, message) = the_one_failure_of_a_run_with(entry);
    assert!(message.contains("bad credentials: ***"), "{message}");
    assert!(!message.contains(secret), "{message}");
    c.remove_mcp("quoting");
}

/// Runs a dialog with `entry` as its only MCP server, which must fail: the Center (the entry
/// still in it) and the one `mcpFailed` message, checked to name the entry.
fn the_one_failure_of_a_run_with(entry: Mcp) -> (Center, String) {
    let name = entry.name.clone();
    let srv = chat_server(vec![answer("fine")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(entry);
    run(&d, &srv);
    let mut failures = mcp_failures(&rec.snapshot());
    assert_eq!(failures.len(), 1, "{failures:?}");
    let (server, message) = failures.remove(0);
    assert_eq!(server, name);
    (c, message)
}

#[test]
fn a_server_that_echoes_the_authorization_header_cannot_carry_the_secret_out() {
    let _serial = serial();
    let echo = HttpServer::start_script("echo_header_server.py", "http", None);
    let secret = "mcp-secret-token-0123456789";
    let mut entry = Mcp::new("echo");
    entry.transport = Transport::StreamableHttp;
    entry.url = format!("http://127.0.0.1:{}/mcp", echo.port);
    entry.headers.insert("Authorization".into(), format!("Bearer {secret}"));
    let (c, message) = the_one_failure_of_a_run_with(entry);
    assert!(message.contains("bad credentials") && message.contains("***"), "{message}");
    assert!(!message.contains(secret), "{message}");
    // requestMCP's error too.
    let (tx, rx) = std::sync::mpsc::channel();
    c.request_mcp("echo", "resources/list", None, move |outcome| tx.send(outcome).unwrap());
    let requested = rx.recv_timeout(Duration::from_secs(30)).expect("request_mcp calls back").unwrap_err();
    assert!(requested.contains("bad credentials") && !requested.contains(secret), "{requested}");
    c.remove_mcp("echo");
}
