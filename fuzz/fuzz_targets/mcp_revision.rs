//! What a server of MCP 2026-07-28 answers (`src/mcp_client/revision/`: the `server/discover`
//! result and error readers, the `input_required` reader and the retry made of it, the request
//! envelope and HTTP headers) never panics the client, whatever the JSON; every header value
//! made is a valid one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use visindigo_agent::fuzz::read_revision_message;

fuzz_target!(|data: &[u8]| {
    if let Ok(message) = serde_json::from_slice::<serde_json::Value>(data) {
        read_revision_message(message);
    }
});
