//! One callable model: endpoint, credentials, limits, capabilities and request parameters
//! (SPEC §B.2).

use crate::{id::new_id, json};
use serde_json::{Map, Value};

/// Capability bits (`Model::Capability` on the Qt side).
pub mod capability {
    pub const NONE: u32 = 0;
    pub const TEXT: u32 = 1;
    pub const IMAGE: u32 = 2;
    pub const AUDIO: u32 = 4;
    pub const TOOL_USE: u32 = 8;
}

/// The wire protocol a model is reached through (SPEC §H.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Api {
    #[default]
    ChatCompletions = 0,
    Responses = 1,
    AnthropicMessages = 2,
    Gemini = 3,
}

impl Api {
    pub fn from_u32(value: u32) -> Option<Api> {
        [Api::ChatCompletions, Api::Responses, Api::AnthropicMessages, Api::Gemini].into_iter().find(|a| *a as u32 == value)
    }

    /// The Model JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Api::ChatCompletions => "chatCompletions",
            Api::Responses => "responses",
            Api::AnthropicMessages => "anthropicMessages",
            Api::Gemini => "gemini",
        }
    }

    /// Reads a Model JSON name case-insensitively; anything else is Chat Completions.
    pub fn from_name(name: &str) -> Api {
        [Api::Responses, Api::AnthropicMessages, Api::Gemini].into_iter().find(|a| a.name().eq_ignore_ascii_case(name)).unwrap_or_default()
    }
}

/// What an idle timeout of 0 stands for.
pub const DEFAULT_IDLE_TIMEOUT_MS: i32 = 60_000;

#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub id: String,
    /// Sent as the request's `model` field.
    pub name: String,
    /// The base url; the API's path (`/chat/completions`, `/responses`, `/messages`,
    /// `/models/<name>:streamGenerateContent`) is appended at run time.
    pub url: String,
    pub token: String,
    /// Total time for one request; 0 = unlimited.
    pub timeout_ms: i32,
    /// Longest silence between received bytes; 0 = [`DEFAULT_IDLE_TIMEOUT_MS`].
    pub idle_timeout_ms: i32,
    pub capabilities: u32,
    pub parameters: Map<String, Value>,
    pub api: Api,
    /// The API's version where it has versions (Anthropic's `anthropic-version`); empty =
    /// the newest this library knows (SPEC §I.2.1).
    pub api_version: String,
    /// Ask the server to cache the stable prefix of each request (SPEC §I.2.2).
    pub prompt_caching: bool,
    /// The model's context window in tokens (SPEC §I.4.1); 0 = unknown.
    pub context_window: i32,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            id: new_id(),
            name: String::new(),
            url: String::new(),
            token: String::new(),
            timeout_ms: 60_000,
            idle_timeout_ms: DEFAULT_IDLE_TIMEOUT_MS,
            capabilities: capability::TEXT,
            parameters: Map::new(),
            api: Api::ChatCompletions,
            api_version: String::new(),
            prompt_caching: false,
            context_window: 0,
        }
    }
}

impl Model {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn has_capability(&self, bit: u32) -> bool {
        bit != 0 && self.capabilities & bit == bit
    }

    /// Whether every bit of `required` is present.
    pub fn satisfies(&self, required: u32) -> bool {
        self.capabilities & required == required
    }

    /// Writes `value` at the dotted `key` at once (SPEC §F); integral floats become integers.
    pub fn set_parameter(&mut self, key: &str, value: Value) {
        if !key.is_empty() {
            json::set_dotted(&mut self.parameters, key, json::normalize_numbers(value));
        }
    }

    pub fn remove_parameter(&mut self, key: &str) -> bool {
        json::remove_dotted(&mut self.parameters, key)
    }

    pub fn is_valid(&self) -> bool {
        !self.name.is_empty() && has_scheme(&self.url) && !self.token.is_empty()
    }

    /// The idle timeout in force: 0 (or less) means the default.
    pub fn effective_idle_timeout_ms(&self) -> i32 {
        if self.idle_timeout_ms > 0 { self.idle_timeout_ms } else { DEFAULT_IDLE_TIMEOUT_MS }
    }

    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("id".into(), self.id.clone().into());
        o.insert("name".into(), self.name.clone().into());
        o.insert("url".into(), self.url.clone().into());
        o.insert("token".into(), self.token.clone().into());
        o.insert("timeoutMs".into(), self.timeout_ms.into());
        o.insert("idleTimeoutMs".into(), self.idle_timeout_ms.into());
        o.insert("capabilities".into(), self.capabilities.into());
        o.insert("parameters".into(), Value::Object(self.parameters.clone()));
        // An extension key, only when not the default (SPEC §H).
        if self.api != Api::ChatCompletions {
            o.insert("api".into(), self.api.name().into());
        }
        if !self.api_version.is_empty() {
            o.insert("apiVersion".into(), self.api_version.clone().into());
        }
        if self.prompt_caching {
            o.insert("promptCaching".into(), true.into());
        }
        if self.context_window != 0 {
            o.insert("contextWindow".into(), self.context_window.into());
        }
        Value::Object(o)
    }

    /// Applies every field; returns whether a non-empty id was read.
    pub fn from_json(&mut self, o: &Map<String, Value>) -> bool {
        let id = json::id(o);
        if let Some(id) = &id {
            self.id = id.clone();
        }
        self.name = json::string(o, "name");
        self.url = json::string(o, "url");
        self.token = json::string(o, "token");
        self.timeout_ms = clamp_i32(json::int(o, "timeoutMs"));
        self.idle_timeout_ms = clamp_i32(json::int(o, "idleTimeoutMs"));
        if o.contains_key("capabilities") {
            self.capabilities = u32::try_from(json::int(o, "capabilities")).unwrap_or(0);
        }
        self.parameters = match o.get("parameters") {
            Some(Value::Object(p)) => p.clone(),
            _ => Map::new(),
        };
        self.api = Api::from_name(&json::string(o, "api"));
        self.api_version = json::string(o, "apiVersion");
        self.prompt_caching = json::boolean(o, "promptCaching", false);
        self.context_window = clamp_i32(json::int(o, "contextWindow")).max(0);
        id.is_some()
    }
}

fn clamp_i32(v: i64) -> i32 {
    v.clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

/// Whether `url` starts with an RFC 3986 scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`),
/// as `QUrl::scheme()` being non-empty requires.
pub fn has_scheme(url: &str) -> bool {
    match url.split_once(':') {
        Some((scheme, _)) => {
            let mut chars = scheme.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults() {
        let m = Model::new();
        assert_eq!((m.timeout_ms, m.idle_timeout_ms, m.capabilities), (60_000, 60_000, capability::TEXT));
        assert!(m.parameters.is_empty() && m.name.is_empty() && m.url.is_empty() && m.token.is_empty());
        assert_eq!(m.id.len(), 36);
        assert!(!m.is_valid());
    }

    #[test]
    fn validity_needs_name_scheme_and_token() {
        let mut m = Model { name: "gpt".into(), url: "http://127.0.0.1:1/v1".into(), token: "t".into(), ..Model::new() };
        assert!(m.is_valid());
        m.url = "127.0.0.1/v1".into();
        assert!(!m.is_valid());
        m.url = "1http://x".into();
        assert!(!m.is_valid());
        m.url = "https://x".into();
        m.token.clear();
        assert!(!m.is_valid());
    }

    #[test]
    fn capabilities_test_single_bits_and_requirements() {
        let m = Model { capabilities: capability::TEXT | capability::TOOL_USE, ..Model::new() };
        assert!(m.has_capability(capability::TOOL_USE));
        assert!(!m.has_capability(capability::IMAGE));
        assert!(m.satisfies(capability::NONE));
        assert!(!m.satisfies(capability::TEXT | capability::IMAGE));
    }

    #[test]
    fn dotted_parameters_nest_and_integers_stay_integers() {
        let mut m = Model::new();
        m.set_parameter("stream_options.include_usage", json!(true));
        m.set_parameter("max_tokens", json!(256.0));
        m.set_parameter("temperature", json!(0.5));
        assert_eq!(
            Value::Object(m.parameters.clone()).to_string(),
            r#"{"stream_options":{"include_usage":true},"max_tokens":256,"temperature":0.5}"#
        );
    }

    #[test]
    fn from_json_rules() {
        let mut m = Model { capabilities: capability::IMAGE, ..Model::new() };
        let before = m.id.clone();
        let o = json!({"id": "", "name": "n", "parameters": {"a": 1}});
        assert!(!m.from_json(o.as_object().unwrap()));
        assert_eq!(m.id, before);
        assert_eq!((m.timeout_ms, m.idle_timeout_ms, m.capabilities), (0, 0, capability::IMAGE));
        assert_eq!(m.effective_idle_timeout_ms(), 60_000);
        let o = json!({"id": "m1", "capabilities": 9, "timeoutMs": "x", "parameters": 3});
        assert!(m.from_json(o.as_object().unwrap()));
        assert_eq!((m.id.as_str(), m.capabilities, m.timeout_ms), ("m1", 9, 0));
        assert!(m.parameters.is_empty());
    }

    #[test]
    fn json_round_trip() {
        let mut m = Model { name: "n".into(), url: "http://h".into(), token: "secret".into(), ..Model::new() };
        m.set_parameter("top_p", json!(0.9));
        let mut back = Model::new();
        assert!(back.from_json(m.to_json().as_object().unwrap()));
        assert_eq!(back, m);
    }

    #[test]
    fn the_api_is_written_only_when_not_chat_completions_and_read_case_insensitively() {
        let mut m = Model::new();
        assert!(m.to_json().get("api").is_none());
        for api in [Api::Responses, Api::AnthropicMessages, Api::Gemini] {
            m.api = api;
            let mut back = Model::new();
            back.from_json(m.to_json().as_object().unwrap());
            assert_eq!(back.api, api);
        }
        for (text, api) in [("ANTHROPICMESSAGES", Api::AnthropicMessages), ("Responses", Api::Responses), ("chat", Api::ChatCompletions), ("", Api::ChatCompletions)] {
            let mut back = Model::new();
            back.from_json(json!({"api": text}).as_object().unwrap());
            assert_eq!(back.api, api, "{text}");
        }
        assert_eq!(Api::from_u32(2), Some(Api::AnthropicMessages));
        assert_eq!(Api::from_u32(3), Some(Api::Gemini));
        assert_eq!(Api::from_u32(4), None);
        assert_eq!(Api::from_name("GEMINI"), Api::Gemini);
    }

    #[test]
    fn api_version_and_prompt_caching_are_written_only_when_set() {
        let mut m = Model::new();
        let o = m.to_json();
        assert!(o.get("apiVersion").is_none() && o.get("promptCaching").is_none());
        m.api_version = "2023-06-01".into();
        m.prompt_caching = true;
        let o = m.to_json();
        assert_eq!((o["apiVersion"].as_str(), o["promptCaching"].as_bool()), (Some("2023-06-01"), Some(true)));
        let mut back = Model::new();
        back.from_json(o.as_object().unwrap());
        assert_eq!(back, m);
        back.from_json(json!({"promptCaching": "yes", "apiVersion": 7}).as_object().unwrap());
        assert_eq!((back.api_version.as_str(), back.prompt_caching), ("", false));
    }

    #[test]
    fn the_context_window_is_written_only_when_set() {
        let mut m = Model::new();
        assert!(m.to_json().get("contextWindow").is_none());
        m.context_window = 128_000;
        let o = m.to_json();
        assert_eq!(o["contextWindow"], 128_000);
        let mut back = Model::new();
        back.from_json(o.as_object().unwrap());
        assert_eq!(back, m);
        back.from_json(json!({"contextWindow": -5}).as_object().unwrap());
        assert_eq!(back.context_window, 0);
        back.from_json(json!({}).as_object().unwrap());
        assert_eq!(back.context_window, 0);
    }
}
