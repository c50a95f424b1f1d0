//! Copies of chat request bodies, one file each, for validation outside the tests that made
//! them (the project's CI checks them all against the official `openai` and `anthropic` SDKs'
//! request types). The file name starts with the API the request was for:
//! `chat_completions-`, `responses-`, `gemini-` or `messages@<anthropic-version>-` (each
//! Anthropic version is checked with the SDK of that version).

use crate::record::RecordedRequest;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) fn write(dir: &Path, record: &RecordedRequest) {
    let Some(body) = &record.body_json else { return };
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let target = record.path.split('?').next().unwrap_or_default();
    let gemini = target.ends_with(":streamGenerateContent") || target.ends_with(":generateContent");
    let typed = ["responses", "messages"].into_iter().find(|api| target.ends_with(&format!("/{api}")));
    let mut api = if gemini { "gemini" } else { typed.unwrap_or("chat_completions") }.to_owned();
    if api == "messages" {
        // A version that is not a plain date is named as such: the validation refuses it.
        let version = record.header("anthropic-version").unwrap_or("none");
        let plain = version.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        api = format!("messages@{}", if plain { version } else { "unnamed" });
    }
    let path = dir.join(format!("{api}-{}-{n}.json", std::process::id()));
    // A copy that cannot be written must not break the test that made the request; the
    // validation step reports missing bodies itself.
    let _ = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(path, body.to_string()));
}
