//! Revisions 2024-11-05 to 2025-11-25: the `initialize` handshake (its messages are in
//! `protocol`), a session and GET stream over streamable HTTP, server requests mid-call.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stateful {
    pub version: String,
    pub server_info: Value,
    pub capabilities: Value,
}

impl Stateful {
    /// What an `initialize` result (already checked for its version) says.
    pub fn from_initialize(version: &str, result: &Value) -> Stateful {
        let field = |key: &str| result.get(key).filter(|v| v.is_object()).cloned().unwrap_or_else(|| Value::Object(Default::default()));
        Stateful { version: version.to_owned(), server_info: field("serverInfo"), capabilities: field("capabilities") }
    }
}
