//! The one place secrets are taken out of text the library forms (SPEC §I.5.1): log lines,
//! failure texts, `mcpFailed` messages, MCP errors. The secrets are the ones in use — model
//! tokens, credential MCP headers, OAuth tokens — registered where they are used, so a server
//! that echoes a request header in its error, or a proxy that quotes a url with a key, cannot
//! carry one out through the library.

use std::borrow::Cow;
use std::sync::RwLock;

/// Shorter strings are no secret worth hiding, and replacing them would garble text ("t" in
/// "[Timeout]").
const MIN_SECRET: usize = 8;

/// The most secrets remembered; the oldest go first (tokens that were refreshed long ago).
const MAX_SECRETS: usize = 512;

/// What stands for a secret in the text.
pub const MASK: &str = "***";

static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Remembers `secret` (ignored when too short to be one, or known already).
pub fn register(secret: &str) {
    if secret.len() < MIN_SECRET || SECRETS.read().unwrap_or_else(|e| e.into_inner()).iter().any(|s| s == secret) {
        return;
    }
    let mut secrets = SECRETS.write().unwrap_or_else(|e| e.into_inner());
    if !secrets.iter().any(|s| s == secret) {
        if secrets.len() == MAX_SECRETS {
            secrets.remove(0);
        }
        secrets.push(secret.to_owned());
        // The longest first: a secret that contains another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

/// `text` with every known secret replaced by `MASK`; borrowed when it holds none.
pub fn redact(text: &str) -> Cow<'_, str> {
    let secrets = SECRETS.read().unwrap_or_else(|e| e.into_inner());
    let mut out = Cow::Borrowed(text);
    for secret in secrets.iter() {
        if out.contains(secret.as_str()) {
            out = Cow::Owned(out.replace(secret.as_str(), MASK));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_secrets_are_masked_and_short_strings_left_alone() {
        register("sk-redact-test-0123456789");
        register("sk-redact-test-0123456789-longer");
        register("short");
        assert_eq!(redact("key sk-redact-test-0123456789-longer and sk-redact-test-0123456789."), "key *** and ***.");
        assert_eq!(redact("a short text"), "a short text");
        assert!(matches!(redact("nothing secret here"), Cow::Borrowed(_)));
    }
}
