//! Revision 2026-07-28: no `initialize` and no session. `server/discover` tells what the server
//! speaks; every request carries the client's `_meta` envelope (version, capabilities, info) and,
//! over HTTP, the `mcp-protocol-version`, `mcp-method` and `mcp-name` headers; a server that
//! needs the user, the model or the roots answers `input_required` and the request is sent again
//! with the answers (SPEC §I.3.2).

use super::Discovered;
use crate::mcp_client::protocol;
use base64::Engine;
use serde_json::{Map, Value, json};

pub(crate) const VERSION: &str = "2026-07-28";
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// -32022: the server does not speak the revision asked for; `data.supported` names its own.
const UNSUPPORTED_VERSION: i64 = -32022;
/// The first frame of a `subscriptions/listen` stream.
pub(crate) const LISTEN_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// The most questions one `input_required` result may ask.
const MAX_INPUT_REQUESTS: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stateless {
    pub server_info: Value,
    pub capabilities: Value,
}

impl Stateless {
    pub fn version(&self) -> &str {
        VERSION
    }

    /// The revision `server/discover` is asked in, before the server said anything.
    pub fn probe() -> Stateless {
        Stateless { server_info: json!({}), capabilities: json!({}) }
    }

    /// A discover result that offers 2026-07-28; None for anything else.
    pub fn from_discover(result: &Value) -> Option<Stateless> {
        let versions = result.get("supportedVersions")?.as_array()?;
        if !versions.iter().any(|v| v.as_str() == Some(VERSION)) {
            return None;
        }
        let object = |v: Option<&Value>| v.filter(|v| v.is_object()).cloned().unwrap_or_else(|| json!({}));
        Some(Stateless {
            server_info: object(result.get("_meta").and_then(|m| m.get(META_SERVER_INFO))),
            capabilities: object(result.get("capabilities")),
        })
    }
}

/// A JSON-RPC error answering `server/discover`: `initialize` follows unless the server named
/// only revisions of 2026 and later this client does not speak.
pub(crate) fn refused_discover(error: &Value) -> Discovered {
    let supported = error.pointer("/data/supported").and_then(Value::as_array);
    let Some(supported) = supported.filter(|_| error.get("code").and_then(Value::as_i64) == Some(UNSUPPORTED_VERSION)) else {
        return Discovered::Initialize;
    };
    let names: Vec<&str> = supported.iter().filter_map(Value::as_str).collect();
    if names.iter().any(|v| protocol::SUPPORTED_VERSIONS.contains(v)) {
        return Discovered::Initialize;
    }
    Discovered::Incompatible(format!(
        "the server speaks MCP {}; this client speaks {} and {VERSION}",
        names.join(", "),
        protocol::SUPPORTED_VERSIONS.join(", ")
    ))
}

/// The client's `_meta` envelope, added to `params` (what is already in `_meta` stays).
pub(crate) fn stamp(_method: &str, params: Option<Value>) -> Value {
    let mut params = match params {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let initialize = protocol::initialize_params();
    let meta = params.entry("_meta").or_insert_with(|| json!({}));
    if !meta.is_object() {
        *meta = json!({});
    }
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(META_VERSION.to_owned(), json!(VERSION));
        // The tasks extension is declared on every request: a server of 2026 may answer a task
        // only to a request that declares it (SPEC §I.3.4).
        let mut capabilities = initialize["capabilities"].clone();
        capabilities["extensions"] = json!({crate::mcp_client::tasks::EXTENSION: {}});
        meta.insert(META_CAPABILITIES.to_owned(), capabilities);
        meta.insert(META_CLIENT_INFO.to_owned(), initialize["clientInfo"].clone());
    }
    Value::Object(params)
}

/// The routing headers of one message: the version, and for a request its method and the
/// name it is about (tool, prompt, resource uri; the task of `tasks/*`, as the tasks extension
/// requires).
pub(crate) fn http_headers(version: &str, message: &Value) -> Vec<(&'static str, String)> {
    let mut headers = vec![(super::PROTOCOL_VERSION_HEADER, version.to_owned())];
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return headers;
    };
    headers.push(("mcp-method", header_value(method)));
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return headers,
    };
    if let Some(name) = message.pointer(&format!("/params/{key}")).and_then(Value::as_str) {
        headers.push(("mcp-name", header_value(name)));
    }
    headers
}

/// A header value as the SDK writes it: visible ASCII without edge spaces as is, anything
/// else as `=?base64?…?=`.
fn header_value(value: &str) -> String {
    let plain =
        value.bytes().all(|b| (0x20..=0x7e).contains(&b)) && value == value.trim() && !(value.starts_with("=?base64?") && value.ends_with("?="));
    if plain { value.to_owned() } else { format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(value)) }
}

/// The params of `subscriptions/listen` (SPEC §I.3.3): the list changes the server announces
/// (its capabilities' `listChanged`) and the resources subscribed to; None when there is
/// nothing to listen for.
pub(crate) fn listen_params(server: &Stateless, resources: &[String]) -> Option<Value> {
    let announces = |kind: &str| server.capabilities.pointer(&format!("/{kind}/listChanged")).and_then(Value::as_bool) == Some(true);
    let mut filter = Map::new();
    for (kind, key) in [("tools", "toolsListChanged"), ("prompts", "promptsListChanged"), ("resources", "resourcesListChanged")] {
        if announces(kind) {
            filter.insert(key.to_owned(), json!(true));
        }
    }
    if !resources.is_empty() {
        filter.insert("resourceSubscriptions".to_owned(), json!(resources));
    }
    (!filter.is_empty()).then(|| json!({"notifications": filter}))
}

/// One question of an `input_required` result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InputRequest {
    pub key: String,
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: String,
    pub params: Value,
}

/// What an `input_required` result asks, and the state to send back verbatim.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InputRequired {
    pub requests: Vec<InputRequest>,
    pub request_state: Option<Value>,
}

/// Reads a result: None when it is not `input_required`; Err with a readable reason when its
/// questions cannot be read (never a retry of something the client did not understand).
pub(crate) fn input_required(result: &Value) -> Option<Result<InputRequired, String>> {
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return None;
    }
    Some(read_input_required(result))
}

fn read_input_required(result: &Value) -> Result<InputRequired, String> {
    let bad = |why: String| format!("the server asked for input in a way this client cannot read: {why}");
    let request_state = match result.get("requestState") {
        None | Some(Value::Null) => None,
        Some(state @ Value::String(_)) => Some(state.clone()),
        Some(_) => return Err(bad("requestState is not a string".to_owned())),
    };
    let requests = input_requests(result.get("inputRequests")).map_err(bad)?;
    if requests.is_empty() && request_state.is_none() {
        return Err(bad("neither inputRequests nor requestState".to_owned()));
    }
    Ok(InputRequired { requests, request_state })
}

/// The questions of an `inputRequests` map — an `input_required` result's, or an
/// `input_required` task's (SPEC §I.3.4): the same shape, read by one reader. Err: why they
/// cannot be read.
pub(crate) fn input_requests(requests: Option<&Value>) -> Result<Vec<InputRequest>, String> {
    let requests = match requests {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(_) => return Err("inputRequests is not an object".to_owned()),
    };
    if requests.len() > MAX_INPUT_REQUESTS {
        return Err(format!("{} questions at once (at most {MAX_INPUT_REQUESTS})", requests.len()));
    }
    requests
        .iter()
        .map(|(key, request)| {
            let method = request.get("method").and_then(Value::as_str).ok_or_else(|| format!("\"{key}\" names no method"))?;
            if !matches!(method, "elicitation/create" | "sampling/createMessage" | "roots/list") {
                return Err(format!("\"{key}\" asks for {method}"));
            }
            let params = match request.get("params") {
                None | Some(Value::Null) => json!({}),
                Some(p @ Value::Object(_)) => p.clone(),
                Some(_) => return Err(format!("the params of \"{key}\" are not an object")),
            };
            Ok(InputRequest { key: key.clone(), method: method.to_owned(), params })
        })
        .collect()
}

/// The params of the retry: the original ones with the answers (keyed as asked) and the
/// server's state echoed; the envelope is stamped again when it is sent.
pub(crate) fn retry_params(original: Option<Value>, answers: Map<String, Value>, request_state: Option<Value>) -> Option<Value> {
    let mut params = match original {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    params.remove("inputResponses");
    params.remove("requestState");
    if !answers.is_empty() {
        params.insert("inputResponses".to_owned(), Value::Object(answers));
    }
    if let Some(state) = request_state {
        params.insert("requestState".to_owned(), state);
    }
    Some(Value::Object(params))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_required_is_read_or_refused_clearly() {
        assert!(input_required(&json!({"content": []})).is_none());
        let asked = json!({"resultType": "input_required", "requestState": "s1",
            "inputRequests": {"b": {"method": "roots/list"}, "a": {"method": "elicitation/create", "params": {"message": "?"}}}});
        let read = input_required(&asked).unwrap().unwrap();
        assert_eq!(read.request_state, Some(json!("s1")));
        assert_eq!(
            read.requests.iter().map(|r| (r.key.as_str(), r.method.as_str())).collect::<Vec<_>>(),
            [("b", "roots/list"), ("a", "elicitation/create")]
        );
        assert_eq!(read.requests[0].params, json!({}));
        for garbage in [
            json!({"resultType": "input_required"}),
            json!({"resultType": "input_required", "inputRequests": [1]}),
            json!({"resultType": "input_required", "inputRequests": {"x": {"method": "tools/call"}}}),
            json!({"resultType": "input_required", "inputRequests": {"x": 7}}),
            json!({"resultType": "input_required", "inputRequests": {"x": {"method": "roots/list", "params": 1}}}),
            json!({"resultType": "input_required", "requestState": {"not": "a string"}}),
        ] {
            let e = input_required(&garbage).unwrap().unwrap_err();
            assert!(e.starts_with("the server asked for input in a way this client cannot read"), "{e}");
        }
    }

    #[test]
    fn the_retry_carries_the_answers_and_the_state() {
        let mut answers = Map::new();
        answers.insert("a".into(), json!({"action": "accept", "content": {"n": 1}}));
        let old = json!({"name": "book", "arguments": {}, "inputResponses": {"old": {}}, "requestState": "old"});
        let params = retry_params(Some(old), answers, Some(json!("s2"))).unwrap();
        assert_eq!(
            params,
            json!({"name": "book", "arguments": {}, "inputResponses": {"a": {"action": "accept", "content": {"n": 1}}}, "requestState": "s2"})
        );
    }

    #[test]
    fn header_values_survive_http() {
        assert_eq!(header_value("add"), "add");
        assert_eq!(header_value("café"), "=?base64?Y2Fmw6k=?=");
        assert_eq!(header_value(" x"), "=?base64?IHg=?=");
    }

    #[test]
    fn the_tasks_extension_is_declared_and_a_task_request_names_its_task() {
        // SEP-2663 (extension io.modelcontextprotocol/tasks): no task without the declaration
        // on the request; tasks/get, tasks/update and tasks/cancel carry Mcp-Name = taskId.
        let params = stamp("tools/call", Some(json!({"name": "brew"})));
        assert_eq!(params["_meta"][META_CAPABILITIES]["extensions"], json!({"io.modelcontextprotocol/tasks": {}}));
        assert!(params["_meta"][META_CAPABILITIES]["elicitation"].is_object(), "the other capabilities stay");
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let message = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": stamp(method, Some(json!({"taskId": "t-7"})))});
            assert!(http_headers(VERSION, &message).contains(&("mcp-name", "t-7".to_owned())), "{method}");
        }
    }
}
