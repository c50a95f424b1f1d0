//! The library's runtime: one tokio worker thread named `visindigo-agent`, started on first use
//! and kept for the life of the process. Runs and MCP connections both live on it.
//!
//! One thread, because the work is I/O and parsing: with two, hyper's connection task and the
//! run's task woke each other across threads for every read, which cost a 300k-chunk stream a
//! third of its throughput (180 → 115 ms) and every paced delta ~8 µs (BENCHMARKS.md). Host
//! callbacks run on this thread, hence their "must not block for long" contracts.

use std::sync::OnceLock;

pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("visindigo-agent")
            .enable_all()
            .build()
            .expect("the tokio runtime could not start (no threads or timers available)")
    })
}
