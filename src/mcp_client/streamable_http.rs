//! The streamable HTTP transport (MCP 2025-03-26 and later): every client message is a POST to
//! the url; the answer is a JSON document or an event stream of messages. The server may hand
//! out a session (`Mcp-Session-Id`), sent back with every later request; a 404 for a known
//! session means the server forgot it, and the connection initialises again once (see
//! `Connection::request`) — so does a 400 that says so about the session, which is how the
//! TypeScript SDK's example servers (server-everything) answer a session they do not know.
//! What a server says during a request (progress, elicitation,
//! sampling) comes on that request's answer stream; what it says on its own (a subscribed
//! resource changed, its lists changed) comes on the GET stream, which is opened after each
//! `initialize` and held open while the session lasts (SPEC §H.4.4). Each message's headers
//! are what the revision says (`revision`): at 2026-07-28 there is no session and no GET
//! stream, and every POST names its version, method and tool/prompt/resource (SPEC §I.3.1).

use crate::sse::SseDecoder;
use super::{MESSAGE_LIMIT, http, too_large};
use super::http::SendError;
use super::jsonrpc::Rpc;
use super::oauth::Authorization;
use super::revision::Revision;
use crate::mcp::Mcp;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SESSION_HEADER: &str = "mcp-session-id";

pub(crate) struct StreamableHttp(Arc<Shared>);

/// What the requests and the GET stream's task share.
pub(crate) struct Shared {
    url: reqwest::Url,
    client: crate::network::Client,
    headers: HeaderMap,
    auth: Arc<Authorization>,
    rpc: Arc<Rpc>,
    session: Mutex<Option<String>>,
    /// What each message's headers say (version; 2026: method and name too).
    revision: Mutex<Option<Revision>>,
    /// Counts `initialize`s: a GET stream of an earlier session ends.
    generation: AtomicU64,
}

impl std::ops::Deref for StreamableHttp {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl StreamableHttp {
    pub fn new(config: &Mcp, rpc: Arc<Rpc>, auth: Arc<Authorization>) -> Result<StreamableHttp, String> {
        let url = http::url(&config.url)?;
        Ok(StreamableHttp(Arc::new(Shared {
            client: http::client(&url)?,
            url,
            headers: http::headers(&config.headers)?,
            auth,
            rpc,
            session: Mutex::new(None),
            revision: Mutex::new(None),
            generation: AtomicU64::new(0),
        })))
    }

    /// Opens the GET stream of the session just initialised, in the background: its messages
    /// are dispatched as they come. A server without one (405) is fine; a stream that ends or
    /// breaks is opened again after a second while the session and the connection last.
    pub fn listen(&self) {
        let generation = self.generation.fetch_add(1, Ordering::AcqRel) + 1;
        let shared = self.0.clone();
        tokio::spawn(async move {
            while shared.generation.load(Ordering::Acquire) == generation && !shared.rpc.is_closed() {
                if !shared.read_get_stream(generation).await {
                    break;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }
}

impl Shared {
    /// One GET stream, read until it ends; false when the server offers none.
    async fn read_get_stream(self: &Arc<Self>, generation: u64) -> bool {
        let request = self.client.http.get(self.url.clone()).header(ACCEPT, "text/event-stream");
        let Ok(mut response) = self.with_headers(request, &Value::Null).await.0.send().await else { return true };
        if !response.status().is_success() {
            // 405: the server sends nothing on its own; 401: the next request authorizes again;
            // anything else: the session is over.
            return false;
        }
        let mut parser = SseDecoder::new();
        let mut events = Vec::new();
        loop {
            // Wakes up now and then to notice a new session or a closed connection.
            let chunk = match tokio::time::timeout(Duration::from_secs(1), response.chunk()).await {
                Err(_) if self.generation.load(Ordering::Acquire) != generation || self.rpc.is_closed() => return false,
                Err(_) => continue,
                Ok(Ok(Some(bytes))) => bytes,
                Ok(_) => return true,
            };
            parser.feed_events(&chunk, &mut events);
            if parser.pending_bytes() > MESSAGE_LIMIT {
                return true;
            }
            for event in events.drain(..).filter(|e| e.is_message()) {
                if let Ok(message) = serde_json::from_str::<Value>(&event.data) {
                    self.deliver(message, None);
                }
            }
        }
    }

    fn session(&self) -> Option<String> {
        self.session.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

}

impl StreamableHttp {
    /// Starts over without a session and without a negotiated revision (before the handshake).
    pub fn reset(&self) {
        *self.session.lock().unwrap_or_else(|e| e.into_inner()) = None;
        *self.revision.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    pub fn set_revision(&self, revision: Revision) {
        *self.revision.lock().unwrap_or_else(|e| e.into_inner()) = Some(revision);
    }

}

impl Shared {
    /// The configured headers, the access token (with the generation it belongs to), the
    /// session and what the revision says about `message` (for a GET or DELETE: about none).
    async fn with_headers(&self, request: reqwest::RequestBuilder, message: &Value) -> (reqwest::RequestBuilder, u64) {
        let (headers, generation) = http::authorized(&self.headers, &self.auth).await;
        let mut request = request.headers(headers);
        if let Some(session) = self.session() {
            request = request.header(SESSION_HEADER, session);
        }
        let revision = self.revision.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for (name, value) in revision.map(|r| r.http_headers(message)).unwrap_or_default() {
            request = request.header(name, value);
        }
        (request, generation)
    }

    async fn post(&self, message: &Value) -> (reqwest::RequestBuilder, u64) {
        let request = self
            .client
            .http
            .post(self.url.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(message.to_string());
        self.with_headers(request, message).await
    }
}

impl StreamableHttp {
    /// Posts one message and, for a request, reads the answer (dispatching everything that
    /// comes with it) until the request is answered.
    pub async fn send(&self, message: &Value) -> Result<(), SendError> {
        let awaiting = message.get("method").and(message.get("id")).and_then(Value::as_u64);
        let had_session = self.session().is_some();
        let (request, generation) = self.post(message).await;
        let response = request.send().await.map_err(|e| SendError::Failed(http::describe(&e, &self.client)))?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND && had_session {
            return Err(SendError::SessionGone);
        }
        if let Some(refused) = http::unauthorized(&response, generation) {
            return Err(refused);
        }
        if !status.is_success() {
            let failure = http::status_error(response).await;
            if status == reqwest::StatusCode::BAD_REQUEST && had_session && forgot_session(&failure) {
                return Err(SendError::SessionGone);
            }
            return Err(SendError::Rejected(failure));
        }
        // 2026-07-28 has no session: a server's session id is not taken up.
        let sessions = self.revision.lock().unwrap_or_else(|e| e.into_inner()).as_ref().is_none_or(|r| r.has_session());
        if let Some(session) = response.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).filter(|_| sessions) {
            let mut current = self.session.lock().unwrap_or_else(|e| e.into_inner());
            if current.is_none() {
                *current = Some(session.to_owned());
            }
        }
        let Some(id) = awaiting else { return Ok(()) };
        if status == reqwest::StatusCode::ACCEPTED {
            return Ok(());
        }
        let is_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("text/event-stream"));
        if is_stream {
            self.read_stream(response, id).await
        } else {
            let body = http::read_limited(response, MESSAGE_LIMIT, too_large).await.map_err(SendError::Failed)?;
            let message = serde_json::from_slice::<Value>(&body)
                .map_err(|e| SendError::Failed(format!("the server's answer is not JSON: {e}")))?;
            self.0.deliver(message, Some(id));
            if self.rpc.is_pending(id) {
                return Err(SendError::Failed("the server's answer does not answer the request".to_owned()));
            }
            Ok(())
        }
    }

    async fn read_stream(&self, mut response: reqwest::Response, id: u64) -> Result<(), SendError> {
        let mut parser = SseDecoder::new();
        let mut events = Vec::new();
        loop {
            let chunk = response.chunk().await.map_err(|e| SendError::Failed(crate::network::describe(&e)))?;
            match &chunk {
                Some(bytes) => parser.feed_events(bytes, &mut events),
                None => parser.finish_events(&mut events),
            }
            if parser.pending_bytes() > MESSAGE_LIMIT {
                return Err(SendError::Failed(too_large()));
            }
            for event in events.drain(..).filter(|e| e.is_message()) {
                if let Ok(message) = serde_json::from_str::<Value>(&event.data) {
                    self.0.deliver(message, Some(id));
                }
            }
            if !self.rpc.is_pending(id) {
                return Ok(());
            }
            if chunk.is_none() {
                return Err(SendError::Failed("the server ended its event stream without an answer".to_owned()));
            }
        }
    }

}

impl Shared {
    /// Dispatches a message that came with the answer to our request `related`; replies (to
    /// a server's ping) are posted in the background.
    fn deliver(self: &Arc<Self>, message: Value, related: Option<u64>) {
        for reply in self.rpc.dispatch(message, related) {
            let shared = self.clone();
            tokio::spawn(async move {
                let send = async { shared.post(&reply).await.0.send().await };
                let _ = tokio::time::timeout(Duration::from_secs(10), send).await;
            });
        }
    }

}

impl StreamableHttp {
    /// Ends the session on the server (DELETE, best effort, at most 2 s); the GET stream ends.
    pub async fn shutdown(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        if self.session().is_some() {
            let end = async { self.with_headers(self.client.http.delete(self.url.clone()), &Value::Null).await.0.send().await };
            let _ = tokio::time::timeout(Duration::from_secs(2), end).await;
        }
    }
}

/// Whether an HTTP 400 (as [`http::status_error`] put it) is about the session: "Bad Request:
/// No valid session ID provided" (the TypeScript SDK's examples), "Session not found", … —
/// not any other bad request (an unsupported revision, invalid parameters).
fn forgot_session(failure: &str) -> bool {
    let failure = failure.to_ascii_lowercase();
    failure.contains("session") && ["no valid", "not found", "invalid", "unknown", "expired", "terminated"].iter().any(|w| failure.contains(w))
}

#[cfg(test)]
mod tests {
    use super::forgot_session;

    #[test]
    fn a_400_about_the_session_is_a_lost_session() {
        let everything = r#"HTTP 400 Bad Request: {"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":3}"#;
        assert!(forgot_session(everything));
        assert!(forgot_session("HTTP 400 Bad Request: Session not found"));
        assert!(!forgot_session(r#"HTTP 400 Bad Request: {"error":{"code":-32022,"message":"Unsupported protocol version"}}"#));
        assert!(!forgot_session("HTTP 400 Bad Request: invalid params"));
        assert!(!forgot_session("HTTP 400 Bad Request"));
    }
}
