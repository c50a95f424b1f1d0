//! What reaches the OAuth client from outside (`src/mcp_client/oauth/`): a server's
//! `WWW-Authenticate` value (the hand-written auth-param reader) and the bytes a browser — or
//! anything else on 127.0.0.1 — sends the loopback redirect listener. Neither may panic; every
//! parameter read comes from the input, and a callback is only a GET of /callback.
#![no_main]

use libfuzzer_sys::fuzz_target;
use visindigo_agent::fuzz::{Redirect, bearer_params, read_redirect};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for (name, value) in bearer_params(text) {
            assert!(!name.is_empty() && text.contains(name.as_str()), "{name:?} is not a name in {text:?}");
            assert!(value.len() <= text.len(), "{value:?} is longer than {text:?}");
        }
    }
    if let Redirect::Callback(_) = read_redirect(data) {
        assert!(data.windows(13).any(|w| w == b"GET /callback"), "a callback that is no GET of /callback: {data:?}");
    }
});
