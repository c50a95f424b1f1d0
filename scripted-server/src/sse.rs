//! Server-sent-events framing of a step's `events` list.
//!
//! Every line end the framing writes uses the step's `line_ending`, so a client's handling of LF,
//! CR and CRLF can each be tested. Each listed event goes out as its own HTTP chunk, like a real
//! streaming server flushing per event; `$repeat` output is generated on the fly in 32 KiB chunks
//! so that even a 100 MB answer needs no more memory than that.

use std::io;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::time::{Instant, sleep, sleep_until};

use crate::builders::chat_chunk_content;
use crate::http::ChunkedWriter;
use crate::script::{Event, RepeatApi};
use serde_json::{Value, json};

/// How an event stream ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum StreamEnd {
    /// All events were sent; the body should be completed normally.
    Finished,
    /// `$stall`: send nothing more, keep the connection open.
    Stall,
    /// `$reset`: abort the connection.
    Reset,
}

/// Writes `events` through `writer`, stopping early at `$stall` or `$reset`.
pub(crate) async fn stream_events(
    writer: &mut ChunkedWriter<'_>,
    events: &[Event],
    line_ending: &str,
) -> io::Result<StreamEnd> {
    for event in events {
        match event {
            Event::Data(text) => {
                writer
                    .write(&field_lines("data", text, line_ending))
                    .await?
            }
            Event::Named { name, data } => writer.write(&named_lines(name, data, line_ending)).await?,
            Event::Comment(text) => writer.write(&field_lines("", text, line_ending)).await?,
            Event::Raw(text) => writer.write(text.as_bytes()).await?,
            Event::SleepMs(ms) => sleep(Duration::from_millis(*ms)).await,
            Event::Reset => return Ok(StreamEnd::Reset),
            Event::Stall => return Ok(StreamEnd::Stall),
            Event::Repeat { count, delta, api } => match repeated_event(*api, delta, line_ending) {
                Some(event) => {
                    for _ in 0..*count {
                        writer.write(&event).await?;
                    }
                }
                None if *api == RepeatApi::Google => {
                    let chunks = GoogleEvents::new(delta, line_ending);
                    let mut event = Vec::new();
                    for i in 0..*count {
                        chunks.event(i, &mut event);
                        writer.write(&event).await?;
                    }
                }
                None => {
                    let chunks = OpenAiEvents::new(*api, delta, line_ending);
                    let mut event = Vec::new();
                    for i in 0..*count {
                        chunks.event(i, &mut event);
                        writer.write(&event).await?;
                    }
                }
            },
            Event::Paced {
                count,
                delta,
                per_second,
                stamp_content,
            } => {
                paced(
                    writer,
                    *count,
                    delta,
                    *per_second,
                    *stamp_content,
                    line_ending,
                )
                .await?
            }
        }
        writer.flush().await?;
    }
    Ok(StreamEnd::Finished)
}

/// The event `$repeat` sends `count` times through `api`; None for OpenAI's and Google's,
/// which differ.
fn repeated_event(api: RepeatApi, delta: &str, line_ending: &str) -> Option<Vec<u8>> {
    Some(match api {
        RepeatApi::ChatCompletions => field_lines("data", &chat_chunk_content(delta).to_string(), line_ending),
        RepeatApi::Responses => named(
            "response.output_text.delta",
            &json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": delta}),
            line_ending,
        ),
        RepeatApi::Anthropic => named(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": delta}}),
            line_ending,
        ),
        RepeatApi::Gemini => field_lines(
            "data",
            &json!({"candidates": [{"content": {"parts": [{"text": delta}], "role": "model"}, "index": 0}]}).to_string(),
            line_ending,
        ),
        RepeatApi::AnthropicThinking => named(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": delta}}),
            line_ending,
        ),
        RepeatApi::DeepSeek => field_lines("data", &deepseek_reasoning(delta).to_string(), line_ending),
        RepeatApi::OpenAi | RepeatApi::OpenAiResponses | RepeatApi::Google => return None,
    })
}

/// A chunk of reasoning as DeepSeek's reasoner streams it: the same in every chunk but the
/// piece.
fn deepseek_reasoning(delta: &str) -> Value {
    json!({
        "id": "3f1e0c2a-9b7d-4e5f-8a6b-1c2d3e4f5a6b", "object": "chat.completion.chunk", "created": 1_765_000_000,
        "model": "deepseek-reasoner", "system_fingerprint": "fp_ffc7281d48_prod0820_fp8_kvcache",
        "choices": [{"index": 0, "delta": {"content": null, "reasoning_content": delta}, "logprobs": null, "finish_reason": null}],
    })
}

/// The events of a text delta as OpenAI's own API streams them (Chat Completions chunks, or
/// Responses' `response.output_text.delta` with its `sequence_number`), each with an
/// `obfuscation` padding (1 to 16 characters, as OpenAI pads to hide the lengths of tokens)
/// different from its neighbours'. Only the count and the padding are made per event: a JSON
/// value built and written for each made the server, not the readers, what a 20k stream
/// measured.
struct OpenAiEvents {
    /// The event up to its `sequence_number` (Responses), or to its padding's opening quote.
    open: Vec<u8>,
    /// From after the `sequence_number` to the padding's opening quote; None for chunks.
    counted: Option<Vec<u8>>,
    line_ending: String,
}

impl OpenAiEvents {
    fn new(api: RepeatApi, delta: &str, line_ending: &str) -> OpenAiEvents {
        // In OpenAI's order (a `json!` object would sort its keys).
        let delta = Value::from(delta);
        if api == RepeatApi::OpenAiResponses {
            let open = format!(
                r#"event: response.output_text.delta{line_ending}data: {{"type":"response.output_text.delta","sequence_number":"#
            );
            let counted = format!(
                r#","item_id":"msg_0c5e8f1a9b7d4c2e0068f1d2a3b4c5d6","output_index":1,"content_index":0,"delta":{delta},"logprobs":[],"obfuscation":""#
            );
            return OpenAiEvents { open: open.into_bytes(), counted: Some(counted.into_bytes()), line_ending: line_ending.to_owned() };
        }
        let chunk = format!(
            concat!(
                r#"{{"id":"chatcmpl-CjW9xQ0c3ZbTq7Yb8VnR1sKdL2mEa","object":"chat.completion.chunk","created":1765000000,"#,
                r#""model":"gpt-5.1-2025-11-13","service_tier":"default","system_fingerprint":null,"#,
                r#""choices":[{{"index":0,"delta":{{"content":{}}},"logprobs":null,"finish_reason":null}}]}}"#
            ),
            delta
        );
        let mut open = b"data: ".to_vec();
        open.extend_from_slice(&chunk.as_bytes()[..chunk.len() - 1]);
        open.extend_from_slice(br#","obfuscation":""#);
        OpenAiEvents { open, counted: None, line_ending: line_ending.to_owned() }
    }

    /// The `i`th event into `out`.
    fn event(&self, i: u64, out: &mut Vec<u8>) {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        out.clear();
        out.extend_from_slice(&self.open);
        if let Some(counted) = &self.counted {
            // After the events that open a response (`response.created`, the item's and the
            // part's `added`), as OpenAI counts.
            out.extend_from_slice((i + 4).to_string().as_bytes());
            out.extend_from_slice(counted);
        }
        let mut state = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for _ in 0..1 + i % 16 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            out.push(ALPHABET[(state % ALPHABET.len() as u64) as usize]);
        }
        out.extend_from_slice(b"\"}");
        out.extend_from_slice(self.line_ending.as_bytes());
        out.extend_from_slice(self.line_ending.as_bytes());
    }
}

/// Gemini's text chunks as Google's own API streams them: every chunk carries the usage so far
/// (the answer's token count grows by one a chunk), the model's version and the response's id,
/// written as Google writes JSON (a space after each colon, none after a comma). Only the
/// counts are made per event, as for OpenAI's.
struct GoogleEvents {
    /// The chunk through `"candidatesTokenCount": `.
    open: Vec<u8>,
    /// From after the answer's count to `"totalTokenCount": `.
    middle: &'static [u8],
    /// From after the total to the event's end, line endings included.
    close: Vec<u8>,
}

impl GoogleEvents {
    /// The prompt's token count in every chunk.
    const PROMPT_TOKENS: u64 = 9;

    fn new(delta: &str, line_ending: &str) -> GoogleEvents {
        let delta = Value::from(delta);
        let prompt = Self::PROMPT_TOKENS;
        let open = format!(
            concat!(
                r#"data: {{"candidates": [{{"content": {{"parts": [{{"text": {}}}],"role": "model"}},"index": 0}}],"#,
                r#""usageMetadata": {{"promptTokenCount": {},"candidatesTokenCount": "#
            ),
            delta, prompt
        );
        let close = format!(
            concat!(
                r#","promptTokensDetails": [{{"modality": "TEXT","tokenCount": {}}}]}},"#,
                r#""modelVersion": "gemini-3-pro-preview","responseId": "x4FcadLTBvGmvdIPyIOB4Ag"}}{}{}"#
            ),
            prompt, line_ending, line_ending
        );
        GoogleEvents { open: open.into_bytes(), middle: br#","totalTokenCount": "#, close: close.into_bytes() }
    }

    /// The `i`th event into `out`.
    fn event(&self, i: u64, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&self.open);
        out.extend_from_slice((i + 1).to_string().as_bytes());
        out.extend_from_slice(self.middle);
        out.extend_from_slice((Self::PROMPT_TOKENS + i + 1).to_string().as_bytes());
        out.extend_from_slice(&self.close);
    }
}

/// `event: <name>` then `data` as one event.
fn named_lines(name: &str, data: &str, line_ending: &str) -> Vec<u8> {
    let mut event = format!("event: {name}{line_ending}").into_bytes();
    event.extend(field_lines("data", data, line_ending));
    event
}

fn named(name: &str, data: &Value, line_ending: &str) -> Vec<u8> {
    named_lines(name, &data.to_string(), line_ending)
}

/// One SSE event: `<field>: <line>` per line of `text` (any of LF, CR, CRLF splits lines), then
/// an empty line. The empty field name gives comment lines (`: text`).
fn field_lines(field: &str, text: &str, line_ending: &str) -> Vec<u8> {
    let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut event = String::with_capacity(text.len() + 16);
    for line in normalised.split('\n') {
        event.push_str(field);
        event.push_str(": ");
        event.push_str(line);
        event.push_str(line_ending);
    }
    event.push_str(line_ending);
    event.into_bytes()
}

/// Sends `count` copies of `chunk` at `per_second`, each with `vi_sent_ns` (wall-clock nanoseconds
/// since the UNIX epoch, taken just before the write) so a client can measure delivery latency.
/// Chunk `i` is due at `start + i / per_second`; a late chunk is sent at once without sleeping,
/// so the average rate holds even above the timer's millisecond resolution. With
/// `stamp_content` the same number is also appended (in decimal) to the chunk's content.
async fn paced(
    writer: &mut ChunkedWriter<'_>,
    count: u64,
    delta: &str,
    per_second: f64,
    stamp_content: bool,
    line_ending: &str,
) -> io::Result<()> {
    let chunk = chat_chunk_content(delta);
    let start = Instant::now();
    for i in 0..count {
        let due = start + Duration::from_secs_f64(i as f64 / per_second);
        if Instant::now() < due {
            sleep_until(due).await;
        }
        let sent_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut stamped = if stamp_content {
            chat_chunk_content(&format!("{delta}{sent_ns}"))
        } else {
            chunk.clone()
        };
        stamped["vi_sent_ns"] = sent_ns.into();
        writer
            .write(&field_lines("data", &stamped.to_string(), line_ending))
            .await?;
        writer.flush().await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_lines_use_the_requested_line_ending() {
        assert_eq!(field_lines("data", "x", "\n"), b"data: x\n\n");
        assert_eq!(field_lines("data", "x", "\r"), b"data: x\r\r");
        assert_eq!(field_lines("data", "x", "\r\n"), b"data: x\r\n\r\n");
        assert_eq!(field_lines("", "note", "\n"), b": note\n\n");
    }

    /// The data of each of `count` events of `api` as OpenAI sends them.
    fn openai_events(api: RepeatApi, count: u64) -> Vec<Value> {
        let openai = OpenAiEvents::new(api, "t", "\r\n");
        let mut event = Vec::new();
        (0..count)
            .map(|i| {
                openai.event(i, &mut event);
                let text = std::str::from_utf8(&event).unwrap().strip_suffix("\r\n\r\n").unwrap();
                let text = text.strip_prefix("event: response.output_text.delta\r\n").unwrap_or(text);
                serde_json::from_str(text.strip_prefix("data: ").unwrap()).unwrap()
            })
            .collect()
    }

    #[test]
    fn openai_events_carry_the_delta_and_differ_from_their_neighbours() {
        for (api, delta) in [(RepeatApi::OpenAi, "/choices/0/delta/content"), (RepeatApi::OpenAiResponses, "/delta")] {
            let events = openai_events(api, 40);
            for pair in events.windows(2) {
                assert_eq!(pair[0].pointer(delta).unwrap(), "t");
                assert_ne!(pair[0]["obfuscation"], pair[1]["obfuscation"]);
            }
            let lengths: std::collections::HashSet<usize> = events.iter().map(|c| c["obfuscation"].as_str().unwrap().len()).collect();
            assert_eq!(lengths.len(), 16, "padding of 1 to 16 characters");
        }
        let counts: Vec<u64> = openai_events(RepeatApi::OpenAiResponses, 8).iter().map(|e| e["sequence_number"].as_u64().unwrap()).collect();
        assert_eq!(counts, [4, 5, 6, 7, 8, 9, 10, 11]);
    }

    #[test]
    fn google_chunks_carry_the_delta_and_the_usage_so_far() {
        let google = GoogleEvents::new("t\"", "\n");
        let mut event = Vec::new();
        for i in [0, 1, 41] {
            google.event(i, &mut event);
            let text = std::str::from_utf8(&event).unwrap().strip_suffix("\n\n").unwrap();
            let chunk: Value = serde_json::from_str(text.strip_prefix("data: ").unwrap()).unwrap();
            assert_eq!(chunk.pointer("/candidates/0/content/parts/0/text").unwrap(), "t\"");
            assert_eq!(chunk["usageMetadata"]["candidatesTokenCount"], i + 1);
            assert_eq!(chunk["usageMetadata"]["totalTokenCount"], i + 10);
            assert_eq!(chunk["usageMetadata"]["promptTokenCount"], 9);
        }
    }

    #[test]
    fn deepseek_chunks_carry_the_piece_as_reasoning() {
        let event = repeated_event(RepeatApi::DeepSeek, "t\"", "\n").unwrap();
        let text = std::str::from_utf8(&event).unwrap().strip_suffix("\n\n").unwrap();
        let chunk: Value = serde_json::from_str(text.strip_prefix("data: ").unwrap()).unwrap();
        assert_eq!(chunk.pointer("/choices/0/delta/reasoning_content").unwrap(), "t\"");
        assert_eq!(chunk.pointer("/choices/0/delta/content").unwrap(), &Value::Null);
    }

    #[test]
    fn multi_line_text_becomes_one_field_per_line() {
        assert_eq!(
            field_lines("data", "a\nb\r\nc\rd", "\r\n"),
            b"data: a\r\ndata: b\r\ndata: c\r\ndata: d\r\n\r\n"
        );
    }
}
