//! Script progression, request recording, routing and request parsing.

mod common;

use std::io::{ErrorKind, Write};
use std::time::Duration;

use common::{connect, post_chat, read_head, read_response, request, send};
use serde_json::json;
use vi_scripted_server::{ScriptedServer, Step, script, script_repeat_last};

#[test]
fn exhausted_script_answers_500() {
    let server = ScriptedServer::start(script([Step::body(200, "only")])).unwrap();
    assert_eq!(post_chat(server.port(), &json!({})).text(), "only");
    let exhausted = post_chat(server.port(), &json!({}));
    assert_eq!(
        (exhausted.status, exhausted.reason.as_str()),
        (500, "Internal Server Error")
    );
    assert_eq!(exhausted.json()["error"]["message"], "script exhausted");
    assert_eq!(
        server.requests().iter().map(|r| r.step).collect::<Vec<_>>(),
        vec![Some(0), None]
    );
}

#[test]
fn repeat_last_serves_the_last_step_forever() {
    let server = ScriptedServer::start(script_repeat_last([
        Step::body(200, "a"),
        Step::body(200, "b"),
    ]))
    .unwrap();
    let bodies: Vec<String> = (0..4)
        .map(|_| post_chat(server.port(), &json!({})).text())
        .collect();
    assert_eq!(bodies, ["a", "b", "b", "b"]);
}

#[test]
fn request_bodies_and_headers_are_recorded() {
    let server = ScriptedServer::start(script_repeat_last([Step::body(200, "{}")])).unwrap();
    let body = json!({"model": "m", "stream": true, "max_tokens": 256, "messages": [{"role": "user", "content": "hé"}]});
    let mut conn = connect(server.port());
    send(
        &mut conn,
        "POST",
        "/v1/chat/completions",
        &[
            ("Authorization", "Bearer k"),
            ("Accept", "text/event-stream"),
        ],
        body.to_string().as_bytes(),
    );
    read_response(&mut conn).unwrap();
    send(
        &mut conn,
        "POST",
        "/v1/chat/completions?x=1",
        &[("Content-Type", "text/plain")],
        b"not json",
    );
    read_response(&mut conn).unwrap();

    let requests = server.wait_for_requests(2, common::TIMEOUT);
    assert_eq!(requests.len(), 2);
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(requests[0].header("authorization"), Some("Bearer k"));
    assert_eq!(requests[0].body_json.as_ref(), Some(&body));
    assert_eq!(
        requests[0].body_json.as_ref().unwrap()["max_tokens"].as_u64(),
        Some(256)
    );
    assert_eq!(requests[1].path, "/v1/chat/completions?x=1");
    assert_eq!(
        (
            requests[1].body_text.as_str(),
            requests[1].body_json.as_ref()
        ),
        ("not json", None)
    );
}

#[test]
fn chunked_request_bodies_are_decoded() {
    let server = ScriptedServer::start(script([Step::body(200, "ok")])).unwrap();
    let mut conn = connect(server.port());
    conn.get_mut()
        .write_all(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\
              4\r\n{\"a\"\r\n7;ext=1\r\n:[1,2]}\r\n0\r\nX-Trailer: t\r\n\r\n",
        )
        .unwrap();
    assert_eq!(read_response(&mut conn).unwrap().text(), "ok");
    let recorded = &server.requests()[0];
    assert_eq!(recorded.body_json, Some(json!({"a": [1, 2]})));
}

#[test]
fn expect_continue_is_honoured() {
    let server = ScriptedServer::start(script([Step::body(200, "ok")])).unwrap();
    let mut conn = connect(server.port());
    conn.get_mut()
        .write_all(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        .unwrap();
    assert_eq!(read_head(&mut conn).unwrap().status, 100);
    conn.get_mut().write_all(b"{}").unwrap();
    assert_eq!(read_response(&mut conn).unwrap().text(), "ok");
}

#[test]
fn other_routes_are_refused_but_recorded() {
    let server = ScriptedServer::start(script([Step::body(200, "ok")])).unwrap();
    let not_found = request(server.port(), "GET", "/v1/models", b"");
    assert_eq!(not_found.status, 404);
    assert!(
        not_found.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/v1/models")
    );
    let wrong_method = request(server.port(), "GET", "/v1/chat/completions", b"");
    assert_eq!(
        (wrong_method.status, wrong_method.header("Allow")),
        (405, Some("POST"))
    );
    assert_eq!(request(server.port(), "GET", "/__nothing", b"").status, 404);
    assert_eq!(
        post_chat(server.port(), &json!({})).text(),
        "ok",
        "refused requests take no step"
    );
    let paths: Vec<(String, Option<usize>)> = server
        .requests()
        .into_iter()
        .map(|r| (r.path, r.step))
        .collect();
    assert_eq!(
        paths,
        vec![
            ("/v1/models".into(), None),
            ("/v1/chat/completions".into(), None),
            ("/v1/chat/completions".into(), Some(0))
        ]
    );
}

#[test]
fn malformed_requests_get_400_and_a_closed_connection() {
    let server = ScriptedServer::start(script([])).unwrap();
    for bad in [
        &b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: x\r\n\r\n"[..],
        b"NOT-HTTP\r\n\r\n",
    ] {
        let mut conn = connect(server.port());
        conn.get_mut().write_all(bad).unwrap();
        let response = read_response(&mut conn).unwrap();
        assert_eq!(
            (response.status, response.header("Connection")),
            (400, Some("close"))
        );
    }
    assert!(server.requests().is_empty());
}

#[test]
fn invalid_scripts_are_rejected_up_front() {
    let error = ScriptedServer::start(json!({"responses": [{"events": [{"$sleeep_ms": 1}]}]}))
        .err()
        .unwrap();
    assert_eq!(error.kind(), ErrorKind::InvalidInput);
    assert!(
        error
            .to_string()
            .contains("unknown directive \"$sleeep_ms\""),
        "{error}"
    );
}

#[test]
fn set_script_restarts_the_sequence_and_clears_the_log() {
    let server = ScriptedServer::start(script([Step::body(200, "old")])).unwrap();
    post_chat(server.port(), &json!({}));
    server
        .set_script(script([Step::body(200, "new 0"), Step::body(200, "new 1")]))
        .unwrap();
    assert!(server.requests().is_empty());
    assert_eq!(post_chat(server.port(), &json!({})).text(), "new 0");
    assert!(server.set_script(json!({"responses": 1})).is_err());
    assert_eq!(
        post_chat(server.port(), &json!({})).text(),
        "new 1",
        "a rejected script changes nothing"
    );
}

#[test]
fn wait_for_requests_gives_up_after_its_timeout() {
    let server = ScriptedServer::start(script([])).unwrap();
    let started = std::time::Instant::now();
    assert!(
        server
            .wait_for_requests(1, Duration::from_millis(100))
            .is_empty()
    );
    assert!(started.elapsed() >= Duration::from_millis(100));
}

#[tokio::test]
async fn works_from_inside_a_tokio_runtime() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = ScriptedServer::start(script([Step::body(200, "in runtime")])).unwrap();
    assert_eq!(
        server.base_url(),
        format!("http://127.0.0.1:{}/v1", server.port())
    );
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", server.port()))
        .await
        .unwrap();
    stream
        .write_all(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}")
        .await
        .unwrap();
    let mut response = String::new();
    tokio::time::timeout(common::TIMEOUT, stream.read_to_string(&mut response))
        .await
        .unwrap()
        .unwrap();
    assert!(
        response.starts_with("HTTP/1.1 200 OK\r\n") && response.ends_with("\r\n\r\nin runtime"),
        "{response}"
    );
    drop(server);
}
