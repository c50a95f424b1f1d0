//! `VI_LOG_CAPTURE=1`: every integration test binary that has `mod support` prints the core's
//! log lines, every category at trace, to stderr (SPEC §I.5.1, issue 33) — what
//! `tests/secrets_in_logs.py --cargo` (the ctest `cargo_secrets_in_logs`) searches for the
//! secrets the tests use. Off (no sink, every category off) without the variable.
//!
//! The sink is installed before `main`, as the test harness has no hook of its own: from a
//! constructor the platform's loader runs (ELF `.init_array`, Mach-O `__mod_init_func`, MSVC
//! `.CRT$XCU`). No test of these binaries sets a sink or a level of its own, so it stays for the
//! whole run.

use std::io::Write as _;
use std::sync::Arc;
use visindigo_agent::{LogSink, Severity};

/// What starts each printed log line (a line of a multi-line message goes on unprefixed).
pub const PREFIX: &str = "[vi-log]";

struct Stderr;

impl LogSink for Stderr {
    fn log(&self, severity: Severity, category: &str, message: &str) {
        // Straight to the stream, not through `eprintln!`: the harness captures that only on
        // the test's own thread, and shows it only for a failed test; the library logs from
        // its threads and every line must be seen.
        let _ = writeln!(std::io::stderr().lock(), "{PREFIX} {severity:?} {category}: {message}");
    }
}

/// Whether `VI_LOG_CAPTURE` asks for the log (set, not empty, not "0").
pub fn wanted() -> bool {
    std::env::var_os("VI_LOG_CAPTURE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Installs the stderr sink at trace for every category when `VI_LOG_CAPTURE` asks.
pub fn install_if_wanted() {
    if wanted() {
        visindigo_agent::set_log_sink(Some(Arc::new(Stderr)));
        visindigo_agent::set_log_level("", Severity::Trace);
    }
}

extern "C" fn before_main() {
    install_if_wanted();
}

#[used]
#[cfg_attr(any(target_os = "linux", target_os = "android", target_os = "freebsd", target_os = "netbsd", target_os = "openbsd"), unsafe(link_section = ".init_array"))]
#[cfg_attr(target_vendor = "apple", unsafe(link_section = "__DATA,__mod_init_func"))]
#[cfg_attr(windows, unsafe(link_section = ".CRT$XCU"))]
static BEFORE_MAIN: extern "C" fn() = before_main;
