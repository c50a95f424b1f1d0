//! Just enough HTTP/1.1 for a test server, written by hand on a tokio `TcpStream`.
//!
//! Requests: request line, headers, and a body framed by `Content-Length` or by
//! `Transfer-Encoding: chunked` (with extensions and trailers), plus `Expect: 100-continue`.
//! Responses: a head builder and a chunked body writer. Connections are persistent (HTTP/1.1
//! keep-alive) unless the client asks otherwise; see `connection.rs`.

use std::io::{self, Write};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::script::Encoding;

/// Largest request head accepted (request line plus headers).
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Largest request body accepted; chat requests are far smaller.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// Largest chunk-size or trailer line in a chunked request body.
const MAX_LINE_BYTES: usize = 8 * 1024;

/// A fully read request.
#[derive(Debug)]
pub(crate) struct Request {
    pub method: String,
    /// The request target exactly as sent (path and query).
    pub target: String,
    /// `true` for HTTP/1.1, `false` for HTTP/1.0.
    pub http11: bool,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Which accepted connection carried it (0, 1, … in accept order).
    pub connection: u64,
}

impl Request {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.header_values(name).next()
    }

    /// Every value of the headers of that name (case-insensitive), in order.
    fn header_values<'a, 'n>(
        &'a self,
        name: &'n str,
    ) -> impl Iterator<Item = &'a str> + use<'a, 'n> {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The path without query, with any `scheme://authority` of an absolute-form target removed.
    pub fn path(&self) -> &str {
        let target = match self.target.find("://") {
            Some(scheme_end) => {
                let rest = &self.target[scheme_end + 3..];
                rest.find('/').map_or("/", |slash| &rest[slash..])
            }
            None => self.target.as_str(),
        };
        target.split(['?', '#']).next().unwrap_or(target)
    }

    /// Whether the client is willing to send another request on this connection.
    pub fn keep_alive(&self) -> bool {
        let connection = self.header("connection").unwrap_or("");
        let has = |token: &str| {
            connection
                .split(',')
                .any(|t| t.trim().eq_ignore_ascii_case(token))
        };
        if self.http11 {
            !has("close")
        } else {
            has("keep-alive")
        }
    }
}

/// Why a request could not be read; each maps to the status the server answers with.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The connection failed or ended mid-request: nothing can be answered.
    Disconnected,
    /// 400 Bad Request.
    Malformed(String),
    /// 431 Request Header Fields Too Large.
    HeadTooLarge,
    /// 413 Content Too Large.
    BodyTooLarge,
}

impl From<io::Error> for ReadError {
    fn from(_: io::Error) -> Self {
        ReadError::Disconnected
    }
}

/// Reads requests from one connection, keeping bytes that arrived ahead of time (pipelining).
#[derive(Default)]
pub(crate) struct RequestReader {
    buf: Vec<u8>,
}

impl RequestReader {
    /// Reads the next request; `Ok(None)` when the client closed the connection between requests.
    pub async fn read_request(
        &mut self,
        stream: &mut TcpStream,
    ) -> Result<Option<Request>, ReadError> {
        let head_len = loop {
            // RFC 9112 §2.2: ignore empty lines received before a request line.
            let blank = self
                .buf
                .iter()
                .take_while(|b| matches!(b, b'\r' | b'\n'))
                .count();
            self.buf.drain(..blank);
            if let Some(end) = find_head_end(&self.buf) {
                break end;
            }
            if self.buf.len() > MAX_HEAD_BYTES {
                return Err(ReadError::HeadTooLarge);
            }
            if !self.fill(stream).await? {
                return if self.buf.is_empty() {
                    Ok(None)
                } else {
                    Err(eof().into())
                };
            }
        };
        if head_len > MAX_HEAD_BYTES {
            return Err(ReadError::HeadTooLarge);
        }
        let head: Vec<u8> = self.buf.drain(..head_len).collect();
        let mut request = parse_head(&String::from_utf8_lossy(&head))?;
        let framing = body_framing(&request)?;
        if request.http11
            && framing != Framing::Empty
            && request
                .header("expect")
                .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
        {
            stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await?;
        }
        request.body = match framing {
            Framing::Empty => Vec::new(),
            Framing::Length(length) => self.take_exact(stream, length).await?,
            Framing::Chunked => self.read_chunked(stream).await?,
        };
        Ok(Some(request))
    }

    /// Reads more bytes into the buffer; `false` at end of stream.
    async fn fill(&mut self, stream: &mut TcpStream) -> io::Result<bool> {
        self.buf.reserve(16 * 1024);
        Ok(stream.read_buf(&mut self.buf).await? > 0)
    }

    async fn take_exact(&mut self, stream: &mut TcpStream, length: usize) -> io::Result<Vec<u8>> {
        while self.buf.len() < length {
            if !self.fill(stream).await? {
                return Err(eof());
            }
        }
        Ok(self.buf.drain(..length).collect())
    }

    /// One line of a chunked body, without its line end (CRLF, or a lone LF, leniently).
    async fn read_line(&mut self, stream: &mut TcpStream) -> Result<String, ReadError> {
        loop {
            if let Some(newline) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=newline).collect();
                let line = line.strip_suffix(b"\n").unwrap_or(&line);
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                return Ok(String::from_utf8_lossy(line).into_owned());
            }
            if self.buf.len() > MAX_LINE_BYTES {
                return Err(ReadError::Malformed("chunk line too long".into()));
            }
            if !self.fill(stream).await? {
                return Err(eof().into());
            }
        }
    }

    /// Decodes a `Transfer-Encoding: chunked` body (RFC 9112 §7.1), discarding extensions and
    /// trailers.
    async fn read_chunked(&mut self, stream: &mut TcpStream) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            let line = self.read_line(stream).await?;
            let size_text = line.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16)
                .ok()
                .filter(|_| {
                    !size_text.is_empty() && size_text.bytes().all(|b| b.is_ascii_hexdigit())
                })
                .ok_or_else(|| ReadError::Malformed(format!("bad chunk size line {line:?}")))?;
            if size == 0 {
                while !self.read_line(stream).await?.is_empty() {}
                return Ok(body);
            }
            if body.len().saturating_add(size) > MAX_BODY_BYTES {
                return Err(ReadError::BodyTooLarge);
            }
            body.extend(self.take_exact(stream, size).await?);
            if !self.read_line(stream).await?.is_empty() {
                return Err(ReadError::Malformed(
                    "chunk data longer than its size".into(),
                ));
            }
        }
    }
}

fn eof() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "connection closed mid-request",
    )
}

/// Length of the head including its terminating empty line (CRLF CRLF, or LF LF leniently).
fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .find_map(|(i, _)| match &buf[i + 1..] {
            [b'\n', ..] => Some(i + 2),
            [b'\r', b'\n', ..] => Some(i + 3),
            _ => None,
        })
}

fn parse_head(head: &str) -> Result<Request, ReadError> {
    let malformed = |what: &str| ReadError::Malformed(what.to_owned());
    let mut lines = head.lines().take_while(|line| !line.is_empty());
    let request_line = lines
        .next()
        .ok_or_else(|| malformed("missing request line"))?;
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(malformed("request line is not METHOD TARGET VERSION"));
    };
    if method.is_empty()
        || !method
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    {
        return Err(malformed("bad method"));
    }
    if target.is_empty() {
        return Err(malformed("empty request target"));
    }
    let http11 = match version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        _ => return Err(malformed("unsupported HTTP version")),
    };
    let headers = lines
        .map(|line| {
            if line.starts_with([' ', '\t']) {
                return Err(malformed("obsolete header line folding"));
            }
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| malformed("header line without a colon"))?;
            if name.is_empty() || name.contains([' ', '\t']) {
                return Err(malformed("bad header name"));
            }
            Ok((name.to_owned(), value.trim_matches([' ', '\t']).to_owned()))
        })
        .collect::<Result<_, _>>()?;
    Ok(Request {
        method: method.to_owned(),
        target: target.to_owned(),
        http11,
        headers,
        body: Vec::new(),
        connection: 0,
    })
}

#[derive(Debug, PartialEq)]
enum Framing {
    Empty,
    Length(usize),
    Chunked,
}

/// How the request body is delimited (RFC 9112 §6.3): Transfer-Encoding wins over
/// Content-Length; without either there is no body.
fn body_framing(request: &Request) -> Result<Framing, ReadError> {
    let codings: Vec<&str> = request
        .header_values("transfer-encoding")
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    if let Some(last) = codings.last() {
        return if last.eq_ignore_ascii_case("chunked") {
            Ok(Framing::Chunked)
        } else {
            Err(ReadError::Malformed(
                "request transfer coding does not end with chunked".into(),
            ))
        };
    }
    let mut length = None;
    for value in request
        .header_values("content-length")
        .flat_map(|v| v.split(','))
        .map(str::trim)
    {
        let parsed = value
            .parse::<usize>()
            .ok()
            .filter(|_| value.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| ReadError::Malformed(format!("bad Content-Length {value:?}")))?;
        if length.is_some_and(|seen| seen != parsed) {
            return Err(ReadError::Malformed(
                "conflicting Content-Length values".into(),
            ));
        }
        length = Some(parsed);
    }
    match length {
        Some(length) if length > MAX_BODY_BYTES => Err(ReadError::BodyTooLarge),
        Some(0) | None => Ok(Framing::Empty),
        Some(length) => Ok(Framing::Length(length)),
    }
}

/// The standard reason phrase of a status (RFC 9110 §15 plus 429), or "Unknown".
pub(crate) fn reason_phrase(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        206 => "Partial Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        413 => "Content Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

/// A response head: status line, headers, empty line.
pub(crate) fn response_head(status: u16, reason: &str, headers: &[(String, String)]) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status} {reason}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.into_bytes()
}

/// Size of the HTTP chunks a [`ChunkedWriter`] emits when it is not flushed earlier.
const CHUNK_TARGET_BYTES: usize = 32 * 1024;

/// Writes a `Transfer-Encoding: chunked` body. Bytes are buffered and emitted as one HTTP chunk
/// per [`flush`](Self::flush) (or per 32 KiB), so a long generated stream costs a bounded
/// amount of memory and few system calls, while scripted events can still be sent one by one.
///
/// With an encoding, the body is compressed as one stream and every flush is a sync flush, so
/// each chunk decodes on its own arrival — the way a compressing proxy streams events.
pub(crate) struct ChunkedWriter<'a> {
    stream: &'a mut TcpStream,
    pending: Vec<u8>,
    frame: Vec<u8>,
    compressor: Option<Compressor>,
}

enum Compressor {
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
    Deflate(flate2::write::ZlibEncoder<Vec<u8>>),
    Brotli(Box<brotli::CompressorWriter<Vec<u8>>>),
    Zstd(zstd::stream::write::Encoder<'static, Vec<u8>>),
}

impl Compressor {
    fn new(encoding: Encoding) -> io::Result<Compressor> {
        let level = flate2::Compression::default();
        Ok(match encoding {
            Encoding::Gzip => Compressor::Gzip(flate2::write::GzEncoder::new(Vec::new(), level)),
            Encoding::Deflate => Compressor::Deflate(flate2::write::ZlibEncoder::new(Vec::new(), level)),
            Encoding::Brotli => Compressor::Brotli(Box::new(brotli::CompressorWriter::new(Vec::new(), 4096, 5, 22))),
            Encoding::Zstd => Compressor::Zstd(zstd::stream::write::Encoder::new(Vec::new(), 3)?),
        })
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Compressor::Gzip(e) => e,
            Compressor::Deflate(e) => e,
            Compressor::Brotli(e) => e.as_mut(),
            Compressor::Zstd(e) => e,
        }
    }

    /// Everything compressed so far, after a sync flush.
    fn take_flushed(&mut self) -> io::Result<Vec<u8>> {
        self.writer().flush()?;
        Ok(std::mem::take(match self {
            Compressor::Gzip(e) => e.get_mut(),
            Compressor::Deflate(e) => e.get_mut(),
            Compressor::Brotli(e) => e.get_mut(),
            Compressor::Zstd(e) => e.get_mut(),
        }))
    }

    fn finish(self) -> io::Result<Vec<u8>> {
        match self {
            Compressor::Gzip(e) => e.finish(),
            Compressor::Deflate(e) => e.finish(),
            Compressor::Brotli(e) => Ok(e.into_inner()),
            Compressor::Zstd(e) => e.finish(),
        }
    }
}

/// `body` compressed whole.
pub(crate) fn compress(encoding: Encoding, body: &[u8]) -> io::Result<Vec<u8>> {
    let mut compressor = Compressor::new(encoding)?;
    compressor.writer().write_all(body)?;
    compressor.finish()
}

impl<'a> ChunkedWriter<'a> {
    pub fn new(stream: &'a mut TcpStream, encoding: Option<Encoding>) -> io::Result<Self> {
        Ok(ChunkedWriter {
            stream,
            pending: Vec::with_capacity(CHUNK_TARGET_BYTES),
            frame: Vec::new(),
            compressor: encoding.map(Compressor::new).transpose()?,
        })
    }

    pub async fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        match &mut self.compressor {
            Some(compressor) => compressor.writer().write_all(bytes)?,
            None => self.pending.extend_from_slice(bytes),
        }
        if self.pending.len() >= CHUNK_TARGET_BYTES {
            self.flush().await
        } else {
            Ok(())
        }
    }

    /// Sends everything buffered as one chunk (nothing when the buffer is empty: a zero-size
    /// chunk would end the body).
    pub async fn flush(&mut self) -> io::Result<()> {
        if let Some(compressor) = &mut self.compressor {
            let flushed = compressor.take_flushed()?;
            self.pending.extend_from_slice(&flushed);
        }
        if self.pending.is_empty() {
            return Ok(());
        }
        self.frame.clear();
        self.frame
            .extend_from_slice(format!("{:X}\r\n", self.pending.len()).as_bytes());
        self.frame.extend_from_slice(&self.pending);
        self.frame.extend_from_slice(b"\r\n");
        self.pending.clear();
        self.stream.write_all(&self.frame).await
    }

    /// Flushes and writes the last chunk, completing the body.
    pub async fn finish(mut self) -> io::Result<()> {
        if let Some(compressor) = self.compressor.take() {
            let rest = compressor.finish()?;
            self.pending.extend_from_slice(&rest);
        }
        self.flush().await?;
        self.stream.write_all(b"0\r\n\r\n").await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &str) -> Request {
        parse_head(text).unwrap()
    }

    #[test]
    fn head_end_accepts_crlf_and_lf() {
        assert_eq!(
            find_head_end(b"GET / HTTP/1.1\r\nA: b\r\n\r\nbody"),
            Some(24)
        );
        assert_eq!(find_head_end(b"GET / HTTP/1.1\nA: b\n\nbody"), Some(21));
        assert_eq!(find_head_end(b"GET / HTTP/1.1\r\nA: b\r\n"), None);
    }

    #[test]
    fn head_is_parsed_into_method_target_and_headers() {
        let request = head("POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: h\r\nX-Two:  a b \r\n");
        assert_eq!(request.method, "POST");
        assert_eq!(request.target, "/v1/chat/completions?x=1");
        assert_eq!(request.path(), "/v1/chat/completions");
        assert_eq!(request.header("x-two"), Some("a b"));
        assert!(request.keep_alive());
        assert!(!head("GET / HTTP/1.1\r\nConnection: Close\r\n").keep_alive());
        assert!(!head("GET / HTTP/1.0\r\n").keep_alive());
        assert_eq!(
            head("GET http://h:1/v1/models?q HTTP/1.1\r\n").path(),
            "/v1/models"
        );
    }

    #[test]
    fn malformed_heads_are_rejected() {
        for text in [
            "GET /\r\n",
            "GET / HTTP/2\r\n",
            "GET / HTTP/1.1\r\nNoColon\r\n",
            "GET / HTTP/1.1\r\n folded\r\n",
        ] {
            assert!(
                matches!(parse_head(text), Err(ReadError::Malformed(_))),
                "{text:?}"
            );
        }
    }

    #[test]
    fn framing_follows_rfc_9112() {
        let framing = |text: &str| body_framing(&head(text));
        assert_eq!(framing("POST / HTTP/1.1\r\n").unwrap(), Framing::Empty);
        assert_eq!(
            framing("POST / HTTP/1.1\r\nContent-Length: 5\r\n").unwrap(),
            Framing::Length(5)
        );
        assert_eq!(
            framing("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: gzip, Chunked\r\n")
                .unwrap(),
            Framing::Chunked
        );
        assert!(framing("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n").is_err());
        assert!(framing("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n").is_err());
        assert!(framing("POST / HTTP/1.1\r\nContent-Length: +5\r\n").is_err());
    }

    #[test]
    fn response_head_is_well_formed() {
        let head = response_head(429, reason_phrase(429), &[("A".into(), "b".into())]);
        assert_eq!(head, b"HTTP/1.1 429 Too Many Requests\r\nA: b\r\n\r\n");
    }
}
