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

/// The children not reaped yet, each with what the platform needs to end it.
static CHILDREN: Mutex<Vec<(Pid, platform::Tracked)>> = Mutex::new(Vec::new());

fn children() -> std::sync::MutexGuard<'static, Vec<(Pid, platform::Tracked)>> {
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

/// Remembers a child just spawned (on Windows: puts it into its job) and returns its id.
pub fn track(child: &tokio::process::Child) -> Result<Pid, String> {
    static FIRST: Once = Once::new();
    FIRST.call_once(platform::on_first_child);
    let pid = child.id().ok_or("the server exited at once")?;
    let tracked = platform::adopt(child, pid)?;
    children().push((pid, tracked));
    Ok(pid)
}

/// Forgets a child that has been reaped (on Windows this also ends what it left in its job).
pub fn forget(pid: Pid) {
    let gone: Vec<_> = {
        let mut list = children();
        let (gone, kept) = std::mem::take(&mut *list).into_iter().partition(|(p, _)| *p == pid);
        *list = kept;
        gone
    };
    drop(gone);
}

/// Asks a child that has not been reaped yet to end; one that is already forgotten is left
/// alone, so an id the system gave to another process since is never touched.
pub fn stop(pid: Pid, stage: Stage) {
    if let Some((_, tracked)) = children().iter().find(|(p, _)| *p == pid) {
        platform::stop(pid, tracked, stage);
    }
}

/// Synchronously ends every remaining child (Unix: SIGTERM, up to 2 s for them to exit, then
/// SIGKILL, and reaps them; Windows: terminates their jobs). Needs no runtime.
pub fn terminate_all_now() {
    let left: Vec<_> = std::mem::take(&mut *children());
    if !left.is_empty() {
        platform::end_now(left);
    }
}

#[cfg(test)]
pub use platform::is_running;
