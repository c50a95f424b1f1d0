//! The placeholder rule of SPEC §B.6 searched the slow, obvious way: from every `{{`, the
//! first `}}` after it. The unit tests and `fuzz/` (target `prompt`) hold the linear scan to
//! it; it is compiled for them only.

use super::is_name_char;

/// (start, end, name) of every placeholder, in order.
pub fn placeholders(text: &str) -> Vec<(usize, usize, String)> {
    let (mut found, mut from) = (Vec::new(), 0);
    while let Some(offset) = text[from..].find("{{") {
        let start = from + offset;
        let Some(close) = text[start + 2..].find("}}") else { break };
        let name = text[start + 2..start + 2 + close].trim_matches([' ', '\t']);
        if !name.is_empty() && name.chars().all(is_name_char) {
            found.push((start, start + 2 + close + 2, name.to_owned()));
            from = start + 2 + close + 2;
        } else {
            from = start + 1;
        }
    }
    found
}

/// `text` with every placeholder removed: what rendering each variable as "" gives.
pub fn without_placeholders(text: &str) -> String {
    let (mut out, mut copied) = (String::new(), 0);
    for (start, end, _) in placeholders(text) {
        out.push_str(&text[copied..start]);
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
}
