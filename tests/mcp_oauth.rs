//! OAuth 2.1 for MCP servers (SPEC §H.4.6, and of revision 2026-07-28 §I.3.6: Client ID
//! Metadata Documents, RFC 9207 `iss`, step-up on `403 insufficient_scope`) against
//! tests/mcp_servers/oauth_server.py: the
//! official MCP Python SDK's own authorization server in front of a streamable HTTP (and a
//! legacy SSE) server. The test plays the user: it opens the url of `McpAuthorizationRequired`
//! and follows the redirects to the library's loopback listener.
//!
//! Needs the project venv (see tests/mcp.rs).

mod support;

use serde_json::{Value, json};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;
use support::browser;
use support::mcp_servers::*;
use support::{chat_server, model, setup, wait_for};
use url::Url;
use visindigo_agent::{Center, CenterEvent, CenterSink, Mcp, Message, OAuthTokens, Role, Transport};

/// What the user does with an authorize url.
#[derive(Clone, Copy, PartialEq)]
enum User {
    Approves,
    Refuses,
}

/// The Center's authorization events; opens each authorize url as `user` would, on a thread
/// of its own (never on the library's).
struct Desk {
    user: User,
    urls: Mutex<Vec<String>>,
    tokens: Mutex<Vec<(String, OAuthTokens)>>,
    pages: Arc<Mutex<Vec<(Vec<u16>, String)>>>,
}

impl Desk {
    fn new(user: User) -> Arc<Desk> {
        Arc::new(Desk { user, urls: Mutex::default(), tokens: Mutex::default(), pages: Arc::default() })
    }
    fn urls(&self) -> Vec<String> {
        self.urls.lock().unwrap().clone()
    }
    fn tokens(&self) -> Vec<(String, OAuthTokens)> {
        self.tokens.lock().unwrap().clone()
    }
}

impl CenterSink for Desk {
    fn emit(&self, events: &[CenterEvent]) {
        for event in events {
            match event {
                CenterEvent::McpAuthorizationRequired { server, url } => {
                    assert_eq!(server, "notes");
                    self.urls.lock().unwrap().push(url.clone());
                    let (url, user, pages) = (url.clone(), self.user, self.pages.clone());
                    std::thread::spawn(move || {
                        let page = match user {
                            User::Approves => browser::open(&url),
                            User::Refuses => {
                                // The authorization server sends the user back with a refusal.
                                let authorize = Url::parse(&url).unwrap();
                                let query = |k: &str| authorize.query_pairs().find(|(n, _)| n == k).unwrap().1.into_owned();
                                let mut back = Url::parse(&query("redirect_uri")).unwrap();
                                back.query_pairs_mut().append_pair("error", "access_denied").append_pair("state", &query("state"));
                                browser::open(back.as_str())
                            }
                        };
                        pages.lock().unwrap().push((page.0, page.1.body));
                    });
                }
                CenterEvent::McpTokensChanged { server, tokens } => self.tokens.lock().unwrap().push((server.clone(), tokens.clone())),
                _ => {}
            }
        }
    }
}

/// The log of the authorization server's events, in order.
fn events(log: &str) -> Vec<String> {
    std::fs::read_to_string(log).unwrap_or_default().lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["event"].as_str().unwrap().to_owned()).collect()
}

/// The log's records of `event`, whole.
fn records(log: &str, event: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|r| r["event"] == event).collect()
}

/// "METHOD /path" of every HTTP request the server received, in order.
fn paths(log: &str) -> Vec<String> {
    std::fs::read_to_string(format!("{log}.paths")).unwrap_or_default().lines().map(str::to_owned).collect()
}

/// oauth_server.py in `mode` (streamable-http, sse), logging to a fresh file named after `test`.
fn oauth_server(mode: &str, test: &str) -> (HttpServer, String) {
    oauth_server_with(mode, test, &[])
}

/// The same with the server's 2026 switches (`--cimd`, `--iss=…`, `--no-admin`).
fn oauth_server_with(mode: &str, test: &str, flags: &[&str]) -> (HttpServer, String) {
    let path = std::env::temp_dir().join(format!("vi-oauth-{}-{test}.jsonl", std::process::id()));
    let log = path.to_string_lossy().into_owned();
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(format!("{log}.paths"));
    let args: Vec<&str> = std::iter::once(log.as_str()).chain(flags.iter().copied()).collect();
    (HttpServer::start_with("oauth_server.py", mode, None, &args), log)
}

/// Ends a test: the Center goes, and with the pool emptied no connection (or token) is left
/// for the next test.
fn finish(c: Center) {
    drop(c);
    visindigo_agent::shutdown_mcp_servers();
}

/// Tool `tool` of the server through `request_mcp`: its text (at most 60 s: an authorization
/// included).
fn call(c: &Center, tool: &str) -> Result<String, String> {
    let (tx, rx) = mpsc::channel();
    c.request_mcp("notes", "tools/call", Some(json!({"name": tool, "arguments": {}})), move |outcome| tx.send(outcome).unwrap());
    let result = rx.recv_timeout(Duration::from_secs(60)).expect("request_mcp calls back")?;
    Ok(result["content"][0]["text"].as_str().unwrap_or_default().to_owned())
}

fn whoami(c: &Center) -> Result<String, String> {
    call(c, "whoami")
}

fn center_with(entry: Mcp, desk: &Arc<Desk>) -> Center {
    let c = Center::new();
    c.set_sink(Some(desk.clone()));
    c.add_mcp(entry);
    c
}

fn secrets_of(tokens: &OAuthTokens) -> [String; 2] {
    [tokens.access_token.clone(), tokens.refresh_token.clone()]
}

#[test]
fn from_the_first_401_to_a_refreshed_token_and_back_from_storage() {
    let _serial = serial();
    let (server, log) = oauth_server("streamable-http", "flow");
    let entry = server.entry("notes", Transport::StreamableHttp, "/mcp");
    let resource = entry.url.clone();

    // The first request: 401, discovery, registration, the user approves, the code exchanged;
    // the first token lives 30 s, inside the refresh margin, so it is refreshed at once.
    let desk = Desk::new(User::Approves);
    let c = center_with(entry.clone(), &desk);
    let who = whoami(&c).unwrap();
    assert!(who.ends_with("token generation 2"), "{who}");
    assert_eq!(events(&log), ["register", "authorize", "exchange", "refresh"]);
    let urls = desk.urls();
    assert_eq!(urls.len(), 1);
    let authorize = Url::parse(&urls[0]).unwrap();
    let query: Vec<(String, String)> = authorize.query_pairs().into_owned().collect();
    let get = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or_default();
    assert_eq!(authorize.path(), "/authorize");
    assert_eq!((get("response_type").as_str(), get("code_challenge_method").as_str()), ("code", "S256"));
    assert_eq!(get("resource"), resource);
    assert_eq!(get("scope"), "notes");
    assert!(get("redirect_uri").starts_with("http://127.0.0.1:") && get("redirect_uri").ends_with("/callback"));
    assert_eq!(get("code_challenge").len(), 43);
    // The browser thread records the page once it has read it, which may be after the library
    // has already used the code (seen on a loaded machine): wait for it.
    wait_for("the browser to read the last page", || !desk.pages.lock().unwrap().is_empty());
    let pages = desk.pages.lock().unwrap().clone();
    assert_eq!(pages[0].0, [302, 200], "the authorization server redirects to the loopback listener");
    assert!(pages[0].1.contains("Authorization complete"), "{}", pages[0].1);

    let tokens = desk.tokens();
    assert_eq!(tokens.len(), 2, "exchanged, then refreshed");
    let (name, kept) = tokens[1].clone();
    assert_eq!(name, "notes");
    assert!(kept.access_token.starts_with("access-2-") && kept.refresh_token.starts_with("refresh-2-"));
    assert_eq!(kept.resource, resource);
    assert_eq!(kept.redirect_uri, get("redirect_uri"));
    assert!(kept.token_endpoint.ends_with("/token") && !kept.client_id.is_empty());
    let in_an_hour = visindigo_agent_now() + 3600;
    assert!(kept.expires_at.abs_diff(in_an_hour) < 30, "{}", kept.expires_at);
    assert_eq!(whoami(&c).unwrap(), who, "the token is used, not renewed");

    // Never in the JSON of the Center or the entry, nor in their Debug text.
    let text = format!("{} {} {:?}", c.to_json_string(), entry.to_json(), c.mcp("notes"));
    for secret in secrets_of(&kept).iter().chain(secrets_of(&tokens[0].1).iter()) {
        assert!(!text.contains(secret.as_str()), "a token leaked: {text}");
    }

    // The server revokes the access token: the next request refreshes, without the user.
    assert_eq!(call(&c, "revoke_all"), Ok("revoked".to_owned()));
    assert!(whoami(&c).unwrap().ends_with("token generation 3"));
    assert_eq!(events(&log).last().map(String::as_str), Some("refresh"));
    assert_eq!(desk.urls().len(), 1, "no new authorization");
    let newest = desk.tokens().last().unwrap().1.clone();

    // A new process: the application gives the stored tokens back with the entry. They are
    // used as they are — no discovery, no user.
    finish(c);
    let mut restored = entry.clone();
    restored.oauth_tokens = newest.clone();
    let desk = Desk::new(User::Approves);
    let c = center_with(restored.clone(), &desk);
    assert!(whoami(&c).unwrap().ends_with("token generation 3"));
    assert!(desk.urls().is_empty() && desk.tokens().is_empty());

    // Stored tokens that expired meanwhile are refreshed before the first request.
    finish(c);
    restored.oauth_tokens.expires_at = visindigo_agent_now() - 10;
    let desk = Desk::new(User::Approves);
    let c = center_with(restored, &desk);
    assert!(whoami(&c).unwrap().ends_with("token generation 4"));
    assert!(desk.urls().is_empty());
    assert_eq!(desk.tokens().len(), 1);
    assert_eq!(events(&log).iter().filter(|e| *e == "register").count(), 1, "the registration is kept with the tokens");
    finish(c);
}

#[test]
fn a_spent_refresh_token_leads_to_the_user_again_who_may_refuse() {
    let _serial = serial();
    let (server, log) = oauth_server("streamable-http", "refused");
    let mut entry = server.entry("notes", Transport::StreamableHttp, "/mcp");
    // Tokens the server never issued: the refresh is refused, then the user is asked.
    entry.oauth_tokens = OAuthTokens {
        access_token: "access-forged".into(),
        refresh_token: "refresh-forged".into(),
        expires_at: 1,
        client_id: "unknown-client".into(),
        token_endpoint: format!("http://127.0.0.1:{}/token", server.port),
        ..OAuthTokens::default()
    };
    let desk = Desk::new(User::Refuses);
    let c = center_with(entry, &desk);
    let refused = whoami(&c).unwrap_err();
    assert_eq!(refused, "the server requires authorization: the authorization server refused: access_denied");
    assert_eq!(desk.urls().len(), 1);
    assert!(desk.tokens().is_empty());
    assert!(!refused.contains("forged"));
    assert_eq!(events(&log), ["register"], "a new registration: the stored client came without its redirect uri");
    finish(c);
}

#[test]
fn a_configured_client_id_is_used_instead_of_registering() {
    let _serial = serial();
    let (server, log) = oauth_server("streamable-http", "configured");
    let mut entry = server.entry("notes", Transport::StreamableHttp, "/mcp");
    entry.oauth_client_id = "vi-test-app".into();
    let desk = Desk::new(User::Approves);
    let c = center_with(entry, &desk);
    let who = whoami(&c).unwrap();
    assert_eq!(who, "client vi-test-app, token generation 2");
    assert_eq!(events(&log), ["authorize", "exchange", "refresh"], "no registration");
    let authorize = Url::parse(&desk.urls()[0]).unwrap();
    assert!(authorize.query_pairs().any(|(k, v)| k == "client_id" && v == "vi-test-app"));
    assert_eq!(desk.tokens()[1].1.client_id, "vi-test-app");
    finish(c);
}

#[test]
fn a_legacy_sse_server_is_authorized_the_same_way() {
    let _serial = serial();
    let (server, log) = oauth_server("sse", "sse");
    let desk = Desk::new(User::Approves);
    let c = center_with(server.entry("notes", Transport::Sse, "/sse"), &desk);
    let who = whoami(&c).unwrap();
    assert!(who.ends_with("token generation 2"), "{who}");
    assert_eq!(events(&log), ["register", "authorize", "exchange", "refresh"]);
    finish(c);
}

#[test]
fn a_run_whose_tool_needs_the_server_waits_for_the_user_and_calls_it() {
    let _serial = serial();
    let (server, log) = oauth_server("streamable-http", "run");
    let chat = chat_server(vec![calls(&[("notes__whoami", "{}")]), answer("done")]);
    let (c, d, _events) = setup(vec![model("m1", &chat.base_url())]);
    let desk = Desk::new(User::Approves);
    c.set_sink(Some(desk.clone()));
    c.add_mcp(server.entry("notes", Transport::StreamableHttp, "/mcp"));
    d.append_message(Message::new(Role::User, "who am I?"));
    d.run();
    wait_for("the run to finish", || !d.is_streaming());
    let messages = d.messages();
    assert_eq!(messages[2].role, Role::Tool);
    assert!(messages[2].content.ends_with("token generation 2"), "{}", messages[2].content);
    assert_eq!(messages.last().unwrap().content, "done");
    assert_eq!(desk.urls().len(), 1);
    assert_eq!(events(&log), ["register", "authorize", "exchange", "refresh"]);
    finish(c);
}

#[test]
fn a_client_id_metadata_document_url_is_the_client_id_where_the_server_reads_documents() {
    let _serial = serial();
    let document = HttpServer::start_with("client_document.py", "http", None, &[]);
    let document_url = format!("http://127.0.0.1:{}/client.json", document.port);
    let (server, log) = oauth_server_with("streamable-http", "cimd", &["--cimd"]);
    let mut entry = server.entry("notes", Transport::StreamableHttp, "/mcp");
    entry.oauth_client_id = document_url.clone();
    let desk = Desk::new(User::Approves);
    let c = center_with(entry.clone(), &desk);
    assert_eq!(whoami(&c).unwrap(), format!("client {document_url}, token generation 2"));
    assert_eq!(events(&log), ["document", "authorize", "exchange", "refresh"], "the document fetched, no registration");
    assert!(!paths(&log).iter().any(|p| p.ends_with("/register")), "{:?}", paths(&log));
    let authorize = Url::parse(&desk.urls()[0]).unwrap();
    assert!(authorize.query_pairs().any(|(k, v)| k == "client_id" && v == document_url));
    assert_eq!(desk.tokens().last().unwrap().1.client_id, document_url);
    finish(c);

    // A server that does not read documents registers the client, as before 2026.
    let (server, log) = oauth_server_with("streamable-http", "cimd-not-offered", &[]);
    let mut entry = server.entry("notes", Transport::StreamableHttp, "/mcp");
    entry.oauth_client_id = document_url.clone();
    let desk = Desk::new(User::Approves);
    let c = center_with(entry, &desk);
    let who = whoami(&c).unwrap();
    assert!(!who.contains(&document_url) && who.ends_with("token generation 2"), "{who}");
    assert_eq!(events(&log), ["register", "authorize", "exchange", "refresh"]);
    finish(c);
}

#[test]
fn an_authorization_answer_naming_another_issuer_is_refused_before_any_token_request() {
    let _serial = serial();
    let (server, log) = oauth_server_with("streamable-http", "iss-wrong", &["--iss=wrong"]);
    let desk = Desk::new(User::Approves);
    let c = center_with(server.entry("notes", Transport::StreamableHttp, "/mcp"), &desk);
    let refused = whoami(&c).unwrap_err();
    assert!(refused.starts_with("the server requires authorization: iss mismatch (RFC 9207)"), "{refused}");
    assert!(refused.contains("\"http://127.0.0.1:1/\""), "{refused}");
    assert_eq!(events(&log), ["register", "authorize"]);
    assert!(!paths(&log).iter().any(|p| p == "POST /token"), "a token request was made: {:?}", paths(&log));
    assert!(desk.tokens().is_empty());
    wait_for("the browser to read the page", || !desk.pages.lock().unwrap().is_empty());
    assert_eq!(desk.pages.lock().unwrap()[0].0, [302, 400], "the browser is told the answer was refused");
    finish(c);

    // The right issuer: the same flow completes.
    let (server, log) = oauth_server_with("streamable-http", "iss-good", &["--iss=good"]);
    let desk = Desk::new(User::Approves);
    let c = center_with(server.entry("notes", Transport::StreamableHttp, "/mcp"), &desk);
    assert!(whoami(&c).unwrap().ends_with("token generation 2"));
    assert_eq!(events(&log), ["register", "authorize", "exchange", "refresh"]);
    finish(c);
}

#[test]
fn an_authorization_answer_without_the_promised_issuer_is_refused() {
    let _serial = serial();
    let (server, log) = oauth_server_with("streamable-http", "iss-missing", &["--iss=missing"]);
    let desk = Desk::new(User::Approves);
    let c = center_with(server.entry("notes", Transport::StreamableHttp, "/mcp"), &desk);
    let refused = whoami(&c).unwrap_err();
    assert!(refused.starts_with("the server requires authorization: iss missing (RFC 9207)"), "{refused}");
    assert_eq!(events(&log), ["register", "authorize"]);
    assert!(!paths(&log).iter().any(|p| p == "POST /token"), "a token request was made: {:?}", paths(&log));
    assert!(desk.tokens().is_empty());
    finish(c);
}

#[test]
fn insufficient_scope_steps_up_once_with_the_union_of_scopes() {
    let _serial = serial();
    let (server, log) = oauth_server_with("streamable-http", "step-up", &[]);
    let desk = Desk::new(User::Approves);
    let c = center_with(server.entry("notes", Transport::StreamableHttp, "/mcp"), &desk);
    // One request: 401, authorized for `notes`; 403 insufficient_scope `admin`; one step-up.
    let notes = call(&c, "admin_notes").unwrap();
    assert!(notes.starts_with("admin notes for ") && notes.ends_with("scopes notes admin"), "{notes}");
    let asked: Vec<Value> = records(&log, "authorize").iter().map(|r| r["scopes"].clone()).collect();
    assert_eq!(asked, [json!(["notes"]), json!(["notes", "admin"])], "the step-up asks for the union");
    assert_eq!(records(&log, "insufficient_scope").len(), 1);
    assert_eq!(desk.urls().len(), 2);
    let scope_of = |url: &str| Url::parse(url).unwrap().query_pairs().find(|(k, _)| k == "scope").unwrap().1.into_owned();
    assert_eq!(scope_of(&desk.urls()[1]), "notes admin");
    assert_eq!(desk.tokens().last().unwrap().1.scope, "notes admin");
    // The wider token serves both tools from now on.
    assert!(whoami(&c).is_ok());
    assert!(call(&c, "admin_notes").unwrap().ends_with("scopes notes admin"));
    assert_eq!(desk.urls().len(), 2, "no further authorization");
    finish(c);
}

#[test]
fn a_step_up_that_brings_too_little_scope_is_a_named_failure() {
    let _serial = serial();
    let (server, log) = oauth_server_with("streamable-http", "step-up-refused", &["--no-admin"]);
    let desk = Desk::new(User::Approves);
    let c = center_with(server.entry("notes", Transport::StreamableHttp, "/mcp"), &desk);
    let refused = call(&c, "admin_notes").unwrap_err();
    assert!(refused.starts_with("insufficient scope after step-up"), "{refused}");
    assert!(refused.contains("wants the scope \"admin\""), "{refused}");
    assert_eq!(records(&log, "insufficient_scope").len(), 2, "refused, stepped up once, refused again");
    assert_eq!(desk.urls().len(), 2, "one authorization, one step-up, no third");
    // The connection is still good for what the token allows.
    assert!(whoami(&c).unwrap().starts_with("client "));
    finish(c);
}

fn visindigo_agent_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}
