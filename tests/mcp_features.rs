//! The MCP client beyond tools (SPEC §H.4) against tests/mcp_servers/features_server.py (the
//! official MCP Python SDK): progress that keeps a long call alive, cancellation the server
//! observes, roots, and the application's own requests and the server's notifications.
//!
//! Needs the project venv (see tests/mcp.rs).

mod support;

use serde_json::{Value, json};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;
use support::mcp_servers::*;
use support::*;
use visindigo_agent::{Api, Center, CenterEvent, CenterSink, Event, Mcp, Message, Role, Transport};

/// The features server over `transport`, and the server process when it is an HTTP one. It
/// speaks 2025-11-25 only (`--legacy`: it refuses `server/discover`): its tools ask through
/// the SDK's server requests of that revision; the same features at 2026-07-28 are
/// tests/mcp_revision.rs.
fn features(name: &str, transport: Transport) -> (Mcp, Option<HttpServer>) {
    match transport {
        Transport::Stdio => {
            let mut entry = stdio_entry_of(name, "features_server.py");
            entry.arguments.push("--legacy".into());
            (entry, None)
        }
        Transport::StreamableHttp => {
            let server = HttpServer::start_with("features_server.py", "streamable-http", None, &["--legacy"]);
            (server.entry(name, transport, "/mcp"), Some(server))
        }
        Transport::Sse => {
            let server = HttpServer::start_with("features_server.py", "sse", None, &["--legacy"]);
            (server.entry(name, transport, "/sse"), Some(server))
        }
    }
}

fn progress_events(events: &[Event]) -> Vec<(String, String, f64, f64, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::McpProgress { server, tool, progress, total, message } => {
                Some((server.clone(), tool.clone(), *progress, *total, message.clone()))
            }
            _ => None,
        })
        .collect()
}

fn run_to_end(d: &visindigo_agent::Dialog) {
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_for("the run to finish", || !d.is_streaming());
}

/// A file the server writes when it sees the cancellation; removed on drop.
struct Marker(String);

impl Drop for Marker {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn marker() -> Marker {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("vi-mcp-cancelled-{}-{n}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    Marker(path.to_string_lossy().into_owned())
}

fn cancelled(marker: &Marker) -> bool {
    std::fs::read_to_string(&marker.0).is_ok_and(|t| t == "cancelled")
}

#[test]
fn progress_keeps_a_call_alive_past_its_limit_and_is_reported() {
    let _serial = serial();
    for transport in [Transport::Stdio, Transport::StreamableHttp] {
        let srv = chat_server(vec![calls(&[("feat__progress", r#"{"steps":6,"interval":0.5}"#)]), answer("done")]);
        let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
        let (mut entry, _server) = features("feat", transport);
        // Each step takes 0.5 s and the whole call 3 s: only the progress keeps it alive.
        entry.call_timeout_ms = 2000;
        c.add_mcp(entry);
        run_to_end(&d);
        let events = rec.snapshot();
        assert_eq!(d.messages()[2].content, "done after 6 steps", "{transport:?}: {events:?}");
        let expected: Vec<_> = (1..=6).map(|i| ("feat".to_owned(), "progress".to_owned(), i as f64, 6.0, format!("step {i} of 6"))).collect();
        assert_eq!(progress_events(&events), expected, "{transport:?}");
        c.remove_mcp("feat");
    }
}

#[test]
fn a_call_without_progress_times_out_and_is_cancelled_on_the_server() {
    let _serial = serial();
    let marker = marker();
    let srv = chat_server(vec![calls(&[("feat__wait_for_cancel", &json!({"marker": marker.0}).to_string())]), answer("done")]);
    let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    let (mut entry, _server) = features("feat", Transport::Stdio);
    entry.call_timeout_ms = 1000;
    c.add_mcp(entry);
    run_to_end(&d);
    let result: Value = serde_json::from_str(&d.messages()[2].content).unwrap();
    assert_eq!(result["error"], "the MCP tool call wait_for_cancel timed out: no answer and no progress within 1 s");
    wait_for("the server to see the cancellation", || cancelled(&marker));
    c.remove_mcp("feat");
}

#[test]
fn a_call_given_up_by_abort_or_stop_is_cancelled_on_the_server() {
    let _serial = serial();
    for (transport, stop) in [(Transport::StreamableHttp, false), (Transport::Stdio, true), (Transport::Sse, false)] {
        let marker = marker();
        let srv = chat_server(vec![calls(&[("feat__wait_for_cancel", &json!({"marker": marker.0}).to_string())]), answer("done")]);
        let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
        let (entry, _server) = features("feat", transport);
        c.add_mcp(entry);
        d.append_message(Message::new(Role::User, "go"));
        d.run();
        wait_for("the call to start", || rec.snapshot().iter().any(|e| matches!(e, Event::ToolCallStarted { .. })));
        // The request is on its way; give the server a moment to have it running.
        std::thread::sleep(Duration::from_millis(300));
        if stop { d.stop() } else { d.abort() }
        wait_for("the run to finish", || !d.is_streaming());
        wait_for("the server to see the cancellation", || cancelled(&marker));
        c.remove_mcp("feat");
    }
}

#[test]
fn roots_are_listed_from_the_entry_and_follow_its_changes() {
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("feat__roots", "{}")]), answer("a"), calls(&[("feat__roots", "{}")]), answer("b")]);
    let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    let (mut entry, _server) = features("feat", Transport::Stdio);
    entry.roots = vec!["/srv/my project".into(), "file:///data/".into()];
    c.add_mcp(entry.clone());
    run_to_end(&d);
    assert_eq!(d.messages()[2].content, r#"["file:///srv/my%20project", "file:///data/"]"#);
    // The same server, other roots: the connection stays and the server is told.
    entry.roots = vec!["file:///elsewhere".into()];
    c.add_mcp(entry);
    run_to_end(&d);
    assert_eq!(d.messages()[6].content, r#"["file:///elsewhere"]"#);
    c.remove_mcp("feat");
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

/// `request_mcp`, waited for (at most 30 s).
fn request(c: &Center, server: &str, method: &str, params: Option<Value>) -> Result<Value, String> {
    let (tx, rx) = mpsc::channel();
    c.request_mcp(server, method, params, move |outcome| tx.send(outcome).unwrap());
    rx.recv_timeout(Duration::from_secs(30)).expect("request_mcp calls back")
}

#[test]
fn the_application_reads_resources_and_prompts_and_hears_notifications() {
    let _serial = serial();
    for transport in [Transport::Stdio, Transport::StreamableHttp, Transport::Sse] {
        let c = Center::new();
        let heard = Arc::new(Notifications::default());
        c.set_sink(Some(heard.clone()));
        let (entry, _server) = features("notes", transport);
        c.add_mcp(entry);

        let list = request(&c, "notes", "resources/list", None).unwrap();
        assert_eq!(list["resources"][0]["uri"], "note://greeting", "{transport:?}: {list}");
        let read = request(&c, "notes", "resources/read", Some(json!({"uri": "note://greeting"}))).unwrap();
        assert_eq!(read["contents"][0]["text"], "hello from the features server");
        let read = request(&c, "notes", "resources/read", Some(json!({"uri": "note://shopping"}))).unwrap();
        assert_eq!(read["contents"][0]["text"], "a note called shopping");
        let templates = request(&c, "notes", "resources/templates/list", None).unwrap();
        assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "note://{name}");
        let prompts = request(&c, "notes", "prompts/list", None).unwrap();
        assert_eq!(prompts["prompts"][0]["name"], "greet");
        let prompt = request(&c, "notes", "prompts/get", Some(json!({"name": "greet", "arguments": {"name": "Ada"}}))).unwrap();
        assert_eq!(prompt["messages"][0]["content"]["text"], "Please greet Ada warmly.");

        // The server's own error reaches the application as the reason.
        let missing = request(&c, "notes", "prompts/get", Some(json!({"name": "nope"}))).unwrap_err();
        assert!(missing.contains("nope"), "{missing}");

        let called = request(&c, "notes", "tools/call", Some(json!({"name": "announce", "arguments": {"uri": "note://shopping"}}))).unwrap();
        assert_eq!(called["content"][0]["text"], "announced");
        let at = std::time::Instant::now();
        while heard.0.lock().unwrap().len() < 2 && at.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        // Over streamable HTTP they come on two streams (the call's and the GET stream): in
        // either order.
        let mut heard = heard.0.lock().unwrap().clone();
        heard.sort_by(|a, b| b.1.cmp(&a.1));
        assert_eq!(heard.len(), 2, "{transport:?}: {heard:?}");
        assert_eq!(heard[0], ("notes".to_owned(), "notifications/resources/updated".to_owned(), json!({"uri": "note://shopping"})));
        assert_eq!((heard[1].0.as_str(), heard[1].1.as_str()), ("notes", "notifications/message"), "{heard:?}");
        assert_eq!(heard[1].2["data"], "announced note://shopping");
        c.remove_mcp("notes");
    }
}

#[test]
fn requests_the_center_cannot_send_say_why() {
    let _serial = serial();
    let c = Center::new();
    assert_eq!(request(&c, "nobody", "resources/list", None).unwrap_err(), "no MCP server named \"nobody\" is registered with the Center");
    let (mut entry, _server) = features("notes", Transport::Stdio);
    entry.enabled = false;
    c.add_mcp(entry.clone());
    assert_eq!(request(&c, "notes", "resources/list", None).unwrap_err(), "the MCP server notes is disabled");
    entry.enabled = true;
    c.add_mcp(entry);
    assert!(request(&c, "notes", "initialize", None).unwrap_err().contains("not a request the application may send"));
    let unknown = request(&c, "notes", "no/such/method", None).unwrap_err();
    assert!(unknown.contains("-32601"), "{unknown}");
    // A healthy server's error is what it said, without its stderr (SPEC §I.3.7).
    assert!(!unknown.contains("stderr"), "{unknown}");
    c.remove_mcp("notes");
}

/// The events of stream fixture `name` (tests/fixtures/streams) as one step.
fn fixture_step(name: &str) -> vi_scripted_server::Step {
    let path = format!("{}/tests/fixtures/streams/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("the fixture exists")).unwrap();
    let events = fixture["events"].as_array().unwrap().iter().cloned();
    // Gemini's events are unnamed `data:` lines.
    let events = if fixture["api"] == "gemini" { events.collect() } else { events.map(vi_scripted_server::typed_event).collect() };
    vi_scripted_server::Step::sse(events)
}

/// A tool round calling `tool` with no arguments, in `api`'s stream format, then a text answer.
fn call_then_answer(api: Api, tool: &str) -> Vec<vi_scripted_server::Step> {
    use vi_scripted_server::{Step, typed_event};
    match api {
        Api::ChatCompletions => vec![calls(&[(tool, "{}")]), answer("I see it.")],
        Api::Responses => {
            let item = json!({"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_P", "name": tool, "arguments": "{}"});
            let added = json!({"id": "fc_1", "type": "function_call", "status": "in_progress", "call_id": "call_P", "name": tool, "arguments": ""});
            vec![
                Step::sse(vec![
                    typed_event(json!({"type": "response.created", "response": {"status": "in_progress", "output": []}})),
                    typed_event(json!({"type": "response.output_item.added", "output_index": 0, "item": added})),
                    typed_event(json!({"type": "response.output_item.done", "output_index": 0, "item": item})),
                    typed_event(json!({"type": "response.completed", "response": {"status": "completed", "output": [item]}})),
                ]),
                fixture_step("responses_text"),
            ]
        }
        Api::AnthropicMessages => vec![
            Step::sse(vec![
                typed_event(json!({"type": "message_start", "message": {"usage": {"input_tokens": 1}}})),
                typed_event(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_P", "name": tool, "input": {}}})),
                typed_event(json!({"type": "content_block_stop", "index": 0})),
                typed_event(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 3}})),
                typed_event(json!({"type": "message_stop"})),
            ]),
            fixture_step("anthropic_text"),
        ],
        Api::Gemini => vec![
            Step::sse(vec![json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": tool, "args": {}}}]}, "finishReason": "STOP"}]})]),
            fixture_step("gemini_text"),
        ],
    }
}

#[test]
fn an_image_a_tool_returns_reaches_the_model_as_an_image_in_every_api() {
    let _serial = serial();
    for api in [Api::ChatCompletions, Api::Responses, Api::AnthropicMessages, Api::Gemini] {
        let srv = chat_server(call_then_answer(api, "feat__picture"));
        let mut m = model("m1", &srv.base_url());
        m.api = api;
        let (c, d, _rec) = setup(vec![m]);
        c.add_mcp(features("feat", Transport::Stdio).0);
        run_to_end(&d);
        let tool = &d.messages()[2];
        assert_eq!((tool.role, tool.content.as_str()), (Role::Tool, "a single pixel\n[image: image/png]"), "{api:?}");
        assert_eq!(tool.images.len(), 1);
        let url = tool.images[0].url.clone();
        assert!(url.starts_with("data:image/png;base64,iVBORw0KGgo"), "{url}");
        // The Tool message keeps its image through the dialog's JSON.
        let saved = d.to_json();
        assert_eq!(saved["messages"][2]["images"][0]["url"], url);

        let body = &bodies(&srv)[1];
        match api {
            Api::ChatCompletions => {
                let messages = body["messages"].as_array().unwrap();
                assert_eq!(messages[2], json!({"role": "tool", "content": "a single pixel\n[image: image/png]", "tool_call_id": "call_0"}));
                assert_eq!(messages[3]["role"], "user");
                assert_eq!(messages[3]["content"][1], json!({"type": "image_url", "image_url": {"url": url}}));
            }
            Api::Responses => {
                let output = &body["input"][2];
                assert_eq!(output["type"], "function_call_output");
                assert_eq!(
                    output["output"],
                    json!([{"type": "input_text", "text": "a single pixel\n[image: image/png]"}, {"type": "input_image", "image_url": url, "detail": "auto"}])
                );
            }
            Api::AnthropicMessages => {
                let result = &body["messages"][2]["content"][0];
                assert_eq!(result["type"], "tool_result");
                let data = url.strip_prefix("data:image/png;base64,").unwrap();
                assert_eq!(
                    result["content"],
                    json!([{"type": "text", "text": "a single pixel\n[image: image/png]"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}])
                );
            }
            Api::Gemini => {
                let data = url.strip_prefix("data:image/png;base64,").unwrap();
                assert_eq!(
                    body["contents"][2]["parts"],
                    json!([
                        {"functionResponse": {"name": "feat__picture", "response": {"result": "a single pixel\n[image: image/png]"}}},
                        {"inlineData": {"mimeType": "image/png", "data": data}}
                    ])
                );
            }
        }
        c.remove_mcp("feat");
    }
}

#[test]
fn a_changed_tool_list_is_offered_in_the_next_round_of_the_same_run() {
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("feat__unlock", "{}")]), calls(&[("feat__secret", "{}")]), answer("done")]);
    let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(features("feat", Transport::Stdio).0);
    run_to_end(&d);
    let bodies = bodies(&srv);
    let offered = |body: &Value| -> Vec<String> {
        body["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap().to_owned()).collect()
    };
    assert!(!offered(&bodies[0]).contains(&"feat__secret".to_owned()));
    assert!(offered(&bodies[1]).contains(&"feat__secret".to_owned()), "{:?}", offered(&bodies[1]));
    assert_eq!(d.messages()[4].content, "the secret is 42");
    c.remove_mcp("feat");
}

fn elicitation(events: &[Event]) -> Option<(String, String, String, Value)> {
    events.iter().find_map(|e| match e {
        Event::McpElicitationRequested { request_id, server, message, schema } => {
            Some((request_id.clone(), server.clone(), message.clone(), schema.clone()))
        }
        _ => None,
    })
}

#[test]
fn an_elicitation_goes_to_the_dialog_and_its_answer_to_the_server() {
    let _serial = serial();
    for (transport, action) in [(Transport::Stdio, "accept"), (Transport::StreamableHttp, "accept"), (Transport::Stdio, "decline")] {
        let srv = chat_server(vec![calls(&[("feat__book", "{}")]), answer("done")]);
        let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
        let (entry, _server) = features("feat", transport);
        c.add_mcp(entry);
        d.append_message(Message::new(Role::User, "book a table"));
        d.run();
        wait_for("the elicitation", || elicitation(&rec.snapshot()).is_some());
        let (id, server, message, schema) = elicitation(&rec.snapshot()).unwrap();
        assert_eq!((server.as_str(), message.as_str()), ("feat", "Who is the table for?"));
        assert_eq!(schema["properties"]["guests"]["type"], "integer", "{schema}");
        assert!(!d.answer_mcp_elicitation(&id, "maybe", None), "not an action");
        assert!(!d.answer_mcp_elicitation("elicitation-0", "accept", None), "not waiting");
        // Answered from another thread, as a GUI's dialog box would.
        let answering = d.clone();
        let answered = std::thread::spawn(move || answering.answer_mcp_elicitation(&id, action, Some(json!({"name": "Ada", "guests": 4}))));
        assert!(answered.join().unwrap());
        wait_for("the run to finish", || !d.is_streaming());
        let expected = if action == "accept" { "booked for Ada, 4 guests" } else { "not booked (decline)" };
        assert_eq!(d.messages()[2].content, expected, "{transport:?}");
        c.remove_mcp("feat");
    }
}

#[test]
fn an_elicitation_the_run_leaves_behind_is_declined() {
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("feat__book", "{}")]), answer("done")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(features("feat", Transport::Stdio).0);
    d.append_message(Message::new(Role::User, "book a table"));
    d.run();
    wait_for("the elicitation", || elicitation(&rec.snapshot()).is_some());
    let (id, ..) = elicitation(&rec.snapshot()).unwrap();
    d.abort();
    assert!(!d.answer_mcp_elicitation(&id, "accept", Some(json!({"name": "Ada", "guests": 4}))));
    // The connection is still good: the next run books.
    let srv2 = chat_server(vec![calls(&[("feat__book", "{}")]), answer("done")]);
    c.add_model(model("m1", &srv2.base_url()));
    rec.take();
    d.run();
    wait_for("the elicitation", || elicitation(&rec.snapshot()).is_some());
    let (id, ..) = elicitation(&rec.snapshot()).unwrap();
    assert!(d.answer_mcp_elicitation(&id, "accept", Some(json!({"name": "Bo", "guests": 2}))));
    wait_for("the run to finish", || !d.is_streaming());
    assert_eq!(d.last_message().content, "done");
    assert!(d.messages().iter().any(|m| m.content == "booked for Bo, 2 guests"));
    c.remove_mcp("feat");
}

#[test]
fn sampling_is_answered_by_the_entrys_provider_or_declined() {
    let _serial = serial();
    // The scripted server plays both the run's model and the sampling completion.
    let srv = chat_server(vec![calls(&[("feat__haiku", r#"{"topic":"frogs"}"#)]), answer("Old pond, a frog jumps"), answer("done")]);
    let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    let mut entry = features("feat", Transport::Stdio).0;
    entry.sampling_provider_id = c.default_provider();
    c.add_mcp(entry.clone());
    run_to_end(&d);
    assert_eq!(d.messages()[2].content, "name-of-m1 wrote: Old pond, a frog jumps");
    let sampled = &bodies(&srv)[1];
    assert_eq!(sampled["messages"], json!([{"role": "system", "content": "You are a poet."}, {"role": "user", "content": "A haiku about frogs, please."}]));
    assert!(sampled.get("tools").is_none(), "sampling offers no tools: {sampled}");

    // Without a sampling provider the server's request is declined and the tool says so.
    entry.sampling_provider_id.clear();
    c.add_mcp(entry);
    let srv = chat_server(vec![calls(&[("feat__haiku", r#"{"topic":"frogs"}"#)]), answer("done")]);
    c.add_model(model("m1", &srv.base_url()));
    run_to_end(&d);
    let result = &d.messages()[d.messages().len() - 2].content;
    assert!(result.contains("sampling is declined"), "{result}");
    c.remove_mcp("feat");
}
