//! The server handle: binding, the background thread, shutdown.
//!
//! The server runs on a thread of its own with its own single-threaded tokio runtime, so it works
//! the same whether the test that starts it is a plain `#[test]` or runs inside a runtime
//! (`#[tokio::test]`), and a test that blocks its own thread cannot starve the server. One thread
//! per server keeps many parallel tests cheap on a small machine.

use std::io;
use std::net::{Ipv4Addr, SocketAddr, TcpListener as StdTcpListener};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::connection::serve_connection;
use crate::record::RecordedRequest;
use crate::script::{ScriptError, parse_script};
use crate::state::Shared;
use crate::tls::TlsIdentity;

/// A scripted OpenAI-compatible server on 127.0.0.1. Stops on [`shutdown`](Self::shutdown) or
/// when dropped.
pub struct ScriptedServer {
    port: u16,
    /// The https front's port, when started with `start_tls`.
    tls_port: Option<u16>,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ScriptedServer {
    /// Starts serving `script` on an OS-chosen port.
    ///
    /// Fails with [`io::ErrorKind::InvalidInput`] (wrapping a [`ScriptError`]) when the script is
    /// not valid.
    pub fn start(script: Value) -> io::Result<ScriptedServer> {
        ScriptedServer::start_on(0, script)
    }

    /// Starts serving `script` on 127.0.0.1:`port` (0 = OS-chosen).
    pub fn start_on(port: u16, script: Value) -> io::Result<ScriptedServer> {
        ScriptedServer::start_with(port, script, None)
    }

    /// Starts serving `script` over https on an OS-chosen port (see `tls.rs`); `base_url` is
    /// then `https://localhost:PORT/v1`, so the certificate must name `localhost`.
    pub fn start_tls(script: Value, identity: &TlsIdentity) -> io::Result<ScriptedServer> {
        ScriptedServer::start_with(0, script, Some(identity))
    }

    /// `port` is the https port when `tls` is given (the plain server then takes any port).
    pub fn start_with(port: u16, script: Value, tls: Option<&TlsIdentity>) -> io::Result<ScriptedServer> {
        let script =
            parse_script(&script).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let plain_port = if tls.is_some() { 0 } else { port };
        let listener = StdTcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, plain_port)))?;
        listener.set_nonblocking(true)?;
        let backend = listener.local_addr()?;
        let front = match tls {
            Some(identity) => {
                let front = StdTcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
                front.set_nonblocking(true)?;
                Some((front, crate::tls::acceptor(identity)?))
            }
            None => None,
        };
        let tls_port = front.as_ref().map(|(f, _)| f.local_addr().map(|a| a.port())).transpose()?;
        let port = backend.port();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (listener, front) = {
            let _context = runtime.enter();
            let front = match front {
                Some((front, acceptor)) => Some((TcpListener::from_std(front)?, acceptor)),
                None => None,
            };
            (TcpListener::from_std(listener)?, front)
        };
        let shared = Arc::new(Shared::new(script));
        let (stop, stopped) = oneshot::channel();
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("vi-scripted-server:{port}"))
            .spawn(move || {
                // Returning drops the runtime, which drops every connection task and so closes every
                // connection, including stalled ones.
                runtime.block_on(async move {
                    match front {
                        Some((front, acceptor)) => tokio::select! {
                            _ = accept_loop(listener, thread_shared, stopped) => {}
                            _ = crate::tls::relay_loop(front, acceptor, backend) => {}
                        },
                        None => accept_loop(listener, thread_shared, stopped).await,
                    }
                });
            })?;
        Ok(ScriptedServer {
            port,
            tls_port,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT/v1` (`https://localhost:PORT/v1` with TLS): a model URL base;
    /// the client appends `/chat/completions`.
    pub fn base_url(&self) -> String {
        match self.tls_port {
            Some(port) => format!("https://localhost:{port}/v1"),
            None => format!("http://127.0.0.1:{}/v1", self.port),
        }
    }

    /// The port clients connect to (the https one with TLS).
    pub fn port(&self) -> u16 {
        self.tls_port.unwrap_or(self.port)
    }

    /// Every request received so far, in order (`/__` control requests excluded).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests()
    }

    /// Waits until at least `count` requests have been recorded or `timeout` has passed, and
    /// returns the requests recorded by then (check the length).
    pub fn wait_for_requests(&self, count: usize, timeout: Duration) -> Vec<RecordedRequest> {
        self.shared.wait_for_requests(count, timeout)
    }

    /// From now on, also writes every chat request's JSON body to its own file in `dir` (for
    /// validating bodies outside the test that made them); `None` stops it.
    pub fn log_bodies_to(&self, dir: Option<std::path::PathBuf>) {
        self.shared.log_bodies_to(dir);
    }

    /// Replaces the script (what `POST /__script` does): the next chat request gets step 0 of
    /// the new script, and the request log is cleared.
    pub fn set_script(&self, script: Value) -> Result<(), ScriptError> {
        self.shared.replace_script(parse_script(&script)?);
        Ok(())
    }

    /// Stops accepting, ends every connection (stalled ones too) and joins the server thread.
    /// Idempotent; recorded requests stay available.
    pub fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut stopped: oneshot::Receiver<()>,
) {
    let mut connections = 0u64;
    loop {
        tokio::select! {
            _ = &mut stopped => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // Small SSE events must leave at once, not wait for Nagle's algorithm.
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(serve_connection(stream, Arc::clone(&shared), connections));
                    connections += 1;
                }
                // Usually out of file descriptors: give connections a moment to close.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
        }
    }
}
