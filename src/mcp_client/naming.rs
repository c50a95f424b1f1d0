//! The names MCP tools are offered under: `<server>__<tool>`, every character outside
//! `[a-zA-Z0-9_-]` replaced by `_`, cut to 64 characters; a name already taken (by a function or
//! an earlier MCP tool) gets the first free suffix `_2`, `_3`, … (still within 64 characters).

use std::collections::HashSet;

pub const MAX_LEN: usize = 64;

/// `<server>__<tool>` sanitised to the tool-name pattern.
pub fn base_name(server: &str, tool: &str) -> String {
    let mut name: String = format!("{server}__{tool}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .collect();
    name.truncate(MAX_LEN); // ASCII only by now
    name
}

/// The offered name of each `(server, tool)` in order, none of them in `taken` nor repeated;
/// every name is added to `taken`.
pub fn assign<'a>(tools: impl IntoIterator<Item = (&'a str, &'a str)>, taken: &mut HashSet<String>) -> Vec<String> {
    tools
        .into_iter()
        .map(|(server, tool)| {
            let base = base_name(server, tool);
            let mut name = base.clone();
            let mut n = 2;
            while taken.contains(&name) {
                let suffix = format!("_{n}");
                name = format!("{}{suffix}", &base[..base.len().min(MAX_LEN - suffix.len())]);
                n += 1;
            }
            taken.insert(name.clone());
            name
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::is_valid_tool_name;

    #[test]
    fn sanitised_truncated_and_unique() {
        assert_eq!(base_name("my server", "get.time!"), "my_server__get_time_");
        assert_eq!(base_name("é", "x"), "___x");
        let long = "t".repeat(80);
        assert_eq!(base_name("s", &long).len(), 64);
        let mut taken = HashSet::from(["fs__read".to_owned()]);
        let names = assign([("fs", "read"), ("fs", "read"), ("f.s", "read"), ("s", long.as_str()), ("s", long.as_str())], &mut taken);
        assert_eq!(&names[..3], ["fs__read_2", "fs__read_3", "f_s__read"]);
        assert_eq!(names[3].len(), 64);
        assert_eq!(names[4].len(), 64);
        assert!(names[4].ends_with("_2"));
        assert!(names.iter().all(|n| is_valid_tool_name(n)));
    }
}
