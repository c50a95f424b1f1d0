//! The MCP test servers of tests/mcp_servers/ (the official MCP Python SDK) and the chat steps
//! that call their tools, shared by the MCP test binaries.

use serde_json::Value;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use vi_scripted_server::{Step, chat_chunk_content, chat_chunk_tool_call, done};
use visindigo_agent::{Mcp, Transport};

/// The tests of one binary run one at a time: they share the process-wide pool and count
/// child processes.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The interpreter with the `mcp` package.
pub fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| super::python("mcp.server.mcpserver"))
}

pub fn script_path(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_servers").join(name).to_string_lossy().into_owned()
}

/// An entry starting tools_server.py over stdio.
pub fn stdio_entry(name: &str) -> Mcp {
    stdio_entry_of(name, "tools_server.py")
}

/// An entry starting `script` over stdio.
pub fn stdio_entry_of(name: &str, script: &str) -> Mcp {
    let mut m = Mcp::new(name);
    m.command = python().to_owned();
    m.arguments = vec![script_path(script), "stdio".into()];
    m
}

/// A server of tests/mcp_servers on 127.0.0.1 run by the test itself (HTTP transports);
/// killed on drop.
pub struct HttpServer {
    child: Child,
    pub port: u16,
}

impl HttpServer {
    /// tools_server.py in `mode` (streamable-http, sse) on `port` (a free one when None).
    pub fn start(mode: &str, port: Option<u16>) -> HttpServer {
        HttpServer::start_script("tools_server.py", mode, port)
    }

    pub fn start_script(script: &str, mode: &str, port: Option<u16>) -> HttpServer {
        HttpServer::start_with(script, mode, port, &[])
    }

    /// `script` with `extra` arguments after the mode and port.
    pub fn start_with(script: &str, mode: &str, port: Option<u16>, extra: &[&str]) -> HttpServer {
        let port = port.unwrap_or_else(|| TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port());
        let child = Command::new(python())
            .args([script_path(script), mode.to_owned(), port.to_string()])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python starts");
        let server = HttpServer { child, port };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(30), "the {mode} MCP server did not listen within 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    pub fn entry(&self, name: &str, transport: Transport, path: &str) -> Mcp {
        let mut m = Mcp::new(name);
        m.transport = transport;
        m.url = format!("http://127.0.0.1:{}{path}", self.port);
        m.headers.insert("X-Test".into(), "yes".into());
        m
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response that calls the given tools (name, arguments JSON), in order.
pub fn calls(tools: &[(&str, &str)]) -> Step {
    let mut events: Vec<Value> = tools
        .iter()
        .enumerate()
        .map(|(i, (name, args))| chat_chunk_tool_call(i as u64, &format!("call_{i}"), name, args))
        .collect();
    events.push(done());
    Step::sse(events)
}

pub fn answer(text: &str) -> Step {
    Step::sse(vec![chat_chunk_content(text), done()])
}
