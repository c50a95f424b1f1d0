//! A real HTTP proxy for the tests: Debian's tinyproxy, started per test on a free port with
//! its own configuration (optionally demanding basic auth), its log read back to see what it
//! forwarded.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Tinyproxy {
    child: Child,
    pub port: u16,
    log: Arc<Mutex<Vec<String>>>,
    dir: std::path::PathBuf,
}

impl Tinyproxy {
    pub fn start(credentials: Option<(&str, &str)>) -> Tinyproxy {
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("vi-tinyproxy-{port}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut config = format!("Port {port}\nListen 127.0.0.1\nTimeout 30\nLogLevel Connect\nMaxClients 50\n");
        if let Some((user, password)) = credentials {
            config.push_str(&format!("BasicAuth {user} {password}\n"));
        }
        let path = dir.join("tinyproxy.conf");
        std::fs::write(&path, config).unwrap();
        let mut child = Command::new("tinyproxy")
            .args(["-d", "-c"])
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("tinyproxy is installed (apt-get install tinyproxy; .ci/run does it)");
        let log = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().unwrap();
        let lines = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(10), "tinyproxy did not start listening on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Tinyproxy { child, port, log, dir }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The request lines tinyproxy logged ("GET http://…", "CONNECT host:port").
    pub fn requests(&self) -> Vec<String> {
        let log = self.log.lock().unwrap();
        log.iter().filter_map(|l| l.split_once("): ").map(|(_, r)| r.to_owned())).filter(|r| r.contains(" HTTP/")).collect()
    }
}

impl Drop for Tinyproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A port nothing listens on now (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}
