//! The network as a host configures it (SPEC §H.1): proxies (tinyproxy, our SOCKS5, the
//! environment, the C ABI, a host hook), TLS (a test CA, wrong host, self-signed, client
//! certificates, `SSL_CERT_FILE`), redirects, compressed streams and answers that are not
//! answers. Only 127.0.0.1.
//!
//! Proxy and TLS settings are process-wide, so every test here holds `NETWORK` and leaves the
//! defaults as it found them (this file is its own test binary: other tests never see them).

mod support;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use support::pki::Pki;
use support::tinyproxy::{Tinyproxy, free_port};
use support::*;
use vi_scripted_server::{ScriptedServer, Socks5Proxy, Step, chat_chunk_content, done, raw, sleep_ms};
use visindigo_agent::{Event, HostNetwork, Message, NetworkSettings, Role, set_host_network, update_network_defaults};

static NETWORK: Mutex<()> = Mutex::new(());

/// Exclusive use of the process-wide network settings; restores the defaults when dropped.
struct Exclusive(#[allow(dead_code)] MutexGuard<'static, ()>);

fn exclusive() -> Exclusive {
    Exclusive(NETWORK.lock().unwrap_or_else(|e| e.into_inner()))
}

impl Drop for Exclusive {
    fn drop(&mut self) {
        set_host_network(None);
        update_network_defaults(|s| {
            *s = NetworkSettings::default();
            Ok(())
        })
        .unwrap();
    }
}

fn set_proxy(url: &str) {
    update_network_defaults(|s| s.set_proxy(Some(url))).unwrap();
}

fn add_ca(pem: &str) {
    update_network_defaults(|s| s.add_ca_pem(pem)).unwrap();
}

/// One run of a dialog over `models`; its events.
fn run(models: Vec<visindigo_agent::Model>) -> Vec<Event> {
    let (_c, d, rec) = setup(models);
    d.append_message(Message::new(Role::User, "hi"));
    rec.take();
    d.run();
    rec.wait_finished();
    rec.take()
}

fn failure(events: &[Event]) -> Option<String> {
    events.iter().find_map(|e| match e {
        Event::RunFailed(m) => Some(m.clone()),
        _ => None,
    })
}

fn answered(events: &[Event]) -> String {
    assert_eq!(failure(events), None, "{events:?}");
    deltas(events)
}

/// The scripted server over https, logging its request bodies like `chat_server`.
fn https_server(steps: Vec<Step>, identity: &vi_scripted_server::TlsIdentity) -> ScriptedServer {
    let server = ScriptedServer::start_tls(vi_scripted_server::script(steps), identity).expect("the https server starts");
    server.log_bodies_to(std::env::var_os("VI_REQUEST_BODIES_DIR").map(Into::into));
    server
}

/// A run over a model at `url`, then a good backup: it falls back with a reason holding
/// `reason` and the backup answers.
fn falls_back_to_a_backup(url: &str, reason: &str) {
    let backup = chat_server(hello());
    let events = run(vec![model("m", url), model("backup", &backup.base_url())]);
    assert!(
        events.iter().any(|e| matches!(e, Event::ModelFallback { reason: r, .. } if r.contains(reason))),
        "{events:?}"
    );
    assert_eq!(answered(&events), "Hello");
}

fn hello() -> Vec<Step> {
    vec![Step::sse(vec![chat_chunk_content("Hello"), done()])]
}

// ---- proxies (SPEC §H.1.1, §H.1.9) ------------------------------------------------------

#[test]
fn plain_http_goes_through_the_default_proxy() {
    if !support::require("tinyproxy") {
        return;
    }
    let _x = exclusive();
    let proxy = Tinyproxy::start(None);
    let srv = chat_server(hello());
    set_proxy(&proxy.url());
    assert_eq!(answered(&run(vec![model("m", &srv.base_url())])), "Hello");
    let forwarded = proxy.requests();
    let expected = format!("POST {}/chat/completions HTTP/1.1", srv.base_url());
    assert!(forwarded.contains(&expected), "tinyproxy forwarded {forwarded:?}");
}

#[test]
fn https_goes_through_the_proxy_with_connect_and_trusts_the_added_ca() {
    if !support::require("tinyproxy") || !support::require("openssl") {
        return;
    }
    let _x = exclusive();
    let pki = Pki::new("connect");
    let proxy = Tinyproxy::start(Some(("alice", "pass-w0rd.1")));
    let srv = https_server(hello(), &pki.server_identity("server", None));
    // Through the C ABI, as a C host would.
    let proxy_url = format!("http://alice:pass%2Dw0rd.1@127.0.0.1:{}", proxy.port);
    let ca = pki.pem("ca.pem");
    use visindigo_agent::ffi::{network, status::ViStatus};
    assert_eq!(unsafe { network::vi_network_set_proxy(proxy_url.as_ptr().cast(), proxy_url.len()) }, ViStatus::Ok);
    assert_eq!(unsafe { network::vi_network_add_ca_pem(ca.as_ptr().cast(), ca.len()) }, ViStatus::Ok);
    assert_eq!(answered(&run(vec![model("m", &srv.base_url())])), "Hello");
    assert_eq!(proxy.requests(), vec![format!("CONNECT localhost:{} HTTP/1.1", srv.port())]);
    assert_eq!(srv.requests()[0].header("authorization"), Some("Bearer sk-test-token"));
}

#[test]
fn a_proxy_refusing_the_credentials_is_a_proxy_error_without_the_password() {
    if !support::require("tinyproxy") || !support::require("openssl") {
        return;
    }
    let _x = exclusive();
    let pki = Pki::new("auth");
    let proxy = Tinyproxy::start(Some(("alice", "right")));
    add_ca(&pki.pem("ca.pem"));
    let plain = chat_server(hello());
    let tls = https_server(hello(), &pki.server_identity("server", None));
    // No credentials: 407, to the forwarded POST and to the CONNECT alike.
    set_proxy(&proxy.url());
    let expected = format!("[ProxyError] proxy 127.0.0.1:{}: the proxy wants other credentials (HTTP 407)", proxy.port);
    assert_eq!(failure(&run(vec![model("m", &plain.base_url())])).unwrap(), expected);
    assert_eq!(failure(&run(vec![model("m", &tls.base_url())])).unwrap(), expected, "the CONNECT answer");
    // Wrong ones: tinyproxy refuses the CONNECT with a 401 (not 407): still the proxy's failure.
    set_proxy(&format!("http://alice:wrong-secret@127.0.0.1:{}", proxy.port));
    let message = failure(&run(vec![model("m", &tls.base_url())])).unwrap();
    assert!(message.starts_with(&format!("[ProxyError] proxy 127.0.0.1:{}: ", proxy.port)), "{message}");
    assert!(!message.contains("wrong-secret"), "{message}");
    assert!(plain.requests().is_empty() && tls.requests().is_empty());
}

#[test]
fn a_proxy_that_is_down_is_named_not_the_model_host() {
    let _x = exclusive();
    let port = free_port();
    set_proxy(&format!("http://user:secret@127.0.0.1:{port}"));
    let srv = chat_server(hello());
    let message = failure(&run(vec![model("m", &srv.base_url())])).unwrap();
    assert_eq!(
        message,
        format!("[ProxyError] proxy 127.0.0.1:{port}: connection refused (on the way to 127.0.0.1:{})", srv.port())
    );
    assert!(srv.requests().is_empty());
}

#[test]
fn socks5_with_credentials_resolves_names_at_the_proxy() {
    if !support::require("openssl") {
        return;
    }
    let _x = exclusive();
    let pki = Pki::new("socks");
    let socks = Socks5Proxy::start(Some(("bob", "pw"))).unwrap();
    let srv = https_server(hello(), &pki.server_identity("server", None));
    add_ca(&pki.pem("ca.pem"));
    set_proxy(&format!("socks5h://bob:pw@127.0.0.1:{}", socks.port()));
    assert_eq!(answered(&run(vec![model("m", &srv.base_url())])), "Hello");
    assert_eq!(socks.tunnels(), vec![format!("localhost:{}", srv.port())]);
    set_proxy(&format!("socks5h://bob:nope@127.0.0.1:{}", socks.port()));
    let message = failure(&run(vec![model("m", &srv.base_url())])).unwrap();
    assert!(message.starts_with(&format!("[ProxyError] proxy 127.0.0.1:{}: ", socks.port())) && !message.contains("nope"), "{message}");
}

#[test]
fn the_environment_proxy_applies_when_nothing_else_names_one_and_no_proxy_bypasses_it() {
    if !support::require("tinyproxy") {
        return;
    }
    let _x = exclusive();
    let proxy = Tinyproxy::start(None);
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("Hello"), done()]); 3]);
    // SAFETY: this test holds NETWORK; no other thread of this binary reads the environment now.
    unsafe { std::env::set_var("http_proxy", proxy.url()) };
    let through = run(vec![model("m", &srv.base_url())]);
    unsafe { std::env::set_var("NO_PROXY", "example.com, 127.0.0.0/8") };
    let bypassed = run(vec![model("m", &srv.base_url())]);
    unsafe { std::env::set_var("http_proxy", "ftp://nope") };
    unsafe { std::env::remove_var("NO_PROXY") };
    let bad = run(vec![model("m", &srv.base_url())]);
    unsafe { std::env::remove_var("http_proxy") };
    assert_eq!(answered(&through), "Hello");
    assert_eq!(answered(&bypassed), "Hello");
    assert_eq!(proxy.requests().len(), 1, "NO_PROXY bypassed the second run: {:?}", proxy.requests());
    assert!(failure(&bad).unwrap().starts_with("[ProxyError] http_proxy: the proxy scheme \"ftp\""), "{bad:?}");
}

/// A host hook like the Qt layer's: asked before every request; names a proxy while it is set.
struct Hook {
    proxy: Mutex<Option<String>>,
    asked: Mutex<Vec<String>>,
}

impl HostNetwork for Hook {
    fn settings_for(&self, url: &str, answer: &mut NetworkSettings) {
        self.asked.lock().unwrap().push(url.to_owned());
        answer.set_proxy(self.proxy.lock().unwrap().as_deref()).unwrap();
    }
}

#[test]
fn the_host_hook_is_asked_at_every_request_and_its_proxy_wins() {
    if !support::require("tinyproxy") {
        return;
    }
    let _x = exclusive();
    let (qt_proxy, default_proxy) = (Tinyproxy::start(None), Tinyproxy::start(None));
    let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("Hello"), done()]); 2]);
    set_proxy(&default_proxy.url());
    let hook = Arc::new(Hook { proxy: Mutex::new(Some(qt_proxy.url())), asked: Mutex::default() });
    set_host_network(Some(hook.clone()));
    answered(&run(vec![model("m", &srv.base_url())]));
    *hook.proxy.lock().unwrap() = None; // the application changed its configuration
    answered(&run(vec![model("m", &srv.base_url())]));
    // tinyproxy's log is read by a thread of ours: wait for its lines before counting them.
    wait_for("both proxies' log lines", || qt_proxy.requests().len() + default_proxy.requests().len() >= 2);
    assert_eq!(qt_proxy.requests().len(), 1);
    assert_eq!(default_proxy.requests().len(), 1, "without the hook's proxy the default applies");
    let endpoint = format!("{}/chat/completions", srv.base_url());
    assert_eq!(*hook.asked.lock().unwrap(), vec![endpoint.clone(), endpoint]);
}

// ---- TLS (SPEC §H.1.2) --------------------------------------------------------------------

fn tls_server(pki: &Pki, name: &str, client_ca: Option<&str>) -> ScriptedServer {
    https_server(hello(), &pki.server_identity(name, client_ca))
}

#[test]
fn an_untrusted_certificate_is_a_tls_error_that_falls_back_without_retrying() {
    if !support::require("openssl") {
        return;
    }
    let _x = exclusive();
    let pki = Pki::new("untrusted");
    let srv = tls_server(&pki, "server", None);
    let port = srv.port();
    let events = run(vec![model("m", &srv.base_url())]);
    assert_eq!(
        failure(&events).unwrap(),
        format!("[TlsError] localhost:{port}: the certificate's issuer is not trusted (unknown issuer)")
    );
    assert!(!events.iter().any(|e| matches!(e, Event::Retrying { .. })), "TLS failures are not retried");
    falls_back_to_a_backup(&srv.base_url(), "[TlsError]");
}

#[test]
fn a_certificate_for_another_host_expired_or_self_signed_is_refused_unless_verification_is_off() {
    if !support::require("openssl") {
        return;
    }
    let _x = exclusive();
    let pki = Pki::new("names");
    add_ca(&pki.pem("ca.pem"));
    let wrong = tls_server(&pki, "wrong-host", None);
    let message = failure(&run(vec![model("m", &wrong.base_url())])).unwrap();
    assert_eq!(message, format!("[TlsError] localhost:{}: the certificate is for another host name", wrong.port()));
    let expired = tls_server(&pki, "expired", None);
    let message = failure(&run(vec![model("m", &expired.base_url())])).unwrap();
    assert_eq!(message, format!("[TlsError] localhost:{}: the certificate has expired", expired.port()));
    let self_signed = tls_server(&pki, "self-signed", None);
    let message = failure(&run(vec![model("m", &self_signed.base_url())])).unwrap();
    assert!(message.contains("unknown issuer"), "{message}");
    update_network_defaults(|s| {
        s.set_verify_peer(false);
        Ok(())
    })
    .unwrap();
    assert_eq!(answered(&run(vec![model("m", &self_signed.base_url())])), "Hello");
}

#[test]
fn a_server_that_wants_a_client_certificate_gets_the_identity() {
    if !support::require("openssl") {
        return;
    }
    let _x = exclusive();
    let pki = Pki::new("mtls");
    add_ca(&pki.pem("ca.pem"));
    let srv = tls_server(&pki, "server", Some("client-ca"));
    let message = failure(&run(vec![model("m", &srv.base_url())])).unwrap();
    assert!(message.starts_with(&format!("[TlsError] localhost:{}: ", srv.port())), "{message}");
    update_network_defaults(|s| s.set_client_identity_pem(&pki.pem("client.pem"), &pki.pem("client.key"))).unwrap();
    assert_eq!(answered(&run(vec![model("m", &srv.base_url())])), "Hello");
}

#[test]
fn ssl_cert_file_is_trusted_and_a_change_applies_at_the_next_run() {
    if !support::require("openssl") {
        return;
    }
    let _x = exclusive();
    let pki = Pki::new("certfile");
    let srv = https_server(vec![Step::sse(vec![chat_chunk_content("Hello"), done()]); 2], &pki.server_identity("server", None));
    assert!(failure(&run(vec![model("m", &srv.base_url())])).unwrap().contains("unknown issuer"));
    // SAFETY: this test holds NETWORK; no other thread of this binary reads the environment now.
    unsafe { std::env::set_var("SSL_CERT_FILE", pki.path("ca.pem")) };
    let events = run(vec![model("m", &srv.base_url())]);
    unsafe { std::env::remove_var("SSL_CERT_FILE") };
    assert_eq!(answered(&events), "Hello");
}

// ---- redirects (SPEC §H.1.3) --------------------------------------------------------------

#[test]
fn a_307_repeats_the_post_with_its_body_and_https_to_http_is_refused() {
    if !support::require("openssl") {
        return;
    }
    let _x = exclusive();
    let target = chat_server(hello());
    let redirect = |to: String| Step::body(307, "").header("Location", &to);
    let first = chat_server(vec![redirect(format!("{}/chat/completions", target.base_url()))]);
    assert_eq!(answered(&run(vec![model("m", &first.base_url())])), "Hello");
    let (sent, received) = (bodies(&first), bodies(&target));
    assert_eq!(sent, received, "the same body, posted again");
    assert_eq!(target.requests()[0].method, "POST");
    assert_eq!(target.requests()[0].header("authorization"), None, "another origin gets no credentials");

    let pki = Pki::new("downgrade");
    add_ca(&pki.pem("ca.pem"));
    let tls = https_server(vec![redirect(format!("{}/chat/completions", target.base_url()))], &pki.server_identity("server", None));
    let message = failure(&run(vec![model("m", &tls.base_url())])).unwrap();
    assert!(message.contains("redirects from https to http, which is refused"), "{message}");
    assert_eq!(target.requests().len(), 1);
}

// ---- compression (SPEC §H.1.5) ------------------------------------------------------------

/// When each delta arrived, relative to the first.
fn delta_times(events_at: &[(Instant, Event)]) -> Vec<(String, Duration)> {
    let first = events_at.iter().find(|(_, e)| matches!(e, Event::StreamDelta(_))).map(|(t, _)| *t).unwrap();
    events_at
        .iter()
        .filter_map(|(t, e)| match e {
            Event::StreamDelta(d) => Some((d.to_string(), t.duration_since(first))),
            _ => None,
        })
        .collect()
}

#[derive(Default)]
struct Timed(Mutex<Vec<(Instant, Event)>>);

impl visindigo_agent::EventSink for Timed {
    fn emit(&self, events: &[Event]) {
        let now = Instant::now();
        self.0.lock().unwrap().extend(events.iter().map(|e| (now, e.clone())));
    }
}

#[test]
fn gzip_deflate_br_and_zstd_streams_are_decoded_event_by_event() {
    let _x = exclusive();
    for encoding in ["gzip", "deflate", "br", "zstd"] {
        let step = Step::sse(vec![chat_chunk_content("one"), sleep_ms(400), chat_chunk_content("two"), done()])
            .content_encoding(encoding);
        let srv = chat_server(vec![step]);
        let (_c, d, _) = setup(vec![model("m", &srv.base_url())]);
        let timed = Arc::new(Timed::default());
        d.set_sink(Some(timed.clone()), visindigo_agent::HostToken::NONE);
        d.run();
        wait_idle(&d);
        let times = delta_times(&timed.0.lock().unwrap());
        assert_eq!(times.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>(), ["one", "two"], "{encoding}");
        assert!(times[1].1 >= Duration::from_millis(300), "{encoding}: \"one\" waited for \"two\": {times:?}");
        assert!(srv.requests()[0].header("accept-encoding").is_some_and(|v| v.contains(encoding)));
    }
    let json = serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "zipped"}}]});
    let srv = chat_server(vec![Step::body(200, json).content_encoding("gzip")]);
    assert_eq!(answered(&run(vec![model("m", &srv.base_url())])), "zipped");
}

// ---- answers that are not answers (SPEC §H.1.6) -------------------------------------------

#[test]
fn a_200_without_any_event_is_a_protocol_error_that_falls_back_but_is_not_retried() {
    let _x = exclusive();
    let html = "<!DOCTYPE html><html><head><title>Sign in to the hotel Wi-Fi</title></head></html>";
    let srv = chat_server(vec![Step::body(200, html).header("Content-Type", "text/html; charset=utf-8")]);
    let events = run(vec![model("m", &srv.base_url())]);
    assert_eq!(
        failure(&events).unwrap(),
        format!("[ProtocolError] HTTP 200 with Content-Type text/html; charset=utf-8 held no event and no completion: {html:?}")
    );
    assert_eq!(srv.requests().len(), 1, "a wrong base url does not heal: no retry");

    let empty = chat_server(vec![Step::sse(vec![])]);
    falls_back_to_a_backup(&empty.base_url(), "an empty body");

    let unknown = chat_server(vec![Step::sse(vec![raw("\u{1}\u{2}binary")]).header("Content-Encoding", "x-unknown")]);
    let message = failure(&run(vec![model("m", &unknown.base_url())])).unwrap();
    assert!(message.starts_with("[ProtocolError] HTTP 200 with Content-Type text/event-stream"), "{message}");

    let not_json = chat_server(vec![Step::body(200, "{oops")]);
    let message = failure(&run(vec![model("m", &not_json.base_url())])).unwrap();
    assert!(message.starts_with("[ProtocolError] HTTP 200 with Content-Type application/json") && message.ends_with("\"{oops\""), "{message}");
}

#[test]
fn an_error_event_fails_the_run_whatever_its_data() {
    let _x = exclusive();
    for (data, expected) in [
        ("upstream overloaded", "upstream overloaded"),
        (r#"{"message":"quota"}"#, "quota"),
        (r#"{"error":{"message":"bad request id"}}"#, "bad request id"),
    ] {
        let srv = chat_server(vec![Step::sse(vec![chat_chunk_content("par"), raw(&format!("event: error\ndata: {data}\n\n"))])]);
        let events = run(vec![model("m", &srv.base_url())]);
        assert_eq!(failure(&events).unwrap(), format!("[ServerError] {expected}"));
    }
}

/// The next round goes out on the connection the last one came back on, even when the server
/// ends the body a moment after the answer's `[DONE]`: the rest of the body is read so the
/// connection returns to the pool (found by the soak test: a fast reader dropped it first, and
/// every round paid a new connection — on https a new TLS handshake).
#[test]
fn a_connection_is_reused_when_the_body_ends_after_done() {
    let _net = exclusive(); // no proxy of another test (plain http through one never reuses)
    let late_end = || Step::sse(vec![chat_chunk_content("hi"), done(), sleep_ms(150)]);
    let srv = chat_server(vec![late_end(), late_end(), late_end()]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    for _ in 0..3 {
        d.append_message(Message::new(Role::User, "again"));
        d.run();
        rec.wait_finished();
        assert!(matches!(ended(&rec.take()), Event::StreamEnded(_)));
        // The drain finishes when the server ends the body, ~150 ms after [DONE].
        std::thread::sleep(Duration::from_millis(300));
    }
    let connections: Vec<u64> = srv.requests().iter().map(|r| r.connection).collect();
    assert_eq!(connections, [connections[0]; 3], "one connection for the three rounds");
}
