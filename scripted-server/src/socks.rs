//! A SOCKS5 proxy for tests (RFC 1928, with RFC 1929 user/password when asked for): CONNECT
//! only, on 127.0.0.1, recording where each tunnel went, so a test can prove a request went
//! through it. Debian has no small SOCKS server to start per test; this one is ~150 lines.

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// A running SOCKS5 proxy. Stops when dropped.
pub struct Socks5Proxy {
    port: u16,
    tunnels: Arc<Mutex<Vec<String>>>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Socks5Proxy {
    /// Starts on an OS-chosen port; with `credentials`, clients must authenticate with them.
    pub fn start(credentials: Option<(&str, &str)>) -> io::Result<Socks5Proxy> {
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let listener = {
            let _context = runtime.enter();
            TcpListener::from_std(listener)?
        };
        let tunnels = Arc::new(Mutex::new(Vec::new()));
        let credentials = credentials.map(|(u, p)| (u.to_owned(), p.to_owned()));
        let (stop, mut stopped) = oneshot::channel::<()>();
        let log = Arc::clone(&tunnels);
        let thread = std::thread::Builder::new().name(format!("vi-socks5:{port}")).spawn(move || {
            runtime.block_on(async move {
                let credentials = Arc::new(credentials);
                loop {
                    tokio::select! {
                        _ = &mut stopped => return,
                        accepted = listener.accept() => if let Ok((client, _)) = accepted {
                            let (credentials, log) = (Arc::clone(&credentials), Arc::clone(&log));
                            tokio::spawn(async move {
                                let _ = serve(client, &credentials, &log).await;
                            });
                        },
                    }
                }
            });
        })?;
        Ok(Socks5Proxy { port, tunnels, stop: Some(stop), thread: Some(thread) })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// "host:port" of every tunnel opened so far, in order (the host as the client named it).
    pub fn tunnels(&self) -> Vec<String> {
        self.tunnels.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Socks5Proxy {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

const VERSION: u8 = 5;
const NO_AUTH: u8 = 0;
const USER_PASSWORD: u8 = 2;
const NO_ACCEPTABLE: u8 = 0xFF;

async fn serve(mut client: TcpStream, credentials: &Option<(String, String)>, log: &Mutex<Vec<String>>) -> io::Result<()> {
    let [version, count] = read_array(&mut client).await?;
    let mut methods = vec![0; count as usize];
    client.read_exact(&mut methods).await?;
    if version != VERSION {
        return Ok(());
    }
    let wanted = if credentials.is_some() { USER_PASSWORD } else { NO_AUTH };
    if !methods.contains(&wanted) {
        return client.write_all(&[VERSION, NO_ACCEPTABLE]).await;
    }
    client.write_all(&[VERSION, wanted]).await?;
    if let Some((user, password)) = credentials {
        let [_, user_len] = read_array(&mut client).await?;
        let given_user = read_vec(&mut client, user_len).await?;
        let [password_len] = read_array(&mut client).await?;
        let given_password = read_vec(&mut client, password_len).await?;
        let ok = given_user == user.as_bytes() && given_password == password.as_bytes();
        client.write_all(&[1, if ok { 0 } else { 1 }]).await?;
        if !ok {
            return Ok(());
        }
    }
    let [_, command, _, address_type] = read_array(&mut client).await?;
    let host = match address_type {
        1 => Ipv4Addr::from(read_array::<4>(&mut client).await?).to_string(),
        3 => {
            let [len] = read_array(&mut client).await?;
            String::from_utf8_lossy(&read_vec(&mut client, len).await?).into_owned()
        }
        4 => Ipv6Addr::from(read_array::<16>(&mut client).await?).to_string(),
        _ => return reply(&mut client, 8).await, // address type not supported
    };
    let port = u16::from_be_bytes(read_array(&mut client).await?);
    if command != 1 {
        return reply(&mut client, 7).await; // command not supported
    }
    log.lock().unwrap_or_else(|e| e.into_inner()).push(format!("{host}:{port}"));
    let target = match TcpStream::connect((host.as_str(), port)).await {
        Ok(target) => target,
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => return reply(&mut client, 5).await,
        Err(_) => return reply(&mut client, 4).await, // host unreachable
    };
    let _ = target.set_nodelay(true);
    reply(&mut client, 0).await?;
    let mut target = target;
    tokio::io::copy_bidirectional(&mut client, &mut target).await.map(|_| ())
}

/// A reply with `code` and a zero IPv4 bound address.
async fn reply(client: &mut TcpStream, code: u8) -> io::Result<()> {
    client.write_all(&[VERSION, code, 0, 1, 0, 0, 0, 0, 0, 0]).await
}

async fn read_array<const N: usize>(stream: &mut TcpStream) -> io::Result<[u8; N]> {
    let mut bytes = [0; N];
    stream.read_exact(&mut bytes).await?;
    Ok(bytes)
}

async fn read_vec(stream: &mut TcpStream, len: u8) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0; len as usize];
    stream.read_exact(&mut bytes).await?;
    Ok(bytes)
}
