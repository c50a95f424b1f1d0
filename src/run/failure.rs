//! Why a run failed, in the `[Kind] text (HTTP status)` form of SPEC §D.1.7 and §F, whether
//! the failure allows falling back to the next model (SPEC §E.2), and whether the provider's
//! chain may be tried again after it (SPEC §H.1.4).

use std::fmt;
use std::time::Duration;

/// The shortest token `message` masks.
const MIN_MASKED_TOKEN: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    ConnectionRefused,
    ConnectionFailed,
    ConnectionReset,
    NetworkError,
    Timeout,
    IdleTimeout,
    HttpStatusError,
    ServerError,
    UrlSchemeRejected,
    InvalidUrl,
    ProxyError,
    TlsError,
    ProtocolError,
    Aborted,
    /// The request does not fit the model's context window (SPEC §I.4): by the library's
    /// estimate, or by the provider's own answer.
    ContextOverflow,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::ConnectionRefused => "ConnectionRefused",
            Kind::ConnectionFailed => "ConnectionFailed",
            Kind::ConnectionReset => "ConnectionReset",
            Kind::NetworkError => "NetworkError",
            Kind::Timeout => "Timeout",
            Kind::IdleTimeout => "IdleTimeout",
            Kind::HttpStatusError => "HttpStatusError",
            Kind::ServerError => "ServerError",
            Kind::UrlSchemeRejected => "UrlSchemeRejected",
            Kind::InvalidUrl => "InvalidUrl",
            Kind::ProxyError => "ProxyError",
            Kind::TlsError => "TlsError",
            Kind::ProtocolError => "ProtocolError",
            Kind::Aborted => "Aborted",
            Kind::ContextOverflow => "ContextOverflow",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub kind: Kind,
    pub text: String,
    /// The HTTP status, when one was received (407 for a proxy that wants credentials).
    pub status: Option<u16>,
    /// How long the server asked to wait before trying again (`Retry-After`, `retry-after-ms`).
    pub retry_after: Option<Duration>,
    /// The server said, in the stream, that it is overloaded for now (Anthropic's
    /// `overloaded_error`): like HTTP 529, another model or a later pass may succeed.
    pub overloaded: bool,
    /// The server's error body as it came (HTTP failures; "" otherwise): the wire reads its
    /// codes (`context_length_exceeded`).
    pub body: String,
}

impl Failure {
    pub fn new(kind: Kind, text: impl Into<String>) -> Failure {
        Failure { kind, text: text.into(), status: None, retry_after: None, overloaded: false, body: String::new() }
    }

    /// A `[ServerError]` that falls back and is retried (SPEC §H.2.2).
    pub fn overloaded(text: impl Into<String>) -> Failure {
        Failure { overloaded: true, ..Failure::new(Kind::ServerError, text) }
    }

    pub fn http(status: u16, reason: &str, server_message: &str) -> Failure {
        let mut text = format!("Server returned HTTP {status} {reason}");
        if !server_message.is_empty() {
            text.push_str(": ");
            text.push_str(server_message);
        }
        Failure { kind: Kind::HttpStatusError, text, status: Some(status), retry_after: None, overloaded: false, body: String::new() }
    }

    pub fn with_status(mut self, status: u16) -> Failure {
        self.status = Some(status);
        self
    }

    pub fn with_body(mut self, body: String) -> Failure {
        self.body = body;
        self
    }

    /// The same failure as a `[ContextOverflow]` (the provider's overflow answer, SPEC §I.4.3).
    pub fn into_overflow(self) -> Failure {
        Failure { kind: Kind::ContextOverflow, ..self }
    }

    pub fn with_retry_after(mut self, wait: Option<Duration>) -> Failure {
        self.retry_after = wait;
        self
    }

    /// Connection failures (the proxy's included), timeouts, TLS and protocol failures, 408,
    /// 429 and 5xx (529 too): another model may well succeed (SPEC §E.2, §H.1.2, §H.1.6).
    pub fn falls_back(&self) -> bool {
        match self.kind {
            Kind::ConnectionRefused
            | Kind::ConnectionFailed
            | Kind::Timeout
            | Kind::IdleTimeout
            | Kind::ProxyError
            | Kind::TlsError
            | Kind::ProtocolError => true,
            Kind::HttpStatusError => matches!(self.status, Some(408 | 429 | 500..=599)),
            Kind::ServerError => self.overloaded,
            _ => false,
        }
    }

    /// Whether the same chain may heal after a wait (SPEC §H.1.4): not a timeout (the user's
    /// patience is spent), a certificate, a wrong base url, or a proxy refusing credentials.
    pub fn is_retried(&self) -> bool {
        self.falls_back()
            && !matches!(self.kind, Kind::Timeout | Kind::IdleTimeout | Kind::TlsError | Kind::ProtocolError)
            && !(self.kind == Kind::ProxyError && self.status == Some(407))
    }

    /// The message for `runFailed`, with the token and every other secret in use replaced by
    /// `***` (`redact.rs`). Tokens shorter than 8 characters are left alone: they are no
    /// secret, and replacing them would garble the message ("t" → "[Connec***ionRefused]").
    pub fn message(&self, token: &str) -> String {
        let message = self.to_string();
        let message = if token.len() < MIN_MASKED_TOKEN { message } else { message.replace(token, crate::redact::MASK) };
        crate::redact::redact(&message).into_owned()
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.kind.name(), self.text)?;
        match self.status {
            Some(status) if status >= 400 => write!(f, " (HTTP {status})"),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_forms() {
        assert_eq!(
            Failure::http(401, "Unauthorized", "bad key").to_string(),
            "[HttpStatusError] Server returned HTTP 401 Unauthorized: bad key (HTTP 401)"
        );
        assert_eq!(Failure::new(Kind::ServerError, "overloaded").to_string(), "[ServerError] overloaded");
        assert_eq!(Failure::new(Kind::Timeout, "echo sk-12345678 back").message("sk-12345678"), "[Timeout] echo *** back");
        assert_eq!(Failure::new(Kind::ConnectionRefused, "to h").message("t"), "[ConnectionRefused] to h");
    }

    #[test]
    fn failures_that_fall_back_and_failures_that_are_retried() {
        for status in [408, 429, 500, 503, 529] {
            assert!(Failure::http(status, "", "").falls_back());
            assert!(Failure::http(status, "", "").is_retried());
        }
        for status in [400, 401, 404] {
            assert!(!Failure::http(status, "", "").falls_back());
        }
        for kind in [Kind::IdleTimeout, Kind::Timeout, Kind::TlsError, Kind::ProtocolError] {
            assert!(Failure::new(kind, "").falls_back());
            assert!(!Failure::new(kind, "").is_retried(), "{kind:?}");
        }
        assert!(Failure::new(Kind::ProxyError, "").is_retried());
        assert!(!Failure::new(Kind::ProxyError, "").with_status(407).is_retried());
        assert!(!Failure::new(Kind::ConnectionReset, "").falls_back());
        assert!(!Failure::new(Kind::ServerError, "").falls_back());
        assert!(Failure::overloaded("Overloaded").falls_back() && Failure::overloaded("Overloaded").is_retried());
        assert_eq!(Failure::overloaded("Overloaded").to_string(), "[ServerError] Overloaded");
    }
}
