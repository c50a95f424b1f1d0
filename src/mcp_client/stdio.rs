//! The stdio transport: the server is a child process; newline-delimited JSON-RPC on its stdin
//! and stdout; the last 8 KiB of its stderr are kept for error messages.
//!
//! Writes go through one writer task fed by a channel, so a caller that is dropped half-way
//! can never leave half a message in the pipe. A supervisor task owns the child and reaps it.
//! Shutdown: close stdin, wait up to 2 s, SIGTERM, wait up to 2 s, SIGKILL, reap (the platform
//! parts are in `children.rs`).

use super::children;
use super::jsonrpc::Rpc;
use crate::mcp::Mcp;
use serde_json::Value;
use std::collections::VecDeque;
use std::process::Stdio as Piped;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch};

const STDERR_TAIL: usize = 8 * 1024;
const GRACE: Duration = Duration::from_secs(2);

pub(crate) struct Stdio {
    pid: children::Pid,
    outgoing: Mutex<Option<mpsc::UnboundedSender<Vec<u8>>>>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// Some(description of the exit status) once the child has been reaped.
    exited: watch::Receiver<Option<String>>,
}

impl Stdio {
    /// Spawns the server and starts its reader, writer, stderr and supervisor tasks.
    pub fn spawn(config: &Mcp, rpc: Arc<Rpc>) -> Result<Stdio, String> {
        let mut command = tokio::process::Command::new(&config.command);
        command
            .args(&config.arguments)
            .envs(&config.environment)
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::piped())
            .kill_on_drop(false);
        children::end_with_host(&mut command);
        let mut child = command.spawn().map_err(|e| format!("could not start \"{}\": {e}", config.command))?;
        let pid = child.id().ok_or("the server exited at once")?;
        children::track(pid);
        let stdin = child.stdin.take().ok_or("no stdin pipe")?;
        let stdout = child.stdout.take().ok_or("no stdout pipe")?;
        let stderr = child.stderr.take().ok_or("no stderr pipe")?;

        let (exit_sender, exited) = watch::channel(None);
        tokio::spawn(async move {
            let status = match child.wait().await {
                Ok(status) => status.to_string(),
                Err(e) => format!("status unknown: {e}"),
            };
            children::forget(pid);
            let _ = exit_sender.send(Some(status));
        });

        let (sender, mut queue) = mpsc::unbounded_channel::<Vec<u8>>();
        tokio::spawn(async move {
            let mut stdin = stdin;
            while let Some(line) = queue.recv().await {
                if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
            // Dropping stdin closes the pipe: the server's cue to exit.
        });

        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_tail = tail.clone();
        tokio::spawn(async move {
            let mut stderr = stderr;
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stderr.read(&mut buf).await {
                let mut t = stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
                t.extend(&buf[..n]);
                let excess = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..excess);
            }
        });

        let replies = sender.downgrade();
        let mut exit_watch = exited.clone();
        let reader_tail = tail.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            let mut oversized = false;
            loop {
                line.clear();
                match (&mut reader).take(super::MESSAGE_LIMIT as u64).read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) if line.last() != Some(&b'\n') && line.len() >= super::MESSAGE_LIMIT => {
                        oversized = true;
                        break;
                    }
                    Ok(_) => {}
                }
                // Lines that are not JSON (a server's stray logging) are skipped.
                let Ok(message) = serde_json::from_slice::<Value>(&line) else { continue };
                for reply in rpc.dispatch(message, None) {
                    if let Some(sender) = replies.upgrade() {
                        let _ = sender.send(line_of(&reply));
                    }
                }
            }
            let status = tokio::time::timeout(Duration::from_secs(1), exit_watch.wait_for(Option::is_some)).await;
            let status = match status {
                _ if oversized => super::too_large(),
                Ok(Ok(s)) => format!("the server exited ({})", s.as_deref().unwrap_or_default()),
                _ => "the server closed its output".to_owned(),
            };
            rpc.close(&with_stderr(status, &reader_tail));
        });

        Ok(Stdio { pid, outgoing: Mutex::new(Some(sender)), stderr: tail, exited })
    }

    /// Queues one message; fails once stdin is closed.
    pub fn send(&self, message: &Value) -> Result<(), String> {
        let outgoing = self.outgoing.lock().unwrap_or_else(|e| e.into_inner());
        match outgoing.as_ref().map(|s| s.send(line_of(message))) {
            Some(Ok(())) => Ok(()),
            _ => Err("the server's input is closed".to_owned()),
        }
    }

    /// `reason` followed by what the server wrote to stderr, if anything.
    pub fn describe(&self, reason: String) -> String {
        with_stderr(reason, &self.stderr)
    }

    /// Close stdin, then SIGTERM, then SIGKILL, until the child is reaped (at most ~5 s).
    pub async fn shutdown(&self) {
        self.outgoing.lock().unwrap_or_else(|e| e.into_inner()).take();
        let mut exited = self.exited.clone();
        for signal in [Some(children::Signal::Terminate), Some(children::Signal::Kill), None] {
            if tokio::time::timeout(GRACE, exited.wait_for(Option::is_some)).await.is_ok() {
                return;
            }
            let Some(signal) = signal else { return };
            if exited.borrow().is_none() {
                children::signal(self.pid, signal);
            }
        }
    }
}

fn line_of(message: &Value) -> Vec<u8> {
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

fn with_stderr(reason: String, tail: &Mutex<VecDeque<u8>>) -> String {
    let bytes: Vec<u8> = tail.lock().unwrap_or_else(|e| e.into_inner()).iter().copied().collect();
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim();
    if text.is_empty() { reason } else { format!("{reason}; stderr: {text}") }
}
