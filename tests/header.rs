//! The committed C header must be what cbindgen makes of the sources now, and must declare
//! nothing a C or C++ consumer could collide with: every name it puts at file scope (macros,
//! types, tags, enumerators, functions) carries the `vi_` / `Vi` / `VI_` prefix.

const HEADER: &str = include_str!("../include/visindigo_agent.h");

#[test]
fn committed_header_is_fresh() {
    let generated = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/visindigo_agent.h")).expect("build.rs wrote the header");
    assert!(
        generated == HEADER,
        "include/visindigo_agent.h is stale: run `VI_UPDATE_HEADER=1 cargo build` and commit it"
    );
}

#[test]
fn every_name_the_header_declares_is_prefixed() {
    assert_eq!(unprefixed_names(HEADER), Vec::<String>::new());
}

/// The checker itself: it must catch what leaked before (core constants as macros) and every
/// other kind of file-scope name, and let parameters, fields and standard types through.
#[test]
fn the_prefix_check_catches_each_kind_of_name() {
    let leaky = r#"
#ifndef VISINDIGO_AGENT_H
#define VISINDIGO_AGENT_H
#include <stdint.h>
#define MAX_LEN 64
#define VI_OK 1
typedef struct Handle Handle;
typedef struct ViGood { int32_t count; const char *text; } ViGood;
enum ViKind { VI_KIND_A = 1, KIND_B = 2 };
typedef void (*Callback)(void *user_data, size_t len);
typedef void (*ViCallback)(void *user_data);
#ifdef __cplusplus
extern "C" {
#endif // __cplusplus
int32_t helper(const struct ViGood *good, size_t len);
bool vi_fine(const char *id, size_t len);
#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus
#endif  /* VISINDIGO_AGENT_H */
"#;
    assert_eq!(unprefixed_names(leaky), ["MAX_LEN", "Handle", "KIND_B", "Callback", "helper"]);
}

fn is_prefixed(name: &str) -> bool {
    ["vi_", "Vi", "VI_"].iter().any(|p| name.starts_with(p))
}

/// C keywords, the standard types the header may use, and the names that stand for themselves.
fn is_allowed(name: &str) -> bool {
    const ALLOWED: &[&str] = &[
        "typedef", "struct", "enum", "union", "const", "void", "char", "int", "unsigned", "signed", "long", "short",
        "float", "double", "extern", "static", "inline", "bool", "size_t", "uintptr_t", "intptr_t", "uint8_t",
        "uint16_t", "uint32_t", "uint64_t", "int8_t", "int16_t", "int32_t", "int64_t", "__cplusplus",
        "VISINDIGO_AGENT_H", "NULL",
    ];
    ALLOWED.contains(&name)
}

/// The names declared at file scope that carry no prefix, in order of appearance.
fn unprefixed_names(header: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut push = |name: &str| {
        if !is_prefixed(name) && !is_allowed(name) && !found.iter().any(|f| f == name) {
            found.push(name.to_owned());
        }
    };
    for line in strip_comments_and_strings(header).lines() {
        let line = line.trim();
        if let Some(directive) = line.strip_prefix('#') {
            // `#define NAME …` declares NAME; `#include <…>`, `#if…`, `#endif` declare nothing.
            let mut words = directive.split_whitespace();
            if words.next() == Some("define") {
                if let Some(name) = words.next() {
                    push(name.split('(').next().unwrap_or(name));
                }
            }
        }
    }
    let code: String = strip_comments_and_strings(header)
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    let tokens = tokenize(&code);
    // Brace frames: whether each open brace is an enum body (its names are file scope) or
    // not (struct fields, the `extern "C"` block).
    let mut braces: Vec<bool> = Vec::new();
    let mut parens = 0usize;
    let mut last_keyword_enum = false;
    for (i, token) in tokens.iter().enumerate() {
        match token.as_str() {
            "{" => {
                // `extern "C" {` is transparent: its contents are file scope.
                let is_extern = i > 0 && tokens[i - 1] == "extern";
                braces.push(last_keyword_enum);
                if is_extern {
                    braces.pop();
                }
                last_keyword_enum = false;
            }
            "}" => {
                braces.pop();
            }
            "(" => parens += 1,
            ")" => parens = parens.saturating_sub(1),
            ";" => last_keyword_enum = false,
            t if t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') => {
                if t == "enum" {
                    last_keyword_enum = true;
                }
                let previous = |back: usize| i.checked_sub(back).map(|j| tokens[j].as_str());
                let file_scope = braces.is_empty() && parens == 0;
                let enumerator = braces.last() == Some(&true) && parens == 0 && matches!(previous(1), Some("{") | Some(","));
                // `typedef void (*Name)(…)`: the name sits inside the first parentheses.
                let pointer_typedef = parens == 1 && previous(1) == Some("*") && previous(2) == Some("(");
                if file_scope || enumerator || pointer_typedef {
                    push(t);
                }
            }
            _ => {}
        }
    }
    found
}

fn strip_comments_and_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = ' ';
                for c in chars.by_ref() {
                    if previous == '*' && c == '/' {
                        break;
                    }
                    if c == '\n' {
                        out.push('\n');
                    }
                    previous = c;
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if !escaped && c == '"' {
                        break;
                    }
                    escaped = !escaped && c == '\\';
                }
                out.push(' '); // `extern "C" {` reads as `extern {`
            }
            c => out.push(c),
        }
    }
    out
}

fn tokenize(code: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_alphanumeric() || c == '_' {
            let mut word = String::new();
            while let Some(&c) = chars.peek().filter(|c| c.is_ascii_alphanumeric() || **c == '_') {
                word.push(c);
                chars.next();
            }
            tokens.push(word);
        } else {
            if !c.is_whitespace() {
                tokens.push(c.to_string());
            }
            chars.next();
        }
    }
    tokens
}
