//! Process control on Windows: a Job Object per child, no console window, and programs found
//! as `cmd.exe` finds them.
//!
//! The child is put into its job right after `CreateProcess` returns. A grandchild it started
//! in the microseconds before that would be outside the job; a server cannot get that far
//! while its loader is still starting, and the alternative (starting suspended and resuming
//! the main thread) needs the thread handle, which neither std nor tokio hands out.

use super::Pid;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JobObjectExtendedLimitInformation, SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::CREATE_NO_WINDOW;

/// There is no request to end that a process without a console must heed: the one stage
/// terminates the child's job.
#[derive(Debug, Clone, Copy)]
pub enum Stage {
    TerminateJob,
}

pub const STAGES: &[Stage] = &[Stage::TerminateJob];

/// The exit code a terminated server reports (as `TerminateProcess` callers customarily use).
const TERMINATED: u32 = 1;

/// A child's job. Ours is the only handle to it, so closing it ends what is still inside.
pub struct Tracked {
    job: HANDLE,
}

// SAFETY: a kernel handle may be used and closed from any thread.
unsafe impl Send for Tracked {}

impl Drop for Tracked {
    fn drop(&mut self) {
        // SAFETY: the handle was opened by `adopt` and is closed once, here.
        unsafe { CloseHandle(self.job) };
    }
}

/// The program to start for `command`. A bare name whose extension is not one of `PATHEXT`'s
/// (`npx`, `python3.12`) is looked up with each of those extensions in each directory of
/// `PATH`, in that order, as `cmd.exe` does: so `npx` finds `npx.cmd`, which std then starts
/// through `cmd.exe /c` with its arguments quoted for it (std's own search only appends
/// `.exe`). The directories are the entry's `PATH` (its last spelling, names compared without
/// case, as std lets the last one win) and then the host's, as std searches the child's
/// before the parent's. Unlike `cmd.exe`, the current directory is never searched, nor are
/// relative entries of `PATH`. Anything not found is left to std's own search.
pub fn program(command: &str, environment: &BTreeMap<String, String>) -> OsString {
    let own = |name: &str| environment.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| OsString::from(v));
    let extensions = own("PATHEXT")
        .or_else(|| std::env::var_os("PATHEXT"))
        .and_then(|e| e.into_string().ok())
        .unwrap_or_else(|| ".COM;.EXE;.BAT;.CMD".to_owned());
    let extensions: Vec<&str> = extensions.split(';').filter(|e| e.starts_with('.') && e.len() > 1).collect();
    let known = Path::new(command)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.iter().any(|x| x[1..].eq_ignore_ascii_case(e)));
    if command.contains(['\\', '/', ':']) || known {
        return command.into();
    }
    let dirs: Vec<PathBuf> = own("PATH")
        .into_iter()
        .chain(std::env::var_os("PATH"))
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .filter(|d| d.is_absolute())
        .collect();
    dirs.iter()
        .flat_map(|dir| extensions.iter().map(move |e| dir.join(format!("{command}{e}"))))
        // Not `is_file`: an App Execution Alias is a reparse point it does not follow.
        .find(|candidate| candidate.symlink_metadata().is_ok_and(|m| !m.is_dir()))
        .map_or_else(|| command.into(), PathBuf::into_os_string)
}

pub fn prepare(command: &mut tokio::process::Command) {
    command.creation_flags(CREATE_NO_WINDOW);
}

/// Nothing to register: the jobs end the children when the host's handles close.
pub fn on_first_child() {}

/// Puts the child into a new job that ends its processes when its last handle closes.
pub fn adopt(child: &tokio::process::Child) -> Result<Tracked, String> {
    let process = child.raw_handle().ok_or("the server exited at once")?;
    // SAFETY: an unnamed job with default security; the handle is not inheritable, so no
    // child holds it open.
    let job = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if job.is_null() {
        return Err(format!("could not create a job object for the server: {}", std::io::Error::last_os_error()));
    }
    let tracked = Tracked { job };
    let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    // SAFETY: `limits` is the structure this information class names, with its size.
    let set = unsafe {
        SetInformationJobObject(
            job,
            JobObjectExtendedLimitInformation,
            (&raw const limits).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    // SAFETY: both handles are open; the process handle is the child's, owned by `child`.
    if set == 0 || unsafe { AssignProcessToJobObject(job, process as HANDLE) } == 0 {
        let error = std::io::Error::last_os_error();
        // The job would end with `tracked` but the server is outside it: end it here.
        // SAFETY: as above; terminating our own child.
        unsafe { windows_sys::Win32::System::Threading::TerminateProcess(process as HANDLE, TERMINATED) };
        return Err(format!("could not put the server into a job object: {error}"));
    }
    Ok(tracked)
}

pub fn stop(_pid: Pid, tracked: &Tracked, Stage::TerminateJob: Stage) {
    // SAFETY: the job handle is open while `tracked` lives.
    unsafe { TerminateJobObject(tracked.job, TERMINATED) };
}

/// Terminates every job; the supervisor tasks reap what they find ended.
pub fn end_now(children: Vec<(Pid, Tracked)>) {
    for (pid, tracked) in &children {
        stop(*pid, tracked, Stage::TerminateJob);
    }
}

/// Whether `pid` is a live process.
#[cfg(test)]
pub fn is_running(pid: Pid) -> bool {
    use windows_sys::Win32::Foundation::STILL_ACTIVE;
    use windows_sys::Win32::System::Threading::{GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION};
    // SAFETY: opens, queries and closes a handle of our own.
    unsafe {
        let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if process.is_null() {
            return false;
        }
        let mut code = 0u32;
        let ok = GetExitCodeProcess(process, &mut code);
        CloseHandle(process);
        ok != 0 && code == STILL_ACTIVE as u32
    }
}
