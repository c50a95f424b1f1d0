//! Faults a step can inject: reset, stall, delay, close after headers.

mod common;

use std::io::{ErrorKind, Read};
use std::time::{Duration, Instant};

use common::{connect, read_head, read_until_end, send};
use serde_json::json;
use vi_scripted_server::ScriptedServer;

fn start(step: serde_json::Value) -> ScriptedServer {
    ScriptedServer::start(json!({ "responses": [step] })).unwrap()
}

#[test]
fn reset_is_seen_as_connection_reset() {
    let server = start(json!({"events": ["partial", {"$sleep_ms": 50}, {"$reset": true}]}));
    let mut conn = connect(server.port());
    send(&mut conn, "POST", "/v1/chat/completions", &[], b"{}");
    let (received, end) = read_until_end(&mut conn);
    let received = String::from_utf8_lossy(&received);
    assert!(received.starts_with("HTTP/1.1 200 OK\r\n"), "{received}");
    assert!(received.contains("data: partial\n\n"), "{received}");
    assert!(
        !received.ends_with("0\r\n\r\n"),
        "the body must not be completed"
    );
    assert_eq!(
        end.expect_err("a reset, not a clean end").kind(),
        ErrorKind::ConnectionReset
    );
}

#[test]
fn stall_keeps_the_connection_open_until_shutdown() {
    let mut server = start(json!({"events": ["first", {"$stall": true}, "never"]}));
    let mut conn = connect(server.port());
    send(&mut conn, "POST", "/v1/chat/completions", &[], b"{}");
    read_head(&mut conn).unwrap();
    let mut first = [0u8; 18];
    conn.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"D\r\ndata: first\n\n\r\n");

    conn.get_ref()
        .set_read_timeout(Some(Duration::from_millis(400)))
        .unwrap();
    let silence = conn
        .read(&mut [0u8; 64])
        .expect_err("nothing may arrive during a stall");
    assert!(
        matches!(silence.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "{silence:?}"
    );

    conn.get_ref()
        .set_read_timeout(Some(common::TIMEOUT))
        .unwrap();
    let started = Instant::now();
    server.shutdown();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "shutdown must not wait for stalled clients"
    );
    let (rest, end) = read_until_end(&mut conn);
    assert!(rest.is_empty(), "{rest:?}");
    assert!(end.is_ok() || end.unwrap_err().kind() == ErrorKind::ConnectionReset);
}

#[test]
fn a_stalled_client_that_leaves_frees_the_server() {
    let server = ScriptedServer::start(
        json!({"responses": [{"events": [{"$stall": true}]}, {"body": "next"}]}),
    )
    .unwrap();
    let mut stalled = connect(server.port());
    send(&mut stalled, "POST", "/v1/chat/completions", &[], b"{}");
    read_head(&mut stalled).unwrap();
    drop(stalled);
    let next = common::post_chat(server.port(), &json!({}));
    assert_eq!(next.text(), "next");
}

#[test]
fn delay_holds_back_the_status_line() {
    let server = start(json!({"delay_ms": 300, "body": "late"}));
    let started = Instant::now();
    let response = common::post_chat(server.port(), &json!({}));
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(response.text(), "late");
}

#[test]
fn close_after_headers_sends_the_head_alone() {
    for step in [
        json!({"close_after_headers": true, "events": ["x"]}),
        json!({"close_after_headers": true, "body": "x"}),
    ] {
        let server = start(step.clone());
        let mut conn = connect(server.port());
        send(&mut conn, "POST", "/v1/chat/completions", &[], b"{}");
        let head = read_head(&mut conn).unwrap();
        assert_eq!(head.status, 200);
        assert!(
            head.headers
                .contains(&("Connection".into(), "close".into())),
            "{step}"
        );
        let (rest, end) = read_until_end(&mut conn);
        assert!(rest.is_empty() && end.is_ok(), "{step}: {rest:?} {end:?}");
    }
}
