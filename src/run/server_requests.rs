//! What a run answers when an MCP server it is calling asks something back (SPEC §H.4.5):
//! `elicitation/create` goes to the host as `McpElicitationRequested` (a form) or
//! `McpUrlElicitationRequested` (a url to open, SPEC §I.3.5) on the dialog whose run made the
//! call; `sampling/createMessage` is one completion on the entry's sampling provider.

use crate::center::Center;
use crate::dialog::{Dialog, Elicitation, RunTicket};
use crate::event::{Event, EventSink};
use crate::function::HostToken;
use crate::mcp_client::{Asker, Responder, ServerRequest};
use crate::message::{Message, Role};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// Answers the server requests of one tool call.
pub(crate) struct RunAsker {
    pub ticket: RunTicket,
    pub center: Center,
    /// The entry's name, as the host knows the server.
    pub server: String,
    pub sampling_provider_id: String,
}

impl Asker for RunAsker {
    fn ask(&self, request: ServerRequest, responder: Responder) {
        match request.method.as_str() {
            "elicitation/create" => self.elicit(&request.params, responder),
            "sampling/createMessage" if self.sampling_provider_id.is_empty() => responder.answer(Err(format!(
                "sampling is declined: the MCP entry {} names no sampling provider",
                self.server
            ))),
            "sampling/createMessage" => {
                let (center, provider) = (self.center.clone(), self.sampling_provider_id.clone());
                let params = request.params;
                crate::runtime::runtime().spawn(async move { responder.answer(sample(&center, &provider, &params).await) });
            }
            other => responder.answer(Err(format!("{other} is not answered by this client"))),
        }
    }
}

impl RunAsker {
    /// A form, or (2025-11-25) a url to open: only an http(s) one reaches the host, any other
    /// scheme is declined.
    fn elicit(&self, params: &Value, responder: Responder) {
        let decline = || Ok(json!({"action": "decline"}));
        let message = params.get("message").and_then(Value::as_str).unwrap_or_default();
        let what = match params.get("mode").and_then(Value::as_str) {
            None | Some("form") => {
                let schema = params.get("requestedSchema").cloned().unwrap_or_else(|| json!({"type": "object", "properties": {}}));
                Elicitation::Form { schema }
            }
            Some("url") => match url_to_open(params) {
                Some(url) => Elicitation::Url { url },
                None => return responder.answer(decline()),
            },
            Some(_) => return responder.answer(decline()),
        };
        let url_mode = matches!(what, Elicitation::Url { .. });
        let Some(answer) = self.ticket.request_elicitation(&self.server, message, what) else {
            return responder.answer(decline());
        };
        crate::runtime::runtime().spawn(async move {
            responder.answer(match answer.await {
                Ok(e) => Ok(match e.content {
                    // A url's answer has no content.
                    Some(content) if !url_mode => json!({"action": e.action, "content": content}),
                    _ => json!({"action": e.action}),
                }),
                // The run ended (finished, stopped, aborted) before the host answered.
                Err(_) => decline(),
            })
        });
    }
}

/// The url a URL-mode elicitation asks the user to open, when it is an http(s) one: no other
/// scheme (`javascript:`, `file:`, a custom handler) is ever handed to the host to open.
fn url_to_open(params: &Value) -> Option<String> {
    let url = url::Url::parse(params.get("url")?.as_str()?).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.to_string())
}

/// One completion for `sampling/createMessage`: the request's messages (text and images) and
/// system prompt in a dialog of their own on `provider_id`, not registered in the Center. It
/// uses no MCP server (each of the Center's is overridden by a disabled entry) and allows no
/// tool round, so a server cannot make sampling call tools.
async fn sample(center: &Center, provider_id: &str, params: &Value) -> Result<Value, String> {
    let Some(provider) = center.provider(provider_id) else {
        return Err(format!("sampling is declined: there is no provider {provider_id}"));
    };
    let dialog = Dialog::new(center);
    dialog.set_provider_id(provider_id);
    dialog.set_max_tool_rounds(0);
    for mut entry in center.mcps() {
        entry.enabled = false;
        dialog.add_mcp(entry);
    }
    if let Some(system) = params.get("systemPrompt").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        dialog.append_message(Message::new(Role::System, system));
    }
    for m in params.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let role = if m.get("role").and_then(Value::as_str) == Some("assistant") { Role::Assistant } else { Role::User };
        // A message's content is one block or (2025-11-25) a list of them.
        let blocks = match m.get("content") {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(block) => vec![block.clone()],
            None => Vec::new(),
        };
        let mut message = Message::new(role, "");
        let mut text = String::new();
        for block in &blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => text.push_str(block.get("text").and_then(Value::as_str).unwrap_or_default()),
                Some("image") => {
                    let field = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
                    message.add_image_url(format!("data:{};base64,{}", field("mimeType"), field("data")), "");
                }
                _ => {}
            }
        }
        message.content = text.into();
        dialog.append_message(message);
    }
    let (done, outcome) = oneshot::channel();
    dialog.set_sink(Some(Arc::new(Outcome(Mutex::new((None, Some(done)))))), HostToken::NONE);
    dialog.run();
    let text = outcome.await.map_err(|_| "the sampling run ended without an answer".to_owned())??;
    let model = center.model(&center.pick_first(&provider, 0)).map(|m| m.name).unwrap_or_default();
    Ok(json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": model, "stopReason": "endTurn"}))
}

/// The outcome of a sampling run: its final text, or its failure.
struct Outcome(Mutex<(Option<Result<String, String>>, Option<oneshot::Sender<Result<String, String>>>)>);

impl EventSink for Outcome {
    fn emit(&self, events: &[Event]) {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for event in events {
            match event {
                Event::StreamEnded(text) => state.0 = Some(Ok(text.to_string())),
                Event::RunFailed(message) => state.0 = Some(Err(format!("the sampling request failed: {message}"))),
                Event::RunFinished => {
                    let result = state.0.take().unwrap_or_else(|| Err("the sampling run gave no answer".to_owned()));
                    if let Some(done) = state.1.take() {
                        let _ = done.send(result);
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_http_url_is_handed_to_the_host() {
        assert_eq!(url_to_open(&json!({"url": "https://example.com/a?b=1"})).as_deref(), Some("https://example.com/a?b=1"));
        assert_eq!(url_to_open(&json!({"url": "http://127.0.0.1:8080/x"})).as_deref(), Some("http://127.0.0.1:8080/x"));
        for bad in [json!({"url": "javascript:alert(1)"}), json!({"url": "file:///etc/passwd"}), json!({"url": "not a url"}), json!({"url": 7}), json!({})] {
            assert_eq!(url_to_open(&bad), None, "{bad}");
        }
    }
}
