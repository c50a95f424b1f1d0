//! Core micro-benchmarks (plain `harness = false` main, no dependencies):
//!
//!     cargo bench --bench core
//!
//! Prints one JSON object per measurement, like the C++ bench executables, for
//! benches/run.py. Measures what the public C++ API cannot reach directly: building the
//! request body of one round (SPEC §D.1.3) for a 10,000-message dialog.

use std::hint::black_box;
use std::time::Instant;
use visindigo_agent::{Message, Model, Role, bench::chat_completions_body};

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
    }
}
