//! Dialog::run() against the scripted OpenAI-compatible server on 127.0.0.1 (SPEC §D.1, §E).

mod support;

use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::*;
use vi_scripted_server::{
    Step, chat_chunk_content, chat_chunk_reasoning, chat_chunk_tool_call, done, error_chunk, raw, reset,
    sleep_ms, stall, usage_chunk,
};
use visindigo_agent::{Event, Function, FunctionSpec, HostToken, Message, Role, ToolReply};

fn user(text: &str) -> Message {
    Message::new(Role::User, text)
}

#[test]
fn plain_answer_streams_in_order_and_sends_the_documented_request() {
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("Hel"), chat_chunk_content("lo"), done()])]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    d.append_message(user("hi"));
    rec.take();
    d.run();
    rec.wait_finished();
    assert_eq!(
        rec.take(),
        vec![
            Event::StreamBegan,
            Event::StreamDelta("Hel".into()),
            Event::StreamDelta("lo".into()),
            Event::MessageAppended(1),
            Event::StreamEnded("Hello".into()),
            Event::RunFinished,
        ]
    );
    assert_eq!(d.last_message().content, "Hello");
    let requests = srv.requests();
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].header("authorization"), Some("Bearer sk-test-token"));
    assert_eq!(requests[0].header("accept"), Some("text/event-stream"));
    assert_eq!(requests[0].header("content-type"), Some("application/json"));
    let body = &bodies(&srv)[0];
    assert_eq!(body, &json!({"messages": [{"role": "user", "content": "hi"}], "stream": true, "model": "name-of-m1"}));
}

#[test]
fn reasoning_under_both_keys_is_streamed_and_stored() {
    let other_key = json!({"choices": [{"index": 0, "delta": {"reasoning": " more"}}]});
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_reasoning("think"), other_key, chat_chunk_content("answer"), done()])]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    d.run();
    rec.wait_finished();
    let events = rec.take();
    assert_eq!(events[1], Event::StreamReasoning("think".into()));
    assert_eq!(events[2], Event::StreamReasoning(" more".into()));
    let last = d.last_message();
    assert_eq!((last.content.as_str(), last.reasoning.as_str()), ("answer", "think more"));
    assert_eq!(d.reasoning_content(), "think more");
}

/// A function that answers from its own thread after `delay`, recording its arguments.
struct Clock {
    spec: FunctionSpec,
    delay: Duration,
    calls: Arc<Mutex<Vec<Value>>>,
}

impl Clock {
    fn new(delay: Duration) -> Arc<Clock> {
        Arc::new(Clock {
            spec: FunctionSpec {
                id: "get_time".into(),
                name: "Clock".into(),
                description: "Tells the time".into(),
                parameter_schema: json!({"type": "object", "properties": {"zone": {"type": "string"}}}),
                host: None,
            },
            delay,
            calls: Arc::default(),
        })
    }
}

impl Function for Clock {
    fn spec(&self) -> &FunctionSpec {
        &self.spec
    }
    fn invoke(&self, arguments: Value, _: HostToken, reply: ToolReply) {
        self.calls.lock().unwrap().push(arguments);
        let delay = self.delay;
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            reply.complete(json!({"time": "12:00"}));
        });
    }
}

fn tool_round(id: &str) -> Step {
    Step::sse(vec![
        chat_chunk_content("Let me check. "),
        chat_chunk_tool_call(0, id, "get_time", "{\"zone\":"),
        chat_chunk_tool_call(0, "", "", "\"UTC\"}"),
        done(),
    ])
}

#[test]
fn tool_calls_run_the_function_and_start_the_next_round() {
    let srv = chat_server(vec![tool_round("Call_X1"), Step::sse(vec![chat_chunk_content("It is noon."), done()])]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let clock = Clock::new(Duration::from_millis(200));
    c.add_function(clock.clone());
    d.append_message(user("time?"));
    rec.take();
    d.run();
    rec.wait_finished();
    assert_eq!(
        rec.take(),
        vec![
            Event::StreamBegan,
            Event::StreamDelta("Let me check. ".into()),
            Event::MessageAppended(1),
            Event::StreamEnded("Let me check. ".into()),
            Event::ToolCallStarted { call_id: "Call_X1".into(), tool_name: "get_time".into(), arguments: r#"{"zone":"UTC"}"#.into() },
            Event::ToolCallFinished { call_id: "Call_X1".into(), tool_name: "get_time".into(), result: r#"{"time":"12:00"}"#.into() },
            Event::MessageAppended(2),
            Event::StreamBegan,
            Event::StreamDelta("It is noon.".into()),
            Event::MessageAppended(3),
            Event::StreamEnded("It is noon.".into()),
            Event::RunFinished,
        ]
    );
    assert_eq!(clock.calls.lock().unwrap().as_slice(), [json!({"zone": "UTC"})]);
    let messages = d.messages();
    let calls_text = r#"[{"id":"Call_X1","type":"function","function":{"name":"get_time","arguments":"{\"zone\":\"UTC\"}"}}]"#;
    assert_eq!(messages[1].tool_calls, calls_text);
    assert_eq!(
        (messages[2].role, messages[2].content.as_str(), messages[2].tool_call_id.as_str(), messages[2].name.as_str()),
        (Role::Tool, r#"{"time":"12:00"}"#, "Call_X1", "get_time")
    );
    let bodies = bodies(&srv);
    assert_eq!(bodies[0]["tools"], json!([{"type": "function", "function": {"name": "get_time", "description": "Tells the time", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}}]));
    assert_eq!(bodies[1]["messages"][1]["tool_calls"], serde_json::from_str::<Value>(calls_text).unwrap());
    assert_eq!(bodies[1]["messages"][1]["content"], json!("Let me check. "));
    assert_eq!(bodies[1]["messages"][2], json!({"role": "tool", "content": "{\"time\":\"12:00\"}", "tool_call_id": "Call_X1"}));
}

#[test]
fn an_unknown_tool_answers_with_an_error_and_the_run_goes_on() {
    let srv = chat_server(vec![tool_round("c1"), Step::sse(vec![chat_chunk_content("ok"), done()])]);
    let (_c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    d.run();
    wait_idle(&d);
    let messages = d.messages();
    assert_eq!(messages[1].content, r#"{"error":"unknown tool get_time"}"#);
    assert_eq!(messages[2].content, "ok");
}

#[test]
fn tool_calls_in_the_ninth_response_fail_the_run() {
    let steps = (0..9).map(|i| tool_round(&format!("c{i}"))).collect();
    let srv = chat_server(steps);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_function(Clock::new(Duration::ZERO));
    d.run();
    rec.wait_finished();
    let events = rec.take();
    assert_eq!(ended(&events), &Event::RunFailed("Too many tool call rounds.".into()));
    assert_eq!(events[events.len() - 3], Event::StreamEnded("Let me check. ".into()));
    assert_eq!(srv.requests().len(), 9);
    assert_eq!(d.message_count(), 16, "8 assistant + 8 tool messages; the 9th answer is not kept");
}

#[test]
fn fallback_moves_along_the_provider_on_429_503_and_a_stall() {
    let srv = chat_server(vec![
        Step::error(429, "slow down"),
        Step::error(503, "overloaded"),
        Step::sse(vec![stall()]),
        Step::sse(vec![chat_chunk_content("from d"), done()]),
    ]);
    let mut stalling = model("m3", &srv.base_url());
    stalling.idle_timeout_ms = 300;
    let models = vec![model("m1", &srv.base_url()), model("m2", &srv.base_url()), stalling, model("m4", &srv.base_url())];
    let (_c, d, rec) = setup(models);
    d.run();
    rec.wait_finished();
    let events = rec.take();
    let fallbacks = fallbacks(&events);
    assert_eq!(fallbacks.len(), 3);
    assert_eq!((fallbacks[0].0, fallbacks[0].1), ("m1", "m2"));
    assert_eq!(fallbacks[0].2, "[HttpStatusError] Server returned HTTP 429 Too Many Requests: slow down (HTTP 429)");
    assert!(fallbacks[1].2.starts_with("[HttpStatusError] Server returned HTTP 503"));
    assert!(fallbacks[2].2.starts_with("[IdleTimeout]"), "{}", fallbacks[2].2);
    assert_eq!(events.iter().filter(|e| **e == Event::StreamBegan).count(), 1, "one round, one streamBegan");
    assert_eq!(d.last_message().content, "from d");
    let names: Vec<_> = bodies(&srv).iter().map(|b| b["model"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["name-of-m1", "name-of-m2", "name-of-m3", "name-of-m4"]);
}

#[test]
fn when_no_model_is_left_the_last_error_fails_the_run() {
    let srv = chat_server(vec![Step::error(500, "boom"), Step::error(503, "still down")]);
    // Exactly SPEC §E.2: no retry passes (those are tests/retry.rs).
    let (_c, d, rec) = setup_with(vec![model("m1", &srv.base_url()), model("m2", &srv.base_url())], |p| p.retries = 0);
    d.run();
    rec.wait_finished();
    let events = rec.take();
    assert_eq!(
        ended(&events),
        &Event::RunFailed("[HttpStatusError] Server returned HTTP 503 Service Unavailable: still down (HTTP 503)".into())
    );
}

#[test]
fn a_non_retryable_status_fails_at_once_without_the_token() {
    let srv = chat_server(vec![Step::error(401, "invalid key sk-test-token")]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url()), model("m2", &srv.base_url())]);
    d.run();
    rec.wait_finished();
    assert_eq!(
        rec.take(),
        vec![
            Event::StreamBegan,
            Event::RunFailed("[HttpStatusError] Server returned HTTP 401 Unauthorized: invalid key *** (HTTP 401)".into()),
            Event::RunFinished,
        ]
    );
    assert_eq!(srv.requests().len(), 1);
}

#[test]
fn the_total_timeout_fails_a_slow_server() {
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("x")]).delay_ms(3_000)]);
    let mut m = model("m1", &srv.base_url());
    m.timeout_ms = 300;
    let (_c, d, rec) = setup(vec![m]);
    d.run();
    rec.wait_finished();
    assert_eq!(ended(&rec.take()), &Event::RunFailed("[Timeout] No complete answer within the model's timeout of 300 ms".into()));
}

#[test]
fn an_error_frame_ends_the_run_with_the_servers_message() {
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("part"), error_chunk("model exploded")])]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    d.run();
    rec.wait_finished();
    assert_eq!(ended(&rec.take()), &Event::RunFailed("[ServerError] model exploded".into()));
    assert_eq!(d.message_count(), 0, "partial text is discarded");
}

#[test]
fn a_reset_mid_stream_discards_the_partial_text() {
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("partial"), sleep_ms(50), reset()])]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url()), model("m2", &srv.base_url())]);
    d.run();
    rec.wait_finished();
    let events = rec.take();
    match ended(&events) {
        Event::RunFailed(m) => assert!(m.starts_with("[ConnectionReset]") || m.starts_with("[NetworkError]"), "{m}"),
        other => panic!("unexpected {other:?}"),
    }
    assert!(!events.iter().any(|e| matches!(e, Event::ModelFallback { .. })), "no fallback after streaming");
    assert_eq!(d.message_count(), 0);
    assert_eq!(d.streaming_content(), "");
}

#[test]
fn invalid_frames_are_ignored_and_cr_line_ends_work() {
    let srv = chat_server(vec![
        Step::sse(vec![json!("not json"), chat_chunk_content("a"), raw(": comment\r\r"), chat_chunk_content("b"), done()])
            .line_ending("\r"),
    ]);
    let (_c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    d.run();
    wait_idle(&d);
    assert_eq!(d.last_message().content, "ab");
}

#[test]
fn done_completes_the_round_without_waiting_for_the_server_to_close() {
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("fast"), done(), stall()])]);
    let (_c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    d.run();
    wait_idle(&d);
    assert_eq!(d.last_message().content, "fast");
}

#[test]
fn usage_is_kept_as_the_last_usage() {
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("x"), usage_chunk(3, 5), done()])]);
    let (_c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    d.run();
    wait_idle(&d);
    assert_eq!(d.last_usage().unwrap()["completion_tokens"], json!(5));
}

#[test]
fn abort_mid_stream_is_synchronous_and_silences_the_run() {
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("partial"), stall()])]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    d.run();
    wait_for("the first delta", || rec.snapshot().contains(&Event::StreamDelta("partial".into())));
    d.abort();
    assert!(!d.is_streaming());
    assert_eq!(ended(&rec.snapshot()), &Event::RunFailed("[Aborted] Run aborted.".into()));
    let count = rec.snapshot().len();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(rec.snapshot().len(), count, "nothing after the abort");
    assert_eq!(d.message_count(), 0);
}

/// A function that keeps its reply until the test releases it.
struct Held {
    spec: FunctionSpec,
    reply: Mutex<Option<ToolReply>>,
}

impl Function for Held {
    fn spec(&self) -> &FunctionSpec {
        &self.spec
    }
    fn invoke(&self, _: Value, _: HostToken, reply: ToolReply) {
        *self.reply.lock().unwrap() = Some(reply);
    }
}

#[test]
fn abort_during_a_tool_call_drops_the_late_answer() {
    let srv = chat_server(vec![tool_round("c1"), Step::sse(vec![chat_chunk_content("never"), done()])]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let held = Arc::new(Held {
        spec: FunctionSpec { id: "get_time".into(), name: "held".into(), description: String::new(), parameter_schema: json!({}), host: None },
        reply: Mutex::new(None),
    });
    c.add_function(held.clone());
    d.run();
    wait_for("the tool call", || held.reply.lock().unwrap().is_some());
    d.abort();
    assert!(!d.is_streaming());
    held.reply.lock().unwrap().take().unwrap().complete(json!({"late": true}));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(ended(&rec.snapshot()), &Event::RunFailed("[Aborted] Run aborted.".into()));
    assert_eq!(d.message_count(), 1, "only the assistant message with the call");
    assert_eq!(srv.requests().len(), 1);
}

#[test]
fn early_failures_emit_run_failed_then_run_finished() {
    let center = visindigo_agent::Center::new();
    let d = center.create_dialog();
    let rec = Arc::new(Recorder::default());
    d.set_sink(Some(rec.clone()), HostToken::NONE);
    d.run();
    assert_eq!(rec.take(), vec![Event::RunFailed("No provider available.".into()), Event::RunFinished]);

    let (_c, d, rec) = setup(vec![model("m1", "http://127.0.0.1:9/v1")]);
    d.set_capability_requirement(visindigo_agent::capability::IMAGE);
    d.run();
    assert_eq!(rec.take(), vec![Event::RunFailed("No model satisfies the capability requirement.".into()), Event::RunFinished]);

    let srv = chat_server(vec![Step::sse(vec![stall()])]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    d.run();
    d.run();
    // The refused run() gets its own RunFailed and RunFinished; the first run goes on.
    assert_eq!(rec.snapshot(), vec![Event::StreamBegan, Event::RunFailed("Dialog is already running.".into()), Event::RunFinished]);
    assert!(d.is_streaming());
    d.abort();
}

#[test]
fn a_refused_connection_is_reported_and_falls_back() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("second"), done()])]);
    let (_c, d, rec) = setup(vec![model("m1", &format!("http://127.0.0.1:{port}/v1")), model("m2", &srv.base_url())]);
    d.run();
    rec.wait_finished();
    let events = rec.take();
    let Event::ModelFallback { reason, .. } = &events[1] else { panic!("{events:?}") };
    assert!(reason.starts_with("[ConnectionRefused]"), "{reason}");
    assert_eq!(d.last_message().content, "second");
}

#[test]
fn other_schemes_are_rejected() {
    let (_c, d, rec) = setup(vec![model("m1", "ftp://127.0.0.1/v1")]);
    d.run();
    rec.wait_finished();
    let events = rec.take();
    let Event::RunFailed(m) = ended(&events) else { panic!("{events:?}") };
    assert!(m.starts_with("[UrlSchemeRejected]"), "{m}");
}

#[test]
fn a_plain_json_answer_is_accepted() {
    let completion = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "whole"}}]});
    let srv = chat_server(vec![Step::body(200, completion)]);
    let (_c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    d.run();
    wait_idle(&d);
    assert_eq!(d.last_message().content, "whole");
}

#[test]
fn twenty_dialogs_run_at_once() {
    let steps = (0..20).map(|i| Step::sse(vec![sleep_ms(50), chat_chunk_content(&format!("answer {i}")), done()])).collect();
    let srv = chat_server(steps);
    let (c, first, _rec) = setup(vec![model("m1", &srv.base_url())]);
    let mut dialogs = vec![first];
    dialogs.extend((1..20).map(|_| c.create_dialog()));
    for d in &dialogs {
        d.run();
    }
    for d in &dialogs {
        wait_idle(d);
    }
    let mut answers: Vec<_> = dialogs.iter().map(|d| d.last_message().content).collect();
    answers.sort();
    let mut expected: Vec<_> = (0..20).map(|i| format!("answer {i}")).collect();
    expected.sort();
    assert_eq!(answers, expected);
}

#[test]
fn dropping_the_last_reference_cancels_the_run() {
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("x"), stall()])]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let standalone = visindigo_agent::Dialog::new(&_c);
    standalone.set_sink(Some(rec.clone()), HostToken::NONE);
    standalone.run();
    wait_for("the delta", || rec.snapshot().contains(&Event::StreamDelta("x".into())));
    let count = rec.snapshot().len();
    drop(standalone);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(rec.snapshot().len(), count);
    drop(d);
}

#[test]
fn skills_and_images_reach_the_request() {
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("a cat"), done()])]);
    let (c, d, _rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_skill(visindigo_agent::Skill::with_instruction("brief", "Be brief."));
    d.add_skill(visindigo_agent::Skill::with_instruction("polite", "Be polite."));
    let mut m = user("what is this?");
    m.add_image_url("https://example.invalid/cat.png", "low");
    d.append_message(m);
    d.run();
    wait_idle(&d);
    let body = &bodies(&srv)[0];
    assert_eq!(body["messages"][0], json!({"role": "system", "content": "Be polite.\n\nBe brief."}));
    assert_eq!(
        body["messages"][1]["content"],
        json!([{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": "https://example.invalid/cat.png", "detail": "low"}}])
    );
}

#[test]
fn a_plain_http_model_follows_http_redirects_and_refuses_one_to_https() {
    // Plain-http models use a client without certificate roots (no store to load), so it must
    // never speak TLS: a redirect to https fails the attempt with the reason instead.
    let srv = chat_server(vec![]);
    let moved = format!("{}/moved/chat/completions", srv.base_url());
    let https = moved.replacen("http://", "https://", 1);
    srv.set_script(vi_scripted_server::script(vec![
        Step::sse(vec![]).status(307).header("Location", &moved),
        Step::sse(vec![chat_chunk_content("moved"), done()]),
        Step::sse(vec![]).status(307).header("Location", &https),
    ]))
    .unwrap();
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    d.append_message(user("hi"));
    d.run();
    rec.wait_finished();
    assert_eq!(d.last_message().content, "moved");
    assert_eq!(srv.requests()[1].path, "/v1/moved/chat/completions");
    rec.take();
    d.run();
    rec.wait_finished();
    match ended(&rec.take()) {
        Event::RunFailed(message) => assert!(message.contains("use the https url"), "{message}"),
        other => panic!("expected RunFailed, got {other:?}"),
    }
}

#[test]
fn keep_alive_comments_do_not_hold_a_run_open() {
    // A gateway that only sends `: keep-alive` every 100 ms for 3 s (SPEC §H.1.7): with an idle
    // timeout of 400 ms and no total timeout, the run fails as idle long before the stream ends.
    let mut events = vec![chat_chunk_content("a")];
    for _ in 0..30 {
        events.push(sleep_ms(100));
        events.push(vi_scripted_server::comment("keep-alive"));
    }
    events.push(done());
    let srv = chat_server(vec![Step::sse(events)]);
    let mut m = model("m1", &srv.base_url());
    m.timeout_ms = 0;
    m.idle_timeout_ms = 400;
    let (_c, d, rec) = setup(vec![m]);
    d.append_message(user("hi"));
    let start = std::time::Instant::now();
    d.run();
    rec.wait_finished();
    let elapsed = start.elapsed();
    match ended(&rec.take()) {
        Event::RunFailed(message) => assert!(message.starts_with("[IdleTimeout]"), "{message}"),
        other => panic!("expected an idle failure, got {other:?}"),
    }
    // A correctness bound (the stream lasts 3 s), not a speed assertion.
    assert!(elapsed < std::time::Duration::from_millis(2500), "{elapsed:?}");
}

#[test]
fn the_base_urls_query_is_kept_and_no_referer_is_sent_on_a_redirect() {
    // Azure OpenAI style (SPEC §H.1.8), then a 307 within the server (SPEC §H.1.3, §H.1.9).
    let srv = chat_server(vec![]);
    let moved = format!("{}/moved/chat/completions?api-version=2024-06-01", srv.base_url());
    srv.set_script(vi_scripted_server::script(vec![
        Step::sse(vec![]).status(307).header("Location", &moved),
        Step::sse(vec![chat_chunk_content("ok"), done()]),
    ]))
    .unwrap();
    let base = format!("{}?api-version=2024-06-01", srv.base_url());
    let (_c, d, _rec) = setup(vec![model("m1", &base)]);
    d.append_message(user("hi"));
    d.run();
    wait_idle(&d);
    assert_eq!(d.last_message().content, "ok");
    let requests = srv.requests();
    assert_eq!(requests[0].path, "/v1/chat/completions?api-version=2024-06-01");
    assert_eq!(requests[1].path, "/v1/moved/chat/completions?api-version=2024-06-01");
    assert_eq!(requests[1].method, "POST");
    assert_eq!(requests[1].body_json, requests[0].body_json, "a 307 repeats the body");
    assert_eq!(requests[1].header("referer"), None);
}

#[test]
fn an_answer_with_too_many_tool_calls_fails_instead_of_stalling_the_runtime() {
    let calls: Vec<Value> = (0..5_000).map(|i| chat_chunk_tool_call(i, &format!("c{i}"), "get_time", "{}")).collect();
    let srv = chat_server(vec![Step::sse(calls)]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    d.run();
    rec.wait_finished();
    let events = rec.take();
    assert_eq!(
        ended(&events),
        &Event::RunFailed("[ProtocolError] the answer has more than 1024 tool calls".into()),
        "{:?}",
        &events[events.len().saturating_sub(3)..]
    );
}

/// A host function with a bug: it panics when called.
struct Panicking(FunctionSpec);

impl Function for Panicking {
    fn spec(&self) -> &FunctionSpec {
        &self.0
    }
    fn invoke(&self, _: Value, _: HostToken, _: ToolReply) {
        panic!("the host function has a bug");
    }
}

#[test]
fn a_panic_inside_a_run_ends_that_run_as_an_internal_error_and_the_dialog_goes_on() {
    let srv = chat_server(vec![tool_round("call_1"), Step::sse(vec![chat_chunk_content("fine"), done()])]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let spec = FunctionSpec { id: "get_time".into(), name: "t".into(), description: "d".into(), parameter_schema: json!({}), host: None };
    c.add_function(Arc::new(Panicking(spec)));
    d.append_message(user("time?"));
    d.run();
    rec.wait_finished();
    let events = rec.take();
    assert_eq!(ended(&events), &Event::RunFailed("[InternalError] the host function has a bug".into()), "{events:?}");
    c.remove_function("get_time");
    d.run();
    rec.wait_finished();
    assert_eq!(deltas(&rec.take()), "fine", "the next run works");
}

#[test]
fn one_endless_event_fails_the_attempt_instead_of_taking_the_memory() {
    let endless = format!("data: {}", "x".repeat(65 << 20));
    let srv = chat_server(vec![Step::sse(vec![raw(&endless), stall()])]);
    let (_c, d, rec) = setup_with(vec![model("m1", &srv.base_url())], |p| p.retries = 0);
    d.run();
    rec.wait_finished();
    assert_eq!(ended(&rec.take()), &Event::RunFailed("[ProtocolError] an event of more than 64 MiB".into()));
}

/// A host function whose description itself panics (read under the dialog's lock).
struct BrokenSpec;

impl Function for BrokenSpec {
    fn spec(&self) -> &FunctionSpec {
        panic!("the host's spec has a bug");
    }
    fn invoke(&self, _: Value, _: HostToken, _: ToolReply) {}
}

#[test]
fn a_panic_under_a_dialogs_lock_poisons_nothing_for_it_or_the_others() {
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("still here"), done()]); 2]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let other = c.create_dialog();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| d.add_function(Arc::new(BrokenSpec))));
    assert!(panicked.is_err(), "the host's panic reached its caller");
    // The lock it poisoned is used as it is: the same dialog keeps working, and so does another.
    d.append_message(user("hi"));
    assert_eq!(d.function_ids(), Vec::<String>::new(), "the broken function was not added");
    d.run();
    rec.wait_finished();
    assert_eq!(d.last_message().content, "still here");
    other.append_message(user("hi"));
    other.run();
    wait_idle(&other);
    assert_eq!(other.last_message().content, "still here");
}
