//! What an MCP server sends (`src/mcp_client/`: JSON-RPC dispatch, the initialize, tools/list
//! and tools/call readers, the task readers of both revisions, the -32042 error's
//! elicitations) never panics the client, whatever the JSON: any text the stdio,
//! streamable-HTTP or SSE framing hands on is parsed by serde_json and then read here.
#![no_main]

use libfuzzer_sys::fuzz_target;
use visindigo_agent::fuzz::read_server_message;

fuzz_target!(|data: &[u8]| {
    if let Ok(message) = serde_json::from_slice::<serde_json::Value>(data) {
        read_server_message(message);
    }
});
