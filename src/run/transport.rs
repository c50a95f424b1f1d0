//! HTTP for one attempt: POST the body, wait for the status, then hand out body bytes as they
//! arrive, enforcing the model's total and idle timeouts (SPEC §B.2). The idle timeout counts
//! from the last progress the caller reports (`Body::progressed`), not from the last byte, so
//! keep-alive comments cannot hold a run open (SPEC §H.1.7). Cancellation is the caller's:
//! dropping the future or the stream closes the connection. The client (proxy, TLS, redirects,
//! decompression) is `crate::network`'s; this file names what failed (SPEC §H.1.9).
//!
//! reqwest on tokio with rustls (ring): a maintained client with streaming bodies, connection
//! reuse and HTTP/2, and no OpenSSL or C toolchain beyond ring's small build.

use super::failure::{Failure, Kind};
use futures_util::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use crate::network::{self, Purpose};
use reqwest::header::HeaderMap;
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// Longest error body read to report the server's own error message.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// How many characters of an unreadable answer a `[ProtocolError]` quotes (SPEC §H.1.6).
const QUOTED_CHARS: usize = 200;

pub struct Request<'a> {
    /// The model's base url; `path` is appended.
    pub base_url: &'a str,
    /// The API's path (`/chat/completions`, …).
    pub path: &'a str,
    /// Added to the base url's query (Gemini's `alt=sse`).
    pub query: &'a [(&'static str, &'static str)],
    /// The headers that carry the token (the API's own).
    pub headers: Vec<(&'static str, String)>,
    /// Whether those headers must not follow a redirect to another origin.
    pub keyed: bool,
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
    status: u16,
    content_type: String,
    /// The first bytes received (enough for `QUOTED_CHARS` characters), to quote when the
    /// answer turns out to hold no event.
    head: Vec<u8>,
}

/// `<base path without trailing slashes><path>`, keeping the base url's query
/// (`…/deployments/x?api-version=…`: Azure OpenAI and other gateways, SPEC §H.1.8) and adding
/// the API's own; http or https only.
pub fn endpoint(base_url: &str, api_path: &str, query: &[(&str, &str)]) -> Result<reqwest::Url, Failure> {
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
    let path = format!("{}{api_path}", url.path().trim_end_matches('/'));
    url.set_path(&path);
    url.set_fragment(None);
    if !query.is_empty() {
        url.query_pairs_mut().extend_pairs(query);
    }
    Ok(url)
}

pub async fn open(request: Request<'_>) -> Result<Body, Failure> {
    let url = endpoint(request.base_url, request.path, request.query)?;
    let purpose = if request.keyed { Purpose::KeyedModel } else { Purpose::Model };
    let client = network::client(&url, purpose).map_err(|e| setup_failure(e, &url))?;
    let start = Instant::now();
    let deadline = (request.timeout_ms > 0).then(|| start + Duration::from_millis(request.timeout_ms as u64));
    let idle_ms = if request.idle_timeout_ms > 0 { request.idle_timeout_ms } else { crate::model::DEFAULT_IDLE_TIMEOUT_MS };
    let idle = Duration::from_millis(idle_ms as u64);
    let mut send = client.http.post(url.clone());
    for (name, value) in request.headers {
        send = send.header(name, value);
    }
    let send = send.header(CONTENT_TYPE, "application/json").header(ACCEPT, "text/event-stream").body(request.body).send();
    let limit = limit(deadline, idle);
    let response = match tokio::time::timeout_at(limit, send).await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => return Err(network_failure(&e, &url, client.proxy.as_deref())),
        Err(_) => return Err(timeout_failure(deadline, limit, request.timeout_ms, idle_ms)),
    };
    let status = response.status();
    let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    // The url without its query, which may hold a key.
    tracing::debug!(target: crate::log::HTTP, url = %format!("{}{}", url.origin().ascii_serialization(), url.path()),
        status = status.as_u16(), content_type = %content_type, ms = start.elapsed().as_millis() as u64, "response");
    let retry_after = retry_after(response.headers(), SystemTime::now());
    let mut body = Body {
        stream: response.bytes_stream().boxed(),
        deadline,
        // Before the first event, idle counts from the headers (SPEC §H.1.7).
        idle_deadline: Instant::now() + idle,
        idle,
        idle_ms,
        timeout_ms: request.timeout_ms,
        is_json: content_type.trim_start().starts_with("application/json"),
        status: status.as_u16(),
        content_type,
        head: Vec::new(),
    };
    if status.as_u16() == 407 && let Some(proxy) = &client.proxy {
        return Err(Failure::new(Kind::ProxyError, format!("proxy {proxy}: the proxy wants other credentials")).with_status(407));
    }
    if !status.is_success() {
        let text = body.read_to_limit(ERROR_BODY_LIMIT).await.unwrap_or_default();
        let reason = status.canonical_reason().unwrap_or("");
        let failure = Failure::http(status.as_u16(), reason, &server_error_message(&text));
        return Err(failure.with_retry_after(retry_after).with_body(text));
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
            Ok(Some(Ok(bytes))) => {
                let room = (QUOTED_CHARS * 4).saturating_sub(self.head.len());
                if room > 0 {
                    self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
                }
                Ok(Some(bytes))
            }
            Ok(Some(Err(e))) => Err(body_failure(&e)),
            Err(_) => Err(timeout_failure(self.deadline, limit, self.timeout_ms, self.idle_ms)),
        }
    }

    /// After the answer's end marker (`[DONE]`, `message_stop`, …): reads what is left of the
    /// body on a task of its own for a moment, so that the connection goes back to the pool for
    /// the next round instead of being closed mid-body. Found by the soak test: a fast reader
    /// dropped the body before its chunked terminator arrived, and the next round paid a new
    /// connection (on https a new TLS handshake).
    pub fn finish_in_background(self) {
        /// A server that keeps talking after its end marker loses the connection instead.
        const DRAIN_TIME: Duration = Duration::from_secs(1);
        const DRAIN_BYTES: usize = 64 * 1024;
        let mut stream = self.stream;
        tokio::spawn(async move {
            let drain = async {
                let mut read = 0;
                while let Some(Ok(bytes)) = stream.next().await {
                    read += bytes.len();
                    if read > DRAIN_BYTES {
                        break;
                    }
                }
            };
            let _ = tokio::time::timeout(DRAIN_TIME, drain).await;
        });
    }

    /// Restarts the idle timeout: what arrived was progress (an event with data).
    pub fn progressed(&mut self) {
        self.idle_deadline = Instant::now() + self.idle;
    }

    /// The failure for a 200 answer that held no event (SPEC §H.1.6): what arrived, quoted.
    pub fn unreadable(&self) -> Failure {
        let text = String::from_utf8_lossy(&self.head);
        let quoted: String = text.chars().take(QUOTED_CHARS).collect();
        let content_type = if self.content_type.is_empty() { "none" } else { &self.content_type };
        let what = if quoted.trim().is_empty() { "an empty body".to_owned() } else { format!("{quoted:?}") };
        Failure::new(
            Kind::ProtocolError,
            format!("HTTP {} with Content-Type {content_type} held no event and no completion: {what}", self.status),
        )
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

/// The first error of type `E` in `e`'s causes, looking inside `io::Error`s too (their
/// `source()` skips the error they wrap).
fn find<'a, E: std::error::Error + 'static>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a E> {
    let mut next = Some(e);
    while let Some(err) = next {
        if let Some(found) = err.downcast_ref::<E>() {
            return Some(found);
        }
        next = match err.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref) {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => err.source(),
        };
    }
    None
}

fn io_kind(e: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    find::<std::io::Error>(e).map(std::io::Error::kind)
}

/// The error's causes in one line, without reqwest's own text (it repeats the url, which the
/// failure says separately).
fn describe(e: &reqwest::Error) -> String {
    match std::error::Error::source(e) {
        Some(source) => network::describe(source),
        None => e.to_string(),
    }
}

fn setup_failure(e: network::SetupError, url: &reqwest::Url) -> Failure {
    match e {
        network::SetupError::Proxy(reason) => Failure::new(Kind::ProxyError, reason),
        network::SetupError::Tls(reason) => Failure::new(Kind::TlsError, format!("{}: {reason}", host_port(url))),
    }
}

fn host_port(url: &reqwest::Url) -> String {
    format!("{}:{}", url.host_str().unwrap_or(""), url.port_or_known_default().unwrap_or(0))
}

/// What a certificate problem means to a user.
fn tls_reason(e: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    match e {
        rustls::Error::InvalidCertificate(c) => match c {
            C::UnknownIssuer => "the certificate's issuer is not trusted (unknown issuer)".into(),
            C::Expired | C::ExpiredContext { .. } => "the certificate has expired".into(),
            C::NotValidYet | C::NotValidYetContext { .. } => "the certificate is not valid yet".into(),
            C::NotValidForName | C::NotValidForNameContext { .. } => "the certificate is for another host name".into(),
            C::Revoked => "the certificate was revoked".into(),
            C::BadSignature => "the certificate's signature is bad".into(),
            other => format!("the certificate was refused: {other}"),
        },
        rustls::Error::AlertReceived(rustls::AlertDescription::CertificateRequired) => {
            "the server requires a client certificate".into()
        }
        rustls::Error::AlertReceived(alert) => format!("the server ended the handshake ({alert:?})"),
        other => other.to_string(),
    }
}

fn network_failure(e: &reqwest::Error, url: &reqwest::Url, proxy: Option<&str>) -> Failure {
    let host = host_port(url);
    if let Some(tls) = find::<rustls::Error>(e) {
        return Failure::new(Kind::TlsError, format!("{host}: {}", tls_reason(tls)));
    }
    let causes = describe(e);
    if let Some(proxy) = proxy
        && e.is_connect()
    {
        // Before a connection to the model exists, everything is between us and the proxy.
        if causes.contains("proxy authorization required") {
            return Failure::new(Kind::ProxyError, format!("proxy {proxy}: the proxy wants other credentials")).with_status(407);
        }
        let reason = match io_kind(e) {
            Some(std::io::ErrorKind::ConnectionRefused) => "connection refused".to_owned(),
            _ => causes,
        };
        return Failure::new(Kind::ProxyError, format!("proxy {proxy}: {reason} (on the way to {host})"));
    }
    match io_kind(e) {
        Some(std::io::ErrorKind::ConnectionRefused) => {
            Failure::new(Kind::ConnectionRefused, format!("Connection to {host} refused"))
        }
        _ if e.is_connect() => Failure::new(Kind::ConnectionFailed, format!("Could not connect to {host}: {causes}")),
        Some(std::io::ErrorKind::ConnectionReset) => {
            Failure::new(Kind::ConnectionReset, format!("Connection to {host} was reset: {causes}"))
        }
        _ => Failure::new(Kind::NetworkError, format!("Request to {host} failed: {causes}")),
    }
}

/// The wait a 429/503 asks for: `retry-after-ms` (OpenAI, Anthropic), else `Retry-After` in
/// seconds or as an HTTP date (RFC 9110 §10.2.3).
fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).filter(|ms| ms.is_finite() && *ms >= 0.0) {
        return Some(Duration::from_secs_f64(ms.min(1e12) / 1000.0));
    }
    let value = header("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(1e9)));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
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
        let chat = "/chat/completions";
        let endpoint = |base: &str, path: &str| endpoint(base, path, &[]);
        assert_eq!(endpoint("http://h:1/v1//", chat).unwrap().as_str(), "http://h:1/v1/chat/completions");
        assert_eq!(endpoint("http://h:1", chat).unwrap().as_str(), "http://h:1/chat/completions");
        assert_eq!(endpoint("https://api.anthropic.com/v1/", "/messages").unwrap().as_str(), "https://api.anthropic.com/v1/messages");
        assert_eq!(
            endpoint("https://r.openai.azure.com/openai/deployments/x/?api-version=2024-06-01#f", chat).unwrap().as_str(),
            "https://r.openai.azure.com/openai/deployments/x/chat/completions?api-version=2024-06-01"
        );
        assert_eq!(endpoint("ftp://h/v1", chat).unwrap_err().kind, Kind::UrlSchemeRejected);
        assert_eq!(endpoint("not a url", chat).unwrap_err().kind, Kind::InvalidUrl);
    }

    #[test]
    fn the_apis_query_follows_the_base_urls() {
        let gemini = "/models/gemini-3-pro:streamGenerateContent";
        let url = super::endpoint("https://generativelanguage.googleapis.com/v1beta/", gemini, &[("alt", "sse")]).unwrap();
        assert_eq!(url.as_str(), "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse");
        let url = super::endpoint("https://gw/v1beta?tenant=a", gemini, &[("alt", "sse")]).unwrap();
        assert_eq!(url.as_str(), "https://gw/v1beta/models/gemini-3-pro:streamGenerateContent?tenant=a&alt=sse");
    }

    #[test]
    fn retry_after_forms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let hint = |pairs: &[(&'static str, &str)]| {
            let mut headers = HeaderMap::new();
            for (name, value) in pairs {
                headers.insert(*name, value.parse().unwrap());
            }
            retry_after(&headers, now)
        };
        assert_eq!(hint(&[("retry-after", "2")]), Some(Duration::from_secs(2)));
        assert_eq!(hint(&[("retry-after", "2"), ("retry-after-ms", "1500")]), Some(Duration::from_millis(1500)));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(hint(&[("retry-after", &later)]), Some(Duration::from_secs(30)));
        let past = httpdate::fmt_http_date(now - Duration::from_secs(30));
        assert_eq!(hint(&[("retry-after", &past)]), Some(Duration::ZERO));
        assert_eq!(hint(&[("retry-after", "soon")]), None);
        assert_eq!(hint(&[("retry-after", "-1")]), None);
        assert_eq!(hint(&[]), None);
    }

    #[test]
    fn server_error_message_forms() {
        assert_eq!(server_error_message(r#"{"error":{"message":"bad key"}}"#), "bad key");
        assert_eq!(server_error_message(r#"{"error":"quota"}"#), "quota");
        assert_eq!(server_error_message(r#"{"message":"m"}"#), "m");
        assert_eq!(server_error_message(" plain text\n"), "plain text");
    }
}
