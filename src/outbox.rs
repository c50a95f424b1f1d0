//! Ordered delivery of events produced under a lock (the Dialog's and the Center's): a change
//! queues its batch while it still holds its own lock, so batches are queued in the order the
//! changes happened; whoever queues then delivers after releasing that lock, unless another
//! thread — or a receiver that called back in — is delivering already: that one delivers
//! the newcomer's batch after its own. Receivers therefore see changes in order, one batch at
//! a time, never with a library lock held.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

pub(crate) struct Outbox<E> {
    queue: Mutex<Queue<E>>,
}

struct Queue<E> {
    batches: VecDeque<Vec<E>>,
    /// A thread is delivering batches now; others leave theirs to it, keeping the order.
    delivering: bool,
}

impl<E> Default for Outbox<E> {
    fn default() -> Self {
        Outbox { queue: Mutex::new(Queue { batches: VecDeque::new(), delivering: false }) }
    }
}

impl<E> Outbox<E> {
    fn lock(&self) -> MutexGuard<'_, Queue<E>> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues a batch; call it under the lock of the change the batch reports. Empty batches
    /// are dropped.
    pub fn push(&self, batch: Vec<E>) {
        if !batch.is_empty() {
            self.lock().batches.push_back(batch);
        }
    }

    /// Hands the queued batches to `receive` in order, unless a delivery is already under way.
    pub fn deliver(&self, mut receive: impl FnMut(&[E])) {
        /// Clears `delivering` when a receiver unwinds, so the next change delivers again.
        struct OnUnwind<'a, E>(&'a Outbox<E>);
        impl<E> Drop for OnUnwind<'_, E> {
            fn drop(&mut self) {
                self.0.lock().delivering = false;
            }
        }
        {
            let mut queue = self.lock();
            if queue.delivering || queue.batches.is_empty() {
                return;
            }
            queue.delivering = true;
        }
        let on_unwind = OnUnwind(self);
        loop {
            let batch = {
                let mut queue = self.lock();
                match queue.batches.pop_front() {
                    Some(batch) => batch,
                    None => {
                        // Under the same lock that found the queue empty: a batch queued
                        // after this sees `delivering == false` and delivers itself.
                        queue.delivering = false;
                        break;
                    }
                }
            };
            receive(&batch);
        }
        std::mem::forget(on_unwind);
    }
}
