//! The SSE decoder (`src/sse.rs`) gives the same events whatever pieces the bytes arrive in:
//! the first two bytes choose split points, the rest is the stream.
#![no_main]

use libfuzzer_sys::fuzz_target;
use visindigo_agent::fuzz::{SseDecoder, SseEvent};

fn decode(pieces: &[&[u8]]) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    for piece in pieces {
        decoder.feed_events(piece, &mut events);
    }
    decoder.finish_events(&mut events);
    events
}

fuzz_target!(|data: &[u8]| {
    let [a, b, stream @ ..] = data else { return };
    let whole = decode(&[stream]);
    let (x, y) = (*a as usize % (stream.len() + 1), *b as usize % (stream.len() + 1));
    let (x, y) = (x.min(y), x.max(y));
    assert_eq!(decode(&[&stream[..x], &stream[x..y], &stream[y..]]), whole);
    let bytewise: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(decode(&bytewise), whole);
});
