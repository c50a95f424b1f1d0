//! Core micro-benchmarks (plain `harness = false` main, no dependencies):
//!
//!     cargo bench --bench core
//!
//! Prints one JSON object per measurement, like the C++ bench executables, for
//! benches/run.py. Measures what the public C++ API cannot reach directly: building the
//! request body of one round (SPEC §D.1.3) for a 10,000-message dialog, and what the context
//! window (SPEC §I.4, issue 32) adds to that round: the estimate of the whole history when it
//! fits (`context_estimate_10k`), and when most of it must be left out (`context_trim_10k`, a
//! 128,000-token window).

use std::hint::black_box;
use std::time::Instant;
use visindigo_agent::{Message, Model, Role, bench::{chat_completions_body, context_fit}};

fn text300(i: usize) -> String {
    let mut s = format!("Message {i}: ");
    while s.chars().count() < 300 {
        s.push_str("The quick brown fox jumps over the lazy dog — café naïve. ");
    }
    s.chars().take(300).collect()
}

fn main() {
    let reps: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let model = Model {
        name: "gpt-test".into(),
        url: "http://127.0.0.1:9/v1".into(),
        token: "k".into(),
        ..Model::new()
    };
    let messages: Vec<Message> = (0..10_000)
        .map(|i| Message {
            role: if i % 2 == 1 { Role::Assistant } else { Role::User },
            content: text300(i).into(),
            ..Message::default()
        })
        .collect();
    for _ in 0..reps {
        let t = Instant::now();
        let body = chat_completions_body(&model, "You are helpful.", &messages);
        let seconds = t.elapsed().as_secs_f64();
        black_box(&body);
        println!(r#"{{"case":"request_body_10k","impl":"ours","seconds":{seconds:.9},"bytes":{}}}"#, body.len());
        let bytes: usize = messages.iter().map(|m| m.content.len()).sum();
        for (case, budget) in [("context_estimate_10k", i64::MAX), ("context_trim_10k", 128_000)] {
            let t = Instant::now();
            let (cut, estimated) = context_fit("You are helpful.", black_box(&messages), budget);
            let seconds = t.elapsed().as_secs_f64();
            black_box((cut, estimated));
            println!(r#"{{"case":"{case}","impl":"ours","seconds":{seconds:.9},"bytes":{bytes},"cut":{cut},"estimated":{estimated}}}"#);
        }
    }
}
