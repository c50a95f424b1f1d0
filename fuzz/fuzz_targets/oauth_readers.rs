//! What the OAuth client reads from authorization servers and MCP servers
//! (`src/mcp_client/oauth/`, SPEC §H.4.6, §I.3.6): the authorization server's metadata document
//! (endpoints and the 2026 flags), the token endpoint's response, and the `WWW-Authenticate`
//! values of a 401/403 (the step-up challenge). None may panic; what they take comes from the
//! input and keeps its rules (endpoints https or loopback, flags only when `true`, a token
//! only when the answer names one).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use visindigo_agent::OAuthTokens;
use visindigo_agent::fuzz::{Challenge, read_auth_server, read_tokens};

const NOW: u64 = 1_000_000;

fuzz_target!(|data: &[u8]| {
    if let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(data) {
        if let Ok(found) = read_auth_server(&object, "resource".into(), None) {
            for url in [Some(&found.authorization_endpoint), Some(&found.token_endpoint), found.registration_endpoint.as_ref()].into_iter().flatten() {
                let loopback = matches!(url.host_str(), Some("localhost" | "127.0.0.1" | "[::1]")) || url.host_str().is_some_and(|h| h.starts_with("127."));
                assert!(url.scheme() == "https" || (url.scheme() == "http" && loopback), "{url} is neither https nor loopback");
            }
            assert_eq!(found.client_id_metadata_documents, object.get("client_id_metadata_document_supported") == Some(&Value::Bool(true)));
            assert_eq!(found.iss_required, object.get("authorization_response_iss_parameter_supported") == Some(&Value::Bool(true)));
        }
        let client = OAuthTokens { client_id: "c".into(), refresh_token: "kept".into(), ..OAuthTokens::default() };
        if let Ok(tokens) = read_tokens(&object, &client, NOW) {
            assert_eq!(Some(tokens.access_token.as_str()), object.get("access_token").and_then(Value::as_str));
            assert!(tokens.expires_at == 0 || tokens.expires_at > NOW, "expires in the past: {}", tokens.expires_at);
            assert_eq!(tokens.client_id, "c");
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let challenge = Challenge::from_values(text.split('\n'));
        for value in [&challenge.error, &challenge.scope, &challenge.resource_metadata].into_iter().flatten() {
            assert!(value.len() <= text.len(), "{value:?} is longer than {text:?}");
        }
        assert_eq!(challenge.wants_scope(), challenge.error.as_deref() == Some("insufficient_scope"));
    }
});
