//! One conversation (SPEC §D): its messages, its own skills, MCP servers, prompts and
//! functions, the streaming buffers, and the state of its run.
//!
//! Shared by handle: clones of a `Dialog` are the same conversation. Every change happens under
//! one lock and queues its events in the outbox (`outbox.rs`) under that lock, so events reach
//! the sink in the order the changes happened, whichever threads made them; they are delivered
//! after the lock is released, so a sink may call back in. The dialog's state is private to this module:
//! the run loop (`crate::run`) changes it only through the transitions of `transitions.rs`.

mod transitions;

pub(crate) use transitions::{ALREADY_RUNNING, CallSpec, Decision, Elicitation, Piece, RunEnd, RunTicket};

use crate::{
    center::{Center, WeakCenter},
    event::{Event, EventSink},
    function::{Function, HostToken},
    id::new_id,
    json,
    mcp::Mcp,
    message::{Message, Role},
    model::capability,
    outbox::Outbox,
    prompt::Prompt,
    skill::Skill,
    text::Text,
};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use tokio_util::sync::CancellationToken;

#[derive(Clone)]
pub struct Dialog {
    shared: Arc<Shared>,
}

/// A dialog reference that does not keep it alive (a run holds its dialog this way).
#[derive(Clone)]
pub(crate) struct WeakDialog(std::sync::Weak<Shared>);

impl WeakDialog {
    pub fn upgrade(&self) -> Option<Dialog> {
        self.0.upgrade().map(|shared| Dialog { shared })
    }
}

struct Shared {
    state: Mutex<State>,
    sink: RwLock<Option<Sink>>,
    /// Events produced under `state`'s lock and not yet delivered, oldest first.
    outbox: Outbox<Event>,
    /// Mirrors `State::revision` so that hosts can check for changes without the lock.
    revision: AtomicU64,
    center: WeakCenter,
}

/// The host's receiver and the token it asked the dialog to carry (handed to the functions a
/// run calls, so a host can route a call to the dialog's thread).
#[derive(Clone)]
struct Sink {
    receiver: Arc<dyn EventSink>,
    context: HostToken,
}

/// The run in progress on a dialog: which run it is, how to stop it, and the tool calls of
/// its current round.
struct ActiveRun {
    generation: u64,
    cancel: CancellationToken,
    /// The calls of the answer being worked on, in call order; empty while a round streams.
    calls: Vec<transitions::PendingCall>,
    /// How many of `calls` have their Tool message appended (always a prefix).
    appended: usize,
    /// The MCP elicitations waiting for the host's answer (SPEC §H.4.5), by request id; the
    /// run's end drops them, which declines them.
    elicitations: Vec<(String, tokio::sync::oneshot::Sender<transitions::Elicited>)>,
}

/// The JSON an answer must match (SPEC §H.2.3): a name for it and a JSON Schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseSchema {
    pub name: String,
    pub schema: Value,
}

/// What a request that would not fit the model's context window does (SPEC §I.4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContextPolicy {
    /// It fails before sending: `[ContextOverflow] <estimated> of <window> tokens`.
    #[default]
    Fail = 0,
    /// It leaves out the oldest turns until it fits; the dialog keeps them.
    DropOldest = 1,
    /// The oldest turns are replaced in the request by a summary the dialog keeps.
    Summarize = 2,
}

impl ContextPolicy {
    pub fn from_u32(value: u32) -> Option<ContextPolicy> {
        [ContextPolicy::Fail, ContextPolicy::DropOldest, ContextPolicy::Summarize].into_iter().find(|p| *p as u32 == value)
    }

    /// The Dialog JSON name.
    pub fn name(self) -> &'static str {
        match self {
            ContextPolicy::Fail => "fail",
            ContextPolicy::DropOldest => "dropOldest",
            ContextPolicy::Summarize => "summarize",
        }
    }

    /// Reads a Dialog JSON name case-insensitively; anything else is `Fail`.
    pub fn from_name(name: &str) -> ContextPolicy {
        [ContextPolicy::DropOldest, ContextPolicy::Summarize].into_iter().find(|p| p.name().eq_ignore_ascii_case(name)).unwrap_or_default()
    }
}

/// The summary `Summarize` keeps (SPEC §I.4.2): it stands for the first `covered` messages.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContextSummary {
    pub text: String,
    /// How many of the dialog's first messages the summary replaces in a request (the index
    /// of the last summarised message + 1).
    pub covered: usize,
}

/// What the provider counted for the last request a run sent (SPEC §I.4.1): `tokens` for a
/// request whose messages ended at `to`, which the fast estimate put at `estimated`; valid
/// while the history has only grown since (`base_revision`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Measured {
    pub base_revision: u64,
    pub to: usize,
    pub tokens: i64,
    pub estimated: i64,
}

/// The default of `max_tool_rounds` (SPEC §D.1.6).
pub const DEFAULT_MAX_TOOL_ROUNDS: i32 = 8;

/// Everything behind the dialog's lock.
struct State {
    id: String,
    branch_from_id: String,
    provider_id: String,
    model_id: String,
    requirement: u32,
    messages: Vec<Message>,
    skills: Vec<Skill>,
    mcps: Vec<Mcp>,
    prompts: Vec<Prompt>,
    functions: Vec<Arc<dyn Function>>,
    /// SPEC §H.3.4–6.
    tool_approval: bool,
    parallel_tool_calls: bool,
    max_tool_rounds: i32,
    response_schema: Option<ResponseSchema>,
    /// SPEC §I.4.2.
    context_policy: ContextPolicy,
    /// (provider id, model id) of the summary's completion; empty = the run's own model.
    summary_model: (String, String),
    context_summary: Option<ContextSummary>,
    /// The provider's count of the last request (not saved).
    measured: Option<Measured>,
    /// Between `beginAssistantMessage` and `endAssistantMessage`.
    streaming: bool,
    streaming_content: String,
    reasoning_content: String,
    /// The streamed answer's thinking blocks (JSON each), kept with its message.
    thinking_blocks: Vec<String>,
    /// The run in progress, if any.
    run: Option<ActiveRun>,
    last_usage: Option<Value>,
    /// The round in progress reported usage that `UsageUpdated` has not announced yet.
    usage_unreported: bool,
    /// Bumped on every change of `messages`.
    revision: u64,
    /// The revision of the last change of `messages` that was not an append: a snapshot
    /// taken at a revision ≥ this one is still a prefix of `messages`.
    base_revision: u64,
}

impl State {
    fn new() -> State {
        State {
            id: new_id(),
            branch_from_id: String::new(),
            provider_id: String::new(),
            model_id: String::new(),
            requirement: capability::TEXT,
            messages: Vec::new(),
            skills: Vec::new(),
            mcps: Vec::new(),
            prompts: Vec::new(),
            functions: Vec::new(),
            tool_approval: false,
            parallel_tool_calls: true,
            max_tool_rounds: DEFAULT_MAX_TOOL_ROUNDS,
            response_schema: None,
            context_policy: ContextPolicy::Fail,
            summary_model: (String::new(), String::new()),
            context_summary: None,
            measured: None,
            streaming: false,
            streaming_content: String::new(),
            reasoning_content: String::new(),
            thinking_blocks: Vec::new(),
            run: None,
            last_usage: None,
            usage_unreported: false,
            revision: 0,
            base_revision: 0,
        }
    }

    /// Records a change of `messages` other than an append (see `base_revision`) and says so.
    fn replaced_messages(&mut self, events: &mut Vec<Event>) {
        if self.context_summary.as_ref().is_some_and(|c| c.covered > self.messages.len()) {
            self.context_summary = None;
        }
        self.revision += 1;
        self.base_revision = self.revision;
        events.push(Event::MessagesReset);
    }

    /// Appends a message and says so.
    fn push_message(&mut self, message: Message, events: &mut Vec<Event>) {
        self.messages.push(message);
        self.revision += 1;
        events.push(Event::MessageAppended(self.messages.len() - 1));
    }

    fn begin_assistant_message(&mut self, events: &mut Vec<Event>) {
        self.streaming_content.clear();
        self.reasoning_content.clear();
        self.thinking_blocks.clear();
        self.streaming = true;
        events.push(Event::StreamBegan);
    }

    /// Appends what was streamed (when anything was, with `tool_calls` if given) and ends the
    /// stream. The reasoning buffer keeps its text until the next begin (SPEC §F).
    fn end_assistant_message(&mut self, tool_calls: String, events: &mut Vec<Event>) {
        // One shared text for the message and the event: a long answer is held once.
        let content = Text::from(std::mem::take(&mut self.streaming_content));
        if !content.is_empty() || !self.reasoning_content.is_empty() || !tool_calls.is_empty() {
            let thinking = std::mem::take(&mut self.thinking_blocks);
            let message = Message {
                role: Role::Assistant,
                content: content.clone(),
                reasoning: self.reasoning_content.clone(),
                tool_calls,
                thinking_blocks: if thinking.is_empty() { String::new() } else { format!("[{}]", thinking.join(",")) },
                ..Message::default()
            };
            self.push_message(message, events);
        }
        self.streaming = false;
        self.report_usage(events);
        events.push(Event::StreamEnded(content));
    }

    /// Announces the round's usage once, at its end (SPEC §I.2.2).
    fn report_usage(&mut self, events: &mut Vec<Event>) {
        if std::mem::take(&mut self.usage_unreported)
            && let Some(usage) = &self.last_usage
        {
            events.push(Event::UsageUpdated(usage.clone()));
        }
    }

    /// Whether `generation` is the run in progress.
    fn runs(&self, generation: u64) -> bool {
        self.run.as_ref().is_some_and(|r| r.generation == generation)
    }

    fn copy_from(&mut self, source: &State) {
        self.messages = source.messages.clone();
        self.skills = source.skills.clone();
        self.mcps = source.mcps.clone();
        self.prompts = source.prompts.clone();
        self.provider_id = source.provider_id.clone();
        self.model_id = source.model_id.clone();
        self.requirement = source.requirement;
        self.tool_approval = source.tool_approval;
        self.parallel_tool_calls = source.parallel_tool_calls;
        self.max_tool_rounds = source.max_tool_rounds;
        self.response_schema = source.response_schema.clone();
        self.context_policy = source.context_policy;
        self.summary_model = source.summary_model.clone();
        self.context_summary = source.context_summary.clone();
    }
}

/// Adds `item` keyed by `key`, replacing an entry with the same key and moving it to the end.
fn upsert<T>(items: &mut Vec<T>, item: T, key: impl Fn(&T) -> &str) {
    let k = key(&item).to_owned();
    if k.is_empty() {
        return;
    }
    items.retain(|i| key(i) != k);
    items.push(item);
}

impl Dialog {
    /// A new, empty dialog that resolves providers, models and functions in `center`. It is not
    /// registered there: `Center::create_dialog` does that.
    pub fn new(center: &Center) -> Dialog {
        Dialog {
            shared: Arc::new(Shared {
                state: Mutex::new(State::new()),
                sink: RwLock::new(None),
                outbox: Outbox::default(),
                revision: AtomicU64::new(0),
                center: center.downgrade(),
            }),
        }
    }

    /// The Center this dialog resolves in (None once that Center is gone).
    pub fn center(&self) -> Option<Center> {
        self.shared.center.upgrade()
    }

    pub(crate) fn downgrade(&self) -> WeakDialog {
        WeakDialog(Arc::downgrade(&self.shared))
    }

    pub fn same_as(&self, other: &Dialog) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Replaces the event sink and the token the dialog carries for its host; the previous
    /// sink is dropped once no event is being delivered through it.
    pub fn set_sink(&self, sink: Option<Arc<dyn EventSink>>, context: HostToken) {
        let sink = sink.map(|receiver| Sink { receiver, context });
        *self.shared.sink.write().unwrap_or_else(|e| e.into_inner()) = sink;
    }

    fn sink(&self) -> Option<Sink> {
        self.shared.sink.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The token given with the sink (`HostToken::NONE` without one).
    pub(crate) fn host_context(&self) -> HostToken {
        self.sink().map_or(HostToken::NONE, |s| s.context)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held cannot leave `State` torn in a way that matters more
        // than refusing every later call would, so a poisoned lock is used as it is.
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `change` under the lock, queues the events it produced before the lock is
    /// released, then delivers what is queued.
    fn update<R>(&self, change: impl FnOnce(&mut State, &mut Vec<Event>) -> R) -> R {
        let mut events = Vec::new();
        let result = {
            let mut state = self.lock();
            let result = change(&mut state, &mut events);
            self.shared.revision.store(state.revision, Ordering::Release);
            self.shared.outbox.push(events);
            result
        };
        self.deliver();
        result
    }

    /// Queues events that belong to no change of the state (early run failures).
    fn emit_all(&self, events: Vec<Event>) {
        self.shared.outbox.push(events);
        self.deliver();
    }

    fn deliver(&self) {
        self.shared.outbox.deliver(|batch| {
            if let Some(sink) = self.sink() {
                sink.receiver.emit(batch);
            }
        });
    }

    fn read<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.lock())
    }

    // --- identity and settings -------------------------------------------------------------

    pub fn id(&self) -> String {
        self.read(|s| s.id.clone())
    }

    pub fn branch_from_id(&self) -> String {
        self.read(|s| s.branch_from_id.clone())
    }

    pub fn set_branch_from_id(&self, id: &str) {
        self.update(|s, _| s.branch_from_id = id.to_owned());
    }

    pub fn provider_id(&self) -> String {
        self.read(|s| s.provider_id.clone())
    }

    pub fn set_provider_id(&self, id: &str) {
        self.update(|s, _| s.provider_id = id.to_owned());
    }

    pub fn model_id(&self) -> String {
        self.read(|s| s.model_id.clone())
    }

    pub fn set_model_id(&self, id: &str) {
        self.update(|s, _| s.model_id = id.to_owned());
    }

    pub fn capability_requirement(&self) -> u32 {
        self.read(|s| s.requirement)
    }

    pub fn set_capability_requirement(&self, required: u32) {
        self.update(|s, _| s.requirement = required);
    }

    /// Whether each tool call waits for the host's approval (SPEC §H.3.4).
    pub fn tool_approval(&self) -> bool {
        self.read(|s| s.tool_approval)
    }

    pub fn set_tool_approval(&self, on: bool) {
        self.update(|s, _| s.tool_approval = on);
    }

    /// Whether the calls of one answer start together (SPEC §H.3.5).
    pub fn parallel_tool_calls(&self) -> bool {
        self.read(|s| s.parallel_tool_calls)
    }

    pub fn set_parallel_tool_calls(&self, on: bool) {
        self.update(|s, _| s.parallel_tool_calls = on);
    }

    /// How many answers with tool calls a run follows with another round (SPEC §H.3.6).
    pub fn max_tool_rounds(&self) -> i32 {
        self.read(|s| s.max_tool_rounds)
    }

    /// A negative count is 0: the first answer that asks for a tool ends the run.
    pub fn set_max_tool_rounds(&self, rounds: i32) {
        self.update(|s, _| s.max_tool_rounds = rounds.max(0));
    }

    /// The JSON the answers must match, if any (SPEC §H.2.3).
    pub fn response_schema(&self) -> Option<ResponseSchema> {
        self.read(|s| s.response_schema.clone())
    }

    /// A schema that is not a non-empty JSON object asks for nothing.
    pub fn set_response_schema(&self, name: &str, schema: Value) {
        let schema = match schema {
            Value::Object(o) if !o.is_empty() => Some(ResponseSchema { name: name.to_owned(), schema: Value::Object(o) }),
            _ => None,
        };
        self.update(|s, _| s.response_schema = schema);
    }

    /// What a request that would not fit the context window does (SPEC §I.4.2).
    pub fn context_policy(&self) -> ContextPolicy {
        self.read(|s| s.context_policy)
    }

    pub fn set_context_policy(&self, policy: ContextPolicy) {
        self.update(|s, _| s.context_policy = policy);
    }

    /// The provider and model `Summarize` asks for its summary; empty ids = the run's own.
    pub fn summary_model(&self) -> (String, String) {
        self.read(|s| s.summary_model.clone())
    }

    pub fn set_summary_model(&self, provider_id: &str, model_id: &str) {
        self.update(|s, _| s.summary_model = (provider_id.to_owned(), model_id.to_owned()));
    }

    /// The summary `Summarize` keeps, if one was made.
    pub fn context_summary(&self) -> Option<ContextSummary> {
        self.read(|s| s.context_summary.clone())
    }

    /// Keeps `summary` (a run renews it this way); one covering more messages than the
    /// dialog has is refused.
    pub(crate) fn set_context_summary(&self, summary: ContextSummary) -> bool {
        self.update(|s, _| {
            let fits = summary.covered <= s.messages.len();
            if fits {
                s.context_summary = Some(summary);
            }
            fits
        })
    }

    /// The provider's count of the last request, while the history has only grown since.
    pub(crate) fn measured(&self) -> Option<Measured> {
        self.read(|s| s.measured.filter(|m| m.base_revision == s.base_revision && m.to <= s.messages.len()))
    }

    /// Records the provider's count of a request whose messages ended at `to` (SPEC §I.4.1).
    pub(crate) fn set_measured(&self, to: usize, tokens: i64, estimated: i64) {
        self.update(|s, _| s.measured = Some(Measured { base_revision: s.base_revision, to, tokens, estimated }));
    }

    // --- messages --------------------------------------------------------------------------

    pub fn append_message(&self, message: Message) {
        self.update(|s, events| s.push_message(message, events));
    }

    pub fn clear_messages(&self) {
        self.update(|s, events| {
            s.messages.clear();
            s.replaced_messages(events);
        });
    }

    pub fn messages(&self) -> Vec<Message> {
        self.read(|s| s.messages.clone())
    }

    /// The messages together with the revision they belong to, read under one lock.
    pub fn messages_with_revision(&self) -> (Vec<Message>, u64) {
        self.read(|s| (s.messages.clone(), s.revision))
    }

    /// What changed since a snapshot of `count` messages taken at `revision`, read under one
    /// lock: `(messages, first, revision now)`. When only appends happened since (and the
    /// snapshot is plausible), `first == count` and `messages` are the appended ones;
    /// otherwise `first == 0` and `messages` are all of them.
    pub fn messages_since(&self, revision: u64, count: usize) -> (Vec<Message>, usize, u64) {
        self.read(|s| {
            let first = if revision >= s.base_revision && revision <= s.revision && count <= s.messages.len() {
                count
            } else {
                0
            };
            (s.messages[first..].to_vec(), first, s.revision)
        })
    }

    /// Changes whenever the messages change; cheap (no lock).
    pub fn revision(&self) -> u64 {
        self.shared.revision.load(Ordering::Acquire)
    }

    pub fn message(&self, index: usize) -> Option<Message> {
        self.read(|s| s.messages.get(index).cloned())
    }

    pub fn last_message(&self) -> Message {
        self.read(|s| s.messages.last().cloned().unwrap_or_default())
    }

    pub fn message_count(&self) -> usize {
        self.read(|s| s.messages.len())
    }

    /// Keeps the first `count` messages; a negative count or one ≥ the number of messages
    /// changes nothing.
    pub fn truncate_to(&self, count: i64) {
        self.update(|s, events| {
            if count >= 0 && (count as usize) < s.messages.len() {
                s.messages.truncate(count as usize);
                s.replaced_messages(events);
            }
        });
    }

    /// The index of the last assistant message, -1 when there is none.
    pub fn find_last_assistant_message(&self) -> i64 {
        self.read(|s| s.messages.iter().rposition(|m| m.role == Role::Assistant).map_or(-1, |i| i as i64))
    }

    /// Copies what `Center::clone_dialog` copies (not functions; the run settings too, so a
    /// branch runs as its origin did); false for self.
    pub fn copy_to(&self, target: &Dialog) -> bool {
        if self.same_as(target) {
            return false;
        }
        let source = self.lock();
        let mut copy = State::new();
        copy.copy_from(&source);
        drop(source);
        target.update(|t, events| {
            t.copy_from(&copy);
            t.replaced_messages(events);
        });
        true
    }

    // --- streaming primitives --------------------------------------------------------------

    pub fn begin_assistant_message(&self) {
        self.update(|s, events| s.begin_assistant_message(events));
    }

    /// Ignored unless streaming.
    pub fn append_delta(&self, text: &str) {
        self.update(|s, events| {
            if s.streaming {
                s.streaming_content.push_str(text);
                events.push(Event::StreamDelta(text.into()));
            }
        });
    }

    pub fn end_assistant_message(&self) {
        self.update(|s, events| s.end_assistant_message(String::new(), events));
    }

    /// True while streaming or while a run is in progress.
    pub fn is_streaming(&self) -> bool {
        self.read(|s| s.streaming || s.run.is_some())
    }

    pub fn streaming_content(&self) -> String {
        self.read(|s| s.streaming_content.clone())
    }

    pub fn reasoning_content(&self) -> String {
        self.read(|s| s.reasoning_content.clone())
    }

    /// The `usage` object of the last round that reported one.
    pub fn last_usage(&self) -> Option<Value> {
        self.read(|s| s.last_usage.clone())
    }

    // --- dialog-local skills, MCP servers, prompts and functions ----------------------------

    pub fn add_skill(&self, skill: Skill) {
        self.update(|s, _| upsert(&mut s.skills, skill, |k| &k.name));
    }

    pub fn remove_skill(&self, name: &str) {
        self.update(|s, _| s.skills.retain(|k| k.name != name));
    }

    pub fn skills(&self) -> Vec<Skill> {
        self.read(|s| s.skills.clone())
    }

    /// Replacing an entry with different connection settings shuts its connection down.
    pub fn add_mcp(&self, mcp: Mcp) {
        let new = mcp.clone();
        let old = self.update(|s, _| {
            let old = s.mcps.iter().find(|m| m.name == mcp.name).cloned();
            upsert(&mut s.mcps, mcp, |m| &m.name);
            old
        });
        if let Some(old) = old {
            crate::mcp_client::retire_replaced(&old, &new);
        }
    }

    /// Also shuts the server's connection down (SPEC §E.11).
    pub fn remove_mcp(&self, name: &str) {
        let removed: Vec<Mcp> = self.update(|s, _| {
            let (gone, kept) = std::mem::take(&mut s.mcps).into_iter().partition(|m| m.name == name);
            s.mcps = kept;
            gone
        });
        for m in &removed {
            crate::mcp_client::retire(m);
        }
    }

    pub fn mcps(&self) -> Vec<Mcp> {
        self.read(|s| s.mcps.clone())
    }

    pub fn add_prompt(&self, prompt: Prompt) {
        self.update(|s, _| upsert(&mut s.prompts, prompt, |p| &p.name));
    }

    pub fn remove_prompt(&self, name: &str) {
        self.update(|s, _| s.prompts.retain(|p| p.name != name));
    }

    pub fn prompts(&self) -> Vec<Prompt> {
        self.read(|s| s.prompts.clone())
    }

    /// Renders the dialog's prompt `name` (it overrides the Center's even when invalid), else
    /// the Center's valid one, and appends it. Returns whether a message was appended.
    pub fn append_prompt(&self, name: &str, vars: &HashMap<String, String>) -> bool {
        let own = self.read(|s| s.prompts.iter().find(|p| p.name == name).cloned());
        let prompt = match own {
            Some(p) => p,
            None => match self.center().and_then(|c| c.prompt(name)) {
                Some(p) => p,
                None => return false,
            },
        };
        if !prompt.is_valid() {
            return false;
        }
        self.append_message(prompt.render(vars));
        true
    }

    /// Takes ownership; a function with the same id is replaced and moves to the end.
    pub fn add_function(&self, function: Arc<dyn Function>) {
        self.update(|s, _| upsert(&mut s.functions, function, |f| &f.spec().id));
    }

    pub fn remove_function(&self, id: &str) {
        // The removed function is dropped after the lock is released: its destructor is the
        // host's code and may call back in.
        let removed = self.update(|s, _| {
            let (gone, kept) = std::mem::take(&mut s.functions).into_iter().partition(|f| f.spec().id == id);
            s.functions = kept;
            gone
        });
        drop::<Vec<Arc<dyn Function>>>(removed);
    }

    /// The dialog's function `id`, else the Center's.
    pub fn function(&self, id: &str) -> Option<Arc<dyn Function>> {
        let own = self.read(|s| s.functions.iter().find(|f| f.spec().id == id).cloned());
        own.or_else(|| self.center().and_then(|c| c.function(id)))
    }

    /// The ids of the dialog's own functions, in order.
    pub fn function_ids(&self) -> Vec<String> {
        self.read(|s| s.functions.iter().map(|f| f.spec().id.clone()).collect())
    }

    // --- running ---------------------------------------------------------------------------
    // `run()` is in `crate::run`, which drives the transitions of `transitions.rs`.

    /// Cancels the run in progress, if any (SPEC §E.6, §F): when this returns, `is_streaming()`
    /// is false and `RunFailed("[Aborted] Run aborted.")` has been emitted (or queued behind
    /// the events before it).
    pub fn abort(&self) {
        self.abort_run();
    }

    /// "Stop generating" (SPEC §H.3.2): ends the run in progress keeping what was said, with
    /// no further round. When this returns, `is_streaming()` is false and every event of the
    /// stop, `RunFinished` last, has been emitted (or queued behind the events before it); the
    /// request is cancelled.
    pub fn stop(&self) {
        self.stop_run();
    }

    /// Runs the waiting call `call_id` (SPEC §H.3.4); false when no call waits under that id.
    pub fn approve_tool_call(&self, call_id: &str) -> bool {
        self.decide_tool_call(call_id, Decision::Approved)
    }

    /// Answers the MCP elicitation `request_id` of the running call (SPEC §H.4.5): `action` is
    /// "accept" (with `content`, the object the requested schema describes), "decline" or
    /// "cancel". False when no elicitation waits under that id (answered, or the run is over)
    /// or the action is none of these.
    pub fn answer_mcp_elicitation(&self, request_id: &str, action: &str, content: Option<Value>) -> bool {
        self.answer_elicitation(request_id, action, content)
    }

    /// Answers the waiting call `call_id` with
    /// `{"error":"the user declined this call: <reason>"}`; false when no call waits under
    /// that id.
    pub fn reject_tool_call(&self, call_id: &str, reason: &str) -> bool {
        self.decide_tool_call(call_id, Decision::Rejected(reason.to_owned()))
    }

    /// The dialog's own functions, in order (a run offers them before the Center's).
    pub(crate) fn functions(&self) -> Vec<Arc<dyn Function>> {
        self.read(|s| s.functions.clone())
    }

    /// Reads the messages in place, under the lock (a request body is built this way).
    pub(crate) fn read_messages<R>(&self, f: impl FnOnce(&[Message]) -> R) -> R {
        self.read(|s| f(&s.messages))
    }

    // --- JSON ------------------------------------------------------------------------------

    /// `id, branchFromId, providerId, modelId, capabilityRequirement, messages, skills, mcps,
    /// prompts`, and the run settings when not at their default; functions and streaming
    /// state are not saved.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(DialogOut(self)).expect("a dialog serialises to JSON")
    }

    /// The one writer of a dialog's JSON (`to_json` and the Center document): straight to `s`,
    /// under the lock.
    pub(crate) fn serialize_json<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use crate::persist::{MessageOut, SeqOut};
        use serde::ser::SerializeMap;
        self.read(|st| {
            let mut o = s.serialize_map(None)?;
            o.serialize_entry("id", &st.id)?;
            o.serialize_entry("branchFromId", &st.branch_from_id)?;
            o.serialize_entry("providerId", &st.provider_id)?;
            o.serialize_entry("modelId", &st.model_id)?;
            o.serialize_entry("capabilityRequirement", &st.requirement)?;
            o.serialize_entry("messages", &SeqOut::new(st.messages.iter().map(MessageOut)))?;
            o.serialize_entry("skills", &SeqOut::new(st.skills.iter().map(Skill::to_json)))?;
            o.serialize_entry("mcps", &SeqOut::new(st.mcps.iter().map(Mcp::to_json)))?;
            o.serialize_entry("prompts", &SeqOut::new(st.prompts.iter().map(Prompt::to_json)))?;
            // Extensions, written only when not at their default (SPEC §H).
            if st.tool_approval {
                o.serialize_entry("toolApproval", &true)?;
            }
            if !st.parallel_tool_calls {
                o.serialize_entry("parallelToolCalls", &false)?;
            }
            if st.max_tool_rounds != DEFAULT_MAX_TOOL_ROUNDS {
                o.serialize_entry("maxToolRounds", &st.max_tool_rounds)?;
            }
            if let Some(ResponseSchema { name, schema }) = &st.response_schema {
                o.serialize_entry("responseSchema", &serde_json::json!({"name": name, "schema": schema}))?;
            }
            if st.context_policy != ContextPolicy::Fail {
                o.serialize_entry("contextPolicy", st.context_policy.name())?;
            }
            if !st.summary_model.0.is_empty() || !st.summary_model.1.is_empty() {
                o.serialize_entry("summaryModel", &serde_json::json!({"providerId": st.summary_model.0, "modelId": st.summary_model.1}))?;
            }
            if let Some(ContextSummary { text, covered }) = &st.context_summary {
                o.serialize_entry("contextSummary", &serde_json::json!({"text": text, "lastMessage": *covered as i64 - 1}))?;
            }
            o.end()
        })
    }

    /// Applies every field; returns whether an id was restored.
    pub fn from_json(&self, o: &Map<String, Value>) -> bool {
        self.apply_json(crate::persist::read_map(o))
    }

    /// Applies a saved dialog as the one reader (`persist::DialogDoc`) read it, from a `Map`
    /// or from the Center document's text.
    pub(crate) fn apply_json(&self, doc: crate::persist::DialogDoc) -> bool {
        let crate::persist::DialogDoc { messages, rest } = doc;
        let o = &rest;
        let mut skills = Vec::new();
        for k in json::objects(o, "skills") {
            let mut skill = Skill::default();
            skill.from_json(k);
            upsert(&mut skills, skill, |k| &k.name);
        }
        let mut mcps = Vec::new();
        for m in json::objects(o, "mcps") {
            let mut mcp = Mcp::default();
            mcp.from_json(m);
            upsert(&mut mcps, mcp, |m| &m.name);
        }
        let mut prompts = Vec::new();
        for p in json::objects(o, "prompts") {
            let mut prompt = Prompt::default();
            prompt.from_json(p);
            upsert(&mut prompts, prompt, |p| &p.name);
        }
        let id = json::id(o);
        let new_mcps = mcps.clone();
        let old_mcps = self.update(|s, events| {
            if let Some(id) = &id {
                s.id = id.clone();
            }
            s.branch_from_id = json::string(o, "branchFromId");
            s.provider_id = json::string(o, "providerId");
            s.model_id = json::string(o, "modelId");
            s.requirement = if o.contains_key("capabilityRequirement") {
                u32::try_from(json::int(o, "capabilityRequirement")).unwrap_or(0)
            } else {
                capability::TEXT
            };
            s.tool_approval = json::boolean(o, "toolApproval", false);
            s.parallel_tool_calls = json::boolean(o, "parallelToolCalls", true);
            s.max_tool_rounds = match o.get("maxToolRounds").and_then(json::integral) {
                Some(n) => n.clamp(0, i32::MAX as i64) as i32,
                None => DEFAULT_MAX_TOOL_ROUNDS,
            };
            s.response_schema = o.get("responseSchema").and_then(Value::as_object).and_then(|r| match r.get("schema") {
                Some(Value::Object(schema)) if !schema.is_empty() => {
                    Some(ResponseSchema { name: json::string(r, "name"), schema: Value::Object(schema.clone()) })
                }
                _ => None,
            });
            s.context_policy = ContextPolicy::from_name(&json::string(o, "contextPolicy"));
            s.summary_model = match o.get("summaryModel").and_then(Value::as_object) {
                Some(m) => (json::string(m, "providerId"), json::string(m, "modelId")),
                None => (String::new(), String::new()),
            };
            s.context_summary = o.get("contextSummary").and_then(Value::as_object).and_then(|c| {
                let last = c.get("lastMessage").and_then(json::integral)?;
                let covered = usize::try_from(last.checked_add(1)?).ok().filter(|n| *n > 0 && *n <= messages.len())?;
                Some(ContextSummary { text: json::string(c, "text"), covered })
            });
            s.measured = None;
            s.messages = messages;
            s.skills = skills;
            let old_mcps = std::mem::replace(&mut s.mcps, mcps);
            s.prompts = prompts;
            s.replaced_messages(events);
            old_mcps
        });
        crate::mcp_client::retire_missing(&old_mcps, &new_mcps);
        id.is_some()
    }
}

/// A dialog as `serde::Serialize` (its one writer).
pub(crate) struct DialogOut<'a>(pub &'a Dialog);

impl serde::Serialize for DialogOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_json(s)
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        // Destroying a dialog aborts its run (SPEC §E.6); the run holds only a weak reference.
        if let Some(run) = state.run.take() {
            run.cancel.cancel();
        }
        if heavy(&state.messages) {
            crate::reclaim::later(std::mem::take(&mut state.messages));
        }
    }
}

/// Whether freeing a history is worth a hand-off to the reclaiming thread: a send costs about
/// what freeing a few messages does.
fn heavy(messages: &[Message]) -> bool {
    const MESSAGES: usize = 16;
    const BYTES: usize = 64 << 10;
    messages.len() >= MESSAGES || messages.iter().map(|m| m.content.len()).sum::<usize>() >= BYTES
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Mutex as StdMutex;

    #[derive(Default)]
    pub(crate) struct Recorder(pub StdMutex<Vec<Event>>);

    impl EventSink for Recorder {
        fn emit(&self, events: &[Event]) {
            self.0.lock().unwrap().extend_from_slice(events);
        }
    }

    pub(crate) fn dialog_with_recorder() -> (Dialog, Arc<Recorder>) {
        let d = Dialog::new(&Center::new());
        let r = Arc::new(Recorder::default());
        d.set_sink(Some(r.clone()), HostToken::NONE);
        (d, r)
    }

    #[test]
    fn defaults() {
        let d = Dialog::new(&Center::new());
        assert_eq!(d.id().len(), 36);
        assert_eq!((d.branch_from_id(), d.provider_id(), d.model_id()), (String::new(), String::new(), String::new()));
        assert_eq!(d.capability_requirement(), capability::TEXT);
        assert_eq!(d.last_message(), Message::default());
        assert_eq!(d.find_last_assistant_message(), -1);
    }

    #[test]
    fn a_dropped_dialog_frees_its_history_small_or_large() {
        for count in [1, 16, 1000] {
            let content = Text::from("a message's text");
            let d = Dialog::new(&Center::new());
            for _ in 0..count {
                d.append_message(Message { content: content.clone(), ..Message::default() });
            }
            drop(d);
            crate::reclaim::tests::eventually(|| content.owners() == 1);
            assert_eq!(content.owners(), 1, "the history of {count} messages is freed");
        }
    }

    #[test]
    fn streaming_primitives_emit_in_order() {
        let (d, r) = dialog_with_recorder();
        d.append_delta("ignored");
        d.begin_assistant_message();
        d.append_delta("Hel");
        d.append_delta("lo");
        assert_eq!(d.streaming_content(), "Hello");
        d.end_assistant_message();
        assert_eq!(d.streaming_content(), "");
        assert!(!d.is_streaming());
        assert_eq!(
            *r.0.lock().unwrap(),
            vec![
                Event::StreamBegan,
                Event::StreamDelta("Hel".into()),
                Event::StreamDelta("lo".into()),
                Event::MessageAppended(0),
                Event::StreamEnded("Hello".into())
            ]
        );
        assert_eq!(d.last_message().role, Role::Assistant);
        r.0.lock().unwrap().clear();
        d.begin_assistant_message();
        d.end_assistant_message();
        assert_eq!(*r.0.lock().unwrap(), vec![Event::StreamBegan, Event::StreamEnded(Text::default())]);
        assert_eq!(d.message_count(), 1);
    }

    #[test]
    fn changes_other_than_appends_say_messages_reset() {
        let (d, r) = dialog_with_recorder();
        d.append_message(Message::new(Role::User, "a"));
        d.append_message(Message::new(Role::User, "b"));
        d.truncate_to(5); // changes nothing: no event
        d.truncate_to(1);
        d.clear_messages();
        d.from_json(serde_json::json!({"messages": []}).as_object().unwrap());
        let other = Dialog::new(&Center::new());
        other.copy_to(&d);
        assert_eq!(
            *r.0.lock().unwrap(),
            vec![Event::MessageAppended(0), Event::MessageAppended(1), Event::MessagesReset, Event::MessagesReset, Event::MessagesReset, Event::MessagesReset]
        );
    }

    #[test]
    fn truncate_and_find_last_assistant() {
        let d = Dialog::new(&Center::new());
        for role in [Role::User, Role::Assistant, Role::User] {
            d.append_message(Message::new(role, "x"));
        }
        assert_eq!(d.find_last_assistant_message(), 1);
        d.truncate_to(-1);
        d.truncate_to(3);
        assert_eq!(d.message_count(), 3);
        let rev = d.revision();
        d.truncate_to(1);
        assert_eq!(d.message_count(), 1);
        assert_ne!(d.revision(), rev);
    }

    #[test]
    fn messages_since_gives_only_the_appended_messages_after_appends() {
        let d = Dialog::new(&Center::new());
        let contents = |v: &[Message]| v.iter().map(|m| String::from(m.content.clone())).collect::<Vec<_>>();
        d.append_message(Message::new(Role::User, "a"));
        d.append_message(Message::new(Role::Assistant, "b"));
        let (all, first, rev) = d.messages_since(0, 0);
        assert_eq!((contents(&all), first), (vec!["a".to_string(), "b".to_string()], 0));
        // nothing changed: an empty delta
        let (none, first, same) = d.messages_since(rev, 2);
        assert_eq!((none.len(), first, same), (0, 2, rev));
        // appends only: the new ones, from the old count
        d.append_message(Message::new(Role::User, "c"));
        d.begin_assistant_message();
        d.append_delta("d");
        d.end_assistant_message();
        let (delta, first, rev2) = d.messages_since(rev, 2);
        assert_eq!((contents(&delta), first), (vec!["c".to_string(), "d".to_string()], 2));
        assert_ne!(rev2, rev);
        // a truncation (even back to the same count after an append) is a full snapshot
        d.truncate_to(3);
        d.append_message(Message::new(Role::User, "e"));
        let (full, first, rev3) = d.messages_since(rev2, 4);
        assert_eq!((contents(&full), first), (vec!["a", "b", "c", "e"].into_iter().map(String::from).collect::<Vec<_>>(), 0));
        // clear, copy_to and from_json too
        d.clear_messages();
        assert_eq!(d.messages_since(rev3, 4).1, 0);
        let other = Dialog::new(&Center::new());
        other.append_message(Message::new(Role::User, "x"));
        let (_, _, other_rev) = other.messages_since(0, 0);
        d.append_message(Message::new(Role::User, "y"));
        assert!(d.copy_to(&other));
        let (copied, first, _) = other.messages_since(other_rev, 1);
        assert_eq!((contents(&copied), first), (vec!["y".to_string()], 0));
        let (_, _, rev4) = d.messages_since(0, 0);
        d.from_json(&serde_json::json!({"messages": [{"role": "user", "content": "z"}]}).as_object().unwrap().clone());
        assert_eq!(d.messages_since(rev4, 1).1, 0);
        // an implausible snapshot (a revision from the future, more messages than there are)
        let (_, _, rev5) = d.messages_since(0, 0);
        assert_eq!(d.messages_since(rev5 + 1, 1).1, 0);
        assert_eq!(d.messages_since(rev5, 2).1, 0);
    }

    #[test]
    fn local_entries_replace_and_move_to_end() {
        let d = Dialog::new(&Center::new());
        d.add_skill(Skill::new("a"));
        d.add_skill(Skill::new("b"));
        let mut renewed = Skill::new("a");
        renewed.description = "new".into();
        d.add_skill(renewed);
        d.add_skill(Skill::new(""));
        let names: Vec<_> = d.skills().into_iter().map(|s| (s.name, s.description)).collect();
        assert_eq!(names, vec![("b".into(), "".into()), ("a".into(), "new".into())]);
        d.remove_skill("b");
        assert_eq!(d.skills().len(), 1);
    }

    #[test]
    fn append_prompt_prefers_the_dialogs_own() {
        let c = Center::new();
        c.add_prompt(Prompt::new("p", "center {{x}}"));
        c.add_prompt(Prompt::new("q", "only center {{x}}"));
        let d = Dialog::new(&c);
        d.add_prompt(Prompt::new("p", "own {{x}}"));
        let vars = HashMap::from([("x".to_owned(), "1".to_owned())]);
        assert!(d.append_prompt("p", &vars));
        assert!(d.append_prompt("q", &vars));
        assert!(!d.append_prompt("none", &vars));
        let contents: Vec<_> = d.messages().into_iter().map(|m| (m.role, m.content)).collect();
        assert_eq!(contents, vec![(Role::Prompt, "own 1".into()), (Role::Prompt, "only center 1".into())]);
    }

    #[test]
    fn copy_to_copies_all_but_functions_and_id() {
        let c = Center::new();
        let a = Dialog::new(&c);
        a.append_message(Message::new(Role::User, "hi"));
        a.set_provider_id("p");
        a.set_model_id("m");
        a.set_capability_requirement(capability::IMAGE);
        a.add_mcp(Mcp::new("fs"));
        let b = Dialog::new(&c);
        assert!(a.copy_to(&b));
        assert!(!a.copy_to(&a));
        assert_eq!(b.messages(), a.messages());
        assert_eq!((b.provider_id(), b.model_id(), b.capability_requirement()), ("p".into(), "m".into(), capability::IMAGE));
        assert_eq!(b.mcps().len(), 1);
        assert_ne!(b.id(), a.id());
    }

    #[test]
    fn json_round_trip_and_from_json_rules() {
        let c = Center::new();
        let a = Dialog::new(&c);
        a.append_message(Message::new(Role::User, "hi"));
        a.add_skill(Skill::with_instruction("s", "be brief"));
        a.add_prompt(Prompt::new("p", "c"));
        a.set_branch_from_id("origin");
        let j = a.to_json();
        let b = Dialog::new(&c);
        assert!(b.from_json(j.as_object().unwrap()));
        assert_eq!(b.to_json(), j);
        let keep = b.id();
        assert!(!b.from_json(serde_json::json!({"id": "", "messages": [1, {"role": "x"}]}).as_object().unwrap()));
        assert_eq!(b.id(), keep);
        assert_eq!(b.message_count(), 1);
        assert_eq!(b.capability_requirement(), capability::TEXT);
    }

    #[test]
    fn run_settings_are_saved_only_when_not_at_their_default() {
        let c = Center::new();
        let a = Dialog::new(&c);
        let plain = a.to_json();
        for key in ["toolApproval", "parallelToolCalls", "maxToolRounds", "responseSchema"] {
            assert!(plain.get(key).is_none(), "{key} at its default is not written");
        }
        a.set_tool_approval(true);
        a.set_parallel_tool_calls(false);
        a.set_max_tool_rounds(3);
        a.set_response_schema("reply", json!({"type": "object"}));
        let j = a.to_json();
        assert_eq!((&j["toolApproval"], &j["parallelToolCalls"], &j["maxToolRounds"]), (&json!(true), &json!(false), &json!(3)));
        assert_eq!(j["responseSchema"], json!({"name": "reply", "schema": {"type": "object"}}));
        let b = Dialog::new(&c);
        b.from_json(j.as_object().unwrap());
        assert_eq!((b.tool_approval(), b.parallel_tool_calls(), b.max_tool_rounds()), (true, false, 3));
        assert_eq!(b.response_schema(), a.response_schema());
        b.from_json(plain.as_object().unwrap());
        assert_eq!((b.tool_approval(), b.parallel_tool_calls(), b.max_tool_rounds()), (false, true, DEFAULT_MAX_TOOL_ROUNDS));
        assert_eq!(b.response_schema(), None);
        b.set_response_schema("x", json!({}));
        assert_eq!(b.response_schema(), None, "an empty schema is none");
        b.set_max_tool_rounds(-5);
        assert_eq!(b.max_tool_rounds(), 0);
        let copy = Dialog::new(&c);
        a.copy_to(&copy);
        assert_eq!((copy.tool_approval(), copy.parallel_tool_calls(), copy.max_tool_rounds()), (true, false, 3));
    }

    /// Appends from two threads while a sink records: the indexes arrive in the order the
    /// messages were appended, whichever thread delivers them.
    #[test]
    fn events_reach_the_sink_in_the_order_of_the_changes() {
        let (d, r) = dialog_with_recorder();
        let writers: Vec<_> = (0..2)
            .map(|_| {
                let d = d.clone();
                std::thread::spawn(move || {
                    for _ in 0..2000 {
                        d.append_message(Message::new(Role::User, "x"));
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let indexes: Vec<usize> = r
            .0
            .lock()
            .unwrap()
            .iter()
            .map(|e| match e {
                Event::MessageAppended(i) => *i,
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(indexes, (0..4000).collect::<Vec<_>>());
    }

    /// A sink that edits the dialog from inside its callback sees its own edit's events after
    /// the batch it is handling, not nested inside it.
    #[test]
    fn a_sink_that_calls_back_in_keeps_the_order() {
        struct Echo {
            dialog: StdMutex<Option<Dialog>>,
            seen: StdMutex<Vec<Event>>,
        }
        impl EventSink for Echo {
            fn emit(&self, events: &[Event]) {
                self.seen.lock().unwrap().extend_from_slice(events);
                if events.contains(&Event::MessageAppended(0)) {
                    let d = self.dialog.lock().unwrap().clone().unwrap();
                    d.append_message(Message::new(Role::Assistant, "echo"));
                    self.seen.lock().unwrap().push(Event::StreamBegan); // marks "callback returns"
                }
            }
        }
        let d = Dialog::new(&Center::new());
        let echo = Arc::new(Echo { dialog: StdMutex::new(Some(d.clone())), seen: StdMutex::new(Vec::new()) });
        d.set_sink(Some(echo.clone()), HostToken::NONE);
        d.append_message(Message::new(Role::User, "hi"));
        assert_eq!(
            *echo.seen.lock().unwrap(),
            vec![Event::MessageAppended(0), Event::StreamBegan, Event::MessageAppended(1)]
        );
        assert_eq!(d.message_count(), 2);
        echo.dialog.lock().unwrap().take(); // break the cycle dialog → sink → dialog
    }
}
