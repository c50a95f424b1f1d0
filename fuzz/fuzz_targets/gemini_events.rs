//! The Gemini stream reader (`src/run/wire/gemini.rs`) on any text a server may send: each line
//! is one event (`<name> <data>`), read by the fast path (`gemini/fast.rs`) and by the tree
//! reader, which must agree, and the whole text is read as a JSON answer. Must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use visindigo_agent::{Api, fuzz::read_server_text};

fuzz_target!(|data: &[u8]| {
    read_server_text(Api::Gemini, &String::from_utf8_lossy(data));
});
