//! JSON-RPC 2.0 bookkeeping shared by the three transports: request ids, the calls waiting for
//! an answer, and what to do with each message the server sends (answers, server requests,
//! notifications).
//!
//! A waiting call is a [`Pending`]; dropping it (an aborted run drops its future) only forgets
//! the id, so a late answer is ignored and the connection stays usable.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// A call's outcome: the `result`, or a readable reason.
pub(crate) type Reply = Result<Value, String>;

pub(crate) struct Rpc {
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<Reply>>>,
    /// Why the connection is over (None while it is usable).
    closed: Mutex<Option<String>>,
    /// Set by `notifications/tools/list_changed`; the tool list is fetched again on next use.
    pub tools_changed: AtomicBool,
}

/// A request sent (or about to be) whose answer has not been taken yet.
pub(crate) struct Pending {
    rpc: Arc<Rpc>,
    id: u64,
    answer: oneshot::Receiver<Reply>,
}

impl Pending {
    #[cfg(test)]
    pub fn id(&self) -> u64 {
        self.id
    }

    pub async fn wait(&mut self) -> Reply {
        (&mut self.answer).await.unwrap_or_else(|_| Err("the connection was closed".to_owned()))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.rpc.lock_pending().remove(&self.id);
    }
}

impl Rpc {
    pub fn new() -> Arc<Rpc> {
        Arc::new(Rpc {
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            closed: Mutex::new(None),
            tools_changed: AtomicBool::new(false),
        })
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<Reply>>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new request message and the handle that receives its answer; fails when closed.
    pub fn start(self: &Arc<Self>, method: &str, params: Option<Value>) -> Result<(Value, Pending), String> {
        if let Some(reason) = self.closed() {
            return Err(reason);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, answer) = oneshot::channel();
        self.lock_pending().insert(id, sender);
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        Ok((message, Pending { rpc: self.clone(), id, answer }))
    }

    pub fn notification(method: &str) -> Value {
        json!({"jsonrpc": "2.0", "method": method})
    }

    /// Whether the request `id` still waits for its answer.
    pub fn is_pending(&self, id: u64) -> bool {
        self.lock_pending().contains_key(&id)
    }

    /// Handles one message (or a batch) from the server; returns the replies to send back.
    pub fn dispatch(&self, message: Value) -> Vec<Value> {
        let mut replies = Vec::new();
        match message {
            Value::Array(batch) => {
                for m in batch {
                    self.dispatch_one(m, &mut replies);
                }
            }
            m => self.dispatch_one(m, &mut replies),
        }
        replies
    }

    fn dispatch_one(&self, message: Value, replies: &mut Vec<Value>) {
        let Value::Object(m) = message else { return };
        match (m.get("method").and_then(Value::as_str), m.get("id")) {
            // A request from the server: only `ping` is understood.
            (Some(method), Some(id)) => replies.push(if method == "ping" {
                json!({"jsonrpc": "2.0", "id": id, "result": {}})
            } else {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("Method not found: {method}")}})
            }),
            (Some(method), None) => {
                if method == "notifications/tools/list_changed" {
                    self.tools_changed.store(true, Ordering::Relaxed);
                }
            }
            (None, Some(id)) => {
                let Some(id) = id.as_u64().or_else(|| id.as_str().and_then(|s| s.parse().ok())) else { return };
                let Some(sender) = self.lock_pending().remove(&id) else { return };
                let reply = match (m.get("result"), m.get("error")) {
                    (_, Some(error)) => Err(error_text(error)),
                    (Some(result), None) => Ok(result.clone()),
                    (None, None) => Ok(Value::Null),
                };
                let _ = sender.send(reply);
            }
            (None, None) => {}
        }
    }

    /// Ends the connection: every waiting call fails with `reason`, later ones at once.
    pub fn close(&self, reason: &str) {
        {
            let mut closed = self.closed.lock().unwrap_or_else(|e| e.into_inner());
            if closed.is_none() {
                *closed = Some(reason.to_owned());
            }
        }
        let reason = self.closed().unwrap_or_default();
        for (_, sender) in self.lock_pending().drain() {
            let _ = sender.send(Err(reason.clone()));
        }
    }

    pub fn closed(&self) -> Option<String> {
        self.closed.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn is_closed(&self) -> bool {
        self.closed.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }
}

fn error_text(error: &Value) -> String {
    let message = error.get("message").and_then(Value::as_str).unwrap_or("unknown error");
    match error.get("code").and_then(Value::as_i64) {
        Some(code) => format!("{message} (JSON-RPC error {code})"),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn answers_reach_their_caller_and_dropped_calls_are_forgotten() {
        let rpc = Rpc::new();
        let (m1, mut p1) = rpc.start("a", None).unwrap();
        let (m2, p2) = rpc.start("b", Some(json!({"x": 1}))).unwrap();
        assert_eq!(m2["params"], json!({"x": 1}));
        assert!(m1.get("params").is_none());
        let id2 = p2.id();
        drop(p2);
        assert!(!rpc.is_pending(id2));
        assert!(rpc.dispatch(json!({"jsonrpc": "2.0", "id": id2, "result": 1})).is_empty());
        rpc.dispatch(json!([{"jsonrpc": "2.0", "id": p1.id().to_string(), "error": {"code": -32000, "message": "no"}}]));
        assert_eq!(p1.wait().await, Err("no (JSON-RPC error -32000)".to_owned()));
    }

    #[test]
    fn server_requests_get_answers() {
        let rpc = Rpc::new();
        assert_eq!(rpc.dispatch(json!({"jsonrpc": "2.0", "id": "p", "method": "ping"})), vec![json!({"jsonrpc": "2.0", "id": "p", "result": {}})]);
        let r = rpc.dispatch(json!({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage"}));
        assert_eq!(r[0]["error"]["code"], -32601);
        assert!(rpc.dispatch(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})).is_empty());
        assert!(rpc.tools_changed.load(Ordering::Relaxed));
    }

    #[tokio::test]
    async fn close_fails_waiting_and_later_calls() {
        let rpc = Rpc::new();
        let (_, mut p) = rpc.start("a", None).unwrap();
        rpc.close("gone");
        assert_eq!(p.wait().await, Err("gone".to_owned()));
        assert_eq!(rpc.start("b", None).err(), Some("gone".to_owned()));
    }
}
