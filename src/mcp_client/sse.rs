//! The legacy HTTP+SSE transport (MCP 2024-11-05): a GET opens an event stream whose first
//! `endpoint` event names (relative to the stream's url, or absolutely) where to POST messages;
//! the server's messages, answers included, arrive as `message` events on the stream.

use crate::sse::{Event, SseDecoder};
use super::http::{self, SendError};
use super::jsonrpc::Rpc;
use super::oauth::Authorization;
use crate::mcp::Mcp;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

pub(crate) struct LegacySse {
    poster: Arc<Poster>,
    reader: tokio::task::AbortHandle,
}

struct Poster {
    endpoint: reqwest::Url,
    headers: HeaderMap,
    client: crate::network::Client,
    auth: Arc<Authorization>,
}

impl Poster {
    async fn post(&self, message: &Value) -> Result<(), SendError> {
        let request = self.client.http.post(self.endpoint.clone()).header(CONTENT_TYPE, "application/json").body(message.to_string());
        let (request, generation) = authorized(request, &self.headers, &self.auth).await;
        let response = request.send().await.map_err(|e| SendError::Failed(http::describe(&e, &self.client)))?;
        if let Some(refused) = http::unauthorized(&response, generation) {
            return Err(refused);
        }
        if response.status().is_success() { Ok(()) } else { Err(SendError::Rejected(http::status_error(response).await)) }
    }
}

/// The configured headers and the access token, with the generation it belongs to.
async fn authorized(request: reqwest::RequestBuilder, headers: &HeaderMap, auth: &Authorization) -> (reqwest::RequestBuilder, u64) {
    let (headers, generation) = http::authorized(headers, auth).await;
    (request.headers(headers), generation)
}

impl LegacySse {
    /// Opens the stream and waits for the `endpoint` event (the caller bounds the wait).
    pub async fn open(config: &Mcp, rpc: Arc<Rpc>, auth: Arc<Authorization>) -> Result<LegacySse, SendError> {
        let url = http::url(&config.url).map_err(SendError::Failed)?;
        let headers = http::headers(&config.headers).map_err(SendError::Failed)?;
        let client = http::client(&url).map_err(SendError::Failed)?;
        let request = client.http.get(url.clone()).header(ACCEPT, "text/event-stream");
        let (request, generation) = authorized(request, &headers, &auth).await;
        let mut response = request.send().await.map_err(|e| SendError::Failed(http::describe(&e, &client)))?;
        if let Some(refused) = http::unauthorized(&response, generation) {
            return Err(refused);
        }
        if !response.status().is_success() {
            return Err(SendError::Failed(http::status_error(response).await));
        }
        let mut parser = SseDecoder::new();
        let mut events: Vec<Event> = Vec::new();
        let endpoint = read_endpoint(&url, &mut response, &mut parser, &mut events).await.map_err(SendError::Failed)?;
        let poster = Arc::new(Poster { endpoint, headers, client, auth });
        let reader_poster = poster.clone();
        let reader = tokio::spawn(async move {
            let deliver = |events: &mut Vec<Event>| {
                for event in events.drain(..).filter(Event::is_message) {
                    let Ok(message) = serde_json::from_str::<Value>(&event.data) else { continue };
                    for reply in rpc.dispatch(message, None) {
                        let poster = reader_poster.clone();
                        tokio::spawn(async move {
                            let _ = tokio::time::timeout(Duration::from_secs(10), poster.post(&reply)).await;
                        });
                    }
                }
            };
            deliver(&mut events);
            let reason = loop {
                match response.chunk().await {
                    Ok(Some(bytes)) => parser.feed_events(&bytes, &mut events),
                    Ok(None) => {
                        parser.finish_events(&mut events);
                        deliver(&mut events);
                        break "the server ended its event stream".to_owned();
                    }
                    Err(e) => break format!("the event stream failed: {}", crate::network::describe(&e)),
                }
                if parser.pending_bytes() > super::MESSAGE_LIMIT {
                    break super::too_large();
                }
                deliver(&mut events);
            };
            rpc.close(&reason);
        });
        Ok(LegacySse { poster, reader: reader.abort_handle() })
    }

    /// Posts one message; it is delivered even if the caller stops waiting.
    pub async fn send(&self, message: &Value) -> Result<(), SendError> {
        let poster = self.poster.clone();
        let message = message.clone();
        tokio::spawn(async move { poster.post(&message).await })
            .await
            .unwrap_or_else(|e| Err(SendError::Failed(format!("the request was lost: {e}"))))
    }

    pub fn shutdown(&self) {
        self.reader.abort();
    }
}

/// Reads the stream up to its `endpoint` event: where messages are posted, on the stream's
/// origin. The events before and after it stay in `events`.
async fn read_endpoint(
    url: &reqwest::Url,
    response: &mut reqwest::Response,
    parser: &mut SseDecoder,
    events: &mut Vec<Event>,
) -> Result<reqwest::Url, String> {
    loop {
        if let Some(i) = events.iter().position(|e| e.name == "endpoint") {
            let data = events.remove(i).data;
            let endpoint = url.join(data.trim()).map_err(|e| format!("invalid endpoint \"{data}\": {e}"))?;
            if endpoint.origin() != url.origin() {
                return Err(format!("the endpoint {endpoint} is not on the server's origin"));
            }
            return Ok(endpoint);
        }
        match response.chunk().await.map_err(|e| crate::network::describe(&e))? {
            Some(bytes) => parser.feed_events(&bytes, events),
            None => return Err("the event stream ended before the endpoint event".to_owned()),
        }
        if parser.pending_bytes() > super::MESSAGE_LIMIT {
            return Err(super::too_large());
        }
    }
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.reader.abort();
    }
}
