//! What an MCP server's authorization leaves behind (SPEC §H.4.6): the access and refresh
//! tokens, when the access token expires, and the client they were issued to — everything a
//! later process needs to go on without asking the user again. The application stores them
//! (`mcpTokensChanged`) and hands them back (`MCP::setOAuthTokens`); they never appear in
//! logs, failure texts or the MCP/Dialog/Center JSON, so `Debug` shows no secret.

use crate::json;
use serde_json::{Map, Value};
use std::time::{Duration, SystemTime};

/// An access token this close to its expiry is refreshed before the next request.
pub const REFRESH_MARGIN: Duration = Duration::from_secs(60);

#[derive(Clone, PartialEq, Eq, Default)]
pub struct Tokens {
    pub access_token: String,
    pub refresh_token: String,
    /// Unix seconds; 0: the server named no lifetime.
    pub expires_at: u64,
    pub scope: String,
    /// The client the tokens belong to: the configured id or the dynamically registered one.
    pub client_id: String,
    /// Only for a registration that was given a secret (client_secret_post).
    pub client_secret: String,
    /// The loopback uri a dynamic registration was made for: reused so that it stays valid.
    pub redirect_uri: String,
    /// Where the tokens are refreshed, so that a refresh needs no discovery.
    pub token_endpoint: String,
    /// The resource (RFC 8707) the tokens were asked for: the MCP server.
    pub resource: String,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("client_id", &self.client_id)
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("has_refresh_token", &!self.refresh_token.is_empty())
            .finish_non_exhaustive()
    }
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl Tokens {
    pub fn is_empty(&self) -> bool {
        self.access_token.is_empty() && self.refresh_token.is_empty()
    }

    /// Refresh first: the access token expires within [`REFRESH_MARGIN`] of `now`.
    pub fn expires_soon(&self, now: u64) -> bool {
        self.expires_at != 0 && now + REFRESH_MARGIN.as_secs() >= self.expires_at
    }

    pub fn can_refresh(&self) -> bool {
        !self.refresh_token.is_empty() && !self.token_endpoint.is_empty() && !self.client_id.is_empty()
    }

    /// camelCase keys, each only when set.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        let mut put = |key: &str, value: &str| {
            if !value.is_empty() {
                o.insert(key.to_owned(), Value::from(value));
            }
        };
        put("accessToken", &self.access_token);
        put("refreshToken", &self.refresh_token);
        put("scope", &self.scope);
        put("clientId", &self.client_id);
        put("clientSecret", &self.client_secret);
        put("redirectUri", &self.redirect_uri);
        put("tokenEndpoint", &self.token_endpoint);
        put("resource", &self.resource);
        if self.expires_at != 0 {
            o.insert("expiresAt".to_owned(), Value::from(self.expires_at));
        }
        Value::Object(o)
    }

    /// Forgiving like every `from_json` (SPEC §F): what is missing or mistyped reads as unset.
    pub fn from_json(o: &Map<String, Value>) -> Tokens {
        Tokens {
            access_token: json::string(o, "accessToken"),
            refresh_token: json::string(o, "refreshToken"),
            expires_at: u64::try_from(json::int(o, "expiresAt")).unwrap_or(0),
            scope: json::string(o, "scope"),
            client_id: json::string(o, "clientId"),
            client_secret: json::string(o, "clientSecret"),
            redirect_uri: json::string(o, "redirectUri"),
            token_endpoint: json::string(o, "tokenEndpoint"),
            resource: json::string(o, "resource"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_round_trip_writes_only_what_is_set() {
        let t = Tokens { access_token: "a".into(), expires_at: 10, client_id: "c".into(), ..Tokens::default() };
        assert_eq!(t.to_json(), json!({"accessToken": "a", "clientId": "c", "expiresAt": 10}));
        assert_eq!(Tokens::from_json(t.to_json().as_object().unwrap()), t);
        assert_eq!(Tokens::from_json(json!({"expiresAt": -5, "accessToken": 3}).as_object().unwrap()), Tokens::default());
    }

    #[test]
    fn debug_shows_no_secret() {
        let t = Tokens { access_token: "SECRET-A".into(), refresh_token: "SECRET-R".into(), client_secret: "SECRET-C".into(), ..Tokens::default() };
        assert!(!format!("{t:?}").contains("SECRET"));
    }

    #[test]
    fn expiry_uses_the_margin() {
        let t = Tokens { expires_at: 1000, ..Tokens::default() };
        assert!(!t.expires_soon(1000 - REFRESH_MARGIN.as_secs() - 1));
        assert!(t.expires_soon(1000 - REFRESH_MARGIN.as_secs()));
        assert!(!Tokens::default().expires_soon(u64::MAX / 2));
    }
}
