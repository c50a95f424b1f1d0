//! The fast path of the typed streams (Responses, Anthropic): the few fields of a delta event
//! read by the zero-copy scanner instead of a `serde_json::Value` tree. A delta is most of a
//! long stream, and the tree cost twice the whole Chat Completions path per event (20k deltas:
//! 50 ms through Responses against 22 ms). Events with anything else to read go to the API's
//! tree reader; what both read must be the same (the `wire_events` fuzz target compares them).
//! In front of it, the last text delta's shape (`shape.rs`) reads the deltas like it.

use crate::run::chunk::Parsed;
use crate::run::scan::{self, Scanner};
use crate::run::shape::Shape;
use std::borrow::Cow;

/// A typed stream's event reader with a fast path (Responses, Anthropic).
pub trait Fast {
    fn shape(&mut self) -> &mut Shape;
    /// The outcome of an event read into `t`; None leaves it to the tree reader.
    fn fast(&mut self, t: &Typed) -> Option<Parsed>;
    /// The string of `t` that `parsed` is the text of, when that outcome changed no state but
    /// what [`Fast::shaped`] changes the same way: it may become the shape (`shape.rs`).
    fn piece<'a>(parsed: &Parsed, t: &Typed<'a>) -> Option<&'a str>;
    /// `t`'s event became the shape.
    fn learnt(&mut self, _t: &Typed) {}
    /// What the full read of an event the shape read as `parsed` changes in the reader.
    fn shaped(&mut self, _parsed: &Parsed) {}

    /// The event by the last text delta's shape, else by [`Fast::fast`]; None leaves it to the
    /// tree reader.
    fn fast_event(&mut self, data: &str) -> Option<Parsed> {
        if let Some(parsed) = self.shape().read(data) {
            self.shaped(&parsed);
            return Some(parsed);
        }
        let mut typed = Typed::default();
        if !read(data, &mut typed) {
            return None;
        }
        let parsed = self.fast(&typed)?;
        if self.shape().learn(data, &parsed, Self::piece(&parsed, &typed)) {
            self.learnt(&typed);
        }
        Some(parsed)
    }
}

/// The fields a delta event may need; every other member is skipped. A string field that is
/// not a string reads as absent, as `Value::as_str` reads it; an index that is not an integer
/// (as `Value::as_i64` reads it) too.
#[derive(Default)]
pub struct Typed<'a> {
    pub kind: Option<Cow<'a, str>>,
    /// `index` (Anthropic's content block).
    pub index: Option<i64>,
    /// `output_index` (a Responses output item).
    pub output_index: Option<i64>,
    /// `delta` when it is a string (Responses).
    pub delta: Option<Cow<'a, str>>,
    /// `delta` when it is an object (Anthropic): its `type` and its one text field.
    pub delta_kind: Option<Cow<'a, str>>,
    pub delta_text: Option<Cow<'a, str>>,
    pub delta_thinking: Option<Cow<'a, str>>,
    pub delta_signature: Option<Cow<'a, str>>,
    pub delta_partial_json: Option<Cow<'a, str>>,
}

/// Reads `data` into `out` when it is a JSON object; false when it is not (the tree reader
/// decides, and `out` may hold part of it). Into the caller's slot: a `Typed` is ~220 bytes, and
/// returned it was copied twice an event (issue 34).
fn read<'a>(data: &'a str, out: &mut Typed<'a>) -> bool {
    let mut s = Scanner::new(data);
    s.peek() == Some(b'{') && s.object(|s, key| out.field(s, key)).is_ok() && s.end().is_ok()
}

impl<'a> Typed<'a> {
    fn field(&mut self, s: &mut Scanner<'a>, key: &str) -> scan::Result<()> {
        match key {
            "type" => self.kind = string(s)?,
            "index" => self.index = integer(s)?,
            "output_index" => self.output_index = integer(s)?,
            "delta" => {
                (self.delta, self.delta_kind, self.delta_text, self.delta_thinking, self.delta_signature, self.delta_partial_json) =
                    Default::default();
                match s.peek() {
                    Some(b'"') => self.delta = Some(s.string()?),
                    Some(b'{') => s.object(|s, key| {
                        match key {
                            "type" => self.delta_kind = string(s)?,
                            "text" => self.delta_text = string(s)?,
                            "thinking" => self.delta_thinking = string(s)?,
                            "signature" => self.delta_signature = string(s)?,
                            "partial_json" => self.delta_partial_json = string(s)?,
                            _ => s.skip()?,
                        }
                        Ok(())
                    })?,
                    _ => s.skip()?,
                }
            }
            // What the fast path never needs: ids, sequence numbers, and the `item`,
            // `response` … that only events for the tree reader carry.
            _ => s.skip()?,
        }
        Ok(())
    }
}

fn string<'a>(s: &mut Scanner<'a>) -> scan::Result<Option<Cow<'a, str>>> {
    if s.peek() == Some(b'"') {
        return s.string().map(Some);
    }
    s.skip().map(|()| None)
}

/// An integer as `Value::as_i64` reads one: a float or an integer past i64 is none.
fn integer(s: &mut Scanner<'_>) -> scan::Result<Option<i64>> {
    if !matches!(s.peek(), Some(b'-' | b'0'..=b'9')) {
        return s.skip().map(|()| None);
    }
    let token = s.number()?;
    // A one-character number is a digit (`number` checked it): the indexes of nearly every event.
    Ok(match token.as_bytes() {
        &[digit] => Some(i64::from(digit - b'0')),
        _ => token.parse::<i64>().ok(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(data: &str) -> Option<Typed<'_>> {
        let mut typed = Typed::default();
        super::read(data, &mut typed).then_some(typed)
    }

    #[test]
    fn reads_the_delta_fields_and_skips_the_rest() {
        let t = read(r#"{"type":"response.output_text.delta","item_id":"m","output_index":1,"content_index":0,"delta":"Hi"}"#).unwrap();
        assert_eq!((t.kind.as_deref(), t.output_index, t.delta.as_deref()), (Some("response.output_text.delta"), Some(1), Some("Hi")));
        let t = read(r#"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"a\nb"}}"#).unwrap();
        assert_eq!((t.index, t.delta_kind.as_deref(), t.delta_text.as_deref()), (Some(2), Some("text_delta"), Some("a\nb")));
        let t = read(r#"{"type":"x","index":1.0,"delta":5,"item":{}}"#).unwrap();
        assert_eq!((t.index, t.delta.as_deref(), t.kind.as_deref()), (None, None, Some("x")));
        assert!(read("[1]").is_none());
        assert!(read(r#"{"type":"x""#).is_none());
    }
}
