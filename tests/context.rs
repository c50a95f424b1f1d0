//! Long conversations against the scripted server (SPEC §I.4, issue 32): what a request leaves
//! out and what it keeps, the providers' overflow answers on every API, the retry after
//! trimming, the summary round on the summary model.

mod support;

use serde_json::{Value, json};
use support::*;
use vi_scripted_server::{Step, chat_chunk_content, done, usage_chunk};
use visindigo_agent::{Api, ContextPolicy, Dialog, Event, Message, Role};

fn answer(text: &str) -> Step {
    Step::sse(vec![chat_chunk_content(text), usage_chunk(50, 5), done()])
}

/// A history of `turns` long user/assistant turns, then the last question.
fn fill(d: &Dialog, turns: usize) {
    d.append_message(Message::new(Role::System, "You are brief."));
    for i in 0..turns {
        d.append_message(Message::new(Role::User, format!("question {i}: {}", "lorem ipsum dolor sit amet ".repeat(40))));
        d.append_message(Message::new(Role::Assistant, format!("answer {i}: {}", "consectetur adipiscing elit ".repeat(40))));
    }
    d.append_message(Message::new(Role::User, "the last question"));
}

fn sent_texts(body: &Value) -> Vec<String> {
    body["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap_or_default().to_owned()).collect()
}

fn run(d: &Dialog, rec: &Recorder) -> Vec<Event> {
    d.run();
    wait_idle(d);
    rec.wait_finished();
    rec.take()
}

fn trims(events: &[Event]) -> Vec<(i32, i32)> {
    events.iter().filter_map(|e| if let Event::ContextTrimmed { left_out, estimated } = e { Some((*left_out, *estimated)) } else { None }).collect()
}

fn failed(events: &[Event]) -> Option<String> {
    events.iter().find_map(|e| if let Event::RunFailed(m) = e { Some(m.clone()) } else { None })
}

#[test]
fn fail_refuses_before_sending() {
    let srv = chat_server(vec![answer("never")]);
    let mut m = model("m", &srv.base_url());
    m.context_window = 600;
    let (_c, d, rec) = setup(vec![m]);
    fill(&d, 4);
    rec.take();
    let events = run(&d, &rec);
    let message = failed(&events).expect("the run fails");
    assert!(message.starts_with("[ContextOverflow] ") && message.ends_with(" of 600 tokens"), "{message}");
    assert!(srv.requests().is_empty(), "nothing was sent");
}

#[test]
fn drop_oldest_leaves_out_whole_turns_and_keeps_the_system_prompt_and_the_last_question() {
    let srv = chat_server(vec![answer("fits")]);
    let mut m = model("m", &srv.base_url());
    m.context_window = 900;
    let (_c, d, rec) = setup(vec![m]);
    fill(&d, 6);
    let before = d.messages();
    d.set_context_policy(ContextPolicy::DropOldest);
    rec.take();
    let events = run(&d, &rec);
    assert_eq!(failed(&events), None);
    let body = &bodies(&srv)[0];
    let texts = sent_texts(body);
    assert_eq!(texts[0], "You are brief.");
    assert_eq!(texts.last().unwrap(), "the last question");
    assert!(texts[1].starts_with("question "), "the request starts a turn: {:?}", texts[1]);
    assert!(texts.len() < before.len());
    let left_out = (before.len() - texts.len()) as i32;
    let trimmed = trims(&events);
    assert_eq!(trimmed.len(), 1);
    assert_eq!(trimmed[0].0, left_out);
    assert!(trimmed[0].1 <= 900, "{trimmed:?}");
    // The dialog's own history is unchanged (plus the answer).
    assert_eq!(&d.messages()[..before.len()], &before[..]);
    assert_eq!(d.message_count(), before.len() + 1);
}

#[test]
fn a_fitting_request_is_sent_whole_without_a_trim() {
    let srv = chat_server(vec![answer("fits")]);
    let mut m = model("m", &srv.base_url());
    m.context_window = 100_000;
    let (_c, d, rec) = setup(vec![m]);
    fill(&d, 3);
    d.set_context_policy(ContextPolicy::DropOldest);
    let events = run(&d, &rec);
    assert!(trims(&events).is_empty());
    assert_eq!(sent_texts(&bodies(&srv)[0]).len(), d.message_count() - 1);
}

/// The exact error bodies each API sends when a prompt is too long.
fn overflow_answer(api: Api) -> Step {
    let body = match api {
        Api::ChatCompletions => json!({"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130012 tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
        Api::Responses => json!({"error": {"message": "Your input exceeds the context window of this model. Please adjust your input and try again.", "type": "invalid_request_error", "param": "input", "code": "context_length_exceeded"}}),
        Api::AnthropicMessages => json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 208310 tokens > 200000 maximum"}, "request_id": "req_011CVQe1dLrGNMJyE1ghG1av"}),
        Api::Gemini => json!({"error": {"code": 400, "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}),
    };
    Step::body(400, body)
}

#[test]
fn the_providers_overflow_answers_are_context_overflow_on_every_api() {
    for api in [Api::ChatCompletions, Api::Responses, Api::AnthropicMessages, Api::Gemini] {
        let srv = chat_server(vec![overflow_answer(api)]);
        let mut m = model("m", &srv.base_url());
        m.api = api;
        let (_c, d, rec) = setup(vec![m]);
        fill(&d, 1);
        let message = failed(&run(&d, &rec)).expect("the run fails");
        assert!(message.starts_with("[ContextOverflow] Server returned HTTP 400"), "{api:?}: {message}");
        assert_eq!(srv.requests().len(), 1, "{api:?}: Fail does not retry");
    }
}

#[test]
fn a_gateways_overflow_answer_is_context_overflow_too() {
    let litellm = json!({"error": {"message": "litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicException - prompt is too long: 209353 tokens > 199999 maximum", "type": null, "param": null, "code": "400"}});
    let srv = chat_server(vec![Step::body(400, litellm)]);
    let (_c, d, rec) = setup(vec![model("m", &srv.base_url())]);
    fill(&d, 1);
    assert!(failed(&run(&d, &rec)).unwrap().starts_with("[ContextOverflow]"));
    let other = chat_server(vec![Step::error(400, "Invalid value for 'temperature'")]);
    let (_c, d, rec) = setup(vec![model("m", &other.base_url())]);
    fill(&d, 1);
    assert!(failed(&run(&d, &rec)).unwrap().starts_with("[HttpStatusError]"));
}

#[test]
fn drop_oldest_retries_once_smaller_after_the_providers_overflow_answer() {
    let srv = chat_server(vec![overflow_answer(Api::ChatCompletions), answer("fits now")]);
    // The window is unknown: only the provider's answer tells.
    let (_c, d, rec) = setup(vec![model("m", &srv.base_url())]);
    fill(&d, 6);
    d.set_context_policy(ContextPolicy::DropOldest);
    let events = run(&d, &rec);
    assert_eq!(failed(&events), None);
    let sent = bodies(&srv);
    assert_eq!(sent.len(), 2);
    let (first, second) = (sent_texts(&sent[0]), sent_texts(&sent[1]));
    assert_eq!(first.len(), 14);
    assert!(second.len() < first.len() && second[0] == "You are brief." && second.last().unwrap() == "the last question");
    assert_eq!(trims(&events).len(), 1);
    assert_eq!(d.last_message().content.as_str(), "fits now");

    // A second overflow ends the run: one retry only.
    let srv = chat_server(vec![overflow_answer(Api::ChatCompletions), overflow_answer(Api::ChatCompletions), answer("never")]);
    let (_c, d, rec) = setup(vec![model("m", &srv.base_url())]);
    fill(&d, 6);
    d.set_context_policy(ContextPolicy::DropOldest);
    assert!(failed(&run(&d, &rec)).unwrap().starts_with("[ContextOverflow]"));
    assert_eq!(srv.requests().len(), 2);
}

#[test]
fn summarize_asks_the_summary_model_and_keeps_its_summary() {
    let main = chat_server(vec![answer("fits"), answer("again")]);
    let summarizer = chat_server(vec![answer("THE SUMMARY of the early turns")]);
    let mut m = model("m", &main.base_url());
    m.context_window = 900;
    let (center, d, rec) = setup(vec![m]);
    center.add_model(model("summarizer", &summarizer.base_url()));
    fill(&d, 6);
    d.set_context_policy(ContextPolicy::Summarize);
    d.set_summary_model("", "summarizer");
    let events = run(&d, &rec);
    assert_eq!(failed(&events), None);
    // The summary round went to the summary model, with the turns it covers.
    let asked = &bodies(&summarizer)[0];
    assert_eq!(asked["model"], "name-of-summarizer");
    let transcript = asked["messages"].to_string();
    assert!(transcript.contains("question 0") && !transcript.contains("the last question"), "{transcript}");
    let summary = d.context_summary().expect("the dialog keeps the summary");
    assert_eq!(summary.text, "THE SUMMARY of the early turns");
    // The request carried the summary in place of the turns, after the instructions.
    let texts = sent_texts(&bodies(&main)[0]);
    assert!(texts[0].contains("THE SUMMARY of the early turns"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.starts_with("question 0")));
    assert_eq!(texts.last().unwrap(), "the last question");
    assert_eq!(trims(&events).len(), 1);
    // Saved and read back.
    let saved = d.to_json();
    assert_eq!(saved["contextPolicy"], "summarize");
    assert_eq!(saved["contextSummary"]["text"], "THE SUMMARY of the early turns");
    assert_eq!(saved["contextSummary"]["lastMessage"], summary.covered as i64 - 1);
    let back = center.create_dialog();
    back.from_json(saved.as_object().unwrap());
    assert_eq!(back.context_summary(), Some(summary.clone()));
    assert_eq!(back.context_policy(), ContextPolicy::Summarize);
    // The next run that still fits the summary does not ask again.
    d.append_message(Message::new(Role::User, "one more"));
    assert_eq!(failed(&run(&d, &rec)), None);
    assert_eq!(summarizer.requests().len(), 1);
}

#[test]
fn the_json_keys_are_written_only_when_not_default() {
    let (_c, d, _rec) = setup(vec![]);
    let o = d.to_json();
    for key in ["contextPolicy", "contextSummary", "summaryModel"] {
        assert!(o.get(key).is_none(), "{key}");
    }
    d.set_context_policy(ContextPolicy::DropOldest);
    d.set_summary_model("p", "s");
    let o = d.to_json();
    assert_eq!((o["contextPolicy"].as_str(), o["summaryModel"]["modelId"].as_str()), (Some("dropOldest"), Some("s")));
    d.from_json(json!({"contextPolicy": "SUMMARIZE"}).as_object().unwrap());
    assert_eq!((d.context_policy(), d.summary_model()), (ContextPolicy::Summarize, (String::new(), String::new())));
    d.from_json(json!({"contextPolicy": 7, "contextSummary": {"text": "x", "lastMessage": 3}}).as_object().unwrap());
    assert_eq!((d.context_policy(), d.context_summary()), (ContextPolicy::Fail, None), "a summary past the messages is dropped");
}
