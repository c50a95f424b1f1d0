//! A tiny, strict HTTP/1.1 client over `std::net::TcpStream` for the tests: it checks the
//! server's framing byte by byte instead of forgiving it like a real client would.

#![allow(dead_code)] // each test file uses its own subset

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

/// Every blocking read or write in the tests gives up after this long, so nothing can hang.
pub const TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub reason: String,
    pub headers: Vec<(String, String)>,
    /// The decoded body.
    pub body: Vec<u8>,
    /// The body as it was on the wire (chunk framing included).
    pub wire_body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("UTF-8 body")
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }
}

pub fn connect(port: u16) -> BufReader<TcpStream> {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    stream.set_write_timeout(Some(TIMEOUT)).unwrap();
    BufReader::new(stream)
}

/// Writes a request with a `Content-Length` body (when non-empty).
pub fn send(
    conn: &mut BufReader<TcpStream>,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) {
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() {
        request.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    request.push_str("\r\n");
    let stream = conn.get_mut();
    stream.write_all(request.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
}

/// One request on a fresh connection that is closed afterwards.
pub fn request(port: u16, method: &str, path: &str, body: &[u8]) -> Response {
    let mut conn = connect(port);
    send(&mut conn, method, path, &[("Connection", "close")], body);
    read_response(&mut conn).expect("response")
}

pub fn post_chat(port: u16, body: &Value) -> Response {
    request(
        port,
        "POST",
        "/v1/chat/completions",
        body.to_string().as_bytes(),
    )
}

fn read_line(conn: &mut BufReader<TcpStream>) -> io::Result<String> {
    let mut line = Vec::new();
    conn.read_until(b'\n', &mut line)?;
    let text = String::from_utf8(line).map_err(|_| io::Error::other("non-UTF-8 line"))?;
    text.strip_suffix("\r\n")
        .map(str::to_owned)
        .ok_or_else(|| io::Error::other(format!("line without CRLF: {text:?}")))
}

/// A response's status line and headers.
pub struct Head {
    pub status: u16,
    pub reason: String,
    pub headers: Vec<(String, String)>,
}

/// Reads the status line and headers.
pub fn read_head(conn: &mut BufReader<TcpStream>) -> io::Result<Head> {
    let status_line = read_line(conn)?;
    let mut parts = status_line.splitn(3, ' ');
    assert_eq!(
        parts.next(),
        Some("HTTP/1.1"),
        "status line {status_line:?}"
    );
    let status = parts
        .next()
        .and_then(|s| s.parse().ok())
        .expect("status code");
    let reason = parts.next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    loop {
        let line = read_line(conn)?;
        if line.is_empty() {
            return Ok(Head {
                status,
                reason,
                headers,
            });
        }
        let (name, value) = line.split_once(": ").expect("header line");
        headers.push((name.to_owned(), value.to_owned()));
    }
}

/// Reads one response, decoding the body by its framing; a chunked body must be exactly
/// well-formed (`HEX CRLF data CRLF` ... `0 CRLF CRLF`).
pub fn read_response(conn: &mut BufReader<TcpStream>) -> io::Result<Response> {
    let Head {
        status,
        reason,
        headers,
    } = read_head(conn)?;
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    let mut wire_body = Vec::new();
    if header("transfer-encoding").as_deref() == Some("chunked") {
        loop {
            let size_line = read_line(conn)?;
            wire_body.extend_from_slice(format!("{size_line}\r\n").as_bytes());
            assert!(
                !size_line.is_empty() && size_line.bytes().all(|b| b.is_ascii_hexdigit()),
                "size line {size_line:?}"
            );
            let size = usize::from_str_radix(&size_line, 16).unwrap();
            let mut data = vec![0; size + 2];
            conn.read_exact(&mut data)?;
            wire_body.extend_from_slice(&data);
            if size == 0 {
                assert_eq!(
                    data, b"\r\n",
                    "last chunk must be followed by an empty line"
                );
                break;
            }
            assert_eq!(
                &data[size..],
                b"\r\n",
                "chunk data must be followed by CRLF"
            );
            body.extend_from_slice(&data[..size]);
        }
    } else if let Some(length) = header("content-length") {
        body = vec![0; length.parse().expect("Content-Length")];
        conn.read_exact(&mut body)?;
        wire_body = body.clone();
    } else {
        conn.read_to_end(&mut body)?;
        wire_body = body.clone();
    }
    Ok(Response {
        status,
        reason,
        headers,
        body,
        wire_body,
    })
}

/// Reads until the connection ends; returns what arrived and how it ended.
pub fn read_until_end(conn: &mut BufReader<TcpStream>) -> (Vec<u8>, io::Result<()>) {
    let mut received = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match conn.read(&mut buf) {
            Ok(0) => return (received, Ok(())),
            Ok(n) => received.extend_from_slice(&buf[..n]),
            Err(e) => return (received, Err(e)),
        }
    }
}

/// The `data:` payloads of an SSE body that uses `\n` line ends.
pub fn data_payloads(body: &str) -> Vec<String> {
    body.split("\n\n")
        .filter_map(|event| event.strip_prefix("data: "))
        .map(str::to_owned)
        .collect()
}
