//! Finding the authorization server of an MCP server (MCP authorization, 2025-11-25): the
//! protected-resource metadata (RFC 9728) named by the 401's challenge or at its well-known
//! urls, then the authorization server's metadata (RFC 8414, or OpenID Connect discovery) at
//! the well-known urls its issuer gives. Of revision 2026-07-28 (SPEC §I.3.6) the metadata
//! also tells whether the server takes Client ID Metadata Documents and whether its
//! authorization responses carry `iss` (RFC 9207).

use super::challenge::Challenge;
use super::endpoint::{self, checked_url, without_query};
use reqwest::Url;
use serde_json::{Map, Value};

/// What an authorization needs to know of the server that grants it (no secret in it).
#[derive(Debug)]
pub struct AuthServer {
    pub authorization_endpoint: Url,
    pub token_endpoint: Url,
    pub registration_endpoint: Option<Url>,
    /// The metadata's `issuer`, as written: what an authorization response's `iss` must equal.
    pub issuer: String,
    /// `client_id_metadata_document_supported`: an https client id is taken as the url of the
    /// client's metadata document, no registration needed.
    pub client_id_metadata_documents: bool,
    /// `authorization_response_iss_parameter_supported`: a response without `iss` is refused.
    pub iss_required: bool,
    /// The resource indicator (RFC 8707) the tokens are asked for.
    pub resource: String,
    /// The challenge's scope, else the resource's `scopes_supported`; none: the server's default.
    pub scope: Option<String>,
}

pub async fn discover(server: &Url, challenge: &Challenge) -> Result<AuthServer, String> {
    let (resource, metadata) = protected_resource(server, challenge).await?;
    let issuer = metadata
        .get("authorization_servers")
        .and_then(Value::as_array)
        .and_then(|list| list.iter().find_map(Value::as_str))
        .ok_or("the protected resource metadata names no authorization server")?;
    let scope = challenge.scope.clone().or_else(|| {
        let scopes: Vec<&str> = metadata.get("scopes_supported")?.as_array()?.iter().filter_map(Value::as_str).collect();
        (!scopes.is_empty()).then(|| scopes.join(" "))
    });
    let found = authorization_server(issuer).await?;
    read_auth_server(&found, resource, scope)
}

/// The authorization server's metadata document (RFC 8414 §2), once its issuer is checked:
/// the endpoints (https or loopback) and the 2026 flags; a flag that is not `true` is off.
pub fn read_auth_server(found: &Map<String, Value>, resource: String, scope: Option<String>) -> Result<AuthServer, String> {
    let endpoint = |key: &str, what: &str| -> Result<Option<Url>, String> {
        found.get(key).and_then(Value::as_str).map(|text| checked_url(text, what)).transpose()
    };
    let flag = |key: &str| found.get(key).and_then(Value::as_bool).unwrap_or(false);
    Ok(AuthServer {
        authorization_endpoint: endpoint("authorization_endpoint", "authorization endpoint")?
            .ok_or("the authorization server's metadata has no authorization_endpoint")?,
        token_endpoint: endpoint("token_endpoint", "token endpoint")?.ok_or("the authorization server's metadata has no token_endpoint")?,
        registration_endpoint: endpoint("registration_endpoint", "registration endpoint")?,
        issuer: found.get("issuer").and_then(Value::as_str).unwrap_or_default().to_owned(),
        client_id_metadata_documents: flag("client_id_metadata_document_supported"),
        iss_required: flag("authorization_response_iss_parameter_supported"),
        resource,
        scope,
    })
}

/// The resource's metadata and the resource indicator it names (the server's url when none).
async fn protected_resource(server: &Url, challenge: &Challenge) -> Result<(String, Map<String, Value>), String> {
    let mut tried = Vec::new();
    if let Some(named) = &challenge.resource_metadata {
        tried.push(checked_url(named, "protected resource metadata url")?);
    }
    tried.extend(well_known(server, "oauth-protected-resource"));
    for url in &tried {
        let Ok(answer) = endpoint::get(url).await else { continue };
        if !answer.status.is_success() || !answer.object.contains_key("authorization_servers") {
            continue;
        }
        let resource = match answer.object.get("resource").and_then(Value::as_str) {
            Some(resource) => {
                check_resource(server, resource)?;
                resource.to_owned()
            }
            None => without_query(server),
        };
        return Ok((resource, answer.object));
    }
    Err(format!("no protected resource metadata at {}", shown(&tried)))
}

/// Tokens for another resource must never be asked for on this server's behalf (RFC 9728 §3.3):
/// the metadata's resource is the server's url or a prefix of it on the same origin.
fn check_resource(server: &Url, resource: &str) -> Result<(), String> {
    let matches = Url::parse(resource).is_ok_and(|r| {
        r.origin() == server.origin() && server.path().starts_with(r.path().trim_end_matches('/'))
    });
    if matches { Ok(()) } else { Err(format!("the protected resource metadata is for {resource}, not for {}", without_query(server))) }
}

/// The first of the issuer's metadata documents that describes it.
async fn authorization_server(issuer: &str) -> Result<Map<String, Value>, String> {
    let issuer_url = checked_url(issuer, "authorization server")?;
    let mut tried = well_known(&issuer_url, "oauth-authorization-server");
    tried.extend(well_known(&issuer_url, "openid-configuration"));
    if !issuer_url.path().trim_matches('/').is_empty() {
        // OpenID Connect's own place: appended to the issuer's path.
        if let Ok(url) = Url::parse(&format!("{}/.well-known/openid-configuration", issuer.trim_end_matches('/'))) {
            tried.push(url);
        }
    }
    for url in &tried {
        let Ok(answer) = endpoint::get(url).await else { continue };
        if !answer.status.is_success() {
            continue;
        }
        let named = answer.object.get("issuer").and_then(Value::as_str).unwrap_or_default();
        if named.trim_end_matches('/') != issuer.trim_end_matches('/') {
            return Err(format!("the metadata at {url} is for the issuer \"{named}\", not {issuer}"));
        }
        let s256 = answer
            .object
            .get("code_challenge_methods_supported")
            .and_then(Value::as_array)
            .is_some_and(|methods| methods.iter().any(|m| m == "S256"));
        if !s256 {
            return Err(format!("the authorization server {issuer} does not offer PKCE with S256"));
        }
        return Ok(answer.object);
    }
    Err(format!("no authorization server metadata at {}", shown(&tried)))
}

/// `<origin>/.well-known/<name><path>` and, for a url with a path, `<origin>/.well-known/<name>`.
fn well_known(url: &Url, name: &str) -> Vec<Url> {
    let path = url.path().trim_end_matches('/');
    let mut urls = Vec::new();
    let mut base = url.clone();
    base.set_query(None);
    base.set_fragment(None);
    for suffix in [path, ""] {
        base.set_path(&format!("/.well-known/{name}{suffix}"));
        if !urls.contains(&base) {
            urls.push(base.clone());
        }
    }
    urls
}

fn shown(urls: &[Url]) -> String {
    urls.iter().map(Url::as_str).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_urls_put_the_path_last_then_drop_it() {
        let url = Url::parse("http://127.0.0.1:5/mcp?x=1").unwrap();
        let got: Vec<String> = well_known(&url, "oauth-protected-resource").iter().map(|u| u.to_string()).collect();
        assert_eq!(got, ["http://127.0.0.1:5/.well-known/oauth-protected-resource/mcp", "http://127.0.0.1:5/.well-known/oauth-protected-resource"]);
        let root = Url::parse("https://as.example/").unwrap();
        assert_eq!(well_known(&root, "oauth-authorization-server").len(), 1);
    }

    #[test]
    fn the_2026_flags_are_on_only_when_true() {
        let metadata = |extra: Value| {
            let mut o = serde_json::json!({
                "issuer": "http://127.0.0.1:5/",
                "authorization_endpoint": "http://127.0.0.1:5/authorize",
                "token_endpoint": "http://127.0.0.1:5/token",
            });
            o.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            o.as_object().unwrap().clone()
        };
        let plain = read_auth_server(&metadata(serde_json::json!({})), "r".into(), None).unwrap();
        assert!(!plain.client_id_metadata_documents && !plain.iss_required && plain.registration_endpoint.is_none());
        assert_eq!(plain.issuer, "http://127.0.0.1:5/");
        let on = serde_json::json!({"client_id_metadata_document_supported": true, "authorization_response_iss_parameter_supported": true});
        let on = read_auth_server(&metadata(on), "r".into(), None).unwrap();
        assert!(on.client_id_metadata_documents && on.iss_required);
        let odd = serde_json::json!({"client_id_metadata_document_supported": "true", "authorization_response_iss_parameter_supported": 1});
        let odd = read_auth_server(&metadata(odd), "r".into(), None).unwrap();
        assert!(!odd.client_id_metadata_documents && !odd.iss_required);
        let insecure = serde_json::json!({"token_endpoint": "http://as.example/token"});
        assert!(read_auth_server(&metadata(insecure), "r".into(), None).unwrap_err().contains("not https"));
    }

    #[test]
    fn the_resource_must_be_this_server() {
        let server = Url::parse("http://127.0.0.1:5/mcp").unwrap();
        assert!(check_resource(&server, "http://127.0.0.1:5/mcp").is_ok());
        assert!(check_resource(&server, "http://127.0.0.1:5/").is_ok());
        assert!(check_resource(&server, "http://127.0.0.1:6/mcp").is_err());
        assert!(check_resource(&server, "http://127.0.0.1:5/other").is_err());
        assert!(check_resource(&server, "not a url").is_err());
    }
}
