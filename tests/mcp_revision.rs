//! MCP revision 2026-07-28 beside 2025-11-25 (SPEC §I.3.1, §I.3.2, issue 31) against
//! tests/mcp_servers/revision_server.py (the official MCP Python SDK 2.3): the revision each
//! server negotiates as the application sees it, the fallback to `initialize` for a server
//! that refuses `server/discover`, and elicitation, sampling and roots asked through
//! `input_required` — which reach a stateless HTTP server of 2026 where one of 2025 cannot
//! ask at all; and tool calls run as tasks at 2026-07-28 through the tasks extension (SPEC
//! §I.3.4), their questions mid-task answered with `tasks/update`, against
//! tests/mcp_servers/task_server.py. The SDK server checks the 2026 `_meta`
//! envelope and the `mcp-protocol-version`, `mcp-method` and `mcp-name` headers of every
//! request (-32020 / -32602 otherwise), so each successful 2026 call here is also the proof
//! that they are on the wire.
//!
//! Needs the project venv (see tests/mcp.rs).

mod support;

use serde_json::{Value, json};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};
use support::mcp_servers::*;
use support::*;
use visindigo_agent::{Center, CenterEvent, CenterSink, Event, Mcp, Message, Role, Transport};

/// How a test server is run.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Stdio,
    StdioLegacy,
    Http,
    HttpStatelessJson,
    HttpLegacy,
    HttpStatelessLegacy,
}

/// The revision server as `kind`, and the server process when it is an HTTP one.
fn revision_server(name: &str, kind: Kind) -> (Mcp, Option<HttpServer>) {
    let http = |flags: &[&str]| {
        let server = HttpServer::start_with("revision_server.py", "streamable-http", None, flags);
        (server.entry(name, Transport::StreamableHttp, "/mcp"), Some(server))
    };
    match kind {
        Kind::Stdio => (stdio_entry_of(name, "revision_server.py"), None),
        Kind::StdioLegacy => {
            let mut entry = stdio_entry_of(name, "revision_server.py");
            entry.arguments.push("--legacy".into());
            (entry, None)
        }
        Kind::Http => http(&[]),
        Kind::HttpStatelessJson => http(&["--stateless", "--json"]),
        Kind::HttpLegacy => http(&["--legacy"]),
        Kind::HttpStatelessLegacy => http(&["--stateless", "--legacy"]),
    }
}

/// `request_mcp`, waited for (at most 30 s).
fn request(c: &Center, server: &str, method: &str, params: Option<Value>) -> Result<Value, String> {
    let (tx, rx) = mpsc::channel();
    c.request_mcp(server, method, params, move |outcome| {
        let _ = tx.send(outcome);
    });
    rx.recv_timeout(Duration::from_secs(30)).expect("request_mcp answers")
}

fn text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn each_server_speaks_its_revision_and_the_application_can_see_which() {
    let _serial = serial();
    for (kind, version) in [
        (Kind::Stdio, "2026-07-28"),
        (Kind::StdioLegacy, "2025-11-25"),
        (Kind::Http, "2026-07-28"),
        (Kind::HttpStatelessJson, "2026-07-28"),
        (Kind::HttpLegacy, "2025-11-25"),
    ] {
        let c = Center::new();
        let (entry, _server) = revision_server("rev", kind);
        c.add_mcp(entry);
        assert_eq!(c.mcp_server_info("rev"), json!({}), "not connected yet: {kind:?}");
        assert_eq!(c.mcp_server_info("nobody"), json!({}));
        let added = request(&c, "rev", "tools/call", Some(json!({"name": "add", "arguments": {"a": 40, "b": 2}}))).unwrap();
        assert_eq!(text(&added), "42", "{kind:?}");
        let info = c.mcp_server_info("rev");
        assert_eq!(info["protocolVersion"], version, "{kind:?}: {info}");
        assert_eq!(info["serverInfo"]["name"], "vi-test-revision", "{kind:?}: {info}");
        assert_eq!(info["serverInfo"]["version"], "2.6.1", "{kind:?}: {info}");
        assert!(info["capabilities"]["tools"].is_object(), "{kind:?}: {info}");
        c.remove_mcp("rev");
        wait_for("the server to be retired", || c.mcp_server_info("rev") == json!({}));
    }
}

#[test]
fn a_server_that_never_answers_server_discover_is_initialized_after_the_wait_and_one_that_dies_fails_at_once() {
    let _serial = serial();
    let c = Center::new();
    let mut silent = stdio_entry_of("silent", "revision_server.py");
    silent.arguments.push("--silent-discover".into());
    c.add_mcp(silent);
    let start = std::time::Instant::now();
    let added = request(&c, "silent", "tools/call", Some(json!({"name": "add", "arguments": {"a": 40, "b": 2}}))).unwrap();
    let took = start.elapsed();
    assert_eq!(text(&added), "42");
    assert_eq!(c.mcp_server_info("silent")["protocolVersion"], "2025-11-25");
    assert!(took >= Duration::from_secs(5) && took < Duration::from_secs(10), "initialize came after {took:?}");

    let mut dying = stdio_entry_of("dying", "revision_server.py");
    dying.arguments.push("--exit-on-discover".into());
    c.add_mcp(dying);
    let start = std::time::Instant::now();
    let failure = request(&c, "dying", "tools/call", Some(json!({"name": "add", "arguments": {"a": 1, "b": 1}}))).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5), "the closed connection waited for the discover timeout: {failure}");
    assert!(failure.contains("the server exited"), "{failure}");
    assert_eq!(c.mcp_server_info("dying"), json!({}));
}

#[test]
fn a_reconnect_remembers_the_revision() {
    let _serial = serial();
    // A 2026 HTTP server restarted on the same port: the connection (no session) keeps working;
    // a stdio server that died is started again and spoken to in the revision found before.
    let c = Center::new();
    let (entry, server) = revision_server("rev", Kind::HttpStatelessJson);
    c.add_mcp(entry);
    assert_eq!(text(&request(&c, "rev", "tools/call", Some(json!({"name": "add", "arguments": {"a": 1, "b": 1}}))).unwrap()), "2");
    let port = server.unwrap().port;
    let _again = HttpServer::start_with("revision_server.py", "streamable-http", Some(port), &["--stateless", "--json"]);
    assert_eq!(text(&request(&c, "rev", "tools/call", Some(json!({"name": "add", "arguments": {"a": 2, "b": 2}}))).unwrap()), "4");
    assert_eq!(c.mcp_server_info("rev")["protocolVersion"], "2026-07-28");
    c.remove_mcp("rev");
}

/// The HTTP requests a server recorded (`--record`): method, `mcp-*` headers, body as JSON.
fn recorded(path: &std::path::Path) -> Vec<(String, Value, Value)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|r| (r["method"].as_str().unwrap().to_owned(), r["headers"].clone(), serde_json::from_str(r["body"].as_str().unwrap()).unwrap_or(Value::Null)))
        .collect()
}

#[test]
fn the_2026_envelope_and_headers_are_on_the_wire_and_the_2025_ones_are_not() {
    let _serial = serial();
    for (flags, modern) in [(&["--stateless", "--json"][..], true), (&["--legacy"][..], false)] {
        let path = std::env::temp_dir().join(format!("vi-mcp-wire-{}-{modern}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let record = format!("--record={}", path.display());
        let server = HttpServer::start_with("revision_server.py", "streamable-http", None, &[flags, &[record.as_str()]].concat());
        let c = Center::new();
        let mut entry = server.entry("rev", Transport::StreamableHttp, "/mcp");
        entry.roots = vec!["file:///w".into()];
        c.add_mcp(entry);
        assert_eq!(text(&request(&c, "rev", "tools/call", Some(json!({"name": "roots", "arguments": {}}))).unwrap()), r#"["file:///w"]"#);
        c.remove_mcp("rev");
        let requests = recorded(&path);
        let posts: Vec<&(String, Value, Value)> = requests.iter().filter(|(m, _, body)| m == "POST" && body.get("id").is_some()).collect();
        // The listen (SPEC §I.3.3) runs beside the requests, in its own time.
        let methods: Vec<&str> =
            posts.iter().map(|(_, _, b)| b["method"].as_str().unwrap_or("(answer)")).filter(|m| *m != "subscriptions/listen").collect();
        if modern {
            assert_eq!(methods, ["server/discover", "tools/list", "tools/call", "tools/call"], "{requests:?}");
            assert!(requests.iter().all(|(m, _, _)| m == "POST"), "no GET stream, no DELETE: {requests:?}");
            for (_, headers, body) in &posts {
                let method = body["method"].as_str().unwrap();
                assert_eq!(headers["mcp-protocol-version"], "2026-07-28", "{method}");
                assert_eq!(headers["mcp-method"], method);
                assert!(headers.get("mcp-session-id").is_none(), "{method}: {headers}");
                let meta = &body["params"]["_meta"];
                assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "{method}");
                assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "visindigo-agent", "{method}");
                assert!(meta["io.modelcontextprotocol/clientCapabilities"]["roots"].is_object(), "{method}");
                if method == "tools/call" {
                    assert_eq!(headers["mcp-name"], "roots");
                } else {
                    assert!(headers.get("mcp-name").is_none(), "{method}: {headers}");
                }
            }
            // The retry: a new id, the roots answered under the key asked, the state echoed.
            let calls: Vec<&Value> = posts.iter().map(|(_, _, b)| b).filter(|b| b["method"] == "tools/call").collect();
            let (first, retry) = (calls[0], calls[1]);
            assert_ne!(first["id"], retry["id"]);
            let responses = retry["params"]["inputResponses"].as_object().unwrap();
            assert_eq!(responses.values().next().unwrap()["roots"][0]["uri"], "file:///w", "{retry}");
            assert!(retry["params"]["requestState"].is_string(), "{retry}");
            assert_eq!(retry["params"]["name"], "roots");
        } else {
            assert_eq!(methods[..2], ["server/discover", "initialize"], "{requests:?}");
            let (_, headers, body) = posts.iter().find(|(_, _, b)| b["method"] == "tools/call").unwrap();
            assert_eq!(headers["mcp-protocol-version"], "2025-11-25");
            assert!(headers.get("mcp-session-id").is_some() && headers.get("mcp-method").is_none(), "{headers}");
            assert!(body["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_none(), "{body}");
        }
        let _ = std::fs::remove_file(&path);
    }
}

#[test]
fn rounds_without_end_stop_at_the_call_limit() {
    let _serial = serial();
    let c = Center::new();
    let (mut entry, _server) = revision_server("rev", Kind::HttpStatelessJson);
    entry.call_timeout_ms = 1500;
    c.add_mcp(entry);
    let started = std::time::Instant::now();
    let stalled = request(&c, "rev", "tools/call", Some(json!({"name": "stall", "arguments": {}}))).unwrap_err();
    assert!(stalled.contains("1.5 s"), "{stalled}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // The connection is still good.
    assert_eq!(text(&request(&c, "rev", "tools/call", Some(json!({"name": "add", "arguments": {"a": 1, "b": 2}}))).unwrap()), "3");
    c.remove_mcp("rev");
}

#[test]
fn a_restarted_stdio_server_is_not_asked_server_discover_again() {
    let _serial = serial();
    let log = std::env::temp_dir().join(format!("vi-mcp-methods-{}", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let c = Center::new();
    let (mut entry, _) = revision_server("rev", Kind::StdioLegacy);
    entry.environment.insert("VI_MCP_METHOD_LOG".into(), log.to_string_lossy().into_owned());
    c.add_mcp(entry);
    assert_eq!(text(&request(&c, "rev", "tools/call", Some(json!({"name": "add", "arguments": {"a": 1, "b": 2}}))).unwrap()), "3");
    // The server dies; the next request starts it again and goes straight to initialize.
    assert!(request(&c, "rev", "tools/call", Some(json!({"name": "crash", "arguments": {}}))).is_err());
    assert_eq!(text(&request(&c, "rev", "tools/call", Some(json!({"name": "add", "arguments": {"a": 2, "b": 3}}))).unwrap()), "5");
    assert_eq!(c.mcp_server_info("rev")["protocolVersion"], "2025-11-25");
    let methods = std::fs::read_to_string(&log).unwrap();
    let asked: Vec<&str> = methods.lines().filter(|m| matches!(*m, "server/discover" | "initialize")).collect();
    assert_eq!(asked, ["server/discover", "initialize", "initialize"], "{methods}");
    c.remove_mcp("rev");
    let _ = std::fs::remove_file(&log);
}

fn elicitation(events: &[Event]) -> Option<(String, String, String, Value)> {
    events.iter().find_map(|e| match e {
        Event::McpElicitationRequested { request_id, server, message, schema } => {
            Some((request_id.clone(), server.clone(), message.clone(), schema.clone()))
        }
        _ => None,
    })
}

/// Runs a dialog that calls `tool` and answers the elicitation it brings (if any) with
/// Ada, 4 guests; the Tool message.
fn call_in_a_run(entry: Mcp, tool: &str, arguments: &str, elicits: bool, sampling: bool) -> String {
    let mut steps = vec![calls(&[(tool, arguments)])];
    if sampling {
        steps.push(answer("Old pond, a frog jumps"));
    }
    steps.push(answer("done"));
    let srv = chat_server(steps);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let mut entry = entry;
    entry.roots = vec!["file:///work/project".into()];
    if sampling {
        entry.sampling_provider_id = c.default_provider();
    }
    entry.call_timeout_ms = 20_000;
    let name = entry.name.clone();
    c.add_mcp(entry);
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    if elicits {
        wait_for("the elicitation", || elicitation(&rec.snapshot()).is_some() || !d.is_streaming());
        if let Some((id, server, message, schema)) = elicitation(&rec.snapshot()) {
            assert_eq!((server.as_str(), message.as_str()), (name.as_str(), "Who is the table for?"));
            assert_eq!(schema["properties"]["guests"]["type"], "integer", "{schema}");
            assert!(d.answer_mcp_elicitation(&id, "accept", Some(json!({"name": "Ada", "guests": 4}))));
        }
    }
    wait_for("the run to finish", || !d.is_streaming());
    let tool_message = d.messages().into_iter().find(|m| m.role == Role::Tool).map(|m| m.content.to_string()).unwrap_or_default();
    c.remove_mcp(&name);
    tool_message
}

#[test]
fn stateless_2026_reaches_elicitation_sampling_and_roots_where_stateless_2025_cannot() {
    let _serial = serial();
    for kind in [Kind::HttpStatelessJson, Kind::Stdio, Kind::Http, Kind::StdioLegacy] {
        let (entry, _server) = revision_server("rev", kind);
        assert_eq!(call_in_a_run(entry.clone(), "rev__book", "{}", true, false), "booked for Ada, 4 guests", "{kind:?}");
        assert_eq!(
            call_in_a_run(entry.clone(), "rev__haiku", r#"{"topic":"frogs"}"#, false, true),
            "name-of-m1 wrote: Old pond, a frog jumps",
            "{kind:?}"
        );
        assert_eq!(call_in_a_run(entry.clone(), "rev__roots", "{}", false, false), r#"["file:///work/project"]"#, "{kind:?}");
        // Two questions of different kinds in one round.
        assert_eq!(call_in_a_run(entry, "rev__party", "{}", true, false), "accept; 1 roots", "{kind:?}");
    }
    // The same server, stateless and of 2025-11-25, has no way to ask.
    let (entry, _server) = revision_server("rev", Kind::HttpStatelessLegacy);
    let refused = call_in_a_run(entry, "rev__book", "{}", true, false);
    assert!(refused.contains("no back-channel for server-initiated requests"), "{refused}");
}

#[test]
fn outside_a_run_the_questions_are_declined_as_server_requests_are() {
    let _serial = serial();
    let c = Center::new();
    let (mut entry, _server) = revision_server("rev", Kind::HttpStatelessJson);
    entry.roots = vec!["file:///srv/data".into()];
    c.add_mcp(entry);
    // The application's own tools/call: roots are answered from the entry, elicitation declined.
    let roots = request(&c, "rev", "tools/call", Some(json!({"name": "roots", "arguments": {}}))).unwrap();
    assert_eq!(text(&roots), r#"["file:///srv/data"]"#);
    let booked = request(&c, "rev", "tools/call", Some(json!({"name": "book", "arguments": {}}))).unwrap();
    assert_eq!(text(&booked), "not booked (decline)");
    let sampled = request(&c, "rev", "tools/call", Some(json!({"name": "haiku", "arguments": {"topic": "x"}}))).unwrap_err();
    assert!(sampled.contains("sampling/createMessage") && sampled.contains("declined"), "{sampled}");
    c.remove_mcp("rev");
}

#[derive(Default)]
struct Notifications(Mutex<Vec<(String, String, Value)>>);

impl CenterSink for Notifications {
    fn emit(&self, events: &[CenterEvent]) {
        for e in events {
            if let CenterEvent::McpNotification { server, method, params } = e {
                self.0.lock().unwrap().push((server.clone(), method.clone(), params.clone()));
            }
        }
    }
}

#[test]
fn a_2026_server_is_listened_to_for_its_tool_changes_and_the_resources_subscribed() {
    let _serial = serial();
    for kind in [Kind::Stdio, Kind::Http, Kind::HttpStatelessJson] {
        // A changed tool list is offered in the next round of the same run (SPEC §I.3.3).
        let srv = chat_server(vec![calls(&[("rev__unlock", "{}")]), calls(&[("rev__secret", "{}")]), answer("done")]);
        let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
        let heard = Arc::new(Notifications::default());
        c.set_sink(Some(heard.clone()));
        let (entry, _server) = revision_server("rev", kind);
        c.add_mcp(entry);
        d.append_message(Message::new(Role::User, "go"));
        d.run();
        wait_for("the run to finish", || !d.is_streaming());
        let bodies = bodies(&srv);
        let offered = |body: &Value| -> Vec<String> {
            body["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap().to_owned()).collect()
        };
        assert!(!offered(&bodies[0]).contains(&"rev__secret".to_owned()), "{kind:?}");
        assert!(offered(&bodies[1]).contains(&"rev__secret".to_owned()), "{kind:?}: {:?}", offered(&bodies[1]));
        assert_eq!(d.messages()[4].content, "the secret is 42", "{kind:?}");
        assert_eq!(c.mcp_server_info("rev")["protocolVersion"], "2026-07-28");
        let changed = |method: &str| heard.0.lock().unwrap().iter().any(|(s, m, _)| s == "rev" && m == method);
        wait_for("tools/list_changed as mcpNotification", || changed("notifications/tools/list_changed"));
        assert!(!changed("notifications/subscriptions/acknowledged"), "the listen's own ack is not news");

        // resources/subscribe (gone in 2026) becomes what is listened to; unsubscribed, it stops.
        assert_eq!(request(&c, "rev", "resources/subscribe", Some(json!({"uri": "note://x"}))).unwrap(), json!({}));
        let updated = |uri: &str| heard.0.lock().unwrap().iter().any(|(_, m, p)| m == "notifications/resources/updated" && p["uri"] == uri);
        wait_for("the resource to be announced", || {
            let _ = request(&c, "rev", "tools/call", Some(json!({"name": "announce", "arguments": {"uri": "note://x"}})));
            std::thread::sleep(Duration::from_millis(200));
            updated("note://x")
        });
        request(&c, "rev", "tools/call", Some(json!({"name": "announce", "arguments": {"uri": "note://y"}}))).unwrap();
        std::thread::sleep(Duration::from_millis(500));
        assert!(!updated("note://y"), "{kind:?}: not subscribed");
        assert_eq!(request(&c, "rev", "resources/unsubscribe", Some(json!({"uri": "note://x"}))).unwrap(), json!({}));
        std::thread::sleep(Duration::from_millis(500));
        heard.0.lock().unwrap().clear();
        request(&c, "rev", "tools/call", Some(json!({"name": "announce", "arguments": {"uri": "note://x"}}))).unwrap();
        std::thread::sleep(Duration::from_millis(500));
        assert!(!updated("note://x"), "{kind:?}: unsubscribed: {:?}", heard.0.lock().unwrap());
        c.remove_mcp("rev");
    }
}

// Tasks at 2026-07-28 (SPEC §I.3.4, issue 31): the extension `io.modelcontextprotocol/tasks`
// (SEP-2663) as tests/mcp_servers/task_server.py serves it on the Python SDK 2.3.

/// The task server, stateless with JSON answers (2026-07-28), or `--legacy` (2025-11-25),
/// recording what it receives to a fresh file.
fn task_server(name: &str, tag: &str, legacy: bool) -> (Mcp, HttpServer, std::path::PathBuf) {
    task_server_with(name, tag, if legacy { &["--legacy"] } else { &["--stateless", "--json"] })
}

fn task_server_with(name: &str, tag: &str, flags: &[&str]) -> (Mcp, HttpServer, std::path::PathBuf) {
    let path = std::env::temp_dir().join(format!("vi-mcp-tasks-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let record = format!("--record={}", path.display());
    let flags: Vec<&str> = flags.iter().copied().chain([record.as_str()]).collect();
    let server = HttpServer::start_with("task_server.py", "streamable-http", None, &flags);
    (server.entry(name, Transport::StreamableHttp, "/mcp"), server, path)
}

/// The requests (JSON-RPC bodies with an id) of `method` the server recorded, with their headers.
fn recorded_requests(path: &std::path::Path, method: &str) -> Vec<(Value, Value)> {
    recorded(path).into_iter().filter(|(m, _, b)| m == "POST" && b["method"] == method).map(|(_, h, b)| (h, b)).collect()
}

/// The status messages a tool's task reported as progress, in order.
fn task_progress(events: &[Event], of: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::McpProgress { tool, message, .. } if tool == of => Some(message.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_2026_task_runs_through_the_tasks_extension_its_statuses_are_progress_and_its_outcome_reaches_the_model() {
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("tk__brew", r#"{"who":"Ada"}"#), ("tk__spill", "{}")]), answer("done")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let (entry, _server, path) = task_server("tk", "run", false);
    c.add_mcp(entry);
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_for("the run to finish", || !d.is_streaming());
    assert_eq!(c.mcp_server_info("tk")["protocolVersion"], "2026-07-28");
    let tools: Vec<String> = d.messages().into_iter().filter(|m| m.role == Role::Tool).map(|m| m.content.to_string()).collect();
    assert!(tools.contains(&"tea for Ada".to_owned()), "{tools:?}");
    let spilled = tools.iter().find(|t| t.contains("kettle")).unwrap_or_else(|| panic!("{tools:?}"));
    assert!(spilled.contains("failed (the kettle broke)"), "{spilled}");
    // The model is given both outcomes.
    let second = bodies(&srv)[1].to_string();
    assert!(second.contains("tea for Ada") && second.contains("the kettle broke"), "{second}");
    assert_eq!(d.last_message().content, "done");

    // The statuses reached the application as progress: the task as created, at least the
    // long middle step (six polls long), and the end; never out of order.
    let order = ["working", "warming the pot", "steeping", "brewed"];
    let brewed = task_progress(&rec.snapshot(), "brew");
    let at: Vec<usize> = brewed.iter().map(|s| order.iter().position(|o| o == s).unwrap_or_else(|| panic!("{s:?} in {brewed:?}"))).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{brewed:?}");
    assert_eq!((brewed.first().map(String::as_str), brewed.last().map(String::as_str)), (Some("working"), Some("brewed")), "{brewed:?}");
    assert!(brewed.iter().any(|s| s == "steeping"), "{brewed:?}");

    // The wire as the extension says: the extension declared on the call, which asks for no
    // task (the server decides); the task polled with tasks/get under Mcp-Name = taskId and the
    // 2026 envelope; no tasks/result, and nothing cancelled.
    let (headers, call) = recorded_requests(&path, "tools/call").into_iter().find(|(_, b)| b["params"]["name"] == "brew").unwrap();
    assert_eq!(headers["mcp-name"], "brew");
    assert_eq!(call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"], json!({}), "{call}");
    assert!(call["params"].get("task").is_none(), "{call}");
    let gets = recorded_requests(&path, "tasks/get");
    assert!(gets.len() >= 2, "{gets:?}");
    for (headers, body) in &gets {
        let id = body["params"]["taskId"].as_str().unwrap();
        assert_eq!((headers["mcp-method"].as_str(), headers["mcp-name"].as_str()), (Some("tasks/get"), Some(id)), "{headers}");
        assert_eq!(body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    }
    assert!(recorded_requests(&path, "tasks/result").is_empty() && recorded_requests(&path, "tasks/cancel").is_empty());
    c.remove_mcp("tk");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_2026_tasks_statuses_pushed_on_a_listen_are_followed_without_waiting_for_a_poll() {
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("tk__brew", r#"{"who":"Bo"}"#)]), answer("done")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    // The server asks to be polled every 10 minutes (the client waits at most a minute).
    let (entry, _server, path) = task_server_with("tk", "push", &["--stateless", "--json", "--slow-poll"]);
    c.add_mcp(entry);
    d.append_message(Message::new(Role::User, "go"));
    let started = Instant::now();
    d.run();
    wait_for("the run to finish", || !d.is_streaming());
    assert!(started.elapsed() < Duration::from_secs(30), "the task was followed by its polls: {:?}", started.elapsed());
    let tools: Vec<String> = d.messages().into_iter().filter(|m| m.role == Role::Tool).map(|m| m.content.to_string()).collect();
    assert_eq!(tools, ["tea for Bo"]);
    let brewed = task_progress(&rec.snapshot(), "brew");
    // Every change after the listen began, pushed ("warming the pot" comes as the task starts,
    // often before the listen).
    assert!(brewed == ["working", "steeping", "brewed"] || brewed == ["working", "warming the pot", "steeping", "brewed"], "{brewed:?}");
    // One listen named the task; no poll was needed.
    let listens = recorded_requests(&path, "subscriptions/listen");
    let task_listens: Vec<&Value> = listens.iter().map(|(_, b)| b).filter(|b| b["params"]["notifications"].get("tasksStatus").is_some()).collect();
    assert_eq!(task_listens.len(), 1, "{listens:?}");
    let listened = task_listens[0]["params"]["notifications"]["tasksStatus"][0].as_str().unwrap();
    assert_eq!(task_listens[0]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    assert!(recorded_requests(&path, "tasks/get").is_empty(), "{:?}", recorded_requests(&path, "tasks/get"));
    assert!(!listened.is_empty());

    // The application's own tools/call is answered as the server answers it: with the task,
    // which the application follows itself.
    let created = request(&c, "tk", "tools/call", Some(json!({"name": "brew", "arguments": {"who": "Cy"}}))).unwrap();
    assert_eq!((created["resultType"].as_str(), created["status"].as_str()), (Some("task"), Some("working")), "{created}");
    let id = created["taskId"].as_str().unwrap();
    let start = Instant::now();
    let done = loop {
        let got = request(&c, "tk", "tasks/get", Some(json!({"taskId": id}))).unwrap();
        if got["status"] == "completed" {
            break got;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{got}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(done["result"]["content"][0]["text"], "tea for Cy");
    c.remove_mcp("tk");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_2026_task_is_cancelled_with_tasks_cancel_when_the_run_is_aborted() {
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("tk__vigil", "{}")]), answer("unused")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let (entry, _server, path) = task_server("tk", "abort", false);
    c.add_mcp(entry);
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_for("the task's status", || task_progress(&rec.snapshot(), "vigil").iter().any(|s| s == "keeping watch"));
    d.abort();
    wait_for("the run to end", || !d.is_streaming());
    wait_for("tasks/cancel", || !recorded_requests(&path, "tasks/cancel").is_empty());
    let (headers, cancel) = recorded_requests(&path, "tasks/cancel").remove(0);
    let id = cancel["params"]["taskId"].as_str().unwrap().to_owned();
    let created = recorded_requests(&path, "tasks/get");
    assert!(created.iter().all(|(_, b)| b["params"]["taskId"] == id.as_str()), "the task of the call: {created:?}");
    assert_eq!(headers["mcp-name"], id.as_str(), "{headers}");
    assert_eq!(cancel["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "{cancel}");
    // The server took it: the task is cancelled there.
    let got = request(&c, "tk", "tasks/get", Some(json!({"taskId": id}))).unwrap();
    assert_eq!((got["status"].as_str(), got["statusMessage"].as_str()), (Some("cancelled"), Some("cancelled by the client")), "{got}");
    c.remove_mcp("tk");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_task_tool_is_offered_only_where_client_and_server_can_run_it() {
    let _serial = serial();
    // The same server: at 2026-07-28 it runs its task tools through the extension; at
    // 2025-11-25 it lists them as `taskSupport: "required"` without the `tasks` capability.
    for (legacy, version, offered) in
        [(false, "2026-07-28", &["tk__add", "tk__brew", "tk__nag", "tk__reserve", "tk__spill", "tk__toast", "tk__vigil"][..]), (true, "2025-11-25", &["tk__add"][..])]
    {
        let srv = chat_server(vec![answer("hello")]);
        let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
        let (entry, _server, path) = task_server("tk", "offer", legacy);
        c.add_mcp(entry);
        d.append_message(Message::new(Role::User, "hi"));
        d.run();
        wait_for("the run to finish", || !d.is_streaming());
        assert_eq!(c.mcp_server_info("tk")["protocolVersion"], version);
        let mut names: Vec<String> =
            bodies(&srv)[0]["tools"].as_array().unwrap().iter().filter_map(|t| t["function"]["name"].as_str()).map(str::to_owned).collect();
        names.retain(|n| n.starts_with("tk__"));
        names.sort();
        assert_eq!(names, offered, "{version}");
        if legacy {
            // Listed, but not offered: the server cannot run what must be a task.
            let listed = request(&c, "tk", "tools/list", None).unwrap();
            let brew = listed["tools"].as_array().unwrap().iter().find(|t| t["name"] == "brew").cloned().unwrap_or_default();
            assert_eq!(brew["execution"]["taskSupport"], "required", "{listed}");
            assert!(c.mcp_server_info("tk")["capabilities"].get("tasks").is_none());
        }
        c.remove_mcp("tk");
        let _ = std::fs::remove_file(&path);
    }
}

/// Runs a dialog that calls the 2026 task tool `tk__reserve`, which asks mid-task who the
/// table is for, and answers that elicitation with `action` (Ada, 4 guests when accepted) after
/// several polls have shown it again: the Tool message, the task's statuses as progress, what
/// the model was given next, how often the application was asked, and the server's record.
fn reserve_in_a_run(action: &str) -> (String, Vec<String>, String, usize, std::path::PathBuf) {
    let srv = chat_server(vec![calls(&[("tk__reserve", "{}")]), answer("done")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let (mut entry, _server, path) = task_server("tk", action, false);
    entry.call_timeout_ms = 20_000;
    c.add_mcp(entry);
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_for("the elicitation", || elicitation(&rec.snapshot()).is_some() || !d.is_streaming());
    let (id, server, message, schema) = elicitation(&rec.snapshot()).unwrap_or_else(|| panic!("not asked: {:?}", d.messages()));
    assert_eq!((server.as_str(), message.as_str()), ("tk", "Who is the table for?"));
    assert_eq!(schema["properties"]["guests"]["type"], "integer", "{schema}");
    // The task stays input_required, its question in every poll (100 ms apart), meanwhile.
    std::thread::sleep(Duration::from_millis(600));
    let content = (action == "accept").then(|| json!({"name": "Ada", "guests": 4}));
    assert!(d.answer_mcp_elicitation(&id, action, content));
    wait_for("the run to finish", || !d.is_streaming());
    let asked = rec.snapshot().iter().filter(|e| matches!(e, Event::McpElicitationRequested { .. })).count();
    let tool = d.messages().into_iter().find(|m| m.role == Role::Tool).map(|m| m.content.to_string()).unwrap_or_default();
    let next = bodies(&srv).get(1).map(Value::to_string).unwrap_or_default();
    c.remove_mcp("tk");
    (tool, task_progress(&rec.snapshot(), "reserve"), next, asked, path)
}

#[test]
fn a_2026_task_that_asks_for_input_is_answered_with_tasks_update_and_followed_to_its_result() {
    let _serial = serial();
    let (tool, statuses, next, asked, path) = reserve_in_a_run("accept");
    // The answer reached the server: the tool's result is made of it, and the model has it.
    assert_eq!(tool, "reserved for Ada, 4 guests");
    assert!(next.contains("reserved for Ada, 4 guests"), "{next}");
    // The statuses, the question's among them, reached the application as progress, in order.
    let order = ["working", "finding a table", "waiting for the guest list", "setting the table", "reserved"];
    let at: Vec<usize> = statuses.iter().map(|s| order.iter().position(|o| o == s).unwrap_or_else(|| panic!("{s:?} in {statuses:?}"))).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{statuses:?}");
    assert!(statuses.iter().any(|s| s == "waiting for the guest list"), "{statuses:?}");
    assert_eq!(statuses.last().map(String::as_str), Some("reserved"), "{statuses:?}");
    // Asked once though every poll repeated the question; answered once, on the wire as the
    // extension says: tasks/update with the answer under the key asked, the 2026 envelope and
    // Mcp-Name = taskId; nothing cancelled.
    assert_eq!(asked, 1);
    let gets = recorded_requests(&path, "tasks/get");
    let repeated = gets.len();
    let updates = recorded_requests(&path, "tasks/update");
    assert_eq!(updates.len(), 1, "{updates:?} after {repeated} polls");
    let (headers, update) = &updates[0];
    let id = update["params"]["taskId"].as_str().unwrap();
    assert_eq!((headers["mcp-method"].as_str(), headers["mcp-name"].as_str()), (Some("tasks/update"), Some(id)), "{headers}");
    assert_eq!(update["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "{update}");
    assert_eq!(update["params"]["inputResponses"], json!({"booking": {"action": "accept", "content": {"name": "Ada", "guests": 4}}}));
    assert!(recorded_requests(&path, "tasks/cancel").is_empty());
    let _ = std::fs::remove_file(&path);

    // Sampling mid-task: the run's model writes the toast.
    let (entry, _server, path) = task_server("tk", "toast", false);
    assert_eq!(call_in_a_run(entry, "tk__toast", r#"{"to":"Ada"}"#, false, true), "name-of-m1 toasted: Old pond, a frog jumps");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_declined_question_of_a_2026_task_brings_the_servers_outcome_to_the_model() {
    let _serial = serial();
    let (tool, statuses, next, asked, path) = reserve_in_a_run("decline");
    assert_eq!((tool.as_str(), asked), ("not reserved (decline)", 1));
    assert!(next.contains("not reserved (decline)"), "{next}");
    assert_eq!(statuses.last().map(String::as_str), Some("not reserved"), "{statuses:?}");
    let updates = recorded_requests(&path, "tasks/update");
    assert_eq!(updates.len(), 1, "{updates:?}");
    assert_eq!(updates[0].1["params"]["inputResponses"]["booking"]["action"], "decline");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_2026_task_that_asks_without_end_stops_at_the_call_limit_and_is_cancelled() {
    let _serial = serial();
    // As rounds of input_required results do: each question answered (the roots, from the
    // entry), the status never changing, and the call given up at its limit.
    let srv = chat_server(vec![calls(&[("tk__nag", "{}")]), answer("done")]);
    let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    let (mut entry, _server, path) = task_server("tk", "nag", false);
    entry.roots = vec!["file:///w".into()];
    entry.call_timeout_ms = 1500;
    c.add_mcp(entry);
    let started = std::time::Instant::now();
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_for("the run to finish", || !d.is_streaming());
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    let tool = d.messages().into_iter().find(|m| m.role == Role::Tool).map(|m| m.content.to_string()).unwrap_or_default();
    assert!(tool.contains("timed out") && tool.contains("1.5 s"), "{tool}");
    // Several rounds were answered, each question once, before the limit.
    let keys: Vec<String> = recorded_requests(&path, "tasks/update")
        .iter()
        .flat_map(|(_, b)| b["params"]["inputResponses"].as_object().map(|r| r.keys().cloned().collect::<Vec<_>>()).unwrap_or_default())
        .collect();
    assert!(keys.len() >= 2, "{keys:?}");
    assert_eq!(keys.iter().collect::<std::collections::HashSet<_>>().len(), keys.len(), "{keys:?}");
    wait_for("tasks/cancel", || !recorded_requests(&path, "tasks/cancel").is_empty());
    c.remove_mcp("tk");
    let _ = std::fs::remove_file(&path);
}
