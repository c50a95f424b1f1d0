//! The MCP client against a server nobody on this project wrote: the official reference
//! server `@modelcontextprotocol/server-everything` (SPEC §I.3.8), installed by tools/test.sh
//! from tests/npm's lock file, over stdio, streamable HTTP and the legacy HTTP+SSE transport,
//! with the scripted chat server playing the model. Its HTTP transports listen on 127.0.0.1
//! only (tests/support/listen_localhost.cjs is preloaded into node).
//!
//! Started from the SDK's own Python client first (the lock's version answers it), so a
//! failure here is ours, not the fixture's.

mod support;

use serde_json::{Value, json};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};
use support::mcp_servers::{answer, calls, serial};
use support::*;
use visindigo_agent::{Center, CenterEvent, CenterSink, Dialog, Event, Mcp, Message, Role, Transport};

/// The reference server's entry point, where `npm ci` in tests/npm put it.
fn everything() -> String {
    let entry = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(entry.exists(), "{} is missing: run `npm ci --prefix tests/npm` (tools/test.sh does)", entry.display());
    entry.to_string_lossy().into_owned()
}

fn stdio_everything(name: &str) -> Mcp {
    let mut m = Mcp::new(name);
    m.command = "node".into();
    m.arguments = vec![everything(), "stdio".into()];
    m
}

/// server-everything over HTTP (streamable HTTP at /mcp or legacy SSE at /sse) on a port of
/// 127.0.0.1; killed on drop.
struct HttpEverything {
    child: Child,
    port: u16,
    transport: Transport,
}

impl HttpEverything {
    fn start(transport: Transport) -> HttpEverything {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        HttpEverything { child: HttpEverything::spawn(transport, port), port, transport }
    }

    fn spawn(transport: Transport, port: u16) -> Child {
        let mode = if transport == Transport::Sse { "sse" } else { "streamableHttp" };
        let preload = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/listen_localhost.cjs");
        let child = Command::new("node")
            .arg("--require")
            .arg(preload)
            .args([everything(), mode.to_owned()])
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts");
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(30), "server-everything ({mode}) did not listen within 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        child
    }

    /// Kills the server and starts a new one on the same port: every session is forgotten.
    fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = HttpEverything::spawn(self.transport, self.port);
    }

    fn entry(&self, name: &str) -> Mcp {
        let mut m = Mcp::new(name);
        m.transport = self.transport;
        let path = if self.transport == Transport::Sse { "/sse" } else { "/mcp" };
        m.url = format!("http://127.0.0.1:{}{path}", self.port);
        m
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The entry of server-everything over `transport` and what keeps its server running.
fn launch(name: &str, transport: Transport) -> (Mcp, Option<HttpEverything>) {
    match transport {
        Transport::Stdio => (stdio_everything(name), None),
        _ => {
            let server = HttpEverything::start(transport);
            (server.entry(name), Some(server))
        }
    }
}

fn offered(body: &Value) -> Vec<String> {
    body["tools"].as_array().into_iter().flatten().map(|t| t["function"]["name"].as_str().unwrap().to_owned()).collect()
}

/// The Center's MCP notifications as (server, method, params).
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

/// `request_mcp`, waited for (at most 30 s).
fn request(c: &Center, server: &str, method: &str, params: Option<Value>) -> Result<Value, String> {
    let (tx, rx) = mpsc::channel();
    c.request_mcp(server, method, params, move |outcome| tx.send(outcome).unwrap());
    rx.recv_timeout(Duration::from_secs(30)).expect("request_mcp calls back")
}

/// Answers the run's elicitations until dropped: forms with `form`, URL ones with `url`.
struct Answerer {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Answerer {
    fn start(d: &Dialog, rec: &Arc<Recorder>, form: (&'static str, Option<Value>), url: &'static str) -> Answerer {
        let done = Arc::new(AtomicBool::new(false));
        let (d, rec, stop) = (d.clone(), rec.clone(), done.clone());
        let thread = std::thread::spawn(move || {
            let mut answered = std::collections::HashSet::new();
            while !stop.load(Ordering::Relaxed) {
                for e in rec.snapshot() {
                    let (id, action, content) = match e {
                        Event::McpElicitationRequested { request_id, .. } => (request_id, form.0, form.1.clone()),
                        Event::McpUrlElicitationRequested { request_id, .. } => (request_id, url, None),
                        _ => continue,
                    };
                    if answered.insert(id.clone()) {
                        d.answer_mcp_elicitation(&id, action, content);
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        Answerer { done, thread: Some(thread) }
    }
}

impl Drop for Answerer {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Waits (at most 60 s) for the run to end.
fn wait_run(d: &Dialog) {
    let start = Instant::now();
    while d.is_streaming() {
        assert!(start.elapsed() < Duration::from_secs(60), "the run did not finish in 60 s");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The status messages a run reported as progress of `tool`.
/// The statuses server-everything's research task goes through, in order (its
/// tools/simulate-research-query.js): each working stage lasts about a second; the server
/// pushes each change (`notifications/tasks/status`) and the client polls every second
/// besides, so a stage may be reported twice but never out of order.
const RESEARCH_STATUSES: [&str; 7] = [
    "working",
    "Gathering sources...",
    "Analyzing content...",
    "Synthesizing findings...",
    "Found multiple interpretations",
    "Continuing with interpretation",
    "Generating report...",
];

/// Asserts that `seen` statuses follow [`RESEARCH_STATUSES`]' order, and gives the index of each.
fn research_stages(seen: &[String]) -> Vec<usize> {
    let mut at = 0;
    seen.iter()
        .map(|s| {
            let i = RESEARCH_STATUSES.iter().position(|p| s.starts_with(p)).unwrap_or_else(|| panic!("unknown status {s:?} in {seen:?}"));
            assert!(i >= at, "{s:?} came after {:?}: {seen:?}", RESEARCH_STATUSES[at]);
            at = i;
            i
        })
        .collect()
}

fn statuses(events: &[Event], of: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::McpProgress { tool, message, total, .. } if tool == of => {
                assert_eq!(*total, 0.0, "a task's progress has no total");
                Some(message.clone())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn the_reference_servers_features_work_over_every_transport() {
    let _serial = serial();
    for transport in [Transport::Stdio, Transport::StreamableHttp, Transport::Sse] {
        let tools = [
            ("ev__echo", r#"{"message":"hi there"}"#),
            ("ev__get-sum", r#"{"a":2,"b":3}"#),
            ("ev__get-tiny-image", "{}"),
            ("ev__get-annotated-message", r#"{"messageType":"error"}"#),
            ("ev__get-resource-links", r#"{"count":2}"#),
            ("ev__get-resource-reference", r#"{"resourceType":"Text","resourceId":1}"#),
            ("ev__get-structured-content", r#"{"location":"Chicago"}"#),
            ("ev__trigger-sampling-request", r#"{"prompt":"Say hi","maxTokens":20}"#),
            ("ev__trigger-elicitation-request", "{}"),
            ("ev__trigger-url-elicitation", r#"{"url":"https://example.com/sign-in","message":"Sign in."}"#),
            ("ev__simulate-research-query", r#"{"topic":"frogs"}"#),
            ("ev__toggle-simulated-logging", "{}"),
        ];
        let srv = chat_server(vec![calls(&tools), answer("sampled hello"), answer("done")]);
        let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
        let heard = Arc::new(Notifications::default());
        c.set_sink(Some(heard.clone()));
        let (mut entry, _server) = launch("ev", transport);
        entry.sampling_provider_id = c.default_provider();
        c.add_mcp(entry);
        d.append_message(Message::new(Role::User, "go"));
        let answerer = Answerer::start(&d, &rec, ("decline", None), "accept");
        d.run();
        wait_run(&d);
        drop(answerer);
        let events = rec.take();
        assert!(!events.iter().any(|e| matches!(e, Event::McpFailed { .. } | Event::RunFailed(_))), "{transport:?}: {events:?}");
        let names = offered(&bodies(&srv)[0]);
        for (name, _) in tools {
            assert!(names.contains(&name.to_owned()), "{transport:?}: {name} is offered: {names:?}");
        }
        let messages = d.messages();
        let result = |i: usize| {
            assert_eq!(messages[2 + i].role, Role::Tool, "{transport:?}");
            messages[2 + i].content.to_string()
        };
        let expect = |i: usize, part: &str| assert!(result(i).contains(part), "{transport:?}: {} gave {}", tools[i].0, result(i));
        assert_eq!(result(0), "Echo: hi there");
        expect(1, "5");
        expect(2, "[image: image/png]");
        assert!(messages[4].images[0].url.starts_with("data:image/png;base64,"), "{transport:?}");
        expect(3, "Error: Operation failed");
        expect(4, "[resource link: ");
        expect(5, "Resource 1");
        expect(6, "\"humidity\"");
        expect(7, "sampled hello");
        expect(8, "User declined to provide the requested information");
        expect(9, "User completed the URL elicitation flow");
        expect(10, "# Research Report: frogs");
        expect(11, "Started simulated");
        // The server pushes every change (notifications/tasks/status), so no stage is missed
        // between two polls a second apart.
        let stages = research_stages(&statuses(&events, "simulate-research-query"));
        for stage in [1, 2, 3, 6] {
            assert!(stages.contains(&stage), "{transport:?}: {:?} did not reach the app: {stages:?}", RESEARCH_STATUSES[stage]);
        }
        assert!(
            !heard.0.lock().unwrap().iter().any(|(_, m, p)| m == "notifications/tasks/status" && p["status"] == "completed"),
            "{transport:?}: the followed task's statuses are the call's, not the app's"
        );
        assert_eq!(d.last_message().content, "done");

        // Resources and prompts through the application's requests; logging as notifications.
        let list = request(&c, "ev", "resources/list", None).unwrap();
        let uri = list["resources"][0]["uri"].as_str().unwrap().to_owned();
        let read = request(&c, "ev", "resources/read", Some(json!({"uri": uri}))).unwrap();
        assert_eq!(read["contents"][0]["uri"], uri.as_str(), "{transport:?}");
        let prompts = request(&c, "ev", "prompts/list", None).unwrap();
        assert!(prompts["prompts"].as_array().unwrap().iter().any(|p| p["name"] == "simple-prompt"), "{prompts}");
        let prompt = request(&c, "ev", "prompts/get", Some(json!({"name": "simple-prompt"}))).unwrap();
        assert_eq!(prompt["messages"][0]["role"], "user", "{prompt}");
        let start = Instant::now();
        while !heard.0.lock().unwrap().iter().any(|(s, m, _)| s == "ev" && m == "notifications/message") {
            assert!(start.elapsed() < Duration::from_secs(15), "{transport:?}: no log message within 15 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        c.remove_mcp("ev");
    }
}

#[test]
fn a_task_asks_for_input_through_the_app_and_its_status_is_progress() {
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("ev__simulate-research-query", r#"{"topic":"python","ambiguous":true}"#)]), answer("done")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(stdio_everything("ev"));
    d.append_message(Message::new(Role::User, "go"));
    let answerer = Answerer::start(&d, &rec, ("accept", Some(json!({"interpretation": "snake"}))), "decline");
    d.run();
    wait_run(&d);
    drop(answerer);
    let events = rec.take();
    let asked = events.iter().find_map(|e| match e {
        Event::McpElicitationRequested { message, .. } => Some(message.clone()),
        _ => None,
    });
    assert!(asked.is_some_and(|m| m.contains("could have multiple interpretations")), "{events:?}");
    let messages = d.messages();
    assert_eq!(messages[2].role, Role::Tool);
    assert!(messages[2].content.contains("# Research Report: python (snake)"), "{}", messages[2].content);
    let statuses = statuses(&events, "simulate-research-query");
    // Before the question at least one working stage (two seconds of them), the question
    // itself, and after it at least one of the two last stages (two seconds again).
    let stages = research_stages(&statuses);
    assert!(stages.iter().any(|&i| (1..=3).contains(&i)), "{statuses:?}");
    assert!(stages.contains(&4), "{statuses:?}");
    assert!(stages.iter().any(|&i| i >= 5), "{statuses:?}");
    assert!(
        statuses.iter().filter(|s| s.starts_with("Continuing")).all(|s| s == "Continuing with interpretation: \"snake\"..."),
        "{statuses:?}"
    );
    assert_eq!(d.last_message().content, "done");
    c.remove_mcp("ev");
}

#[test]
fn a_task_is_cancelled_on_abort_over_both_http_transports() {
    let _serial = serial();
    let research = ("ev__simulate-research-query", r#"{"topic":"frogs"}"#);
    for transport in [Transport::StreamableHttp, Transport::Sse] {
        let srv = chat_server(vec![calls(&[research])]);
        let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
        let (entry, _server) = launch("ev", transport);
        c.add_mcp(entry);
        d.append_message(Message::new(Role::User, "go"));
        d.run();
        wait_for("the task's first status", || rec.snapshot().iter().any(|e| matches!(e, Event::McpProgress { .. })));
        d.abort();
        wait_run(&d);
        let start = Instant::now();
        while !task_statuses(&c).iter().any(|s| s == "cancelled") {
            assert!(start.elapsed() < Duration::from_secs(10), "{transport:?}: the task was not cancelled: {:?}", task_statuses(&c));
            std::thread::sleep(Duration::from_millis(100));
        }
        c.remove_mcp("ev");
    }
}

/// The statuses of the server's tasks, through the application's `tasks/list`.
fn task_statuses(c: &Center) -> Vec<String> {
    let list = request(c, "ev", "tasks/list", None).unwrap();
    list["tasks"].as_array().unwrap().iter().map(|t| t["status"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_task_is_cancelled_on_abort_stop_and_timeout_and_its_limit_counts_from_the_last_change() {
    let _serial = serial();
    let research = ("ev__simulate-research-query", r#"{"topic":"frogs"}"#);
    let srv = chat_server(vec![
        calls(&[research]),
        calls(&[research]),
        calls(&[research]),
        answer("after timeout"),
        calls(&[research]),
        answer("done"),
    ]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let mut entry = stdio_everything("ev");
    c.add_mcp(entry.clone());
    let mut cancelled = 0;
    for how in ["abort", "stop"] {
        d.append_message(Message::new(Role::User, "go"));
        d.run();
        wait_for("the task's first status", || rec.snapshot().iter().any(|e| matches!(e, Event::McpProgress { .. })));
        if how == "abort" {
            d.abort()
        } else {
            d.stop()
        }
        wait_run(&d);
        rec.take();
        cancelled += 1;
        let start = Instant::now();
        while task_statuses(&c).iter().filter(|s| *s == "cancelled").count() < cancelled {
            assert!(start.elapsed() < Duration::from_secs(10), "{how}: the task was not cancelled: {:?}", task_statuses(&c));
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    // 0.5 s without a status change (the server suggests polling every second): the call is
    // given up and the task cancelled.
    entry.call_timeout_ms = 500;
    c.add_mcp(entry.clone());
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_run(&d);
    rec.take();
    let tool = &d.messages()[d.message_count() - 2];
    assert!(tool.content.contains("timed out"), "{}", tool.content);
    cancelled += 1;
    let start = Instant::now();
    while task_statuses(&c).iter().filter(|s| *s == "cancelled").count() < cancelled {
        assert!(start.elapsed() < Duration::from_secs(10), "timeout: the task was not cancelled: {:?}", task_statuses(&c));
        std::thread::sleep(Duration::from_millis(100));
    }

    // 2.5 s: each stage takes a second and changes the status, so the 4 s task completes.
    entry.call_timeout_ms = 2_500;
    c.add_mcp(entry);
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_run(&d);
    let tool = &d.messages()[d.message_count() - 2];
    assert!(tool.content.contains("# Research Report: frogs"), "{}", tool.content);
    assert_eq!(d.last_message().content, "done");
    c.remove_mcp("ev");
}

#[test]
fn a_lost_streamable_http_session_is_initialised_again() {
    let _serial = serial();
    let echo = ("ev__echo", r#"{"message":"again"}"#);
    let srv = chat_server(vec![calls(&[echo]), answer("one"), calls(&[echo]), answer("two")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let mut server = HttpEverything::start(Transport::StreamableHttp);
    c.add_mcp(server.entry("ev"));
    for round in 0..2 {
        if round == 1 {
            // The new server knows no session: it answers 400 "No valid session ID provided".
            server.restart();
        }
        d.append_message(Message::new(Role::User, "go"));
        d.run();
        wait_run(&d);
        let events = rec.take();
        assert!(!events.iter().any(|e| matches!(e, Event::McpFailed { .. })), "{events:?}");
        let tool = &d.messages()[d.message_count() - 2];
        assert_eq!(tool.content, "Echo: again", "round {round}");
    }
    c.remove_mcp("ev");
}

#[test]
fn a_url_elicitation_reaches_the_host_and_its_answer_the_server() {
    let _serial = serial();
    let arguments = r#"{"url":"https://example.com/sign-in?session=1","message":"Sign in to go on."}"#;
    let srv = chat_server(vec![
        calls(&[("ev__trigger-url-elicitation", arguments)]),
        answer("signed in"),
        calls(&[("ev__trigger-url-elicitation", arguments)]),
        answer("not signed in"),
    ]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(stdio_everything("ev"));
    for (action, said) in [("accept", "User completed the URL elicitation flow"), ("decline", "User declined to open the URL")] {
        d.append_message(Message::new(Role::User, "go"));
        d.run();
        let asked = || {
            rec.snapshot().iter().find_map(|e| match e {
                Event::McpUrlElicitationRequested { request_id, server, message, url } => {
                    Some((request_id.clone(), server.clone(), message.clone(), url.clone()))
                }
                _ => None,
            })
        };
        wait_for("the url elicitation", || asked().is_some());
        let (id, server, message, url) = asked().unwrap();
        assert_eq!((server.as_str(), message.as_str(), url.as_str()), ("ev", "Sign in to go on.", "https://example.com/sign-in?session=1"));
        assert!(d.answer_mcp_elicitation(&id, action, None));
        rec.wait_finished();
        rec.take();
        let tool = &d.messages()[d.message_count() - 2];
        assert_eq!(tool.role, Role::Tool);
        assert!(tool.content.contains(said), "{}", tool.content);
    }
    assert!(offered(&bodies(&srv)[0]).contains(&"ev__trigger-url-elicitation".to_owned()), "offered only to a client that declares url mode");
    c.remove_mcp("ev");
}

/// The URL elicitations the run asked the application, as (message, url), in order.
fn url_elicitations(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::McpUrlElicitationRequested { message, url, .. } => Some((message.clone(), url.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn url_elicitation_required_asks_the_app_and_retries_once_accepted() {
    let _serial = serial();
    let arguments = r#"{"url":"https://example.com/pay","message":"Confirm the payment.","errorPath":true}"#;
    let srv = chat_server(vec![
        calls(&[("ev__trigger-url-elicitation", arguments)]),
        answer("paid"),
        calls(&[("ev__trigger-url-elicitation", arguments)]),
        answer("not paid"),
    ]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(stdio_everything("ev"));

    // Accepted: the prerequisite of error.data, then the retried call's own elicitation.
    d.append_message(Message::new(Role::User, "go"));
    let answerer = Answerer::start(&d, &rec, ("decline", None), "accept");
    d.run();
    wait_run(&d);
    drop(answerer);
    let asked = url_elicitations(&rec.take());
    assert_eq!(asked, [
        ("Open this link to satisfy the prerequisite, then retry the request.".to_owned(), "https://modelcontextprotocol.io/".to_owned()),
        ("Confirm the payment.".to_owned(), "https://example.com/pay".to_owned()),
    ]);
    let tool = &d.messages()[d.message_count() - 2];
    assert!(tool.content.contains("User completed the URL elicitation flow"), "{}", tool.content);

    // Declined: the call fails saying which page the user must open.
    d.append_message(Message::new(Role::User, "go"));
    let answerer = Answerer::start(&d, &rec, ("decline", None), "decline");
    d.run();
    wait_run(&d);
    drop(answerer);
    assert_eq!(url_elicitations(&rec.take()).len(), 1);
    let tool = &d.messages()[d.message_count() - 2];
    assert!(tool.content.starts_with(r#"{"error":"#), "{}", tool.content);
    for part in ["requires browser-based authorization", "-32042", "https://modelcontextprotocol.io", "decline"] {
        assert!(tool.content.contains(part), "{part} in {}", tool.content);
    }
    c.remove_mcp("ev");
}
