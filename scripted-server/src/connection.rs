//! One client connection: read requests, route them, answer from the script.
//!
//! Connections are persistent: after a complete response the next request is read from the same
//! connection, unless the client sent `Connection: close` (or spoke HTTP/1.0 without keep-alive)
//! or the step cut the connection (`close_after_headers`, `$stall`, `$reset`). The server itself
//! never closes an idle connection, so a pooling client cannot race a server-side close; idle
//! connections end when the client closes them or the server shuts down.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::http::{ChunkedWriter, ReadError, Request, RequestReader, reason_phrase, response_head};
use crate::record::RecordedRequest;
use crate::script::{ParsedStep, StepBody, parse_script};
use crate::sse::{StreamEnd, stream_events};
use crate::state::Shared;

/// What to do with the connection once a response has been handled.
enum Outcome {
    /// The response is complete; read the next request if the client keeps the connection.
    Complete,
    /// Close the connection normally.
    Close,
    /// Abort the connection with a TCP reset.
    Reset,
    /// The client closed the connection during a `$stall`.
    ClientLeft,
}

pub(crate) async fn serve_connection(mut stream: TcpStream, shared: Arc<Shared>, connection: u64) {
    let mut reader = RequestReader::default();
    loop {
        let mut request = match reader.read_request(&mut stream).await {
            Ok(Some(request)) => request,
            Ok(None) | Err(ReadError::Disconnected) => return,
            Err(ReadError::Malformed(message)) => return reject(&mut stream, 400, &message).await,
            Err(ReadError::HeadTooLarge) => {
                return reject(&mut stream, 431, "request head too large").await;
            }
            Err(ReadError::BodyTooLarge) => {
                return reject(&mut stream, 413, "request body too large").await;
            }
        };
        request.connection = connection;
        let keep_alive = request.keep_alive();
        match handle(&mut stream, &request, &shared, keep_alive).await {
            Ok(Outcome::Complete) if keep_alive => continue,
            Ok(Outcome::Reset) => {
                // SO_LINGER 0 turns the close on drop into an RST, which the client sees as
                // ECONNRESET.
                let _ = stream.set_zero_linger();
                return;
            }
            Ok(_) | Err(_) => return,
        }
    }
}

async fn handle(
    stream: &mut TcpStream,
    request: &Request,
    shared: &Shared,
    keep_alive: bool,
) -> io::Result<Outcome> {
    let path = request.path();
    if path.starts_with("/__") {
        return control(stream, request, shared, keep_alive).await;
    }
    // Chat Completions, OpenAI Responses, Anthropic Messages and Gemini.
    if !["/chat/completions", "/responses", "/messages", ":streamGenerateContent", ":generateContent"].iter().any(|api| path.ends_with(api)) {
        shared.record(RecordedRequest::new(request, None));
        let message = format!("no route for {} {}", request.method, request.target);
        return send_error(stream, 404, &message, keep_alive).await;
    }
    if request.method != "POST" {
        shared.record(RecordedRequest::new(request, None));
        let allow = [("Allow".to_owned(), "POST".to_owned())];
        let message = format!("{} is not allowed on {}; use POST", request.method, path);
        return send_json(stream, 405, &allow, &error_json(405, &message), keep_alive).await;
    }
    let assigned = shared.assign_and_record(|index| RecordedRequest::new(request, index));
    let outcome = match assigned.step() {
        Some(step) => serve_step(stream, step, keep_alive).await,
        None => send_error(stream, 500, "script exhausted", keep_alive).await,
    };
    let how = match outcome {
        Ok(Outcome::ClientLeft) | Err(_) => "client_closed",
        Ok(_) => "finished",
    };
    shared.set_ended(assigned.logged_at, how);
    outcome
}

/// The `/__` endpoints that let an external process (the C++ tests) use the binary.
async fn control(
    stream: &mut TcpStream,
    request: &Request,
    shared: &Shared,
    keep_alive: bool,
) -> io::Result<Outcome> {
    match (request.method.as_str(), request.path()) {
        ("GET", "/__requests") => {
            let log: Vec<Value> = shared
                .requests()
                .iter()
                .map(RecordedRequest::to_json)
                .collect();
            send_json(stream, 200, &[], &Value::Array(log), keep_alive).await
        }
        ("POST", "/__script") => {
            let parsed = serde_json::from_slice::<Value>(&request.body)
                .map_err(|e| format!("script is not JSON: {e}"))
                .and_then(|script| parse_script(&script).map_err(|e| e.to_string()));
            match parsed {
                Ok(script) => {
                    shared.replace_script(script);
                    send_json(stream, 200, &[], &json!({ "ok": true }), keep_alive).await
                }
                Err(message) => send_error(stream, 400, &message, keep_alive).await,
            }
        }
        _ => {
            let message = format!("no control endpoint {} {}", request.method, request.target);
            send_error(stream, 404, &message, keep_alive).await
        }
    }
}

/// Answers with one scripted step.
async fn serve_step(
    stream: &mut TcpStream,
    step: &ParsedStep,
    keep_alive: bool,
) -> io::Result<Outcome> {
    if step.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(step.delay_ms)).await;
    }
    let keep_alive = keep_alive && !step.close_after_headers;
    let reason = step.reason.as_deref().unwrap_or(reason_phrase(step.status));
    match &step.body {
        StepBody::Plain(body) => {
            let body = match step.encoding {
                Some(encoding) => crate::http::compress(encoding, body)?,
                None => body.clone(),
            };
            let mut defaults = vec![
                ("Content-Type", "application/json".to_owned()),
                ("Content-Length", body.len().to_string()),
            ];
            if let Some(encoding) = step.encoding {
                defaults.push(("Content-Encoding", encoding.name().to_owned()));
            }
            let mut response = response_head(
                step.status,
                reason,
                &headers(&defaults, &step.headers, keep_alive),
            );
            if !step.close_after_headers {
                response.extend_from_slice(&body);
            }
            stream.write_all(&response).await?;
        }
        StepBody::Events(events) => {
            let mut defaults = vec![
                ("Content-Type", "text/event-stream".to_owned()),
                ("Cache-Control", "no-cache".to_owned()),
                ("Transfer-Encoding", "chunked".to_owned()),
            ];
            if let Some(encoding) = step.encoding {
                defaults.push(("Content-Encoding", encoding.name().to_owned()));
            }
            stream
                .write_all(&response_head(
                    step.status,
                    reason,
                    &headers(&defaults, &step.headers, keep_alive),
                ))
                .await?;
            if !step.close_after_headers {
                let mut writer = ChunkedWriter::new(stream, step.encoding)?;
                match stream_events(&mut writer, events, step.line_ending).await? {
                    StreamEnd::Finished => writer.finish().await?,
                    StreamEnd::Reset => return Ok(Outcome::Reset),
                    StreamEnd::Stall => {
                        wait_until_client_leaves(stream).await;
                        return Ok(Outcome::ClientLeft);
                    }
                }
            }
        }
    }
    Ok(if keep_alive {
        Outcome::Complete
    } else {
        Outcome::Close
    })
}

/// Response headers: the defaults, each replaced by a scripted header of the same name, then the
/// remaining scripted headers, then `Connection`.
fn headers(
    defaults: &[(&str, String)],
    scripted: &[(String, String)],
    keep_alive: bool,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = defaults
        .iter()
        .filter(|(name, _)| !scripted.iter().any(|(s, _)| s.eq_ignore_ascii_case(name)))
        .map(|(name, value)| ((*name).to_owned(), value.clone()))
        .collect();
    headers.extend(scripted.iter().cloned());
    headers.push((
        "Connection".to_owned(),
        if keep_alive { "keep-alive" } else { "close" }.to_owned(),
    ));
    headers
}

/// A `$stall`: keep the connection open, sending nothing, until the client closes it (reads
/// return end-of-stream or an error). Server shutdown drops this task and so the connection.
async fn wait_until_client_leaves(stream: &mut TcpStream) {
    let mut sink = [0u8; 4096];
    while let Ok(read) = stream.read(&mut sink).await {
        if read == 0 {
            return;
        }
    }
}

/// Answers a request that could not be read, then the connection is closed: its framing can no
/// longer be trusted.
async fn reject(stream: &mut TcpStream, status: u16, message: &str) {
    let _ = send_error(stream, status, message, false).await;
}

/// A complete JSON response with `Content-Length`.
async fn send_json(
    stream: &mut TcpStream,
    status: u16,
    extra_headers: &[(String, String)],
    body: &Value,
    keep_alive: bool,
) -> io::Result<Outcome> {
    let body = body.to_string();
    let defaults = [
        ("Content-Type", "application/json".to_owned()),
        ("Content-Length", body.len().to_string()),
    ];
    let headers = headers(&defaults, extra_headers, keep_alive);
    let mut response = response_head(status, reason_phrase(status), &headers);
    response.extend_from_slice(body.as_bytes());
    stream.write_all(&response).await?;
    Ok(if keep_alive {
        Outcome::Complete
    } else {
        Outcome::Close
    })
}

async fn send_error(
    stream: &mut TcpStream,
    status: u16,
    message: &str,
    keep_alive: bool,
) -> io::Result<Outcome> {
    send_json(
        stream,
        status,
        &[],
        &error_json(status, message),
        keep_alive,
    )
    .await
}

/// The OpenAI error object `{"error":{"message":..,"type":..}}`, typed after the status.
fn error_json(status: u16, message: &str) -> Value {
    let kind = match status {
        404 => "not_found_error",
        400..=499 => "invalid_request_error",
        _ => "server_error",
    };
    json!({ "error": { "message": message, "type": kind } })
}
