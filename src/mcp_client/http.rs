//! What the two HTTP transports share: the HTTP client, the configured headers, URL checks and
//! readable errors.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

/// Largest JSON document read from a plain (non-streamed) answer.
pub const BODY_LIMIT: usize = 64 * 1024 * 1024;

pub fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        // Built without a bundled crypto provider; `Err` means one is installed already.
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .pool_idle_timeout(Duration::from_secs(90))
            .build()
            .unwrap_or_else(|_| reqwest::Client::new())
    })
}

pub fn url(text: &str) -> Result<reqwest::Url, String> {
    let url = reqwest::Url::parse(text).map_err(|e| format!("invalid url \"{text}\": {e}"))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(format!("the url scheme \"{other}\" is not http or https")),
    }
}

pub fn headers(configured: &BTreeMap<String, String>) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (name, value) in configured {
        let n = HeaderName::from_bytes(name.as_bytes()).map_err(|_| format!("invalid header name \"{name}\""))?;
        let v = HeaderValue::from_str(value).map_err(|_| format!("invalid value for header \"{name}\""))?;
        map.insert(n, v);
    }
    Ok(map)
}

/// A reqwest error with its causes ("error sending request: … Connection refused").
pub fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// "HTTP 500 Internal Server Error: <start of the body>".
pub async fn status_error(response: reqwest::Response) -> String {
    let status = response.status();
    let body = tokio::time::timeout(Duration::from_secs(2), response.text()).await.ok().and_then(Result::ok).unwrap_or_default();
    let body: String = body.trim().chars().take(500).collect();
    if body.is_empty() { format!("HTTP {status}") } else { format!("HTTP {status}: {body}") }
}
