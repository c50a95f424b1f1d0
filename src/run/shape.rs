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
//! learnt (the caller's promise to [`Shape::learn`]). An event that does change it may be
//! learnt when the reader makes the same change itself for each event the shape reads:
//! Anthropic's thinking deltas add their piece to the block the learnt event names, which the
//! reader keeps when `learn` says the event became the shape. Such an event costs two
//! comparisons and a look at its text instead of a walk (issue 34).
//!
//! Some members differ in every event: OpenAI's `obfuscation` padding (Chat Completions and
//! Responses) and Responses' `sequence_number`. A reader that skips such a member of the
//! top-level object whatever its value names it ([`Ignored`]); its value is then a hole in the
//! shape, which any value of the same kind fills (a string without escapes, a count), and the
//! argument above holds as it stands.
//!
//! Gemini's `usageMetadata`, the tokens so far, is in every chunk and differs in each, but is
//! read: the reader keeps its text as it is (`Usage::read`). A shape that carries it
//! ([`Shape::carrying`]) has a hole for every count in it, and gives the member's value in the
//! new event with its text; the full read would give the same value, as it takes the text
//! whatever the counts are.

use super::chunk::Parsed;
use super::scan::{self, Scanner};
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
    /// The values in `event` of the members the reader ignores, in the order of the event.
    holes: Vec<Hole>,
    /// The members the reader skips whatever their value (`Shape::ignoring`).
    ignored: &'static [Ignored],
    /// The member whose text the reader keeps as it is (`Shape::carrying`).
    carried: Option<&'static str>,
    /// Where that member's value (an object) is in `event`, when it is there once.
    carried_at: Option<(usize, usize)>,
    /// The text events offered to `learn` (read in full, their piece a slice of the event)
    /// since the last one the shape read. Where every event differs in a way no hole covers,
    /// only the 1st, 2nd, 4th, 8th … of them, and every 64th after that, is learnt: a copy of
    /// each cost 8 % of such an event, and a stream that settles into a shape late still
    /// finds it within 64 events.
    misses: u32,
}

/// A member of the top-level object that a reader skips whatever its value is.
#[derive(Debug, Clone, Copy)]
pub struct Ignored {
    name: &'static str,
    kind: Kind,
}

impl Ignored {
    /// A string member (OpenAI's `obfuscation`).
    pub const fn string(name: &'static str) -> Self {
        Self { name, kind: Kind::String }
    }

    /// A member that counts (Responses' `sequence_number`).
    pub const fn count(name: &'static str) -> Self {
        Self { name, kind: Kind::Count }
    }
}

/// The values a hole takes: only ones whose bytes end unambiguously and that the reader's skip
/// accepts, so that the event around them stays the JSON it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The characters of a string with nothing a JSON string escapes (the quotes are not part
    /// of the hole).
    String,
    /// A JSON integer of at most 18 digits without a sign.
    Count,
}

impl Kind {
    /// The length of the value that starts `bytes`.
    fn forward(self, bytes: &[u8]) -> Option<usize> {
        let n = match self {
            Kind::String => memchr::memchr(b'"', bytes)?,
            Kind::Count => bytes.iter().take_while(|b| b.is_ascii_digit()).count(),
        };
        self.holds(&bytes[..n]).then_some(n)
    }

    /// The length of the value that ends `bytes`.
    #[inline(always)]
    fn backward(self, bytes: &[u8]) -> Option<usize> {
        let n = match self {
            Kind::String => bytes.len() - memchr::memrchr(b'"', bytes)? - 1,
            Kind::Count => bytes.iter().rev().take_while(|b| b.is_ascii_digit()).count(),
        };
        self.holds(&bytes[bytes.len() - n..]).then_some(n)
    }

    fn holds(self, value: &[u8]) -> bool {
        match self {
            Kind::String => scan::plain(value),
            Kind::Count => matches!(value, [b'0'] | [b'1'..=b'9', ..]) && value.len() <= 18,
        }
    }
}

/// Where a hole's value is in the learnt event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hole {
    at: usize,
    len: usize,
    kind: Kind,
}

impl Hole {
    /// `raw`, a value read from `data`, as a hole when it is a count: all digits ("1.5" and
    /// "1e3" are numbers, not counts).
    fn count(raw: &str, data: &str) -> Option<Hole> {
        let at = raw.as_ptr() as usize - data.as_ptr() as usize;
        (Kind::Count.forward(raw.as_bytes()) == Some(raw.len())).then_some(Hole { at, len: raw.len(), kind: Kind::Count })
    }
}

impl Shape {
    /// A shape for a reader that skips `ignored` in the top-level object whatever its value.
    pub fn ignoring(ignored: &'static [Ignored]) -> Self {
        Self { ignored, ..Self::default() }
    }

    /// This shape for a reader that keeps the text of the top-level member `carried` as it is.
    pub fn carrying(self, carried: &'static str) -> Self {
        Self { carried: Some(carried), ..self }
    }

    /// Whether the shape carries `member`: only then may an event whose outcome has that
    /// member's value be learnt.
    pub fn carries(&self, member: &str) -> bool {
        self.carried == Some(member)
    }

    /// What a full read of `data` would give, when it has the shape; None reads it in full.
    pub fn read(&mut self, data: &str) -> Option<Parsed> {
        debug_assert!(self.carried.is_none(), "a carrying shape is read with `read_carrying`");
        self.read_as::<false>(data, &mut None)
    }

    /// `read`, and the carried member's value in `data` when the shape has one.
    pub fn read_carrying<'a>(&mut self, data: &'a str) -> Option<(Parsed, Option<&'a str>)> {
        // Learnt from an event without the member: it is fixed bytes, or absent, here too.
        if self.carried_at.is_none() {
            return self.read_as::<false>(data, &mut None).map(|parsed| (parsed, None));
        }
        let mut carried = None;
        self.read_as::<true>(data, &mut carried).map(|parsed| (parsed, carried))
    }

    /// `read` with (`CARRY`) or without the carried value: a shape that carries nothing pays
    /// nothing for it (~100 instructions a delta where there are holes).
    #[inline(always)]
    fn read_as<'a, const CARRY: bool>(&mut self, data: &'a str, carried: &mut Option<&'a str>) -> Option<Parsed> {
        let bytes = data.as_bytes();
        // Nothing is learnt yet (a learnt head holds at least the opening quote).
        if self.head == 0 {
            return None;
        }
        let mut at = None;
        let (start, end) = if self.holes.is_empty() {
            let end = bytes.len().checked_sub(self.tail)?;
            // An empty text reads as nothing and is left to the full read. The tail first:
            // where events differ, it is mostly there (ids and paddings after the text).
            if end <= self.head || bytes[end..] != self.event[self.event.len() - self.tail..] || bytes[..self.head] != self.event[..self.head] {
                return None;
            }
            // Both ends of the value are in the head or in the tail, which did not move.
            let moved = |at: usize| if at < self.head { at } else { at + bytes.len() - self.event.len() };
            if CARRY {
                at = self.carried_at.map(|(from, to)| (moved(from), moved(to - 1) + 1));
            }
            (self.head, end)
        } else {
            self.around_holes::<CARRY>(bytes, &mut at)?
        };
        if !scan::plain(&bytes[start..end]) {
            return None;
        }
        self.misses = 0;
        // Both ends are next to a quote, so on character boundaries; so are the carried
        // value's, a bracket each.
        let text = DeltaText::from(&data[start..end]);
        let parsed = if self.reasoning { Parsed::Reasoning(text) } else { Parsed::Text(text) };
        if CARRY {
            *carried = at.map(|(from, to)| &data[from..to]);
        }
        Some(parsed)
    }

    /// Where the text of `bytes` is when it has the shape with its holes filled, and where the
    /// carried value is: the bytes between the holes compared from the end back to the text,
    /// then from the start on.
    #[inline(never)]
    fn around_holes<const CARRY: bool>(&self, bytes: &[u8], carried: &mut Option<(usize, usize)>) -> Option<(usize, usize)> {
        let event = &self.event[..];
        let (before, after) = self.holes.split_at(self.holes.partition_point(|hole| hole.at < self.head));
        let same = |from: usize, fixed: &[u8]| bytes.get(from..from + fixed.len()) == Some(fixed);
        // The carried value's first and last bytes (brackets, never in a hole), and where each
        // is in `bytes` once the fixed bytes around it matched.
        let ends = self.carried_at.map_or([usize::MAX; 2], |(from, to)| [from, to - 1]);
        let mut found = [None; 2];
        let mut place = |lo: usize, hi: usize, at: usize| {
            if !CARRY {
                return;
            }
            for (end, found) in ends.iter().zip(&mut found) {
                if (lo..hi).contains(end) {
                    *found = Some(at + end - lo);
                }
            }
        };
        let (mut end, mut upto) = (bytes.len(), event.len());
        for hole in after.iter().rev() {
            let fixed = &event[hole.at + hole.len..upto];
            end = end.checked_sub(fixed.len())?;
            if !same(end, fixed) {
                return None;
            }
            place(hole.at + hole.len, upto, end);
            end -= hole.kind.backward(&bytes[..end])?;
            upto = hole.at;
        }
        let fixed = &event[event.len() - self.tail..upto];
        let end = end.checked_sub(fixed.len())?;
        if !same(end, fixed) {
            return None;
        }
        place(event.len() - self.tail, upto, end);
        let (mut start, mut from) = (0, 0);
        for hole in before {
            let fixed = &event[from..hole.at];
            if !same(start, fixed) {
                return None;
            }
            place(from, hole.at, start);
            start += fixed.len();
            start += hole.kind.forward(bytes.get(start..end)?)?;
            from = hole.at + hole.len;
        }
        let fixed = &event[from..self.head];
        if !(same(start, fixed) && start + fixed.len() < end) {
            return None;
        }
        place(from, self.head, start);
        if CARRY {
            *carried = match (self.carried_at, found) {
                (None, _) => None,
                (Some(_), [Some(from), Some(last)]) => Some((from, last + 1)),
                // Not in the fixed bytes: never so in an object, and then read in full.
                (Some(_), _) => return None,
            };
        }
        Some((start + fixed.len(), end))
    }

    /// Takes `data` as the shape when its full read gave `parsed`, a piece of text or reasoning
    /// that is `piece`: a string the scanner borrowed from `data` (so it had no escapes, and a
    /// quote on each side; see [`borrowed`]). The caller vouches that the outcome depended on
    /// nothing but `data` and that `data` is the JSON object it read; anything else leaves the
    /// shape as it was. True when `data` is now the shape.
    #[inline]
    pub fn learn(&mut self, data: &str, parsed: &Parsed, piece: Option<&str>) -> bool {
        match parsed {
            Parsed::Text(text) | Parsed::Reasoning(text) => self.learn_text(data, text, matches!(parsed, Parsed::Reasoning(_)), piece),
            _ => false,
        }
    }

    /// `learn` from a full read that gave the piece `text` (of reasoning or not) and, when the
    /// shape carries a member, that member's value.
    #[inline]
    pub fn learn_text(&mut self, data: &str, text: &str, reasoning: bool, piece: Option<&str>) -> bool {
        let Some(piece) = piece else { return false };
        self.misses = self.misses.wrapping_add(1);
        (self.misses.is_power_of_two() || self.misses.is_multiple_of(64)) && self.take(data, text, piece, reasoning)
    }

    /// Out of line: where every event differs, the call above is made for each.
    #[inline(never)]
    fn take(&mut self, data: &str, text: &str, piece: &str, reasoning: bool) -> bool {
        let bytes = data.as_bytes();
        let Some(head) = (piece.as_ptr() as usize).checked_sub(data.as_ptr() as usize) else { return false };
        let quoted = head > 0
            && head.checked_add(piece.len()).is_some_and(|end| end < bytes.len())
            && bytes[head - 1] == b'"'
            && bytes[head + piece.len()] == b'"';
        if !quoted || text != piece {
            return false;
        }
        self.event.clear();
        self.event.extend_from_slice(bytes);
        self.head = head;
        self.tail = bytes.len() - head - piece.len();
        self.reasoning = reasoning;
        self.holes.clear();
        let Some(carried_at) = holes(data, self.ignored, self.carried, &mut self.holes) else {
            // The carried member twice: the reader keeps the last, and the shape keeps nothing.
            self.head = 0;
            return false;
        };
        self.carried_at = carried_at;
        // A member's value never spans the text in a JSON object; `around_holes` counts on it.
        self.holes.retain(|hole| hole.at + hole.len < head || hole.at > head + piece.len());
        true
    }
}

/// The values of `ignored` members in the top-level object of `data`, and the counts in the
/// `carried` one, in their order: the members the readers' own scanner finds there, whose
/// value is of the member's kind. A walk that stops early finds fewer holes, and fewer holes
/// only compare more bytes. Gives where the carried member's value is when it is an object;
/// None when the member is there twice.
fn holes(data: &str, ignored: &[Ignored], carried: Option<&str>, out: &mut Vec<Hole>) -> Option<Option<(usize, usize)>> {
    let at = |raw: &str| raw.as_ptr() as usize - data.as_ptr() as usize;
    let (mut carried_at, mut twice) = (None, false);
    let mut s = Scanner::new(data);
    let _ = s.object(|s, key| {
        if carried == Some(key) {
            let raw = s.raw()?;
            twice |= carried_at.is_some();
            carried_at = Some((at(raw), at(raw) + raw.len()));
            return Ok(());
        }
        let Some(Ignored { kind, .. }) = ignored.iter().find(|i| i.name == key) else { return s.skip() };
        let raw = s.raw()?;
        out.extend(match kind {
            // Quoted, without escapes: the characters between the quotes.
            Kind::String if raw.starts_with('"') && kind.holds(&raw.as_bytes()[1..raw.len() - 1]) => Some(Hole { at: at(raw) + 1, len: raw.len() - 2, kind: *kind }),
            Kind::String => None,
            Kind::Count => Hole::count(raw, data),
        });
        Ok(())
    });
    if twice {
        return None;
    }
    // Only an object is carried: anything else the reader reads as no usage, and as fixed
    // bytes it stays so.
    let carried_at = carried_at.filter(|&(from, _)| data.as_bytes()[from] == b'{');
    if let Some((from, to)) = carried_at {
        let _ = counts(&mut Scanner::new(&data[from..to]), data, out);
        out.sort_unstable_by_key(|hole| hole.at);
    }
    Some(carried_at)
}

/// The counts in the value that comes next (a slice of `data`), at their place in `data`.
fn counts(s: &mut Scanner, data: &str, out: &mut Vec<Hole>) -> scan::Result<()> {
    match s.peek() {
        Some(b'{') => s.object(|s, _| counts(s, data, out)),
        Some(b'[') => s.array(|s| counts(s, data, out)),
        _ => {
            out.extend(Hole::count(s.raw()?, data));
            Ok(())
        }
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

    const PADDED: &[Ignored] = &[Ignored::count("seq"), Ignored::string("pad")];

    /// A shape learnt from `data`, whose text is the value of its member `t`.
    fn learnt_around(ignored: &'static [Ignored], data: &str) -> Shape {
        let mut shape = Shape::ignoring(ignored);
        let from = data.find(r#""t":""#).unwrap() + 5;
        let piece = &data[from..from + data[from..].find('"').unwrap()];
        shape.learn(data, &Parsed::Text(piece.into()), Some(piece));
        shape
    }

    #[test]
    fn members_the_reader_ignores_are_holes_any_value_of_their_kind_fills() {
        let mut shape = learnt_around(PADDED, r#"{"seq":9,"t":"abc","n":1,"pad":"xyz"}"#);
        assert_eq!(shape.holes.len(), 2);
        for (data, text) in [
            (r#"{"seq":10,"t":"é, x","n":1,"pad":"q"}"#, Some("é, x")),
            (r#"{"seq":0,"t":"a","n":1,"pad":""}"#, Some("a")),
            (r#"{"seq":123456789012345678,"t":"a","n":1,"pad":"a:b,c}"}"#, Some("a")),
            (r#"{"seq":9,"t":"abc","n":1,"pad":"xyz"}"#, Some("abc")),
            (r#"{"seq":05,"t":"a","n":1,"pad":"q"}"#, None),   // not JSON
            (r#"{"seq":-1,"t":"a","n":1,"pad":"q"}"#, None),   // not a count
            (r#"{"seq":1.5,"t":"a","n":1,"pad":"q"}"#, None),
            (r#"{"seq":1234567890123456789,"t":"a","n":1,"pad":"q"}"#, None),
            (r#"{"seq":"1","t":"a","n":1,"pad":"q"}"#, None),
            (r#"{"seq":1,"t":"a","n":1,"pad":"q\"r"}"#, None), // an escape
            (r#"{"seq":1,"t":"a","n":1,"pad":"q"r"}"#, None),  // not JSON
            (r#"{"seq":1,"t":"a","n":2,"pad":"q"}"#, None),    // a member that is read
            (r#"{"seq":1,"t":"","n":1,"pad":"q"}"#, None),     // empty: the full read decides
            (r#"{"seq":1,"t":"a\nb","n":1,"pad":"q"}"#, None),
            (r#"{"seq":1,"t":"a","n":1,"pad":1}"#, None),
            (r#"{"seq":,"t":"a","n":1,"pad":"q"}"#, None),
            (r#"{"seq":1,"t":"a","n":1,"pad":"q"} "#, None),
            (r#"{"seq":1"#, None),
            ("", None),
        ] {
            assert_eq!(shape.read(data), text.map(|t| Parsed::Text(t.into())), "{data}");
        }
    }

    #[test]
    fn only_top_level_members_of_their_kind_are_holes() {
        for data in [
            r#"{"x":{"pad":"a"},"t":"abc"}"#,       // nested
            r#"{"x":[{"seq":1}],"t":"abc"}"#,
            r#"{"seq":1.5,"t":"abc"}"#,               // a count that is not an integer
            r#"{"seq":"1","t":"abc","pad":7}"#,       // the other kind
            r#"{"t":"abc","xpad":"a","pads":"b"}"#,   // other names
        ] {
            assert_eq!(learnt_around(PADDED, data).holes, [], "{data}");
        }
        // Brackets inside strings are not nesting.
        let data = r#"{"s":"{[","pad":"a","t":"abc","u":"}]}"}"#;
        let mut shape = learnt_around(PADDED, data);
        assert_eq!(shape.holes.len(), 1);
        assert_eq!(shape.read(r#"{"s":"{[","pad":"bc","t":"d","u":"}]}"}"#), Some(Parsed::Text("d".into())));
        // A reader that names nothing has no holes.
        assert_eq!(learnt_around(&[], r#"{"seq":9,"t":"abc","pad":"x"}"#).holes, []);
    }

    /// A shape carrying `usage`, learnt from `data` (whose text is the value of `t`).
    fn learnt_carrying(data: &str) -> Shape {
        let mut shape = Shape::default().carrying("usage");
        let from = data.find(r#""t":""#).unwrap() + 5;
        let piece = &data[from..from + data[from..].find('"').unwrap()];
        shape.learn(data, &Parsed::Text(piece.into()), Some(piece));
        shape
    }

    /// What the shape gives for `data`: the text and the carried value.
    fn carried<'a>(shape: &mut Shape, data: &'a str) -> Option<(String, Option<&'a str>)> {
        shape.read_carrying(data).map(|(parsed, usage)| match parsed {
            Parsed::Text(text) => (text.to_string(), usage),
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn a_carried_member_comes_with_the_text_whatever_its_counts() {
        fn usage(n: &str, total: &str) -> String {
            format!(r#"{{"p": 9,"n": {n},"total": {total},"d": [{{"m": "TEXT","k": 9}}]}}"#)
        }
        fn after(t: &str, n: &str, total: &str) -> String {
            format!(r#"{{"c": [{{"t":"{t}"}}],"usage": {},"id": "r"}}"#, usage(n, total))
        }
        fn before(t: &str, n: &str, total: &str) -> String {
            format!(r#"{{"usage": {},"c": [{{"t":"{t}"}}],"id": "r"}}"#, usage(n, total))
        }
        for event in [after as fn(&str, &str, &str) -> String, before] {
            let mut shape = learnt_carrying(&event("abc", "1", "10"));
            assert_eq!(shape.holes.len(), 4, "every count in it");
            for (n, total) in [("2", "11"), ("123456", "0"), ("1", "10")] {
                let data = event("é, x", n, total);
                let (text, got) = carried(&mut shape, &data).unwrap();
                assert_eq!((text.as_str(), got), ("é, x", Some(usage(n, total).as_str())), "{data}");
            }
            for (t, n, total) in [("a", "-1", "1"), ("a", "1.5", "1"), ("a", "01", "1"), ("a", "\"1\"", "1"), ("", "1", "1"), ("a\"", "1", "1")] {
                assert_eq!(carried(&mut shape, &event(t, n, total)), None, "{}", event(t, n, total));
            }
            // Anything but a count is compared.
            assert_eq!(carried(&mut shape, &event("a", "1", "1").replace("TEXT", "IMAGE")), None);
        }
    }

    #[test]
    fn a_carried_member_without_counts_or_not_an_object_stays_as_it_was() {
        for (data, other, usage) in [
            (r#"{"usage":{"m":"x"},"t":"abc"}"#, r#"{"usage":{"m":"x"},"t":"é"}"#, Some(r#"{"m":"x"}"#)),
            (r#"{"t":"abc","usage":{"m":"x"}}"#, r#"{"t":"é","usage":{"m":"x"}}"#, Some(r#"{"m":"x"}"#)),
            (r#"{"t":"abc","usage":7}"#, r#"{"t":"é","usage":7}"#, None),
            (r#"{"usage":[1],"t":"abc"}"#, r#"{"usage":[1],"t":"é"}"#, None),
            (r#"{"t":"abc"}"#, r#"{"t":"é"}"#, None),
        ] {
            let mut shape = learnt_carrying(data);
            assert_eq!(shape.holes, [], "{data}");
            assert_eq!(carried(&mut shape, other), Some(("é".into(), usage)), "{data}");
            if other.contains("usage") {
                assert_eq!(carried(&mut shape, &other.replace(['7', '1', 'x'], "8")), None, "{data}");
            }
        }
    }

    #[test]
    fn a_member_carried_twice_is_not_learnt() {
        let data = r#"{"usage":{"n":1},"t":"abc","usage":{"n":2}}"#;
        let mut shape = learnt_carrying(data);
        assert_eq!(carried(&mut shape, data), None);
    }

    #[test]
    fn a_stream_that_settles_late_is_learnt_within_64_events() {
        let mut shape = Shape::default();
        for miss in 1..=200 {
            let data = format!(r#"{{"t":"x","o":"{miss}"}}"#);
            assert_eq!(shape.read(&data), None);
            let piece = &data[6..7];
            shape.learn(&data, &Parsed::Text(piece.into()), Some(piece));
            assert_eq!(shape.event == data.as_bytes(), [1, 2, 4, 8, 16, 32, 64, 128, 192].contains(&miss), "miss {miss}");
        }
        assert_eq!(shape.read(r#"{"t":"y","o":"192"}"#), Some(Parsed::Text("y".into())));
    }

    #[test]
    fn many_members_of_an_ignored_name_are_found_in_one_reading() {
        // Nested, so none is a hole: one walk of the event reads past them all.
        let members = r#"{"obfuscation":""},"#.repeat(40_000);
        let data = format!(r#"{{"x":[{members}0],"t":"abc","pad":"q"}}"#);
        const TWICE: &[Ignored] = &[Ignored::string("obfuscation"), Ignored::string("pad"), Ignored::string("pad")];
        let shape = learnt_around(TWICE, &data);
        assert_eq!(shape.holes.len(), 1, "the nested ones are not holes, and `pad` is one");
    }
}
