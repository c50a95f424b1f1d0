//! OAuth 2.1 for MCP servers over HTTP (SPEC §H.4.6; the MCP authorization spec, 2025-11-25).
//!
//! A server that answers 401 (or 403 `insufficient_scope`) gets new tokens before the request
//! is sent again: first by refreshing, then by authorizing — discovery (`discovery`), the
//! configured client id or dynamic registration (`registration`), PKCE (`pkce`), the authorize
//! url announced to the Centers that use the server (`mcpAuthorizationRequired`), the browser's
//! redirect to the loopback listener (`loopback`) and the code exchange (`grant`). Every
//! request carries the access token; one about to expire is refreshed first. New tokens are
//! announced (`mcpTokensChanged`) for the application to keep and give back
//! (`MCP::setOAuthTokens`, `tokens`).
//!
//! One [`Authorization`] per pooled server outlives its connections, so a reconnect keeps the
//! newest tokens; one flow at a time runs for it, and requests refused together recover once.
//!
//! Of revision 2026-07-28 (SPEC §I.3.6): a configured client id that is an https url is the
//! url of a Client ID Metadata Document and is used as is where the authorization server
//! advertises `client_id_metadata_document_supported` (no registration); the answer's `iss`
//! is checked (RFC 9207, `loopback::Issuer`); a `403 insufficient_scope` leads to one new
//! authorization for the union of the scopes held and those the server wants (`Renewals`).

mod challenge;
mod discovery;
mod endpoint;
mod grant;
mod loopback;
mod pkce;
mod registration;
mod renewal;

pub use challenge::Challenge;
pub(crate) use renewal::Renewals;
#[cfg(fuzzing)]
pub use challenge::bearer_params;
#[cfg(fuzzing)]
pub use discovery::read_auth_server;
#[cfg(fuzzing)]
pub use grant::read_tokens;
#[cfg(fuzzing)]
pub use loopback::{Redirect, read_redirect};
/// The tokens are a value of the entry (`crate::mcp`); the flow here fills them.
pub use crate::mcp::tokens::{self, Tokens};

use super::Listeners;
use crate::mcp::Mcp;
use loopback::{Issuer, Loopback};
use pkce::Pkce;
use reqwest::header::HeaderValue;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long the user has to complete an authorization in the browser.
pub const AUTHORIZATION_TIMEOUT: Duration = Duration::from_secs(300);

pub(crate) struct Authorization {
    /// The entry's name, as the announcements carry it.
    server: String,
    url: String,
    listeners: Arc<Listeners>,
    state: Mutex<State>,
    /// One refresh or authorization at a time.
    flow: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    tokens: Tokens,
    client_id: String,
    /// The tokens the application gave last, to notice when it gives others.
    given: Tokens,
    /// Counts new tokens, so that requests refused together recover once.
    generation: u64,
}

impl Authorization {
    pub fn new(config: &Mcp, listeners: Arc<Listeners>) -> Authorization {
        let authorization = Authorization {
            server: config.name.clone(),
            url: config.url.clone(),
            listeners,
            state: Mutex::new(State::default()),
            flow: tokio::sync::Mutex::new(()),
        };
        authorization.adopt(config);
        authorization
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the entry's client id, and its tokens when the application gave other ones than
    /// last time. Otherwise the newest (refreshed) stay — also for an entry without tokens,
    /// e.g. a dialog's own entry for the same server.
    pub fn adopt(&self, config: &Mcp) {
        let mut state = self.state();
        state.client_id = config.oauth_client_id.clone();
        if !config.oauth_tokens.is_empty() && config.oauth_tokens != state.given {
            state.given = config.oauth_tokens.clone();
            state.tokens = config.oauth_tokens.clone();
            state.generation += 1;
        }
    }

    /// The `Authorization` header for the next request (none before any authorization) and the
    /// generation of its token; an access token about to expire is refreshed first.
    pub async fn bearer(&self) -> (Option<HeaderValue>, u64) {
        let due = |t: &Tokens| t.can_refresh() && t.expires_soon(tokens::now());
        if due(&self.state().tokens) {
            let _flow = self.flow.lock().await;
            let current = self.state().tokens.clone();
            if due(&current) {
                match grant::refresh(&current).await {
                    Ok(new) => self.store(new),
                    // Spent: the server's 401 leads to a new authorization.
                    Err(refusal) if refusal.refused => self.state().tokens.refresh_token.clear(),
                    Err(_) => {}
                }
            }
        }
        let state = self.state();
        crate::redact::register(&state.tokens.access_token);
        crate::redact::register(&state.tokens.refresh_token);
        let header = (!state.tokens.access_token.is_empty())
            .then(|| HeaderValue::from_str(&format!("Bearer {}", state.tokens.access_token)).ok())
            .flatten()
            .map(|mut value| {
                value.set_sensitive(true);
                value
            });
        (header, state.generation)
    }

    /// After the server refused the token of `generation`: new tokens, by refreshing (unless
    /// `full` or the server wants another scope) or by authorizing again through the user.
    pub async fn recover(&self, challenge: &Challenge, generation: u64, full: bool) -> Result<(), String> {
        let _flow = self.flow.lock().await;
        if self.state().generation != generation {
            return Ok(());
        }
        let current = self.state().tokens.clone();
        if !full
            && !challenge.wants_scope()
            && current.can_refresh()
            && let Ok(new) = grant::refresh(&current).await
        {
            self.store(new);
            return Ok(());
        }
        let new = self.authorize(challenge, &current).await.map_err(|e| format!("the server requires authorization: {e}"))?;
        self.store(new);
        Ok(())
    }

    fn store(&self, tokens: Tokens) {
        {
            let mut state = self.state();
            state.tokens = tokens.clone();
            state.generation += 1;
        }
        self.listeners.tokens_changed(&self.server, &tokens);
    }

    /// The authorization-code flow with PKCE; `current` may hold a registration to reuse.
    async fn authorize(&self, challenge: &Challenge, current: &Tokens) -> Result<Tokens, String> {
        let server_url = super::http::url(&self.url)?;
        let found = discovery::discover(&server_url, challenge).await?;
        let configured = self.state().client_id.clone();
        // Step-up (SPEC §I.3.6): what is held stays asked for, with what the server wants.
        let scope = if challenge.wants_scope() { union_of_scopes(&current.scope, found.scope.as_deref()) } else { found.scope.clone() };
        let token_endpoint = found.token_endpoint.to_string();
        let bind = |port: u16| async move {
            Loopback::bind(port).await.map_err(|e| format!("the loopback redirect listener could not listen: {e}"))
        };
        let document = is_metadata_document(&configured);
        let (loopback, client_id, client_secret) = if found.client_id_metadata_documents && document {
            // SPEC §I.3.6: the authorization server fetches the document itself.
            (bind(0).await?, configured, String::new())
        } else if !configured.is_empty() && (!document || found.registration_endpoint.is_none()) {
            // A pre-registered id — or a document url the server cannot read and no
            // registration instead: given as is, for the server to judge.
            (bind(0).await?, configured, String::new())
        } else if let Some(reused) = reusable(current, &token_endpoint).await {
            (reused, current.client_id.clone(), current.client_secret.clone())
        } else {
            let endpoint = found.registration_endpoint.as_ref().ok_or(
                "the authorization server offers no dynamic client registration; configure a client id (MCP::setOAuthClientId)",
            )?;
            let loopback = bind(0).await?;
            let registered = registration::register(endpoint, &loopback.redirect_uri, scope.as_deref()).await?;
            (loopback, registered.client_id, registered.client_secret)
        };
        let client = Tokens {
            client_id,
            client_secret,
            redirect_uri: loopback.redirect_uri.clone(),
            token_endpoint,
            resource: found.resource.clone(),
            scope: scope.clone().unwrap_or_default(),
            ..Tokens::default()
        };
        let pkce = Pkce::new()?;
        let state = pkce::random_text(16)?;
        let mut url = found.authorization_endpoint.clone();
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &client.redirect_uri)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", &client.resource);
            if let Some(scope) = &scope {
                query.append_pair("scope", scope);
            }
        }
        if !self.listeners.authorization_required(&self.server, url.as_str()) {
            return Err("no Center is there to open the authorization url (mcpAuthorizationRequired)".to_owned());
        }
        let issuer = Issuer { issuer: &found.issuer, required: found.iss_required };
        let code = loopback.wait(&state, &issuer, AUTHORIZATION_TIMEOUT).await?;
        grant::exchange_code(&client, code, pkce.verifier).await
    }
}

/// A client id that names a Client ID Metadata Document: an https url with a path (or, as for
/// every endpoint here, http on a loopback host, for local development and tests).
fn is_metadata_document(client_id: &str) -> bool {
    endpoint::checked_url(client_id, "client id").is_ok_and(|url| !url.path().trim_matches('/').is_empty())
}

/// The scopes held and those asked for, each once, in that order; none when both are empty.
fn union_of_scopes(held: &str, wanted: Option<&str>) -> Option<String> {
    let mut all: Vec<&str> = Vec::new();
    for scope in held.split_ascii_whitespace().chain(wanted.unwrap_or_default().split_ascii_whitespace()) {
        if !all.contains(&scope) {
            all.push(scope);
        }
    }
    (!all.is_empty()).then(|| all.join(" "))
}

/// The loopback listener for a dynamic registration the tokens came with, on the port it was
/// registered for — if that registration is with this token endpoint and the port is free.
async fn reusable(current: &Tokens, token_endpoint: &str) -> Option<Loopback> {
    if current.client_id.is_empty() || current.token_endpoint != token_endpoint {
        return None;
    }
    let port = reqwest::Url::parse(&current.redirect_uri).ok()?.port()?;
    let loopback = Loopback::bind(port).await.ok()?;
    (loopback.redirect_uri == current.redirect_uri).then_some(loopback)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(auth: &Authorization) -> String {
        auth.state().tokens.access_token.clone()
    }

    #[test]
    fn step_up_asks_for_the_union_of_scopes() {
        assert_eq!(union_of_scopes("notes", Some("admin notes")).as_deref(), Some("notes admin"));
        assert_eq!(union_of_scopes("", Some("admin")).as_deref(), Some("admin"));
        assert_eq!(union_of_scopes(" a  b ", None).as_deref(), Some("a b"));
        assert_eq!(union_of_scopes("", None), None);
    }

    #[test]
    fn only_urls_with_a_path_name_metadata_documents() {
        assert!(is_metadata_document("https://app.example/client.json"));
        assert!(is_metadata_document("http://127.0.0.1:8/client.json"));
        assert!(!is_metadata_document("https://app.example/"));
        assert!(!is_metadata_document("http://app.example/client.json"));
        assert!(!is_metadata_document("vi-test-app"));
        assert!(!is_metadata_document(""));
    }

    #[test]
    fn the_applications_tokens_replace_the_kept_ones_only_when_they_change() {
        let mut entry = Mcp::new("notes");
        entry.oauth_tokens.access_token = "given".into();
        let auth = Authorization::new(&entry, Arc::default());
        assert_eq!(access(&auth), "given");
        auth.store(Tokens { access_token: "refreshed".into(), ..Tokens::default() });
        auth.adopt(&entry);
        auth.adopt(&Mcp::new("notes"));
        assert_eq!(access(&auth), "refreshed");
        entry.oauth_tokens.access_token = "signed in again".into();
        auth.adopt(&entry);
        assert_eq!(access(&auth), "signed in again");
    }
}
