//! State shared between the server's connections and the test that owns it.
//!
//! The script, the position in it and the request log live under one lock so that taking a step
//! and recording the request that took it are one atomic action: concurrent requests get distinct
//! steps, and the log lists chat requests in the order they were given steps.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::record::RecordedRequest;
use crate::script::{ParsedScript, ParsedStep};

pub(crate) struct Shared {
    state: Mutex<State>,
    /// Signalled whenever a request is recorded, for [`Shared::wait_for_requests`].
    recorded: Condvar,
}

struct State {
    script: Arc<ParsedScript>,
    /// How many chat requests the current script has answered.
    next: usize,
    requests: Vec<RecordedRequest>,
    /// Where chat request bodies are copied to, if anywhere.
    body_log: Option<std::path::PathBuf>,
}

/// The step that answers a chat request; `None` when the script is exhausted.
pub(crate) struct Assigned {
    pub script: Arc<ParsedScript>,
    pub index: Option<usize>,
    /// Where the request is in the log (for `Shared::set_ended`).
    pub logged_at: usize,
}

impl Assigned {
    pub fn step(&self) -> Option<&ParsedStep> {
        self.index.map(|index| &self.script.responses[index])
    }
}

impl Shared {
    pub fn new(script: ParsedScript) -> Self {
        Shared {
            state: Mutex::new(State {
                script: Arc::new(script),
                next: 0,
                requests: Vec::new(),
                body_log: None,
            }),
            recorded: Condvar::new(),
        }
    }

    /// A panicking test thread must not take the server down with it: poisoning is ignored, the
    /// state is always consistent between statements.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes the next step for a chat request and records the request with it.
    pub fn assign_and_record(
        &self,
        make_record: impl FnOnce(Option<usize>) -> RecordedRequest,
    ) -> Assigned {
        let mut state = self.lock();
        let index = state.script.step_index_for(state.next);
        state.next += 1;
        let record = make_record(index);
        if let Some(dir) = &state.body_log {
            crate::body_log::write(dir, &record);
        }
        state.requests.push(record);
        self.recorded.notify_all();
        Assigned {
            script: Arc::clone(&state.script),
            index,
            logged_at: state.requests.len() - 1,
        }
    }

    /// Records how answering the request logged at `logged_at` ended (nothing when the log
    /// was cleared meanwhile).
    pub fn set_ended(&self, logged_at: usize, how: &str) {
        if let Some(record) = self.lock().requests.get_mut(logged_at) {
            record.ended = Some(how.to_owned());
        }
        self.recorded.notify_all();
    }

    pub fn log_bodies_to(&self, dir: Option<std::path::PathBuf>) {
        self.lock().body_log = dir;
    }

    /// Records a request that no step answers.
    pub fn record(&self, request: RecordedRequest) {
        self.lock().requests.push(request);
        self.recorded.notify_all();
    }

    /// Replaces the script and starts afresh: step index back to 0, request log cleared, so one
    /// server can serve several tests in turn.
    pub fn replace_script(&self, script: ParsedScript) {
        let mut state = self.lock();
        state.script = Arc::new(script);
        state.next = 0;
        state.requests.clear();
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// Blocks until at least `count` requests are recorded or `timeout` passes; returns what is
    /// recorded either way.
    pub fn wait_for_requests(&self, count: usize, timeout: Duration) -> Vec<RecordedRequest> {
        let deadline = Instant::now() + timeout;
        let mut state = self.lock();
        while state.requests.len() < count {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = self
                .recorded
                .wait_timeout(state, left)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
        state.requests.clone()
    }
}
