//! The library's runtimes: one tokio worker thread each, named `visindigo-agent`, started on
//! first use and kept for the life of the process. The first carries the MCP connections,
//! the center's background work and every run while it is the only one; runs that overlap go
//! to the thread with the fewest runs, up to one thread per core (at most `MAX_SHARDS`).
//!
//! One thread per runtime, because the work is I/O and parsing: with two workers in one
//! runtime, hyper's connection task and the run's task woke each other across threads for
//! every read, which cost a 300k-chunk stream a third of its throughput (180 → 115 ms) and
//! every paced delta ~8 µs (BENCHMARKS.md). A run and its connections therefore stay on one
//! thread: each thread has its own HTTP clients (`network::clients` keys them by `shard()`),
//! so a pooled connection is only ever reused by runs of the thread it was made on. Host
//! callbacks run on these threads, hence their "must not block for long" contracts.

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// More threads than this would only add connections and trust stores: 16 dialogs at once
/// on two cores already keep both busy (BENCHMARKS.md, issue 34).
const MAX_SHARDS: usize = 4;

struct Shard {
    runtime: OnceLock<tokio::runtime::Runtime>,
    /// Runs on this thread now.
    runs: AtomicUsize,
}

thread_local! {
    /// The shard whose thread this is; 0 on threads of no shard (the host's).
    static SHARD: Cell<usize> = const { Cell::new(0) };
}

fn shards() -> &'static [Shard] {
    static SHARDS: OnceLock<Vec<Shard>> = OnceLock::new();
    SHARDS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (0..cores.clamp(1, MAX_SHARDS)).map(|_| Shard { runtime: OnceLock::new(), runs: AtomicUsize::new(0) }).collect()
    })
}

fn shard_runtime(index: usize) -> &'static tokio::runtime::Runtime {
    shards()[index].runtime.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("visindigo-agent")
            .on_thread_start(move || SHARD.set(index))
            .enable_all()
            .build()
            .expect("the tokio runtime could not start (no threads or timers available)")
    })
}

/// The first runtime: MCP connections, background work, `block_on` from host threads.
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    shard_runtime(0)
}

/// Starts the first library thread in the background when a Center is made, so that the
/// first run does not wait for it to start.
pub(crate) fn warm_up() {
    static WARMING: std::sync::Once = std::sync::Once::new();
    WARMING.call_once(|| {
        // Failing to start a thread here only leaves the start to the first run.
        let _ = std::thread::Builder::new().name("visindigo-warm".into()).spawn(|| {
            runtime();
        });
    });
}

/// The shard of the calling thread (0 off the library's threads).
pub(crate) fn shard() -> usize {
    SHARD.get()
}

/// A run's place on a thread, counted until dropped.
pub(crate) struct RunSlot {
    index: usize,
}

impl RunSlot {
    /// The thread with the fewest runs now (the first on a tie, so a lone run is always on the
    /// first thread, beside the MCP connections it may use).
    pub(crate) fn take() -> RunSlot {
        let shards = shards();
        let index = least_loaded(shards.iter().map(|s| s.runs.load(Ordering::Relaxed)));
        shards[index].runs.fetch_add(1, Ordering::Relaxed);
        RunSlot { index }
    }

    pub(crate) fn runtime(&self) -> &'static tokio::runtime::Runtime {
        shard_runtime(self.index)
    }
}

/// The index of the smallest load, the first of equal ones.
fn least_loaded(loads: impl Iterator<Item = usize>) -> usize {
    loads.enumerate().min_by_key(|&(i, load)| (load, i)).map_or(0, |(i, _)| i)
}

impl Drop for RunSlot {
    fn drop(&mut self) {
        shards()[self.index].runs.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_goes_to_the_thread_with_the_fewest_runs_the_first_on_a_tie() {
        assert_eq!(least_loaded([0, 0, 0].into_iter()), 0);
        assert_eq!(least_loaded([1, 0].into_iter()), 1);
        assert_eq!(least_loaded([2, 1, 1].into_iter()), 1);
        assert_eq!(least_loaded(std::iter::empty()), 0);
    }

    #[test]
    fn each_thread_knows_its_shard_and_other_threads_count_as_the_first() {
        assert_eq!(shard(), 0);
        for index in 0..shards().len() {
            let on = shard_runtime(index).block_on(async { tokio::spawn(async { shard() }).await.expect("the task ran") });
            assert_eq!(on, index);
        }
    }
}
