//! `vi-scripted-server --script <file.json | -> [--port N] [--tls-cert F --tls-key F [--tls-client-ca F]] [--socks5 USER:PASS | --socks5 -]`
//!
//! Runs the scripted server for tests in another process (the C++ QtTest suites) and for the
//! chat example's offline demo. It prints exactly one line, `PORT <n>`, once it is listening,
//! then serves until its standard input reaches end-of-file or it is terminated (SIGTERM's default
//! action). Watching stdin means a parent that dies, closing its end of the pipe, never leaves
//! the server behind. `--script -` starts with an empty script, to be set with `POST /__script`.
//! With `--tls-cert` (PEM chain) and `--tls-key`, it serves https on that port instead (the
//! certificate must name `localhost`); `--tls-client-ca` also demands a client certificate
//! issued by that CA. `--socks5` also starts a SOCKS5 proxy (`-`: no authentication) and prints
//! a second line, `SOCKS5 <n>`, with its port.

use std::io::{Read, Write};
use std::process::ExitCode;

use serde_json::{Value, json};
use vi_scripted_server::{ScriptedServer, Socks5Proxy, TlsIdentity};

const USAGE: &str =
    "usage: vi-scripted-server --script <file.json | -> [--port N] [--tls-cert F --tls-key F [--tls-client-ca F]] [--socks5 USER:PASS | -]";

struct Options {
    script: String,
    port: u16,
    tls_cert: Option<String>,
    tls_key: Option<String>,
    tls_client_ca: Option<String>,
    /// `Some(None)`: a SOCKS5 proxy without authentication.
    socks5: Option<Option<(String, String)>>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut script = None;
    let mut port = 0;
    let (mut tls_cert, mut tls_key, mut tls_client_ca) = (None, None, None);
    let mut socks5 = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--script" => script = Some(args.next().ok_or("--script needs a value")?),
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                port = value.parse().map_err(|_| format!("bad port {value:?}"))?;
            }
            "--tls-cert" => tls_cert = Some(args.next().ok_or("--tls-cert needs a file")?),
            "--tls-key" => tls_key = Some(args.next().ok_or("--tls-key needs a file")?),
            "--tls-client-ca" => tls_client_ca = Some(args.next().ok_or("--tls-client-ca needs a file")?),
            "--socks5" => {
                let value = args.next().ok_or("--socks5 needs USER:PASS or -")?;
                socks5 = Some(match value.as_str() {
                    "-" => None,
                    credentials => {
                        let (user, password) = credentials.split_once(':').ok_or("--socks5 needs USER:PASS or -")?;
                        Some((user.to_owned(), password.to_owned()))
                    }
                });
            }
            // An empty message: print the usage alone and succeed.
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if tls_cert.is_some() != tls_key.is_some() || (tls_client_ca.is_some() && tls_cert.is_none()) {
        return Err("--tls-cert and --tls-key go together (and --tls-client-ca needs them)".into());
    }
    Ok(Options {
        script: script.ok_or("--script is required")?,
        port,
        tls_cert,
        tls_key,
        tls_client_ca,
        socks5,
    })
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

fn tls_identity(options: &Options) -> Result<Option<TlsIdentity>, String> {
    let (Some(cert), Some(key)) = (&options.tls_cert, &options.tls_key) else { return Ok(None) };
    Ok(Some(TlsIdentity {
        certificate_chain_pem: read(cert)?,
        private_key_pem: read(key)?,
        client_ca_pem: options.tls_client_ca.as_deref().map(read).transpose()?,
    }))
}

fn load_script(source: &str) -> Result<Value, String> {
    if source == "-" {
        return Ok(json!({ "responses": [] }));
    }
    let text = std::fs::read_to_string(source).map_err(|e| format!("cannot read {source}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{source} is not JSON: {e}"))
}

/// With this set, every chat request body is also written to a file in that directory.
const BODY_LOG_VARIABLE: &str = "VI_REQUEST_BODIES_DIR";

fn run() -> Result<(), String> {
    let options = parse_args(std::env::args().skip(1))?;
    let identity = tls_identity(&options)?;
    let mut server = ScriptedServer::start_with(options.port, load_script(&options.script)?, identity.as_ref())
        .map_err(|e| format!("cannot start: {e}"))?;
    server.log_bodies_to(std::env::var_os(BODY_LOG_VARIABLE).map(Into::into));
    let mut stdout = std::io::stdout().lock();
    let socks5 = match &options.socks5 {
        Some(credentials) => {
            let credentials = credentials.as_ref().map(|(u, p)| (u.as_str(), p.as_str()));
            Some(Socks5Proxy::start(credentials).map_err(|e| format!("cannot start the SOCKS5 proxy: {e}"))?)
        }
        None => None,
    };
    writeln!(stdout, "PORT {}", server.port())
        .and_then(|()| match &socks5 {
            Some(proxy) => writeln!(stdout, "SOCKS5 {}", proxy.port()),
            None => Ok(()),
        })
        .and_then(|()| stdout.flush())
        .map_err(|e| e.to_string())?;
    drop(stdout);
    let mut stdin = std::io::stdin().lock();
    let mut sink = [0u8; 1024];
    loop {
        match stdin.read(&mut sink) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    server.shutdown();
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) if message.is_empty() => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("vi-scripted-server: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
