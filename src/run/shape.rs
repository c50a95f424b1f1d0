//! The shape of a stream's last text event, so that the next one like it is read without a
//! JSON walk.
//!
//! A stream's delta events are often the same bytes around a different piece of text
//! (Anthropic's `content_block_delta`, the chunks of vLLM, DeepSeek and other Chat Completions
//! servers; a `created` second that ticks only makes the next full read the shape). When an
//! event has the bytes of the last text event read in full before and after its text, and its
//! text has no byte a JSON string escapes, the full read would give the same outcome with the
//! new text: the readers are deterministic, read the bytes before the text exactly as last
//! time, end the text at the same closing quote, and read the bytes after it as last time; and
//! the outcome depends on nothing else, because only events that change no reader state are
//! learnt (the caller's promise to [`Shape::learn`]; Anthropic's thinking deltas do keep state
//! and are never offered). Such an event costs two comparisons and a look at its text instead
//! of a walk (issue 34). Events with a member that changes every time (OpenAI's
//! `obfuscation`, Responses' `sequence_number`, Gemini's `usageMetadata` where it counts the
//! tokens so far) never match; they are read in full as before.

use super::chunk::Parsed;
use super::scan;
use crate::event::DeltaText;
use std::borrow::Cow;

#[derive(Default)]
pub struct Shape {
    /// The last text event read in full; empty before the first.
    event: Vec<u8>,
    /// The bytes before its text (through the opening quote).
    head: usize,
    /// The bytes after its text (from the closing quote).
    tail: usize,
    reasoning: bool,
    /// The text events offered to `learn` (read in full, their piece a slice of the event)
    /// since the last one the shape read. Where every event
    /// differs (OpenAI's `obfuscation`) only the 1st, 2nd, 4th, 8th … of them is learnt: a copy
    /// of each cost 8 % of such an event.
    misses: u32,
}

impl Shape {
    /// What a full read of `data` would give, when it has the shape; None reads it in full.
    pub fn read(&mut self, data: &str) -> Option<Parsed> {
        let bytes = data.as_bytes();
        let end = bytes.len().checked_sub(self.tail)?;
        // Nothing is learnt yet (a learnt head holds at least the opening quote), or the text is
        // empty, which reads as nothing and is left to the full read. The tail first: where
        // events differ, it is mostly there (ids and paddings after the text).
        if self.head == 0
            || end <= self.head
            || bytes[end..] != self.event[self.event.len() - self.tail..]
            || bytes[..self.head] != self.event[..self.head]
            || !scan::plain(&bytes[self.head..end])
        {
            return None;
        }
        self.misses = 0;
        // Both ends are next to a quote, so on character boundaries.
        let text = DeltaText::from(&data[self.head..end]);
        Some(if self.reasoning { Parsed::Reasoning(text) } else { Parsed::Text(text) })
    }

    /// Takes `data` as the shape when its full read gave `parsed`, a piece of text or reasoning
    /// that is `piece`: a string the scanner borrowed from `data` (so it had no escapes, and a
    /// quote on each side; see [`borrowed`]). The caller vouches that the outcome depended on
    /// nothing but `data`; anything else leaves the shape as it was.
    #[inline]
    pub fn learn(&mut self, data: &str, parsed: &Parsed, piece: Option<&str>) {
        if let (Parsed::Text(text) | Parsed::Reasoning(text), Some(piece)) = (parsed, piece) {
            self.misses = self.misses.saturating_add(1);
            if self.misses.is_power_of_two() {
                self.take(data, text, piece, matches!(parsed, Parsed::Reasoning(_)));
            }
        }
    }

    /// Out of line: where every event differs, the call above is made for each.
    #[inline(never)]
    fn take(&mut self, data: &str, text: &str, piece: &str, reasoning: bool) {
        let bytes = data.as_bytes();
        let Some(head) = (piece.as_ptr() as usize).checked_sub(data.as_ptr() as usize) else { return };
        let quoted = head > 0
            && head.checked_add(piece.len()).is_some_and(|end| end < bytes.len())
            && bytes[head - 1] == b'"'
            && bytes[head + piece.len()] == b'"';
        if !quoted || text != piece {
            return;
        }
        self.event.clear();
        self.event.extend_from_slice(bytes);
        self.head = head;
        self.tail = bytes.len() - head - piece.len();
        self.reasoning = reasoning;
    }
}

/// A string the scanner read without unescaping it: a slice of the event.
pub fn borrowed<'a>(piece: Option<&Cow<'a, str>>) -> Option<&'a str> {
    match piece {
        Some(Cow::Borrowed(piece)) => Some(piece),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learnt(data: &str, from: std::ops::Range<usize>) -> Shape {
        let mut shape = Shape::default();
        let piece = &data[from];
        shape.learn(data, &Parsed::Text(DeltaText::from(piece)), Some(piece));
        shape
    }

    #[test]
    fn nothing_is_read_before_a_shape_is_learnt() {
        let mut shape = Shape::default();
        assert_eq!(shape.read(r#"{"text":"a"}"#), None);
        assert_eq!(shape.read(""), None);
        assert_eq!(shape.read("garbage"), None);
    }

    #[test]
    fn the_same_bytes_around_plain_text_read_as_that_text() {
        let data = r#"{"delta":{"text":"abc"}}"#;
        let mut shape = learnt(data, 18..21);
        assert_eq!(shape.read(r#"{"delta":{"text":"é, x"}}"#), Some(Parsed::Text("é, x".into())));
        assert_eq!(shape.read(data), Some(Parsed::Text("abc".into())));
        for other in [
            r#"{"delta":{"text":""}}"#,        // empty: the full read decides
            r#"{"delta":{"text":"a\"b"}}"#,    // an escape
            r#"{"delta":{"text":"a"b"}}"#,     // a quote: not even JSON
            "{\"delta\":{\"text\":\"a\nb\"}}", // a control character
            r#"{"delta":{"text":"a"},"x":1}"#, // other bytes after
            r#"{"delta":{"texT":"a"}}"#,       // other bytes before
            r#"{"text":"a"}}"#,
            "",
        ] {
            assert_eq!(shape.read(other), None, "{other}");
        }
    }

    #[test]
    fn where_every_event_differs_only_some_are_learnt() {
        let event = |text: &str, padding: usize| format!(r#"{{"t":"{text}","o":"{padding}"}}"#);
        let full_read = |shape: &mut Shape, data: &str| {
            assert_eq!(shape.read(data), None);
            let piece = &data[6..data.find("\",").unwrap()];
            shape.learn(data, &Parsed::Text(piece.into()), Some(piece));
        };
        let mut shape = Shape::default();
        for miss in 1..=9 {
            let data = event("x", miss);
            full_read(&mut shape, &data);
            assert_eq!(shape.event == data.as_bytes(), [1, 2, 4, 8].contains(&miss), "miss {miss}");
        }
        // A hit starts the count again: the next miss is a first one, and learnt.
        assert!(shape.read(&event("yz", 8)).is_some());
        full_read(&mut shape, &event("x", 10));
        assert!(shape.read(&event("yz", 10)).is_some());
    }

    #[test]
    fn only_a_borrowed_piece_with_quotes_around_it_is_learnt() {
        let data = r#"{"a":"xy"}"#;
        for (piece, parsed) in [
            (None, Parsed::Text("xy".into())),                  // had escapes
            (Some(&data[6..7]), Parsed::Text("x".into())),      // not the whole string
            (Some(&data[6..8]), Parsed::Text("yx".into())),     // not the outcome's text
            (Some(&data[6..8]), Parsed::Ignored),               // not text
            (Some("xy"), Parsed::Text("xy".into())),            // not from `data`
        ] {
            let mut shape = Shape::default();
            shape.learn(data, &parsed, piece);
            assert_eq!(shape.read(r#"{"a":"zz"}"#), None, "{piece:?} {parsed:?}");
        }
        let mut shape = Shape::default();
        shape.learn(data, &Parsed::Reasoning("xy".into()), Some(&data[6..8]));
        assert_eq!(shape.read(r#"{"a":"zz"}"#), Some(Parsed::Reasoning("zz".into())));
    }
}
