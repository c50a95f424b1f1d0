//! The stdio servers' process ids, kept outside the async runtime so that they can be ended
//! from anywhere: `shutdown_all` after its graceful attempt, and an `atexit` handler (registered
//! when the first child is spawned) that terminates what is left when the host process exits.
//! Children also get `PR_SET_PDEATHSIG` (see `stdio.rs`) for a host that is killed outright.

use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

static CHILDREN: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

fn children() -> std::sync::MutexGuard<'static, Vec<libc::pid_t>> {
    CHILDREN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Remembers a child just spawned.
pub fn track(pid: libc::pid_t) {
    static AT_EXIT: Once = Once::new();
    AT_EXIT.call_once(|| {
        // SAFETY: registers a plain `extern "C" fn()` without captured state.
        unsafe { libc::atexit(at_exit) };
    });
    children().push(pid);
}

/// Forgets a child that has been reaped.
pub fn forget(pid: libc::pid_t) {
    children().retain(|p| *p != pid);
}

extern "C" fn at_exit() {
    terminate_all_now();
}

/// Synchronously ends every remaining child: SIGTERM, up to 2 s for them to exit, then
/// SIGKILL, and reaps them. Needs no runtime.
pub fn terminate_all_now() {
    let pids: Vec<libc::pid_t> = std::mem::take(&mut *children());
    if pids.is_empty() {
        return;
    }
    for &pid in &pids {
        // SAFETY: plain system calls on our own children.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    let left = reap_within(pids, Duration::from_secs(2));
    for &pid in &left {
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    reap_within(left, Duration::from_secs(1));
}

/// Polls `waitpid` until every pid is gone or `limit` has passed; returns those still alive.
fn reap_within(mut pids: Vec<libc::pid_t>, limit: Duration) -> Vec<libc::pid_t> {
    let start = Instant::now();
    loop {
        pids.retain(|&pid| {
            let mut status = 0;
            // SAFETY: WNOHANG on a specific child; -1 (already reaped elsewhere) counts as gone.
            let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            r == 0
        });
        if pids.is_empty() || start.elapsed() >= limit {
            return pids;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
