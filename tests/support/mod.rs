//! Shared helpers of the run tests: a recording event sink, models pointing at a scripted
//! server, and a way to wait for a run to finish without sleeping blindly.

#![allow(dead_code)] // each test binary uses its own subset

pub mod browser;
pub mod log_capture;
pub mod mcp_servers;
pub mod pki;
pub mod tinyproxy;

use serde_json::Value;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vi_scripted_server::{RecordedRequest, ScriptedServer};
use visindigo_agent::{Center, Dialog, Event, EventSink, HostToken, Model, Provider};

#[derive(Default)]
pub struct Recorder {
    pub events: Mutex<Vec<Event>>,
}

impl EventSink for Recorder {
    fn emit(&self, events: &[Event]) {
        assert!(!events.is_empty(), "a batch is never empty");
        self.events.lock().unwrap().extend_from_slice(events);
    }
}

impl Recorder {
    pub fn take(&self) -> Vec<Event> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }
    pub fn snapshot(&self) -> Vec<Event> {
        self.events.lock().unwrap().clone()
    }
    /// Waits (bounded) until a run's last event, `RunFinished`, has arrived.
    pub fn wait_finished(&self) {
        wait_for("RunFinished", || self.events.lock().unwrap().contains(&Event::RunFinished));
    }
}

/// How a run ended: the event before its `RunFinished`, which must be the last event and the
/// only one (SPEC §H.3.1).
pub fn ended(events: &[Event]) -> &Event {
    assert_eq!(events.last(), Some(&Event::RunFinished), "RunFinished is last: {events:?}");
    assert_eq!(events.iter().filter(|e| **e == Event::RunFinished).count(), 1, "one RunFinished: {events:?}");
    &events[events.len() - 2]
}

pub fn model(id: &str, base_url: &str) -> Model {
    Model {
        id: id.into(),
        name: format!("name-of-{id}"),
        url: base_url.into(),
        token: "sk-test-token".into(),
        idle_timeout_ms: 5_000,
        timeout_ms: 20_000,
        ..Model::new()
    }
}

/// A private Center with `models` (in priority order, highest first) under one default
/// provider, and a dialog with a recorder attached.
pub fn setup(models: Vec<Model>) -> (Center, Dialog, Arc<Recorder>) {
    setup_with(models, |_| {})
}

/// `setup`, with the provider changed by `configure` before it is registered.
pub fn setup_with(models: Vec<Model>, configure: impl FnOnce(&mut Provider)) -> (Center, Dialog, Arc<Recorder>) {
    let center = Center::new();
    let mut provider = Provider::with_name("test");
    let count = models.len() as i32;
    for (i, m) in models.into_iter().enumerate() {
        provider.add_model(&m.id, count - i as i32);
        center.add_model(m);
    }
    configure(&mut provider);
    center.set_default_provider(&provider.id);
    center.add_provider(provider);
    let dialog = center.create_dialog();
    let recorder = Arc::new(Recorder::default());
    dialog.set_sink(Some(recorder.clone()), HostToken::NONE);
    (center, dialog, recorder)
}

/// Waits (bounded) until the dialog's run is over.
pub fn wait_idle(dialog: &Dialog) {
    let start = Instant::now();
    while dialog.is_streaming() {
        assert!(start.elapsed() < Duration::from_secs(20), "the run did not finish in 20 s");
        std::thread::sleep(Duration::from_millis(2));
    }
}

pub fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(20), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A scripted chat server for `steps`. With `VI_REQUEST_BODIES_DIR` set (ctest sets it), every
/// request body it receives is also written there for CI's validation with the `openai` SDK.
pub fn chat_server(steps: Vec<vi_scripted_server::Step>) -> ScriptedServer {
    let server = ScriptedServer::start(vi_scripted_server::script(steps)).expect("the scripted server starts");
    server.log_bodies_to(std::env::var_os("VI_REQUEST_BODIES_DIR").map(Into::into));
    server
}

/// The JSON request bodies the server received.
pub fn bodies(server: &ScriptedServer) -> Vec<Value> {
    let requests: Vec<RecordedRequest> = server.requests();
    requests.iter().filter_map(|r| r.body_json.clone()).collect()
}

/// The `ModelFallback` events as (from, to, reason).
pub fn fallbacks(events: &[Event]) -> Vec<(&str, &str, &str)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ModelFallback { from, to, reason } => Some((from.as_str(), to.as_str(), reason.as_str())),
            _ => None,
        })
        .collect()
}

pub fn deltas(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::StreamDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// The test Python (`$VI_PYTHON`, else the project's `.venv`: `bin/python`, or
/// `Scripts\python.exe` on Windows), checked to `import module`.
pub fn python(module: &str) -> String {
    let venv = if cfg!(windows) { r"Scripts\python.exe" } else { "bin/python" };
    let python = std::env::var("VI_PYTHON").unwrap_or_else(|_| format!("{}/.venv/{venv}", env!("CARGO_MANIFEST_DIR")));
    let works = Command::new(&python)
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        works,
        "these tests need Python with tests/requirements.txt, but `{python}` cannot `import {module}`. \
         Create the venv with `python3 -m venv .venv && .venv/{venv} -m pip install -r tests/requirements.txt` \
         in {}, or set VI_PYTHON to such an interpreter.",
        env!("CARGO_MANIFEST_DIR")
    );
    python
}

/// Whether `program` (tinyproxy, openssl: the network tests' real peers) can be started. On
/// Linux, where CI installs them, a missing one fails the test; elsewhere the test is skipped
/// and says so on stderr.
pub fn require(program: &str) -> bool {
    let found = Command::new(program)
        .arg("-v")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    assert!(found || !cfg!(target_os = "linux"), "`{program}` is not installed (apt-get install {program}; .ci/run does it)");
    if !found {
        eprintln!("skipped: this test needs `{program}`, which is not installed here");
    }
    found
}

/// This process's child processes as (pid, command line): from `/proc` on Linux, `ps` on other
/// Unix systems, PowerShell's `Win32_Process` on Windows.
pub fn children() -> Vec<(i32, String)> {
    let me = std::process::id() as i32;
    if cfg!(target_os = "linux") {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
            let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
            let ppid: i32 = after.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
            if ppid == me {
                let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
                found.push((pid, String::from_utf8_lossy(&cmdline).replace('\0', " ")));
            }
        }
        return found;
    }
    // Both list "pid ppid command line", one process a line, the lister itself among them.
    let lister = if cfg!(windows) {
        Command::new("powershell")
            .args(["-NoProfile", "-Command", "Get-CimInstance Win32_Process | ForEach-Object { \"$($_.ProcessId) $($_.ParentProcessId) $($_.CommandLine)\" }"])
            .stdout(Stdio::piped())
            .spawn()
    } else {
        Command::new("ps").args(["-A", "-o", "pid=,ppid=,args="]).stdout(Stdio::piped()).spawn()
    };
    let lister = lister.expect("the process list can be read");
    let lister_pid = lister.id() as i32;
    let listing = lister.wait_with_output().expect("the process list can be read");
    String::from_utf8_lossy(&listing.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.trim_start().splitn(3, char::is_whitespace);
            let pid = fields.next()?.parse().ok()?;
            let ppid: i32 = fields.next()?.trim().parse().ok()?;
            (ppid == me && pid != lister_pid).then(|| (pid, fields.next().unwrap_or_default().trim().to_owned()))
        })
        .collect()
}
