//! Tool calls run as tasks (SPEC §I.3.4): MCP 2025-11-25's task-augmented `tools/call` and the
//! flat task result of 2026-07-28, read by the same functions.
//!
//! **2025-11-25.** A server that declares `capabilities.tasks.requests.tools.call` runs the
//! tools whose `execution.taskSupport` is `required` or `optional` as tasks when the call carries
//! `"task": {}`: the answer is a `CreateTaskResult` (`{"task": {taskId, status, pollInterval,
//! …}}`), `tasks/get` answers the task object, `tasks/result` blocks until the task is over and
//! answers the tool's result — and it is on its stream that the server delivers what it asks
//! meanwhile (elicitation, sampling, with the task `input_required`). The client declares
//! nothing for this: the client capability `tasks` is about requests the *server* would make
//! as tasks (sampling, elicitation), which this client does not run as tasks.
//!
//! **2026-07-28.** Tasks are the extension `io.modelcontextprotocol/tasks` (SEP-2663): the
//! server advertises it in `capabilities.extensions`, the client declares it in the
//! capabilities of every request, and the server alone decides which `tools/call` becomes a
//! task (the request carries no `task`). A result with `resultType: "task"` carries the task
//! flat (`taskId`, `status`, `ttlMs`, `pollIntervalMs`); `tasks/get` answers the final
//! `result` inline once `completed`, the JSON-RPC `error` once `failed`; there is no
//! `tasks/result`. `tasks/get`, `tasks/update` and `tasks/cancel` carry the 2026 envelope and,
//! over HTTP, `Mcp-Name: <taskId>`. An `input_required` task asks in its `inputRequests`,
//! keyed and shaped as an `input_required` result's questions (SPEC §I.3.2): they are read by
//! the same reader and answered through the call's asker by the same code, each key once
//! however often the polls repeat it, and the answers go to the server with `tasks/update`
//! (`{taskId, inputResponses}`); polling goes on until the task ends. Tested against
//! tests/mcp_servers/task_server.py (the Python SDK 2.3 with the extension).
//!
//! **Following a task.** `tasks/get` every `pollInterval` (1 s when not said, at least 100 ms),
//! and whatever the server pushes meanwhile: a `notifications/tasks/status` of the task (the
//! TypeScript SDK's servers send one on every change, at 2025-11-25 on the session's streams;
//! at 2026-07-28 they come on a `subscriptions/listen` that names the task in `tasksStatus`) is
//! taken as a poll's answer at once, unless it is older than what is known (`lastUpdatedAt`),
//! and does not reach the application's `mcpNotification`. Each change of status or status
//! message is reported as progress (`mcpProgress`, its message the status message) and starts
//! the call's time limit again, which therefore also bounds the user's answer to a question.
//! At 2025-11-25 `input_required` and `completed` take the result with `tasks/result` (polling
//! goes on meanwhile), `failed` takes it too (the tool's error); at 2026-07-28 the questions
//! are answered meanwhile. `cancelled` fails the call. A call given up — the run aborted or
//! stopped (its future dropped), the time limit passed, a poll failed, a question not answered
//! — sends `tasks/cancel`.

use super::jsonrpc::Rpc;
use super::revision::{InputRequest, stateless};
use super::{Connection, RequestError, Watch};
use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// A tool's `execution.taskSupport` (absent: forbidden).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Support {
    #[default]
    Forbidden,
    Optional,
    Required,
}

/// The task support a `tools/list` entry declares.
pub fn support(tool: &Value) -> Support {
    match tool.pointer("/execution/taskSupport").and_then(Value::as_str) {
        Some("required") => Support::Required,
        Some("optional") => Support::Optional,
        _ => Support::Forbidden,
    }
}

/// The tasks extension of 2026-07-28.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether the server's info says it runs `tools/call` as a task: 2025-11-25's
/// `capabilities.tasks.requests.tools.call`, or 2026-07-28's tasks extension.
pub fn server_runs_tool_tasks(info: &Value) -> bool {
    info.pointer("/capabilities/tasks/requests/tools/call").is_some_and(Value::is_object)
        || info.get("capabilities").and_then(|c| c.get("extensions")).and_then(|e| e.get(EXTENSION)).is_some_and(Value::is_object)
}

/// Whether a tool with `support` can be called on a server that does (`capable`) or does not
/// run tool calls as tasks: a tool that must be a task cannot be called elsewhere.
pub fn callable(support: Support, capable: bool) -> bool {
    capable || support != Support::Required
}

/// Whether a call of a tool with `support` asks for a task.
pub fn wanted(support: Support, capable: bool) -> bool {
    capable && support != Support::Forbidden
}

/// A task's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
    /// A status this client does not know: followed as working.
    Other(String),
}

impl Status {
    fn read(s: &str) -> Status {
        match s {
            "working" => Status::Working,
            "input_required" => Status::InputRequired,
            "completed" => Status::Completed,
            "failed" => Status::Failed,
            "cancelled" => Status::Cancelled,
            other => Status::Other(other.to_owned()),
        }
    }

    fn name(&self) -> &str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
            Status::Other(s) => s,
        }
    }
}

/// What the client knows of a task.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub id: String,
    pub status: Status,
    pub message: Option<String>,
    /// How long to wait before the next `tasks/get` (the server's hint, bounded).
    pub poll: Duration,
    /// The final result, when the server gives it inline (2026-07-28's `tasks/get`).
    pub result: Option<Value>,
    /// The JSON-RPC error of a failed task, given inline (2026-07-28's `tasks/get`).
    pub error: Option<Value>,
    /// A task of 2026-07-28 (`resultType: "task"`): everything comes with `tasks/get`, there is
    /// no `tasks/result`.
    pub flat: bool,
    /// What an `input_required` task of 2026-07-28 asks (its `inputRequests`), answered with
    /// `tasks/update`.
    pub inputs: Vec<InputRequest>,
    /// `lastUpdatedAt` (ISO 8601, as the server writes it): a poll answer and a pushed status
    /// may cross, and the older of the two must not undo the newer.
    pub updated: Option<String>,
}

impl Task {
    /// Whether `self` is an older state than `known` by the server's own clock (its
    /// `lastUpdatedAt`s, both in the server's one format, compare as text).
    fn older_than(&self, known: &Task) -> bool {
        matches!((&self.updated, &known.updated), (Some(mine), Some(theirs)) if mine < theirs)
    }
}

/// Where a task names its poll interval: 2025-11-25's key, 2026-07-28's.
const POLL_KEYS: [&str; 2] = ["pollInterval", "pollIntervalMs"];

/// The poll interval when the server names none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// The shortest and longest waits between polls, whatever the server says.
const MIN_POLL: Duration = Duration::from_millis(100);
const MAX_POLL: Duration = Duration::from_secs(60);

/// Reads a task object: 2025-11-25's (`pollInterval`) or 2026-07-28's (`pollIntervalMs`,
/// maybe the final `result` inline, or the questions of an `input_required` task, read as an
/// `input_required` result's are).
pub fn read_task(task: &Value) -> Result<Task, String> {
    let id = task.get("taskId").and_then(Value::as_str).filter(|id| !id.is_empty()).ok_or("the task has no taskId")?;
    let status = Status::read(task.get("status").and_then(Value::as_str).ok_or("the task has no status")?);
    // Only an `input_required` task asks: a stray field of another status is not a question.
    let inputs = match status {
        Status::InputRequired => {
            stateless::input_requests(task.get("inputRequests")).map_err(|why| format!("its questions cannot be read: {why}"))?
        }
        _ => Vec::new(),
    };
    let poll = POLL_KEYS
        .iter()
        .find_map(|k| task.get(*k).and_then(Value::as_f64))
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map_or(DEFAULT_POLL, |ms| Duration::from_millis(ms.min(MAX_POLL.as_millis() as f64) as u64).max(MIN_POLL));
    Ok(Task {
        id: id.to_owned(),
        status,
        message: task.get("statusMessage").and_then(Value::as_str).map(str::to_owned),
        poll,
        result: task.get("result").filter(|r| r.is_object()).cloned(),
        error: task.get("error").filter(|e| e.is_object()).cloned(),
        flat: false,
        inputs,
        updated: task.get("lastUpdatedAt").and_then(Value::as_str).map(str::to_owned),
    })
}

/// What a `tools/call` answered: a task to follow, or the tool's result itself (a server may
/// run an `optional` tool at once).
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Task(Box<Task>),
    Result(Value),
}

/// Reads a `tools/call` result: 2025-11-25's `CreateTaskResult` (`{"task": {…}}`), 2026-07-28's
/// flat `resultType: "task"`, or anything else as the tool's result.
pub fn read_call(result: &Value) -> Result<Answer, String> {
    let bad = |e: String| format!("the server's task is not readable: {e}");
    if result.get("resultType").and_then(Value::as_str) == Some("task") {
        return read_task(result).map(|task| Answer::Task(Box::new(Task { flat: true, ..task }))).map_err(bad);
    }
    match result.get("task") {
        Some(task) if result.get("content").is_none() => read_task(task).map(|task| Answer::Task(Box::new(task))).map_err(bad),
        _ => Ok(Answer::Result(result.clone())),
    }
}

/// Sends `tasks/cancel` for a task when dropped armed: the call was given up. Its params are
/// stamped as the revision says (2026: the `_meta` envelope, without which a server of 2026
/// refuses the request).
struct Cancel<'a> {
    rpc: &'a Arc<Rpc>,
    id: String,
    params: Value,
    armed: bool,
}

impl<'a> Cancel<'a> {
    fn new(connection: &'a Connection, id: &str) -> Cancel<'a> {
        let params = json!({"taskId": id});
        let params = match connection.known_revision() {
            Some(revision) => revision.stamp("tasks/cancel", Some(params.clone())).unwrap_or(params),
            None => params,
        };
        Cancel { rpc: &connection.rpc, id: id.to_owned(), params, armed: true }
    }
}

impl Drop for Cancel<'_> {
    fn drop(&mut self) {
        if self.armed {
            tracing::debug!(target: crate::log::MCP, task = %self.id, "cancelling the task of a call given up");
            self.rpc.send_later("tasks/cancel", std::mem::take(&mut self.params));
        }
    }
}

/// What one turn of the loop of [`follow`] saw.
enum Turn {
    Fetched(Result<Value, RequestError>),
    /// The questions of a 2026 task were answered and the answers handed over.
    Answered(Result<(), RequestError>),
    Polled(Result<Value, String>),
    /// The server told the task's status itself (`notifications/tasks/status`).
    Pushed(Value),
    Late,
}

/// A watch for `tasks/result`: the run's progress and asker, a limit the loop of [`follow`]
/// enforces itself (the status is polled meanwhile).
const RESULT_LIMIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// Follows `task` (just created by a `tools/call`) to its result; `watch` hears the status
/// changes as progress, answers the server's questions, and gives the time limit, counted
/// from the last status change. Given up (dropped, timed out, failed), the task is cancelled
/// on the server.
pub(crate) async fn follow(connection: &Connection, mut task: Task, watch: &Watch<'_>) -> Result<Value, RequestError> {
    let mut cancel = Cancel::new(connection, &task.id);
    let mut pushed = connection.rpc.task_statuses(&task.id);
    // 2026: the statuses come only to a listen that asks for them; it lives as long as this.
    let mut listening: BoxFuture<'_, std::convert::Infallible> =
        if task.flat { Box::pin(listen(connection, task.id.clone())) } else { Box::pin(std::future::pending()) };
    let result_watch = Watch { limit: RESULT_LIMIT, on_progress: watch.on_progress, asker: watch.asker.clone() };
    let id = task.id.clone();
    let fetch = || connection.exchange("tasks/result", Some(json!({"taskId": id})), Some(&result_watch)).map(Turn::Fetched);
    // What runs beside the polls: a 2025 task's tasks/result, or the answers to a 2026 task's
    // questions on their way.
    let mut beside: Option<BoxFuture<'_, Turn>> = None;
    // The questions of a 2026 task already asked: the server repeats a question in every poll
    // until its answer arrives, and the user is asked once.
    let mut asked = HashSet::new();
    let mut changes = 0u32;
    let mut deadline = Instant::now() + watch.limit;
    report(watch, &task, &mut changes);
    loop {
        if let Some(result) = task.result.take() {
            cancel.armed = false;
            return Ok(result);
        }
        match task.status {
            Status::Cancelled => {
                cancel.armed = false;
                return Err(RequestError::Failed(ended(&task, "was cancelled by the server")));
            }
            // 2026: the outcome is in tasks/get's answer, there is no tasks/result.
            Status::Failed if task.flat => {
                cancel.armed = false;
                let error = task.error.as_ref().and_then(|e| e.get("message")).and_then(Value::as_str).unwrap_or("no error given");
                return Err(RequestError::Failed(ended(&task, &format!("failed ({error})"))));
            }
            Status::Completed if task.flat => {
                cancel.armed = false;
                return Err(RequestError::Failed(ended(&task, "completed without a result")));
            }
            // 2026: the questions come with tasks/get, the answers go with tasks/update; while
            // answers are on their way, the polls go on and new questions wait their turn.
            Status::InputRequired if task.flat && beside.is_none() => {
                let new: Vec<InputRequest> = task.inputs.iter().filter(|q| !asked.contains(&q.key)).cloned().collect();
                if !new.is_empty() {
                    asked.extend(new.iter().map(|q| q.key.clone()));
                    beside = Some(Box::pin(answer(connection, &id, new, watch).map(Turn::Answered)));
                }
            }
            Status::InputRequired if task.flat => {}
            Status::Completed | Status::Failed | Status::InputRequired if beside.is_none() => {
                beside = Some(Box::pin(fetch()));
            }
            _ => {}
        }
        let turn = tokio::select! {
            turn = next(&mut beside) => turn,
            polled = async {
                tokio::time::sleep(task.poll).await;
                let get = connection.exchange("tasks/get", Some(json!({"taskId": task.id})), None);
                match tokio::time::timeout(watch.limit, get).await {
                    Ok(answer) => answer.map_err(RequestError::reason),
                    Err(_) => Err(format!("tasks/get was not answered within {} s", watch.limit.as_secs_f64())),
                }
            } => Turn::Polled(polled),
            status = pushed.next() => Turn::Pushed(status),
            never = &mut listening => match never {},
            () = tokio::time::sleep_until(deadline) => Turn::Late,
        };
        match turn {
            Turn::Fetched(Ok(result)) => {
                cancel.armed = false;
                return Ok(result);
            }
            Turn::Fetched(Err(RequestError::Failed(reason))) if task.status == Status::Failed => {
                cancel.armed = false;
                return Err(RequestError::Failed(ended(&task, &format!("failed ({reason})"))));
            }
            Turn::Fetched(Err(e)) | Turn::Answered(Err(e)) => return Err(e),
            Turn::Answered(Ok(())) => beside = None,
            Turn::Polled(Err(reason)) => return Err(RequestError::Failed(format!("polling the task {} failed: {reason}", task.id))),
            Turn::Polled(Ok(answer)) => {
                let next =
                    read_task(&answer).map_err(|e| RequestError::Failed(format!("the server's tasks/get answer is not readable: {e}")))?;
                adopt(&mut task, next, watch, &mut changes, &mut deadline);
            }
            // Polling stays the truth: a status the client cannot read is left to the next poll.
            // (The connection hands over only this task's statuses: its id is this one.)
            Turn::Pushed(status) => match read_pushed(&status, &task) {
                Ok(next) => adopt(&mut task, next, watch, &mut changes, &mut deadline),
                Err(why) => tracing::debug!(target: crate::log::MCP, task = %task.id, why, "an unreadable task status notification: ignored"),
            },
            Turn::Late => return Err(RequestError::TimedOut(watch.limit)),
        }
    }
}

/// A pushed status as the task's next state: one that names no poll interval (the extension's
/// is optional) keeps the last one the server named.
fn read_pushed(status: &Value, known: &Task) -> Result<Task, String> {
    let mut next = read_task(status)?;
    if !POLL_KEYS.iter().any(|k| status.get(*k).is_some()) {
        next.poll = known.poll;
    }
    Ok(next)
}

/// Takes `next` as the task's state unless it is older than what is known; a change of status
/// or status message is reported and starts the time limit again.
fn adopt(task: &mut Task, next: Task, watch: &Watch<'_>, changes: &mut u32, deadline: &mut Instant) {
    if next.older_than(task) {
        return;
    }
    if next.status != task.status || next.message != task.message {
        *deadline = Instant::now() + watch.limit;
        report(watch, &next, changes);
    }
    let (id, flat) = (std::mem::take(&mut task.id), task.flat);
    *task = Task { id, flat, ..next };
}

/// What runs beside the polls, when something does; else never.
async fn next(beside: &mut Option<BoxFuture<'_, Turn>>) -> Turn {
    match beside {
        Some(turn) => turn.await,
        None => std::future::pending().await,
    }
}

/// 2026: listens for the statuses of task `id` (`subscriptions/listen` with the extension's
/// `tasksStatus`); they arrive as notifications. A listen refused or ended leaves the polls.
async fn listen(connection: &Connection, id: String) -> std::convert::Infallible {
    let params = json!({"notifications": {"tasksStatus": [id]}});
    if let Err(e) = connection.exchange("subscriptions/listen", Some(params), None).await {
        tracing::debug!(target: crate::log::MCP, task = %id, why = %e.reason(), "no status pushes for the task: polling only");
    }
    std::future::pending().await
}

/// Answers the new questions of a 2026 task through the call's asker, exactly as an
/// `input_required` result's are (SPEC §I.3.2), and hands the answers to the server with
/// `tasks/update` (keyed as asked; the server takes them in its own time, seen in later polls).
async fn answer(connection: &Connection, id: &str, questions: Vec<InputRequest>, watch: &Watch<'_>) -> Result<(), RequestError> {
    let answers = connection.answer_inputs("tools/call", &questions, Some(watch)).await.map_err(RequestError::Failed)?;
    let update = connection.exchange("tasks/update", Some(json!({"taskId": id, "inputResponses": answers})), None);
    match tokio::time::timeout(watch.limit, update).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(RequestError::Failed(format!("giving the task {id} its answers (tasks/update) failed: {}", e.reason()))),
        Err(_) => Err(RequestError::Failed(format!("tasks/update was not answered within {} s", watch.limit.as_secs_f64()))),
    }
}

/// Why a task that ended without a result failed.
fn ended(task: &Task, how: &str) -> String {
    match &task.message {
        Some(message) => format!("the task {} {how}: {message}", task.id),
        None => format!("the task {} {how}", task.id),
    }
}

/// Reports a status (change) as progress: the count of changes, the status message (else the
/// status).
fn report(watch: &Watch<'_>, task: &Task, changes: &mut u32) {
    *changes += 1;
    let message = task.message.clone().unwrap_or_else(|| task.status.name().to_owned());
    (watch.on_progress)(super::Progress { progress: f64::from(*changes), total: None, message: Some(message) });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_support_and_what_is_offered() {
        let tool = |s: &str| json!({"name": "t", "execution": {"taskSupport": s}});
        assert_eq!(support(&tool("required")), Support::Required);
        assert_eq!(support(&tool("optional")), Support::Optional);
        assert_eq!(support(&tool("forbidden")), Support::Forbidden);
        assert_eq!(support(&json!({"name": "t"})), Support::Forbidden);
        assert!(!callable(Support::Required, false) && callable(Support::Required, true) && callable(Support::Optional, false));
        assert!(wanted(Support::Optional, true) && !wanted(Support::Optional, false) && !wanted(Support::Forbidden, true));
        let everything = json!({"capabilities": {"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}});
        assert!(server_runs_tool_tasks(&everything));
        assert!(!server_runs_tool_tasks(&json!({"capabilities": {"tasks": {"list": {}}}})));
        assert!(!server_runs_tool_tasks(&json!({"capabilities": {"tasks": {"requests": {"tools": {"call": true}}}}})));
        // 2026-07-28: the tasks extension (SEP-2663), as server/discover advertises it.
        assert!(server_runs_tool_tasks(&json!({"capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}})));
        assert!(!server_runs_tool_tasks(&json!({"capabilities": {"extensions": {"io.modelcontextprotocol/ui": {}}}})));
    }

    #[test]
    fn the_2025_create_task_result_and_tasks_get() {
        let created = json!({"task": {"taskId": "t-1", "status": "working", "ttl": 300000, "pollInterval": 1000, "createdAt": "2025-11-25T10:30:00Z"}});
        let Answer::Task(task) = read_call(&created).unwrap() else { panic!("a task") };
        assert_eq!(
            *task,
            Task {
                id: "t-1".into(),
                status: Status::Working,
                message: None,
                poll: Duration::from_secs(1),
                result: None,
                error: None,
                flat: false,
                inputs: Vec::new(),
                updated: None,
            }
        );
        let got = read_task(
            &json!({"taskId": "t-1", "status": "input_required", "statusMessage": "Requesting clarification", "pollInterval": 250}),
        )
        .unwrap();
        assert_eq!(
            (got.status, got.message.as_deref(), got.poll),
            (Status::InputRequired, Some("Requesting clarification"), Duration::from_millis(250))
        );
        // An ordinary result is the tool's result, even one with a "task" field in its content.
        let plain = json!({"content": [{"type": "text", "text": "x"}], "task": "unrelated"});
        assert_eq!(read_call(&plain).unwrap(), Answer::Result(plain));
    }

    #[test]
    fn the_2026_flat_task_and_its_inline_result() {
        let created = json!({"resultType": "task", "taskId": "t-2", "status": "working", "ttlMs": 60000, "pollIntervalMs": 50});
        let Answer::Task(task) = read_call(&created).unwrap() else { panic!("a task") };
        assert_eq!((task.id.as_str(), task.poll, task.flat), ("t-2", MIN_POLL, true));
        let done = json!({"resultType": "complete", "taskId": "t-2", "status": "completed", "result": {"content": [{"type": "text", "text": "42"}]}});
        let task = read_task(&done).unwrap();
        assert_eq!((task.status, task.result), (Status::Completed, Some(json!({"content": [{"type": "text", "text": "42"}]}))));
        let failed = json!({"resultType": "complete", "taskId": "t-2", "status": "failed", "error": {"code": -32603, "message": "rate limit"}});
        assert_eq!(read_task(&failed).unwrap().error, Some(json!({"code": -32603, "message": "rate limit"})));
    }

    #[test]
    fn the_questions_of_a_2026_task_are_read_as_an_input_required_results() {
        let asking = json!({"resultType": "complete", "taskId": "t-3", "status": "input_required", "inputRequests": {
            "name": {"method": "elicitation/create", "params": {"mode": "form", "message": "Your name?"}}, "r": {"method": "roots/list"}}});
        let task = read_task(&asking).unwrap();
        let asked: Vec<(&str, &str)> = task.inputs.iter().map(|q| (q.key.as_str(), q.method.as_str())).collect();
        assert_eq!(asked, [("name", "elicitation/create"), ("r", "roots/list")]);
        assert_eq!(task.inputs[0].params["message"], "Your name?");
        // Unreadable questions fail the poll; another status's stray field asks nothing.
        let odd = json!({"taskId": "t-3", "status": "input_required", "inputRequests": {"x": {"method": "tools/call"}}});
        assert!(read_task(&odd).unwrap_err().contains("\"x\" asks for tools/call"));
        assert!(read_task(&json!({"taskId": "t-3", "status": "working", "inputRequests": 7})).unwrap().inputs.is_empty());
    }

    #[test]
    fn an_older_state_does_not_undo_a_newer_one() {
        let at = |status: &str, when: Option<&str>| {
            let mut task = json!({"taskId": "t", "status": status});
            if let Some(when) = when {
                task["lastUpdatedAt"] = json!(when);
            }
            read_task(&task).unwrap()
        };
        let newer = at("working", Some("2026-12-06T21:17:46.852Z"));
        assert!(at("working", Some("2026-12-06T21:17:45.845Z")).older_than(&newer));
        assert!(!at("completed", Some("2026-12-06T21:17:49.857Z")).older_than(&newer));
        assert!(!at("working", Some("2026-12-06T21:17:46.852Z")).older_than(&newer), "the same moment is not older");
        assert!(!at("working", None).older_than(&newer) && !newer.older_than(&at("working", None)), "without a time, the latest heard wins");
    }

    #[test]
    fn a_pushed_status_without_an_interval_keeps_the_last_one() {
        let known = read_task(&json!({"taskId": "t", "status": "working", "pollIntervalMs": 250})).unwrap();
        let quiet = read_pushed(&json!({"taskId": "t", "status": "working", "statusMessage": "on"}), &known).unwrap();
        assert_eq!((quiet.poll, quiet.message.as_deref()), (Duration::from_millis(250), Some("on")));
        let named = read_pushed(&json!({"taskId": "t", "status": "working", "pollInterval": 500}), &known).unwrap();
        assert_eq!(named.poll, Duration::from_millis(500));
        assert!(read_pushed(&json!({"status": "working"}), &known).is_err());
    }

    #[test]
    fn bad_tasks_are_clear_errors() {
        assert!(read_call(&json!({"resultType": "task", "status": "working"})).unwrap_err().contains("no taskId"));
        assert!(read_call(&json!({"task": {"taskId": "x"}})).unwrap_err().contains("no status"));
        assert!(read_call(&json!({"task": {"taskId": "", "status": "working"}})).is_err());
        let odd = read_task(&json!({"taskId": "x", "status": "paused", "pollInterval": 1e300, "result": "not an object"})).unwrap();
        assert_eq!((odd.status, odd.poll, odd.result), (Status::Other("paused".into()), MAX_POLL, None));
        assert_eq!(read_task(&json!({"taskId": "x", "status": "working", "pollInterval": -5})).unwrap().poll, DEFAULT_POLL);
    }
}
