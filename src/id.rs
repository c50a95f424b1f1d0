//! Identifiers: random v4 UUIDs, lower-case, 36 characters, no braces (SPEC, "Names used").

pub fn new_id() -> String {
    uuid::Uuid::new_v4().hyphenated().to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_lowercase_hyphenated_uuids() {
        let id = super::new_id();
        assert_eq!(id.len(), 36);
        assert!(id.chars().all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c)));
        assert_ne!(id, super::new_id());
    }
}
