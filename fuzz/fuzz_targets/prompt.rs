//! Differential: templates (`src/prompt.rs`) render as the placeholder rule of SPEC §B.6 says,
//! searched the slow way — rendering every variable as "" removes exactly the placeholders the
//! reference finds — and in time linear in the text (libFuzzer's `-timeout` in tools/fuzz.sh
//! turns a quadratic case into a failure).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;
use visindigo_agent::Prompt;
use visindigo_agent::fuzz::without_placeholders;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let prompt = Prompt::new("p", text);
    let values: HashMap<String, String> = prompt.variables().into_iter().map(|n| (n, String::new())).collect();
    assert_eq!(prompt.render(&values).content.to_string(), without_placeholders(text), "{text:?}");
});
