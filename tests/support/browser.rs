//! The user's browser, as far as an OAuth test needs one: opens a url and follows its
//! redirects (plain http on 127.0.0.1: the authorization server, then the client's loopback
//! listener).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use url::Url;

/// One page: its status code, its `Location` and its body.
pub struct Page {
    pub status: u16,
    pub location: Option<String>,
    pub body: String,
}

/// GETs `url`, following up to 5 redirects; the status codes of every hop and the last page.
pub fn open(url: &str) -> (Vec<u16>, Page) {
    let mut url = Url::parse(url).expect("an absolute url");
    let mut hops = Vec::new();
    for _ in 0..6 {
        let page = get(&url);
        hops.push(page.status);
        match (&page.location, page.status) {
            (Some(location), 301..=308) => url = url.join(location).expect("a valid Location"),
            _ => return (hops, page),
        }
    }
    panic!("more than 5 redirects: {hops:?}");
}

pub fn get(url: &Url) -> Page {
    let host = url.host_str().expect("a host");
    let port = url.port_or_known_default().expect("a port");
    let mut stream = TcpStream::connect((host, port)).expect("the page's server listens");
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    write!(stream, "GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\nAccept: text/html\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("the page is read");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split_whitespace().nth(1)).and_then(|c| c.parse().ok()).unwrap_or(0);
    let location = lines.find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("location").then(|| value.trim().to_owned())
    });
    Page { status, location, body: body.to_owned() }
}
