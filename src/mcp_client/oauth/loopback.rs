//! The loopback redirect listener (RFC 8252 §7.3): `http://127.0.0.1:<port>/callback` receives
//! the browser's redirect from the authorization server with the code (or the refusal). Each
//! browser connection is served on its own task, so a silent pre-connection never holds up the
//! real redirect; requests are parsed with `httparse`. The answer's `iss` (RFC 9207) is
//! checked here too (SPEC §I.3.6), so that the page the browser shows tells the truth.

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

const PATH: &str = "/callback";
/// A browser connection must deliver its request head within this time and size.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const REQUEST_LIMIT: usize = 16 * 1024;

pub struct Loopback {
    listener: TcpListener,
    pub redirect_uri: String,
}

/// What one browser request said.
#[derive(Debug, PartialEq, Eq)]
pub enum Redirect {
    /// Not complete yet: read more.
    Incomplete,
    /// Not a request for the callback (a favicon, garbage): answered 404 and ignored.
    Other,
    /// The callback's query parameters.
    Callback(Vec<(String, String)>),
}

/// The authorization server an answer must come from (RFC 9207): its issuer, and whether its
/// metadata says every answer names it (`authorization_response_iss_parameter_supported`).
pub struct Issuer<'a> {
    pub issuer: &'a str,
    pub required: bool,
}

impl Issuer<'_> {
    /// A present `iss` must equal the issuer, compared as strings (RFC 9207 §2.4); a missing
    /// one is refused where the server said it sends it. Either refusal ends the flow before
    /// any token request, so a code from a mixed-up server is never spent.
    pub fn check(&self, iss: Option<&str>) -> Result<(), String> {
        match iss {
            Some(iss) if iss == self.issuer => Ok(()),
            Some(iss) => {
                let iss: String = iss.chars().take(300).collect();
                Err(format!(
                    "iss mismatch (RFC 9207): the authorization response names the issuer \"{iss}\", not {}; no token was requested",
                    self.issuer
                ))
            }
            None if self.required => Err(format!(
                "iss missing (RFC 9207): {} says its authorization responses name it, this one does not; no token was requested",
                self.issuer
            )),
            None => Ok(()),
        }
    }
}

impl Loopback {
    /// Listens on 127.0.0.1:`port` (0: a port the system picks).
    pub async fn bind(port: u16) -> std::io::Result<Loopback> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let port = listener.local_addr()?.port();
        Ok(Loopback { listener, redirect_uri: format!("http://127.0.0.1:{port}{PATH}") })
    }

    /// Waits up to `limit` for the redirect whose `state` is ours: Ok(the code), or Err with
    /// the authorization server's refusal. Redirects with another state are answered as
    /// failures and do not end the wait (RFC 6749 §10.12); one of our state from another
    /// issuer than `issuer` ends it with that failure.
    pub async fn wait(self, state: &str, issuer: &Issuer<'_>, limit: Duration) -> Result<String, String> {
        let (sender, mut received) = mpsc::channel::<(Vec<(String, String)>, TcpStream)>(4);
        let deadline = tokio::time::Instant::now() + limit;
        let accepting = async {
            loop {
                let Ok((stream, _)) = self.listener.accept().await else { continue };
                let sender = sender.clone();
                tokio::spawn(async move {
                    if let Ok(Some((params, stream))) = tokio::time::timeout(REQUEST_TIMEOUT, read_callback(stream)).await {
                        let _ = sender.send((params, stream)).await;
                    }
                });
            }
        };
        tokio::pin!(accepting);
        loop {
            let (params, mut stream) = tokio::select! {
                () = &mut accepting => unreachable!("the accept loop never ends"),
                Some(callback) = received.recv() => callback,
                () = tokio::time::sleep_until(deadline) => {
                    return Err(format!("the authorization was not completed in the browser within {} s", limit.as_secs()));
                }
            };
            let get = |key: &str| params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
            if get("state") != Some(state) {
                respond(&mut stream, "400 Bad Request", "This authorization answer does not belong to the request the application made.").await;
                continue;
            }
            if let Err(reason) = issuer.check(get("iss")) {
                respond(&mut stream, "400 Bad Request", "This authorization answer did not come from the expected authorization server.").await;
                return Err(reason);
            }
            if let Some(error) = get("error") {
                respond(&mut stream, "200 OK", "The authorization was refused. You can close this window.").await;
                let description: String = get("error_description").unwrap_or_default().chars().take(300).collect();
                return Err(match description.is_empty() {
                    true => format!("the authorization server refused: {error}"),
                    false => format!("the authorization server refused: {error} ({description})"),
                });
            }
            let Some(code) = get("code").filter(|c| !c.is_empty()) else {
                respond(&mut stream, "400 Bad Request", "The authorization answer has no code.").await;
                continue;
            };
            respond(&mut stream, "200 OK", "Authorization complete. You can close this window and return to the application.").await;
            return Ok(code.to_owned());
        }
    }
}

/// Reads one request head; the callback's parameters with the stream to answer on, or None
/// after answering anything else.
async fn read_callback(mut stream: TcpStream) -> Option<(Vec<(String, String)>, TcpStream)> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 2048];
    loop {
        let n = stream.read(&mut buffer).await.ok().filter(|&n| n > 0)?;
        head.extend_from_slice(&buffer[..n]);
        match read_redirect(&head) {
            Redirect::Incomplete if head.len() <= REQUEST_LIMIT => continue,
            Redirect::Callback(params) => return Some((params, stream)),
            Redirect::Incomplete | Redirect::Other => {
                respond(&mut stream, "404 Not Found", "Not found.").await;
                return None;
            }
        }
    }
}

/// What the bytes of a browser request say (the `oauth_inputs` fuzz target drives this).
pub fn read_redirect(head: &[u8]) -> Redirect {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(head) {
        Ok(httparse::Status::Partial) => Redirect::Incomplete,
        Err(_) => Redirect::Other,
        Ok(httparse::Status::Complete(_)) => {
            let target = request.path.unwrap_or_default();
            let (path, query) = target.split_once('?').unwrap_or((target, ""));
            if request.method != Some("GET") || path != PATH {
                return Redirect::Other;
            }
            Redirect::Callback(url::form_urlencoded::parse(query.as_bytes()).into_owned().collect())
        }
    }
}

async fn respond(stream: &mut TcpStream, status: &str, text: &str) {
    let body = format!("<!doctype html><meta charset=\"utf-8\"><title>Authorization</title><p>{text}</p>\n");
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(REQUEST_TIMEOUT, stream.write_all(response.as_bytes())).await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANY: Issuer<'static> = Issuer { issuer: "http://as", required: false };

    #[test]
    fn iss_must_be_the_issuer_and_present_where_promised() {
        let required = Issuer { issuer: "http://127.0.0.1:5/", required: true };
        assert!(required.check(Some("http://127.0.0.1:5/")).is_ok());
        assert!(required.check(Some("http://127.0.0.1:5")).unwrap_err().starts_with("iss mismatch (RFC 9207)"));
        assert!(required.check(None).unwrap_err().starts_with("iss missing (RFC 9207)"));
        let optional = Issuer { required: false, ..required };
        assert!(optional.check(None).is_ok());
        assert!(optional.check(Some("https://evil.example/")).unwrap_err().contains("\"https://evil.example/\""));
    }

    #[tokio::test]
    async fn an_answer_from_another_issuer_ends_the_wait_without_a_code() {
        let loopback = Loopback::bind(0).await.unwrap();
        let port = loopback.listener.local_addr().unwrap().port();
        let browser = tokio::spawn(async move {
            let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            s.write_all(b"GET /callback?code=c&state=st&iss=http%3A%2F%2Fevil HTTP/1.1\r\n\r\n").await.unwrap();
            let mut answer = String::new();
            s.read_to_string(&mut answer).await.unwrap();
            answer.lines().next().unwrap_or_default().to_owned()
        });
        let got = loopback.wait("st", &Issuer { issuer: "http://as", required: false }, Duration::from_secs(10)).await;
        assert!(got.unwrap_err().starts_with("iss mismatch"));
        assert_eq!(browser.await.unwrap(), "HTTP/1.1 400 Bad Request");
    }

    #[test]
    fn reads_the_callback_and_nothing_else() {
        let got = read_redirect(b"GET /callback?code=a%2Fb&state=s HTTP/1.1\r\nHost: x\r\n\r\n");
        assert_eq!(got, Redirect::Callback(vec![("code".into(), "a/b".into()), ("state".into(), "s".into())]));
        assert_eq!(read_redirect(b"GET /callback?code=a HTTP/1.1\r\nHost"), Redirect::Incomplete);
        assert_eq!(read_redirect(b"GET /favicon.ico HTTP/1.1\r\n\r\n"), Redirect::Other);
        assert_eq!(read_redirect(b"POST /callback HTTP/1.1\r\n\r\n"), Redirect::Other);
        assert_eq!(read_redirect(b"\x00\xff garbage\r\n\r\n"), Redirect::Other);
    }

    #[tokio::test]
    async fn the_wait_ends_with_the_code_of_our_state_only() {
        let loopback = Loopback::bind(0).await.unwrap();
        let uri = loopback.redirect_uri.clone();
        let browser = tokio::spawn(async move {
            let port: u16 = uri.rsplit(':').next().unwrap().trim_end_matches(PATH).parse().unwrap();
            let mut answers = Vec::new();
            for target in ["/favicon.ico", "/callback?code=forged&state=other", "/callback?code=real&state=ours"] {
                let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
                s.write_all(format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes()).await.unwrap();
                let mut answer = String::new();
                s.read_to_string(&mut answer).await.unwrap();
                answers.push(answer.lines().next().unwrap_or_default().to_owned());
            }
            answers
        });
        assert_eq!(loopback.wait("ours", &ANY, Duration::from_secs(10)).await, Ok("real".to_owned()));
        assert_eq!(browser.await.unwrap(), ["HTTP/1.1 404 Not Found", "HTTP/1.1 400 Bad Request", "HTTP/1.1 200 OK"]);
    }

    #[tokio::test]
    async fn a_refusal_or_silence_ends_the_wait_with_a_reason() {
        let loopback = Loopback::bind(0).await.unwrap();
        let port = loopback.listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            let request = "GET /callback?error=access_denied&error_description=no%20thanks&state=st HTTP/1.1\r\n\r\n";
            s.write_all(request.as_bytes()).await.unwrap();
        });
        let refused = loopback.wait("st", &ANY, Duration::from_secs(10)).await;
        assert_eq!(refused, Err("the authorization server refused: access_denied (no thanks)".to_owned()));
        let silent = Loopback::bind(0).await.unwrap().wait("st", &ANY, Duration::from_millis(50)).await;
        assert!(silent.unwrap_err().contains("not completed in the browser within 0 s"));
    }
}
