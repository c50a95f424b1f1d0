//! What the two HTTP transports share: the HTTP client, the configured headers, URL checks and
//! readable errors.

use super::oauth::{Authorization, Challenge};
use crate::network::{self, Purpose, SetupError};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use std::collections::BTreeMap;
use std::time::Duration;

/// The client for a server's url, chosen when the connection is made: the same proxy and TLS
/// rules as model requests (SPEC §H.1.1).
pub fn client(url: &reqwest::Url) -> Result<network::Client, String> {
    network::client(url, Purpose::Mcp).map_err(|e| match e {
        SetupError::Proxy(reason) => format!("proxy: {reason}"),
        SetupError::Tls(reason) => format!("TLS: {reason}"),
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

/// A reqwest error with its causes ("error sending request: … Connection refused"), naming the
/// proxy when the connection to it failed (SPEC §H.1.9).
pub fn describe(e: &reqwest::Error, client: &network::Client) -> String {
    let text = network::describe(e);
    match &client.proxy {
        Some(proxy) if e.is_connect() => format!("proxy {proxy}: {text}"),
        _ => text,
    }
}

/// "HTTP 500 Internal Server Error: <start of the body>".
pub async fn status_error(response: reqwest::Response) -> String {
    let status = response.status();
    let body = tokio::time::timeout(Duration::from_secs(2), response.text()).await.ok().and_then(Result::ok).unwrap_or_default();
    let body: String = body.trim().chars().take(500).collect();
    if body.is_empty() { format!("HTTP {status}") } else { format!("HTTP {status}: {body}") }
}

/// The entry's headers with the access token, which replaces a configured `Authorization`
/// once the server asked for OAuth; and the generation of that token.
pub async fn authorized(configured: &HeaderMap, auth: &Authorization) -> (HeaderMap, u64) {
    let (bearer, generation) = auth.bearer().await;
    let mut headers = configured.clone();
    if let Some(bearer) = bearer {
        headers.insert(reqwest::header::AUTHORIZATION, bearer);
    }
    (headers, generation)
}

/// A whole answer body of at most `limit` bytes; `too_large` says why a longer one is refused.
pub async fn read_limited(mut response: reqwest::Response, limit: usize, too_large: impl Fn() -> String) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| network::describe(&e))? {
        body.extend_from_slice(&chunk);
        if body.len() > limit {
            return Err(too_large());
        }
    }
    Ok(body)
}

/// Why a message did not reach the server.
pub(crate) enum SendError {
    /// The server answered 404 to a request with a session id: it forgot the session.
    SessionGone,
    /// 401, or 403 for want of scope (SPEC §H.4.6): the access token of `generation` (none,
    /// expired, revoked, too narrow) was refused.
    Unauthorized { challenge: Challenge, generation: u64, status: reqwest::StatusCode },
    Failed(String),
    /// The server answered the request with an HTTP error status (not an authorization
    /// refusal): it is there but does not take the request.
    Rejected(String),
}

impl SendError {
    pub fn reason(self) -> String {
        match self {
            SendError::SessionGone => "the server rejected the session".to_owned(),
            SendError::Unauthorized { status, .. } => format!("the server refused the authorization: HTTP {status}"),
            SendError::Failed(reason) | SendError::Rejected(reason) => reason,
        }
    }
}

/// A refusal of the request's authorization, when `response` is one.
pub fn unauthorized(response: &reqwest::Response, generation: u64) -> Option<SendError> {
    let status = response.status();
    let challenge = Challenge::from_headers(response.headers());
    let refused = status == reqwest::StatusCode::UNAUTHORIZED || (status == reqwest::StatusCode::FORBIDDEN && challenge.wants_scope());
    refused.then_some(SendError::Unauthorized { challenge, generation, status })
}
