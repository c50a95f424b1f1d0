//! The APIs beyond Chat Completions (SPEC §H.2) against the scripted server: OpenAI Responses
//! and Anthropic Messages — text, reasoning, tool rounds (signed thinking sent back), usage,
//! failures, structured output, and fallback from one API to another in one provider. Every
//! body is also validated with the official SDKs' request types (ctest sdk_request_bodies).

mod support;

use serde_json::{Value, json};
use std::sync::Arc;
use support::*;
use vi_scripted_server::{Step, chat_chunk_content, done, typed_event};
use visindigo_agent::{Api, Event, Function, FunctionSpec, HostToken, Message, Model, Role, ToolReply};

fn with_api(mut model: Model, api: Api) -> Model {
    model.api = api;
    model
}

/// A function that answers `{"time":"noon"}`.
struct Clock(FunctionSpec);

impl Function for Clock {
    fn spec(&self) -> &FunctionSpec {
        &self.0
    }
    fn invoke(&self, _: Value, _: HostToken, reply: ToolReply) {
        reply.complete(json!({"time": "noon"}));
    }
}

fn clock() -> Arc<Clock> {
    Arc::new(Clock(FunctionSpec {
        id: "get_time".into(),
        name: "Clock".into(),
        description: "Tells the time".into(),
        parameter_schema: json!({"type": "object", "properties": {"zone": {"type": "string"}}}),
        host: None,
    }))
}

// ---- OpenAI Responses --------------------------------------------------------------------

/// A stream fixture of tests/fixtures/streams (shared with tests/sdk_streams.py, which checks
/// that the official SDKs read it as its "expect" says): the step that plays it, and that.
fn fixture(name: &str) -> (Step, Value) {
    let path = format!("{}/tests/fixtures/streams/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("the fixture exists")).unwrap();
    let events = fixture["events"].as_array().unwrap().iter().cloned();
    // Gemini's events are unnamed `data:` lines; the typed streams name each after its type.
    let events = if fixture["api"] == "gemini" { events.collect() } else { events.map(typed_event).collect() };
    (Step::sse(events), fixture["expect"].clone())
}

/// What the last answer of `d` holds, in the fixtures' "expect" terms.
fn answer_as_expected(message: &Message) -> Value {
    let calls: Value = serde_json::from_str(if message.tool_calls.is_empty() { "[]" } else { &message.tool_calls }).unwrap();
    let calls: Vec<Value> = calls
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!({"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]}))
        .collect();
    let mut expect = json!({"text": message.content.as_str(), "reasoning": message.reasoning, "tool_calls": calls});
    if !message.thinking_blocks.is_empty() {
        expect["thinking_blocks"] = serde_json::from_str(&message.thinking_blocks).unwrap();
    }
    expect
}

#[test]
fn responses_streams_text_reasoning_and_usage() {
    let (step, expect) = fixture("responses_text");
    let srv = chat_server(vec![step]);
    let (_c, d, rec) = setup(vec![with_api(model("m1", &srv.base_url()), Api::Responses)]);
    d.append_message(Message::new(Role::User, "hi"));
    rec.take();
    d.run();
    rec.wait_finished();
    assert_eq!(
        rec.take(),
        vec![
            Event::StreamBegan,
            Event::StreamReasoning("Thinking ".into()),
            Event::StreamReasoning("about it.".into()),
            Event::StreamDelta("Hello".into()),
            Event::StreamDelta(" there.".into()),
            Event::MessageAppended(1),
            Event::UsageUpdated(d.last_usage().unwrap()),
            Event::StreamEnded("Hello there.".into()),
            Event::RunFinished,
        ]
    );
    assert_eq!(answer_as_expected(&d.last_message()), expect);
    assert_eq!(d.last_usage().unwrap()["total_tokens"], json!(18));
    assert_eq!((d.last_usage().unwrap()["inputTokens"].clone(), d.last_usage().unwrap()["reasoningTokens"].clone()), (json!(11), json!(4)));
    let request = &srv.requests()[0];
    assert_eq!(request.path, "/v1/responses");
    assert_eq!(request.header("authorization"), Some("Bearer sk-test-token"));
    assert_eq!(
        bodies(&srv)[0],
        json!({"model": "name-of-m1", "stream": true, "store": false, "include": ["reasoning.encrypted_content"], "input": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]})
    );
}

#[test]
fn responses_tool_rounds_send_the_calls_back_with_their_outputs() {
    let (call, expect) = fixture("responses_call");
    let srv = chat_server(vec![call, fixture("responses_text").0]);
    let (c, d, rec) = setup(vec![with_api(model("m1", &srv.base_url()), Api::Responses)]);
    c.add_function(clock());
    d.append_message(Message::new(Role::User, "time?"));
    d.run();
    rec.wait_finished();
    assert_eq!(ended(&rec.take()), &Event::StreamEnded("Hello there.".into()));
    assert_eq!(answer_as_expected(&d.messages()[1]), expect);
    let bodies = bodies(&srv);
    assert_eq!(
        bodies[0]["tools"],
        json!([{"type": "function", "name": "get_time", "description": "Tells the time", "strict": false, "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}])
    );
    assert_eq!(
        bodies[1]["input"],
        json!([
            {"role": "user", "content": [{"type": "input_text", "text": "time?"}]},
            {"type": "function_call", "call_id": "call_A", "name": "get_time", "arguments": "{\"zone\":\"UTC\"}"},
            {"type": "function_call_output", "call_id": "call_A", "output": "{\"time\":\"noon\"}"}
        ])
    );
}

#[test]
fn responses_reasoning_survives_the_tool_round_and_the_next_run() {
    let (call, expect) = fixture("responses_reasoning_call");
    let srv = chat_server(vec![call, fixture("responses_text").0, fixture("responses_text").0]);
    let (c, d, rec) = setup(vec![with_api(model("m1", &srv.base_url()), Api::Responses)]);
    c.add_function(clock());
    d.append_message(Message::new(Role::User, "time?"));
    d.run();
    rec.wait_finished();
    assert_eq!(answer_as_expected(&d.messages()[1]), expect);
    // A later run, from the dialog's JSON: the reasoning is still sent back.
    let restored = c.create_dialog();
    restored.from_json(d.to_json().as_object().unwrap());
    restored.append_message(Message::new(Role::User, "and now?"));
    restored.run();
    wait_idle(&restored);
    let reasoning = expect["thinking_blocks"][0].clone();
    let call = json!({"type": "function_call", "call_id": "call_R", "name": "get_time", "arguments": "{\"zone\":\"UTC\"}"});
    let output = json!({"type": "function_call_output", "call_id": "call_R", "output": "{\"time\":\"noon\"}"});
    let bodies = bodies(&srv);
    for body in &bodies {
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    }
    assert_eq!(bodies[1]["input"].as_array().unwrap()[1..], [reasoning.clone(), call.clone(), output.clone()]);
    assert_eq!(bodies[2]["input"].as_array().unwrap()[1..4], [reasoning, call, output]);
}

#[test]
fn prompt_caching_and_one_normalised_usage_on_every_api() {
    let chat_usage = json!({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110,
        "prompt_tokens_details": {"cached_tokens": 80}, "completion_tokens_details": {"reasoning_tokens": 4}}});
    let responses_usage = json!({"input_tokens": 100, "input_tokens_details": {"cached_tokens": 80, "cache_write_tokens": 0},
        "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 4}, "total_tokens": 110});
    let text = |delta: &str| typed_event(json!({"type": "response.output_text.delta", "delta": delta}));
    let anthropic = |kind: &str, rest: Value| {
        let mut event = rest;
        event["type"] = kind.into();
        typed_event(event)
    };
    let srv = chat_server(vec![
        Step::sse(vec![chat_chunk_content("a"), chat_usage, done()]),
        Step::sse(vec![text("b"), typed_event(json!({"type": "response.completed", "response": {"status": "completed", "usage": responses_usage}}))]),
        Step::sse(vec![
            anthropic("message_start", json!({"message": {"usage": {"input_tokens": 10, "cache_read_input_tokens": 80, "cache_creation_input_tokens": 10, "output_tokens": 1}}})),
            anthropic("content_block_start", json!({"index": 0, "content_block": {"type": "text", "text": ""}})),
            anthropic("content_block_delta", json!({"index": 0, "delta": {"type": "text_delta", "text": "c"}})),
            anthropic("message_delta", json!({"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 10, "output_tokens_details": {"thinking_tokens": 4}}})),
            anthropic("message_stop", json!({})),
        ]),
    ]);
    let mut dialog_ids = Vec::new();
    for (api, cache_write) in [(Api::ChatCompletions, 0), (Api::Responses, 0), (Api::AnthropicMessages, 10)] {
        let mut m = with_api(model("m", &srv.base_url()), api);
        m.prompt_caching = true;
        let (_c, d, rec) = setup(vec![m]);
        d.append_message(Message::new(Role::User, "long prefix"));
        rec.take();
        d.run();
        rec.wait_finished();
        let events = rec.take();
        let updates: Vec<&Value> = events.iter().filter_map(|e| if let Event::UsageUpdated(u) = e { Some(u) } else { None }).collect();
        assert_eq!(updates.len(), 1, "once per round ({api:?}): {events:?}");
        let position = |wanted: fn(&Event) -> bool| events.iter().position(wanted).unwrap();
        assert!(position(|e| matches!(e, Event::UsageUpdated(_))) < position(|e| matches!(e, Event::StreamEnded(_))));
        let usage = updates[0];
        let counts: Vec<i64> = ["inputTokens", "outputTokens", "cachedInputTokens", "cacheWriteTokens", "reasoningTokens"]
            .iter()
            .map(|key| usage[*key].as_i64().unwrap())
            .collect();
        assert_eq!(counts, [100, 10, 80, cache_write, 4], "{api:?}: {usage}");
        assert_eq!(d.last_usage().as_ref(), Some(usage));
        assert!(usage["raw"].is_object() && usage.get(if api == Api::ChatCompletions { "prompt_tokens" } else { "output_tokens" }).is_some());
        dialog_ids.push(d.id());
    }
    let bodies = bodies(&srv);
    assert_eq!(bodies[0]["prompt_cache_key"], json!(dialog_ids[0]));
    assert_eq!(bodies[1]["prompt_cache_key"], json!(dialog_ids[1]));
    assert_eq!(bodies[2]["cache_control"], json!({"type": "ephemeral"}));
}

#[test]
fn responses_failures_are_server_errors() {
    let failed = typed_event(json!({"type": "response.failed", "response": {"status": "failed", "error": {"code": "server_error", "message": "the model crashed"}}}));
    let incomplete = typed_event(json!({"type": "response.incomplete", "response": {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}));
    let error = typed_event(json!({"type": "error", "code": "rate_limit", "message": "slow down", "param": null}));
    let srv = chat_server(vec![Step::sse(vec![failed]), Step::sse(vec![incomplete]), Step::sse(vec![error])]);
    let (_c, d, rec) = setup_with(vec![with_api(model("m1", &srv.base_url()), Api::Responses)], |p| p.retries = 0);
    for expected in ["[ServerError] the model crashed", "[ServerError] the response is incomplete (max_output_tokens)", "[ServerError] slow down"] {
        d.run();
        rec.wait_finished();
        assert_eq!(ended(&rec.take()), &Event::RunFailed(expected.into()));
    }
}

// ---- Anthropic Messages ------------------------------------------------------------------

#[test]
fn anthropic_streams_a_tool_round_and_sends_the_signed_thinking_back() {
    let (call, expect) = fixture("anthropic_call");
    let srv = chat_server(vec![call, fixture("anthropic_text").0]);
    let (c, d, rec) = setup(vec![with_api(model("m1", &srv.base_url()), Api::AnthropicMessages)]);
    c.add_function(clock());
    d.append_message(Message::new(Role::System, "Be brief."));
    d.append_message(Message::new(Role::User, "time?"));
    rec.take();
    d.run();
    rec.wait_finished();
    let events = rec.take();
    assert_eq!(ended(&events), &Event::StreamEnded("It is noon.".into()));
    assert_eq!(events[1], Event::StreamReasoning("The user wants ".into()));
    assert_eq!(events[3], Event::StreamDelta("Let me check.".into()));
    assert_eq!(answer_as_expected(&d.messages()[2]), expect);
    let raw = json!({"input_tokens": 30, "output_tokens": 5});
    let normalised = json!({"input_tokens": 30, "output_tokens": 5, "inputTokens": 30, "outputTokens": 5,
        "cachedInputTokens": 0, "cacheWriteTokens": 0, "reasoningTokens": 0, "raw": raw});
    assert_eq!(d.last_usage(), Some(normalised));
    let request = &srv.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    // The newest version by default, as the official SDKs send it (SPEC §I.2.1).
    assert_eq!(request.header("authorization"), Some("Bearer sk-test-token"));
    assert_eq!(request.header("anthropic-version"), Some("2026-10-21"));
    assert_eq!(request.header("x-api-key"), None);
    let bodies = bodies(&srv);
    assert_eq!(bodies[0]["max_tokens"], json!(4096));
    assert_eq!(bodies[0]["system"], json!("Be brief."));
    assert_eq!(bodies[0]["tools"], json!([{"name": "get_time", "description": "Tells the time", "input_schema": {"type": "object", "properties": {"zone": {"type": "string"}}}}]));
    let thinking = json!({"type": "thinking", "thinking": "The user wants the time.", "signature": "EqQBCgIYAhIM=="});
    assert_eq!(
        bodies[1]["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "time?"}]},
            {"role": "assistant", "content": [
                thinking,
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_time", "input": {"zone": "UTC"}}
            ]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"time\":\"noon\"}"}]}
        ])
    );
    // The signed block survives the dialog's JSON, under an extension key of its message.
    let saved = d.to_json();
    let call = &saved["messages"][2];
    assert_eq!(serde_json::from_str::<Value>(call["thinkingBlocks"].as_str().unwrap()).unwrap(), json!([thinking]));
    assert!(saved["messages"][1].get("thinkingBlocks").is_none(), "only where present");
    let restored = c.create_dialog();
    restored.from_json(saved.as_object().unwrap());
    assert_eq!(restored.messages()[2].thinking_blocks, d.messages()[2].thinking_blocks);
}

/// Two models of `api` (`names`) that fail with `failures`, then a Chat Completions model
/// "local" that answers "from the fallback": the run's events, and the dialog.
fn falling_back(api: Api, names: [&str; 2], failures: [Step; 2]) -> (visindigo_agent::Dialog, Vec<Event>, vi_scripted_server::ScriptedServer) {
    let [first, second] = failures;
    let srv = chat_server(vec![first, second, Step::sse(vec![chat_chunk_content("from the fallback"), done()])]);
    let models = vec![with_api(model(names[0], &srv.base_url()), api), with_api(model(names[1], &srv.base_url()), api), model("local", &srv.base_url())];
    let (_c, d, rec) = setup(models);
    d.append_message(Message::new(Role::User, "hi"));
    d.run();
    rec.wait_finished();
    let events = rec.take();
    (d, events, srv)
}

#[test]
fn anthropic_overload_falls_back_to_a_chat_completions_model() {
    let overloaded = typed_event(json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}));
    let failures = [Step::sse(vec![overloaded]), Step::error(529, "overloaded")];
    let (d, events, srv) = falling_back(Api::AnthropicMessages, ["claude", "claude-2"], failures);
    let fallbacks = fallbacks(&events);
    assert_eq!(fallbacks[0], ("claude", "claude-2", "[ServerError] Overloaded"));
    assert_eq!((fallbacks[1].0, fallbacks[1].1), ("claude-2", "local"));
    assert!(fallbacks[1].2.contains("HTTP 529"), "{}", fallbacks[1].2);
    assert_eq!(d.last_message().content, "from the fallback");
    let paths: Vec<_> = srv.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths, ["/v1/messages", "/v1/messages", "/v1/chat/completions"]);
}

#[test]
fn the_response_schema_is_asked_for_in_each_apis_terms() {
    let srv = chat_server(vec![
        Step::sse(vec![chat_chunk_content("{}"), done()]),
        fixture("responses_text").0,
        fixture("anthropic_text").0,
        fixture("gemini_text").0,
    ]);
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false});
    for api in [Api::ChatCompletions, Api::Responses, Api::AnthropicMessages, Api::Gemini] {
        let (_c, d, rec) = setup(vec![with_api(model("m", &srv.base_url()), api)]);
        d.set_response_schema("city", schema.clone());
        d.append_message(Message::new(Role::User, "where?"));
        d.run();
        rec.wait_finished();
    }
    let bodies = bodies(&srv);
    assert_eq!(bodies[0]["response_format"], json!({"type": "json_schema", "json_schema": {"name": "city", "schema": schema, "strict": true}}));
    assert_eq!(bodies[1]["text"], json!({"format": {"type": "json_schema", "name": "city", "schema": schema, "strict": true}}));
    assert_eq!(bodies[2]["output_config"], json!({"format": {"type": "json_schema", "schema": schema}}));
    assert_eq!(bodies[3]["generationConfig"], json!({"responseMimeType": "application/json", "responseJsonSchema": schema}));
}

#[test]
fn an_anthropic_key_never_follows_a_redirect_to_another_origin() {
    let elsewhere = chat_server(vec![fixture("anthropic_text").0]);
    let srv = chat_server(vec![Step::sse(vec![]).status(307).header("Location", &format!("{}/messages", elsewhere.base_url()))]);
    let mut keyed = with_api(model("m1", &srv.base_url()), Api::AnthropicMessages);
    keyed.api_version = "2023-06-01".into();
    let (_c, d, rec) = setup_with(vec![keyed], |p| p.retries = 0);
    d.run();
    rec.wait_finished();
    match ended(&rec.take()) {
        Event::RunFailed(message) => assert!(message.contains("another origin"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert!(elsewhere.requests().is_empty(), "the key did not leave its origin");
}

#[test]
fn a_bearer_token_is_dropped_when_a_redirect_leaves_the_origin() {
    let elsewhere = chat_server(vec![fixture("anthropic_text").0]);
    let srv = chat_server(vec![Step::sse(vec![]).status(307).header("Location", &format!("{}/messages", elsewhere.base_url()))]);
    let (_c, d, rec) = setup_with(vec![with_api(model("m1", &srv.base_url()), Api::AnthropicMessages)], |p| p.retries = 0);
    d.run();
    rec.wait_finished();
    let followed = elsewhere.requests();
    assert_eq!(followed.len(), 1, "{:?}", rec.take());
    assert_eq!(followed[0].header("authorization"), None, "the token stayed at its origin");
}

#[test]
fn each_anthropic_version_keeps_its_own_rules() {
    let srv = chat_server(vec![fixture("anthropic_text").0, fixture("anthropic_text").0]);
    let mut model = with_api(model("m1", &srv.base_url()), Api::AnthropicMessages);
    model.set_parameter("temperature", json!(0.3));
    model.set_parameter("top_p", json!(0.9));
    model.set_parameter("max_tokens", json!(256));
    let mut legacy = model.clone();
    legacy.api_version = "2023-06-01".into();
    for model in [model, legacy] {
        let (_c, d, rec) = setup(vec![model]);
        d.append_message(Message::new(Role::User, "hi"));
        d.run();
        rec.wait_finished();
        assert_eq!(ended(&rec.take()), &Event::StreamEnded("It is noon.".into()));
    }
    let (requests, bodies) = (srv.requests(), bodies(&srv));
    assert_eq!(requests[0].header("anthropic-version"), Some("2026-10-21"));
    assert!(bodies[0].get("temperature").is_none() && bodies[0].get("top_p").is_none(), "{}", bodies[0]);
    assert_eq!(bodies[0]["max_tokens"], json!(256));
    assert_eq!(requests[1].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(requests[1].header("x-api-key"), Some("sk-test-token"));
    assert_eq!((bodies[1]["temperature"].clone(), bodies[1]["top_p"].clone()), (json!(0.3), json!(0.9)));
}

#[test]
fn stop_and_abort_work_on_every_api() {
    let stall = vi_scripted_server::stall();
    let srv = chat_server(vec![
        Step::sse(vec![typed_event(json!({"type": "response.output_text.delta", "delta": "par"})), stall.clone()]),
        Step::sse(vec![
            typed_event(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
            typed_event(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "tial"}})),
            stall.clone(),
        ]),
        Step::sse(vec![json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ans"}]}}]}), stall]),
    ]);
    for (api, text) in [(Api::Responses, "par"), (Api::AnthropicMessages, "tial"), (Api::Gemini, "ans")] {
        let (_c, d, rec) = setup(vec![with_api(model("m", &srv.base_url()), api)]);
        d.append_message(Message::new(Role::User, "go"));
        d.run();
        wait_for("the partial answer", || rec.snapshot().contains(&Event::StreamDelta(text.into())));
        d.stop();
        assert_eq!(ended(&rec.take()), &Event::StreamEnded(text.into()));
        assert_eq!(d.last_message().content, text);
    }
}

// ---- Gemini ------------------------------------------------------------------------------

#[test]
fn gemini_streams_a_tool_round_and_sends_the_signature_back() {
    let (call, expect) = fixture("gemini_call");
    let srv = chat_server(vec![call, fixture("gemini_text").0]);
    let (c, d, rec) = setup(vec![with_api(model("m1", &format!("{}beta", srv.base_url())), Api::Gemini)]);
    c.add_function(clock());
    d.append_message(Message::new(Role::System, "Be brief."));
    d.append_message(Message::new(Role::User, "time?"));
    rec.take();
    d.run();
    rec.wait_finished();
    let events = rec.take();
    assert_eq!(ended(&events), &Event::StreamEnded("It is noon.".into()));
    assert_eq!(events[1], Event::StreamReasoning("The user wants ".into()));
    assert_eq!(events[3], Event::StreamDelta("Let me check.".into()));
    assert_eq!(answer_as_expected(&d.messages()[2]), expect);
    let usage = d.last_usage().unwrap();
    assert_eq!((usage["inputTokens"].clone(), usage["cachedInputTokens"].clone(), usage["outputTokens"].clone()), (json!(90), json!(64), json!(4)));
    let first_usage = events.iter().find_map(|e| if let Event::UsageUpdated(u) = e { Some(u.clone()) } else { None }).unwrap();
    assert_eq!((first_usage["outputTokens"].clone(), first_usage["reasoningTokens"].clone()), (json!(37), json!(25)), "thoughts count as output");
    let request = &srv.requests()[0];
    assert_eq!(request.path, "/v1beta/models/name-of-m1:streamGenerateContent?alt=sse");
    assert_eq!(request.header("x-goog-api-key"), Some("sk-test-token"));
    assert_eq!(request.header("authorization"), None);
    let bodies = bodies(&srv);
    assert_eq!(bodies[0]["systemInstruction"], json!({"parts": [{"text": "Be brief."}]}));
    assert_eq!(
        bodies[0]["tools"],
        json!([{"functionDeclarations": [{"name": "get_time", "description": "Tells the time", "parametersJsonSchema": {"type": "object", "properties": {"zone": {"type": "string"}}}}]}])
    );
    assert_eq!(
        bodies[1]["contents"],
        json!([
            {"role": "user", "parts": [{"text": "time?"}]},
            {"role": "model", "parts": [{"text": "Let me check."}, expect["thinking_blocks"][0]]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_time", "response": {"time": "noon"}}}]}
        ])
    );
}

#[test]
fn gemini_overload_and_quota_fall_back_to_the_next_model() {
    let overloaded = json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}});
    let quota = json!({"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}});
    let (d, events, _srv) = falling_back(Api::Gemini, ["gemini", "gemini-2"], [Step::sse(vec![overloaded]), Step::body(429, quota)]);
    let fallbacks = fallbacks(&events);
    assert_eq!(fallbacks[0], ("gemini", "gemini-2", "[ServerError] The model is overloaded. (UNAVAILABLE)"));
    assert!(fallbacks[1].2.contains("HTTP 429") && fallbacks[1].2.contains("Resource has been exhausted"), "{}", fallbacks[1].2);
    assert_eq!(d.last_message().content, "from the fallback");
}

#[test]
fn gemini_failures_are_named() {
    let bad = json!({"error": {"code": 400, "message": "Function call is missing a thought_signature", "status": "INVALID_ARGUMENT"}});
    let blocked = json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}});
    let stopped = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "par"}]}, "finishReason": "SAFETY"}]});
    let srv = chat_server(vec![Step::sse(vec![bad]), Step::sse(vec![blocked]), Step::sse(vec![stopped])]);
    let (_c, d, rec) = setup_with(vec![with_api(model("m1", &srv.base_url()), Api::Gemini)], |p| p.retries = 0);
    d.append_message(Message::new(Role::User, "hi"));
    for expected in [
        "[ServerError] Function call is missing a thought_signature (INVALID_ARGUMENT)",
        "[ServerError] the prompt was blocked (PROHIBITED_CONTENT)",
        "[ServerError] the answer was stopped (SAFETY)",
    ] {
        d.run();
        rec.wait_finished();
        assert_eq!(ended(&rec.take()), &Event::RunFailed(expected.into()));
    }
    assert_eq!(d.message_count(), 1, "a failed round leaves nothing");
}

// ---- fakellm: another implementation of the Anthropic Messages API -------------------------

/// fakellm (pip) serving the Anthropic Messages API on a free port, with rules for a tool
/// round: "what time" asks for get_time, a tool result that says "noon" gets the answer.
struct Fakellm {
    child: std::process::Child,
    port: u16,
    dir: std::path::PathBuf,
}

impl Fakellm {
    fn start() -> Fakellm {
        let python = python("fakellm.cli");
        let dir = std::env::temp_dir().join(format!("vi-fakellm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("fakellm.yaml");
        std::fs::write(
            &config,
            "version: 1\nrules:\n  - name: answer\n    when:\n      tool_result_contains: \"noon\"\n    respond:\n      content: \"It is noon in UTC.\"\n  - name: call\n    when:\n      messages_contain: \"what time\"\n    respond:\n      tool_calls:\n        - name: get_time\n          arguments: {\"zone\": \"UTC\"}\n  - name: greeting\n    when:\n      messages_contain: \"hello\"\n    respond:\n      content: \"Hi there from fakellm.\"\n",
        )
        .unwrap();
        let port = support::tinyproxy::free_port();
        let child = std::process::Command::new(python)
            .args(["-c", "from fakellm.cli import main; main()", "serve", "--port", &port.to_string(), "--config"])
            .arg(&config)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("fakellm starts");
        wait_for("fakellm to listen", || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
        Fakellm { child, port, dir }
    }
}

impl Drop for Fakellm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn fakellm_answers_a_text_and_a_tool_round_through_anthropic_messages() {
    let fake = Fakellm::start();
    let base = format!("http://127.0.0.1:{}/v1", fake.port);
    let (c, d, rec) = setup(vec![with_api(model("claude", &base), Api::AnthropicMessages)]);
    c.add_function(clock());
    d.append_message(Message::new(Role::User, "hello"));
    d.run();
    rec.wait_finished();
    assert_eq!(ended(&rec.take()), &Event::StreamEnded("Hi there from fakellm.".into()));

    d.append_message(Message::new(Role::User, "what time is it?"));
    d.run();
    rec.wait_finished();
    let events = rec.take();
    assert_eq!(ended(&events), &Event::StreamEnded("It is noon in UTC.".into()), "{events:?}");
    let messages = d.messages();
    let call: Value = serde_json::from_str(&messages[3].tool_calls).unwrap();
    assert_eq!(call[0]["function"]["name"], "get_time");
    assert_eq!(serde_json::from_str::<Value>(call[0]["function"]["arguments"].as_str().unwrap()).unwrap(), json!({"zone": "UTC"}));
    assert_eq!((messages[4].role, messages[4].content.as_str()), (Role::Tool, "{\"time\":\"noon\"}"));
    assert!(d.last_usage().unwrap()["output_tokens"].as_u64().unwrap() > 0);
}
