//! The MCP client against a server nobody on this project wrote: the official reference
//! server `@modelcontextprotocol/server-everything` (SPEC §I.3.8), installed by tools/test.sh
//! from tests/npm's lock file, over stdio, with the scripted chat server playing the model.
//!
//! Started from the SDK's own Python client first (the lock's version answers it), so a
//! failure here is ours, not the fixture's.

mod support;

use serde_json::Value;
use std::path::Path;
use support::mcp_servers::{answer, calls, serial};
use support::*;
use visindigo_agent::{Event, Mcp, Message, Role};

/// The reference server's entry point, where `npm ci` in tests/npm put it.
fn everything() -> String {
    let entry = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(entry.exists(), "{} is missing: run `npm ci --prefix tests/npm` (tools/test.sh does)", entry.display());
    entry.to_string_lossy().into_owned()
}

fn stdio_everything(name: &str) -> Mcp {
    let mut m = Mcp::new(name);
    m.command = "node".into();
    m.arguments = vec![everything(), "stdio".into()];
    m
}

fn offered(body: &Value) -> Vec<String> {
    body["tools"].as_array().into_iter().flatten().map(|t| t["function"]["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn the_reference_servers_tools_are_offered_and_called_but_not_a_task_only_one() {
    let _serial = serial();
    let srv = chat_server(vec![calls(&[("ev__echo", r#"{"message":"hi there"}"#), ("ev__get-sum", r#"{"a":2,"b":3}"#)]), answer("done")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(stdio_everything("ev"));
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    rec.wait_finished();
    let events = rec.take();
    assert!(!events.iter().any(|e| matches!(e, Event::McpFailed { .. })), "{events:?}");
    let bodies = bodies(&srv);
    let names = offered(&bodies[0]);
    assert!(names.contains(&"ev__echo".to_owned()) && names.contains(&"ev__get-sum".to_owned()), "{names:?}");
    // execution.taskSupport "required": it cannot be called without tasks, so it is not offered.
    assert!(!names.contains(&"ev__simulate-research-query".to_owned()), "{names:?}");
    let messages = d.messages();
    assert_eq!((messages[2].role, messages[2].content.as_str()), (Role::Tool, "Echo: hi there"));
    assert_eq!(messages[3].role, Role::Tool);
    assert!(messages[3].content.contains('5'), "{}", messages[3].content);
    assert_eq!(d.last_message().content, "done");
    c.remove_mcp("ev");
}

#[test]
fn a_url_elicitation_reaches_the_host_and_its_answer_the_server() {
    let _serial = serial();
    let arguments = r#"{"url":"https://example.com/sign-in?session=1","message":"Sign in to go on."}"#;
    let srv = chat_server(vec![
        calls(&[("ev__trigger-url-elicitation", arguments)]),
        answer("signed in"),
        calls(&[("ev__trigger-url-elicitation", arguments)]),
        answer("not signed in"),
    ]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    c.add_mcp(stdio_everything("ev"));
    for (action, said) in [("accept", "User completed the URL elicitation flow"), ("decline", "User declined to open the URL")] {
        d.append_message(Message::new(Role::User, "go"));
        d.run();
        let asked = || {
            rec.snapshot().iter().find_map(|e| match e {
                Event::McpUrlElicitationRequested { request_id, server, message, url } => Some((request_id.clone(), server.clone(), message.clone(), url.clone())),
                _ => None,
            })
        };
        wait_for("the url elicitation", || asked().is_some());
        let (id, server, message, url) = asked().unwrap();
        assert_eq!((server.as_str(), message.as_str(), url.as_str()), ("ev", "Sign in to go on.", "https://example.com/sign-in?session=1"));
        assert!(d.answer_mcp_elicitation(&id, action, None));
        rec.wait_finished();
        rec.take();
        let tool = &d.messages()[d.message_count() - 2];
        assert_eq!(tool.role, Role::Tool);
        assert!(tool.content.contains(said), "{}", tool.content);
    }
    assert!(offered(&bodies(&srv)[0]).contains(&"ev__trigger-url-elicitation".to_owned()), "offered only to a client that declares url mode");
    c.remove_mcp("ev");
}
