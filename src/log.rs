//! What the library logs, and where it goes (SPEC §I.5.1). The core logs with `tracing` under
//! four categories (its targets); a host sets one sink and a level per category, and events
//! of a category below its level cost one cached callsite check (`tracing`'s interest cache,
//! rebuilt only when a level changes). Other crates' events (`hyper`, …) are never forwarded.
//!
//! Every line goes through the redaction layer (`redact.rs`) on its way out; the log sites
//! write ids, names, counts and urls without their query besides.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Once, RwLock};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

/// HTTP requests to models: the endpoint, the status, retries' waits.
pub const HTTP: &str = "visindigo.agent.http";
/// What a stream brought: rounds, their ends, usage.
pub const STREAM: &str = "visindigo.agent.stream";
/// MCP servers: connections, each request and its answer, failures, their children.
pub const MCP: &str = "visindigo.agent.mcp";
/// Runs: the model chosen, fallbacks, retries, parameters dropped, the end.
pub const RUN: &str = "visindigo.agent.run";

pub const CATEGORIES: [&str; 4] = [HTTP, STREAM, MCP, RUN];

/// How much a category logs: `Off`, or the least severe level it lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Off = 0,
    Error = 1,
    Warning = 2,
    Info = 3,
    Debug = 4,
    Trace = 5,
}

impl Severity {
    pub fn from_u32(value: u32) -> Option<Severity> {
        use Severity::*;
        [Off, Error, Warning, Info, Debug, Trace].into_iter().find(|s| *s as u32 == value)
    }

    fn of(level: &Level) -> Severity {
        match *level {
            Level::ERROR => Severity::Error,
            Level::WARN => Severity::Warning,
            Level::INFO => Severity::Info,
            Level::DEBUG => Severity::Debug,
            Level::TRACE => Severity::Trace,
        }
    }
}

/// Where the library's log lines go. Called on whichever thread logged (a library thread
/// during a run), never with a library lock held; it must not block for long.
pub trait LogSink: Send + Sync + 'static {
    fn log(&self, severity: Severity, category: &str, message: &str);
}

/// Each category's level, in `CATEGORIES` order; all off until a host asks.
static LEVELS: [AtomicU8; 4] = [const { AtomicU8::new(0) }; 4];
static SINK: RwLock<Option<Arc<dyn LogSink>>> = RwLock::new(None);

/// Sets (or with None removes) the sink. The first call installs the library's `tracing`
/// subscriber as the process's global one; if the process has another already (a Rust host
/// with its own), that one keeps receiving the events and this sink gets none.
pub fn set_sink(sink: Option<Arc<dyn LogSink>>) {
    install();
    *SINK.write().unwrap_or_else(|e| e.into_inner()) = sink;
}

/// Sets one category's level (`category` one of `CATEGORIES`), or every category's with "";
/// false for an unknown category.
pub fn set_level(category: &str, severity: Severity) -> bool {
    let chosen: Vec<usize> = (0..CATEGORIES.len()).filter(|&i| category.is_empty() || CATEGORIES[i] == category).collect();
    if chosen.is_empty() {
        return false;
    }
    install();
    for i in chosen {
        LEVELS[i].store(severity as u8, Ordering::Relaxed);
    }
    tracing::callsite::rebuild_interest_cache();
    true
}

fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = tracing::subscriber::set_global_default(Forwarder);
    });
}

fn enabled(metadata: &Metadata<'_>) -> bool {
    let Some(at) = CATEGORIES.iter().position(|c| *c == metadata.target()) else { return false };
    Severity::of(metadata.level()) as u8 <= LEVELS[at].load(Ordering::Relaxed)
}

/// The subscriber: events of the library's categories at their levels, formatted as
/// `message key=value …`, to the sink. Spans are not used.
struct Forwarder;

impl Subscriber for Forwarder {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if enabled(metadata) { Interest::always() } else { Interest::never() }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        enabled(metadata)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let sink = SINK.read().unwrap_or_else(|e| e.into_inner()).clone();
        let Some(sink) = sink else { return };
        let mut line = Line::default();
        event.record(&mut line);
        let metadata = event.metadata();
        sink.log(Severity::of(metadata.level()), metadata.target(), &crate::redact::redact(&line.finish()));
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

/// An event's fields as one line: the message, then `key=value` for the others.
#[derive(Default)]
struct Line {
    message: String,
    fields: String,
}

impl Line {
    fn finish(self) -> String {
        if self.fields.is_empty() { self.message } else { format!("{}{}", self.message, self.fields) }
    }
}

impl Visit for Line {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::Mutex;

    /// The lines a sink received, for the tests of every module that logs.
    #[derive(Default)]
    pub struct Captured(pub Mutex<Vec<(Severity, String, String)>>);

    impl LogSink for Captured {
        fn log(&self, severity: Severity, category: &str, message: &str) {
            self.0.lock().unwrap().push((severity, category.to_owned(), message.to_owned()));
        }
    }

    /// Captures what is logged while `f` runs, every category at `Trace`; the sink and the
    /// levels are global, so the tests that log take turns.
    pub fn capture(f: impl FnOnce()) -> Vec<(Severity, String, String)> {
        static TURN: Mutex<()> = Mutex::new(());
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let captured = Arc::new(Captured::default());
        set_sink(Some(captured.clone()));
        set_level("", Severity::Trace);
        f();
        set_level("", Severity::Off);
        set_sink(None);
        std::mem::take(&mut *captured.0.lock().unwrap())
    }

    #[test]
    fn each_category_logs_at_its_level_and_nothing_else_is_forwarded() {
        let lines = capture(|| {
            set_level(HTTP, Severity::Warning);
            tracing::info!(target: HTTP, "not at info");
            tracing::warn!(target: HTTP, status = 503, url = "https://h/v1", "the server is busy");
            tracing::debug!(target: RUN, model = "m1", "a debug line");
            tracing::error!(target: "hyper::proto", "another crate's");
            assert!(!set_level("visindigo.agent.nope", Severity::Debug));
        });
        // Other tests run meanwhile and log their own lines.
        let ours = ["not at info", "the server is busy", "a debug line", "another crate's"];
        let lines: Vec<_> = lines.into_iter().filter(|(_, _, m)| ours.iter().any(|o| m.starts_with(o))).collect();
        assert_eq!(
            lines,
            [
                (Severity::Warning, HTTP.to_owned(), r#"the server is busy status=503 url="https://h/v1""#.to_owned()),
                (Severity::Debug, RUN.to_owned(), r#"a debug line model="m1""#.to_owned()),
            ]
        );
        tracing::error!(target: RUN, "after the sink is gone: nowhere");
        assert_eq!(Severity::from_u32(2), Some(Severity::Warning));
        assert_eq!(Severity::from_u32(6), None);
    }
}
