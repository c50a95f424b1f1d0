//! The stdio transport: the server is a child process; newline-delimited JSON-RPC on its stdin
//! and stdout; the last 8 KiB of its stderr are kept for error messages.
//!
//! Writes go through one writer task fed by a channel, so a caller that is dropped half-way
//! can never leave half a message in the pipe. A supervisor task owns the child and reaps it.
//! Shutdown: close stdin, wait up to 2 s, then each of the platform's stages with the same
//! grace (Unix: SIGTERM, SIGKILL; Windows: the job terminated), reap (`children.rs`). Lines
//! may end in CRLF (JSON counts the CR as whitespace).

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
    #[cfg(test)]
    pid: children::Pid,
    /// The supervisor's: each stage of a shutdown, sent when its time has come.
    stops: mpsc::UnboundedSender<children::Stage>,
    outgoing: Mutex<Option<mpsc::UnboundedSender<Vec<u8>>>>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// Some(description of the exit status) once the child has been reaped.
    exited: watch::Receiver<Option<String>>,
}

impl Stdio {
    /// Spawns the server and starts its reader, writer, stderr and supervisor tasks.
    pub fn spawn(config: &Mcp, rpc: Arc<Rpc>) -> Result<Stdio, String> {
        let mut command = children::command(config);
        command.stdin(Piped::piped()).stdout(Piped::piped()).stderr(Piped::piped());
        let mut child = command.spawn().map_err(|e| format!("could not start \"{}\": {e}", config.command))?;
        let registration = children::track(&child)?;
        #[cfg(test)]
        let pid = child.id().unwrap_or_default();
        let stdin = child.stdin.take().ok_or("no stdin pipe")?;
        let stdout = child.stdout.take().ok_or("no stdout pipe")?;
        let stderr = child.stderr.take().ok_or("no stderr pipe")?;

        let (exit_sender, exited) = watch::channel(None);
        let (stops, mut stages) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let status = loop {
                tokio::select! {
                    status = child.wait() => break status,
                    Some(stage) = stages.recv() => children::stop(&registration, &child, stage),
                }
            };
            drop(registration);
            let status = match status {
                Ok(status) => status.to_string(),
                Err(e) => format!("status unknown: {e}"),
            };
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

        Ok(Stdio {
            #[cfg(test)]
            pid,
            stops,
            outgoing: Mutex::new(Some(sender)),
            stderr: tail,
            exited,
        })
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

    /// Close stdin, then the platform's stages, until the child is reaped (at most ~6 s on
    /// Unix, ~4 s on Windows).
    pub async fn shutdown(&self) {
        self.outgoing.lock().unwrap_or_else(|e| e.into_inner()).take();
        let mut exited = self.exited.clone();
        for stage in children::STAGES.iter().map(Some).chain([None]) {
            if tokio::time::timeout(GRACE, exited.wait_for(Option::is_some)).await.is_ok() {
                return;
            }
            let Some(&stage) = stage else { return };
            let _ = self.stops.send(stage);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, Write};
    use std::time::Instant;

    /// Which child process this test binary plays when started again by the tests below.
    const ROLE: &str = "VI_STDIO_TEST_ROLE";
    /// What `cmd.exe` would take apart if std did not quote it for a `.cmd` wrapper. (Not `%`:
    /// std escapes it with `%cd:~,%`, which Wine's `cmd` does not expand.)
    const ARGUMENT: &str = r#"a b & c | d "quoted" ^ < > end"#;

    /// Not a test: the server and the host process the tests below start (this binary run
    /// again with `ROLE` set), so that they run wherever the tests do, under Wine too.
    #[test]
    #[ignore = "a child process of the stdio tests"]
    fn child_process() {
        match std::env::var(ROLE).as_deref() {
            Ok("server") => serve(false),
            Ok("server ignoring EOF") => serve(true),
            Ok("host exiting") => host(false),
            Ok("host waiting to be killed") => host(true),
            _ => {}
        }
    }

    /// Answers each request with its arguments, in CRLF lines as Windows servers write them.
    fn serve(ignore_eof: bool) {
        let mut out = std::io::stdout().lock();
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            let Ok(request) = serde_json::from_str::<Value>(&line) else { continue };
            let args: Vec<String> = std::env::args().collect();
            let reply = serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": {"args": args}});
            let _ = write!(out, "{reply}\r\n").and_then(|()| out.flush());
        }
        if ignore_eof {
            std::thread::sleep(Duration::from_secs(60));
        }
        std::process::exit(0);
    }

    /// Starts a server that ignores EOF on the library's runtime, says its pid, then exits
    /// or waits to be killed.
    fn host(wait: bool) {
        let (sender, pid) = std::sync::mpsc::channel();
        crate::runtime::runtime().spawn(async move {
            let server = Stdio::spawn(&config("server ignoring EOF"), Rpc::new()).expect("the server starts");
            let _ = sender.send(server.pid);
            std::mem::forget(server);
        });
        let pid = pid.recv().expect("the runtime started the server");
        println!("server pid {pid}");
        let _ = std::io::stdout().flush();
        if wait {
            std::thread::sleep(Duration::from_secs(60));
        }
        std::process::exit(0);
    }

    /// This test binary, started as `role`.
    fn config(role: &str) -> Mcp {
        let mut config = Mcp::new("stdio test");
        config.command = std::env::current_exe().expect("the test binary's path").to_string_lossy().into_owned();
        config.arguments = ["mcp_client::stdio::tests::child_process", "--exact", "--ignored", "--nocapture", ARGUMENT]
            .map(str::to_owned)
            .to_vec();
        config.environment.insert(ROLE.to_owned(), role.to_owned());
        config
    }

    async fn ping(server: &Stdio, rpc: &Arc<Rpc>) -> Value {
        let (message, mut pending) = rpc.start("ping", None, false).expect("the connection is open");
        server.send(&message).expect("the server's input is open");
        tokio::time::timeout(Duration::from_secs(20), pending.wait()).await.expect("an answer").expect("a result")
    }

    fn eventually_gone(pid: children::Pid, within: Duration) -> bool {
        let start = Instant::now();
        while children::is_running(pid) {
            if start.elapsed() > within {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    #[test]
    fn a_server_that_ignores_eof_is_ended_within_the_grace_and_its_crlf_lines_are_read() {
        crate::runtime::runtime().block_on(async {
            let rpc = Rpc::new();
            let server = Stdio::spawn(&config("server ignoring EOF"), rpc.clone()).expect("the server starts");
            let answer = ping(&server, &rpc).await;
            assert_eq!(answer["args"].as_array().and_then(|a| a.last()), Some(&Value::from(ARGUMENT)), "{answer}");
            let start = Instant::now();
            server.shutdown().await;
            let took = start.elapsed();
            assert!(took >= GRACE && took < Duration::from_secs(3), "shutdown took {took:?}");
            assert!(!children::is_running(server.pid), "the server still runs after shutdown");
        });
    }

    #[test]
    fn a_server_that_exits_on_eof_is_not_waited_for() {
        crate::runtime::runtime().block_on(async {
            let rpc = Rpc::new();
            let server = Stdio::spawn(&config("server"), rpc.clone()).expect("the server starts");
            ping(&server, &rpc).await;
            let start = Instant::now();
            server.shutdown().await;
            assert!(start.elapsed() < Duration::from_secs(1), "shutdown took {:?}", start.elapsed());
        });
    }

    /// A host that exits ends its servers itself (Unix: the `atexit` handler, checked at once,
    /// before a parent-death signal could have done it; Windows: the job); one that is killed
    /// takes them along where the platform can (Linux, Windows: not macOS, README).
    #[test]
    fn a_server_does_not_outlive_its_host() {
        let roles: &[&str] =
            if cfg!(any(target_os = "linux", windows)) { &["host exiting", "host waiting to be killed"] } else { &["host exiting"] };
        for &role in roles {
            let mut host = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["mcp_client::stdio::tests::child_process", "--exact", "--ignored", "--nocapture"])
                .env(ROLE, role)
                .stdout(Piped::piped())
                .spawn()
                .expect("the host starts");
            let said = std::io::BufReader::new(host.stdout.take().unwrap())
                .lines()
                .map_while(Result::ok)
                .find_map(|l| l.strip_prefix("server pid ").and_then(|p| p.trim().parse::<children::Pid>().ok()));
            let pid = said.unwrap_or_else(|| panic!("the {role} named no server"));
            if role == "host waiting to be killed" {
                assert!(children::is_running(pid), "the server runs while its host does");
                host.kill().expect("the host can be killed");
            }
            host.wait().expect("the host ends");
            if cfg!(unix) && role == "host exiting" {
                assert!(!children::is_running(pid), "the host's atexit handler did not end the server {pid}");
            }
            assert!(eventually_gone(pid, Duration::from_secs(3)), "the server {pid} outlived its {role}");
        }
    }

    #[cfg(windows)]
    #[test]
    fn a_cmd_wrapper_found_through_the_entrys_path_gets_its_arguments_intact() {
        let dir = std::env::temp_dir().join(format!("vi-stdio-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = std::env::current_exe().unwrap();
        std::fs::write(dir.join("vi-test-server.cmd"), format!("@\"{}\" %*\r\n", exe.display())).unwrap();
        let mut config = config("server");
        config.command = "vi-test-server".to_owned();
        config.environment.insert("Path".to_owned(), dir.to_string_lossy().into_owned());
        crate::runtime::runtime().block_on(async {
            let rpc = Rpc::new();
            let server = Stdio::spawn(&config, rpc.clone()).expect("the .cmd server starts");
            let answer = ping(&server, &rpc).await;
            assert_eq!(answer["args"].as_array().and_then(|a| a.last()), Some(&Value::from(ARGUMENT)), "{answer}");
            server.shutdown().await;
        });
        let _ = std::fs::remove_dir_all(&dir);
    }
}
