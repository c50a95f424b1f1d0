//! A server-sent-events parser that keeps event names (the chat stream's decoder only needs
//! data): both HTTP transports read JSON-RPC messages from `message` events, and the legacy SSE
//! transport learns where to post from the `endpoint` event.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field; "" means the default, `message`.
    pub name: String,
    pub data: String,
}

impl Event {
    pub fn is_message(&self) -> bool {
        self.name.is_empty() || self.name == "message"
    }
}

#[derive(Default)]
pub struct Parser {
    line: Vec<u8>,
    /// The previous byte was a CR, so an LF right after it ends nothing.
    after_cr: bool,
    name: String,
    data: Vec<String>,
}

impl Parser {
    /// Feeds bytes; complete events are appended to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        for &b in bytes {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line(&line, out);
                }
                _ => {
                    self.after_cr = false;
                    self.line.push(b);
                }
            }
        }
    }

    /// The stream ended: an event whose blank line never came is still dispatched.
    pub fn finish(&mut self, out: &mut Vec<Event>) {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.line(&line, out);
        }
        self.line(b"", out);
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<Event>) {
        if line.is_empty() {
            let name = std::mem::take(&mut self.name);
            if !self.data.is_empty() {
                out.push(Event { name, data: std::mem::take(&mut self.data).join("\n") });
            }
            return;
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.name = value.to_owned(),
            "data" => self.data.push(value.to_owned()),
            _ => {} // comments, id, retry
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_data_and_line_ends() {
        let mut p = Parser::default();
        let mut out = Vec::new();
        p.feed(b"event: endpoint\r", &mut out);
        p.feed(b"\ndata: /messages?session_id=1\r\n\r\n: ping\n\ndata: {\"a\":\ndata: 1}\n", &mut out);
        assert_eq!(out.len(), 1);
        p.feed(b"\nevent: message\ndata:x", &mut out);
        p.finish(&mut out);
        assert_eq!(
            out,
            vec![
                Event { name: "endpoint".into(), data: "/messages?session_id=1".into() },
                Event { name: "".into(), data: "{\"a\":\n1}".into() },
                Event { name: "message".into(), data: "x".into() },
            ]
        );
        assert!(out[1].is_message() && out[2].is_message() && !out[0].is_message());
    }
}
