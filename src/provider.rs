//! A prioritised list of model ids and the rule that picks one (SPEC §B.3, seeds/Provider.md).
//! Holds ids only, never credentials, so its JSON can be shared freely.

use crate::{id::new_id, json, model::Model};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Where a provider resolves its ids: the Center's model pool.
pub trait ModelPool {
    fn model(&self, id: &str) -> Option<&Model>;
}

impl ModelPool for BTreeMap<String, Model> {
    fn model(&self, id: &str) -> Option<&Model> {
        self.get(id)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Provider {
    pub id: String,
    pub name: String,
    /// Model id → priority, in id order (the order of `to_json`).
    priorities: BTreeMap<String, i32>,
    /// The picking order: priority descending, then id ascending. Kept sorted on every change
    /// so that picking is a plain scan, never a sort per call.
    order: Vec<(i32, String)>,
    /// How many more passes over the chain a run makes when every model failed with a
    /// retryable failure (SPEC §H.1.4); 0 = none.
    pub retries: i32,
    /// A server's wait hint longer than this ends the run instead of waiting.
    pub max_retry_delay_ms: i32,
    /// Recent `pick_first_cached` answers; emptied by every change of this provider.
    pick_cache: PickCache,
}

pub const DEFAULT_RETRIES: i32 = 2;
pub const DEFAULT_MAX_RETRY_DELAY_MS: i32 = 60_000;

/// (model pool revision, requirement) → picked id, for the last few requirements asked.
/// Not part of the value: clones start empty and it never affects equality.
#[derive(Default)]
struct PickCache(std::sync::Mutex<Vec<(u64, u32, String)>>);

impl PickCache {
    const ENTRIES: usize = 8;

    fn get(&self, revision: u64, required: u32) -> Option<String> {
        let entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        entries.iter().find(|(r, q, _)| *r == revision && *q == required).map(|(_, _, id)| id.clone())
    }

    fn put(&self, revision: u64, required: u32, id: &str) {
        let mut entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        entries.retain(|(r, q, _)| *r == revision && *q != required);
        if entries.len() == Self::ENTRIES {
            entries.remove(0);
        }
        entries.push((revision, required, id.to_owned()));
    }

    fn clear(&mut self) {
        self.0.get_mut().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

impl Clone for PickCache {
    fn clone(&self) -> Self {
        PickCache::default()
    }
}

impl PartialEq for PickCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for PickCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PickCache")
    }
}

impl Default for Provider {
    fn default() -> Self {
        Provider {
            id: new_id(),
            name: String::new(),
            priorities: BTreeMap::new(),
            order: Vec::new(),
            retries: DEFAULT_RETRIES,
            max_retry_delay_ms: DEFAULT_MAX_RETRY_DELAY_MS,
            pick_cache: PickCache::default(),
        }
    }
}

impl Provider {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_name(name: impl Into<String>) -> Self {
        Provider { name: name.into(), ..Self::default() }
    }

    /// Adds `model_id` or overwrites its priority; an empty id is ignored.
    pub fn add_model(&mut self, model_id: &str, priority: i32) {
        if model_id.is_empty() {
            return;
        }
        self.pick_cache.clear();
        self.remove_model(model_id);
        self.priorities.insert(model_id.to_owned(), priority);
        let entry = (priority, model_id.to_owned());
        let at = self.order.partition_point(|e| pick_order(e, &entry).is_lt());
        self.order.insert(at, entry);
    }

    pub fn remove_model(&mut self, model_id: &str) {
        self.pick_cache.clear();
        if let Some(priority) = self.priorities.remove(model_id) {
            let entry = (priority, model_id.to_owned());
            if let Ok(at) = self.order.binary_search_by(|e| pick_order(e, &entry)) {
                self.order.remove(at);
            }
        }
    }

    pub fn clear_models(&mut self) {
        self.pick_cache.clear();
        self.priorities.clear();
        self.order.clear();
    }

    /// Model ids in id order.
    pub fn model_ids(&self) -> Vec<String> {
        self.priorities.keys().cloned().collect()
    }

    /// The priority of `model_id`, 0 when it is not here.
    pub fn model_priority(&self, model_id: &str) -> i32 {
        self.priorities.get(model_id).copied().unwrap_or(0)
    }

    /// At least one model id; ids are not resolved (this runs on copies, without a Center).
    pub fn is_valid(&self) -> bool {
        !self.priorities.is_empty()
    }

    /// The first qualifying model in picking order, or "" — the caller should give up then,
    /// not fall back to some default model.
    pub fn pick_first(&self, required: u32, pool: &impl ModelPool) -> String {
        self.first_qualifying(&self.order, required, pool)
    }

    /// `pick_first`, remembered for `revision` — a stamp that changes whenever `pool` does
    /// and is never reused for another pool (a Center's models revision).
    pub fn pick_first_cached(&self, required: u32, pool: &impl ModelPool, revision: u64) -> String {
        if let Some(id) = self.pick_cache.get(revision, required) {
            return id;
        }
        let id = self.pick_first(required, pool);
        self.pick_cache.put(revision, required, &id);
        id
    }

    /// The first qualifying model after `after` in picking order; no wrap-around (that would
    /// loop forever when every model is down). An `after` not in this provider behaves like
    /// `pick_first` (SPEC §E.1).
    pub fn pick_next(&self, after: &str, required: u32, pool: &impl ModelPool) -> String {
        let Some(&priority) = self.priorities.get(after) else {
            return self.pick_first(required, pool);
        };
        let entry = (priority, after.to_owned());
        match self.order.binary_search_by(|e| pick_order(e, &entry)) {
            Ok(at) => self.first_qualifying(&self.order[at + 1..], required, pool),
            Err(_) => String::new(),
        }
    }

    fn first_qualifying(&self, candidates: &[(i32, String)], required: u32, pool: &impl ModelPool) -> String {
        candidates
            .iter()
            .find(|(_, id)| pool.model(id).is_some_and(|m| m.satisfies(required) && m.is_valid()))
            .map(|(_, id)| id.clone())
            .unwrap_or_default()
    }

    pub fn to_json(&self) -> Value {
        let models: Vec<Value> = self.priorities.iter().map(|(id, p)| json!({"id": id, "priority": p})).collect();
        let mut o = json!({"id": self.id, "name": self.name, "models": models});
        // Extension keys only when not default (SPEC §H): the document stays the native one.
        if self.retries != DEFAULT_RETRIES {
            o["retries"] = self.retries.into();
        }
        if self.max_retry_delay_ms != DEFAULT_MAX_RETRY_DELAY_MS {
            o["maxRetryDelayMs"] = self.max_retry_delay_ms.into();
        }
        o
    }

    /// Applies every field; the id is kept when the JSON has none, so hand-written fragments
    /// can be read in. Returns whether a non-empty id was read.
    pub fn from_json(&mut self, o: &Map<String, Value>) -> bool {
        let id = json::id(o);
        if let Some(id) = &id {
            self.id = id.clone();
        }
        self.name = json::string(o, "name");
        let int_or = |key: &str, default: i32| {
            o.get(key).and_then(json::integral).map_or(default, |v| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
        };
        self.retries = int_or("retries", DEFAULT_RETRIES);
        self.max_retry_delay_ms = int_or("maxRetryDelayMs", DEFAULT_MAX_RETRY_DELAY_MS);
        self.clear_models();
        if let Some(Value::Array(models)) = o.get("models") {
            for m in models.iter().filter_map(Value::as_object) {
                let priority = json::int(m, "priority").clamp(i32::MIN as i64, i32::MAX as i64) as i32;
                self.add_model(&json::string(m, "id"), priority);
            }
        }
        id.is_some()
    }
}

fn pick_order(a: &(i32, String), b: &(i32, String)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::capability::*;

    fn pool(models: &[(&str, u32, bool)]) -> BTreeMap<String, Model> {
        models
            .iter()
            .map(|&(id, caps, valid)| {
                let m = Model {
                    id: id.into(),
                    name: "n".into(),
                    url: "http://h".into(),
                    token: if valid { "t".into() } else { String::new() },
                    capabilities: caps,
                    ..Model::new()
                };
                (id.to_owned(), m)
            })
            .collect()
    }

    #[test]
    fn priority_descending_then_id_ascending_independent_of_insertion() {
        let pool = pool(&[("a", TEXT, true), ("b", TEXT, true), ("c", TEXT, true)]);
        for order in [["a", "b", "c"], ["c", "b", "a"], ["b", "c", "a"]] {
            let mut p = Provider::new();
            for id in order {
                p.add_model(id, if id == "c" { 5 } else { 1 });
            }
            assert_eq!(p.pick_first(NONE, &pool), "c");
            assert_eq!(p.pick_next("c", NONE, &pool), "a");
            assert_eq!(p.pick_next("a", NONE, &pool), "b");
            assert_eq!(p.pick_next("b", NONE, &pool), "");
        }
    }

    #[test]
    fn re_adding_overwrites_priority_and_empty_is_ignored() {
        let mut p = Provider::new();
        p.add_model("a", 1);
        p.add_model("a", 7);
        p.add_model("", 9);
        assert_eq!(p.model_ids(), vec!["a"]);
        assert_eq!(p.model_priority("a"), 7);
        assert_eq!(p.model_priority("zz"), 0);
    }

    #[test]
    fn qualification_needs_pool_validity_and_capabilities() {
        let pool = pool(&[("bad", TEXT | IMAGE, false), ("img", TEXT | IMAGE, true), ("txt", TEXT, true)]);
        let mut p = Provider::new();
        p.add_model("missing", 10);
        p.add_model("bad", 9);
        p.add_model("txt", 8);
        p.add_model("img", 1);
        assert_eq!(p.pick_first(NONE, &pool), "txt");
        assert_eq!(p.pick_first(IMAGE, &pool), "img");
        assert_eq!(p.pick_first(AUDIO, &pool), "");
        assert_eq!(p.pick_next("unknown", IMAGE, &pool), "img");
        assert_eq!(p.pick_next("", NONE, &pool), "txt");
        assert_eq!(p.pick_next("missing", NONE, &pool), "txt");
    }

    #[test]
    fn remove_and_clear() {
        let mut p = Provider::new();
        p.add_model("a", 1);
        p.add_model("b", 1);
        p.remove_model("a");
        p.remove_model("nothing");
        assert_eq!(p.model_ids(), vec!["b"]);
        assert!(p.is_valid());
        p.clear_models();
        assert!(!p.is_valid());
    }

    #[test]
    fn json_shape_and_from_json() {
        let mut p = Provider::with_name("acme");
        p.add_model("z", 2);
        p.add_model("a", 3);
        let j = p.to_json();
        assert_eq!(j["models"].to_string(), r#"[{"id":"a","priority":3},{"id":"z","priority":2}]"#);
        let mut q = Provider::new();
        let fresh = q.id.clone();
        assert!(!q.from_json(json!({"name": "x", "models": [{"id": "m"}]}).as_object().unwrap()));
        assert_eq!(q.id, fresh);
        assert_eq!(q.model_priority("m"), 0);
        assert!(q.from_json(j.as_object().unwrap()));
        assert_eq!(q, p);
    }

    #[test]
    fn retry_keys_are_written_only_when_not_default() {
        let mut p = Provider::with_name("acme");
        assert!(p.to_json().get("retries").is_none() && p.to_json().get("maxRetryDelayMs").is_none());
        p.retries = 0;
        p.max_retry_delay_ms = 5000;
        let j = p.to_json();
        assert_eq!((j["retries"].as_i64(), j["maxRetryDelayMs"].as_i64()), (Some(0), Some(5000)));
        let mut q = Provider::new();
        q.from_json(j.as_object().unwrap());
        assert_eq!((q.retries, q.max_retry_delay_ms), (0, 5000));
        q.from_json(json!({"name": "x"}).as_object().unwrap());
        assert_eq!((q.retries, q.max_retry_delay_ms), (DEFAULT_RETRIES, DEFAULT_MAX_RETRY_DELAY_MS));
    }
}
