//! The protocol revision a connection speaks (SPEC §I.3.1, issue 31), one interface over the
//! two generations: [`stateful`] (`initialize`, 2024-11-05 to 2025-11-25: a session, a GET
//! stream, server requests mid-call) and [`stateless`] (2026-07-28: `server/discover`, the
//! `_meta` envelope and routing headers on every request, questions to the client as
//! `input_required` results). The connection asks the revision what to add to a request, which
//! HTTP headers go with it, whether it keeps a session and GET stream, and whether a result is
//! a question; it never compares versions itself.
//!
//! The choice follows the official Python SDK client (`mcp/client/_probe.py`): `server/discover`
//! first; `initialize` after any JSON-RPC error (except -32022 naming only versions this client
//! does not speak), an HTTP error status, a discover that is not answered in time, or a
//! discover result without a 2026 version; a network error fails the connection.

pub(crate) mod stateful;
pub(crate) mod stateless;

pub(crate) use stateless::{InputRequest, InputRequired};

use serde_json::{Value, json};

/// The revision a server was found to speak, with what it said about itself.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Revision {
    Stateful(stateful::Stateful),
    Stateless(stateless::Stateless),
}

impl Revision {
    pub fn version(&self) -> &str {
        match self {
            Revision::Stateful(s) => &s.version,
            Revision::Stateless(s) => s.version(),
        }
    }

    /// The request's params as this revision sends them (2026: with the `_meta` envelope).
    pub fn stamp(&self, method: &str, params: Option<Value>) -> Option<Value> {
        match self {
            Revision::Stateful(_) => params,
            Revision::Stateless(_) => Some(stateless::stamp(method, params)),
        }
    }

    /// The HTTP headers that go with `message` on streamable HTTP.
    pub fn http_headers(&self, message: &Value) -> Vec<(&'static str, String)> {
        match self {
            Revision::Stateful(s) => vec![(PROTOCOL_VERSION_HEADER, s.version.clone())],
            Revision::Stateless(s) => stateless::http_headers(s.version(), message),
        }
    }

    /// Whether a `tools/call` asks to be run as a task (2025-11-25's `"task": {}`); at
    /// 2026-07-28 the server alone decides (SPEC §I.3.4).
    pub fn asks_for_tasks(&self) -> bool {
        matches!(self, Revision::Stateful(_))
    }

    /// Whether the server keeps a session with a GET stream for what it says on its own.
    pub fn has_session(&self) -> bool {
        matches!(self, Revision::Stateful(_))
    }

    /// The questions a result asks before it can be given (2026 `input_required`): None when
    /// it is the final result; Err when it asks in a way this client cannot read.
    pub fn input_required(&self, result: &Value) -> Option<Result<InputRequired, String>> {
        match self {
            Revision::Stateful(_) => None,
            Revision::Stateless(_) => stateless::input_required(result),
        }
    }

    /// `{protocolVersion, serverInfo, capabilities}` for the application (SPEC §I.3.1).
    pub fn info(&self) -> Value {
        let (server_info, capabilities) = match self {
            Revision::Stateful(s) => (&s.server_info, &s.capabilities),
            Revision::Stateless(s) => (&s.server_info, &s.capabilities),
        };
        json!({"protocolVersion": self.version(), "serverInfo": server_info, "capabilities": capabilities})
    }
}

pub(crate) const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// What the answer to `server/discover` means for the handshake.
#[derive(Debug, PartialEq)]
pub(crate) enum Discovered {
    /// The server speaks 2026-07-28.
    Stateless(stateless::Stateless),
    /// Not evidence of a 2026 server: `initialize` is asked.
    Initialize,
    /// The server speaks only revisions this client does not know.
    Incompatible(String),
}

/// The outcome of `server/discover`: its result, or the JSON-RPC error the server answered
/// (`{code, message, data}`), or an HTTP error status / no answer in time (`None`).
pub(crate) fn discovered(outcome: Result<&Value, Option<&Value>>) -> Discovered {
    match outcome {
        Ok(result) => match stateless::Stateless::from_discover(result) {
            Some(s) => Discovered::Stateless(s),
            None => Discovered::Initialize,
        },
        Err(Some(error)) => stateless::refused_discover(error),
        Err(None) => Discovered::Initialize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fallback_follows_the_sdk() {
        let ok = json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "resultType": "complete",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}});
        let Discovered::Stateless(s) = discovered(Ok(&ok)) else { panic!("2026 expected") };
        let info = Revision::Stateless(s).info();
        assert_eq!(info, json!({"protocolVersion": "2026-07-28", "serverInfo": {"name": "s", "version": "1"}, "capabilities": {"tools": {}}}));
        // Only handshake-era versions, garbage, a JSON-RPC error, an HTTP status: initialize.
        assert_eq!(discovered(Ok(&json!({"supportedVersions": ["2025-11-25"], "capabilities": {}}))), Discovered::Initialize);
        assert_eq!(discovered(Ok(&json!("nonsense"))), Discovered::Initialize);
        assert_eq!(discovered(Ok(&json!({"supportedVersions": "2026-07-28"}))), Discovered::Initialize);
        assert_eq!(discovered(Err(Some(&json!({"code": -32601, "message": "Method not found"})))), Discovered::Initialize);
        assert_eq!(discovered(Err(None)), Discovered::Initialize);
        // -32022 naming handshake versions too: initialize; naming only unknown modern ones: no.
        let both = json!({"code": -32022, "message": "unsupported", "data": {"supported": ["2025-11-25", "2027-01-01"]}});
        assert_eq!(discovered(Err(Some(&both))), Discovered::Initialize);
        let modern = json!({"code": -32022, "message": "unsupported", "data": {"supported": ["2027-01-01"]}});
        assert!(matches!(discovered(Err(Some(&modern))), Discovered::Incompatible(m) if m.contains("2027-01-01")));
    }

    #[test]
    fn requests_carry_what_their_revision_says() {
        let stateful = Revision::Stateful(stateful::Stateful::from_initialize("2025-11-25", &json!({})));
        assert_eq!(stateful.stamp("tools/list", None), None);
        assert!(stateful.has_session());
        assert!(stateful.input_required(&json!({"resultType": "input_required"})).is_none());
        let message = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add"}});
        assert_eq!(stateful.http_headers(&message), vec![("mcp-protocol-version", "2025-11-25".to_owned())]);

        let stateless = Revision::Stateless(stateless::Stateless::probe());
        assert!(!stateless.has_session());
        let params = stateless.stamp("tools/call", Some(json!({"name": "add", "_meta": {"progressToken": 1}}))).unwrap();
        assert_eq!(params["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
        assert_eq!(params["_meta"]["io.modelcontextprotocol/clientInfo"]["name"], "visindigo-agent");
        assert!(params["_meta"]["io.modelcontextprotocol/clientCapabilities"]["elicitation"].is_object());
        assert_eq!(params["_meta"]["progressToken"], 1);
        assert_eq!(
            stateless.http_headers(&message),
            vec![("mcp-protocol-version", "2026-07-28".to_owned()), ("mcp-method", "tools/call".to_owned()), ("mcp-name", "add".to_owned()),]
        );
    }
}
