//! The server's `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1): where its
//! protected-resource metadata is, the scope it wants and why it refused. Hand-written (no
//! maintained crate parses auth-params) and fuzzed (`fuzz/fuzz_targets/oauth_inputs.rs`).

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    /// e.g. `invalid_token`, `insufficient_scope`.
    pub error: Option<String>,
}

impl Challenge {
    /// The Bearer challenge among a response's `WWW-Authenticate` values (other schemes and
    /// unknown parameters are skipped; a value that is not a challenge reads as none).
    pub fn from_headers(headers: &reqwest::header::HeaderMap) -> Challenge {
        Challenge::from_values(headers.get_all(reqwest::header::WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok()))
    }

    /// The same from the header values as text (the `oauth_readers` fuzz target drives this).
    pub fn from_values<'a>(values: impl IntoIterator<Item = &'a str>) -> Challenge {
        let mut challenge = Challenge::default();
        for value in values {
            for (name, value) in bearer_params(value) {
                let slot = match name.to_ascii_lowercase().as_str() {
                    "resource_metadata" => &mut challenge.resource_metadata,
                    "scope" => &mut challenge.scope,
                    "error" => &mut challenge.error,
                    _ => continue,
                };
                slot.get_or_insert(value);
            }
        }
        challenge
    }

    pub fn wants_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The parameters of the Bearer challenges in one header value: `Bearer a="x", b=y, Basic c=d`.
pub fn bearer_params(value: &str) -> Vec<(String, String)> {
    let mut params = Vec::new();
    let mut rest = value;
    let mut in_bearer = false;
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_ascii_whitespace());
        let name_len = rest.find(|c: char| !is_tchar(c)).unwrap_or(rest.len());
        if name_len == 0 {
            // Not a token: skip one character (a stray quote, '=', anything).
            match rest.chars().next() {
                Some(c) => rest = &rest[c.len_utf8()..],
                None => return params,
            }
            continue;
        }
        let name = &rest[..name_len];
        let after = rest[name_len..].trim_start();
        if let Some(value_start) = after.strip_prefix('=') {
            let (value, tail) = param_value(value_start.trim_start());
            if in_bearer {
                params.push((name.to_owned(), value));
            }
            rest = tail;
        } else {
            in_bearer = name.eq_ignore_ascii_case("bearer");
            rest = after;
        }
    }
}

/// A quoted string (with `\` escapes) or a token, and what follows it.
fn param_value(text: &str) -> (String, &str) {
    if let Some(quoted) = text.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => return (value, &quoted[i + 1..]),
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                c => value.push(c),
            }
        }
        (value, "")
    } else {
        let end = text.find(|c: char| c == ',' || c.is_ascii_whitespace()).unwrap_or(text.len());
        (text[..end].to_owned(), &text[end..])
    }
}

/// RFC 9110 token characters.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(value: &str) -> Vec<(String, String)> {
        bearer_params(value)
    }

    #[test]
    fn reads_quoted_and_token_values_of_the_bearer_challenge_only() {
        let value = r#"Basic realm="x", Bearer error="invalid_token", error_description="Auth \"required\"", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", scope=files:read"#;
        let got = params(value);
        assert_eq!(got[0], ("error".into(), "invalid_token".into()));
        assert_eq!(got[1], ("error_description".into(), "Auth \"required\"".into()));
        assert_eq!(got[2].1, "http://h/.well-known/oauth-protected-resource/mcp");
        assert_eq!(got[3], ("scope".into(), "files:read".into()));
        assert_eq!(got.len(), 4);
    }

    #[test]
    fn a_bare_scheme_and_garbage_give_nothing() {
        assert!(params("Bearer").is_empty());
        assert!(params("Basic realm=a").is_empty());
        assert!(params("=\"\\").is_empty());
        assert_eq!(params("Bearer scope=\"unterminated"), vec![("scope".into(), "unterminated".into())]);
    }

    #[test]
    fn headers_give_the_first_of_each() {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.append("www-authenticate", "Bearer error=\"insufficient_scope\", scope=\"a b\"".parse().unwrap());
        headers.append("www-authenticate", "Bearer scope=c".parse().unwrap());
        let c = Challenge::from_headers(&headers);
        assert_eq!(c.scope.as_deref(), Some("a b"));
        assert!(c.wants_scope() && c.resource_metadata.is_none());
    }
}
