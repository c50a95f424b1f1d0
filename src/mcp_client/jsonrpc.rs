//! JSON-RPC 2.0 bookkeeping shared by the three transports: request ids, the calls waiting for
//! an answer and their progress, and what to do with each message the server sends (answers,
//! server requests, notifications).
//!
//! A waiting call is a [`Pending`]. Dropping it before its answer (an aborted run drops its
//! future, a timeout gives up) forgets the id, so a late answer is ignored and the connection
//! stays usable, and queues `notifications/cancelled` for the server (SPEC §H.4.2).
//!
//! A server request the client answers later (elicitation, sampling: SPEC §H.4.5) goes to the
//! handler with a [`Responder`], which queues the answer when it is given (an error if it is
//! dropped unanswered). The connection sends everything queued ([`Rpc::outgoing`]).
//!
//! Every exchange is logged here, the one place all three transports pass (SPEC §I.5.1,
//! category `visindigo.agent.mcp`): each answer at debug with the method, id, duration and
//! error; each server request and notification at debug by method; the messages themselves
//! at trace (Qt's debug shows them).

use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// A call's outcome: the `result`, or a readable reason.
pub(crate) type Reply = Result<Value, String>;

/// One `notifications/progress` of a call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// What the server's notifications (other than the progress of a call) are handed to.
pub(crate) type NotificationHandler = Box<dyn Fn(&str, &Value) + Send + Sync>;

/// A request from the server that is answered later.
#[derive(Debug, Clone)]
pub(crate) struct ServerRequest {
    pub method: String,
    pub params: Value,
    /// The request of ours whose HTTP answer stream carried it, when the transport tells.
    pub related: Option<u64>,
}

/// What server requests are handed to.
pub(crate) type RequestHandler = Box<dyn Fn(ServerRequest, Responder) + Send + Sync>;

/// Answers one server request, once; dropped unanswered it answers with an error.
pub(crate) struct Responder {
    id: Value,
    outgoing: mpsc::UnboundedSender<Value>,
    answered: bool,
}

impl Responder {
    /// A responder whose answer is not sent to the server but handed to the caller: the
    /// answers to a 2026 `input_required` result go into the retried request (SPEC §I.3.2), and
    /// the elicitations of a -32042 error (SPEC §I.3.5) are asked this way.
    pub fn collecting() -> (Responder, mpsc::UnboundedReceiver<Value>) {
        let (outgoing, answers) = mpsc::unbounded_channel();
        (Responder { id: Value::Null, outgoing, answered: false }, answers)
    }

    /// The outcome a collecting responder's message carries: `Ok(result)` or `Err(reason)`.
    pub fn outcome(message: &Value) -> Result<Value, String> {
        match (message.get("result"), message.get("error")) {
            (Some(result), _) => Ok(result.clone()),
            (None, Some(error)) => Err(error_text(error)),
            (None, None) => Err("no answer".to_owned()),
        }
    }

    pub fn answer(mut self, outcome: Result<Value, String>) {
        self.answered = true;
        let _ = self.outgoing.send(reply(&self.id, outcome));
    }
}

impl Drop for Responder {
    fn drop(&mut self) {
        if !self.answered {
            let _ = self.outgoing.send(reply(&self.id, Err("the client could not answer the request".to_owned())));
        }
    }
}

/// A JSON-RPC answer: the result, or an error (-32603 with the reason; -32601 has its own).
fn reply(id: &Value, outcome: Result<Value, String>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(message) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": message}}),
    }
}

struct Waiter {
    answer: oneshot::Sender<Reply>,
    progress: Option<mpsc::UnboundedSender<Progress>>,
    /// The whole answer message is the reply, error or not (`server/discover` reads the
    /// error's code and data).
    whole: bool,
    /// For the log line of its answer.
    method: String,
    sent: Instant,
}

pub(crate) struct Rpc {
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, Waiter>>,
    /// Why the connection is over (None while it is usable).
    closed: Mutex<Option<String>>,
    /// Set by `notifications/tools/list_changed`; the tool list is fetched again on next use.
    pub tools_changed: AtomicBool,
    /// What `roots/list` answers (SPEC §H.4.5), as root objects.
    roots: Mutex<Vec<Value>>,
    /// The elicitations of the -32042 errors that answered requests, by request id, until
    /// taken (SPEC §I.3.5).
    url_elicitations: Mutex<HashMap<u64, Vec<Value>>>,
    notifications: OnceLock<NotificationHandler>,
    /// The tasks a call follows, by id: where their `notifications/tasks/status` go (SPEC
    /// §I.3.4) instead of to the application.
    task_statuses: Mutex<TaskFollowers>,
    requests: OnceLock<RequestHandler>,
    /// Messages the client sends on its own: cancellations, late answers.
    outgoing_tx: mpsc::UnboundedSender<Value>,
    outgoing_rx: Mutex<Option<mpsc::UnboundedReceiver<Value>>>,
    /// The entry's name, for the log lines.
    server: OnceLock<String>,
}

/// How many statuses of tasks nobody follows (yet) are kept.
const EARLY_TASK_STATUSES: usize = 32;

#[derive(Default)]
struct TaskFollowers {
    by_task: HashMap<String, mpsc::UnboundedSender<Value>>,
    /// The latest statuses of tasks nobody followed, oldest first.
    early: std::collections::VecDeque<(String, Value)>,
}

/// The status notifications of one followed task ([`Rpc::task_statuses`]); dropped, the
/// task's notifications go to the application again.
pub(crate) struct TaskStatuses {
    rpc: Arc<Rpc>,
    id: String,
    statuses: mpsc::UnboundedReceiver<Value>,
}

impl TaskStatuses {
    /// The next status notification's params (a task object); never, once the connection is
    /// gone.
    pub async fn next(&mut self) -> Value {
        match self.statuses.recv().await {
            Some(task) => task,
            None => std::future::pending().await,
        }
    }
}

impl Drop for TaskStatuses {
    fn drop(&mut self) {
        // Closed, this follower's sender says so; a follower that replaced it stays.
        self.statuses.close();
        let mut followers = self.rpc.lock_task_statuses();
        if followers.by_task.get(&self.id).is_some_and(mpsc::UnboundedSender::is_closed) {
            followers.by_task.remove(&self.id);
        }
    }
}

/// A request sent (or about to be) whose answer has not been taken yet.
pub(crate) struct Pending {
    rpc: Arc<Rpc>,
    id: u64,
    answer: oneshot::Receiver<Reply>,
    progress: Option<mpsc::UnboundedReceiver<Progress>>,
    /// What `notifications/cancelled` says if this is dropped unanswered; None: nothing is sent.
    cancel_reason: Option<String>,
}

impl Pending {
    pub fn id(&self) -> u64 {
        self.id
    }

    pub async fn wait(&mut self) -> Reply {
        let reply = (&mut self.answer).await.unwrap_or_else(|_| Err("the connection was closed".to_owned()));
        self.cancel_reason = None;
        reply
    }

    /// The call's progress notifications (once; None when not asked for with `watch`).
    pub fn take_progress(&mut self) -> Option<mpsc::UnboundedReceiver<Progress>> {
        self.progress.take()
    }

    /// The server never received this request (sending it failed): nothing to cancel.
    pub fn forget(&mut self) {
        self.cancel_reason = None;
    }

    pub fn set_cancel_reason(&mut self, reason: String) {
        if self.cancel_reason.is_some() {
            self.cancel_reason = Some(reason);
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let unanswered = self.rpc.lock_pending().remove(&self.id).is_some();
        if let Some(reason) = self.cancel_reason.take().filter(|_| unanswered && !self.rpc.is_closed()) {
            let cancelled = Rpc::notification("notifications/cancelled", Some(json!({"requestId": self.id, "reason": reason})));
            let _ = self.rpc.outgoing_tx.send(cancelled);
        }
    }
}

impl Rpc {
    pub fn new() -> Arc<Rpc> {
        let (outgoing_tx, outgoing_rx) = mpsc::unbounded_channel();
        Arc::new(Rpc {
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            closed: Mutex::new(None),
            tools_changed: AtomicBool::new(false),
            roots: Mutex::new(Vec::new()),
            url_elicitations: Mutex::new(HashMap::new()),
            notifications: OnceLock::new(),
            task_statuses: Mutex::new(TaskFollowers::default()),
            requests: OnceLock::new(),
            outgoing_tx,
            outgoing_rx: Mutex::new(Some(outgoing_rx)),
            server: OnceLock::new(),
        })
    }

    /// Names the server in the log lines (the entry's name).
    pub fn name(&self, server: &str) {
        let _ = self.server.set(server.to_owned());
    }

    fn server(&self) -> &str {
        self.server.get().map_or("", String::as_str)
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Waiter>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new request message and the handle that receives its answer; fails when closed. With
    /// `watch`, the request carries a `progressToken` (its id) and the handle its progress.
    /// `initialize` and `server/discover` are never cancelled (the MCP lifecycle forbids it); everything else is when
    /// given up.
    pub fn start(self: &Arc<Self>, method: &str, params: Option<Value>, watch: bool) -> Result<(Value, Pending), String> {
        self.start_with(method, params, watch, false)
    }

    /// As [`Rpc::start`], but the reply is the server's whole answer message, `result` or
    /// `error` (a closed connection still fails).
    pub fn start_whole(self: &Arc<Self>, method: &str, params: Option<Value>) -> Result<(Value, Pending), String> {
        self.start_with(method, params, false, true)
    }

    fn start_with(self: &Arc<Self>, method: &str, params: Option<Value>, watch: bool, whole: bool) -> Result<(Value, Pending), String> {
        if let Some(reason) = self.closed() {
            return Err(reason);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, answer) = oneshot::channel();
        let (progress_tx, progress) = if watch {
            let (tx, rx) = mpsc::unbounded_channel();
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        self.lock_pending().insert(id, Waiter { answer: sender, progress: progress_tx, whole, method: method.to_owned(), sent: Instant::now() });
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        let mut params = params;
        if watch {
            let p = params.get_or_insert_with(|| json!({}));
            if let Some(o) = p.as_object_mut() {
                let meta = o.entry("_meta").or_insert_with(|| json!({}));
                if let Some(meta) = meta.as_object_mut() {
                    meta.insert("progressToken".to_owned(), json!(id));
                }
            }
        }
        if let Some(params) = params {
            message["params"] = params;
        }
        tracing::trace!(target: crate::log::MCP, server = self.server(), id, method, body = %message, "request");
        let cancel_reason = (!matches!(method, "initialize" | "server/discover")).then(|| "the client no longer needs the result".to_owned());
        Ok((message, Pending { rpc: self.clone(), id, answer, progress, cancel_reason }))
    }

    pub fn notification(method: &str, params: Option<Value>) -> Value {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        message
    }

    /// Queues a request whose answer nobody waits for (`tasks/cancel` of a call given up: SPEC
    /// §I.3.4); its answer, when it comes, is ignored like a late one.
    pub fn send_later(&self, method: &str, params: Value) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let _ = self.outgoing_tx.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }

    /// What the client sends on its own, for the connection to send (taken once).
    pub fn outgoing(&self) -> Option<mpsc::UnboundedReceiver<Value>> {
        self.outgoing_rx.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Where the server's notifications go (set once, when the connection is made).
    pub fn on_notification(&self, handler: NotificationHandler) {
        let _ = self.notifications.set(handler);
    }

    /// The `notifications/tasks/status` of task `id` from now on, for as long as the returned
    /// handle lives (one follower per task: a second replaces the first).
    /// A status the server pushed before the call's answer named the task (a server may
    /// start the work, and tell of it, before it answers) comes first.
    pub fn task_statuses(self: &Arc<Self>, id: &str) -> TaskStatuses {
        let (sender, statuses) = mpsc::unbounded_channel();
        let mut followers = self.lock_task_statuses();
        if let Some(at) = followers.early.iter().rposition(|(task, _)| task == id) {
            let _ = sender.send(followers.early[at].1.clone());
            followers.early.retain(|(task, _)| task != id);
        }
        followers.by_task.insert(id.to_owned(), sender);
        TaskStatuses { rpc: self.clone(), id: id.to_owned(), statuses }
    }

    fn lock_task_statuses(&self) -> std::sync::MutexGuard<'_, TaskFollowers> {
        self.task_statuses.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands a task's status notification to the call that follows it; false when none does
    /// (then it is kept a while as an early one).
    fn task_status(&self, params: &Value) -> bool {
        let Some(id) = params.get("taskId").and_then(Value::as_str) else { return false };
        let mut followers = self.lock_task_statuses();
        if followers.by_task.get(id).is_some_and(|follower| follower.send(params.clone()).is_ok()) {
            return true;
        }
        if followers.early.len() == EARLY_TASK_STATUSES {
            followers.early.pop_front();
        }
        followers.early.push_back((id.to_owned(), params.clone()));
        false
    }

    /// Where the server's elicitation and sampling requests go (set once); without a handler
    /// they are declined with -32601.
    pub fn on_request(&self, handler: RequestHandler) {
        let _ = self.requests.set(handler);
    }

    /// Replaces the roots `roots/list` answers; true when they changed.
    pub fn set_roots(&self, roots: Vec<Value>) -> bool {
        let mut current = self.roots.lock().unwrap_or_else(|e| e.into_inner());
        let changed = *current != roots;
        *current = roots;
        changed
    }

    /// What `roots/list` answers.
    pub fn roots(&self) -> Vec<Value> {
        self.roots.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether the request `id` still waits for its answer.
    pub fn is_pending(&self, id: u64) -> bool {
        self.lock_pending().contains_key(&id)
    }

    /// Handles one message (or a batch) from the server; returns the replies to send back now.
    /// `related`: our request whose HTTP answer stream carried it, if any.
    pub fn dispatch(&self, message: Value, related: Option<u64>) -> Vec<Value> {
        let mut replies = Vec::new();
        match message {
            Value::Array(batch) => {
                for m in batch {
                    self.dispatch_one(m, related, &mut replies);
                }
            }
            m => self.dispatch_one(m, related, &mut replies),
        }
        replies
    }

    fn dispatch_one(&self, message: Value, related: Option<u64>, replies: &mut Vec<Value>) {
        tracing::trace!(target: crate::log::MCP, server = self.server(), body = %message, "from the server");
        let Value::Object(m) = message else {
            tracing::debug!(target: crate::log::MCP, server = self.server(), "a message that is not a JSON object: ignored");
            return;
        };
        let params = m.get("params").cloned().unwrap_or(Value::Null);
        match (m.get("method").and_then(Value::as_str), m.get("id")) {
            (Some(method), Some(id)) => tracing::debug!(target: crate::log::MCP, server = self.server(), method, id = %id, "server request"),
            (Some(method), None) if method != "notifications/progress" => {
                tracing::debug!(target: crate::log::MCP, server = self.server(), method, "notification")
            }
            _ => {}
        }
        match (m.get("method").and_then(Value::as_str), m.get("id")) {
            (Some(method @ ("elicitation/create" | "sampling/createMessage")), Some(id)) if self.requests.get().is_some() => {
                let responder = Responder { id: id.clone(), outgoing: self.outgoing_tx.clone(), answered: false };
                let request = ServerRequest { method: method.to_owned(), params, related };
                if let Some(handler) = self.requests.get() {
                    handler(request, responder);
                }
            }
            (Some(method), Some(id)) => replies.push(self.answer(method, id)),
            (Some("notifications/progress"), None) => {
                if !self.progress(&params)
                    && let Some(handler) = self.notifications.get()
                {
                    handler("notifications/progress", &params);
                }
            }
            (Some("notifications/tasks/status"), None) if self.task_status(&params) => {}
            (Some(method), None) => {
                if method == "notifications/tools/list_changed" {
                    self.tools_changed.store(true, Ordering::Relaxed);
                }
                if let Some(handler) = self.notifications.get() {
                    handler(method, &params);
                }
            }
            (None, Some(id)) => {
                let Some(id) = as_id(id) else { return };
                let Some(waiter) = self.lock_pending().remove(&id) else {
                    tracing::debug!(target: crate::log::MCP, server = self.server(), id, "an answer nobody waits for (given up, or never asked): ignored");
                    return;
                };
                let ms = waiter.sent.elapsed().as_secs_f64() * 1000.0;
                match m.get("error") {
                    Some(error) => tracing::debug!(target: crate::log::MCP, server = self.server(), method = %waiter.method, id, ms, error = %error_text(error), "answered with an error"),
                    None => tracing::debug!(target: crate::log::MCP, server = self.server(), method = %waiter.method, id, ms, "answered"),
                }
                if waiter.whole {
                    let _ = waiter.answer.send(Ok(Value::Object(m)));
                    return;
                }
                let reply = match (m.get("result"), m.get("error")) {
                    (_, Some(error)) => {
                        if error.get("code").and_then(Value::as_i64) == Some(super::url_elicitation::CODE) {
                            let wanted = super::url_elicitation::elicitations(error.get("data").unwrap_or(&Value::Null));
                            self.url_elicitations.lock().unwrap_or_else(|e| e.into_inner()).insert(id, wanted);
                        }
                        Err(error_text(error))
                    }
                    (Some(result), None) => Ok(result.clone()),
                    (None, None) => Ok(Value::Null),
                };
                let _ = waiter.answer.send(reply);
            }
            (None, None) => {}
        }
    }

    /// The answer now to a request from the server: `ping`, `roots/list`; anything else is
    /// not offered (-32601).
    fn answer(&self, method: &str, id: &Value) -> Value {
        match method {
            "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            "roots/list" => {
                let roots = self.roots.lock().unwrap_or_else(|e| e.into_inner()).clone();
                json!({"jsonrpc": "2.0", "id": id, "result": {"roots": roots}})
            }
            _ => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("Method not found: {method}")}}),
        }
    }

    /// Hands a progress notification to the call whose token it names; false when none does.
    fn progress(&self, params: &Value) -> bool {
        let Some(token) = params.get("progressToken").and_then(as_id) else { return false };
        let Some(progress) = params.get("progress").and_then(Value::as_f64) else { return false };
        let pending = self.lock_pending();
        let Some(sender) = pending.get(&token).and_then(|w| w.progress.as_ref()) else { return false };
        let _ = sender.send(Progress {
            progress,
            total: params.get("total").and_then(Value::as_f64),
            message: params.get("message").and_then(Value::as_str).map(str::to_owned),
        });
        true
    }

    /// The elicitations of the -32042 error that answered the request `id`, if it was one.
    pub fn take_url_elicitations(&self, id: u64) -> Option<Vec<Value>> {
        self.url_elicitations.lock().unwrap_or_else(|e| e.into_inner()).remove(&id)
    }

    /// Ends the connection: every waiting call fails with `reason`, later ones at once.
    pub fn close(&self, reason: &str) {
        {
            let mut closed = self.closed.lock().unwrap_or_else(|e| e.into_inner());
            if closed.is_none() {
                tracing::debug!(target: crate::log::MCP, server = self.server(), reason, "connection closed");
                *closed = Some(reason.to_owned());
            }
        }
        let reason = self.closed().unwrap_or_default();
        for (_, waiter) in self.lock_pending().drain() {
            let _ = waiter.answer.send(Err(reason.clone()));
        }
    }

    pub fn closed(&self) -> Option<String> {
        self.closed.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn is_closed(&self) -> bool {
        self.closed.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }
}

/// Our ids (and progress tokens) are numbers; a server may echo them as strings.
fn as_id(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
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
        let (m1, mut p1) = rpc.start("a", None, false).unwrap();
        let (m2, p2) = rpc.start("b", Some(json!({"x": 1})), false).unwrap();
        assert_eq!(m2["params"], json!({"x": 1}));
        assert!(m1.get("params").is_none());
        let id2 = p2.id();
        drop(p2);
        assert!(!rpc.is_pending(id2));
        assert!(rpc.dispatch(json!({"jsonrpc": "2.0", "id": id2, "result": 1}), None).is_empty());
        rpc.dispatch(json!([{"jsonrpc": "2.0", "id": p1.id().to_string(), "error": {"code": -32000, "message": "no"}}]), None);
        assert_eq!(p1.wait().await, Err("no (JSON-RPC error -32000)".to_owned()));
    }

    #[test]
    fn each_exchange_is_logged_with_its_server_and_bodies_only_at_trace() {
        use crate::log::{MCP, Severity, tests::capture};
        let lines = capture(|| {
            let rpc = Rpc::new();
            rpc.name("logged-server");
            let (_, _ok) = rpc.start("tools/list", None, false).unwrap();
            let (_, _failed) = rpc.start("tools/call", Some(json!({"name": "t"})), false).unwrap();
            rpc.dispatch(json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}), None);
            rpc.dispatch(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "no such tool"}}), None);
            rpc.dispatch(json!({"jsonrpc": "2.0", "id": 9, "result": {}}), None);
            rpc.dispatch(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "hi"}}), None);
            rpc.close("the server exited");
        });
        let ours: Vec<_> = lines.into_iter().filter(|(_, c, m)| c == MCP && m.contains("server=\"logged-server\"")).collect();
        let at = |severity: Severity, start: &str| ours.iter().filter(|(s, _, m)| *s == severity && m.starts_with(start)).map(|(_, _, m)| m.clone()).collect::<Vec<_>>();
        let answered = at(Severity::Debug, "answered server");
        assert!(answered.len() == 1 && answered[0].contains("method=tools/list id=1 ms="), "{ours:?}");
        let failed = at(Severity::Debug, "answered with an error");
        assert!(failed.len() == 1 && failed[0].contains("method=tools/call id=2") && failed[0].contains("no such tool"), "{ours:?}");
        assert_eq!(at(Severity::Debug, "an answer nobody waits for").len(), 1, "{ours:?}");
        assert!(at(Severity::Debug, "notification").iter().any(|m| m.contains("notifications/message")), "{ours:?}");
        assert!(at(Severity::Debug, "connection closed").iter().any(|m| m.contains("the server exited")), "{ours:?}");
        // The messages themselves only at trace.
        assert_eq!(at(Severity::Trace, "request").len(), 2, "{ours:?}");
        assert!(at(Severity::Trace, "from the server").iter().any(|m| m.contains(r#""tools":[]"#)), "{ours:?}");
        assert!(ours.iter().filter(|(s, _, _)| *s == Severity::Debug).all(|(_, _, m)| !m.contains(r#""tools""#)), "{ours:?}");
    }

    #[test]
    fn server_requests_get_answers() {
        let rpc = Rpc::new();
        assert_eq!(rpc.dispatch(json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}), None), vec![json!({"jsonrpc": "2.0", "id": "p", "result": {}})]);
        let r = rpc.dispatch(json!({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage"}), None);
        assert_eq!(r[0]["error"]["code"], -32601);
        assert!(rpc.dispatch(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}), None).is_empty());
        assert!(rpc.tools_changed.load(Ordering::Relaxed));
    }

    #[tokio::test]
    async fn close_fails_waiting_and_later_calls() {
        let rpc = Rpc::new();
        let (_, mut p) = rpc.start("a", None, false).unwrap();
        rpc.close("gone");
        assert_eq!(p.wait().await, Err("gone".to_owned()));
        assert_eq!(rpc.start("b", None, false).err(), Some("gone".to_owned()));
    }

    #[tokio::test]
    async fn progress_reaches_its_call_and_a_call_given_up_is_cancelled() {
        let rpc = Rpc::new();
        let mut abandoned = rpc.outgoing().unwrap();
        let (message, mut p) = rpc.start("tools/call", Some(json!({"name": "t"})), true).unwrap();
        assert_eq!(message["params"]["_meta"]["progressToken"], p.id());
        let mut progress = p.take_progress().unwrap();
        let token = p.id().to_string();
        rpc.dispatch(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 2, "total": 4, "message": "half"}}), None);
        assert_eq!(progress.recv().await, Some(Progress { progress: 2.0, total: Some(4.0), message: Some("half".into()) }));
        let id = p.id();
        p.set_cancel_reason("timed out".into());
        drop(p);
        assert_eq!(
            abandoned.recv().await,
            Some(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "timed out"}}))
        );

        // Answered, never sent, and initialize: nothing to cancel.
        let (_, mut answered) = rpc.start("a", None, false).unwrap();
        rpc.dispatch(json!({"jsonrpc": "2.0", "id": answered.id(), "result": {}}), None);
        answered.wait().await.unwrap();
        drop(answered);
        let (_, mut unsent) = rpc.start("b", None, false).unwrap();
        unsent.forget();
        drop(unsent);
        drop(rpc.start("initialize", None, false).unwrap());
        assert!(abandoned.try_recv().is_err());
    }

    #[test]
    fn roots_and_notifications() {
        let rpc = Rpc::new();
        assert!(rpc.set_roots(vec![json!({"uri": "file:///w"})]));
        assert!(!rpc.set_roots(vec![json!({"uri": "file:///w"})]));
        let r = rpc.dispatch(json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}), None);
        assert_eq!(r[0]["result"], json!({"roots": [{"uri": "file:///w"}]}));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        rpc.on_notification(Box::new(move |method, params| log.lock().unwrap().push((method.to_owned(), params.clone()))));
        rpc.dispatch(json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "x://1"}}), None);
        rpc.dispatch(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 99, "progress": 1}}), None);
        assert_eq!(*seen.lock().unwrap(), vec![
            ("notifications/resources/updated".to_owned(), json!({"uri": "x://1"})),
            ("notifications/progress".to_owned(), json!({"progressToken": 99, "progress": 1})),
        ]);
    }

    #[tokio::test]
    async fn a_followed_tasks_statuses_go_to_its_follower_and_the_others_to_the_app() {
        let rpc = Rpc::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        rpc.on_notification(Box::new(move |method, params| log.lock().unwrap().push((method.to_owned(), params.clone()))));
        let status = |id: &str, message: &str| {
            json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {"taskId": id, "status": "working", "statusMessage": message}})
        };
        // Pushed before the call's answer named the task: to the app, and to the follower first.
        rpc.dispatch(status("t-1", "early"), None);
        let mut followed = rpc.task_statuses("t-1");
        assert_eq!(followed.next().await["statusMessage"], "early");
        rpc.dispatch(status("t-1", "one"), None);
        rpc.dispatch(status("t-2", "other"), None);
        assert_eq!(followed.next().await["statusMessage"], "one");
        // A second follower of the same task replaces the first; the first, dropped, leaves it be.
        let mut again = rpc.task_statuses("t-1");
        drop(followed);
        rpc.dispatch(status("t-1", "two"), None);
        assert_eq!(again.next().await["statusMessage"], "two");
        drop(again);
        rpc.dispatch(status("t-1", "unfollowed"), None);
        rpc.dispatch(json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {"status": "working"}}), None);
        let to_app: Vec<Value> = seen.lock().unwrap().iter().map(|(m, p)| {
            assert_eq!(m, "notifications/tasks/status");
            p["statusMessage"].clone()
        }).collect();
        assert_eq!(to_app, [json!("early"), json!("other"), json!("unfollowed"), Value::Null]);
    }

    #[tokio::test]
    async fn server_requests_are_answered_later_and_always() {
        let rpc = Rpc::new();
        let mut outgoing = rpc.outgoing().unwrap();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = asked.clone();
        rpc.on_request(Box::new(move |request, responder| {
            log.lock().unwrap().push((request.method.clone(), request.related));
            if request.method == "elicitation/create" {
                responder.answer(Ok(json!({"action": "decline"})));
            } // sampling: dropped unanswered
        }));
        assert!(rpc.dispatch(json!({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": {}}), Some(7)).is_empty());
        assert!(rpc.dispatch(json!({"jsonrpc": "2.0", "id": 9, "method": "sampling/createMessage", "params": {}}), None).is_empty());
        assert_eq!(outgoing.recv().await, Some(json!({"jsonrpc": "2.0", "id": "e1", "result": {"action": "decline"}})));
        assert_eq!(outgoing.recv().await.unwrap()["error"]["code"], -32603);
        assert_eq!(*asked.lock().unwrap(), vec![("elicitation/create".to_owned(), Some(7)), ("sampling/createMessage".to_owned(), None)]);
    }
}
