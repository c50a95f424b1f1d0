//! How messages, dialogs and the Center document are written and read (SPEC §C, §D, §F): one
//! writer and one lenient reader per type, used by both the `Value` path (`to_json` /
//! `from_json(&Map)`) and the text path (`Center::to_json_string` / `from_json_text`), so a
//! new field is one edit.
//!
//! * Writing: `Serialize` views over the live state (`MessageOut` here, `Dialog::serialize_json`,
//!   `Center::serialize_json`); `to_json()` is `serde_json::to_value` of the same view.
//! * Reading: lenient `Deserialize` visitors (SPEC §F): a wrongly-typed value reads as the
//!   type's empty value, non-object elements of an object array are skipped, unknown keys are
//!   ignored, and a repeated key counts once with its last value (as in a `serde_json::Map`).
//!   They read from text or from a `&Map` alike. Only the messages are read straight into
//!   structs; every other field (small) is collected into a `Map` and read by its type's
//!   `from_json`.

use crate::message::{Image, Message, Role};
use crate::text::Text;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

// ---- writing ------------------------------------------------------------------------------

/// A message as `Message::to_json` writes it.
pub(crate) struct MessageOut<'a>(pub &'a Message);

impl Serialize for MessageOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("role", m.role.as_str())?;
        map.serialize_entry("content", &m.content)?;
        for (key, value) in [
            ("name", &m.name),
            ("toolCallId", &m.tool_call_id),
            ("toolCalls", &m.tool_calls),
            ("reasoning", &m.reasoning),
            ("thinkingBlocks", &m.thinking_blocks),
        ] {
            if !value.is_empty() {
                map.serialize_entry(key, value)?;
            }
        }
        if !m.images.is_empty() {
            map.serialize_entry("images", &ImagesOut(&m.images))?;
        }
        map.end()
    }
}

struct ImagesOut<'a>(&'a [Image]);

impl Serialize for ImagesOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for image in self.0 {
            seq.serialize_element(&ImageOut(image))?;
        }
        seq.end()
    }
}

struct ImageOut<'a>(&'a Image);

impl Serialize for ImageOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("url", &self.0.url)?;
        map.serialize_entry("detail", &self.0.detail)?;
        map.end()
    }
}

/// A sequence serialised element by element from an iterator of serialisable items.
pub(crate) struct SeqOut<I>(pub std::cell::Cell<Option<I>>);

impl<I> SeqOut<I> {
    pub fn new(items: I) -> Self {
        SeqOut(std::cell::Cell::new(Some(items)))
    }
}

impl<I, T> Serialize for SeqOut<I>
where
    I: Iterator<Item = T>,
    T: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        if let Some(items) = self.0.take() {
            for item in items {
                seq.serialize_element(&item)?;
            }
        }
        seq.end()
    }
}

// ---- reading: lenient pieces ---------------------------------------------------------------------

/// Consumes whatever value comes and reads it as a string: "" unless it is one.
pub(crate) struct LenientString(pub String);

impl<'de> Deserialize<'de> for LenientString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Lenient(str::to_owned)).map(LenientString)
    }
}

/// Consumes whatever value comes: a string is handed to the function (borrowed from the input
/// when it has no escapes, so a role name costs no allocation), anything else reads as
/// `T::default()`.
struct Lenient<F>(F);

impl<'de, T: Default, F: FnOnce(&str) -> T> DeserializeSeed<'de> for Lenient<F> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T: Default, F: FnOnce(&str) -> T> Visitor<'de> for Lenient<F> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok((self.0)(v))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_none<E: de::Error>(self) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<T, A::Error> {
        while a.next_element::<Checked>()?.is_some() {}
        Ok(T::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<T, A::Error> {
        while a.next_entry::<Checked, Checked>()?.is_some() {}
        Ok(T::default())
    }
}

/// A value the reader skips, checked as serde_json checks a value it keeps: `IgnoredAny`
/// skips without checking, so it let through what `serde_json::Value` rejects (a lone
/// surrogate escape, `1e400`, nesting beyond 128) and one document got two verdicts.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_none<E: de::Error>(self) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Checked, A::Error> {
        while a.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Checked, A::Error> {
        while a.next_entry::<Checked, Checked>()?.is_some() {}
        Ok(Checked)
    }
}

/// Something read from a JSON object's entries.
pub(crate) trait FromEntries: Default {
    /// Reads the entries into `self` (a default value) in place: a Center document holds tens
    /// of thousands of messages, and moving each one through serde's nested `Result`s and the
    /// growing `Vec` cost a fifth of reading it.
    fn read_entries<'de, A: MapAccess<'de>>(&mut self, a: A) -> Result<(), A::Error>;
}

/// The objects of an array, read as T; non-object elements are skipped, a non-array reads as
/// no element.
pub(crate) struct ObjectsOf<T>(pub Vec<T>);

impl<'de, T: FromEntries> Deserialize<'de> for ObjectsOf<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Seq<T>(std::marker::PhantomData<T>);
        impl<'de, T: FromEntries> Visitor<'de> for Seq<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Vec<T>, A::Error> {
                let mut out = Vec::with_capacity(a.size_hint().unwrap_or(0).min(4096));
                while a.next_element_seed(ObjectOrSkip(&mut out))?.is_some() {}
                Ok(out)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Vec<T>, A::Error> {
                while a.next_entry::<Checked, Checked>()?.is_some() {}
                Ok(Vec::new())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Vec<T>, E> {
                Ok(Vec::new())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Vec<T>, E> {
                Ok(Vec::new())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Vec<T>, E> {
                Ok(Vec::new())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Vec<T>, E> {
                Ok(Vec::new())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Vec<T>, E> {
                Ok(Vec::new())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Vec<T>, E> {
                Ok(Vec::new())
            }
        }
        d.deserialize_any(Seq::<T>(std::marker::PhantomData)).map(ObjectsOf)
    }
}

/// One array element: an object is read into a new last element of the vector, anything else
/// is consumed and left out.
struct ObjectOrSkip<'v, T>(&'v mut Vec<T>);

impl<'de, T: FromEntries> DeserializeSeed<'de> for ObjectOrSkip<'_, T> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T: FromEntries> Visitor<'de> for ObjectOrSkip<'_, T> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<(), A::Error> {
        self.0.push(T::default());
        match self.0.last_mut() {
            Some(item) => item.read_entries(a),
            None => Ok(()), // just pushed: not reached
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        while a.next_element::<Checked>()?.is_some() {}
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// An object key looked up in a fixed list: its index, or None for any other key.
struct KeyIn(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeyIn {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIn {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|k| *k == v))
    }
}

// ---- reading: the documents -----------------------------------------------------------------

impl FromEntries for Image {
    fn read_entries<'de, A: MapAccess<'de>>(&mut self, mut a: A) -> Result<(), A::Error> {
        while let Some(key) = a.next_key_seed(KeyIn(&["url", "detail"]))? {
            match key {
                Some(0) => self.url = a.next_value::<LenientString>()?.0,
                Some(1) => self.detail = a.next_value::<LenientString>()?.0,
                _ => {
                    a.next_value::<Checked>()?;
                }
            }
        }
        Ok(())
    }
}

impl FromEntries for Message {
    /// As `Message::from_json`.
    fn read_entries<'de, A: MapAccess<'de>>(&mut self, mut a: A) -> Result<(), A::Error> {
        const KEYS: &[&str] = &["role", "content", "name", "toolCallId", "toolCalls", "reasoning", "images", "thinkingBlocks"];
        let m = self;
        let mut role = None;
        while let Some(key) = a.next_key_seed(KeyIn(KEYS))? {
            match key {
                Some(0) => role = a.next_value_seed(Lenient(Role::from_name))?,
                Some(1) => m.content = a.next_value_seed(Lenient(|s: &str| Text::from(s)))?,
                Some(2) => m.name = a.next_value::<LenientString>()?.0,
                Some(3) => m.tool_call_id = a.next_value::<LenientString>()?.0,
                Some(4) => m.tool_calls = a.next_value::<LenientString>()?.0,
                Some(5) => m.reasoning = a.next_value::<LenientString>()?.0,
                Some(6) => m.images = a.next_value::<ObjectsOf<Image>>()?.0,
                Some(7) => m.thinking_blocks = a.next_value::<LenientString>()?.0,
                _ => {
                    a.next_value::<Checked>()?;
                }
            }
        }
        m.role = role.unwrap_or(Role::User);
        Ok(())
    }
}

/// A saved dialog: its messages read into structs, every other entry kept as JSON for
/// `Dialog::apply_json`.
#[derive(Default)]
pub(crate) struct DialogDoc {
    pub messages: Vec<Message>,
    pub rest: Map<String, Value>,
}

impl FromEntries for DialogDoc {
    fn read_entries<'de, A: MapAccess<'de>>(&mut self, mut a: A) -> Result<(), A::Error> {
        while let Some(key) = a.next_key::<String>()? {
            if key == "messages" {
                self.messages = a.next_value::<ObjectsOf<Message>>()?.0;
            } else {
                let value = a.next_value::<Value>()?;
                self.rest.insert(key, value);
            }
        }
        Ok(())
    }
}

/// The Center document: its dialogs read as `DialogDoc`s, every other entry kept as JSON.
pub(crate) struct CenterDoc {
    /// Whether the object had any entry (an empty object changes nothing).
    pub any: bool,
    pub dialogs: Vec<DialogDoc>,
    pub rest: Map<String, Value>,
}

impl<'de> Deserialize<'de> for CenterDoc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CenterDoc;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<CenterDoc, A::Error> {
                let mut doc = CenterDoc { any: false, dialogs: Vec::new(), rest: Map::new() };
                while let Some(key) = a.next_key::<String>()? {
                    doc.any = true;
                    if key == "dialogs" {
                        doc.dialogs = a.next_value::<ObjectsOf<DialogDoc>>()?.0;
                    } else {
                        let value = a.next_value::<Value>()?;
                        doc.rest.insert(key, value);
                    }
                }
                Ok(doc)
            }
        }
        d.deserialize_map(V)
    }
}

/// Reads `T` from an object already parsed (the `from_json(&Map)` path).
pub(crate) fn read_map<T: FromEntries>(o: &Map<String, Value>) -> T {
    struct Entries<'t, T>(&'t mut T);
    impl<'de, T: FromEntries> Visitor<'de> for Entries<'_, T> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<(), A::Error> {
            self.0.read_entries(a)
        }
    }
    let mut item = T::default();
    // The readers accept any value, so reading from a `Value` cannot fail.
    de::Deserializer::deserialize_map(o, Entries(&mut item)).expect("the lenient readers accept every JSON value");
    item
}

impl CenterDoc {
    /// Reads the Center document from an object already parsed.
    pub(crate) fn from_map(o: &Map<String, Value>) -> CenterDoc {
        CenterDoc::deserialize(o).expect("the lenient readers accept every JSON value")
    }
}

/// Parses the Center document; the error names what was wrong (as `json::parse_object`).
pub(crate) fn parse_center(text: &str) -> Result<CenterDoc, crate::Error> {
    serde_json::from_str::<CenterDoc>(text).map_err(|e| {
        // Keep parse_object's message for a well-formed non-object.
        match crate::json::parse_object(text) {
            Err(err) => err,
            Ok(_) => crate::Error::Json(e.to_string()),
        }
    })
}
