//! Why a run failed, in the `[Kind] text (HTTP status)` form of SPEC §D.1.7 and §F, and whether
//! the failure allows falling back to the next model (SPEC §E.2).

use std::fmt;

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
    Aborted,
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
            Kind::Aborted => "Aborted",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub kind: Kind,
    pub text: String,
    /// The HTTP status, when one was received.
    pub status: Option<u16>,
}

impl Failure {
    pub fn new(kind: Kind, text: impl Into<String>) -> Failure {
        Failure { kind, text: text.into(), status: None }
    }

    pub fn http(status: u16, reason: &str, server_message: &str) -> Failure {
        let mut text = format!("Server returned HTTP {status} {reason}");
        if !server_message.is_empty() {
            text.push_str(": ");
            text.push_str(server_message);
        }
        Failure { kind: Kind::HttpStatusError, text, status: Some(status) }
    }

    /// Connection failures, timeouts, 408, 429 and 5xx: another model may well succeed.
    pub fn is_retryable(&self) -> bool {
        match self.kind {
            Kind::ConnectionRefused | Kind::ConnectionFailed | Kind::Timeout | Kind::IdleTimeout => true,
            Kind::HttpStatusError => matches!(self.status, Some(408 | 429 | 500..=599)),
            _ => false,
        }
    }

    /// The message for `runFailed`, with the token (when one is given) replaced by `***`.
    pub fn message(&self, token: &str) -> String {
        let message = self.to_string();
        if token.is_empty() { message } else { message.replace(token, "***") }
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
        assert_eq!(Failure::new(Kind::Timeout, "echo sk-123 back").message("sk-123"), "[Timeout] echo *** back");
    }

    #[test]
    fn retryable_failures() {
        for status in [408, 429, 500, 503] {
            assert!(Failure::http(status, "", "").is_retryable());
        }
        for status in [400, 401, 404] {
            assert!(!Failure::http(status, "", "").is_retryable());
        }
        assert!(Failure::new(Kind::IdleTimeout, "").is_retryable());
        assert!(!Failure::new(Kind::ConnectionReset, "").is_retryable());
        assert!(!Failure::new(Kind::ServerError, "").is_retryable());
    }
}
