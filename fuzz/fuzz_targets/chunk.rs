//! Differential: the zero-copy chunk scanner (`src/run/chunk.rs`, `src/run/scan.rs`) reads every
//! text exactly as the reference reading over a `serde_json::Value` tree does — the same
//! accept/reject, content, reasoning, tool-call pieces, usage and error message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use visindigo_agent::fuzz::{parse_chunk, reference_chunk};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(parse_chunk(text), reference_chunk(text), "{text:?}");
    }
});
