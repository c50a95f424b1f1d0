//! Talking to the metadata, registration and token endpoints: one JSON object per answer, size
//! and time bounded, through the same proxy and TLS rules as the MCP server (SPEC §H.1.1), and
//! failures that name the endpoint and the server's OAuth error but never echo a secret.

use super::super::http;
use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Map, Value};
use std::time::Duration;

/// Bounds each request to an authorization server, answer included.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
const BODY_LIMIT: usize = 1 << 20;

/// An endpoint's url: https, or http on a loopback host (a local test or development server);
/// the authorization spec allows nothing else.
pub fn checked_url(text: &str, what: &str) -> Result<Url, String> {
    let url = http::url(text).map_err(|e| format!("the {what}: {e}"))?;
    let loopback = match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if url.scheme() != "https" && !loopback {
        return Err(format!("the {what} {url} is not https"));
    }
    Ok(url)
}

pub enum Body {
    Form(Vec<(&'static str, String)>),
    Json(Value),
}

/// An answer: its status and its JSON object (empty when the body was none).
pub struct Answer {
    pub status: reqwest::StatusCode,
    pub object: Map<String, Value>,
}

impl Answer {
    /// "HTTP 400 Bad Request: invalid_grant (the code expired)": the OAuth error fields only.
    pub fn refusal(&self) -> String {
        let field = |key: &str| self.object.get(key).and_then(Value::as_str).map(|s| s.chars().take(300).collect::<String>());
        match (field("error"), field("error_description")) {
            (Some(error), Some(description)) => format!("HTTP {}: {error} ({description})", self.status),
            (Some(error), None) => format!("HTTP {}: {error}", self.status),
            _ => format!("HTTP {}", self.status),
        }
    }
}

pub async fn get(url: &Url) -> Result<Answer, String> {
    let client = http::client(url)?;
    let request = client.http.get(url.clone()).header(ACCEPT, "application/json");
    exchange(url, &client, request).await
}

pub async fn post(url: &Url, body: Body) -> Result<Answer, String> {
    let client = http::client(url)?;
    let request = client.http.post(url.clone()).header(ACCEPT, "application/json");
    let request = match body {
        Body::Form(fields) => {
            let text = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish();
            request.header(CONTENT_TYPE, "application/x-www-form-urlencoded").body(text)
        }
        Body::Json(value) => request.header(CONTENT_TYPE, "application/json").body(value.to_string()),
    };
    exchange(url, &client, request).await
}

async fn exchange(url: &Url, client: &crate::network::Client, request: reqwest::RequestBuilder) -> Result<Answer, String> {
    let answer = async {
        let response = request.send().await.map_err(|e| http::describe(&e, client))?;
        let status = response.status();
        let body = http::read_limited(response, BODY_LIMIT, || format!("the answer is larger than {} KiB", BODY_LIMIT >> 10)).await?;
        let object = match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(object)) => object,
            _ if body.iter().all(u8::is_ascii_whitespace) || !status.is_success() => Map::new(),
            _ => return Err(format!("HTTP {status}, but the answer is not a JSON object")),
        };
        Ok(Answer { status, object })
    };
    tokio::time::timeout(REQUEST_TIMEOUT, answer)
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {} s", REQUEST_TIMEOUT.as_secs())))
        .map_err(|e| format!("{}: {e}", without_query(url)))
}

/// A url as failure texts show it: no query, which may carry a code or token.
pub fn without_query(url: &Url) -> String {
    let mut shown = url.clone();
    shown.set_query(None);
    shown.set_fragment(None);
    shown.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_https_or_loopback() {
        assert!(checked_url("https://as.example/token", "token endpoint").is_ok());
        assert!(checked_url("http://127.0.0.1:9/token", "token endpoint").is_ok());
        assert!(checked_url("http://localhost/token", "token endpoint").is_ok());
        assert!(checked_url("http://[::1]:8/t", "token endpoint").is_ok());
        let e = checked_url("http://as.example/token", "token endpoint").unwrap_err();
        assert_eq!(e, "the token endpoint http://as.example/token is not https");
        assert!(checked_url("ftp://127.0.0.1/", "token endpoint").is_err());
    }

    #[test]
    fn a_refusal_names_only_the_oauth_error() {
        let mut object = Map::new();
        object.insert("error".into(), "invalid_grant".into());
        object.insert("refresh_token".into(), "SECRET".into());
        let answer = Answer { status: reqwest::StatusCode::BAD_REQUEST, object };
        assert_eq!(answer.refusal(), "HTTP 400 Bad Request: invalid_grant");
    }
}
