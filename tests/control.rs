//! Control over a run (SPEC §H.3) against the scripted server: `RunFinished`, `stop()` that
//! keeps the answer, approval, parallel tools, the round limit, and a request body that is
//! valid whatever the history holds.

mod support;

use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::*;
use vi_scripted_server::{Step, chat_chunk_content, chat_chunk_reasoning, chat_chunk_tool_call, done, stall};
use visindigo_agent::{Dialog, Event, Function, FunctionSpec, HostToken, Message, Role, ToolReply};

/// A function that keeps every reply until the test answers it, so the test decides when and
/// in which order calls end.
struct Held {
    spec: FunctionSpec,
    replies: Mutex<Vec<(Value, ToolReply)>>,
}

impl Held {
    fn new(id: &str) -> Arc<Held> {
        Arc::new(Held {
            spec: FunctionSpec { id: id.into(), name: id.into(), description: format!("{id} tool"), parameter_schema: json!({"type": "object"}), host: None },
            replies: Mutex::new(Vec::new()),
        })
    }
    fn waiting(&self) -> usize {
        self.replies.lock().unwrap().len()
    }
    /// Answers the oldest waiting call with `result`.
    fn answer(&self, result: Value) {
        let (_, reply) = self.replies.lock().unwrap().remove(0);
        reply.complete(result);
    }
}

impl Function for Held {
    fn spec(&self) -> &FunctionSpec {
        &self.spec
    }
    fn invoke(&self, arguments: Value, _: HostToken, reply: ToolReply) {
        self.replies.lock().unwrap().push((arguments, reply));
    }
}

/// An answer that calls `tools` (id `call_<i>` for the i-th) after a sentence.
fn calling(tools: &[&str]) -> Step {
    let mut events = vec![chat_chunk_content("Checking. ")];
    for (i, tool) in tools.iter().enumerate() {
        events.push(chat_chunk_tool_call(i as u64, &format!("call_{i}"), tool, "{}"));
    }
    events.push(done());
    Step::sse(events)
}

fn answer(text: &str) -> Step {
    Step::sse(vec![chat_chunk_content(text), done()])
}

fn tool_messages(d: &Dialog) -> Vec<(String, String)> {
    d.messages().into_iter().filter(|m| m.role == Role::Tool).map(|m| (m.tool_call_id, m.content.into())).collect()
}

fn count(events: &[Event], wanted: impl Fn(&Event) -> bool) -> usize {
    events.iter().filter(|e| wanted(e)).count()
}

#[test]
fn stop_while_streaming_keeps_the_partial_answer_and_cancels_the_request() {
    let srv = chat_server(vec![
        Step::sse(vec![chat_chunk_reasoning("Thinking"), chat_chunk_content("The answer is"), chat_chunk_tool_call(0, "call_0", "f", "{\"a\""), stall()]),
        answer("Go on."),
    ]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    d.append_message(Message::new(Role::User, "question"));
    rec.take();
    d.run();
    wait_for("the partial answer", || rec.snapshot().contains(&Event::StreamDelta("The answer is".into())));
    d.stop();
    assert!(!d.is_streaming(), "stop() is synchronous");
    assert_eq!(
        rec.take(),
        vec![
            Event::StreamBegan,
            Event::StreamReasoning("Thinking".into()),
            Event::StreamDelta("The answer is".into()),
            Event::MessageAppended(1),
            Event::StreamEnded("The answer is".into()),
            Event::RunFinished,
        ]
    );
    let kept = d.last_message();
    assert_eq!((kept.role, kept.content.as_str(), kept.reasoning.as_str(), kept.tool_calls.as_str()), (Role::Assistant, "The answer is", "Thinking", ""));
    // The server sees the client go away at once.
    wait_for("the server to see the disconnect", || srv.requests()[0].ended.as_deref() == Some("client_closed"));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(rec.snapshot(), vec![], "nothing after the stop");

    // The conversation goes on from the kept answer.
    d.append_message(Message::new(Role::User, "and?"));
    d.run();
    rec.wait_finished();
    let body = &bodies(&srv)[1];
    assert_eq!(body["messages"][1], json!({"role": "assistant", "content": "The answer is"}));
    assert_eq!(d.last_message().content, "Go on.");
}

#[test]
fn stop_during_tools_answers_the_pending_calls_and_ends_the_run() {
    let srv = chat_server(vec![calling(&["slow", "slow"]), answer("never asked")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let slow = Held::new("slow");
    c.add_function(slow.clone());
    d.run();
    wait_for("both calls", || slow.waiting() == 2);
    slow.replies.lock().unwrap().pop().unwrap().1.complete(json!({"second": "done"}));
    wait_for("the second call's end", || rec.snapshot().iter().any(|e| matches!(e, Event::ToolCallFinished { .. })));
    d.stop();
    assert!(!d.is_streaming());
    let events = rec.take();
    assert_eq!(ended(&events), &Event::MessageAppended(2));
    let stopped = r#"{"error":"stopped by the user"}"#;
    assert_eq!(tool_messages(&d), [("call_0".into(), stopped.into()), ("call_1".into(), r#"{"second":"done"}"#.into())]);
    assert_eq!(count(&events, |e| matches!(e, Event::ToolCallStarted { .. })), 2);
    assert_eq!(count(&events, |e| matches!(e, Event::ToolCallFinished { .. })), 2, "every started call ends: {events:?}");
    slow.answer(json!({"late": true}));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(rec.snapshot(), vec![], "a late answer changes nothing");
    assert_eq!(srv.requests().len(), 1, "no further round");
}

#[test]
fn after_an_abort_during_tools_the_next_request_still_pairs_every_call() {
    let srv = chat_server(vec![calling(&["slow"]), answer("Fine.")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let slow = Held::new("slow");
    c.add_function(slow.clone());
    d.append_message(Message::new(Role::User, "go"));
    d.run();
    wait_for("the call", || slow.waiting() == 1);
    d.abort();
    assert_eq!(ended(&rec.take()), &Event::RunFailed("[Aborted] Run aborted.".into()));
    assert_eq!(d.message_count(), 2, "the user message and the assistant's call, no answer");
    // A hand-added answer to a call that does not exist is not sent either.
    let mut orphan = Message::new(Role::Tool, "{}");
    orphan.tool_call_id = "call_unknown".into();
    d.append_message(orphan);
    d.append_message(Message::new(Role::User, "continue"));
    d.run();
    rec.wait_finished();
    assert_eq!(d.last_message().content, "Fine.");
    let messages = &bodies(&srv)[1]["messages"];
    assert_eq!(messages.as_array().unwrap().len(), 4, "{messages}");
    assert_eq!(messages[2], json!({"role": "tool", "content": "{\"error\":\"no result was recorded for this call\"}", "tool_call_id": "call_0"}));
    assert_eq!(messages[3], json!({"role": "user", "content": "continue"}));
    assert_eq!(d.message_count(), 5, "the supplied answer is in the body only, the orphan stays in the dialog");
}

#[test]
fn approval_runs_approved_calls_and_declines_rejected_ones_from_any_thread() {
    let srv = chat_server(vec![calling(&["get_time", "delete_all"]), answer("Done.")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let time = Held::new("get_time");
    let delete = Held::new("delete_all");
    c.add_function(time.clone());
    c.add_function(delete.clone());
    d.set_tool_approval(true);
    d.run();
    wait_for("both requests", || count(&rec.snapshot(), |e| matches!(e, Event::ToolApprovalRequested { .. })) == 2);
    assert_eq!(time.waiting() + delete.waiting(), 0, "nothing runs before it is approved");
    // Answered from another thread, the second call first.
    let other = d.clone();
    std::thread::spawn(move || {
        assert!(other.reject_tool_call("call_1", "not today"));
        assert!(other.approve_tool_call("call_0"));
        assert!(!other.approve_tool_call("call_0"), "decided already");
    })
    .join()
    .unwrap();
    wait_for("the approved call", || time.waiting() == 1);
    time.answer(json!({"time": "12:00"}));
    rec.wait_finished();
    let events = rec.take();
    assert_eq!(ended(&events), &Event::StreamEnded("Done.".into()));
    assert_eq!(delete.waiting(), 0, "a rejected call never runs");
    assert_eq!(
        tool_messages(&d),
        [
            ("call_0".into(), r#"{"time":"12:00"}"#.into()),
            ("call_1".into(), r#"{"error":"the user declined this call: not today"}"#.into())
        ]
    );
    let requested = Event::ToolApprovalRequested { call_id: "call_1".into(), tool_name: "delete_all".into(), arguments: "{}".into() };
    assert!(events.contains(&requested));
    assert_eq!(count(&events, |e| matches!(e, Event::ToolCallStarted { .. })), 1, "only the approved call starts");
}

#[test]
fn stop_and_abort_end_an_approval_wait() {
    let srv = chat_server(vec![calling(&["get_time"]), calling(&["get_time"])]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let time = Held::new("get_time");
    c.add_function(time.clone());
    d.set_tool_approval(true);
    d.run();
    wait_for("the request", || rec.snapshot().iter().any(|e| matches!(e, Event::ToolApprovalRequested { .. })));
    d.abort();
    assert_eq!(ended(&rec.take()), &Event::RunFailed("[Aborted] Run aborted.".into()));
    assert!(!d.approve_tool_call("call_0"), "the wait is over");

    d.run();
    wait_for("the request", || rec.snapshot().iter().any(|e| matches!(e, Event::ToolApprovalRequested { .. })));
    d.stop();
    let events = rec.take();
    assert_eq!(ended(&events), &Event::MessageAppended(2), "the aborted round kept its call, this one adds two");
    assert_eq!(d.last_message().content, r#"{"error":"stopped by the user"}"#);
    assert!(!d.approve_tool_call("call_0"));
    assert_eq!(time.waiting(), 0);
}

#[test]
fn the_calls_of_one_answer_run_together_and_are_appended_in_call_order() {
    let srv = chat_server(vec![calling(&["first", "second"]), answer("Both done.")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let first = Held::new("first");
    let second = Held::new("second");
    c.add_function(first.clone());
    c.add_function(second.clone());
    d.run();
    wait_for("both calls running at once", || first.waiting() == 1 && second.waiting() == 1);
    second.answer(json!({"n": 2}));
    wait_for("the second call's end", || rec.snapshot().iter().any(|e| matches!(e, Event::ToolCallFinished { .. })));
    assert_eq!(d.message_count(), 1, "the second answer waits for the first");
    first.answer(json!({"n": 1}));
    rec.wait_finished();
    assert_eq!(tool_messages(&d), [("call_0".into(), r#"{"n":1}"#.into()), ("call_1".into(), r#"{"n":2}"#.into())]);
    assert_eq!(d.last_message().content, "Both done.");
}

#[test]
fn without_parallel_tool_calls_one_call_waits_for_the_previous_one() {
    let srv = chat_server(vec![calling(&["first", "second"]), answer("In turn.")]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let first = Held::new("first");
    let second = Held::new("second");
    c.add_function(first.clone());
    c.add_function(second.clone());
    d.set_parallel_tool_calls(false);
    d.run();
    wait_for("the first call", || first.waiting() == 1);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(second.waiting(), 0, "the second call has not started");
    first.answer(json!({"n": 1}));
    wait_for("the second call", || second.waiting() == 1);
    second.answer(json!({"n": 2}));
    rec.wait_finished();
    assert_eq!(d.last_message().content, "In turn.");
}

#[test]
fn max_tool_rounds_limits_the_rounds() {
    let srv = chat_server(vec![calling(&["get_time"]), calling(&["get_time"])]);
    let (c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    let time = Held::new("get_time");
    c.add_function(time.clone());
    d.set_max_tool_rounds(1);
    d.run();
    wait_for("the call", || time.waiting() == 1);
    time.answer(json!({}));
    rec.wait_finished();
    assert_eq!(ended(&rec.take()), &Event::RunFailed("Too many tool call rounds.".into()));
    assert_eq!(srv.requests().len(), 2);

    d.set_max_tool_rounds(0);
    srv.set_script(vi_scripted_server::script(vec![calling(&["get_time"])])).unwrap();
    d.run();
    rec.wait_finished();
    assert_eq!(ended(&rec.take()), &Event::RunFailed("Too many tool call rounds.".into()));
    assert_eq!(time.waiting(), 0, "with 0 rounds no tool runs");
}

#[test]
fn every_run_finishes_exactly_once() {
    let srv = chat_server(vec![answer("one"), Step::error(400, "bad"), answer("three")]);
    let (_c, d, rec) = setup(vec![model("m1", &srv.base_url())]);
    for _ in 0..3 {
        d.run();
        rec.wait_finished();
        let events = rec.take();
        ended(&events);
    }
    d.run();
    d.abort();
    d.abort();
    d.stop();
    ended(&rec.take());
}
