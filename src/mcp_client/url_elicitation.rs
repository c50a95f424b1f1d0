//! The error "URL elicitation required" (-32042, MCP 2025-11-25; SPEC §I.3.5): a server that
//! cannot go on until the user has opened a page answers a request with this error, the
//! URL-mode elicitations in `error.data.elicitations`. The specification lets the client show
//! them and retry the request once the user is done; it leaves the rest to the client.
//!
//! **What this client does.** Each elicitation goes to the application exactly as a URL-mode
//! `elicitation/create` of the call would (`mcpUrlElicitationRequested`, answered with
//! `answerMCPElicitation`), one after the other. When the user accepted every one, the tool
//! call is sent again, once; a second -32042 fails the call. When the user declined or
//! cancelled one, when nobody can ask the user (the application's own requests), or when no
//! answer comes within the call's time limit, the call fails with a message naming the page,
//! so that the model can tell the user what is needed.

use super::jsonrpc::{Responder, ServerRequest};
use super::{RequestError, Watch};
use serde_json::Value;

/// The JSON-RPC error code.
pub const CODE: i64 = -32042;

/// The elicitations of a -32042 error's `data`: the URL-mode ones with a url (others are not
/// allowed there and are left out).
pub fn elicitations(data: &Value) -> Vec<Value> {
    data.get("elicitations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|e| e.get("mode").and_then(Value::as_str).is_none_or(|m| m == "url") && e.get("url").is_some_and(Value::is_string))
        .cloned()
        .collect()
}

/// Asks the user for each of `elicitations` through `watch`'s asker; Ok when every one was
/// accepted (the request may be sent again), else why the request cannot go on.
pub(crate) async fn satisfy(reason: &str, elicitations: &[Value], watch: &Watch<'_>) -> Result<(), RequestError> {
    let first_url = elicitations.first().and_then(|e| e.get("url")).and_then(Value::as_str).unwrap_or_default();
    let needs = |why: &str| RequestError::Failed(format!("{reason}: the user must first open {first_url} ({why})"));
    let Some(asker) = watch.asker.as_ref().filter(|_| !elicitations.is_empty()) else {
        return Err(needs("nobody can ask the user here"));
    };
    for elicitation in elicitations {
        let mut params = elicitation.clone();
        params["mode"] = "url".into();
        let (responder, mut answer) = Responder::collecting();
        asker.ask(ServerRequest { method: "elicitation/create".to_owned(), params, related: None }, responder);
        let reply = match tokio::time::timeout(watch.limit, answer.recv()).await {
            Ok(Some(reply)) => reply,
            Ok(None) => return Err(needs("no answer")),
            Err(_) => return Err(needs(&format!("no answer within {} s", watch.limit.as_secs_f64()))),
        };
        match reply.pointer("/result/action").and_then(Value::as_str) {
            Some("accept") => {}
            Some(action) => return Err(needs(&format!("the user's answer: {action}"))),
            None => return Err(needs("the user could not be asked")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_url_elicitations_with_a_url_are_taken() {
        let data = json!({"elicitations": [
            {"mode": "url", "url": "https://a.example/x", "message": "m", "elicitationId": "1"},
            {"url": "https://b.example/"},
            {"mode": "form", "url": "https://c.example/"},
            {"mode": "url"},
            "junk",
        ]});
        let urls: Vec<String> = elicitations(&data).iter().map(|e| e["url"].as_str().unwrap().to_owned()).collect();
        assert_eq!(urls, ["https://a.example/x", "https://b.example/"]);
        assert!(elicitations(&json!({"elicitations": "no"})).is_empty());
        assert!(elicitations(&Value::Null).is_empty());
    }
}
