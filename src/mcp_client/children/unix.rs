//! Process control on Unix: signals, `waitpid`, an `atexit` handler, and on Linux the
//! parent-death signal.

use super::Pid;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Debug, Clone, Copy)]
pub enum Stage {
    Terminate,
    Kill,
}

pub const STAGES: &[Stage] = &[Stage::Terminate, Stage::Kill];

/// Nothing beyond the pid is needed to end a child here.
pub struct Tracked;

/// Programs are found by `execvp` through `PATH`, the child's own when the entry sets it.
pub fn program(command: &str, _environment: &BTreeMap<String, String>) -> std::ffi::OsString {
    command.into()
}

/// Makes the child end when the host does (Linux; nothing to do on other Unix systems).
///
/// The child is spawned from a runtime worker thread (these live as long as the process), so
/// `PR_SET_PDEATHSIG`, which fires when the spawning *thread* ends, means "the host died".
pub fn prepare(command: &mut tokio::process::Command) {
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

pub fn on_first_child() {
    // SAFETY: registers a plain `extern "C" fn()` without captured state.
    unsafe {
        libc::atexit(at_exit);
    }
}

pub fn adopt(_child: &tokio::process::Child) -> Result<Tracked, String> {
    Ok(Tracked)
}

extern "C" fn at_exit() {
    super::terminate_all_now();
}

pub fn stop(pid: Pid, _tracked: &Tracked, stage: Stage) {
    let number = match stage {
        Stage::Terminate => libc::SIGTERM,
        Stage::Kill => libc::SIGKILL,
    };
    // SAFETY: a plain system call on our own child, not reaped yet.
    unsafe { libc::kill(pid as libc::pid_t, number) };
}

/// SIGTERM, up to 2 s for them to exit, then SIGKILL, and up to 1 s more; reaps them.
pub fn end_now(children: Vec<(Pid, Tracked)>) {
    for (pid, tracked) in &children {
        stop(*pid, tracked, Stage::Terminate);
    }
    let left = reap_within(children, Duration::from_secs(2));
    for (pid, tracked) in &left {
        stop(*pid, tracked, Stage::Kill);
    }
    reap_within(left, Duration::from_secs(1));
}

/// Polls `waitpid` until every child is gone or `limit` has passed; returns those still alive.
fn reap_within(mut children: Vec<(Pid, Tracked)>, limit: Duration) -> Vec<(Pid, Tracked)> {
    let start = std::time::Instant::now();
    loop {
        children.retain(|(pid, _)| {
            let mut status = 0;
            // SAFETY: WNOHANG on a specific child; -1 (already reaped elsewhere) counts as gone.
            let r = unsafe { libc::waitpid(*pid as libc::pid_t, &mut status, libc::WNOHANG) };
            r == 0
        });
        if children.is_empty() || start.elapsed() >= limit {
            return children;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether `pid` is a live process (a zombie is not: it has ended and waits to be reaped).
#[cfg(test)]
pub fn is_running(pid: Pid) -> bool {
    #[cfg(target_os = "linux")]
    {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => stat.rfind(')').and_then(|i| stat[i + 1..].split_whitespace().next()) != Some("Z"),
            Err(_) => false,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        // SAFETY: signal 0 only checks that the process exists.
        unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
    }
}
