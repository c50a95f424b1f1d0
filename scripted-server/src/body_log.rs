//! Copies of chat request bodies, one file each, for validation outside the tests that made
//! them (the project's CI checks them all against the official `openai` and `anthropic` SDKs'
//! request types). The file name starts with the API the request was for:
//! `chat_completions-`, `responses-` or `messages-`.

use crate::record::RecordedRequest;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) fn write(dir: &Path, record: &RecordedRequest) {
    let Some(body) = &record.body_json else { return };
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let target = record.path.split('?').next().unwrap_or_default();
    let api = ["responses", "messages"].into_iter().find(|api| target.ends_with(&format!("/{api}"))).unwrap_or("chat_completions");
    let path = dir.join(format!("{api}-{}-{n}.json", std::process::id()));
    // A copy that cannot be written must not break the test that made the request; the
    // validation step reports missing bodies itself.
    let _ = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(path, body.to_string()));
}
