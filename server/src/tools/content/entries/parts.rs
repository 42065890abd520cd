//! The parts of an entry that the `fields` projection reads, parsed straight from the body.
//!
//! An entry detail is ~11 KB of JSON (admin metadata, the author, 31 `field_values` and the
//! `json` rendition of the same fields); the projection needs the type id and a few values.
//! Parsing every entry of a page into a `serde_json::Value` (and dropping it) was most of the
//! server's work in `content-entries-list` with `fields` (`reports/performance.md`). Here the
//! body is scanned once: keys other than `content_type_id`, `field_values` and `json` are
//! skipped without being built, and each field value stays raw text, borrowed from the body
//! (no copy, no allocation), until its name is wanted. The `json` rendition (about half the
//! body) is skipped too: it is read again from the body only when a wanted name is not among
//! the field values.
//!
//! Reading is as lenient as reading a `Value` was: a `field_values` that is not an array, an
//! element that is not an object or has no `field_id`, is no field value; duplicate keys keep
//! the last one, as a parsed object does.

use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// What the projection reads of one entry, borrowed from its body.
#[derive(Debug, Default)]
pub(super) struct EntryParts<'a> {
    /// `content_type_id` when the key is present (`Some(Value::Null)` for a null).
    pub(super) content_type_id: Option<Value>,
    /// The `field_values` elements that are objects.
    pub(super) field_values: Vec<FieldRef<'a>>,
    /// The whole body: its `json` rendition is read from it only for a name `field_values`
    /// lacks ([`EntryParts::json_fields`]).
    body: &'a [u8],
}

/// One element of `field_values`.
#[derive(Debug, Default)]
pub(super) struct FieldRef<'a> {
    /// `field_id` when the key is present (`Some(Value::Null)` for a null).
    pub(super) field_id: Option<Value>,
    /// `value`, unparsed (absent and `null` alike are `None`).
    pub(super) value: Option<&'a RawValue>,
}

impl FieldRef<'_> {
    /// The value, parsed (`null` when absent).
    pub(super) fn parsed(&self) -> Value {
        self.value
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or(Value::Null)
    }
}

impl<'a> EntryParts<'a> {
    /// Reads an entry body. Fails only when the body is not a JSON object (or not JSON).
    pub(super) fn read(bytes: &'a [u8]) -> serde_json::Result<EntryParts<'a>> {
        // Only an object reads: a visitor of maps would otherwise skip any other value.
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(serde::de::Error::custom("expected a JSON object"));
        }
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        let mut parts = Lenient(Body).deserialize(&mut deserializer)?;
        deserializer.end()?;
        parts.body = bytes;
        Ok(parts)
    }

    /// `json.fields`, parsed, when present and an object.
    pub(super) fn json_fields(&self) -> Option<serde_json::Map<String, Value>> {
        // The body read as it was in `read` (an object), this time keeping only `json`.
        let mut deserializer = serde_json::Deserializer::from_slice(self.body);
        let raw = Lenient(Rendition).deserialize(&mut deserializer).ok()??;
        let json: Value = serde_json::from_str(raw.get()).ok()?;
        match json {
            Value::Object(mut json) => match json.remove("fields") {
                Some(Value::Object(fields)) => Some(fields),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A [`Visitor`] for one JSON shape, run on any value: the shape it expects gives its result,
/// every other shape is skipped and gives the default (as `Value::as_array` or `Value::get`
/// give nothing on another shape).
struct Lenient<V>(V);

/// The entry body, an object (checked before it is read).
struct Body;

/// The entry body again, for its `json` rendition alone.
struct Rendition;

/// `field_values` expected as an array.
struct FieldValues;

/// An element of `field_values` expected as an object.
struct Element;

/// Visits the shape a [`Lenient`] expects.
trait Shape<'de> {
    type Value: Default;
    fn seq<A: SeqAccess<'de>>(&self, seq: A) -> Result<Self::Value, A::Error> {
        drain_seq(seq).map(|()| Self::Value::default())
    }
    fn map<A: MapAccess<'de>>(&self, map: A) -> Result<Self::Value, A::Error> {
        drain_map(map).map(|()| Self::Value::default())
    }
}

impl<'de> Shape<'de> for Body {
    type Value = EntryParts<'de>;
    /// Every key in one pass; a repeated key overwrites (the last one wins, as in a `Value`).
    fn map<A: MapAccess<'de>>(&self, mut map: A) -> Result<EntryParts<'de>, A::Error> {
        let mut parts = EntryParts::default();
        while let Some(key) = map.next_key::<BodyKey>()? {
            match key {
                BodyKey::ContentTypeId => parts.content_type_id = Some(map.next_value()?),
                BodyKey::FieldValues => {
                    parts.field_values = map.next_value_seed(Lenient(FieldValues))?;
                }
                BodyKey::Json | BodyKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(parts)
    }
}

impl<'de> Shape<'de> for Rendition {
    type Value = Option<&'de RawValue>;
    /// `json` as raw text (`None` for a null); a repeated key overwrites, as in [`Body`].
    fn map<A: MapAccess<'de>>(&self, mut map: A) -> Result<Option<&'de RawValue>, A::Error> {
        let mut json = None;
        while let Some(key) = map.next_key::<BodyKey>()? {
            match key {
                BodyKey::Json => json = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(json)
    }
}

impl<'de> Shape<'de> for FieldValues {
    type Value = Vec<FieldRef<'de>>;
    fn seq<A: SeqAccess<'de>>(&self, mut seq: A) -> Result<Vec<FieldRef<'de>>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(element) = seq.next_element_seed(Lenient(Element))? {
            out.extend(element);
        }
        Ok(out)
    }
}

impl<'de> Shape<'de> for Element {
    type Value = Option<FieldRef<'de>>;
    fn map<A: MapAccess<'de>>(&self, mut map: A) -> Result<Option<FieldRef<'de>>, A::Error> {
        let mut field = FieldRef::default();
        while let Some(key) = map.next_key::<ElementKey>()? {
            match key {
                ElementKey::FieldId => field.field_id = Some(map.next_value()?),
                ElementKey::Value => field.value = map.next_value()?,
                ElementKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(field))
    }
}

/// The keys of an entry body that projection reads.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum BodyKey {
    ContentTypeId,
    FieldValues,
    Json,
    #[serde(other)]
    Other,
}

/// The keys of a `field_values` element that projection reads.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum ElementKey {
    FieldId,
    Value,
    #[serde(other)]
    Other,
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

impl<'de, S: Shape<'de>> DeserializeSeed<'de> for Lenient<S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, S: Shape<'de>> Visitor<'de> for Lenient<S> {
    type Value = S::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<S::Value, A::Error> {
        self.0.seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<S::Value, A::Error> {
        self.0.map(map)
    }
    fn visit_bool<E>(self, _: bool) -> Result<S::Value, E> {
        Ok(S::Value::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<S::Value, E> {
        Ok(S::Value::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<S::Value, E> {
        Ok(S::Value::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<S::Value, E> {
        Ok(S::Value::default())
    }
    fn visit_str<E>(self, _: &str) -> Result<S::Value, E> {
        Ok(S::Value::default())
    }
    fn visit_unit<E>(self) -> Result<S::Value, E> {
        Ok(S::Value::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(body: &str) -> EntryParts<'_> {
        EntryParts::read(body.as_bytes()).unwrap()
    }

    #[test]
    fn reads_the_type_the_field_values_and_the_json_rendition() {
        let body = json!({
            "id": 1, "author": {"name": "x"}, "content_type_id": 4021,
            "field_values": [
                {"field_id": 70001, "type": "text", "value": "Providencia"},
                {"field_id": "70002", "value": {"url": "u", "file_name": "f.png"}},
                {"field_id": 70003}
            ],
            "json": {"fields": {"title": "Providencia"}}
        })
        .to_string();
        let parts = read(&body);
        assert_eq!(parts.content_type_id, Some(json!(4021)));
        let ids: Vec<_> = parts
            .field_values
            .iter()
            .map(|f| f.field_id.clone())
            .collect();
        assert_eq!(
            ids,
            [Some(json!(70001)), Some(json!("70002")), Some(json!(70003))]
        );
        assert_eq!(parts.field_values[0].parsed(), json!("Providencia"));
        assert_eq!(
            parts.field_values[1].parsed(),
            json!({"url": "u", "file_name": "f.png"})
        );
        assert_eq!(parts.field_values[2].parsed(), Value::Null);
        assert_eq!(
            parts.json_fields(),
            json!({"title": "Providencia"}).as_object().cloned()
        );
    }

    #[test]
    fn drifted_shapes_read_as_absent_not_as_errors() {
        let body = json!({
            "content_type_id": null,
            "field_values": "not a list",
            "json": ["not", "an", "object"]
        })
        .to_string();
        let parts = read(&body);
        assert_eq!(parts.content_type_id, Some(Value::Null));
        assert!(parts.field_values.is_empty());
        assert_eq!(parts.json_fields(), None);

        let body =
            json!({"field_values": [1, "x", null, [70001, "v"], {"value": 2}, {"field_id": 7}]})
                .to_string();
        let parts = read(&body);
        assert_eq!(parts.content_type_id, None);
        let ids: Vec<_> = parts
            .field_values
            .iter()
            .map(|f| f.field_id.clone())
            .collect();
        assert_eq!(ids, [None, Some(json!(7))]);

        let parts = read("{}");
        assert!(parts.field_values.is_empty() && parts.json_fields().is_none());
    }

    #[test]
    fn duplicate_keys_keep_the_last_as_a_parsed_object_does() {
        let body = br#"{"content_type_id": 1, "field_values": [{"field_id": 5, "value": "a", "value": "b"}], "content_type_id": 2}"#;
        let parts = EntryParts::read(body).unwrap();
        assert_eq!(parts.content_type_id, Some(json!(2)));
        assert_eq!(parts.field_values[0].parsed(), json!("b"));
        let body = br#"{"json": {"fields": {"a": 1}}, "json": {"fields": {"a": 2}}}"#;
        let parts = EntryParts::read(body).unwrap();
        assert_eq!(parts.json_fields(), json!({"a": 2}).as_object().cloned());
        let body = br#"{"json": {"fields": {"a": 1}}, "json": null}"#;
        assert_eq!(EntryParts::read(body).unwrap().json_fields(), None);
    }

    #[test]
    fn only_a_body_that_is_not_an_object_fails() {
        for body in [&b"[1]"[..], b"3", b"null", b"{\"a\":", b"{} x", b"not json"] {
            assert!(
                EntryParts::read(body).is_err(),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
