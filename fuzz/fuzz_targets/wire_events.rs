//! The Responses and Anthropic event readers and every API's JSON-answer reader
//! (`src/run/wire/`) on any text a server may send: the first byte picks the API, each line of
//! the rest is one event (`<name> <data>`). They must never panic, whatever the events say.
#![no_main]

use libfuzzer_sys::fuzz_target;
use visindigo_agent::{Api, fuzz::read_server_text};

fuzz_target!(|data: &[u8]| {
    let [which, rest @ ..] = data else { return };
    let api = [Api::ChatCompletions, Api::Responses, Api::AnthropicMessages][*which as usize % 3];
    read_server_text(api, &String::from_utf8_lossy(rest));
});
