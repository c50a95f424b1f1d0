//! The fast token estimate of SPEC §I.4.1: a count of a text's tokens from its shape alone,
//! within ±15 % of OpenAI's o200k_base tokenizer on English prose, source code, CJK text and
//! JSON (`tests/context.rs` measures it against the real tokenizer and BENCHMARKS.md has the
//! table). One pass over the bytes, no table, no allocation.
//!
//! The rules follow how BPE tokenizers of this generation split text before merging: a word
//! (a run of letters, split at a lower→upper case change) with the space before it is one
//! token when short and common, a long one is several; digits go in groups of three; a run of
//! punctuation merges in pairs; a run of spaces or line breaks is one token; each Han, kana or
//! Hangul character is about one token.

/// The estimated tokens of `text`.
pub fn tokens(text: &str) -> i64 {
    let bytes = text.as_bytes();
    let mut tenths: i64 = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphabetic() {
            // A word: uppercase letters then lowercase ones (`streamDelta` is two words).
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_uppercase() {
                i += 1;
            }
            while i < bytes.len() && bytes[i].is_ascii_lowercase() {
                i += 1;
            }
            tenths += word(i - start);
        } else if b.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            tenths += 10 * (i - start).div_ceil(3) as i64;
        } else if b == b' ' || b == b'\t' {
            let start = i;
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            // One space joins the word after it; a longer run (indentation) is a token.
            if i - start > 1 || i >= bytes.len() || !bytes[i].is_ascii_alphanumeric() {
                tenths += SPACES;
            }
        } else if b == b'\n' || b == b'\r' {
            while i < bytes.len() && (bytes[i] == b'\n' || bytes[i] == b'\r') {
                i += 1;
            }
            tenths += NEWLINES;
        } else if b.is_ascii() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_punctuation() {
                i += 1;
            }
            tenths += PUNCTUATION * (i - start) as i64;
        } else {
            // A non-ASCII character: its UTF-8 length tells the script well enough.
            let c = text[i..].chars().next().unwrap_or(' ');
            i += c.len_utf8();
            tenths += if is_cjk(c) { CJK } else if c.len_utf8() == 2 { OTHER_LETTER } else { OTHER_SYMBOL };
        }
    }
    (tenths + 9) / 10
}

/// Tenths of a token per piece.
const SPACES: i64 = 7;
const NEWLINES: i64 = 9;
const PUNCTUATION: i64 = 5;
const CJK: i64 = 7;
const OTHER_LETTER: i64 = 5;
const OTHER_SYMBOL: i64 = 10;

/// A word of `len` ASCII letters: one token up to 8 letters, then one more per 5.
fn word(len: usize) -> i64 {
    10 + 10 * (len.saturating_sub(8) as i64) / 5
}

/// Han, kana, Hangul and their punctuation.
fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3000..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("hello world"), 2);
        assert_eq!(tokens("1234567"), 3);
        assert!(tokens("streamDelta") >= 2);
        assert!(tokens("今天天气很好") >= 5);
    }
}
