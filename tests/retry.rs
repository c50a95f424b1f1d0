//! Starting the provider's chain over after every model failed (SPEC §H.1.4): the waits the
//! server asks for, the backoff without a hint, the limits, and abort() during a wait.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use support::*;
use vi_scripted_server::{Step, chat_chunk_content, done, stall};
use visindigo_agent::{Center, Dialog, Event, Message, Role};

/// A dialog over `models` (highest priority first) whose provider retries as given, with a
/// user question.
fn dialog(models: Vec<visindigo_agent::Model>, retries: i32, max_delay_ms: i32) -> (Center, Dialog, Arc<Recorder>) {
    let (center, dialog, recorder) = setup_with(models, |provider| {
        provider.retries = retries;
        provider.max_retry_delay_ms = max_delay_ms;
    });
    dialog.append_message(Message::new(Role::User, "hi"));
    recorder.take();
    (center, dialog, recorder)
}

fn retries_of(events: &[Event]) -> Vec<(i32, i32, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Retrying { attempt, delay_ms, reason } => Some((*attempt, *delay_ms, reason.clone())),
            _ => None,
        })
        .collect()
}

fn failure(events: &[Event]) -> Option<String> {
    events.iter().find_map(|e| match e {
        Event::RunFailed(m) => Some(m.clone()),
        _ => None,
    })
}

fn hello() -> Step {
    Step::sse(vec![chat_chunk_content("Hello"), done()])
}

/// Runs to the end; the events and how long it took.
fn run(d: &Dialog, rec: &Recorder) -> (Vec<Event>, Duration) {
    let start = Instant::now();
    d.run();
    wait_idle(d);
    (rec.take(), start.elapsed())
}

#[test]
fn a_429_with_retry_after_seconds_waits_that_long_on_a_single_model() {
    let srv = chat_server(vec![Step::error(429, "slow down").header("Retry-After", "1"), hello()]);
    let (_c, d, rec) = dialog(vec![model("m", &srv.base_url())], 2, 60_000);
    let (events, took) = run(&d, &rec);
    assert_eq!(
        retries_of(&events),
        vec![(1, 1000, "[HttpStatusError] Server returned HTTP 429 Too Many Requests: slow down (HTTP 429)".into())]
    );
    assert_eq!(failure(&events), None);
    assert_eq!(deltas(&events), "Hello");
    assert!(took >= Duration::from_millis(1000), "waited only {took:?}");
    let requests = srv.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body_json, requests[1].body_json, "the same request again");
}

#[test]
fn retry_after_ms_and_an_http_date_are_hints_too() {
    let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(2));
    let srv = chat_server(vec![
        Step::error(503, "busy").header("retry-after-ms", "250").header("Retry-After", "9"),
        Step::error(529, "overloaded").header("Retry-After", &date),
        hello(),
    ]);
    let (_c, d, rec) = dialog(vec![model("m", &srv.base_url())], 2, 60_000);
    let (events, _) = run(&d, &rec);
    let retries = retries_of(&events);
    assert_eq!(retries.len(), 2, "{events:?}");
    assert_eq!((retries[0].0, retries[0].1), (1, 250));
    assert_eq!(retries[1].0, 2);
    assert!((500..=2000).contains(&retries[1].1), "the date is ~1-2 s away: {}", retries[1].1);
    assert_eq!(deltas(&events), "Hello");
}

#[test]
fn without_a_hint_the_wait_is_one_second_with_jitter_then_two() {
    let srv = chat_server(vec![Step::error(500, "oops"), Step::error(502, "oops"), hello()]);
    let (_c, d, rec) = dialog(vec![model("m", &srv.base_url())], 2, 60_000);
    let (events, took) = run(&d, &rec);
    let delays: Vec<i32> = retries_of(&events).iter().map(|r| r.1).collect();
    assert_eq!(delays.len(), 2);
    assert!((800..=1200).contains(&delays[0]) && (1600..=2400).contains(&delays[1]), "{delays:?}");
    assert!(took >= Duration::from_millis((delays[0] + delays[1]) as u64));
    assert_eq!(deltas(&events), "Hello");
}

#[test]
fn the_retries_run_out_and_the_last_failure_ends_the_run() {
    let srv = chat_server(vec![Step::error(503, "a").header("Retry-After", "0"); 3]);
    let (_c, d, rec) = dialog(vec![model("m", &srv.base_url())], 2, 60_000);
    let (events, _) = run(&d, &rec);
    assert_eq!(retries_of(&events).iter().map(|r| r.0).collect::<Vec<_>>(), vec![1, 2]);
    assert_eq!(failure(&events).unwrap(), "[HttpStatusError] Server returned HTTP 503 Service Unavailable: a (HTTP 503)");
    assert_eq!(srv.requests().len(), 3);
}

#[test]
fn a_hint_above_the_maximum_or_zero_retries_fails_at_once() {
    let srv = chat_server(vec![Step::error(429, "tomorrow").header("Retry-After", "3600")]);
    let (_c, d, rec) = dialog(vec![model("m", &srv.base_url())], 2, 60_000);
    let (events, took) = run(&d, &rec);
    assert!(retries_of(&events).is_empty());
    assert!(failure(&events).unwrap().contains("HTTP 429"));
    assert!(took < Duration::from_secs(5));

    let srv = chat_server(vec![Step::error(503, "busy")]);
    let (_c, d, rec) = dialog(vec![model("m", &srv.base_url())], 0, 60_000);
    let (events, _) = run(&d, &rec);
    assert!(retries_of(&events).is_empty() && failure(&events).is_some());
    assert_eq!(srv.requests().len(), 1);
}

#[test]
fn a_timeout_falls_back_but_is_not_retried() {
    let srv = chat_server(vec![Step::sse(vec![stall()])]);
    let mut m = model("m", &srv.base_url());
    m.idle_timeout_ms = 300;
    let (_c, d, rec) = dialog(vec![m], 2, 60_000);
    let (events, _) = run(&d, &rec);
    assert!(retries_of(&events).is_empty());
    assert_eq!(failure(&events).unwrap(), "[IdleTimeout] No data received for 300 ms");
}

#[test]
fn fallback_comes_first_then_the_pass_starts_over_from_pick_first() {
    let first = chat_server(vec![Step::error(503, "m1 down").header("Retry-After", "0"), hello()]);
    let second = chat_server(vec![Step::error(503, "m2 down")]);
    let (_c, d, rec) = dialog(vec![model("m1", &first.base_url()), model("m2", &second.base_url())], 2, 60_000);
    let (events, _) = run(&d, &rec);
    let fallback = events.iter().position(|e| matches!(e, Event::ModelFallback { from, to, .. } if from == "m1" && to == "m2"));
    let retry = events.iter().position(|e| matches!(e, Event::Retrying { .. }));
    assert!(fallback.unwrap() < retry.unwrap(), "{events:?}");
    assert_eq!(retries_of(&events)[0].1, 0, "the pass's longest hint (m2 gave none)");
    assert!(retries_of(&events)[0].2.contains("m2 down"), "the reason is the pass's last failure");
    assert_eq!(deltas(&events), "Hello");
    assert_eq!((first.requests().len(), second.requests().len()), (2, 1));
}

#[test]
fn abort_ends_a_wait_at_once() {
    let srv = chat_server(vec![Step::error(429, "wait").header("Retry-After", "30"), hello()]);
    let (_c, d, rec) = dialog(vec![model("m", &srv.base_url())], 2, 60_000);
    d.run();
    wait_for("the retrying event", || rec.snapshot().iter().any(|e| matches!(e, Event::Retrying { .. })));
    let start = Instant::now();
    d.abort();
    wait_idle(&d);
    assert!(start.elapsed() < Duration::from_millis(500), "abort took {:?}", start.elapsed());
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(srv.requests().len(), 1, "no request after the abort");
}
