//! The stdio servers' processes: the one place that knows the platform's process control.
//!
//! Their ids are kept outside the async runtime so that they can be ended from anywhere:
//! `shutdown_all` after its graceful attempt, and an `atexit` handler (registered when the first
//! child is spawned) that terminates what is left when the host process exits. On Linux a child
//! also gets `PR_SET_PDEATHSIG`, for a host that is killed outright.
//!
//! Platforms: Linux has all of it. Other Unix systems (macOS, the BSDs) have signals and the
//! `atexit` handler but no parent-death signal, so a host killed with SIGKILL leaves its stdio
//! servers running until they read EOF on stdin. Elsewhere (Windows) nothing here is done yet:
//! `stop` only closes stdin, and a port needs `TerminateProcess` and a job object with
//! `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE` (README, "Platforms").

use std::sync::{Mutex, Once};
use std::time::Duration;

/// A child's process id, as `std::process::Child::id` gives it.
pub type Pid = u32;

/// How to ask a child to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Terminate,
    Kill,
}

static CHILDREN: Mutex<Vec<Pid>> = Mutex::new(Vec::new());

fn children() -> std::sync::MutexGuard<'static, Vec<Pid>> {
    CHILDREN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes the child spawned by `command` end when the host does (Linux; a no-op elsewhere).
///
/// The child is spawned from a runtime worker thread (these live as long as the process), so
/// `PR_SET_PDEATHSIG`, which fires when the spawning *thread* ends, means "the host died".
pub fn end_with_host(command: &mut tokio::process::Command) {
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            command.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong, 0, 0, 0);
                if libc::getppid() != parent {
                    // The host died before the death signal was armed.
                    return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Remembers a child just spawned.
pub fn track(pid: Pid) {
    static AT_EXIT: Once = Once::new();
    AT_EXIT.call_once(|| {
        #[cfg(unix)]
        // SAFETY: registers a plain `extern "C" fn()` without captured state.
        unsafe {
            libc::atexit(at_exit);
        }
    });
    children().push(pid);
}

/// Forgets a child that has been reaped.
pub fn forget(pid: Pid) {
    children().retain(|p| *p != pid);
}

/// Sends `signal` to a child that has not been reaped yet (so the pid is still ours).
pub fn signal(pid: Pid, signal: Signal) {
    #[cfg(unix)]
    {
        let number = match signal {
            Signal::Terminate => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
        };
        // SAFETY: a plain system call on our own child.
        unsafe { libc::kill(pid as libc::pid_t, number) };
    }
    #[cfg(not(unix))]
    let _ = (pid, signal);
}

#[cfg(unix)]
extern "C" fn at_exit() {
    terminate_all_now();
}

/// Synchronously ends every remaining child: SIGTERM, up to 2 s for them to exit, then
/// SIGKILL, and reaps them. Needs no runtime.
pub fn terminate_all_now() {
    let pids: Vec<Pid> = std::mem::take(&mut *children());
    if pids.is_empty() {
        return;
    }
    for &pid in &pids {
        signal(pid, Signal::Terminate);
    }
    let left = reap_within(pids, Duration::from_secs(2));
    for &pid in &left {
        signal(pid, Signal::Kill);
    }
    reap_within(left, Duration::from_secs(1));
}

/// Polls `waitpid` until every pid is gone or `limit` has passed; returns those still alive.
#[cfg(unix)]
fn reap_within(mut pids: Vec<Pid>, limit: Duration) -> Vec<Pid> {
    let start = std::time::Instant::now();
    loop {
        pids.retain(|&pid| {
            let mut status = 0;
            // SAFETY: WNOHANG on a specific child; -1 (already reaped elsewhere) counts as gone.
            let r = unsafe { libc::waitpid(pid as libc::pid_t, &mut status, libc::WNOHANG) };
            r == 0
        });
        if pids.is_empty() || start.elapsed() >= limit {
            return pids;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(not(unix))]
fn reap_within(pids: Vec<Pid>, _limit: Duration) -> Vec<Pid> {
    pids
}
