//! A zero-copy reader of one JSON text, for the chunk parser (`chunk.rs`).
//!
//! The caller walks the document: it reads the objects and arrays it cares about and skips the
//! rest; strings without escapes are borrowed from the input. Validity is `serde_json`'s: the
//! text is accepted exactly when `serde_json::from_str::<Value>` would accept it, nesting limit
//! included (skipping is iterative, but a document nested deeper than serde_json allows is
//! refused as it refuses it). Numbers outside the common case (short integers) and the values the caller wants
//! as a `Value` are handed to `serde_json` itself, so their range rules are its own.
//!
//! Why not serde: a chunk is ~60 bytes and a stream has hundreds of thousands of them. Driving
//! serde's visitors cost ~300 ns per chunk, most of it moving the nested `Result`s of large
//! lenient structs; this walk costs a fraction of that and allocates nothing for unescaped text.

use serde_json::Value;
use std::borrow::Cow;

/// The text is not valid JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invalid;

pub type Result<T> = std::result::Result<T, Invalid>;

pub struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    /// The objects and arrays the caller is inside (`object`/`array`).
    depth: usize,
}

/// serde_json's recursion limit: it refuses the 128th nested container.
const MAX_DEPTH: usize = 127;

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str) -> Scanner<'a> {
        Scanner { text, pos: 0, depth: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// Skips whitespace and returns the next byte (the first byte of the next value or
    /// delimiter); `None` at the end.
    pub fn peek(&mut self) -> Option<u8> {
        let bytes = self.bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Only whitespace is left.
    pub fn end(&mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(Invalid),
        }
    }

    fn expect(&mut self, byte: u8) -> Result<()> {
        if self.peek() != Some(byte) {
            return Err(Invalid);
        }
        self.pos += 1;
        Ok(())
    }

    /// Reads the object that comes next; `field(self, key)` is called for each member and
    /// must consume its value.
    pub fn object(&mut self, mut field: impl FnMut(&mut Self, &str) -> Result<()>) -> Result<()> {
        self.expect(b'{')?;
        self.enter()?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            let key = self.string()?;
            self.expect(b':')?;
            field(self, &key)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Invalid),
            }
        }
    }

    /// Reads the array that comes next; `element(self)` is called for each element and must
    /// consume it.
    pub fn array(&mut self, mut element: impl FnMut(&mut Self) -> Result<()>) -> Result<()> {
        self.expect(b'[')?;
        self.enter()?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            element(self)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Invalid),
            }
        }
    }

    /// One container deeper; past serde_json's limit the text is invalid.
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH { Err(Invalid) } else { Ok(()) }
    }

    /// Reads the string that comes next: borrowed from the input unless it has escapes.
    pub fn string(&mut self) -> Result<Cow<'a, str>> {
        self.expect(b'"')?;
        let bytes = self.bytes();
        let start = self.pos;
        let mut i = start;
        loop {
            i = plain_run(bytes, i);
            match bytes.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    // Both ends are ASCII bytes, so the slice is on character boundaries.
                    return Ok(Cow::Borrowed(&self.text[start..i]));
                }
                Some(b'\\') => return self.escaped(start, i),
                Some(&b) if b < 0x20 => return Err(Invalid),
                None => return Err(Invalid),
                Some(_) => i += 1,
            }
        }
    }

    /// The rest of a string from its first escape at `i`. Apart: with it inlined, every string
    /// paid for saving the registers this part needs (~20 instructions a string, issue 34).
    #[cold]
    #[inline(never)]
    fn escaped(&mut self, start: usize, mut i: usize) -> Result<Cow<'a, str>> {
        let (text, bytes) = (self.text, self.bytes());
        let mut out = String::with_capacity(i - start + 16);
        out.push_str(&text[start..i]);
        loop {
            match bytes.get(i) {
                None => return Err(Invalid),
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => i = unescape(bytes, i + 1, &mut out)?,
                Some(&b) if b < 0x20 => return Err(Invalid),
                Some(_) => {
                    let run = i;
                    i = plain_run(bytes, i + 1);
                    while bytes.get(i).is_some_and(|&b| b != b'"' && b != b'\\' && b >= 0x20) {
                        i += 1;
                    }
                    out.push_str(&text[run..i]);
                }
            }
        }
    }

    /// Reads the number that comes next and returns its text.
    pub fn number(&mut self) -> Result<&'a str> {
        self.peek();
        let bytes = self.bytes();
        let start = self.pos;
        let mut i = start;
        let digits = |mut i: usize| {
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        match bytes.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(i + 1),
            _ => return Err(Invalid),
        }
        let mut plain_integer = true;
        if bytes.get(i) == Some(&b'.') {
            plain_integer = false;
            let after = digits(i + 1);
            if after == i + 1 {
                return Err(Invalid);
            }
            i = after;
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            plain_integer = false;
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let after = digits(i);
            if after == i {
                return Err(Invalid);
            }
            i = after;
        }
        self.pos = i;
        let token = &self.text[start..i];
        // Up to 18 characters an integer always fits; anything else is range-checked by the
        // reader whose rules this follows ("1e400" is out of range for it).
        if !(plain_integer && token.len() <= 18) && serde_json::from_str::<Value>(token).is_err() {
            return Err(Invalid);
        }
        Ok(token)
    }

    /// Reads the value that comes next as a `serde_json::Value`.
    pub fn value(&mut self) -> Result<Value> {
        let raw = self.raw()?;
        serde_json::from_str(raw).map_err(|_| Invalid)
    }

    /// Skips the value that comes next and returns its text.
    pub fn raw(&mut self) -> Result<&'a str> {
        self.peek();
        let start = self.pos;
        self.skip()?;
        Ok(&self.text[start..self.pos])
    }

    /// Skips the value that comes next, validating it. Iterative (no stack is at risk), with the
    /// nesting limit of `enter`.
    pub fn skip(&mut self) -> Result<()> {
        // The closing brackets of the containers we are in, innermost last.
        let mut open: Vec<u8> = Vec::new();
        loop {
            // A value starts here.
            match self.peek() {
                Some(b'{' | b'[') if self.depth + open.len() + 1 > MAX_DEPTH => return Err(Invalid),
                Some(b'{') => {
                    self.pos += 1;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                    } else {
                        open.push(b'}');
                        self.string()?;
                        self.expect(b':')?;
                        continue;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                    } else {
                        open.push(b']');
                        continue;
                    }
                }
                Some(b'"') => {
                    self.string()?;
                }
                Some(b't') => self.literal("true")?,
                Some(b'f') => self.literal("false")?,
                Some(b'n') => self.literal("null")?,
                Some(_) => {
                    self.number()?;
                }
                None => return Err(Invalid),
            }
            // A value ended: close what it completes, then go on with the next member.
            loop {
                let Some(&close) = open.last() else { return Ok(()) };
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if close == b'}' {
                            self.string()?;
                            self.expect(b':')?;
                        }
                        break;
                    }
                    Some(b) if b == close => {
                        self.pos += 1;
                        open.pop();
                    }
                    _ => return Err(Invalid),
                }
            }
        }
    }

    fn literal(&mut self, word: &str) -> Result<()> {
        if !self.bytes()[self.pos..].starts_with(word.as_bytes()) {
            return Err(Invalid);
        }
        self.pos += word.len();
        Ok(())
    }
}

/// Decodes the escape whose letter is at `bytes[i]` into `out`; returns the index after it.
fn unescape(bytes: &[u8], i: usize, out: &mut String) -> Result<usize> {
    let simple = match bytes.get(i) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => {
            let first = hex4(bytes, i + 1)?;
            let (code, next) = match first {
                0xD800..=0xDBFF => {
                    // A leading surrogate must be followed by an escaped trailing one.
                    if bytes.get(i + 5) != Some(&b'\\') || bytes.get(i + 6) != Some(&b'u') {
                        return Err(Invalid);
                    }
                    let second = hex4(bytes, i + 7)?;
                    if !(0xDC00..=0xDFFF).contains(&second) {
                        return Err(Invalid);
                    }
                    (0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00), i + 11)
                }
                0xDC00..=0xDFFF => return Err(Invalid),
                _ => (first, i + 5),
            };
            out.push(char::from_u32(code).ok_or(Invalid)?);
            return Ok(next);
        }
        _ => return Err(Invalid),
    };
    out.push(simple);
    Ok(i + 1)
}

fn hex4(bytes: &[u8], i: usize) -> Result<u32> {
    let digits = bytes.get(i..i + 4).ok_or(Invalid)?;
    digits.iter().try_fold(0u32, |n, &b| {
        let digit = (b as char).to_digit(16).ok_or(Invalid)?;
        Ok(n * 16 + digit)
    })
}

/// No byte of `bytes` needs attention inside a JSON string (no '"', '\\' or control character):
/// between two quotes they read as themselves.
pub fn plain(bytes: &[u8]) -> bool {
    let i = plain_run(bytes, 0);
    bytes[i..].iter().all(|&b| b != b'"' && b != b'\\' && b >= 0x20)
}

/// Past the bytes of a string from `i` that need no attention — neither '"', '\\' nor a control
/// character — eight at a time, stopping at or before the first one (the caller reads from
/// there byte by byte). Text in a stream's events is mostly such runs. A lane below 0x20 shows
/// as the borrow of (lane − 0x20) where its top bit was clear, and a lane equal to c as the
/// borrow of ((lane ^ c) − 1): exact for the lowest such lane, the one returned.
fn plain_run(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = ONES << 7;
    while let Some(word) = bytes.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().unwrap_or_default());
        let quote = w ^ (ONES * u64::from(b'"'));
        let backslash = w ^ (ONES * u64::from(b'\\'));
        let special = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (w.wrapping_sub(ONES * 0x20) & !w);
        let special = special & HIGHS;
        if special != 0 {
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts(text: &str) -> bool {
        let mut s = Scanner::new(text);
        s.skip().and_then(|_| s.end()).is_ok()
    }

    #[test]
    fn agrees_with_serde_json_on_the_edges() {
        let cases = [
            r#""\ud800""#, r#""\ud800x""#, r#""\ud800\u0041""#, r#""\udc00""#, r#""\ud800\udc00""#,
            "\"a\u{1}b\"", "\"a\u{7f}b\"", "1e400", "-1e400", "1e-400", "01", "-0", "1.", ".5", "-",
            "1E+2", "1e", "1e+", "-01", "123456789012345678901234567890", "[1,]", "{\"a\":1,}",
            "{\"a\" 1}", "{1:2}", "[1 2]", "{}", "[]", " [ ] ", "tru", "nul", "truex", "\"\\x\"",
            "\"\\u12\"", "\"\\uZZZZ\"", "\"\\u00e9\\n\\/\"", "[{\"a\":[{}]}]", "{\"a\":{\"b\":[1,{\"c\":null}]}}",
            "[", "{", "{\"a\":", "\"", "]", "}", ",", "",
        ];
        for text in cases {
            let serde = serde_json::from_str::<Value>(text).is_ok();
            assert_eq!(accepts(text), serde, "{text:?}");
        }
        let huge = "9".repeat(400);
        assert!(!accepts(&huge));
        assert!(!serde_json::from_str::<Value>(&huge).is_ok());
    }

    #[test]
    fn plain_runs_stop_at_the_first_byte_that_needs_attention() {
        let needs = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
        // Every byte value at every lane of a word, after runs of every length below 17.
        for len in 0..17 {
            for special in 0..=255u8 {
                let mut bytes = vec![b'a'; len];
                bytes.push(special);
                bytes.extend_from_slice(b"\x80\xff\x1f\"and a tail longer than a word");
                let first = bytes.iter().position(|&b| needs(b)).unwrap();
                // A full word always holds the first such byte here, so the stop is exact.
                assert_eq!(plain_run(&bytes, 0), first, "len {len}, byte {special:#x}");
                assert_eq!(plain_run(&bytes[..first], 0), first - first % 8, "the unread rest is shorter than a word");
            }
        }
    }

    #[test]
    fn strings_are_borrowed_unless_escaped() {
        let mut s = Scanner::new(r#""plain é""#);
        assert!(matches!(s.string(), Ok(Cow::Borrowed("plain é"))));
        let mut s = Scanner::new(r#""a\"b\u00e9\ud83d\ude00c""#);
        assert_eq!(s.string().unwrap(), "a\"bé😀c");
    }

    #[test]
    fn nesting_is_limited_where_serde_json_limits_it() {
        for depth in 120..=135 {
            for (prefix, suffix) in [("", ""), ("{\"a\":", "}"), ("{\"choices\":[{\"delta\":{\"x\":", "}}]}")] {
                let text = format!("{prefix}{}{}{suffix}", "[".repeat(depth), "]".repeat(depth));
                let reference = serde_json::from_str::<Value>(&text).is_ok();
                assert_eq!(Scanner::new(&text).skip().is_ok(), reference, "depth {depth} in {prefix:?}");
                assert_eq!(
                    crate::run::chunk::parse(&text),
                    crate::run::chunk::reference::reference(&text),
                    "chunk at depth {depth} in {prefix:?}"
                );
            }
        }
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(!accepts(&deep), "serde_json refuses it too");
        let unbalanced = format!("{}{}", "[".repeat(1000), "}".repeat(1000));
        assert!(!accepts(&unbalanced));
    }

    #[test]
    fn raw_returns_the_value_text() {
        let mut s = Scanner::new(r#"{"a": {"b":[1, 2]} , "c":1}"#);
        let mut raw = None;
        s.object(|s, key| {
            if key == "a" {
                raw = Some(s.raw()?);
                Ok(())
            } else {
                s.skip()
            }
        })
        .unwrap();
        assert_eq!(raw, Some(r#"{"b":[1, 2]}"#));
    }
}
