//! The legacy HTTP+SSE transport (MCP 2024-11-05): a GET opens an event stream whose first
//! `endpoint` event names (relative to the stream's url, or absolutely) where to POST messages;
//! the server's messages, answers included, arrive as `message` events on the stream.

use crate::sse::{Event, SseDecoder};
use super::http;
use super::jsonrpc::Rpc;
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
}

impl Poster {
    async fn post(&self, message: &Value) -> Result<(), String> {
        let request = self
            .client
            .http
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(message.to_string());
        let response = request.send().await.map_err(|e| http::describe(&e, &self.client))?;
        if response.status().is_success() { Ok(()) } else { Err(http::status_error(response).await) }
    }
}

impl LegacySse {
    /// Opens the stream and waits for the `endpoint` event (the caller bounds the wait).
    pub async fn open(config: &Mcp, rpc: Arc<Rpc>) -> Result<LegacySse, String> {
        let url = http::url(&config.url)?;
        let headers = http::headers(&config.headers)?;
        let client = http::client(&url)?;
        let request = client.http.get(url.clone()).headers(headers.clone()).header(ACCEPT, "text/event-stream");
        let mut response = request.send().await.map_err(|e| http::describe(&e, &client))?;
        if !response.status().is_success() {
            return Err(http::status_error(response).await);
        }
        let mut parser = SseDecoder::new();
        let mut events: Vec<Event> = Vec::new();
        let endpoint = loop {
            if let Some(i) = events.iter().position(|e| e.name == "endpoint") {
                let data = events.remove(i).data;
                let endpoint = url.join(data.trim()).map_err(|e| format!("invalid endpoint \"{data}\": {e}"))?;
                if endpoint.origin() != url.origin() {
                    return Err(format!("the endpoint {endpoint} is not on the server's origin"));
                }
                break endpoint;
            }
            match response.chunk().await.map_err(|e| crate::network::describe(&e))? {
                Some(bytes) => parser.feed_events(&bytes, &mut events),
                None => return Err("the event stream ended before the endpoint event".to_owned()),
            }
            if parser.pending_bytes() > super::MESSAGE_LIMIT {
                return Err(super::too_large());
            }
        };
        let poster = Arc::new(Poster { endpoint, headers, client });
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
    pub async fn send(&self, message: &Value) -> Result<(), String> {
        let poster = self.poster.clone();
        let message = message.clone();
        tokio::spawn(async move { poster.post(&message).await })
            .await
            .unwrap_or_else(|e| Err(format!("the request was lost: {e}")))
    }

    pub fn shutdown(&self) {
        self.reader.abort();
    }
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.reader.abort();
    }
}
