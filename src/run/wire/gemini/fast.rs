//! The fast path of the Gemini stream: a chunk that only carries text (the answer's or a
//! thought's) and the usage so far, as nearly every chunk does, is read by the zero-copy
//! scanner instead of a `serde_json::Value` tree, as the typed streams' deltas are
//! (`typed.rs`). Anything else in it — a call, a signature, a finish reason, an error, a
//! second candidate — leaves it to the tree reader; what both read must be the same (the
//! `gemini_events` fuzz target compares them).

use crate::run::chunk::Usage;
use crate::run::scan::{Invalid, Scanner};
use smallvec::SmallVec;
use std::borrow::Cow;

/// One text part of the first candidate.
#[derive(Debug, PartialEq)]
pub struct TextPart<'a> {
    pub text: Cow<'a, str>,
    pub thought: bool,
}

/// A chunk's text parts: one, or a thought and the answer, nearly always. Inline, as a `Vec`
/// made and freed for every chunk cost ~200 instructions a delta (issue 34).
pub type TextParts<'a> = SmallVec<[TextPart<'a>; 2]>;

/// A chunk the fast path read: its text parts, and its usage when that is an object.
pub struct TextChunk<'a> {
    pub parts: TextParts<'a>,
    pub usage: Option<Usage>,
}

/// The text parts (and usage) of `data` when that is all it carries; None sends it to the
/// tree reader.
pub fn read(data: &str) -> Option<TextChunk<'_>> {
    let mut s = Scanner::new(data);
    if s.peek() != Some(b'{') {
        return None;
    }
    let (mut parts, mut usage) = (None, None);
    s.object(|s, key| match key {
        "candidates" => {
            let mut seen = 0;
            parts = None;
            s.array(|s| {
                seen += 1;
                if seen > 1 {
                    return Err(Invalid);
                }
                parts = Some(candidate(s)?);
                Ok(())
            })
        }
        "usageMetadata" => {
            usage = Usage::read(s.raw()?);
            Ok(())
        }
        // What the tree reader acts on.
        "error" | "promptFeedback" => Err(Invalid),
        // Ids and versions.
        _ => s.skip(),
    })
    .ok()?;
    s.end().ok()?;
    Some(TextChunk { parts: parts?, usage })
}

/// A candidate's parts; its other members (index, safety ratings) are skipped, a finish
/// reason is the tree's.
fn candidate<'a>(s: &mut Scanner<'a>) -> Result<TextParts<'a>, Invalid> {
    let mut parts = TextParts::new();
    s.object(|s, key| match key {
        "content" => {
            // A repeated member counts as its last occurrence, as in the tree.
            parts.clear();
            s.object(|s, key| match key {
                "parts" => {
                    parts.clear();
                    s.array(|s| {
                        parts.push(part(s)?);
                        Ok(())
                    })
                }
                _ => s.skip(),
            })
        }
        "finishReason" => Err(Invalid),
        _ => s.skip(),
    })?;
    Ok(parts)
}

/// A part with a text and maybe `thought`, nothing else.
fn part<'a>(s: &mut Scanner<'a>) -> Result<TextPart<'a>, Invalid> {
    let (mut text, mut thought) = (None, false);
    s.object(|s, key| {
        match (key, s.peek()) {
            ("text", Some(b'"')) => text = Some(s.string()?),
            ("thought", Some(b't' | b'f')) => thought = s.raw()? == "true",
            _ => return Err(Invalid),
        }
        Ok(())
    })?;
    Ok(TextPart { text: text.ok_or(Invalid)?, thought })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_chunks_are_read_and_everything_else_is_left_to_the_tree() {
        let data = r#"{"candidates":[{"content":{"parts":[{"text":"Hm","thought":true},{"text":"a\nb"}],"role":"model"},"index":0}],"modelVersion":"gemini-3","responseId":"r"}"#;
        let chunk = read(data).unwrap();
        assert_eq!(chunk.parts[..], [TextPart { text: "Hm".into(), thought: true }, TextPart { text: "a\nb".into(), thought: false }]);
        assert!(matches!(chunk.parts[0].text, Cow::Borrowed(_)), "unescaped text is borrowed");
        assert!(chunk.usage.is_none());
        let data = r#"{"candidates":[{"content":{"parts":[{"text":"x"}]}}],"usageMetadata":{"promptTokenCount":3},"usageMetadata":7}"#;
        assert!(read(data).unwrap().usage.is_none(), "the last of a repeated member counts, as in the tree");
        let data = r#"{"candidates":[{"content":{"parts":[{"text":"x"}]}}],"usageMetadata":{"promptTokenCount":3}}"#;
        assert_eq!(read(data).unwrap().usage, Some(serde_json::json!({"promptTokenCount": 3}).into()));
        for tree in [
            r#"{"candidates":[{"content":{"parts":[{"text":"x","thoughtSignature":"s"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f"}}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"STOP"}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":1}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"thought":true}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"x","thought":"yes"}]}}]}"#,
            r#"{"candidates":[{},{}]}"#,
            r#"{"error":{"code":503}}"#,
            r#"{"responseId":"r"}"#,
            r#"[1]"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"x"}]}}]"#,
        ] {
            assert!(read(tree).is_none(), "{tree}");
        }
    }
}
