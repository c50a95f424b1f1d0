//! The fast token estimate of SPEC §I.4.1: a count of a text's tokens from its shape alone,
//! within ±15 % of OpenAI's tokenizers on English prose, source code, CJK text and JSON
//! (`context/accuracy.rs` measures it against the real ones and BENCHMARKS.md has the table).
//! One pass over the bytes, no table, no allocation.
//!
//! The rules follow how BPE tokenizers of this generation split text before merging: a word
//! (a run of letters, split at a lower→upper case change) with the space before it is one
//! token when short and common, a long one is several; digits go in groups of three; a run of
//! punctuation merges in pairs; a run of spaces or line breaks is one token; each Han, kana or
//! Hangul character is about one token.

/// Which tokenizer a model's text is estimated for. The two OpenAI generations differ only
/// where it shows: cl100k_base spends about 45 % more tokens on CJK text than o200k_base.
/// Anthropic's and Gemini's tokenizers are not public; they get the current generation's
/// figures, which the provider's own count of each request calibrates (`context.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tokenizer {
    /// o200k_base: GPT-4o, GPT-4.1, GPT-5, the o-series, and every other model.
    Current,
    /// cl100k_base: GPT-4 (not 4o/4.1/4.5), GPT-3.5, the text-embedding models.
    Cl100k,
}

impl Tokenizer {
    /// The tokenizer of the model called `name` (a gateway's `openai/gpt-4` too).
    pub fn of(name: &str) -> Tokenizer {
        let name = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
        let gpt4 = name.strip_prefix("gpt-4").is_some_and(|rest| rest.is_empty() || rest.starts_with('-') && !rest.starts_with("-o"));
        if gpt4 || name.starts_with("gpt-3.5") || name.starts_with("text-embedding-") {
            Tokenizer::Cl100k
        } else {
            Tokenizer::Current
        }
    }

    /// Tenths of a token per Han, kana or Hangul character.
    fn cjk(self) -> i64 {
        match self {
            Tokenizer::Current => 7,
            Tokenizer::Cl100k => 10,
        }
    }
}

/// The estimated tokens of `text` for `tokenizer`.
pub fn tokens_for(tokenizer: Tokenizer, text: &str) -> i64 {
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
            tenths += if is_cjk(c) { tokenizer.cjk() } else if c.len_utf8() == 2 { OTHER_LETTER } else { OTHER_SYMBOL };
        }
    }
    (tenths + 9) / 10
}

/// Tenths of a token per piece.
const SPACES: i64 = 7;
const NEWLINES: i64 = 9;
const PUNCTUATION: i64 = 5;
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

    fn tokens(text: &str) -> i64 {
        tokens_for(Tokenizer::Current, text)
    }

    #[test]
    fn shapes() {
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("hello world"), 2);
        assert_eq!(tokens("1234567"), 3);
        assert!(tokens("streamDelta") >= 2);
        assert!(tokens("今天天气很好") >= 5);
    }
}
