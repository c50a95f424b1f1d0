//! SSE framing and chunked response encoding, checked on the wire.

mod common;

use common::{connect, data_payloads, post_chat, read_response, send};
use serde_json::json;
use vi_scripted_server::{
    ScriptedServer, Step, chat_chunk_content, chat_chunk_reasoning, chat_chunk_tool_call, comment,
    done, error_chunk, finish_chunk, raw, script, sleep_ms, usage_chunk,
};

fn serve_one(step: serde_json::Value) -> common::Response {
    let server = ScriptedServer::start(json!({ "responses": [step] })).unwrap();
    post_chat(server.port(), &json!({"stream": true}))
}

#[test]
fn every_line_ending_is_used_for_every_line_end() {
    for (line_ending, expected) in [
        (
            "\n",
            "data: hello\n\ndata: {\"a\":1}\n\n: note\n\ndata: one\ndata: two\n\ndata: [DONE]\n\n",
        ),
        (
            "\r",
            "data: hello\r\rdata: {\"a\":1}\r\r: note\r\rdata: one\rdata: two\r\rdata: [DONE]\r\r",
        ),
        (
            "\r\n",
            "data: hello\r\n\r\ndata: {\"a\":1}\r\n\r\n: note\r\n\r\ndata: one\r\ndata: two\r\n\r\ndata: [DONE]\r\n\r\n",
        ),
    ] {
        let response = serve_one(json!({
            "line_ending": line_ending,
            "events": ["hello", {"a": 1}, {"$comment": "note"}, "one\ntwo", {"$done": true}]
        }));
        assert_eq!(response.status, 200);
        assert_eq!(response.text(), expected, "line ending {line_ending:?}");
    }
}

#[test]
fn each_event_is_one_well_formed_chunk() {
    let response = serve_one(
        json!({"events": ["a", {"$raw": "data: par"}, {"$raw": "tial\n\n"}, {"$done": true}]}),
    );
    assert_eq!(response.header("Transfer-Encoding"), Some("chunked"));
    assert_eq!(response.header("Content-Length"), None);
    assert_eq!(
        String::from_utf8(response.wire_body).unwrap(),
        "9\r\ndata: a\n\n\r\n9\r\ndata: par\r\n6\r\ntial\n\n\r\nE\r\ndata: [DONE]\n\n\r\n0\r\n\r\n"
    );
}

#[test]
fn sse_defaults_and_scripted_headers() {
    let response = serve_one(json!({
        "status": 201, "reason": "Made",
        "headers": {"content-type": "text/event-stream; charset=utf-8", "X-Request-Id": "r1"},
        "events": ["x"]
    }));
    assert_eq!((response.status, response.reason.as_str()), (201, "Made"));
    assert_eq!(
        response.header("Content-Type"),
        Some("text/event-stream; charset=utf-8")
    );
    assert_eq!(
        response
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("content-type"))
            .count(),
        1
    );
    assert_eq!(response.header("x-request-id"), Some("r1"));
    assert_eq!(response.header("Cache-Control"), Some("no-cache"));
}

#[test]
fn plain_bodies_are_sent_with_content_length() {
    let error = serve_one(
        json!({"status": 401, "body": {"error": {"message": "bad key", "type": "invalid_request_error"}}}),
    );
    assert_eq!((error.status, error.reason.as_str()), (401, "Unauthorized"));
    assert_eq!(error.header("Content-Type"), Some("application/json"));
    assert_eq!(
        error.json(),
        json!({"error": {"message": "bad key", "type": "invalid_request_error"}})
    );
    assert_eq!(
        error.header("Content-Length"),
        Some(error.body.len().to_string().as_str())
    );

    let verbatim = serve_one(
        json!({"status": 503, "body": "not { json", "headers": {"Content-Type": "text/plain"}}),
    );
    assert_eq!(
        (verbatim.status, verbatim.reason.as_str()),
        (503, "Service Unavailable")
    );
    assert_eq!(verbatim.text(), "not { json");
    assert_eq!(verbatim.header("Content-Type"), Some("text/plain"));

    let empty = serve_one(json!({"status": 408}));
    assert_eq!(
        (empty.status, empty.reason.as_str(), empty.body.len()),
        (408, "Request Timeout", 0)
    );
}

#[test]
fn builders_produce_the_documented_chunks() {
    let server = ScriptedServer::start(script([
        Step::sse(vec![
            chat_chunk_reasoning("think"),
            chat_chunk_content("Hi"),
            chat_chunk_tool_call(0, "call_1", "get_time", "{\"tz\":"),
            chat_chunk_tool_call(0, "", "", "\"UTC\"}"),
            finish_chunk("tool_calls"),
            usage_chunk(3, 4),
            error_chunk("overloaded"),
            comment("keep-alive"),
            sleep_ms(1),
            raw("data: x\n\n"),
            done(),
        ]),
        Step::error(429, "slow down").header("Retry-After", "1"),
    ]))
    .unwrap();
    let stream = post_chat(server.port(), &json!({}));
    let payloads: Vec<serde_json::Value> = data_payloads(&stream.text())
        .iter()
        .take(7)
        .map(|payload| serde_json::from_str(payload).unwrap())
        .collect();
    assert_eq!(
        payloads,
        vec![
            json!({"choices": [{"index": 0, "delta": {"reasoning_content": "think"}}]}),
            json!({"choices": [{"index": 0, "delta": {"content": "Hi"}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "type": "function", "function": {"arguments": "{\"tz\":", "name": "get_time"}, "id": "call_1"}
            ]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "type": "function", "function": {"arguments": "\"UTC\"}"}}
            ]}}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}),
            json!({"error": {"message": "overloaded"}}),
        ]
    );
    assert!(
        stream
            .text()
            .ends_with(": keep-alive\n\ndata: x\n\ndata: [DONE]\n\n")
    );

    let error = post_chat(server.port(), &json!({}));
    assert_eq!(error.status, 429);
    assert_eq!(error.header("Retry-After"), Some("1"));
    assert_eq!(error.json()["error"]["message"], "slow down");
}

#[test]
fn json_events_keep_the_scripts_key_order() {
    let response = serve_one(json!({"events": [{"z": 1, "a": 2, "m": {"y": 0, "b": 1}}]}));
    assert_eq!(
        response.text(),
        "data: {\"z\":1,\"a\":2,\"m\":{\"y\":0,\"b\":1}}\n\n"
    );
}

#[test]
fn responses_complete_on_a_kept_alive_connection() {
    let server = ScriptedServer::start(script([
        Step::sse(vec![chat_chunk_content("one"), done()]),
        Step::body(200, json!({"two": 2})),
    ]))
    .unwrap();
    let mut conn = connect(server.port());
    send(&mut conn, "POST", "/v1/chat/completions", &[], b"{}");
    let first = read_response(&mut conn).unwrap();
    assert_eq!(first.header("Connection"), Some("keep-alive"));
    send(&mut conn, "POST", "/v1/chat/completions", &[], b"{}");
    let second = read_response(&mut conn).unwrap();
    assert_eq!(second.json(), json!({"two": 2}));
    assert_eq!(
        server.requests().iter().map(|r| r.step).collect::<Vec<_>>(),
        vec![Some(0), Some(1)]
    );
}
