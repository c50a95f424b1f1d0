//! The registry (SPEC §C): models, providers, skills, MCP servers, prompts, functions and
//! dialogs. One process-wide instance (`Center::global`), thread-safe; separate instances exist
//! for tests and for hosts that want isolation.

use crate::{
    dialog::{Dialog, DialogOut},
    event::{CenterEvent, CenterSink},
    function::Function,
    json,
    persist::CenterDoc,
    mcp::Mcp,
    model::Model,
    outbox::Outbox,
    prompt::Prompt,
    provider::Provider,
    skill::Skill,
};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};

#[derive(Clone)]
pub struct Center {
    shared: Arc<Shared>,
}

struct Shared {
    state: RwLock<State>,
    sink: RwLock<Option<Arc<dyn CenterSink>>>,
    /// The registry's events, queued under `state`'s write lock (see `outbox.rs`).
    outbox: Outbox<CenterEvent>,
}

/// A Center that does not keep it alive (dialogs point back at their Center this way).
#[derive(Clone)]
pub struct WeakCenter(Weak<Shared>);

impl WeakCenter {
    pub fn upgrade(&self) -> Option<Center> {
        self.0.upgrade().map(|shared| Center { shared })
    }

    pub fn is_alive(&self) -> bool {
        self.0.strong_count() > 0
    }

    pub fn same_as(&self, other: &WeakCenter) -> bool {
        Weak::ptr_eq(&self.0, &other.0)
    }
}

/// Everything behind the Center's lock; every map is ordered by key, so lists come sorted.
#[derive(Default)]
pub(crate) struct State {
    pub models: BTreeMap<String, Model>,
    /// Changes whenever `models` does; unique across Centers (see `Revision`), so it keys the
    /// providers' pick caches.
    pub models_revision: Revision,
    pub providers: BTreeMap<String, Provider>,
    pub skills: BTreeMap<String, Skill>,
    pub mcps: BTreeMap<String, Mcp>,
    pub prompts: BTreeMap<String, Prompt>,
    pub functions: BTreeMap<String, Arc<dyn Function>>,
    pub default_provider: String,
    pub dialogs: BTreeMap<String, Dialog>,
}

/// A process-wide unique stamp: every new value (a fresh State, a model change) is greater
/// than all earlier ones, in any Center.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Revision(pub u64);

impl Revision {
    fn next() -> Revision {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Revision(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl Default for Revision {
    fn default() -> Self {
        Revision::next()
    }
}

impl Default for Center {
    fn default() -> Self {
        Self::new()
    }
}

/// Inserts unless the key is empty; returns what it replaced so the caller can drop it after
/// releasing the lock.
fn insert<T>(map: &mut BTreeMap<String, T>, key: &str, value: T) -> Option<T> {
    if key.is_empty() { None } else { map.insert(key.to_owned(), value) }
}

impl Center {
    pub fn new() -> Center {
        crate::runtime::warm_up();
        Center {
            shared: Arc::new(Shared {
                state: RwLock::new(State::default()),
                sink: RwLock::new(None),
                outbox: Outbox::default(),
            }),
        }
    }

    /// The process-wide instance (`Center::getInstance()`).
    pub fn global() -> &'static Center {
        static GLOBAL: OnceLock<Center> = OnceLock::new();
        GLOBAL.get_or_init(Center::new)
    }

    pub fn downgrade(&self) -> WeakCenter {
        WeakCenter(Arc::downgrade(&self.shared))
    }

    pub fn same_as(&self, other: &Center) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, State> {
        self.shared.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.shared.state.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Replaces the receiver of the registry's events; the previous one is dropped once no
    /// event is being delivered through it.
    pub fn set_sink(&self, sink: Option<Arc<dyn CenterSink>>) {
        *self.shared.sink.write().unwrap_or_else(|e| e.into_inner()) = sink;
    }

    fn deliver(&self) {
        self.shared.outbox.deliver(|batch| {
            let sink = self.shared.sink.read().unwrap_or_else(|e| e.into_inner()).clone();
            if let Some(sink) = sink {
                sink.emit(batch);
            }
        });
    }

    // --- models ----------------------------------------------------------------------------

    pub fn add_model(&self, model: Model) {
        let id = model.id.clone();
        let mut s = self.write();
        insert(&mut s.models, &id, model);
        s.models_revision = Revision::next();
    }

    pub fn remove_model(&self, id: &str) {
        let mut s = self.write();
        if s.models.remove(id).is_some() {
            s.models_revision = Revision::next();
        }
    }

    pub fn model(&self, id: &str) -> Option<Model> {
        self.read().models.get(id).cloned()
    }

    pub fn models(&self) -> Vec<Model> {
        self.read().models.values().cloned().collect()
    }

    pub fn model_ids(&self) -> Vec<String> {
        self.read().models.keys().cloned().collect()
    }

    // --- providers -------------------------------------------------------------------------

    pub fn add_provider(&self, provider: Provider) {
        let id = provider.id.clone();
        insert(&mut self.write().providers, &id, provider);
    }

    /// Also clears the default provider when it was this one.
    pub fn remove_provider(&self, id: &str) {
        let mut s = self.write();
        s.providers.remove(id);
        if s.default_provider == id {
            s.default_provider.clear();
        }
    }

    pub fn provider(&self, id: &str) -> Option<Provider> {
        self.read().providers.get(id).cloned()
    }

    pub fn providers(&self) -> Vec<Provider> {
        self.read().providers.values().cloned().collect()
    }

    /// Stored unchecked (SPEC §F).
    pub fn set_default_provider(&self, id: &str) {
        self.write().default_provider = id.to_owned();
    }

    pub fn default_provider(&self) -> String {
        self.read().default_provider.clone()
    }

    /// `provider.pick_first` against this Center's model pool.
    /// Remembered per provider while neither it nor this Center's models change, so asking
    /// again (every run does) is not a scan of the provider's models.
    pub fn pick_first(&self, provider: &Provider, required: u32) -> String {
        let s = self.read();
        provider.pick_first_cached(required, &s.models, s.models_revision.0)
    }

    /// `provider.pick_next` against this Center's model pool.
    pub fn pick_next(&self, provider: &Provider, after: &str, required: u32) -> String {
        provider.pick_next(after, required, &self.read().models)
    }

    // --- skills, MCP servers, prompts ------------------------------------------------------

    pub fn add_skill(&self, skill: Skill) {
        let name = skill.name.clone();
        insert(&mut self.write().skills, &name, skill);
    }

    pub fn remove_skill(&self, name: &str) {
        self.write().skills.remove(name);
    }

    pub fn skill(&self, name: &str) -> Option<Skill> {
        self.read().skills.get(name).cloned()
    }

    pub fn skills(&self) -> Vec<Skill> {
        self.read().skills.values().cloned().collect()
    }

    /// Replacing an entry with different connection settings shuts its connection down.
    pub fn add_mcp(&self, mcp: Mcp) {
        let name = mcp.name.clone();
        let new = mcp.clone();
        let old = insert(&mut self.write().mcps, &name, mcp);
        if let Some(old) = old {
            crate::mcp_client::retire_replaced(&old, &new);
        }
    }

    /// Also shuts the server's connection down (SPEC §E.11).
    pub fn remove_mcp(&self, name: &str) {
        let old = self.write().mcps.remove(name);
        if let Some(old) = old {
            crate::mcp_client::retire(&old);
        }
    }

    pub fn mcp(&self, name: &str) -> Option<Mcp> {
        self.read().mcps.get(name).cloned()
    }

    pub fn mcps(&self) -> Vec<Mcp> {
        self.read().mcps.values().cloned().collect()
    }

    /// What the MCP server `server` speaks (SPEC §I.3.1, issue 31): `{protocolVersion,
    /// serverInfo, capabilities}` of its live connection; an empty object while it is not
    /// connected or when no entry has that name.
    pub fn mcp_server_info(&self, server: &str) -> Value {
        match self.mcp(server) {
            Some(m) => crate::mcp_client::server_info(&m),
            None => Value::Object(Map::new()),
        }
    }

    /// Sends any request to this Center's MCP server `server` (SPEC §H.4.4: resources, prompts,
    /// completion, …) over the pooled connection, connecting it if needed, and calls `done`
    /// with the result or a readable reason, on a library thread (at once, on the caller's,
    /// when there is no such enabled entry). From then on the Center hears the server's
    /// notifications.
    pub fn request_mcp(
        &self,
        server: &str,
        method: &str,
        params: Option<Value>,
        done: impl FnOnce(Result<Value, String>) + Send + 'static,
    ) {
        let entry = match self.mcp(server) {
            Some(m) if !m.enabled => Err(format!("the MCP server {server} is disabled")),
            Some(m) if !m.is_valid() => Err(format!("the MCP server {server} is not valid (a stdio server needs a command, the others a url)")),
            Some(m) => Ok(m),
            None => Err(format!("no MCP server named \"{server}\" is registered with the Center")),
        };
        let config = match entry {
            Ok(m) => m,
            Err(reason) => return done(Err(reason)),
        };
        let (center, method) = (self.downgrade(), method.to_owned());
        crate::runtime::runtime().spawn(async move {
            done(crate::mcp_client::request(config, center, &method, params).await);
        });
    }

    /// A notification from the server of MCP entry `server` (SPEC §H.4.4).
    pub(crate) fn mcp_notified(&self, server: &str, method: &str, params: &Value) {
        let event = CenterEvent::McpNotification { server: server.to_owned(), method: method.to_owned(), params: params.clone() };
        self.announce(event);
    }

    /// The server of MCP entry `server` wants the user to authorize at `url` (SPEC §H.4.6).
    pub(crate) fn mcp_authorization_required(&self, server: &str, url: &str) {
        self.announce(CenterEvent::McpAuthorizationRequired { server: server.to_owned(), url: url.to_owned() });
    }

    /// The server of MCP entry `server` has new tokens for the application to keep.
    pub(crate) fn mcp_tokens_changed(&self, server: &str, tokens: &crate::mcp_client::oauth::Tokens) {
        self.announce(CenterEvent::McpTokensChanged { server: server.to_owned(), tokens: tokens.clone() });
    }

    fn announce(&self, event: CenterEvent) {
        self.shared.outbox.push(vec![event]);
        self.deliver();
    }

    pub fn add_prompt(&self, prompt: Prompt) {
        let name = prompt.name.clone();
        insert(&mut self.write().prompts, &name, prompt);
    }

    pub fn remove_prompt(&self, name: &str) {
        self.write().prompts.remove(name);
    }

    pub fn prompt(&self, name: &str) -> Option<Prompt> {
        self.read().prompts.get(name).cloned()
    }

    pub fn prompts(&self) -> Vec<Prompt> {
        self.read().prompts.values().cloned().collect()
    }

    // --- functions -------------------------------------------------------------------------

    /// Takes ownership; replaces a function with the same id.
    pub fn add_function(&self, function: Arc<dyn Function>) {
        let id = function.spec().id.clone();
        let replaced = insert(&mut self.write().functions, &id, function);
        drop(replaced); // after the lock: its destructor is the host's code
    }

    pub fn remove_function(&self, id: &str) {
        let removed = self.write().functions.remove(id);
        drop(removed);
    }

    pub fn function(&self, id: &str) -> Option<Arc<dyn Function>> {
        self.read().functions.get(id).cloned()
    }

    pub fn function_ids(&self) -> Vec<String> {
        self.read().functions.keys().cloned().collect()
    }

    // --- dialogs ---------------------------------------------------------------------------

    pub fn create_dialog(&self) -> Dialog {
        let dialog = Dialog::new(self);
        self.register_dialog(dialog.clone());
        dialog
    }

    /// Registers `dialog` under its id, replacing (and aborting) any dialog with that id.
    fn register_dialog(&self, dialog: Dialog) {
        let id = dialog.id();
        if id.is_empty() {
            return;
        }
        let replaced = {
            let mut s = self.write();
            let replaced = s.dialogs.insert(id.clone(), dialog);
            let mut events = Vec::with_capacity(2);
            if replaced.is_some() {
                events.push(CenterEvent::DialogRemoved(id.clone()));
            }
            events.push(CenterEvent::DialogAdded(id));
            self.shared.outbox.push(events);
            replaced
        };
        if let Some(old) = replaced {
            old.abort();
        }
        self.deliver();
    }

    /// A dialog read from `json`, registered under its id; a dialog with the same id is
    /// replaced and its run aborted.
    pub fn restore_dialog(&self, json: &Map<String, Value>) -> Dialog {
        let dialog = Dialog::new(self);
        dialog.from_json(json);
        self.register_dialog(dialog.clone());
        dialog
    }

    pub fn save_dialog(&self, dialog: &Dialog) -> Value {
        dialog.to_json()
    }

    /// Unregisters the dialog and aborts its run.
    pub fn remove_dialog(&self, id: &str) {
        let removed = {
            let mut s = self.write();
            let removed = s.dialogs.remove(id);
            if removed.is_some() {
                self.shared.outbox.push(vec![CenterEvent::DialogRemoved(id.to_owned())]);
            }
            removed
        };
        if let Some(dialog) = removed {
            dialog.abort();
            self.deliver();
        }
    }

    pub fn dialog(&self, id: &str) -> Option<Dialog> {
        self.read().dialogs.get(id).cloned()
    }

    pub fn dialog_ids(&self) -> Vec<String> {
        self.read().dialogs.keys().cloned().collect()
    }

    /// A new registered dialog with copies of the source's messages, skills, MCP servers,
    /// prompts, provider, model and requirement (not functions), branching from it.
    pub fn clone_dialog(&self, id: &str) -> Option<Dialog> {
        let source = self.dialog(id)?;
        let copy = Dialog::new(self);
        source.copy_to(&copy);
        copy.set_branch_from_id(id);
        self.register_dialog(copy.clone());
        Some(copy)
    }

    /// The clone `regenerate` runs: the last assistant message and everything after it are
    /// dropped. Hosts that must attach a sink before the run starts call this, then `run()`.
    pub fn branch_for_regenerate(&self, id: &str) -> Option<Dialog> {
        let copy = self.clone_dialog(id)?;
        let last = copy.find_last_assistant_message();
        if last >= 0 {
            copy.truncate_to(last);
        }
        Some(copy)
    }

    /// Clones the dialog, drops its last answer and runs the clone; the original stays.
    pub fn regenerate(&self, id: &str) -> Option<Dialog> {
        let copy = self.branch_for_regenerate(id)?;
        copy.run();
        Some(copy)
    }

    // --- JSON ------------------------------------------------------------------------------

    /// Everything but functions, tokens included (the host decides where this is stored).
    pub fn to_json(&self) -> Value {
        self.to_json_with(Secrets::Include)
    }

    /// `to_json`, or without its secrets (SPEC §I.5.2).
    pub fn to_json_with(&self, secrets: Secrets) -> Value {
        serde_json::to_value(CenterOut(self, secrets)).expect("a Center serialises to JSON")
    }

    /// `to_json().to_string()`, written straight from the state: the dialogs (the bulk) are
    /// serialised without building a `Value` tree.
    pub fn to_json_string(&self) -> String {
        self.to_json_string_with(Secrets::Include)
    }

    /// `to_json_string`, or without its secrets (SPEC §I.5.2).
    pub fn to_json_string_with(&self, secrets: Secrets) -> String {
        let mut out = Vec::with_capacity(1 << 16);
        serde::Serialize::serialize(&CenterOut(self, secrets), &mut serde_json::Serializer::new(&mut out))
            .expect("serialising to memory cannot fail");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// The one writer of the Center document (`to_json` and `to_json_string`).
    fn serialize_json<S: serde::Serializer>(&self, ser: S, secrets: Secrets) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let s = self.read();
        let omit = secrets == Secrets::Omit;
        let models: Vec<Value> = s.models.values().map(Model::to_json).map(|m| if omit { without_token(m) } else { m }).collect();
        let providers: Vec<Value> = s.providers.values().map(Provider::to_json).collect();
        let skills: Vec<Value> = s.skills.values().map(Skill::to_json).collect();
        let mcps: Vec<Value> = s.mcps.values().map(Mcp::to_json).map(|m| if omit { without_credentials(m) } else { m }).collect();
        let prompts: Vec<Value> = s.prompts.values().map(Prompt::to_json).collect();
        let default_provider = s.default_provider.clone();
        let dialogs: Vec<Dialog> = s.dialogs.values().cloned().collect();
        drop(s);

        let mut o = ser.serialize_map(None)?;
        o.serialize_entry("models", &models)?;
        o.serialize_entry("providers", &providers)?;
        o.serialize_entry("skills", &skills)?;
        o.serialize_entry("mcps", &mcps)?;
        o.serialize_entry("prompts", &prompts)?;
        o.serialize_entry("defaultProviderId", &default_provider)?;
        o.serialize_entry("dialogs", &crate::persist::SeqOut::new(dialogs.iter().map(DialogOut)))?;
        if omit {
            o.serialize_entry(SECRETS_OMITTED, &true)?;
        }
        o.end()
    }

    /// `from_json` on JSON text: the dialogs' messages are read straight into structs, no
    /// `Value` tree is built for them. Err when the text is not a JSON object.
    pub fn from_json_text(&self, text: &str) -> Result<bool, crate::Error> {
        Ok(self.apply_json(crate::persist::parse_center(text)?))
    }

    /// Replaces everything but functions; old dialogs are aborted and dropped, saved ones
    /// restored. An empty object changes nothing and returns false.
    pub fn from_json(&self, o: &Map<String, Value>) -> bool {
        self.apply_json(CenterDoc::from_map(o))
    }

    /// Applies the Center document as the one reader (`persist::CenterDoc`) read it.
    fn apply_json(&self, doc: CenterDoc) -> bool {
        if !doc.any {
            return false;
        }
        let dialogs = doc
            .dialogs
            .into_iter()
            .map(|d| {
                let dialog = Dialog::new(self);
                dialog.apply_json(d);
                dialog
            })
            .collect();
        self.replace_all(&doc.rest, dialogs);
        true
    }

    /// Everything but the dialogs from `o` (its "dialogs" entry is not looked at), the dialogs
    /// as given. A document saved without its secrets (`"secretsOmitted": true`) keeps the
    /// tokens of the same model ids, and the credential headers and environment variables of
    /// the same MCP entries, as they are in memory.
    fn replace_all(&self, o: &Map<String, Value>, dialogs: Vec<Dialog>) {
        let mut next = State::default();
        let omitted = json::boolean(o, SECRETS_OMITTED, false);
        let kept = if !omitted {
            Default::default()
        } else {
            let s = self.read();
            let tokens: HashMap<String, String> = s.models.values().map(|m| (m.id.clone(), m.token.clone())).collect();
            let mcps: HashMap<String, (Entries, Entries)> = s.mcps.values().map(|m| (m.name.clone(), (m.headers.clone(), m.environment.clone()))).collect();
            (tokens, mcps)
        };
        for m in json::objects(o, "models") {
            let mut model = Model::new();
            model.from_json(m);
            if !m.contains_key("token")
                && let Some(token) = kept.0.get(&model.id)
            {
                model.token = token.clone();
            }
            insert(&mut next.models, &model.id.clone(), model);
        }
        for p in json::objects(o, "providers") {
            let mut provider = Provider::new();
            provider.from_json(p);
            insert(&mut next.providers, &provider.id.clone(), provider);
        }
        for k in json::objects(o, "skills") {
            let mut skill = Skill::default();
            skill.from_json(k);
            insert(&mut next.skills, &skill.name.clone(), skill);
        }
        for m in json::objects(o, "mcps") {
            let mut mcp = Mcp::default();
            mcp.from_json(m);
            if let Some((headers, environment)) = kept.1.get(&mcp.name) {
                keep_credentials(&mut mcp.headers, headers);
                keep_credentials(&mut mcp.environment, environment);
            }
            insert(&mut next.mcps, &mcp.name.clone(), mcp);
        }
        for p in json::objects(o, "prompts") {
            let mut prompt = Prompt::default();
            prompt.from_json(p);
            insert(&mut next.prompts, &prompt.name.clone(), prompt);
        }
        next.default_provider = json::string(o, "defaultProviderId");
        for dialog in dialogs {
            insert(&mut next.dialogs, &dialog.id(), dialog);
        }
        let new_mcps: Vec<Mcp> = next.mcps.values().cloned().collect();
        let (old_dialogs, old_mcps) = {
            let mut s = self.write();
            next.functions = std::mem::take(&mut s.functions);
            let old = std::mem::replace(&mut *s, next);
            self.shared.outbox.push(vec![CenterEvent::DialogsReset]);
            (old.dialogs, old.mcps)
        };
        crate::mcp_client::retire_missing(old_mcps.values(), &new_mcps);
        for dialog in old_dialogs.values() {
            dialog.abort();
        }
        self.deliver();
    }
}

/// Whether the Center document carries the secrets (SPEC §I.5.2): the native document does
/// (`Include`, the default); `Omit` leaves out every model's token and every MCP header that
/// carries a credential and every credential environment variable of a stdio server
/// (`crate::mcp::is_credential_name`), for a document kept where secrets must not be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Secrets {
    #[default]
    Include = 0,
    Omit = 1,
}

/// The extension key of a document written with `Secrets::Omit`.
const SECRETS_OMITTED: &str = "secretsOmitted";

fn without_token(mut model: Value) -> Value {
    if let Value::Object(o) = &mut model {
        o.remove("token");
    }
    model
}

fn without_credentials(mut mcp: Value) -> Value {
    for key in ["headers", "environment"] {
        if let Some(Value::Object(entries)) = mcp.get_mut(key) {
            entries.retain(|name, _| !crate::mcp::is_credential_name(name));
        }
    }
    mcp
}

/// An MCP entry's headers or environment.
type Entries = BTreeMap<String, String>;

/// Into `entries` (an MCP entry's headers or environment, as read from a secretless
/// document), the credentials `in_memory` has that it lacks; a name the document has (in any
/// case) keeps the document's value.
fn keep_credentials(entries: &mut Entries, in_memory: &Entries) {
    for (name, value) in in_memory {
        if crate::mcp::is_credential_name(name) && !entries.keys().any(|e| e.eq_ignore_ascii_case(name)) {
            entries.insert(name.clone(), value.clone());
        }
    }
}

/// The Center as `serde::Serialize` (its one writer).
struct CenterOut<'a>(&'a Center, Secrets);

impl serde::Serialize for CenterOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_json(s, self.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_without_secrets_and_the_secrets_kept_in_memory() {
        let c = Center::new();
        c.add_model(Model { id: "m".into(), name: "n".into(), url: "http://h".into(), token: "sk-secret".into(), ..Model::new() });
        let mut mcp = Mcp::new("hosted");
        mcp.headers.insert("Authorization".into(), "Bearer mcp-secret".into());
        mcp.headers.insert("X-Upstream-Token".into(), "also-secret".into());
        mcp.headers.insert("Accept-Language".into(), "de".into());
        c.add_mcp(mcp);
        let full = c.to_json_string();
        assert!(full.contains("sk-secret") && full.contains("mcp-secret") && !full.contains("secretsOmitted"), "the default is the native document");
        let text = c.to_json_string_with(Secrets::Omit);
        for secret in ["sk-secret", "mcp-secret", "also-secret", "Authorization", "X-Upstream-Token"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc, c.to_json_with(Secrets::Omit));
        assert!(doc["models"][0].get("token").is_none());
        assert_eq!(doc["mcps"][0]["headers"], serde_json::json!({"Accept-Language": "de"}));
        assert_eq!(doc["secretsOmitted"], true);
        // Read back: the secrets in memory stay; a document with them replaces them.
        assert!(c.from_json(doc.as_object().unwrap()));
        assert_eq!(c.model("m").unwrap().token, "sk-secret");
        assert_eq!(c.mcp("hosted").unwrap().headers.len(), 3);
        let mut native: Value = serde_json::from_str(&full).unwrap();
        native["mcps"][0]["headers"] = serde_json::json!({});
        native["models"][0]["token"] = "".into();
        assert!(c.from_json(native.as_object().unwrap()));
        assert_eq!((c.model("m").unwrap().token.as_str(), c.mcp("hosted").unwrap().headers.len()), ("", 0));
    }

    #[test]
    fn a_document_without_secrets_leaves_out_a_stdio_servers_credential_environment_and_keeps_it_in_memory() {
        let c = Center::new();
        let mut mcp = Mcp::new("github");
        mcp.command = "github-mcp-server".into();
        for (name, value) in [
            ("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp-env-secret-1"),
            ("OPENAI_API_KEY", "sk-env-secret-2"),
            ("DB_PASSWORD", "pw-env-secret-3"),
            ("LOG_LEVEL", "debug"),
        ] {
            mcp.environment.insert(name.into(), value.into());
        }
        c.add_mcp(mcp.clone());
        assert!(c.to_json_string().contains("ghp-env-secret-1"), "the native document has them");
        let text = c.to_json_string_with(Secrets::Omit);
        for secret in ["ghp-env-secret-1", "sk-env-secret-2", "pw-env-secret-3", "GITHUB_PERSONAL_ACCESS_TOKEN", "DB_PASSWORD"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        let mut doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["mcps"][0]["environment"], json!({"LOG_LEVEL": "debug"}));
        // Read back: what memory has stays; a value the document has (any case) wins.
        doc["mcps"][0]["environment"]["openai_api_key"] = "sk-from-the-document".into();
        assert!(c.from_json(doc.as_object().unwrap()));
        let read = c.mcp("github").unwrap().environment;
        assert_eq!(read.get("GITHUB_PERSONAL_ACCESS_TOKEN").map(String::as_str), Some("ghp-env-secret-1"));
        assert_eq!(read.get("DB_PASSWORD").map(String::as_str), Some("pw-env-secret-3"));
        assert_eq!((read.get("openai_api_key").map(String::as_str), read.get("OPENAI_API_KEY")), (Some("sk-from-the-document"), None));
        // Only for the same entry name, and only from a secretless document.
        doc["mcps"][0]["name"] = "renamed".into();
        assert!(c.from_json(doc.as_object().unwrap()));
        assert_eq!(c.mcp("renamed").unwrap().environment.len(), 2);
        c.add_mcp(mcp);
        let mut native: Value = serde_json::from_str(&c.to_json_string()).unwrap();
        native["mcps"].as_array_mut().unwrap().retain(|m| m["name"] == "github");
        native["mcps"][0]["environment"] = json!({});
        assert!(c.from_json(native.as_object().unwrap()));
        assert!(c.mcp("github").unwrap().environment.is_empty());
    }

    use crate::message::{Message, Role};
    use serde_json::json;

    fn valid_model(id: &str) -> Model {
        Model { id: id.into(), name: "n".into(), url: "http://h".into(), token: "t".into(), ..Model::new() }
    }

    #[test]
    fn remembered_picks_follow_every_change_of_models_and_provider() {
        let c = Center::new();
        c.add_model(valid_model("a"));
        let mut p = Provider::new();
        p.add_model("a", 1);
        p.add_model("b", 2);
        assert_eq!(c.pick_first(&p, 0), "a");
        assert_eq!(c.pick_first(&p, 0), "a"); // remembered
        c.add_model(valid_model("b")); // a model change
        assert_eq!(c.pick_first(&p, 0), "b");
        c.add_model(Model { token: String::new(), ..valid_model("b") }); // replaced, now invalid
        assert_eq!(c.pick_first(&p, 0), "a");
        c.add_model(valid_model("b"));
        assert_eq!(c.pick_first(&p, 0), "b");
        p.add_model("a", 3); // a provider change
        assert_eq!(c.pick_first(&p, 0), "a");
        p.remove_model("a");
        assert_eq!(c.pick_first(&p, 0), "b");
        c.remove_model("b");
        assert_eq!(c.pick_first(&p, 0), "");
        let other = Center::new(); // another pool never answers from this one's cache
        other.add_model(valid_model("b"));
        assert_eq!(other.pick_first(&p, 0), "b");
        assert_eq!(c.pick_first(&p, 0), "");
        let mut q = p.clone();
        q.add_model("x", 9);
        assert_eq!(other.pick_first(&q, 0), "b");
    }

    #[test]
    fn lists_are_sorted_and_empty_keys_ignored() {
        let c = Center::new();
        c.add_model(valid_model("b"));
        c.add_model(valid_model("a"));
        c.add_model(valid_model(""));
        assert_eq!(c.model_ids(), vec!["a", "b"]);
        c.add_skill(Skill::new("z"));
        c.add_skill(Skill::new("y"));
        assert_eq!(c.skills().iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), vec!["y", "z"]);
        assert!(c.model("nope").is_none());
    }

    #[test]
    fn removing_the_default_provider_clears_it() {
        let c = Center::new();
        let p = Provider::new();
        c.add_provider(p.clone());
        c.set_default_provider(&p.id);
        c.remove_provider("other");
        assert_eq!(c.default_provider(), p.id);
        c.remove_provider(&p.id);
        assert_eq!(c.default_provider(), "");
    }

    #[test]
    fn dialogs_clone_branch_and_regenerate_branch() {
        let c = Center::new();
        let d = c.create_dialog();
        d.append_message(Message::new(Role::User, "q"));
        d.append_message(Message::new(Role::Assistant, "a"));
        d.append_message(Message::new(Role::User, "more"));
        let copy = c.clone_dialog(&d.id()).unwrap();
        assert_eq!(copy.branch_from_id(), d.id());
        assert_eq!(copy.message_count(), 3);
        let regen = c.branch_for_regenerate(&d.id()).unwrap();
        assert_eq!(regen.message_count(), 1);
        assert_eq!(d.message_count(), 3);
        assert_eq!(c.dialog_ids().len(), 3);
        assert!(c.clone_dialog("unknown").is_none());
        c.remove_dialog(&copy.id());
        assert!(c.dialog(&copy.id()).is_none());
    }

    #[test]
    fn restore_dialog_replaces_same_id() {
        let c = Center::new();
        let d = c.create_dialog();
        let saved = c.save_dialog(&d);
        let restored = c.restore_dialog(saved.as_object().unwrap());
        assert_eq!(restored.id(), d.id());
        assert!(!restored.same_as(&d));
        assert!(c.dialog(&d.id()).unwrap().same_as(&restored));
        assert_eq!(c.dialog_ids().len(), 1);
    }

    #[test]
    fn json_round_trip_and_empty_object() {
        let c = Center::new();
        c.add_model(valid_model("m"));
        let mut p = Provider::new();
        p.add_model("m", 1);
        c.add_provider(p.clone());
        c.set_default_provider(&p.id);
        c.add_mcp(Mcp::new("fs"));
        c.add_prompt(Prompt::new("p", "c"));
        c.create_dialog().append_message(Message::new(Role::User, "hi"));
        let j = c.to_json();
        assert!(!c.from_json(&Map::new()));
        assert_eq!(c.to_json(), j);
        let other = Center::new();
        assert!(other.from_json(j.as_object().unwrap()));
        assert_eq!(other.to_json(), j);
        assert_eq!(j["models"][0]["token"], json!("t"));
    }

    fn rich_center() -> Center {
        let c = Center::new();
        c.add_model(valid_model("m"));
        let mut p = Provider::new();
        p.add_model("m", 1);
        c.add_provider(p.clone());
        c.set_default_provider(&p.id);
        c.add_skill(Skill::new("k"));
        c.add_mcp(Mcp::new("fs"));
        c.add_prompt(Prompt::new("p", "c"));
        let d = c.create_dialog();
        d.append_message(Message::new(Role::System, "sys \"quoted\" \\ \u{1} é 😀"));
        let mut m = Message::new(Role::Assistant, "a");
        m.name = "n".into();
        m.tool_call_id = "t".into();
        m.tool_calls = "[{\"id\":\"x\"}]".into();
        m.reasoning = "r".into();
        m.add_image_url("http://i", "high");
        d.append_message(m);
        d.append_message(Message::new(Role::Tool, ""));
        c.create_dialog();
        c
    }

    #[test]
    fn to_json_string_is_to_json_text() {
        let c = rich_center();
        assert_eq!(c.to_json_string(), c.to_json().to_string());
        assert_eq!(Center::new().to_json_string(), Center::new().to_json().to_string());
    }

    /// `from_json_text` and `from_json` of the parsed text leave the same state.
    fn same_by_both_paths(text: &str) {
        let by_map = Center::new();
        let by_text = Center::new();
        let expected = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(o)) => Some(by_map.from_json(&o)),
            _ => None,
        };
        let got = by_text.from_json_text(text).ok();
        assert_eq!(got, expected, "{text}");
        let strip = |v: Value| {
            // Dialog ids are fresh uuids when the text has none: compare without them.
            let mut v = v;
            for d in v["dialogs"].as_array_mut().into_iter().flatten() {
                if let Some(id) = d.get_mut("id") {
                    if id.as_str().map_or(false, |s| s.len() == 36) {
                        *id = json!("<uuid>");
                    }
                }
            }
            v
        };
        assert_eq!(strip(by_text.to_json()), strip(by_map.to_json()), "{text}");
    }

    #[test]
    fn from_json_text_agrees_with_from_json() {
        same_by_both_paths(&rich_center().to_json_string());
        for text in [
            "{}",
            "[]",
            "1",
            "{\"dialogs\":1}",
            "{\"dialogs\":[1,\"x\",null,[],{}]}",
            "{\"x\":1}",
            "{\"dialogs\":[{\"id\":\"a\",\"messages\":[{\"role\":\"assistant\",\"content\":5,\"images\":[{\"url\":1},2,{\"url\":\"u\",\"detail\":\"d\",\"x\":{}}]},{\"role\":7},3,{\"role\":\"USER\",\"content\":\"c\"}]}]}",
            "{\"dialogs\":[{\"id\":\"a\",\"messages\":[{\"content\":\"1\"}],\"messages\":[{\"content\":\"2\",\"content\":\"3\"}]}]}",
            "{\"dialogs\":[{\"id\":\"a\",\"messages\":{\"content\":\"x\"}}],\"dialogs\":[{\"id\":\"b\",\"capabilityRequirement\":3.0}]}",
            "{\"dialogs\":[{\"id\":\"\",\"capabilityRequirement\":-1,\"skills\":[{\"name\":\"s\"}],\"prompts\":5}]}",
            "{\"dialogs\":[{\"id\":\"a\",\"messages\":[{\"role\":\"user\",\"content\":\"\\u00e9\\ud83d\\ude00\",\"toolCalls\":[1,2]}]}]}",
            "{\"models\":[{\"id\":\"m\"}],\"defaultProviderId\":5,\"dialogs\":[]}",
            "{\"dialogs\":[{\"id\":\"a\"}]} x",
            "{\"dialogs\":[{\"id\":\"a\",]}",
            // What serde_json rejects inside values the reader skips (issue 14).
            "{\"dialogs\":{\"\":\"\\ud800\"}}",
            "{\"x\":1e400}",
            "{\"dialogs\":[{\"id\":\"a\",\"unknown\":[\"\\udc00\"]}]}",
        ] {
            same_by_both_paths(text);
        }
        for depth in [127, 128, 129, 1000] {
            same_by_both_paths(&format!("{{\"x\":{}{}}}", "[".repeat(depth), "]".repeat(depth)));
        }
    }

    /// Records the Center's events, batch by batch.
    #[derive(Default)]
    struct Watcher(std::sync::Mutex<Vec<Vec<CenterEvent>>>);
    impl CenterSink for Watcher {
        fn emit(&self, events: &[CenterEvent]) {
            self.0.lock().unwrap().push(events.to_vec());
        }
    }
    impl Watcher {
        fn take(&self) -> Vec<Vec<CenterEvent>> {
            std::mem::take(&mut self.0.lock().unwrap())
        }
    }

    #[test]
    fn every_change_of_the_dialog_list_is_told_once_in_order() {
        use CenterEvent::*;
        let c = Center::new();
        let w = Arc::new(Watcher::default());
        c.set_sink(Some(w.clone()));
        let a = c.create_dialog();
        let b = c.clone_dialog(&a.id()).unwrap();
        let r = c.branch_for_regenerate(&a.id()).unwrap();
        assert_eq!(w.take(), vec![vec![DialogAdded(a.id())], vec![DialogAdded(b.id())], vec![DialogAdded(r.id())]]);

        // Restoring over an existing id replaces it: removed and added in one batch.
        let saved = a.to_json();
        let restored = c.restore_dialog(saved.as_object().unwrap());
        assert_eq!(restored.id(), a.id());
        assert_eq!(w.take(), vec![vec![DialogRemoved(a.id()), DialogAdded(a.id())]]);

        c.remove_dialog(&b.id());
        c.remove_dialog(&b.id()); // unknown now: nothing to tell
        c.remove_dialog("no such dialog");
        assert_eq!(w.take(), vec![vec![DialogRemoved(b.id())]]);

        assert!(c.from_json(json!({"dialogs": [{"id": "x"}]}).as_object().unwrap()));
        assert!(!c.from_json(&Map::new())); // an empty object changes nothing
        assert_eq!(w.take(), vec![vec![DialogsReset]]);

        // Other registries are not the dialog list.
        c.add_model(valid_model("m"));
        c.set_sink(None);
        c.create_dialog();
        assert_eq!(w.take(), Vec::<Vec<CenterEvent>>::new());
    }

    /// A sink that changes the registry from inside its callback sees that change after the
    /// one it is being told of, and nothing deadlocks.
    #[test]
    fn a_sink_that_calls_back_in_sees_its_own_change_next() {
        struct Echo {
            center: Center,
            seen: std::sync::Mutex<Vec<CenterEvent>>,
        }
        impl CenterSink for Echo {
            fn emit(&self, events: &[CenterEvent]) {
                let mut created = None;
                for e in events {
                    self.seen.lock().unwrap().push(e.clone());
                    if let CenterEvent::DialogAdded(id) = e {
                        if self.center.dialog_ids().len() < 2 {
                            assert!(self.center.dialog(id).is_some(), "registered before it is told");
                            created = Some(self.center.create_dialog().id());
                        }
                    }
                }
                if let Some(id) = created {
                    assert!(!self.seen.lock().unwrap().contains(&CenterEvent::DialogAdded(id)), "told after this batch");
                }
            }
        }
        let c = Center::new();
        let echo = Arc::new(Echo { center: c.clone(), seen: Default::default() });
        c.set_sink(Some(echo.clone()));
        let first = c.create_dialog().id();
        let seen = echo.seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0], CenterEvent::DialogAdded(first));
        c.set_sink(None); // break the cycle center → sink → center
    }
}
