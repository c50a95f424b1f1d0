//! HTTP for one attempt: POST the body, wait for the status, then hand out body bytes as they
//! arrive, enforcing the model's total and idle timeouts (SPEC §B.2). The idle timeout counts
//! from the last progress the caller reports (`Body::progressed`), not from the last byte, so
//! keep-alive comments cannot hold a run open (SPEC §H.1.7). Cancellation is the caller's:
//! dropping the future or the stream closes the connection. No `Referer` is ever sent
//! (SPEC §H.1.9).
//!
//! reqwest on tokio with rustls (ring): a maintained client with streaming bodies, connection
//! reuse and HTTP/2, and no OpenSSL or C toolchain beyond ring's small build.

use super::failure::{Failure, Kind};
use futures_util::StreamExt;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use std::error::Error as _;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::time::Instant;

/// Longest error body read to report the server's own error message.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

pub struct Request<'a> {
    /// The model's base url; `/chat/completions` is appended.
    pub base_url: &'a str,
    pub token: &'a str,
    pub body: String,
    /// 0 or less = unlimited.
    pub timeout_ms: i32,
    pub idle_timeout_ms: i32,
}

/// The body of a successful response, read chunk by chunk under the timeouts.
pub struct Body {
    stream: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    deadline: Option<Instant>,
    /// When the idle timeout strikes unless progress is reported before.
    idle_deadline: Instant,
    idle: Duration,
    idle_ms: i32,
    timeout_ms: i32,
    /// Whether the server answered with a plain JSON document instead of an event stream.
    pub is_json: bool,
}

/// The client for `url`. Plain `http` (local servers: Ollama, LM Studio, llama.cpp, the tests)
/// gets one that never loads the platform's certificate store: building that store took
/// ~4 ms, which a first run paid before its first byte (a one-chunk answer: 4.4 ms against
/// Qt's 0.9 ms). `https` gets the verifying client, built on first use.
fn client(url: &reqwest::Url) -> &'static reqwest::Client {
    static TLS: OnceLock<reqwest::Client> = OnceLock::new();
    static PLAIN: OnceLock<reqwest::Client> = OnceLock::new();
    let builder = || {
        // reqwest is built without a bundled crypto provider; `Err` means the host already
        // installed one, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder().pool_idle_timeout(Duration::from_secs(90)).referer(false)
    };
    if url.scheme() == "https" {
        return TLS.get_or_init(|| builder().build().unwrap_or_else(|_| reqwest::Client::new()));
    }
    PLAIN.get_or_init(|| {
        let builder = builder(); // first: installs the crypto provider the config below needs
        // It trusts no certificate, so it must never speak TLS: a redirect to https is refused
        // (with the reason in the failure) instead of being followed.
        let no_roots = rustls::ClientConfig::builder()
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth();
        let redirects = reqwest::redirect::Policy::custom(|attempt| {
            if attempt.url().scheme() != "http" {
                attempt.error("the server redirects to https; use the https url for this model")
            } else if attempt.previous().len() >= 10 {
                attempt.error("too many redirects")
            } else {
                attempt.follow()
            }
        });
        builder
            .tls_backend_preconfigured(no_roots)
            .redirect(redirects)
            .build()
            .unwrap_or_else(|_| reqwest::Client::new())
    })
}

/// `<base path without trailing slashes>/chat/completions`, keeping the base url's query
/// (`…/deployments/x?api-version=…`: Azure OpenAI and other gateways, SPEC §H.1.8); http or
/// https only.
pub fn endpoint(base_url: &str) -> Result<reqwest::Url, Failure> {
    let mut url = reqwest::Url::parse(base_url.trim())
        .map_err(|e| Failure::new(Kind::InvalidUrl, format!("Model url \"{base_url}\" is not a valid URL: {e}")))?;
    match url.scheme() {
        "http" | "https" => {}
        other => {
            return Err(Failure::new(
                Kind::UrlSchemeRejected,
                format!("Only http and https model urls are allowed, not \"{other}\""),
            ));
        }
    }
    let path = format!("{}/chat/completions", url.path().trim_end_matches('/'));
    url.set_path(&path);
    url.set_fragment(None);
    Ok(url)
}

pub async fn open(request: Request<'_>) -> Result<Body, Failure> {
    let url = endpoint(request.base_url)?;
    let start = Instant::now();
    let deadline = (request.timeout_ms > 0).then(|| start + Duration::from_millis(request.timeout_ms as u64));
    let idle_ms = if request.idle_timeout_ms > 0 { request.idle_timeout_ms } else { crate::model::DEFAULT_IDLE_TIMEOUT_MS };
    let idle = Duration::from_millis(idle_ms as u64);
    let send = client(&url)
        .post(url.clone())
        .header(AUTHORIZATION, format!("Bearer {}", request.token))
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "text/event-stream")
        .body(request.body)
        .send();
    let limit = limit(deadline, idle);
    let response = match tokio::time::timeout_at(limit, send).await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => return Err(network_failure(&e, &url)),
        Err(_) => return Err(timeout_failure(deadline, limit, request.timeout_ms, idle_ms)),
    };
    let status = response.status();
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    let mut body = Body {
        stream: response.bytes_stream().boxed(),
        deadline,
        // Before the first event, idle counts from the headers (SPEC §H.1.7).
        idle_deadline: Instant::now() + idle,
        idle,
        idle_ms,
        timeout_ms: request.timeout_ms,
        is_json,
    };
    if !status.is_success() {
        let text = body.read_to_limit(ERROR_BODY_LIMIT).await.unwrap_or_default();
        let reason = status.canonical_reason().unwrap_or("");
        return Err(Failure::http(status.as_u16(), reason, &server_error_message(&text)));
    }
    Ok(body)
}

impl Body {
    /// The next piece of the body; `None` at its end. Bytes alone do not reset the idle
    /// timeout: `progressed` does.
    pub async fn next(&mut self) -> Result<Option<bytes::Bytes>, Failure> {
        let limit = self.deadline.map_or(self.idle_deadline, |d| d.min(self.idle_deadline));
        match tokio::time::timeout_at(limit, self.stream.next()).await {
            Ok(None) => Ok(None),
            Ok(Some(Ok(bytes))) => Ok(Some(bytes)),
            Ok(Some(Err(e))) => Err(body_failure(&e)),
            Err(_) => Err(timeout_failure(self.deadline, limit, self.timeout_ms, self.idle_ms)),
        }
    }

    /// Restarts the idle timeout: what arrived was progress (an event with data).
    pub fn progressed(&mut self) {
        self.idle_deadline = Instant::now() + self.idle;
    }

    /// Reads up to `max` bytes (lossy UTF-8), for error bodies and plain JSON answers; every
    /// byte of these is progress.
    pub async fn read_to_limit(&mut self, max: usize) -> Result<String, Failure> {
        let mut bytes = Vec::new();
        while bytes.len() < max {
            match self.next().await? {
                Some(piece) => {
                    self.progressed();
                    bytes.extend_from_slice(&piece[..piece.len().min(max - bytes.len())]);
                }
                None => break,
            }
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

fn limit(deadline: Option<Instant>, idle: Duration) -> Instant {
    let idle_limit = Instant::now() + idle;
    deadline.map_or(idle_limit, |d| d.min(idle_limit))
}

fn timeout_failure(deadline: Option<Instant>, hit: Instant, timeout_ms: i32, idle_ms: i32) -> Failure {
    if deadline == Some(hit) {
        Failure::new(Kind::Timeout, format!("No complete answer within the model's timeout of {timeout_ms} ms"))
    } else {
        Failure::new(Kind::IdleTimeout, format!("No data received for {idle_ms} ms"))
    }
}

/// The server's own words from an error body: `error.message`, a string `error`, a top-level
/// `message`, else the body text.
pub fn server_error_message(body: &str) -> String {
    if let Ok(serde_json::Value::Object(o)) = serde_json::from_str::<serde_json::Value>(body) {
        let found = match o.get("error") {
            Some(serde_json::Value::Object(e)) => e.get("message").and_then(|m| m.as_str()),
            Some(serde_json::Value::String(s)) => Some(s.as_str()),
            _ => o.get("message").and_then(|m| m.as_str()),
        };
        if let Some(message) = found {
            return message.to_owned();
        }
    }
    body.trim().to_owned()
}

fn io_kind(e: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    let mut source = Some(e);
    while let Some(err) = source {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        source = err.source();
    }
    None
}

/// The error's causes in one line (reqwest's own text repeats the URL, said separately).
fn describe(e: &reqwest::Error) -> String {
    let mut parts = Vec::new();
    let mut source = e.source();
    while let Some(err) = source {
        parts.push(err.to_string());
        source = err.source();
    }
    if parts.is_empty() { e.to_string() } else { parts.join(": ") }
}

fn network_failure(e: &reqwest::Error, url: &reqwest::Url) -> Failure {
    let host = format!("{}:{}", url.host_str().unwrap_or(""), url.port_or_known_default().unwrap_or(0));
    match io_kind(e) {
        Some(std::io::ErrorKind::ConnectionRefused) => {
            Failure::new(Kind::ConnectionRefused, format!("Connection to {host} refused"))
        }
        _ if e.is_connect() => Failure::new(Kind::ConnectionFailed, format!("Could not connect to {host}: {}", describe(e))),
        Some(std::io::ErrorKind::ConnectionReset) => {
            Failure::new(Kind::ConnectionReset, format!("Connection to {host} was reset: {}", describe(e)))
        }
        _ => Failure::new(Kind::NetworkError, format!("Request to {host} failed: {}", describe(e))),
    }
}

fn body_failure(e: &reqwest::Error) -> Failure {
    match io_kind(e) {
        Some(std::io::ErrorKind::ConnectionReset) => {
            Failure::new(Kind::ConnectionReset, "Connection reset before the answer was complete")
        }
        _ => Failure::new(Kind::NetworkError, format!("The answer could not be read to its end: {}", describe(e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_strips_trailing_slashes_and_rejects_other_schemes() {
        assert_eq!(endpoint("http://h:1/v1//").unwrap().as_str(), "http://h:1/v1/chat/completions");
        assert_eq!(endpoint("http://h:1").unwrap().as_str(), "http://h:1/chat/completions");
        assert_eq!(
            endpoint("https://r.openai.azure.com/openai/deployments/x/?api-version=2024-06-01#f").unwrap().as_str(),
            "https://r.openai.azure.com/openai/deployments/x/chat/completions?api-version=2024-06-01"
        );
        assert_eq!(endpoint("ftp://h/v1").unwrap_err().kind, Kind::UrlSchemeRejected);
        assert_eq!(endpoint("not a url").unwrap_err().kind, Kind::InvalidUrl);
    }

    #[test]
    fn server_error_message_forms() {
        assert_eq!(server_error_message(r#"{"error":{"message":"bad key"}}"#), "bad key");
        assert_eq!(server_error_message(r#"{"error":"quota"}"#), "quota");
        assert_eq!(server_error_message(r#"{"message":"m"}"#), "m");
        assert_eq!(server_error_message(" plain text\n"), "plain text");
    }
}
