//! Differential: the zero-copy chunk scanner (`src/run/chunk.rs`, `src/run/scan.rs`) reads every
//! text exactly as the reference reading over a `serde_json::Value` tree does — the same
//! accept/reject, content, reasoning, tool-call pieces, usage and error message. Then the lines
//! of the text as the payloads of one stream: what the shape learnt from one line reads of a
//! later one (`src/run/shape.rs`) must be what the reference reads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use visindigo_agent::fuzz::{chunk_stream_shape, parse_chunk, parse_chunk_in_stream, reference_chunk};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(parse_chunk(text), reference_chunk(text), "{text:?}");
        let mut shape = chunk_stream_shape();
        for line in text.split('\n') {
            assert_eq!(parse_chunk_in_stream(line, &mut shape), reference_chunk(line), "{line:?} in {text:?}");
        }
    }
});
