//! Concurrency and the generated streams used by benchmarks.

mod common;

use std::collections::BTreeSet;
use std::io::Read;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::{connect, data_payloads, post_chat, read_head, send};
use serde_json::{Value, json};
use vi_scripted_server::{ScriptedServer, Step, chat_chunk_content, done, paced, repeat, script};

#[test]
fn twenty_parallel_clients_each_get_a_distinct_step() {
    const CLIENTS: usize = 20;
    let steps =
        (0..CLIENTS).map(|n| Step::sse(vec![json!({"n": n}), json!({"$sleep_ms": 20}), done()]));
    let server = ScriptedServer::start(script(steps)).unwrap();
    let port = server.port();
    let barrier = Arc::new(Barrier::new(CLIENTS));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                let response = post_chat(port, &json!({}));
                let payloads = data_payloads(&response.text());
                serde_json::from_str::<Value>(&payloads[0]).unwrap()["n"]
                    .as_u64()
                    .unwrap() as usize
            })
        })
        .collect();
    let served: BTreeSet<usize> = clients
        .into_iter()
        .map(|client| client.join().unwrap())
        .collect();
    assert_eq!(served, (0..CLIENTS).collect());
    let steps: BTreeSet<Option<usize>> = server.requests().into_iter().map(|r| r.step).collect();
    assert_eq!(steps, (0..CLIENTS).map(Some).collect());
}

#[test]
fn repeat_streams_300k_chunks_without_building_them() {
    const COUNT: usize = 300_000;
    let server = ScriptedServer::start(script([Step::sse(vec![
        repeat(COUNT as u64, "tok"),
        done(),
    ])]))
    .unwrap();
    let mut conn = connect(server.port());
    send(
        &mut conn,
        "POST",
        "/v1/chat/completions",
        &[("Connection", "close")],
        b"{}",
    );
    read_head(&mut conn).unwrap();

    let mut framed = Vec::new();
    conn.read_to_end(&mut framed).unwrap();
    let mut body = Vec::new();
    let mut rest = &framed[..];
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).unwrap(), 16).unwrap();
        rest = &rest[line_end + 2..];
        assert!(
            size <= 64 * 1024,
            "generated output goes out in bounded chunks: {size}"
        );
        if size == 0 {
            assert_eq!(rest, b"\r\n");
            break;
        }
        body.extend_from_slice(&rest[..size]);
        assert_eq!(&rest[size..size + 2], b"\r\n");
        rest = &rest[size + 2..];
    }
    let event = format!("data: {}\n\n", chat_chunk_content("tok"));
    let (events, end) = body.split_at(COUNT * event.len());
    assert!(
        events
            .chunks(event.len())
            .all(|chunk| chunk == event.as_bytes())
    );
    assert_eq!(end, b"data: [DONE]\n\n");
}

#[test]
fn paced_chunks_carry_send_times_at_the_requested_rate() {
    let server =
        ScriptedServer::start(script([Step::sse(vec![paced(20, "p", 200.0), done()])])).unwrap();
    let before_ns = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let started = Instant::now();
    let response = post_chat(server.port(), &json!({}));
    let elapsed = started.elapsed();
    let after_ns = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;

    let payloads = data_payloads(&response.text());
    assert_eq!(payloads.len(), 21);
    assert_eq!(payloads[20], "[DONE]");
    let stamps: Vec<u64> = payloads[..20]
        .iter()
        .map(|payload| {
            let chunk: Value = serde_json::from_str(payload).unwrap();
            assert_eq!(chunk["choices"][0]["delta"]["content"], "p");
            assert!(
                payload.starts_with("{\"choices\":"),
                "vi_sent_ns comes after choices: {payload}"
            );
            chunk["vi_sent_ns"].as_u64().unwrap()
        })
        .collect();
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "{stamps:?}");
    assert!(before_ns <= stamps[0] && stamps[19] <= after_ns);
    // 19 intervals of 5 ms.
    assert!(stamps[19] - stamps[0] >= 90_000_000, "{stamps:?}");
    assert!(
        elapsed >= Duration::from_millis(90) && elapsed < Duration::from_secs(5),
        "{elapsed:?}"
    );
}
