//! `Text`: an immutable string shared by reference count. A message's content is one, so a long
//! answer is held once by the dialog's history, the `StreamEnded` event and every snapshot of
//! the messages a host takes (a 100 MB answer used to be copied for each of them).

use serde::{Serialize, Serializer};
use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, LazyLock};

#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(Arc<str>);

/// One empty text for every default value: a `Message::default()` allocates nothing.
static EMPTY: LazyLock<Text> = LazyLock::new(|| Text(Arc::from("")));

impl Text {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// How many values share this text (tests watch a history being freed).
    #[cfg(test)]
    pub(crate) fn owners(&self) -> usize {
        Arc::strong_count(&self.0)
    }
}

impl Default for Text {
    fn default() -> Text {
        EMPTY.clone()
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        if s.is_empty() { Text::default() } else { Text(Arc::from(s)) }
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        if s.is_empty() { Text::default() } else { Text(Arc::from(s)) }
    }
}

impl From<Text> for String {
    fn from(t: Text) -> String {
        t.as_str().to_owned()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_and_compare_as_strings() {
        let a = Text::from(String::from("héllo"));
        let b = a.clone();
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert_eq!(a, "héllo");
        assert_eq!(a.len(), 6);
        assert_eq!(format!("{a:?} {a}"), "\"héllo\" héllo");
        assert_eq!(serde_json::to_string(&a).unwrap(), "\"héllo\"");
        assert_eq!(Text::default(), "");
        assert!(std::ptr::eq(Text::from("").as_str(), Text::default().as_str()));
    }
}
