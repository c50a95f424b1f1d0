//! The stdio servers' processes: how they are started and ended, and the one list of those
//! still running. The platform's process control is in `children/unix.rs` and
//! `children/windows.rs`, behind the functions of this module; nothing else in the library
//! knows the platform (SPEC §I.1.1).
//!
//! Every child is tracked from its spawn until it is reaped, outside the async runtime, so it
//! can be ended from anywhere: `Stdio::shutdown` in stages, `terminate_all_now` after
//! `shutdown_all`, and when the host exits or dies:
//! * Linux: `PR_SET_PDEATHSIG` for a host killed outright, an `atexit` handler for one that
//!   exits. Other Unix systems (macOS, the BSDs) have the `atexit` handler only, so a host
//!   killed with SIGKILL leaves its stdio servers running until they read EOF on stdin.
//! * Windows: each child is in a Job Object of its own with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`;
//!   the host's handle to it is its only one, so the job (the server and whatever it started,
//!   such as the `node` behind `npx.cmd`) ends when the host exits or is killed.

use crate::mcp::Mcp;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as platform;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as platform;

/// A child's process id, as `std::process::Child::id` gives it.
pub type Pid = u32;

/// One step of ending a child, as the platform has them (`unix::Stage`, `windows::Stage`);
/// a shutdown goes through `STAGES` in order after the server had its grace period with
/// stdin closed, each step followed by the same grace: Unix SIGTERM then SIGKILL, Windows the
/// job terminated.
pub use platform::{STAGES, Stage};

/// A child on the list below, from its spawn until it is reaped; dropping it takes the child
/// off (on Windows that also ends whatever the child left running in its job).
pub struct Registration {
    serial: u64,
}

struct Entry {
    /// Not the pid: the system may give a reaped child's pid to a new one before this is gone.
    serial: u64,
    pid: Pid,
    tracked: platform::Tracked,
}

/// The children not reaped yet, each with what the platform needs to end it.
static CHILDREN: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn children() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    CHILDREN.lock().unwrap_or_else(|e| e.into_inner())
}

/// The command that starts `config`'s server: its program found as the platform finds
/// programs (`npx` is `npx.cmd` on Windows), its arguments, its environment added to the
/// inherited one, no console window, and the parent-death signal where there is one.
pub fn command(config: &Mcp) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(platform::program(&config.command, &config.environment));
    command.args(&config.arguments).envs(&config.environment).kill_on_drop(false);
    platform::prepare(&mut command);
    command
}

/// Puts a child just spawned on the list (on Windows: into its job).
pub fn track(child: &tokio::process::Child) -> Result<Registration, String> {
    static FIRST: Once = Once::new();
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    FIRST.call_once(platform::on_first_child);
    let pid = child.id().ok_or("the server exited at once")?;
    let tracked = platform::adopt(child)?;
    let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
    children().push(Entry { serial, pid, tracked });
    Ok(Registration { serial })
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut list = children();
        let gone = list.iter().position(|e| e.serial == self.serial).map(|i| list.swap_remove(i));
        // The platform's handle is closed outside the lock.
        drop(list);
        drop(gone);
    }
}

/// Asks `child` to end. Called by the task that also waits for it, so it cannot be reaped
/// meanwhile; once reaped (no id) it is left alone: its pid may be another process's now.
pub fn stop(registration: &Registration, child: &tokio::process::Child, stage: Stage) {
    let Some(pid) = child.id() else { return };
    if let Some(entry) = children().iter().find(|e| e.serial == registration.serial) {
        platform::stop(pid, &entry.tracked, stage);
    }
}

/// Synchronously ends every child still on the list (Unix: SIGTERM, up to 2 s for them to
/// exit, then SIGKILL, and reaps them; Windows: terminates their jobs). Needs no runtime; the
/// last resort after `shutdown_all` and at exit, so it goes by the pids on the list.
pub fn terminate_all_now() {
    let left: Vec<(Pid, platform::Tracked)> = std::mem::take(&mut *children()).into_iter().map(|e| (e.pid, e.tracked)).collect();
    if !left.is_empty() {
        platform::end_now(left);
    }
}

#[cfg(test)]
pub use platform::is_running;
