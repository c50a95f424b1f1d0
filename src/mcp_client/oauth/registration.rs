//! Dynamic client registration (RFC 7591) when the application configured no client id: a
//! public client (no secret, PKCE) for the loopback redirect uri of this authorization.

use super::endpoint::{self, Body};
use reqwest::Url;
use serde_json::{Value, json};

pub struct Registered {
    pub client_id: String,
    /// Only when the server insisted on giving one (then sent as client_secret_post).
    pub client_secret: String,
}

pub async fn register(registration_endpoint: &Url, redirect_uri: &str, scope: Option<&str>) -> Result<Registered, String> {
    let mut metadata = json!({
        "client_name": "Visindigo Agent",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    if let Some(scope) = scope {
        metadata["scope"] = Value::from(scope);
    }
    let answer = endpoint::post(registration_endpoint, Body::Json(metadata))
        .await
        .map_err(|e| format!("registering the client failed: {e}"))?;
    if !answer.status.is_success() {
        return Err(format!("registering the client at {registration_endpoint} was refused: {}", answer.refusal()));
    }
    let text = |key: &str| answer.object.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let client_id = text("client_id");
    if client_id.is_empty() {
        return Err(format!("the registration at {registration_endpoint} gave no client_id"));
    }
    Ok(Registered { client_id, client_secret: text("client_secret") })
}
