//! The `vi-scripted-server` binary as the C++ tests use it: a child process on a pipe.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{post_chat, request};
use serde_json::json;

/// A running binary; killed if a test fails before it exits by itself.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    port: u16,
}

impl Server {
    fn spawn(args: &[&str]) -> Server {
        // The client's test run may ask servers to copy chat bodies for validation; the
        // hand-written requests of these tests are not the client's.
        let mut child = Command::new(env!("CARGO_BIN_EXE_vi-scripted-server"))
            .env_remove("VI_REQUEST_BODIES_DIR")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn the binary");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (lines, received) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let _ = lines.send(line.unwrap_or_default());
            }
        });
        let line = received
            .recv_timeout(common::TIMEOUT)
            .expect("the PORT line");
        let port = line
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("{line:?}"));
        assert!(
            received.recv_timeout(Duration::from_millis(200)).is_err(),
            "exactly one line on stdout"
        );
        Server { child, stdin, port }
    }

    fn wait_for_exit(&mut self) -> Option<ExitStatus> {
        let deadline = Instant::now() + common::TIMEOUT;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn script_file(script: serde_json::Value) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "vi-scripted-server-test-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, script.to_string()).unwrap();
    path
}

#[test]
fn serves_a_script_file_and_exposes_the_request_log() {
    let path = script_file(json!({"responses": [{"events": ["from file", {"$done": true}]}]}));
    let free_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = Server::spawn(&[
        "--script",
        path.to_str().unwrap(),
        "--port",
        &free_port.to_string(),
    ]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(server.port, free_port);

    let stream = post_chat(server.port, &json!({"model": "m", "messages": []}));
    assert_eq!(stream.text(), "data: from file\n\ndata: [DONE]\n\n");

    let log = request(server.port, "GET", "/__requests", b"");
    assert_eq!(log.status, 200);
    let log = log.json();
    assert_eq!(
        log.as_array().unwrap().len(),
        1,
        "control requests are not recorded: {log}"
    );
    assert_eq!(log[0]["method"], "POST");
    assert_eq!(log[0]["path"], "/v1/chat/completions");
    assert_eq!(log[0]["body_json"], json!({"model": "m", "messages": []}));
    assert_eq!(log[0]["headers"]["connection"], "close");
    assert_eq!(log[0]["step"], 0);
}

#[test]
fn script_can_be_set_over_http() {
    let server = Server::spawn(&["--script", "-"]);
    let exhausted = post_chat(server.port, &json!({}));
    assert_eq!(exhausted.status, 500);

    let new_script =
        json!({"responses": [{"status": 401, "body": {"error": {"message": "bad key"}}}]});
    let set = request(
        server.port,
        "POST",
        "/__script",
        new_script.to_string().as_bytes(),
    );
    assert_eq!((set.status, set.json()), (200, json!({"ok": true})));
    assert_eq!(
        request(server.port, "GET", "/__requests", b"").json(),
        json!([]),
        "the log starts afresh"
    );

    let answer = post_chat(server.port, &json!({}));
    assert_eq!(
        (answer.status, answer.json()["error"]["message"].as_str()),
        (401, Some("bad key"))
    );

    let rejected = request(
        server.port,
        "POST",
        "/__script",
        br#"{"responses": [{"events": [{"$nope": 1}]}]}"#,
    );
    assert_eq!(rejected.status, 400);
    assert!(
        rejected.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown directive")
    );
}

#[test]
fn exits_when_stdin_closes() {
    let mut server = Server::spawn(&["--script", "-"]);
    assert_eq!(post_chat(server.port, &json!({})).status, 500);
    drop(server.stdin.take());
    let status = server
        .wait_for_exit()
        .expect("the binary must exit once stdin is closed");
    assert!(status.success(), "{status:?}");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", server.port)).is_err(),
        "no longer listening"
    );
}

#[cfg(unix)]
#[test]
fn sigterm_ends_it() {
    use std::os::unix::process::ExitStatusExt;
    let mut server = Server::spawn(&["--script", "-"]);
    let sent = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = server
        .wait_for_exit()
        .expect("the binary must exit on SIGTERM");
    assert_eq!(status.signal(), Some(15));
}

#[test]
fn bad_arguments_fail_with_usage() {
    for args in [
        &[][..],
        &["--script"],
        &["--script", "/nonexistent/script.json"],
        &["--port", "x", "--script", "-"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_vi-scripted-server"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("usage: vi-scripted-server"),
            "{args:?}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn socks5_prints_its_port_on_a_second_line_and_speaks_socks5() {
    use std::io::{Read, Write};
    let mut child = Command::new(env!("CARGO_BIN_EXE_vi-scripted-server"))
        .args(["--script", "-", "--socks5", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the binary");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let second = lines.next().unwrap().unwrap();
    assert!(first.starts_with("PORT "), "{first:?}");
    let port: u16 = second.strip_prefix("SOCKS5 ").and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("{second:?}"));
    let mut socks = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    socks.write_all(&[5, 1, 0]).unwrap();
    let mut choice = [0u8; 2];
    socks.read_exact(&mut choice).unwrap();
    assert_eq!(choice, [5, 0], "no authentication, as asked");
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
}
