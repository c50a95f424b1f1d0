//! Frees large values on a thread of their own, named `visindigo-reclaim`, started on first use
//! and kept for the life of the process.
//!
//! Freeing a dialog's history touches every message: after a Center load replaced 40,000 of
//! them, dropping the old ones held the host's thread — usually the GUI thread — for ~3 ms
//! (BENCHMARKS.md, "Center load"). Nothing observable runs when a value is dropped here: it is
//! plain data whose last owner has let it go.

use std::sync::OnceLock;
use std::sync::mpsc::{Sender, channel};

type Garbage = Box<dyn Send>;

/// Drops `value` on the reclaiming thread, or here when no thread can be had.
pub(crate) fn later<T: Send + 'static>(value: T) {
    static QUEUE: OnceLock<Option<Sender<Garbage>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (sender, receiver) = channel::<Garbage>();
        std::thread::Builder::new()
            .name("visindigo-reclaim".into())
            .spawn(move || receiver.into_iter().for_each(drop))
            .ok()
            .map(|_| sender)
    });
    match queue {
        // The receiver lives as long as the process, so a send only fails if its thread died.
        Some(sender) => drop(sender.send(Box::new(value))),
        None => drop(value),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// Waits up to 10 s for `done`, the reclaiming thread's work being seen from another.
    pub(crate) fn eventually(done: impl Fn() -> bool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done() {
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        true
    }

    #[test]
    fn a_value_handed_over_is_dropped_on_the_reclaiming_thread() {
        /// Holds `held` until dropped, then says on which thread.
        struct Probe {
            _owner: Arc<()>,
            thread: std::sync::mpsc::Sender<Option<String>>,
        }
        impl Drop for Probe {
            fn drop(&mut self) {
                let _ = self.thread.send(std::thread::current().name().map(str::to_owned));
            }
        }
        let held = Arc::new(());
        let (tx, rx) = channel();
        for _ in 0..100 {
            later(Probe { _owner: held.clone(), thread: tx.clone() });
        }
        assert!(eventually(|| Arc::strong_count(&held) == 1), "every value handed over is dropped");
        let names: Vec<_> = rx.try_iter().collect();
        assert_eq!(names.len(), 100);
        assert!(names.iter().all(|n| n.as_deref() == Some("visindigo-reclaim")), "{names:?}");
    }
}
