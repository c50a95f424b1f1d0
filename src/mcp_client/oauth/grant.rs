//! The token endpoint (OAuth 2.1 §4.1.3, §4.3): the authorization code exchanged for tokens,
//! and tokens refreshed, both bound to the MCP server as the resource (RFC 8707).

use super::endpoint::{self, Body, checked_url};
use crate::mcp::tokens::{Tokens, now};
use serde_json::Value;

/// Why no tokens came.
pub struct Refusal {
    /// The token endpoint answered and refused (the refresh token is spent); otherwise it was
    /// not reached or answered nonsense.
    pub refused: bool,
    pub reason: String,
}

/// Exchanges `code`; `client` holds the client, the token endpoint, the resource and the
/// redirect uri the code was issued for.
pub async fn exchange_code(client: &Tokens, code: String, verifier: String) -> Result<Tokens, String> {
    let fields = vec![
        ("grant_type", "authorization_code".to_owned()),
        ("code", code),
        ("redirect_uri", client.redirect_uri.clone()),
        ("code_verifier", verifier),
    ];
    request(client, fields).await.map_err(|e| format!("exchanging the authorization code failed: {}", e.reason))
}

/// New tokens for `tokens`' refresh token; a server that sends no new refresh token keeps the
/// old one valid.
pub async fn refresh(tokens: &Tokens) -> Result<Tokens, Refusal> {
    let fields = vec![("grant_type", "refresh_token".to_owned()), ("refresh_token", tokens.refresh_token.clone())];
    request(tokens, fields).await
}

async fn request(client: &Tokens, mut fields: Vec<(&'static str, String)>) -> Result<Tokens, Refusal> {
    let failed = |reason: String| Refusal { refused: false, reason };
    let url = checked_url(&client.token_endpoint, "token endpoint").map_err(failed)?;
    fields.push(("client_id", client.client_id.clone()));
    if !client.client_secret.is_empty() {
        fields.push(("client_secret", client.client_secret.clone()));
    }
    if !client.resource.is_empty() {
        fields.push(("resource", client.resource.clone()));
    }
    let answer = endpoint::post(&url, Body::Form(fields)).await.map_err(failed)?;
    if !answer.status.is_success() {
        return Err(Refusal { refused: answer.status.is_client_error(), reason: format!("the token endpoint refused: {}", answer.refusal()) });
    }
    read_tokens(&answer.object, client, now()).map_err(failed)
}

/// The token response (OAuth 2.1 §3.2.3) on top of what `client` already holds (the
/// `oauth_readers` fuzz target drives this).
pub fn read_tokens(answer: &serde_json::Map<String, Value>, client: &Tokens, now: u64) -> Result<Tokens, String> {
    let text = |key: &str| answer.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let access_token = text("access_token").ok_or("the token response has no access_token")?;
    if let Some(kind) = text("token_type").filter(|t| !t.eq_ignore_ascii_case("bearer")) {
        return Err(format!("the token type \"{kind}\" is not Bearer"));
    }
    let lifetime = answer.get("expires_in").and_then(crate::json::integral).filter(|&s| s > 0);
    Ok(Tokens {
        access_token,
        refresh_token: text("refresh_token").unwrap_or_else(|| client.refresh_token.clone()),
        expires_at: lifetime.map_or(0, |s| now.saturating_add(s as u64)),
        scope: text("scope").unwrap_or_else(|| client.scope.clone()),
        ..client.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_response_updates_the_tokens_and_keeps_the_client() {
        let client = Tokens { client_id: "c".into(), refresh_token: "old".into(), scope: "s".into(), ..Tokens::default() };
        let t = read_tokens(&answer(json!({"access_token": "a", "token_type": "bearer", "expires_in": 30})), &client, 100).unwrap();
        assert_eq!((t.access_token.as_str(), t.expires_at, t.refresh_token.as_str()), ("a", 130, "old"));
        assert_eq!((t.client_id.as_str(), t.scope.as_str()), ("c", "s"));
        let t = read_tokens(&answer(json!({"access_token": "b", "refresh_token": "new", "scope": "x"})), &client, 100).unwrap();
        assert_eq!((t.expires_at, t.refresh_token.as_str(), t.scope.as_str()), (0, "new", "x"));
    }

    #[test]
    fn a_response_without_a_bearer_token_is_refused() {
        let client = Tokens::default();
        assert!(read_tokens(&answer(json!({"token_type": "Bearer"})), &client, 0).unwrap_err().contains("no access_token"));
        assert!(read_tokens(&answer(json!({"access_token": "a", "token_type": "mac"})), &client, 0).unwrap_err().contains("not Bearer"));
    }
}
