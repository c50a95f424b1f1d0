//! The MCP client (SPEC §E.11, §F): connects the MCP servers a dialog uses, offers their tools
//! to the model and forwards the model's calls to them.
//!
//! **Design.** This is a small hand-written JSON-RPC client rather than the official `rmcp`
//! SDK. The run needs exact control over things rmcp keeps to itself or lacks: the staged stdio
//! shutdown (close stdin, SIGTERM, SIGKILL, reap) with `PR_SET_PDEATHSIG` and an `atexit`
//! fallback (a Job Object on Windows), a bounded stderr tail in error messages,
//! re-initialising a streamable HTTP session the server forgot, per-call timeouts and
//! cancellation that never poison a connection, and the legacy HTTP+SSE transport, which rmcp no longer has. All of it needs only what the crate
//! already builds on (tokio, reqwest), so it adds no dependency and no compile time.
//!
//! Weighed again for OAuth (SPEC §H.4.6, issue 16): rmcp's `auth` feature (discovery, dynamic
//! registration, PKCE and refresh through the `oauth2` crate) would bring that crate and
//! rmcp's own HTTP stack beside ours, still leaves the loopback redirect listener and the
//! token hand-over to the application to us, and would not change the transports above. The
//! flow (`oauth`) is about 900 lines (1,100 with its tests) on crates already in the tree (ring,
//! base64, httparse, url); its one hand-written parser, the `WWW-Authenticate` reader, is
//! fuzzed with the loopback listener's request reader (`fuzz/fuzz_targets/oauth_inputs.rs`).
//! So the client stays hand-written.
//!
//! **Files.** `jsonrpc` (ids, waiting calls, server requests), `protocol` (initialize, version
//! negotiation, tools/list, tools/call results), `revision` (2025-11-25 and older or 2026-07-28:
//! what each request carries, how the server asks the client), `naming` (`<server>__<tool>`), `stdio`,
//! `streamable_http`, `sse` (legacy), `http` (shared HTTP bits), `oauth` (authorization),
//! `tasks` (tool calls run as tasks), `url_elicitation` (the -32042 error),
//! `children` (process ids for exit-time cleanup); this file: a connection, the process-wide
//! pool, and what one run keeps ([`RunTools`]).
//!
//! **Lifecycle.** Connections live in a pool keyed by the entry's connection settings (name,
//! transport, url, command, arguments, environment, headers), shared by every run and dialog.
//! A run connects what it needs on first use (concurrently; `initialize` must complete within
//! 10 s), only `autoStart` entries are started, and a dead connection is dropped (and its child
//! reaped) when next needed, so the server is started again. Removing or replacing an entry
//! ([`retire`]) shuts its connection down; [`shutdown_all`] ends them all.

mod children;
mod http;
mod jsonrpc;
pub mod naming;
pub mod oauth;
mod protocol;
mod revision;
mod sse;
mod stdio;
mod streamable_http;
mod tasks;
mod url_elicitation;

pub use protocol::Tool;
pub(crate) use jsonrpc::{Progress, Responder, ServerRequest};

use crate::center::{Center, WeakCenter};
use crate::mcp::{Mcp, Transport};
use crate::message::ToolOutput;
use http::SendError;
use jsonrpc::{Pending, Rpc};
use oauth::{Authorization, Renewals};
use revision::{Discovered, InputRequest, Revision};
use serde_json::{Value, json};
use sse::LegacySse;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use stdio::Stdio;
use streamable_http::StreamableHttp;
use tokio::time::{Instant, timeout, timeout_at};

/// A server that has not completed `initialize` by then is unreachable (SPEC §F).
pub const INITIALIZE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `server/discover` is waited for before `initialize` is asked instead (within
/// [`INITIALIZE_TIMEOUT`], so that a server that never answers it still has time for that).
pub const DISCOVER_TIMEOUT: Duration = Duration::from_secs(5);
/// The limit of listing the tools (all pages) after `initialize`.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(30);
/// At most this many `tools/list` pages are read.
const MAX_PAGES: usize = 1000;

/// The largest message a server may send — one stdio line, one JSON answer, one SSE event —
/// before the connection is closed: a hostile server cannot take the host's memory.
pub const MESSAGE_LIMIT: usize = 64 * 1024 * 1024;

/// Why a connection closed on an oversized message.
fn too_large() -> String {
    format!("the server sent a message of more than {} MiB", MESSAGE_LIMIT >> 20)
}

enum Link {
    Stdio(Stdio),
    Http(Box<StreamableHttp>),
    Sse(LegacySse),
}

/// One live connection to a server, initialised, with its tool list.
pub(crate) struct Connection {
    rpc: Arc<Rpc>,
    link: Link,
    tools: Mutex<Arc<Vec<Tool>>>,
    /// Counts streamable HTTP sessions, so that concurrent calls re-initialise only once.
    session: tokio::sync::Mutex<u64>,
    auth: Arc<Authorization>,
    asking: Arc<Askers>,
    /// Whether the server runs `tools/call` as a task (SPEC §I.3.4), as its last handshake said.
    runs_tasks: AtomicBool,
    /// The revision the server speaks, remembered by the pool's slot across connections so
    /// that a reconnect does not ask again (SPEC §I.3.1).
    revision: Arc<Mutex<Option<Revision>>>,
    /// Set once the handshake is done.
    connected: AtomicBool,
    /// 2026: the resources the application subscribed to, and the `subscriptions/listen`
    /// running for them and the server's list changes (SPEC §I.3.3).
    subscriptions: Mutex<BTreeSet<String>>,
    listening: Mutex<Option<tokio::task::AbortHandle>>,
}

/// Who answers the server's elicitation and sampling requests made during a tool call (SPEC
/// §H.4.5): the run that made the call. Called on a library thread; answers through
/// `responder`, now or later, from any thread.
pub(crate) trait Asker: Send + Sync {
    fn ask(&self, request: ServerRequest, responder: Responder);
}

/// The tool calls in flight on a connection with their askers, so that a server request goes
/// to the run whose call it belongs to: the call whose HTTP answer stream carried it, else
/// (stdio, legacy SSE, which do not tell) the latest call still running. Outside any call it
/// is declined.
#[derive(Default)]
struct Askers(Mutex<Vec<(u64, Arc<dyn Asker>)>>);

impl Askers {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u64, Arc<dyn Asker>)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn route(&self, request: ServerRequest, responder: Responder) {
        let asker = {
            let calls = self.lock();
            let related = request.related.and_then(|id| calls.iter().find(|(call, _)| *call == id));
            related.or(calls.last()).map(|(_, asker)| asker.clone())
        };
        match asker {
            Some(asker) => asker.ask(request, responder),
            None if request.method == "elicitation/create" => responder.answer(Ok(json!({"action": "decline"}))),
            None => responder.answer(Err(format!("{} is declined: no tool call of this server is running", request.method))),
        }
    }
}

/// Keeps a call's asker registered while the call runs.
struct Asking<'a> {
    askers: &'a Askers,
    id: u64,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        self.askers.lock().retain(|(call, _)| *call != self.id);
    }
}

/// How a request is watched (SPEC §H.4.2): the time it may go without an answer or a progress
/// notification, and who hears the progress.
pub(crate) struct Watch<'a> {
    pub limit: Duration,
    pub on_progress: &'a (dyn Fn(Progress) + Sync),
    /// Who answers the server's requests during this call (None: they are declined).
    pub asker: Option<Arc<dyn Asker>>,
}

/// Why a request has no result.
pub(crate) enum RequestError {
    Failed(String),
    /// Neither an answer nor progress came within the watch's limit.
    TimedOut(Duration),
    /// -32042: the user must first open the pages of these URL-mode elicitations (SPEC §I.3.5).
    UrlElicitationRequired(String, Vec<Value>),
}

impl RequestError {
    fn reason(self) -> String {
        match self {
            RequestError::Failed(reason) | RequestError::UrlElicitationRequired(reason, _) => reason,
            RequestError::TimedOut(limit) => silence(limit),
        }
    }
}

/// Why a watched request was given up.
fn silence(limit: Duration) -> String {
    format!("no answer and no progress within {} s", limit.as_secs_f64())
}

/// The Centers that used a connection (a run of one of their dialogs, `request_mcp`), which
/// hear its server's notifications (SPEC §H.4.4) under the entry's name.
#[derive(Default)]
pub(crate) struct Listeners(Mutex<Vec<WeakCenter>>);

impl Listeners {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<WeakCenter>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add(&self, center: WeakCenter) {
        let mut centers = self.lock();
        centers.retain(WeakCenter::is_alive);
        if !centers.iter().any(|c| c.same_as(&center)) {
            centers.push(center);
        }
    }

    fn alive(&self) -> Vec<Center> {
        self.lock().iter().filter_map(WeakCenter::upgrade).collect()
    }

    fn notify(&self, server: &str, method: &str, params: &Value) {
        for center in self.alive() {
            center.mcp_notified(server, method, params);
        }
    }

    /// Asks the Centers to open `url` (SPEC §H.4.6); false when none is left to ask.
    fn authorization_required(&self, server: &str, url: &str) -> bool {
        let centers = self.alive();
        for center in &centers {
            center.mcp_authorization_required(server, url);
        }
        !centers.is_empty()
    }

    fn tokens_changed(&self, server: &str, tokens: &oauth::Tokens) {
        for center in self.alive() {
            center.mcp_tokens_changed(server, tokens);
        }
    }
}

impl Connection {
    /// Connects, initialises and lists the tools; on any failure nothing is left running. The
    /// server's notifications go to `listeners`; a server that refuses the authorization gets
    /// new tokens from `auth` (the user's time in the browser is not part of the 10 s).
    async fn open(config: &Mcp, listeners: Arc<Listeners>, auth: Arc<Authorization>, revision: Arc<Mutex<Option<Revision>>>) -> Result<Connection, String> {
        if !config.is_valid() {
            return Err("the MCP entry is not valid (a stdio server needs a command, the others a url)".to_owned());
        }
        register_credentials(config);
        let mut deadline = Instant::now() + INITIALIZE_TIMEOUT;
        let late = || format!("the server did not complete initialize within {} s", INITIALIZE_TIMEOUT.as_secs());
        let rpc = Rpc::new();
        rpc.name(&config.name);
        rpc.set_roots(protocol::roots(&config.roots));
        let (heard, server) = (listeners.clone(), config.name.clone());
        rpc.on_notification(Box::new(move |method, params| {
            // The first frame of a 2026 `subscriptions/listen` is the library's, not news.
            if method != revision::stateless::LISTEN_ACKNOWLEDGED {
                heard.notify(&server, method, params);
            }
        }));
        let asking = Arc::new(Askers::default());
        let routes = asking.clone();
        rpc.on_request(Box::new(move |request, responder| routes.route(request, responder)));
        let link = match config.transport {
            Transport::Stdio => Link::Stdio(Stdio::spawn(config, rpc.clone())?),
            Transport::StreamableHttp => Link::Http(Box::new(StreamableHttp::new(config, rpc.clone(), auth.clone())?)),
            Transport::Sse => {
                let mut tries = Renewals::default();
                loop {
                    match timeout_at(deadline, LegacySse::open(config, rpc.clone(), auth.clone())).await.map_err(|_| late())? {
                        Ok(sse) => break Link::Sse(sse),
                        Err(failure) => tries.renew(&auth, failure).await?,
                    }
                    deadline = Instant::now() + INITIALIZE_TIMEOUT;
                }
            }
        };
        let connection = Connection {
            rpc,
            link,
            tools: Mutex::new(Arc::new(Vec::new())),
            session: tokio::sync::Mutex::new(0),
            auth,
            asking,
            revision,
            connected: AtomicBool::new(false),
            subscriptions: Mutex::new(BTreeSet::new()),
            listening: Mutex::new(None),
            runs_tasks: AtomicBool::new(false),
        };
        let ready = async {
            let mut tries = Renewals::default();
            loop {
                match timeout_at(deadline, connection.handshake()).await.map_err(|_| late())? {
                    Ok(()) => break,
                    Err(failure) => tries.renew(&connection.auth, failure).await?,
                }
                deadline = Instant::now() + INITIALIZE_TIMEOUT;
            }
            timeout(LIST_TIMEOUT, connection.list_tools())
                .await
                .map_err(|_| format!("tools/list was not answered within {} s", LIST_TIMEOUT.as_secs()))?
        };
        match ready.await {
            Ok(tools) => {
                *connection.tools.lock().unwrap_or_else(|e| e.into_inner()) = Arc::new(tools);
                Ok(connection)
            }
            Err(reason) => {
                let reason = connection.explain(reason);
                connection.shutdown().await;
                Err(reason)
            }
        }
    }

    fn is_alive(&self) -> bool {
        !self.rpc.is_closed()
    }

    /// Adds a stdio server's stderr to the reason of a request that failed, but only when the
    /// server is gone (SPEC §I.3.7): a healthy server's error is what the server said.
    fn explain_failed_request(&self, reason: String) -> String {
        if self.is_alive() { reason } else { self.explain(reason) }
    }

    /// Adds a stdio server's stderr to `reason` when it is not there yet.
    fn explain(&self, reason: String) -> String {
        match &self.link {
            Link::Stdio(s) if !reason.contains("; stderr: ") => s.describe(reason),
            _ => reason,
        }
    }

    async fn send(&self, message: &Value) -> Result<(), SendError> {
        match &self.link {
            Link::Stdio(s) => s.send(message).map_err(SendError::Failed),
            Link::Http(h) => h.send(message).await,
            Link::Sse(s) => s.send(message).await,
        }
    }

    fn known_revision(&self) -> Option<Revision> {
        self.revision.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The revision, the server's info and capabilities (SPEC §I.3.1); None before the
    /// handshake is done.
    fn info(&self) -> Option<Value> {
        self.connected.load(Ordering::Acquire).then(|| self.known_revision().map(|r| r.info())).flatten()
    }

    /// Settles the revision (SPEC §I.3.1): the one this entry's server spoke before, else
    /// `server/discover` and, where its answer is no evidence of a 2026 server, `initialize`.
    async fn handshake(&self) -> Result<(), SendError> {
        if let Link::Http(h) = &self.link {
            h.reset();
        }
        let revision = match self.known_revision() {
            Some(Revision::Stateless(known)) => Revision::Stateless(known),
            Some(Revision::Stateful(_)) => self.initialize().await?,
            None => match self.discover().await? {
                Discovered::Stateless(found) => Revision::Stateless(found),
                Discovered::Initialize => self.initialize().await?,
                Discovered::Incompatible(reason) => return Err(SendError::Failed(reason)),
            },
        };
        if let Link::Http(h) = &self.link {
            h.set_revision(revision.clone());
            if revision.has_session() {
                h.listen();
            }
        }
        self.runs_tasks.store(tasks::server_runs_tool_tasks(&revision.info()), Ordering::Relaxed);
        *self.revision.lock().unwrap_or_else(|e| e.into_inner()) = Some(revision);
        self.connected.store(true, Ordering::Release);
        Ok(())
    }

    /// `server/discover` with the 2026 envelope, and what its answer means. A network error
    /// or a closed connection fails; an HTTP error status or no answer in time means
    /// `initialize` (as in the official Python SDK's client).
    async fn discover(&self) -> Result<Discovered, SendError> {
        let probe = Revision::Stateless(revision::stateless::Stateless::probe());
        if let Link::Http(h) = &self.link {
            h.set_revision(probe.clone());
        }
        let params = probe.stamp("server/discover", None);
        let (message, mut pending) = self.rpc.start_whole("server/discover", params).map_err(SendError::Failed)?;
        let asked = async {
            self.send(&message).await?;
            pending.wait().await.map_err(SendError::Failed)
        };
        match timeout(DISCOVER_TIMEOUT, asked).await {
            Err(_) | Ok(Err(SendError::Rejected(_))) => Ok(Discovered::Initialize),
            Ok(Err(failure)) => Err(failure),
            Ok(Ok(answer)) => Ok(match (answer.get("result"), answer.get("error")) {
                (_, Some(error)) => revision::discovered(Err(Some(error))),
                (Some(result), None) => revision::discovered(Ok(result)),
                (None, None) => Discovered::Initialize,
            }),
        }
    }

    /// `initialize`, version check, `notifications/initialized` (2025-11-25 and older).
    async fn initialize(&self) -> Result<Revision, SendError> {
        if let Link::Http(h) = &self.link {
            h.reset();
        }
        let (message, mut pending) = self.rpc.start("initialize", Some(protocol::initialize_params()), false).map_err(SendError::Failed)?;
        self.send(&message).await?;
        let result = pending.wait().await.map_err(SendError::Failed)?;
        let version = protocol::negotiated_version(&result).map_err(SendError::Failed)?;
        let revision = Revision::Stateful(revision::stateful::Stateful::from_initialize(&version, &result));
        if let Link::Http(h) = &self.link {
            h.set_revision(revision.clone());
        }
        self.send(&Rpc::notification("notifications/initialized", None)).await?;
        Ok(revision)
    }

    /// Sends what the client says on its own — `notifications/cancelled` for every request
    /// given up (SPEC §H.4.2), the late answers to server requests (§H.4.5) — for as long as
    /// the connection lives.
    /// 2026 (SPEC §I.3.3): listens with `subscriptions/listen` — for the list changes the
    /// server says it announces and the resources subscribed to — replacing the listen running
    /// (given up, so cancelled on the server); a listen that ends is opened again after a
    /// second while the connection lives. Its events are dispatched as any notification: to
    /// `mcpNotification`, and a changed tool list is fetched again before the next round.
    fn listen(self: &Arc<Self>) {
        let Some(Revision::Stateless(server)) = self.known_revision() else { return };
        let uris: Vec<String> = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect();
        let Some(params) = revision::stateless::listen_params(&server, &uris) else { return };
        let connection = Arc::downgrade(self);
        let task = tokio::spawn(async move {
            loop {
                let Some(c) = connection.upgrade().filter(|c| c.is_alive()) else { break };
                let stamped = c.known_revision().and_then(|r| r.stamp("subscriptions/listen", Some(params.clone())));
                // Holds the connection while it listens; shutting it down aborts this task.
                let _ = c.exchange_once("subscriptions/listen", stamped, None).await;
                drop(c);
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        if let Some(previous) = self.listening.lock().unwrap_or_else(|e| e.into_inner()).replace(task.abort_handle()) {
            previous.abort();
        }
    }

    /// 2026 has no `resources/subscribe`: the application's subscription changes what is
    /// listened to (SPEC §I.3.3). None: not such a request, or not a 2026 server.
    fn subscribe(self: &Arc<Self>, method: &str, params: &Option<Value>) -> Option<Result<Value, String>> {
        let subscribing = match method {
            "resources/subscribe" => true,
            "resources/unsubscribe" => false,
            _ => return None,
        };
        if !matches!(self.known_revision(), Some(Revision::Stateless(_))) {
            return None;
        }
        let Some(uri) = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str) else {
            return Some(Err(format!("{method} needs params {{\"uri\": …}}")));
        };
        let changed = {
            let mut subscribed = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
            if subscribing { subscribed.insert(uri.to_owned()) } else { subscribed.remove(uri) }
        };
        if changed {
            self.listen();
        }
        Some(Ok(json!({})))
    }

    fn send_outgoing(self: &Arc<Self>) {
        let Some(mut outgoing) = self.rpc.outgoing() else { return };
        let connection = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(message) = outgoing.recv().await {
                let Some(c) = connection.upgrade() else { break };
                let _ = timeout(Duration::from_secs(10), c.send(&message)).await;
            }
        });
    }

    /// Makes `roots` what `roots/list` answers, telling the server when they changed.
    async fn use_roots(&self, roots: &[String]) {
        if self.rpc.set_roots(protocol::roots(roots)) {
            let _ = self.send(&Rpc::notification("notifications/roots/list_changed", None)).await;
        }
    }

    async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, String> {
        self.exchange(method, params, None).await.map_err(RequestError::reason)
    }

    /// One request, watched or not, sent as the server's revision says. A 2026 server's
    /// `input_required` result is answered through the call's asker, as its server requests
    /// are in 2025, and the request sent again with the answers, for as many rounds as the
    /// server asks within the call's limit, restarted by progress (SPEC §I.3.2).
    async fn exchange(&self, method: &str, params: Option<Value>, watch: Option<&Watch<'_>>) -> Result<Value, RequestError> {
        let Some(watch) = watch else {
            return self.exchange_rounds(method, params, None).await;
        };
        let active = Mutex::new(Instant::now());
        let on_progress = |p: Progress| {
            *active.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            (watch.on_progress)(p);
        };
        let inner = Watch { limit: watch.limit, on_progress: &on_progress, asker: watch.asker.clone() };
        let deadline = || *active.lock().unwrap_or_else(|e| e.into_inner()) + watch.limit;
        self.exchange_rounds(method, params, Some((&inner, &deadline))).await
    }

    /// The rounds of one request: each sent stamped by the revision; `watch` with the time
    /// by which the next round must be asked and answered.
    async fn exchange_rounds(&self, method: &str, mut params: Option<Value>, watch: Option<(&Watch<'_>, &(dyn Fn() -> Instant + Sync))>) -> Result<Value, RequestError> {
        let timed_out = || RequestError::TimedOut(watch.map_or(Duration::ZERO, |(w, _)| w.limit));
        loop {
            let revision = self.known_revision();
            let stamped = match &revision {
                Some(r) => r.stamp(method, params.clone()),
                None => params.clone(),
            };
            let result = self.exchange_once(method, stamped, watch.map(|(w, _)| w)).await?;
            let Some(asked) = revision.as_ref().and_then(|r| r.input_required(&result)) else { return Ok(result) };
            let asked = asked.map_err(RequestError::Failed)?;
            // A server that asks round after round without end is given up at the limit.
            if watch.is_some_and(|(_, deadline)| Instant::now() >= deadline()) {
                return Err(timed_out());
            }
            let answering = self.answer_inputs(method, &asked.requests, watch.map(|(w, _)| w));
            let answers = match watch.map(|(_, deadline)| deadline()) {
                Some(deadline) => timeout_at(deadline, answering).await.map_err(|_| timed_out())?,
                None => answering.await,
            }
            .map_err(RequestError::Failed)?;
            params = revision::stateless::retry_params(params, answers, asked.request_state);
        }
    }

    /// The answers to the questions of one `input_required` result or task (SPEC §I.3.2,
    /// §I.3.4), keyed as asked: elicitation and sampling through the call's asker (outside a
    /// call as server requests are: elicitation declined, sampling refused), the roots from the
    /// entry. A question the client does not answer fails the request with its reason.
    async fn answer_inputs(&self, method: &str, requests: &[InputRequest], watch: Option<&Watch<'_>>) -> Result<serde_json::Map<String, Value>, String> {
        let asker = watch.and_then(|w| w.asker.clone());
        let each = requests.iter().map(|request| {
            let asker = asker.clone();
            async move {
                if request.method == "roots/list" {
                    return Ok((request.key.clone(), json!({"roots": self.rpc.roots()})));
                }
                let (responder, mut answer) = Responder::collecting();
                let server_request = ServerRequest { method: request.method.clone(), params: request.params.clone(), related: None };
                match asker {
                    Some(asker) => asker.ask(server_request, responder),
                    None => self.asking.route(server_request, responder),
                }
                let message = answer.recv().await.unwrap_or(Value::Null);
                Responder::outcome(&message)
                    .map(|result| (request.key.clone(), result))
                    .map_err(|reason| format!("the server asked for {} during {method} and got no answer: {reason}", request.method))
            }
        });
        futures_util::future::join_all(each).await.into_iter().collect()
    }

    /// One request as it is sent; a streamable HTTP session the server forgot is
    /// re-initialised once, a refused authorization renewed (SPEC §H.4.6). Given up (dropped,
    /// timed out) it is cancelled on the server.
    async fn exchange_once(&self, method: &str, params: Option<Value>, watch: Option<&Watch<'_>>) -> Result<Value, RequestError> {
        let mut retried = false;
        let mut tries = Renewals::default();
        loop {
            let session = *self.session.lock().await;
            let (message, mut pending) = self.rpc.start(method, params.clone(), watch.is_some()).map_err(RequestError::Failed)?;
            let failure = match self.await_answer(&message, &mut pending, watch).await {
                Ok(reply) => return reply,
                Err(failure) => failure,
            };
            pending.forget();
            match failure {
                SendError::Failed(reason) | SendError::Rejected(reason) => return Err(RequestError::Failed(reason)),
                unauthorized @ SendError::Unauthorized { .. } => {
                    tries.renew(&self.auth, unauthorized).await.map_err(RequestError::Failed)?;
                }
                SendError::SessionGone if !retried => {
                    drop(pending);
                    retried = true;
                    let mut current = self.session.lock().await;
                    if *current == session {
                        if let Err(failure) = self.handshake().await {
                            let reason = format!("the server forgot the session and initialising again failed: {}", failure.reason());
                            self.rpc.close(&reason);
                            return Err(RequestError::Failed(reason));
                        }
                        *current += 1;
                    }
                }
                SendError::SessionGone => {
                    let reason = "the server forgot the session again".to_owned();
                    self.rpc.close(&reason);
                    return Err(RequestError::Failed(reason));
                }
            }
        }
    }

    /// Sends `message` and waits for its answer: Ok(the reply), or Err when sending failed.
    /// Each progress notification restarts the watch's limit.
    async fn await_answer(
        &self,
        message: &Value,
        pending: &mut Pending,
        watch: Option<&Watch<'_>>,
    ) -> Result<Result<Value, RequestError>, SendError> {
        let mut progress = pending.take_progress();
        let mut deadline = watch.map(|w| Instant::now() + w.limit);
        let _asking = watch.and_then(|w| w.asker.clone()).map(|asker| {
            self.asking.lock().push((pending.id(), asker));
            Asking { askers: &self.asking, id: pending.id() }
        });
        let sent = self.send(message);
        tokio::pin!(sent);
        let mut sending = true;
        loop {
            tokio::select! {
                result = &mut sent, if sending => result.map(|()| sending = false)?,
                reply = pending.wait() => {
                    // Progress that came before the answer is still reported, in order.
                    if let (Some(w), Some(p)) = (watch, progress.as_mut()) {
                        while let Ok(update) = p.try_recv() {
                            (w.on_progress)(update);
                        }
                    }
                    let id = pending.id();
                    return Ok(reply.map_err(|reason| match self.rpc.take_url_elicitations(id) {
                        Some(wanted) => RequestError::UrlElicitationRequired(reason, wanted),
                        None => RequestError::Failed(reason),
                    }));
                }
                Some(p) = next_progress(&mut progress) => {
                    if let Some(w) = watch {
                        deadline = Some(Instant::now() + w.limit);
                        (w.on_progress)(p);
                    }
                }
                () = sleep_until(deadline) => {
                    let limit = watch.map_or(Duration::ZERO, |w| w.limit);
                    pending.set_cancel_reason(silence(limit));
                    return Ok(Err(RequestError::TimedOut(limit)));
                }
            }
        }
    }

    async fn list_tools(&self) -> Result<Vec<Tool>, String> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}));
            let (page, next) = protocol::parse_tools(&self.request("tools/list", params).await?);
            // A tool the client cannot call is never offered (SPEC §I.3.4).
            let runs_tasks = self.runs_tasks.load(Ordering::Relaxed);
            tools.extend(page.into_iter().filter(|t| tasks::callable(t.task, runs_tasks)));
            match next {
                Some(next) if Some(&next) != cursor.as_ref() => cursor = Some(next),
                _ => break,
            }
        }
        Ok(tools)
    }

    /// The tool list, fetched again when the server said it changed.
    async fn tools(&self) -> Arc<Vec<Tool>> {
        if self.rpc.tools_changed.swap(false, Ordering::Relaxed)
            && let Ok(Ok(tools)) = timeout(LIST_TIMEOUT, self.list_tools()).await
        {
            *self.tools.lock().unwrap_or_else(|e| e.into_inner()) = Arc::new(tools);
        }
        self.tools.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// `tools/call`: the Tool message, `{"error": …}` on any failure (SPEC §E.11); a tool that
    /// may be a task is called as one and followed to its result (SPEC §I.3.4); a call that
    /// needs the user to open a page first (-32042) is sent again, once, when the user did
    /// (SPEC §I.3.5).
    pub(crate) async fn call(&self, tool: &str, arguments: Value, watch: &Watch<'_>) -> ToolOutput {
        let failed = |reason: String| ToolOutput::from(json!({"error": crate::redact::redact(&reason)}).to_string());
        let mut outcome = self.call_once(tool, arguments.clone(), watch).await;
        if let Err(RequestError::UrlElicitationRequired(reason, wanted)) = outcome {
            outcome = match url_elicitation::satisfy(&reason, &wanted, watch).await {
                Ok(()) => self.call_once(tool, arguments, watch).await,
                Err(e) => Err(e),
            };
        }
        match outcome {
            Ok(result) => protocol::call_result(&result),
            Err(RequestError::Failed(reason) | RequestError::UrlElicitationRequired(reason, _)) => failed(self.explain_failed_request(reason)),
            Err(RequestError::TimedOut(limit)) => failed(format!("the MCP tool call {tool} timed out: {}", silence(limit))),
        }
    }

    /// One `tools/call`, followed to its result when it is a task.
    async fn call_once(&self, tool: &str, arguments: Value, watch: &Watch<'_>) -> Result<Value, RequestError> {
        let mut params = json!({"name": tool, "arguments": arguments});
        let support = self.tools.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|t| t.name == tool).map(|t| t.task);
        let asks = self.known_revision().is_some_and(|r| r.asks_for_tasks());
        if asks && tasks::wanted(support.unwrap_or_default(), self.runs_tasks.load(Ordering::Relaxed)) {
            params["task"] = json!({});
        }
        let answer = self.exchange("tools/call", Some(params), Some(watch)).await?;
        match tasks::read_call(&answer).map_err(RequestError::Failed)? {
            tasks::Answer::Task(task) => tasks::follow(self, *task, watch).await,
            tasks::Answer::Result(result) => Ok(result),
        }
    }

    async fn shutdown(&self) {
        if let Some(listening) = self.listening.lock().unwrap_or_else(|e| e.into_inner()).take() {
            listening.abort();
        }
        match &self.link {
            Link::Stdio(s) => s.shutdown().await,
            Link::Http(h) => h.shutdown().await,
            Link::Sse(s) => s.shutdown(),
        }
        self.rpc.close("the connection was shut down");
    }
}

/// The next progress of a watched call; never, for one that is not watched.
async fn next_progress(progress: &mut Option<tokio::sync::mpsc::UnboundedReceiver<Progress>>) -> Option<Progress> {
    match progress {
        Some(p) => p.recv().await,
        None => std::future::pending().await,
    }
}

/// Sleeps until `deadline`; forever without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

// --- the pool ------------------------------------------------------------------------------

struct Slot {
    connection: tokio::sync::Mutex<Option<Arc<Connection>>>,
    /// Set when the entry is removed: nothing is connected through this slot any more.
    retired: AtomicBool,
    /// The Centers that used the server, across its connections.
    listeners: Arc<Listeners>,
    /// The server's tokens, kept across its connections.
    auth: Arc<Authorization>,
    /// The revision the server spoke, kept across its connections (SPEC §I.3.1).
    revision: Arc<Mutex<Option<Revision>>>,
}

impl Slot {
    fn new(config: &Mcp) -> Slot {
        let listeners = Arc::new(Listeners::default());
        Slot {
            connection: tokio::sync::Mutex::new(None),
            retired: AtomicBool::new(false),
            auth: Arc::new(Authorization::new(config, listeners.clone())),
            listeners,
            revision: Arc::new(Mutex::new(None)),
        }
    }
}

static POOL: Mutex<BTreeMap<String, Arc<Slot>>> = Mutex::new(BTreeMap::new());

fn pool() -> std::sync::MutexGuard<'static, BTreeMap<String, Arc<Slot>>> {
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers `config`'s credentials with the redaction layer (SPEC §I.5.1): its credential
/// headers and a stdio server's credential environment variables
/// (`crate::mcp::is_credential_name`) — an error or a log line that quotes one shows `***`.
fn register_credentials(config: &Mcp) {
    for (name, value) in config.headers.iter().chain(&config.environment) {
        if crate::mcp::is_credential_name(name) {
            crate::redact::register(value);
            // "Bearer <token>": the token alone may be echoed too.
            if let Some((_, token)) = value.split_once(' ') {
                crate::redact::register(token);
            }
        }
    }
}

/// What identifies a connection: everything but `enabled`, `autoStart` and what a live
/// connection takes on (roots, limits, the sampling provider, the OAuth client and tokens).
fn key(c: &Mcp) -> String {
    json!([c.name, c.transport.as_str(), c.url, c.command, c.arguments, c.environment, c.headers]).to_string()
}

/// The pool's live connection for `config`, connected now when `start` is true and there is
/// none; `center` hears the server's notifications and authorization requests from now on.
/// Connecting runs as its own task, so a caller that gives up (an aborted run) never leaves a
/// half-made connection behind: it is finished and kept for the next run.
async fn connection(config: Mcp, start: bool, center: WeakCenter) -> Result<Option<Arc<Connection>>, String> {
    let slot = pool().entry(key(&config)).or_insert_with(|| Arc::new(Slot::new(&config))).clone();
    slot.listeners.add(center);
    slot.auth.adopt(&config);
    let task = crate::runtime::runtime().spawn(async move {
        let mut held = slot.connection.lock().await;
        if let Some(c) = held.as_ref().filter(|c| c.is_alive()) {
            return Ok(Some(c.clone()));
        }
        if let Some(dead) = held.take() {
            tokio::spawn(async move { dead.shutdown().await });
        }
        if !start || slot.retired.load(Ordering::Acquire) {
            return Ok(None);
        }
        let c = Arc::new(Connection::open(&config, slot.listeners.clone(), slot.auth.clone(), slot.revision.clone()).await?);
        c.send_outgoing();
        c.listen();
        *held = Some(c.clone());
        Ok(Some(c))
    });
    task.await.unwrap_or_else(|e| Err(format!("connecting failed: {e}")))
}

/// Shuts down the pool's connection for `config` (in the background), if there is one: the
/// entry was removed or replaced.
pub fn retire(config: &Mcp) {
    let Some(slot) = pool().remove(&key(config)) else { return };
    slot.retired.store(true, Ordering::Release);
    crate::runtime::runtime().spawn(async move {
        let connection = slot.connection.lock().await.take();
        if let Some(c) = connection {
            c.shutdown().await;
        }
    });
}

/// `old` was replaced by `new` (same name): retires `old` unless it connects the same way.
pub fn retire_replaced(old: &Mcp, new: &Mcp) {
    if key(old) != key(new) {
        retire(old);
    }
}

/// Retires every entry of `old` that is not in `new` with the same connection settings.
pub fn retire_missing<'a>(old: impl IntoIterator<Item = &'a Mcp>, new: impl IntoIterator<Item = &'a Mcp>) {
    let kept: HashSet<String> = new.into_iter().map(key).collect();
    for m in old {
        if !kept.contains(&key(m)) {
            retire(m);
        }
    }
}

/// Shuts every connection down and waits for it: stdio servers get their stdin closed, then
/// the platform's stages (`children::STAGES`), and are reaped. Blocks for at most about 8 s; callable from any
/// thread that is not one of the library's runtime threads. Later runs connect again.
pub fn shutdown_all() {
    let slots: Vec<Arc<Slot>> = std::mem::take(&mut *pool()).into_values().collect();
    if !slots.is_empty() {
        let (done, finished) = std::sync::mpsc::channel();
        crate::runtime::runtime().spawn(async move {
            let each = slots.into_iter().map(|slot| async move {
                slot.retired.store(true, Ordering::Release);
                let connection = slot.connection.lock().await.take();
                if let Some(c) = connection {
                    c.shutdown().await;
                }
            });
            futures_util::future::join_all(each).await;
            let _ = done.send(());
        });
        let _ = finished.recv_timeout(Duration::from_secs(5));
    }
    // Whatever did not go quietly (or is still starting up) is ended the hard way.
    children::terminate_all_now();
}

// --- requests of the application ------------------------------------------------------------

/// `{protocolVersion, serverInfo, capabilities}` of the pool's live connection for `config`;
/// an empty object while it is not connected (SPEC §I.3.1).
pub(crate) fn server_info(config: &Mcp) -> Value {
    let Some(slot) = pool().get(&key(config)).cloned() else { return json!({}) };
    let Ok(held) = slot.connection.try_lock() else { return json!({}) };
    held.as_ref().filter(|c| c.is_alive()).and_then(|c| c.info()).unwrap_or_else(|| json!({}))
}

/// Sends `method` to the server of `config` over the pool's connection, connecting it if
/// needed (SPEC §H.4.4); `center` hears the server's notifications from then on. Progress
/// restarts the entry's call limit as for tool calls.
pub(crate) async fn request(config: Mcp, center: WeakCenter, method: &str, params: Option<Value>) -> Result<Value, String> {
    if method == "initialize" || method.starts_with("notifications/") {
        return Err(format!("{method} is not a request the application may send; the library owns the connection's lifecycle"));
    }
    let c = connection(config.clone(), true, center)
        .await
        .map_err(|e| crate::redact::redact(&e).into_owned())?
        .ok_or_else(|| format!("the MCP server {} was removed", config.name))?;
    c.use_roots(&config.roots).await;
    if let Some(subscribed) = c.subscribe(method, &params) {
        return subscribed;
    }
    let watch = Watch { limit: Duration::from_millis(u64::from(config.call_timeout_ms)), on_progress: &|_| {}, asker: None };
    c.exchange(method, params, Some(&watch)).await.map_err(|e| crate::redact::redact(&c.explain_failed_request(e.reason())).into_owned())
}

// --- what one run keeps ----------------------------------------------------------------------

/// The enabled entries a run uses: the dialog's own, then the Center's that the dialog does not
/// override by name, even with a disabled entry (SPEC §F).
pub(crate) fn active_servers(own: &[Mcp], center: &[Mcp]) -> Vec<Mcp> {
    let overridden = |m: &Mcp| own.iter().any(|o| o.name == m.name);
    own.iter().chain(center.iter().filter(|m| !overridden(m))).filter(|m| m.enabled).cloned().collect()
}

/// An offered tool: where it lives and how a call of it is watched.
#[derive(Clone)]
pub(crate) struct Target {
    pub connection: Arc<Connection>,
    /// The entry's name.
    pub server: String,
    /// The tool's name on its server.
    pub tool: String,
    pub limit: Duration,
    pub sampling_provider_id: String,
}

/// A run's MCP servers and the names their tools were offered under. Each server is resolved
/// once per run (a failure is reported once and its tools left out for the rest of the run).
#[derive(Default)]
pub(crate) struct RunTools {
    state: Mutex<RunState>,
}

#[derive(Default)]
struct RunState {
    /// Per connection key: the connection this run uses (None: not available in this run).
    servers: HashMap<String, Option<Arc<Connection>>>,
    /// The servers of the last `prepare`, in order, with their tool lists.
    current: Vec<(Mcp, Arc<Connection>, Arc<Vec<Tool>>)>,
    /// Offered name → the tool behind it.
    offered: HashMap<String, Target>,
}

impl RunTools {
    fn state(&self) -> std::sync::MutexGuard<'_, RunState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Connects the servers not resolved yet in this run (concurrently) and fetches the tool
    /// lists; `failed(server, message)` is called for each server that could not be reached.
    /// The servers' roots become the entries' and `center` hears their notifications and
    /// authorization requests.
    pub async fn prepare(&self, servers: &[Mcp], center: &Center, mut failed: impl FnMut(&str, String)) {
        let todo: Vec<Mcp> = {
            let state = self.state();
            let mut seen = HashSet::new();
            servers.iter().filter(|m| !state.servers.contains_key(&key(m)) && seen.insert(key(m))).cloned().collect()
        };
        let results = futures_util::future::join_all(todo.iter().map(|m| connection(m.clone(), m.auto_start, center.downgrade()))).await;
        for (m, result) in todo.iter().zip(results) {
            let connection = match result {
                Ok(c) => c,
                Err(message) => {
                    failed(&m.name, message);
                    None
                }
            };
            self.state().servers.insert(key(m), connection);
        }
        let connected: Vec<(Mcp, Arc<Connection>)> = {
            let state = self.state();
            servers.iter().filter_map(|m| Some((m.clone(), state.servers.get(&key(m))?.clone()?))).collect()
        };
        let mut current = Vec::new();
        for (m, c) in connected {
            c.use_roots(&m.roots).await;
            let tools = c.tools().await;
            current.push((m, c, tools));
        }
        self.state().current = current;
    }

    /// The tools of the prepared servers under the names they are offered as, avoiding the
    /// names in `taken` (the functions'); remembers the names for [`RunTools::target`].
    pub fn offer(&self, mut taken: HashSet<String>) -> Vec<Tool> {
        let mut state = self.state();
        let pairs: Vec<(&Mcp, &Arc<Connection>, &Tool)> =
            state.current.iter().flat_map(|(m, c, list)| list.iter().map(move |t| (m, c, t))).collect();
        let names = naming::assign(pairs.iter().map(|(m, _, t)| (m.name.as_str(), t.name.as_str())), &mut taken);
        let mut offered = HashMap::new();
        let mut tools = Vec::with_capacity(names.len());
        for (name, (m, c, t)) in names.into_iter().zip(pairs) {
            let limit = Duration::from_millis(u64::from(m.call_timeout_ms));
            let target = Target {
                connection: c.clone(),
                server: m.name.clone(),
                tool: t.name.clone(),
                limit,
                sampling_provider_id: m.sampling_provider_id.clone(),
            };
            offered.insert(name.clone(), target);
            tools.push(Tool { name, ..t.clone() });
        }
        state.offered = offered;
        tools
    }

    /// The tool behind an offered name.
    pub fn target(&self, name: &str) -> Option<Target> {
        self.state().offered.get(name).cloned()
    }
}

/// Everything the client does with one message from a server, for the `mcp_messages` fuzz
/// target: dispatched as an answer to a pending request (and as a batch; a status of task
/// "t" to its follower, of another task kept as an early one), then read as an
/// initialize result, a tools/list result, a tools/call result (a task of either revision
/// too) and a `tasks/get` result, as a -32042 error's data, and (an array of strings) as an
/// entry's roots. Must never panic.
#[cfg(fuzzing)]
pub fn read_server_message(message: serde_json::Value) {
    let rpc = jsonrpc::Rpc::new();
    let pending = rpc.start("tools/list", None, true).map(|(_, pending)| pending);
    let followed = rpc.task_statuses("t");
    for reply in rpc.dispatch(message.clone(), None) {
        assert!(reply.is_object(), "a reply is a JSON-RPC object: {reply}");
    }
    rpc.close("fuzzing");
    drop((pending, followed));
    let _ = protocol::negotiated_version(&message);
    let _ = protocol::parse_tools(&message);
    let _ = protocol::call_result(&message);
    let _ = tasks::server_runs_tool_tasks(&message);
    let _ = tasks::read_call(&message);
    let _ = tasks::read_task(&message);
    let _ = url_elicitation::elicitations(&message);
    // An entry's roots come from the Center document as strings: any of them makes a root.
    if let Some(list) = message.as_array() {
        let uris: Vec<String> = list.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect();
        let _ = protocol::roots(&uris);
    }
}

/// Everything the client does with what a 2026 server answers, for the `mcp_revision` fuzz
/// target: read as a `server/discover` result and as its JSON-RPC error, as an
/// `input_required` result and the retry made of it, and as a request whose envelope and
/// headers are made. Must never panic; a retry keeps the params an object.
#[cfg(fuzzing)]
pub fn read_revision_message(message: serde_json::Value) {
    let _ = revision::discovered(Ok(&message));
    let _ = revision::discovered(Err(Some(&message)));
    let stateless = Revision::Stateless(revision::stateless::Stateless::probe());
    if let Some(Ok(asked)) = stateless.input_required(&message) {
        let answers = asked.requests.iter().map(|r| (r.key.clone(), r.params.clone())).collect();
        let retry = revision::stateless::retry_params(message.get("params").cloned(), answers, asked.request_state);
        assert!(retry.as_ref().is_some_and(Value::is_object), "a retry's params are an object");
    }
    let stamped = stateless.stamp(message.get("method").and_then(Value::as_str).unwrap_or(""), message.get("params").cloned());
    assert!(stamped.as_ref().is_some_and(Value::is_object), "a 2026 request's params are an object");
    for (name, value) in stateless.http_headers(&message) {
        assert!(reqwest::header::HeaderValue::from_str(&value).is_ok(), "{name}: {value:?} is a valid header value");
    }
    if let Revision::Stateless(found) = stateless {
        let _ = Revision::Stateless(found).info();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_servers_follow_the_override_rule() {
        let mut off = Mcp::new("b");
        off.enabled = false;
        let own = [Mcp::new("a"), off];
        let center = [Mcp::new("b"), Mcp::new("c")];
        let names: Vec<_> = active_servers(&own, &center).into_iter().map(|m| m.name).collect();
        assert_eq!(names, vec!["a", "c"]);
    }

    #[test]
    fn credential_headers_and_environment_are_masked_in_what_the_library_writes() {
        let mut config = Mcp::new("creds");
        config.headers.insert("Authorization".into(), "Bearer hdr-secret-0123456789".into());
        config.environment.insert("GITHUB_TOKEN".into(), "ghp-env-0123456789".into());
        config.environment.insert("DB_PASSWORD".into(), "pw-env-0123456789".into());
        config.environment.insert("LOG_FORMAT".into(), "plain-text-format".into());
        register_credentials(&config);
        assert_eq!(
            crate::redact::redact("hdr-secret-0123456789 ghp-env-0123456789 pw-env-0123456789 plain-text-format"),
            "*** *** *** plain-text-format"
        );
    }

    #[test]
    fn the_key_ignores_enabled_and_auto_start() {
        let a = Mcp::new("a");
        let mut b = a.clone();
        b.enabled = false;
        b.auto_start = false;
        assert_eq!(key(&a), key(&b));
        b.arguments.push("-v".into());
        assert_ne!(key(&a), key(&b));
    }
}
