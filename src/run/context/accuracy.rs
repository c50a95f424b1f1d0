//! The estimate against OpenAI's own tokenizers (SPEC §I.4.1): the BPE ranks of o200k_base
//! (GPT-4o, GPT-4.1, GPT-5, the o-series) and cl100k_base (GPT-4, GPT-3.5) as the
//! `tiktoken-rs` crate embeds them — the same rank files tiktoken downloads at first use, which
//! cannot be downloaded here. The corpus is the repository's own: the English and CJK texts of
//! `tests/fixtures/context/`, the library's source files, and its JSON fixtures.
//! Each model's text is estimated for its tokenizer (`Tokenizer::of`), so each row is held to
//! both. `cargo test --lib context::accuracy -- --nocapture` prints BENCHMARKS.md's table.

use super::estimate::{Tokenizer, tokens_for};
use std::path::Path;

const BOUND: f64 = 0.15;

/// (kind, files relative to the crate).
const CORPUS: &[(&str, &[&str])] = &[
    ("English prose", &["tests/fixtures/context/english.txt"]),
    ("source code (Rust, C++)", &["src/run/pairing.rs", "src/run/failure.rs", "cpp/Agent/Model.cpp", "include/Agent/Prompt.h"]),
    ("CJK (Chinese, Japanese, Korean)", &["tests/fixtures/context/cjk.txt"]),
    (
        "JSON",
        &[
            "tests/fixtures/streams/anthropic_call.json",
            "tests/fixtures/streams/gemini_text.json",
            "tests/fixtures/streams/responses_reasoning_call.json",
            "tests/fixtures/streams/responses_call.json",
        ],
    ),
];

fn read(kind_files: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    kind_files.iter().map(|f| std::fs::read_to_string(root.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"))).collect::<Vec<_>>().join("\n")
}

#[test]
fn models_get_their_tokenizer() {
    for name in ["gpt-4", "gpt-4-turbo", "gpt-4-0613", "openai/gpt-4", "gpt-3.5-turbo", "text-embedding-3-small"] {
        assert_eq!(Tokenizer::of(name), Tokenizer::Cl100k, "{name}");
    }
    for name in ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.5-preview", "gpt-5", "o3", "claude-sonnet-4-5", "gemini-2.5-pro", "GPT-4o"] {
        assert_eq!(Tokenizer::of(name), Tokenizer::Current, "{name}");
    }
}

#[test]
fn the_estimate_is_within_15_percent_of_openais_tokenizers() {
    let o200k = tiktoken_rs::o200k_base_singleton();
    let cl100k = tiktoken_rs::cl100k_base_singleton();
    let mut failures = Vec::new();
    println!("| text | bytes | o200k_base | estimate | off | cl100k_base | estimate | off |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (kind, files) in CORPUS {
        let text = read(files);
        let mut row = format!("| {kind} | {} |", text.len());
        for (name, exact, tokenizer) in [
            ("o200k_base", o200k.encode_ordinary(&text).len() as f64, Tokenizer::Current),
            ("cl100k_base", cl100k.encode_ordinary(&text).len() as f64, Tokenizer::Cl100k),
        ] {
            let estimate = tokens_for(tokenizer, &text) as f64;
            let off = estimate / exact - 1.0;
            row += &format!(" {exact} | {estimate} | {:+.1} % |", off * 100.0);
            if off.abs() > BOUND {
                failures.push(format!("{kind}: {estimate} against {name}'s {exact} ({:+.1} %)", off * 100.0));
            }
        }
        println!("{row}");
    }
    assert!(failures.is_empty(), "outside ±15 %: {failures:?}");
    // What the estimate costs: a history of 1 MiB of the mixed corpus, estimated whole.
    let mixed: String = CORPUS.iter().map(|(_, files)| read(files)).collect::<Vec<_>>().join("\n");
    let history = mixed.repeat((1 << 20) / mixed.len() + 1);
    let start = std::time::Instant::now();
    let rounds = 20;
    let mut total = 0;
    for _ in 0..rounds {
        total += tokens_for(Tokenizer::Current, std::hint::black_box(&history));
    }
    let per_mib = start.elapsed() / rounds;
    println!("estimate of {} bytes ({} tokens): {per_mib:?} per pass", history.len(), total / rounds as i64);
}
