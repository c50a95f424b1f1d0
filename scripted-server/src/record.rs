//! What the server remembers about each request, for tests to inspect.

use serde_json::{Map, Value, json};

use crate::http::Request;

/// One request as the server received it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub method: String,
    /// The request target as sent, query included (e.g. `/v1/chat/completions`).
    pub path: String,
    /// Headers in arrival order, names as the client spelled them.
    pub headers: Vec<(String, String)>,
    /// The body decoded as UTF-8 (invalid sequences replaced).
    pub body_text: String,
    /// The body parsed as JSON, when it is JSON.
    pub body_json: Option<Value>,
    /// Index in the script's `responses` of the step that answered; `None` when the script was
    /// exhausted or the request was not a chat completion (404/405).
    pub step: Option<usize>,
    /// How answering it ended, once it has: "finished", or "client_closed" when the client
    /// went away first (a write failed, or a `$stall` saw the connection close). `None` while
    /// the answer is still being sent.
    pub ended: Option<String>,
    /// Which accepted connection carried it (0, 1, … in accept order): requests on one
    /// connection share the number, so a test can see whether a client reused it.
    pub connection: u64,
}

impl RecordedRequest {
    pub(crate) fn new(request: &Request, step: Option<usize>) -> Self {
        RecordedRequest {
            method: request.method.clone(),
            path: request.target.clone(),
            headers: request.headers.clone(),
            body_text: String::from_utf8_lossy(&request.body).into_owned(),
            body_json: serde_json::from_slice(&request.body).ok(),
            step,
            ended: None,
            connection: request.connection,
        }
    }

    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The form `GET /__requests` serves: `{"method","path","headers","body_text","body_json",
    /// "step","ended","connection"}` where `headers` is an object keyed by lower-case name (repeated headers joined with
    /// ", ", as HTTP allows) so a C++ test can write `headers["authorization"]`, and `body_json`
    /// and `step` are `null` when absent.
    pub fn to_json(&self) -> Value {
        let mut headers = Map::new();
        for (name, value) in &self.headers {
            let name = name.to_ascii_lowercase();
            match headers.get_mut(&name) {
                Some(Value::String(joined)) => {
                    joined.push_str(", ");
                    joined.push_str(value);
                }
                _ => {
                    headers.insert(name, value.clone().into());
                }
            }
        }
        json!({
            "method": self.method,
            "path": self.path,
            "headers": headers,
            "body_text": self.body_text,
            "body_json": self.body_json,
            "step": self.step,
            "ended": self.ended,
            "connection": self.connection,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_form_joins_repeated_headers_under_lower_case_names() {
        let request = RecordedRequest {
            method: "POST".into(),
            path: "/v1/chat/completions".into(),
            headers: vec![
                ("Accept".into(), "a".into()),
                ("accept".into(), "b".into()),
                ("X-K".into(), "v".into()),
            ],
            body_text: "{}".into(),
            body_json: Some(json!({})),
            step: None,
            ended: None,
            connection: 3,
        };
        assert_eq!(request.header("ACCEPT"), Some("a"));
        assert_eq!(
            request.to_json(),
            json!({"method": "POST", "path": "/v1/chat/completions", "headers": {"accept": "a, b", "x-k": "v"},
                   "body_text": "{}", "body_json": {}, "step": null, "ended": null, "connection": 3})
        );
    }
}
