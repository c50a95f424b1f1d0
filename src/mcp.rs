//! The configuration of one MCP server (SPEC §B.5). Connecting to it is `crate::mcp_client`'s job.
//!
//! A value type: it imports nothing from `mcp_client` (issue 31). The OAuth tokens an entry
//! carries are a value too (`tokens`), which the client's authorization (`mcp_client::oauth`)
//! uses from here.

pub mod tokens;

pub use tokens::Tokens;
use crate::{json, model::has_scheme};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum Transport {
    #[default]
    Stdio = 0,
    Sse = 1,
    StreamableHttp = 2,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Sse => "sse",
            Transport::StreamableHttp => "streamableHttp",
        }
    }

    /// Case-insensitive; anything unknown is Stdio (SPEC §B.5).
    pub fn from_name(name: &str) -> Transport {
        match name.to_ascii_lowercase().as_str() {
            "sse" => Transport::Sse,
            "streamablehttp" => Transport::StreamableHttp,
            _ => Transport::Stdio,
        }
    }

    pub fn from_u32(v: u32) -> Option<Transport> {
        Some(match v {
            0 => Transport::Stdio,
            1 => Transport::Sse,
            2 => Transport::StreamableHttp,
            _ => return None,
        })
    }
}

/// Whether an MCP header or a stdio server's environment variable carries a credential, by its
/// name (SPEC §I.5.2) — the one rule for both, case-insensitive, `_` and `-` alike:
/// `Authorization`, `Proxy-Authorization`, `Cookie`; any name ending in `-token`, `-key`,
/// `-secret` (`x-api-key`, `X-Upstream-Token`, `GITHUB_TOKEN`, `AWS_SECRET`) or that is one of
/// those words alone; any name containing `api-key`/`apikey`, `password`/`passwd` or
/// `credential` (`OPENAI_API_KEY_FILE`, `DB_PASSWORD`, `GOOGLE_APPLICATION_CREDENTIALS`). Such
/// values are left out of `Secrets::Omit` and masked in every log line (`redact.rs`).
pub fn is_credential_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace('_', "-");
    matches!(name.as_str(), "authorization" | "proxy-authorization" | "cookie" | "token" | "key" | "secret")
        || ["-token", "-key", "-secret"].iter().any(|end| name.ends_with(end))
        || ["api-key", "apikey", "password", "passwd", "credential"].iter().any(|part| name.contains(part))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mcp {
    pub name: String,
    pub transport: Transport,
    pub url: String,
    pub command: String,
    pub arguments: Vec<String>,
    /// Added to the inherited environment of a stdio server.
    pub environment: BTreeMap<String, String>,
    pub headers: BTreeMap<String, String>,
    pub enabled: bool,
    pub auto_start: bool,
    /// What `roots/list` answers (SPEC §H.4.5): the directories or files the server may use.
    pub roots: Vec<String>,
    /// How long a tool call may go without an answer or a progress notification (§H.4.2).
    pub call_timeout_ms: u32,
    /// The provider that answers the server's `sampling/createMessage` (§H.4.5); empty: the
    /// requests are declined.
    pub sampling_provider_id: String,
    /// The client id registered with the server's authorization server (SPEC §H.4.6); empty:
    /// the client registers itself dynamically. An https url with a path names the client's
    /// metadata document, the id itself where the server reads such documents (§I.3.6).
    pub oauth_client_id: String,
    /// Tokens the application kept from an earlier authorization; never in the JSON.
    pub oauth_tokens: Tokens,
}

/// The limit of one `tools/call` without progress (SPEC §F).
pub const DEFAULT_CALL_TIMEOUT_MS: u32 = 60_000;

impl Default for Mcp {
    fn default() -> Self {
        Mcp {
            name: String::new(),
            transport: Transport::Stdio,
            url: String::new(),
            command: String::new(),
            arguments: Vec::new(),
            environment: BTreeMap::new(),
            headers: BTreeMap::new(),
            enabled: true,
            auto_start: true,
            roots: Vec::new(),
            call_timeout_ms: DEFAULT_CALL_TIMEOUT_MS,
            sampling_provider_id: String::new(),
            oauth_client_id: String::new(),
            oauth_tokens: Tokens::default(),
        }
    }
}

impl Mcp {
    pub fn new(name: impl Into<String>) -> Self {
        Mcp { name: name.into(), ..Self::default() }
    }

    pub fn is_valid(&self) -> bool {
        !self.name.is_empty()
            && match self.transport {
                Transport::Stdio => !self.command.is_empty(),
                Transport::Sse | Transport::StreamableHttp => has_scheme(&self.url),
            }
    }

    /// `roots`, `samplingProviderId` and `oauthClientId` only when set, `callTimeout` (ms) only
    /// when not the default; never the tokens.
    pub fn to_json(&self) -> Value {
        let mut o = json!({
            "name": self.name,
            "transport": self.transport.as_str(),
            "url": self.url,
            "command": self.command,
            "arguments": self.arguments,
            "environment": self.environment,
            "headers": self.headers,
            "enabled": self.enabled,
            "autoStart": self.auto_start,
        });
        if !self.roots.is_empty() {
            o["roots"] = json!(self.roots);
        }
        if self.call_timeout_ms != DEFAULT_CALL_TIMEOUT_MS {
            o["callTimeout"] = json!(self.call_timeout_ms);
        }
        if !self.sampling_provider_id.is_empty() {
            o["samplingProviderId"] = json!(self.sampling_provider_id);
        }
        if !self.oauth_client_id.is_empty() {
            o["oauthClientId"] = json!(self.oauth_client_id);
        }
        o
    }

    /// Applies every field but the tokens, which the JSON never holds; returns `is_valid()`.
    pub fn from_json(&mut self, o: &Map<String, Value>) -> bool {
        self.name = json::string(o, "name");
        self.transport = Transport::from_name(&json::string(o, "transport"));
        self.url = json::string(o, "url");
        self.command = json::string(o, "command");
        self.arguments = json::string_list(o, "arguments");
        self.environment = json::string_map(o, "environment");
        self.headers = json::string_map(o, "headers");
        self.enabled = json::boolean(o, "enabled", true);
        self.auto_start = json::boolean(o, "autoStart", true);
        self.roots = json::string_list(o, "roots");
        self.call_timeout_ms = o
            .get("callTimeout")
            .and_then(Value::as_u64)
            .filter(|&ms| ms > 0)
            .map_or(DEFAULT_CALL_TIMEOUT_MS, |ms| ms.min(u64::from(u32::MAX)) as u32);
        self.sampling_provider_id = json::string(o, "samplingProviderId");
        self.oauth_client_id = json::string(o, "oauthClientId");
        self.is_valid()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_validity_per_transport() {
        let mut m = Mcp::new("fs");
        assert!(m.enabled && m.auto_start && m.transport == Transport::Stdio);
        assert!(!m.is_valid());
        m.command = "server".into();
        assert!(m.is_valid());
        m.transport = Transport::Sse;
        assert!(!m.is_valid());
        m.url = "http://127.0.0.1:9/sse".into();
        assert!(m.is_valid());
    }

    #[test]
    fn one_rule_names_credential_headers_and_environment_variables() {
        let credentials = [
            "Authorization", "proxy-authorization", "Cookie", "x-api-key", "API-KEY", "X-Upstream-Token", "x-client-secret",
            "GITHUB_TOKEN", "GITHUB_PERSONAL_ACCESS_TOKEN", "OPENAI_API_KEY", "BRAVE_APIKEY", "AWS_SECRET", "STRIPE_SECRET_KEY",
            "DB_PASSWORD", "PGPASSWORD", "SMTP_PASSWD", "GOOGLE_APPLICATION_CREDENTIALS", "token", "Secret",
        ];
        for name in credentials {
            assert!(is_credential_name(name), "{name} is a credential");
        }
        let plain = ["Accept", "Accept-Language", "x-request-id", "PATH", "HOME", "LOG_LEVEL", "NODE_OPTIONS", "TOKENIZERS_PARALLELISM", "KEYBOARD"];
        for name in plain {
            assert!(!is_credential_name(name), "{name} is no credential");
        }
    }

    #[test]
    fn transport_names_are_case_insensitive_and_unknown_is_stdio() {
        assert_eq!(Transport::from_name("StreamableHTTP"), Transport::StreamableHttp);
        assert_eq!(Transport::from_name("SSE"), Transport::Sse);
        assert_eq!(Transport::from_name("carrier pigeon"), Transport::Stdio);
    }

    #[test]
    fn json_round_trip() {
        let mut m = Mcp::new("web");
        m.transport = Transport::StreamableHttp;
        m.url = "http://h/mcp".into();
        m.arguments = vec!["-v".into()];
        m.environment.insert("K".into(), "V".into());
        m.headers.insert("Authorization".into(), "Bearer x".into());
        m.auto_start = false;
        assert!(m.to_json().get("roots").is_none() && m.to_json().get("callTimeout").is_none());
        m.roots = vec!["file:///work".into()];
        m.call_timeout_ms = 1500;
        m.sampling_provider_id = "local".into();
        m.oauth_client_id = "app-1".into();
        let j = m.to_json();
        assert_eq!(j["transport"], "streamableHttp");
        assert_eq!(j["roots"], json!(["file:///work"]));
        assert_eq!(j["callTimeout"], 1500);
        assert_eq!(j["samplingProviderId"], "local");
        assert_eq!(j["oauthClientId"], "app-1");
        let mut back = Mcp::default();
        assert!(back.from_json(j.as_object().unwrap()));
        assert_eq!(back, m);
    }

    #[test]
    fn tokens_never_reach_the_json_or_debug() {
        let mut m = Mcp::new("web");
        m.oauth_tokens.access_token = "SECRET-ACCESS".into();
        m.oauth_tokens.refresh_token = "SECRET-REFRESH".into();
        assert!(!m.to_json().to_string().contains("SECRET") && !format!("{m:?}").contains("SECRET"));
    }
}
