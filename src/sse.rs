//! Incremental Server-Sent-Events decoder (the `text/event-stream` wire format).
//!
//! Follows the WHATWG "event stream interpretation" rules for what this crate needs:
//! lines end with LF, CR or CRLF (also when the CR and the LF arrive in different chunks), a
//! leading UTF-8 BOM is skipped, `:` lines are comments, `field:value` loses one optional space
//! after the colon, a line without a colon is a field with an empty value, and only the `data`
//! field is kept (its lines joined with `\n`). An empty line dispatches the event when at least one
//! `data` line was seen. At the end of the stream a pending event is still dispatched (SPEC §F).
//!
//! Bytes are fed as they arrive; chunk boundaries may fall anywhere (inside a line, between CR and
//! LF, inside a multibyte UTF-8 character). Complete lines are processed straight from the input
//! slice; only an incomplete trailing line is copied into a reusable buffer, so the memory held is
//! bounded by the longest incomplete line plus the data of the event being assembled.

use std::ops::Range;

/// The UTF-8 byte order mark.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Above this capacity the line and data buffers are released after use instead of being kept.
const KEEP_LINE_CAPACITY: usize = 64 * 1024;

/// Incremental SSE decoder: feed raw bytes, receive the `data` of each complete event.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the current, not yet terminated line.
    line: Vec<u8>,
    /// The data of the event being assembled.
    event: EventBuilder,
    /// The previous chunk ended with CR: an LF at the start of the next chunk belongs to it.
    pending_cr: bool,
    /// Past the (optional) BOM at the start of the stream.
    started: bool,
    /// How many bytes of a BOM have been matched so far (while `!started`).
    bom_matched: u8,
}

/// One dispatched event with its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field; "" means the default, `message`.
    pub name: String,
    pub data: String,
}

impl Event {
    fn owned(name: &[u8], data: &str) -> Event {
        Event { name: String::from_utf8_lossy(name).into_owned(), data: data.to_owned() }
    }

    pub fn is_message(&self) -> bool {
        self.name.is_empty() || self.name == "message"
    }
}

/// The fields of the event currently being assembled.
#[derive(Debug, Default)]
struct EventBuilder {
    /// Data lines joined by `\n` (raw bytes; decoded at dispatch).
    data: Vec<u8>,
    /// At least one `data` line was seen (an empty `data:` line still counts).
    has_data: bool,
    /// The last `event:` value (raw bytes).
    name: Vec<u8>,
}

/// What one line of the stream says.
enum Field<'a> {
    /// The empty line: the event is complete.
    Dispatch,
    Data(&'a [u8]),
    Event(&'a [u8]),
    /// A comment, `id`, `retry` or a field of no interest here.
    Other,
}

impl<'a> Field<'a> {
    #[inline]
    fn of(line: &'a [u8]) -> Field<'a> {
        if line.is_empty() {
            return Field::Dispatch;
        }
        if line[0] == b':' {
            return Field::Other; // comment
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                let value = match value.first() {
                    Some(b' ') => &value[1..],
                    _ => value,
                };
                (&line[..colon], value)
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => Field::Data(value),
            b"event" => Field::Event(value),
            _ => Field::Other,
        }
    }
}

/// An event's one `data` line and its name while they are still in the bytes being fed: an
/// event whose lines all arrived in one piece (nearly every event of a stream) is handed over
/// without being copied into the builder. Whatever is held when the piece runs out is copied.
struct Held<'a> {
    /// The piece being fed.
    piece: &'a [u8],
    /// The longest prefix of `piece` that is valid UTF-8, checked once for the whole piece:
    /// a check per event cost ~140 instructions, most of a short event's text (issue 34).
    valid: &'a str,
    /// Where the data line's value is in `piece`.
    data: Option<Range<usize>>,
    name: Option<&'a [u8]>,
}

impl<'a> Held<'a> {
    fn new(piece: &'a [u8]) -> Held<'a> {
        let valid = match simdutf8::compat::from_utf8(piece) {
            Ok(text) => text,
            // A character cut by the piece's end, or bytes that are not UTF-8: what comes
            // before them is still checked once, the rest per event (`deliver`).
            Err(e) => simdutf8::basic::from_utf8(&piece[..e.valid_up_to()]).unwrap_or_default(),
        };
        Held { piece, valid, data: None, name: None }
    }
}

impl EventBuilder {
    /// Interprets one complete line (without its line end) that is `held.piece[start..end]`.
    #[inline]
    fn line_in_place<F: FnMut(&[u8], &str)>(&mut self, start: usize, end: usize, held: &mut Held<'_>, on_event: &mut F) {
        let line = &held.piece[start..end];
        match Field::of(line) {
            Field::Dispatch => {
                if let Some(data) = held.data.take() {
                    let name = held.name.take().unwrap_or(&self.name);
                    match held.valid.get(data.clone()) {
                        Some(text) => on_event(name, text),
                        None => deliver(name, &held.piece[data], on_event),
                    }
                    self.name.clear();
                } else {
                    self.release(held);
                    self.dispatch(on_event);
                }
            }
            // A field's value is the end of its line.
            Field::Data(value) if !self.has_data && held.data.is_none() => held.data = Some(end - value.len()..end),
            Field::Event(value) => held.name = Some(value),
            Field::Other => {}
            Field::Data(_) => {
                self.release(held);
                self.line(line, on_event);
            }
        }
    }

    /// Copies what `held` borrows into the builder.
    #[inline]
    fn release(&mut self, held: &mut Held<'_>) {
        if let Some(name) = held.name.take() {
            self.name.clear();
            self.name.extend_from_slice(name);
        }
        if let Some(data) = held.data.take() {
            self.data.extend_from_slice(&held.piece[data]);
            self.has_data = true;
        }
    }

    /// Interprets one complete line (without its line end).
    #[inline]
    fn line<F: FnMut(&[u8], &str)>(&mut self, line: &[u8], on_event: &mut F) {
        match Field::of(line) {
            Field::Dispatch => self.dispatch(on_event),
            Field::Data(value) => {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            Field::Event(value) => {
                self.name.clear();
                self.name.extend_from_slice(value);
            }
            Field::Other => {}
        }
    }

    /// Dispatches the pending event, if any `data` line was seen.
    #[inline]
    fn dispatch<F: FnMut(&[u8], &str)>(&mut self, on_event: &mut F) {
        if !self.has_data {
            self.name.clear();
            return;
        }
        self.has_data = false;
        deliver(&self.name, &self.data, on_event);
        self.name.clear();
        if self.data.capacity() > KEEP_LINE_CAPACITY {
            self.data = Vec::new();
        } else {
            self.data.clear();
        }
    }
}

/// Hands an event's data to `on_event` as text; invalid UTF-8 is replaced.
#[inline]
fn deliver<F: FnMut(&[u8], &str)>(name: &[u8], data: &[u8], on_event: &mut F) {
    // simdutf8 first: valid text is checked several times faster than by the lossy decoder.
    match simdutf8::basic::from_utf8(data) {
        Ok(text) => on_event(name, text),
        Err(_) => on_event(name, &String::from_utf8_lossy(data)),
    }
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; calls `on_event(data)` for each complete event (the joined data lines). The
    /// text is borrowed from the decoder's buffer, which is reused: no allocation per event.
    #[cfg(test)]
    pub fn feed(&mut self, bytes: &[u8], mut on_event: impl FnMut(&str)) {
        self.feed_named(bytes, |_, data| on_event(data));
    }

    /// Feeds bytes; appends each complete event, with its name, to `out`.
    pub fn feed_events(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        self.feed_named(bytes, |name, data| out.push(Event::owned(name, data)));
    }

    /// End of stream for `feed_events`; see `finish`.
    pub fn finish_events(&mut self, out: &mut Vec<Event>) {
        self.finish_named(|name, data| out.push(Event::owned(name, data)));
    }

    /// Bytes held for the line and the event not yet complete: what a caller bounds so that a
    /// server sending one endless line or event cannot take the host's memory.
    pub fn pending_bytes(&self) -> usize {
        self.line.len() + self.event.data.len()
    }

    /// Feeds bytes; calls `on_event(name, data)` for each complete event (name "" = `message`).
    pub fn feed_named(&mut self, bytes: &[u8], mut on_event: impl FnMut(&[u8], &str)) {
        let mut rest = bytes;
        if !self.started {
            rest = self.skip_bom(rest);
            if !self.started {
                return; // everything so far is a (partial) BOM
            }
        }
        if self.pending_cr && !rest.is_empty() {
            self.pending_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        let mut held = Held::new(rest);
        while !rest.is_empty() {
            // The blank line after an event needs no search.
            let end = match rest[0] {
                b'\n' | b'\r' => Some(0),
                _ => memchr::memchr2(b'\n', b'\r', rest),
            };
            let Some(end) = end else {
                // Incomplete line: keep it for the next chunk.
                self.line.extend_from_slice(rest);
                break;
            };
            if self.line.is_empty() {
                let start = held.piece.len() - rest.len();
                self.event.line_in_place(start, start + end, &mut held, &mut on_event);
            } else {
                // Only the first line of a piece completes a kept one; nothing is held yet.
                self.line.extend_from_slice(&rest[..end]);
                self.event.line(&self.line, &mut on_event);
                self.clear_line();
            }
            let is_cr = rest[end] == b'\r';
            rest = &rest[end + 1..];
            if is_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.pending_cr = true,
                }
            }
        }
        self.event.release(&mut held);
    }

    /// End of stream: dispatches a pending event whose data lines arrived but whose blank line
    /// never came (SPEC §F), and any unterminated last line. The decoder is then ready for a new
    /// stream.
    #[cfg(test)]
    pub fn finish(&mut self, mut on_event: impl FnMut(&str)) {
        self.finish_named(|_, data| on_event(data));
    }

    /// Ends the stream: a pending event is still dispatched, with its name.
    pub fn finish_named(&mut self, mut on_event: impl FnMut(&[u8], &str)) {
        if !self.started && self.bom_matched > 0 {
            // The stream ended inside something that began like a BOM: those bytes are text.
            self.line
                .extend_from_slice(&BOM[..usize::from(self.bom_matched)]);
        }
        if !self.line.is_empty() {
            self.event.line(&self.line, &mut on_event);
        }
        self.event.dispatch(&mut on_event);
        *self = Self::new();
    }

    /// Consumes a leading BOM (possibly split across chunks); returns the bytes after it.
    fn skip_bom<'a>(&mut self, mut bytes: &'a [u8]) -> &'a [u8] {
        while let Some((&b, tail)) = bytes.split_first() {
            if b == BOM[usize::from(self.bom_matched)] {
                self.bom_matched += 1;
                bytes = tail;
                if usize::from(self.bom_matched) == BOM.len() {
                    self.started = true;
                    return bytes;
                }
            } else {
                // Not a BOM after all: the bytes matched so far are ordinary text (none of them is
                // a line end), so they start the first line.
                self.line
                    .extend_from_slice(&BOM[..usize::from(self.bom_matched)]);
                self.started = true;
                return bytes;
            }
        }
        bytes
    }

    fn clear_line(&mut self) {
        if self.line.capacity() > KEEP_LINE_CAPACITY {
            self.line = Vec::new();
        } else {
            self.line.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes `stream` fed as the given pieces, including `finish()`.
    fn decode_pieces(pieces: &[&[u8]]) -> Vec<String> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        for piece in pieces {
            decoder.feed(piece, |e| out.push(e.to_owned()));
        }
        decoder.finish(|e| out.push(e.to_owned()));
        out
    }

    fn decode(stream: &[u8]) -> Vec<String> {
        decode_pieces(&[stream])
    }

    fn decode_bytewise(stream: &[u8]) -> Vec<String> {
        let pieces: Vec<&[u8]> = stream.chunks(1).collect();
        decode_pieces(&pieces)
    }

    /// Events dispatched by `feed` alone (no `finish`).
    fn feed_only(stream: &[u8]) -> Vec<String> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        decoder.feed(stream, |e| out.push(e.to_owned()));
        out
    }

    /// Every split of `stream` into two pieces, every byte-at-a-time feed, and a single feed must
    /// all give `expected`.
    fn check_all_splits(stream: &[u8], expected: &[&str]) {
        assert_eq!(decode(stream), expected, "single feed");
        assert_eq!(decode_bytewise(stream), expected, "byte at a time");
        for cut in 0..=stream.len() {
            let (a, b) = stream.split_at(cut);
            assert_eq!(decode_pieces(&[a, b]), expected, "split at {cut}");
        }
        for cut1 in 0..=stream.len() {
            for cut2 in cut1..=stream.len() {
                let pieces = [&stream[..cut1], &stream[cut1..cut2], &stream[cut2..]];
                assert_eq!(decode_pieces(&pieces), expected, "split at {cut1},{cut2}");
            }
        }
    }

    #[test]
    fn fields_held_in_place_are_kept_when_the_piece_ends() {
        // Each cut leaves an event's name or first data line held from the piece before.
        let stream: &[u8] = b"event: a\ndata: 1\n\nevent: b\ndata: 2\ndata: 3\n\ndata: 4\nevent: c\n\ndata: 5\n\n";
        let whole = decode_named(&[stream]);
        assert_eq!(whole, vec![("a".into(), "1".into()), ("b".into(), "2\n3".into()), ("c".into(), "4".into()), ("".into(), "5".into())]);
        for cut in 0..=stream.len() {
            assert_eq!(decode_named(&[&stream[..cut], &stream[cut..]]), whole, "cut at {cut}");
        }
    }

    fn decode_named(pieces: &[&[u8]]) -> Vec<(String, String)> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        for piece in pieces {
            decoder.feed_events(piece, &mut out);
        }
        decoder.finish_events(&mut out);
        out.into_iter().map(|e| (e.name, e.data)).collect()
    }

    #[test]
    fn lf_line_ends() {
        check_all_splits(b"data: a\n\ndata: b\n\n", &["a", "b"]);
    }

    #[test]
    fn crlf_line_ends() {
        check_all_splits(b"data: a\r\n\r\ndata: b\r\n\r\n", &["a", "b"]);
    }

    #[test]
    fn cr_only_line_ends() {
        check_all_splits(b"data: a\r\rdata: b\r\r", &["a", "b"]);
    }

    #[test]
    fn mixed_line_ends() {
        check_all_splits(
            b"data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r\n",
            &["a\nb\nc", "d"],
        );
    }

    #[test]
    fn crlf_split_across_feeds_is_one_line_end() {
        // Were the CR and the LF counted separately, "data: a" would be dispatched at the LF.
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        decoder.feed(b"data: a\r", |e| out.push(e.to_owned()));
        assert!(out.is_empty());
        decoder.feed(b"\ndata: b\r", |e| out.push(e.to_owned()));
        assert!(out.is_empty());
        decoder.feed(b"\n\r", |e| out.push(e.to_owned()));
        assert_eq!(out, ["a\nb"]);
        decoder.feed(b"\n", |e| out.push(e.to_owned()));
        decoder.finish(|e| out.push(e.to_owned()));
        assert_eq!(out, ["a\nb"]);
    }

    #[test]
    fn cr_then_empty_feed_then_lf() {
        assert_eq!(decode_pieces(&[b"data: a\r", b"", b"\n", b"\r\n"]), ["a"]);
    }

    #[test]
    fn cr_at_chunk_end_followed_by_text() {
        assert_eq!(
            decode_pieces(&[b"data: a\r", b"data: b\r", b"\r"]),
            ["a\nb"]
        );
    }

    #[test]
    fn double_cr_split_is_two_line_ends() {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        decoder.feed(b"data: x\r", |e| out.push(e.to_owned()));
        decoder.feed(b"\r", |e| out.push(e.to_owned()));
        assert_eq!(out, ["x"]);
    }

    #[test]
    fn multi_line_data_joined_with_lf() {
        check_all_splits(
            b"data: first\ndata: second\ndata:third\n\n",
            &["first\nsecond\nthird"],
        );
    }

    #[test]
    fn data_without_space() {
        assert_eq!(decode(b"data:abc\n\n"), ["abc"]);
    }

    #[test]
    fn only_one_space_is_removed() {
        assert_eq!(decode(b"data:  two spaces\n\n"), [" two spaces"]);
        assert_eq!(decode(b"data:\ttab\n\n"), ["\ttab"]);
        assert_eq!(decode(b"data: trailing  \n\n"), ["trailing  "]);
    }

    #[test]
    fn value_may_contain_colons() {
        assert_eq!(decode(b"data: {\"a\":\"b:c\"}\n\n"), ["{\"a\":\"b:c\"}"]);
    }

    #[test]
    fn comments_are_ignored() {
        check_all_splits(
            b": keep-alive\ndata: a\n: inside\ndata: b\n\n:\n\n",
            &["a\nb"],
        );
    }

    #[test]
    fn comment_only_stream_dispatches_nothing() {
        assert!(decode(b": OPENROUTER PROCESSING\n\n: ping\n\n").is_empty());
    }

    #[test]
    fn field_without_colon() {
        // "data" alone is a data line with an empty value.
        assert_eq!(decode(b"data\n\n"), [""]);
        assert_eq!(decode(b"data\ndata\n\n"), ["\n"]);
        assert_eq!(decode(b"data: a\ndata\ndata: b\n\n"), ["a\n\nb"]);
        // Other colon-less lines are unknown fields.
        assert!(decode(b"hello\n\n").is_empty());
        assert!(
            decode(b"data \n\n").is_empty(),
            "field name is `data ` not `data`"
        );
    }

    #[test]
    fn empty_data_line_is_dispatched() {
        assert_eq!(decode(b"data:\n\n"), [""]);
        assert_eq!(decode(b"data: \n\n"), [""]);
    }

    #[test]
    fn event_without_data_is_not_dispatched() {
        assert!(decode(b"event: ping\nid: 7\nretry: 100\n\n").is_empty());
        assert_eq!(decode(b"event: message\ndata: x\nid: 1\n\n"), ["x"]);
    }

    #[test]
    fn unknown_fields_and_case_are_ignored() {
        assert!(decode(b"Data: x\nDATA: y\nfoo: bar\n\n").is_empty());
        assert_eq!(decode(b"foo: bar\ndata: z\n\n"), ["z"]);
    }

    #[test]
    fn repeated_blank_lines_dispatch_once() {
        assert_eq!(decode(b"\n\n\ndata: a\n\n\n\n\ndata: b\n\n\n"), ["a", "b"]);
    }

    #[test]
    fn bom_is_skipped() {
        check_all_splits(b"\xEF\xBB\xBFdata: a\n\n", &["a"]);
    }

    #[test]
    fn bom_only_at_start() {
        // A second BOM is ordinary text (here part of the field name, so the line is ignored).
        assert!(decode(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n").is_empty());
        // A BOM inside a value is kept.
        assert_eq!(decode(b"data: \xEF\xBB\xBFx\n\n"), ["\u{FEFF}x"]);
    }

    #[test]
    fn partial_bom_is_text() {
        // "\xEF\xBB" then 'd' is not a BOM: the bytes stay (lossily decoded) in the first line.
        assert!(decode(b"\xEF\xBBdata: a\n\n").is_empty());
        assert_eq!(decode(b"\xEF\xBB\n\ndata: a\n\n"), ["a"]);
        assert_eq!(
            decode_pieces(&[b"\xEF", b"\xBB", b"\n", b"data: b\n\n"]),
            ["b"]
        );
        // A stream that is only a partial BOM produces nothing and does not panic.
        assert!(decode(b"\xEF").is_empty());
        assert!(decode(b"\xEF\xBB").is_empty());
        assert!(decode(b"\xEF\xBB\xBF").is_empty());
    }

    #[test]
    fn stream_starting_with_line_end_or_colon() {
        assert_eq!(decode(b"\ndata: a\n\n"), ["a"]);
        assert_eq!(decode(b"\r\ndata: a\n\n"), ["a"]);
        assert_eq!(decode(b":c\ndata: a\n\n"), ["a"]);
    }

    #[test]
    fn pending_event_flushed_by_finish() {
        assert_eq!(feed_only(b"data: a\n"), Vec::<String>::new());
        assert_eq!(decode(b"data: a\n"), ["a"]);
        assert_eq!(decode(b"data: a\ndata: b\n"), ["a\nb"]);
        assert_eq!(decode(b"data: a\r"), ["a"]);
        assert_eq!(decode(b"data: a\r\n"), ["a"]);
    }

    #[test]
    fn unterminated_last_line_flushed_by_finish() {
        assert_eq!(feed_only(b"data: a\n\ndata: [DONE]"), ["a"]);
        assert_eq!(decode(b"data: a\n\ndata: [DONE]"), ["a", "[DONE]"]);
        assert_eq!(decode(b"data: a\ndata: b"), ["a\nb"]);
        assert!(decode(b"data: a\n\n: trailing comment").len() == 1);
        assert!(decode(b"event: x").is_empty());
    }

    #[test]
    fn finish_resets_the_decoder() {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        decoder.feed(b"data: a\r", |e| out.push(e.to_owned()));
        decoder.finish(|e| out.push(e.to_owned()));
        assert_eq!(out, ["a"]);
        // A fresh stream: the leading LF is not the tail of the old CR, it is a blank line; the BOM
        // is skipped again.
        decoder.feed(b"\xEF\xBB\xBFdata: b\n\n", |e| out.push(e.to_owned()));
        decoder.finish(|e| out.push(e.to_owned()));
        assert_eq!(out, ["a", "b"]);
        decoder.finish(|e| out.push(e.to_owned()));
        assert_eq!(out, ["a", "b"]);
    }

    #[test]
    fn empty_stream() {
        assert!(decode(b"").is_empty());
        assert!(decode_pieces(&[b"", b"", b""]).is_empty());
    }

    #[test]
    fn utf8_split_across_chunks() {
        let stream = "data: héllo wörld 你好 🎉\n\ndata: ✓\n\n".as_bytes();
        check_all_splits(stream, &["héllo wörld 你好 🎉", "✓"]);
    }

    #[test]
    fn invalid_utf8_is_lossy() {
        assert_eq!(decode(b"data: a\xFFb\n\n"), ["a\u{FFFD}b"]);
        assert_eq!(decode(b"data: \xE4\xBD\n\n"), ["\u{FFFD}"]);
        // A truncated character at the very end of the stream.
        assert_eq!(decode(b"data: x\xF0\x9F"), ["x\u{FFFD}"]);
        // A broken character in a field name simply makes it an unknown field.
        assert!(decode(b"d\xFFata: a\n\n").is_empty());
        // Events before, at and after a broken byte in one piece, cut anywhere: the piece is
        // checked once up to the broken byte, the events after it one by one.
        check_all_splits(b"data: \xC3\xA9\n\ndata: a\xFFb\n\ndata: \xE4\xBD\xA0\n\n", &["é", "a\u{FFFD}b", "你"]);
    }

    #[test]
    fn events_are_dispatched_during_feed() {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        decoder.feed(b"data: 1\n\ndata: 2\n\nda", |e| out.push(e.to_owned()));
        assert_eq!(out, ["1", "2"]);
        decoder.feed(b"ta: 3\n", |e| out.push(e.to_owned()));
        assert_eq!(out, ["1", "2"]);
        decoder.feed(b"\n", |e| out.push(e.to_owned()));
        assert_eq!(out, ["1", "2", "3"]);
    }

    #[test]
    fn line_buffer_is_bounded_and_released() {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        let big = vec![b'x'; 200_000];
        decoder.feed(b"data: ", |e| out.push(e.to_owned()));
        for piece in big.chunks(1000) {
            decoder.feed(piece, |e| out.push(e.to_owned()));
        }
        decoder.feed(b"\n\n", |e| out.push(e.to_owned()));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].len(), 200_000);
        assert_eq!(decoder.line.capacity(), 0, "oversized line buffer released");
        assert!(decoder.event.data.is_empty());
        // Small lines reuse the buffer.
        for _ in 0..1000 {
            decoder.feed(b"data: {\"a\":1", |e| out.push(e.to_owned()));
            decoder.feed(b"}\n\n", |e| out.push(e.to_owned()));
        }
        assert_eq!(out.len(), 1001);
        assert!(decoder.line.capacity() <= KEEP_LINE_CAPACITY);
        assert!(decoder.line.is_empty());
    }

    #[test]
    fn memory_does_not_grow_with_the_stream() {
        let mut decoder = SseDecoder::new();
        let mut count = 0usize;
        let frame = b"data: {\"choices\":[{\"delta\":{\"content\":\"tok\"}}]}\n\n";
        for i in 0..20_000 {
            // Split each frame at a varying point so the line buffer is exercised.
            let cut = i % frame.len();
            decoder.feed(&frame[..cut], |_| count += 1);
            decoder.feed(&frame[cut..], |_| count += 1);
        }
        assert_eq!(count, 20_000);
        assert!(decoder.line.capacity() <= frame.len() * 2);
        assert!(decoder.event.data.capacity() <= frame.len() * 2);
    }

    /// A straightforward reference: decode the whole stream at once, split into lines, interpret.
    fn reference(stream: &[u8]) -> Vec<String> {
        let stream = stream.strip_prefix(&BOM[..]).unwrap_or(stream);
        let text = String::from_utf8_lossy(stream);
        let mut lines = Vec::new();
        let mut current = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    lines.push(std::mem::take(&mut current));
                }
                '\n' => lines.push(std::mem::take(&mut current)),
                c => current.push(c),
            }
        }
        let unterminated = !current.is_empty();
        if unterminated {
            lines.push(current);
        }
        let mut events = Vec::new();
        let mut data: Option<String> = None;
        for line in lines {
            if line.is_empty() {
                if let Some(d) = data.take() {
                    events.push(d);
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.find(':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(' ').unwrap_or(v))
                }
                None => (&line[..], ""),
            };
            if field == "data" {
                match &mut data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => data = Some(value.to_string()),
                }
            }
        }
        if let Some(d) = data {
            events.push(d);
        }
        events
    }

    /// Tiny deterministic LCG (Numerical Recipes constants).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn realistic_stream() -> Vec<u8> {
        let mut s = Vec::new();
        s.extend_from_slice(&BOM);
        s.extend_from_slice(b": OPENROUTER PROCESSING\r\n\r\n");
        s.extend_from_slice(b"retry: 3000\nevent: message\nid: 1\n");
        let words = [
            "Hello",
            " wörld",
            " 你好",
            " 🎉",
            "\\n",
            " \"quoted\"",
            ":",
            " ünïcödé",
        ];
        for (i, w) in words.iter().cycle().take(60).enumerate() {
            let frame = format!(
                "data: {{\"id\":\"c{i}\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{w}\"}}}}]}}"
            );
            s.extend_from_slice(frame.as_bytes());
            // Rotate through every line-end form.
            let end: &[u8] = match i % 3 {
                0 => b"\n\n",
                1 => b"\r\n\r\n",
                _ => b"\r\r",
            };
            s.extend_from_slice(end);
            if i % 7 == 0 {
                s.extend_from_slice(b": keep-alive\r\n");
            }
            if i % 11 == 0 {
                s.extend_from_slice(b"data: line one\r\ndata:line two\rdata\n\n");
            }
            if i % 13 == 0 {
                s.extend_from_slice(b"event: ping\r\n\r\n");
            }
        }
        s.extend_from_slice(b"data: {\"choices\":[],\"usage\":{\"total_tokens\":9}}\r\n\r\n");
        s.extend_from_slice(b"data: [DONE]");
        s
    }

    #[test]
    fn matches_reference_on_realistic_stream() {
        let stream = realistic_stream();
        let expected = reference(&stream);
        assert!(expected.len() > 60);
        assert_eq!(expected.last().map(String::as_str), Some("[DONE]"));
        assert!(expected.contains(&"line one\nline two\n".to_string()));
        assert_eq!(decode(&stream), expected);
        assert_eq!(decode_bytewise(&stream), expected);
    }

    #[test]
    fn random_split_points_give_identical_events() {
        let stream = realistic_stream();
        let expected = decode(&stream);
        let mut rng = Lcg(0x5EED_1234);
        for round in 0..300 {
            let mut pieces: Vec<&[u8]> = Vec::new();
            let mut at = 0;
            let max_piece = 1 + rng.below(if round % 2 == 0 { 8 } else { 200 });
            while at < stream.len() {
                let len = rng.below(max_piece + 1).min(stream.len() - at); // may be 0
                pieces.push(&stream[at..at + len]);
                at += len;
            }
            assert_eq!(decode_pieces(&pieces), expected, "round {round}");
        }
    }

    #[test]
    fn random_streams_match_reference() {
        // Random streams over a small alphabet rich in line ends, colons, spaces and the letters
        // of "data", fed in random pieces, must match the reference interpretation.
        let alphabet: &[&[u8]] = &[
            b"data",
            b"data:",
            b"data: ",
            b":",
            b" ",
            b"\r",
            b"\n",
            b"\r\n",
            b"x",
            b"\xC3\xA9",
            b"event: e",
            b"\xEF\xBB\xBF",
        ];
        let mut rng = Lcg(42);
        for round in 0..2000 {
            let mut stream = Vec::new();
            for _ in 0..rng.below(40) {
                stream.extend_from_slice(alphabet[rng.below(alphabet.len())]);
            }
            let expected = reference(&stream);
            assert_eq!(decode(&stream), expected, "round {round}: {stream:?}");
            let mut pieces: Vec<&[u8]> = Vec::new();
            let mut at = 0;
            while at < stream.len() {
                let len = rng.below(5).min(stream.len() - at);
                pieces.push(&stream[at..at + len]);
                at += len;
            }
            assert_eq!(
                decode_pieces(&pieces),
                expected,
                "round {round} split: {stream:?}"
            );
        }
    }

    #[test]
    fn names_data_and_line_ends() {
        let mut p = SseDecoder::new();
        let mut out = Vec::new();
        p.feed_events(b"event: endpoint\r", &mut out);
        p.feed_events(b"\ndata: /messages?session_id=1\r\n\r\n: ping\n\ndata: {\"a\":\ndata: 1}\n", &mut out);
        assert_eq!(out.len(), 1);
        p.feed_events(b"\nevent: message\ndata:x", &mut out);
        p.finish_events(&mut out);
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
