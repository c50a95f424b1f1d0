//! Long conversations (SPEC §I.4): what a request costs in tokens, and which of the dialog's
//! messages it leaves out when it would not fit the model's context window. The one place that
//! decides trimming; the wires only say what a message costs on their API and what their
//! provider's overflow answer looks like (`Wire::message_overhead`, `Wire::overflow`).
//!
//! The request's size is exact for the part the previous round's usage covered and estimated
//! for the rest: the provider counted `tokens` for a request the fast estimate put at
//! `estimated`, so every message that request held is counted at `tokens / estimated` times its
//! estimate. A request with the same messages and more after them is then exactly `tokens`
//! plus the estimate of what is new; any other cut is a calibrated estimate.

pub(crate) mod estimate;
pub use estimate::Tokenizer;
#[cfg(test)]
mod accuracy;

use super::failure::{Failure, Kind};
use super::request::ToolSpec;
use super::wire::Wire;
use crate::dialog::{ContextSummary, Measured};
use crate::message::{Message, Role};
use crate::model::Model;

/// The words of the providers' overflow answers, lower-cased: OpenAI (`context_length_exceeded`
/// and its two messages), Anthropic (`prompt is too long: N tokens > M maximum`), Gemini
/// (`The input token count (N) exceeds the maximum number of tokens allowed (M).`), and
/// LiteLLM's own name for them.
const OVERFLOW_WORDS: &[&str] = &[
    "context_length_exceeded",
    "maximum context length",
    "exceeds the context window",
    "prompt is too long",
    "exceeds the maximum number of tokens",
    "contextwindowexceedederror",
];

/// Whether a failure's text (or its body) carries the words of an overflow answer. Only a
/// refusal of the request counts: a 4xx status (400, 413, 422…) or an error in the stream.
pub fn overflow_words(failure: &Failure) -> bool {
    let refusal = match failure.status {
        Some(status) => (400..500).contains(&status) && status != 429,
        None => matches!(failure.kind, Kind::ServerError),
    };
    refusal && {
        let text = format!("{}\n{}", failure.text, failure.body).to_lowercase();
        OVERFLOW_WORDS.iter().any(|w| text.contains(w))
    }
}

/// The room the model's parameters keep for the answer (its `max_tokens` in any API's
/// spelling); 0 when they set none.
fn answer_room(model: &Model) -> i64 {
    ["max_tokens", "max_completion_tokens", "max_output_tokens"]
        .iter()
        .filter_map(|k| model.parameters.get(*k))
        .chain(model.parameters.get("generationConfig").and_then(|g| g.get("maxOutputTokens")))
        .filter_map(serde_json::Value::as_i64)
        .max()
        .unwrap_or(0)
        .max(0)
}

/// The tokens a request may hold on `model`: its window less the answer's room; None when
/// the window is unknown.
pub fn budget(model: &Model) -> Option<i64> {
    (model.context_window > 0).then(|| (model.context_window as i64 - answer_room(model)).max(1))
}

/// The estimated tokens of the text the dialog sends besides its messages: the instructions,
/// the tools and the summary.
pub fn fixed_tokens(tokenizer: Tokenizer, system: &str, tools: &[ToolSpec], summary: Option<&ContextSummary>) -> i64 {
    let tokens = |text: &str| estimate::tokens_for(tokenizer, text);
    let tools: i64 = tools.iter().map(|t| 8 + tokens(&t.name) + tokens(&t.description) + tokens(&t.schema.to_string())).sum();
    let summary = summary.map_or(0, |s| 8 + tokens(&s.text));
    tokens(system) + tools + summary + 3
}

/// The system text a request carries: the instructions, then the summary of what it leaves out.
pub fn system_with_summary(system: &str, summary: Option<&ContextSummary>) -> String {
    match summary {
        Some(s) if system.is_empty() => format!("{SUMMARY_HEADING}\n{}", s.text),
        Some(s) => format!("{system}\n\n{SUMMARY_HEADING}\n{}", s.text),
        None => system.to_owned(),
    }
}

/// What precedes the summary in a request's system text.
pub const SUMMARY_HEADING: &str = "Summary of the earlier part of this conversation:";

/// The sizes of one request's parts.
pub struct Sizes {
    fixed: i64,
    /// Each message's estimate.
    each: Vec<i64>,
    /// tokens / estimated of the measured request (1 without one).
    ratio: f64,
    /// For each cut 0..=len: the estimates of the messages a request with that cut keeps,
    /// summed apart for those the measured request covered (it ended at `Measured::to`) and
    /// those after it, so that `fit` tries every cut in one pass over the history rather than
    /// one pass per cut (a 10,000-message history took 39 ms to trim before, BENCHMARKS.md).
    kept: Vec<(i64, i64)>,
}

impl Sizes {
    pub fn new(wire: &dyn Wire, tokenizer: Tokenizer, fixed: i64, messages: &[Message], measured: Option<Measured>) -> Sizes {
        let each: Vec<i64> = messages.iter().map(|m| message_tokens(wire, tokenizer, m)).collect();
        let (measured_to, ratio) = match measured {
            // A count far from the estimate is images or a tokenizer unlike o200k: calibrate,
            // within reason.
            Some(m) if m.estimated > 0 && m.tokens > 0 => (m.to, (m.tokens as f64 / m.estimated as f64).clamp(0.5, 2.0)),
            _ => (0, 1.0),
        };
        let split = |i: usize, t: i64| if i < measured_to { (t, 0) } else { (0, t) };
        // Suffix sums of every message, prefix sums of the System ones (never left out).
        let n = each.len();
        let mut after = vec![(0i64, 0i64); n + 1];
        for i in (0..n).rev() {
            let (c, w) = split(i, each[i]);
            after[i] = (after[i + 1].0 + c, after[i + 1].1 + w);
        }
        let mut kept = Vec::with_capacity(n + 1);
        let mut system = (0i64, 0i64);
        for (cut, tail) in after.iter().enumerate() {
            kept.push((system.0 + tail.0, system.1 + tail.1));
            if cut < n && messages[cut].role == Role::System {
                let (c, w) = split(cut, each[cut]);
                system = (system.0 + c, system.1 + w);
            }
        }
        Sizes { fixed, each, ratio, kept }
    }

    /// The request's tokens when it leaves out the messages before `cut` (but System ones).
    /// `messages` are those `new` was given.
    pub fn total(&self, messages: &[Message], cut: usize) -> i64 {
        debug_assert_eq!(messages.len() + 1, self.kept.len());
        let (covered, new) = self.kept[cut.min(self.kept.len() - 1)];
        ((self.fixed + covered) as f64 * self.ratio).round() as i64 + new
    }

    /// The same without calibration: what a measurement of this request compares against.
    pub fn raw_total(&self, messages: &[Message], cut: usize) -> i64 {
        let kept: i64 = messages.iter().zip(&self.each).enumerate().filter(|(i, (m, _))| *i >= cut || m.role == Role::System).map(|(_, (_, t))| t).sum();
        self.fixed + kept
    }
}

/// A message's tokens on `wire`: its text, tool calls, tool call id and images.
fn message_tokens(wire: &dyn Wire, tokenizer: Tokenizer, m: &Message) -> i64 {
    // An image is counted as a typical tile-based figure; the provider's count calibrates it.
    const IMAGE: i64 = 765;
    let tokens = |text: &str| estimate::tokens_for(tokenizer, text);
    wire.message_overhead()
        + tokens(&m.content)
        + tokens(&m.tool_calls)
        + tokens(&m.tool_call_id)
        + tokens(&m.name)
        + IMAGE * m.images.len() as i64
}

/// Where a request may start leaving messages out: before a User message, from `from` on, up
/// to the last User message (never left out). Leaving out everything before a User message
/// never splits a tool call from its answer.
pub fn cut_points(messages: &[Message], from: usize) -> Vec<usize> {
    // A Prompt message is sent as a User one.
    let user = |m: &Message| matches!(m.role, Role::User | Role::Prompt);
    let Some(last_user) = messages.iter().rposition(user) else { return vec![from] };
    let mut points = vec![from];
    points.extend((from + 1..=last_user).filter(|i| user(&messages[*i])));
    points
}

/// How a request fits: the messages before `cut` (but System ones) are left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    pub cut: usize,
    pub estimated: i64,
}

/// The first cut from `from` on whose request fits `budget`; Err with the smallest estimate
/// reached when none does.
pub fn fit(sizes: &Sizes, messages: &[Message], from: usize, budget: i64) -> Result<Fit, Fit> {
    let mut last = Fit { cut: from, estimated: sizes.total(messages, from) };
    for cut in cut_points(messages, from) {
        last = Fit { cut, estimated: sizes.total(messages, cut) };
        if last.estimated <= budget {
            return Ok(last);
        }
    }
    Err(last)
}

/// How many messages a request with `cut` leaves out (System ones are kept).
pub fn left_out(messages: &[Message], cut: usize) -> usize {
    messages[..cut.min(messages.len())].iter().filter(|m| m.role != Role::System).count()
}

/// The messages a request with `cut` sends.
pub fn kept(messages: &[Message], cut: usize) -> Vec<Message> {
    messages.iter().enumerate().filter(|(i, m)| *i >= cut || m.role == Role::System).map(|(_, m)| m.clone()).collect()
}

/// `[ContextOverflow] <estimated> of <window> tokens` (SPEC §I.4.2).
pub fn overflow(estimated: i64, window: i64) -> Failure {
    Failure::new(Kind::ContextOverflow, format!("{estimated} of {window} tokens"))
}

/// What the summary model is asked (SPEC §I.4.2).
pub const SUMMARY_INSTRUCTIONS: &str = "You summarise the beginning of a conversation between a user and an assistant so \
that the assistant can go on without it. Keep every fact, decision, name, number, file, piece of code and open \
question that later turns may need; leave out greetings and repetition. Write the summary in the conversation's \
language, in plain prose or short lists, without any preface.";

/// The text the summary model reads: the summary so far, then the turns it now covers.
pub fn summary_request(previous: Option<&ContextSummary>, messages: &[Message]) -> String {
    let mut text = String::new();
    if let Some(p) = previous {
        text.push_str("The summary so far:\n");
        text.push_str(&p.text);
        text.push_str("\n\nThe conversation that follows it:\n");
    } else {
        text.push_str("The conversation:\n");
    }
    for m in messages {
        let who = match m.role {
            Role::User | Role::Prompt => "User",
            Role::Assistant => "Assistant",
            Role::Tool => "Tool result",
            Role::System => "System",
        };
        text.push_str(who);
        text.push_str(": ");
        text.push_str(&m.content);
        if !m.tool_calls.is_empty() {
            text.push_str(" [tool calls: ");
            text.push_str(&m.tool_calls);
            text.push(']');
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Api;

    fn m(role: Role, text: &str) -> Message {
        Message::new(role, text)
    }

    fn calling(id: &str) -> Message {
        let mut a = m(Role::Assistant, "");
        a.tool_calls = format!(r#"[{{"id":"{id}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}]"#);
        a
    }

    fn answer(id: &str) -> Message {
        let mut t = m(Role::Tool, "result");
        t.tool_call_id = id.into();
        t
    }

    fn history() -> Vec<Message> {
        let long = "word ".repeat(200);
        vec![
            m(Role::System, "be brief"),
            m(Role::User, &long),
            calling("a"),
            answer("a"),
            m(Role::Assistant, &long),
            m(Role::User, &long),
            m(Role::Assistant, &long),
            m(Role::User, "last question"),
        ]
    }

    #[test]
    fn cuts_fall_before_user_messages_and_never_past_the_last_one() {
        let h = history();
        assert_eq!(cut_points(&h, 0), [0, 1, 5, 7]);
        assert_eq!(cut_points(&h, 2), [2, 5, 7]);
        assert_eq!(cut_points(&[m(Role::Assistant, "x")], 0), [0]);
    }

    #[test]
    fn the_oldest_turns_go_first_and_the_system_prompt_stays() {
        let h = history();
        let wire = super::super::wire::for_api(Api::ChatCompletions);
        let sizes = Sizes::new(wire, Tokenizer::Current, 10, &h, None);
        let whole = sizes.total(&h, 0);
        let first = fit(&sizes, &h, 0, whole - 1).unwrap();
        // The first turn with its tool pair goes whole: the cut is at the next User message.
        assert_eq!(first.cut, 5);
        assert_eq!(left_out(&h, first.cut), 4);
        let sent = kept(&h, first.cut);
        assert_eq!(sent[0].content.as_str(), "be brief");
        assert_eq!(sent.len(), 4);
        // Nothing but the last question and the system prompt fits a tiny budget … or not at all.
        let last = fit(&sizes, &h, 0, 40).unwrap();
        assert_eq!((last.cut, kept(&h, last.cut).len()), (7, 2));
        assert_eq!(fit(&sizes, &h, 0, 5).unwrap_err().cut, 7);
    }

    #[test]
    fn a_measured_request_is_exact_and_what_follows_is_estimated() {
        let mut h = history();
        let wire = super::super::wire::for_api(Api::Gemini);
        let first = Sizes::new(wire, Tokenizer::Current, 10, &h, None);
        let estimated = first.raw_total(&h, 0);
        let measured = Measured { base_revision: 0, to: h.len(), tokens: estimated + 100, estimated };
        h.push(m(Role::Assistant, "an answer of a few words"));
        let next = Sizes::new(wire, Tokenizer::Current, 10, &h, Some(measured));
        let new = message_tokens(wire, Tokenizer::Current, h.last().unwrap());
        assert_eq!(next.total(&h, 0), estimated + 100 + new);
        // Another cut is calibrated by the same ratio.
        assert!(next.total(&h, 5) < next.raw_total(&h, 5) * 2);
    }

    #[test]
    fn overflow_answers_of_every_provider_and_gateway() {
        let http = |status, body: &str| Failure::http(status, "Bad Request", &super::super::transport::server_error_message(body)).with_body(body.into());
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"},"request_id":"req_011CVQe1dLrGNMJyE1ghG1av"}"#;
        let gemini = r#"{"error":{"code":400,"message":"The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#;
        let litellm = r#"{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicException - prompt is too long: 209353 tokens > 199999 maximum","type":null,"param":null,"code":"400"}}"#;
        for body in [anthropic, gemini, litellm] {
            assert!(overflow_words(&http(400, body)), "{body}");
        }
        let other = r#"{"error":{"message":"Invalid value for 'temperature'","type":"invalid_request_error","code":"invalid_value"}}"#;
        assert!(!overflow_words(&http(400, other)));
        // A rate limit that mentions tokens is no overflow.
        assert!(!overflow_words(&http(429, r#"{"error":{"message":"Request too large: prompt is too long for your tier"}}"#)));
        assert!(overflow_words(&Failure::new(Kind::ServerError, "Your input exceeds the context window of this model. Please adjust your input and try again.")));
    }

    #[test]
    fn the_answers_room_comes_off_the_window() {
        let mut model = Model::new();
        assert_eq!(budget(&model), None);
        model.context_window = 1000;
        assert_eq!(budget(&model), Some(1000));
        model.set_parameter("max_tokens", serde_json::json!(200));
        assert_eq!(budget(&model), Some(800));
        model.set_parameter("generationConfig.maxOutputTokens", serde_json::json!(300));
        assert_eq!(budget(&model), Some(700));
    }
}
