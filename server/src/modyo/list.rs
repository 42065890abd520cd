//! List bodies: `{"<plural>": [...], "meta": {total_entries, per_page, current_page,
//! total_pages}}`, and walking every page when a lookup needs the whole collection.
//!
//! Root-key drift rule (`server/CONTRACT.md`, "HTTP conventions"): when the expected key is missing and exactly one array
//! sits in the body, that array is read and the drift is logged; anything else is an
//! `invalid_upstream_response`. `meta` is parsed leniently and is never evidence unless its
//! `total_entries` is a non-negative integer (C6).
//!
//! A walk reads pages until the API has no more; some Modyo lists carry no `meta` at all, and
//! an upstream may cap `per_page` or ignore `page`, so when to stop and what the pages prove
//! is [`Walk`]'s rule in `contract/state.rs`, not a guess here.

use std::collections::HashSet;
use std::fmt;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::client::{ModyoClient, Query};
use super::error::CmsError;
use crate::contract::{Evidence, Meta, Walk};

/// One page of a list endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPage {
    /// The items under the root key.
    pub items: Vec<Value>,
    /// `meta`, parsed (absent when missing or not an object).
    pub meta: Option<Meta>,
    /// `meta` exactly as sent, for the legacy rendering (C21) only.
    pub raw_meta: Option<Value>,
    /// The page the request asked for (its `page` parameter; 1 when it sent none).
    pub asked_page: u64,
    /// The size of the body it was read from (0 when not known).
    pub body_bytes: usize,
}

/// Reads the `root` array of a list body.
pub(crate) fn parse_list(body: Value, root: &str) -> Result<ListPage, String> {
    let Value::Object(mut map) = body else {
        return Err(format!(
            "expected an object with '{root}', got {}",
            kind(&body)
        ));
    };
    let raw_meta = map.remove("meta");
    let meta = Meta::parse(raw_meta.as_ref());
    let items = match map.remove(root) {
        Some(Value::Array(items)) => items,
        Some(other) => return Err(format!("'{root}' is {}, not an array", kind(&other))),
        None => {
            let arrays: Vec<String> = map
                .iter()
                .filter(|(_, v)| v.is_array())
                .map(|(k, _)| k.clone())
                .collect();
            match arrays.as_slice() {
                [only] => {
                    tracing::warn!(expected = root, found = %only, "list root key drifted; reading the only array");
                    match map.remove(only) {
                        Some(Value::Array(items)) => items,
                        _ => Vec::new(),
                    }
                }
                _ => {
                    let keys: Vec<&String> = map.keys().collect();
                    return Err(format!("the body has no '{root}' array (keys: {keys:?})"));
                }
            }
        }
    };
    Ok(ListPage {
        items,
        meta,
        raw_meta,
        asked_page: 1,
        body_bytes: 0,
    })
}

/// Reads a list body keeping, of each row under `root`, only the keys in `keep` (every other
/// key is skipped, never built): a caller that shows a few keys of each row does not pay for
/// a tree of the whole page. Rows that are not objects, and every other member (`meta`, or an
/// array the root key drifted to), are read whole, so [`parse_list`] applies to the result
/// as to a whole body. Fails on a body that is not a JSON object.
pub(crate) fn read_keeping(bytes: &[u8], root: &str, keep: &[&str]) -> serde_json::Result<Value> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let body = deserializer.deserialize_map(Body { root, keep })?;
    deserializer.end()?;
    Ok(body)
}

/// A list body (an object) whose `root` rows keep `keep`.
struct Body<'k> {
    root: &'k str,
    keep: &'k [&'k str],
}

/// The value under the root key (`at_root`: an array whose objects keep `keep`), or one of its
/// rows (an object keeping `keep`); any other shape is read whole.
struct Cut<'k> {
    keep: &'k [&'k str],
    at_root: bool,
}

impl<'de> Visitor<'de> for Body<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list body (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut body = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = if key == self.root {
                map.next_value_seed(Cut {
                    keep: self.keep,
                    at_root: true,
                })?
            } else {
                map.next_value()?
            };
            body.insert(key, value);
        }
        Ok(Value::Object(body))
    }
}

impl<'de> DeserializeSeed<'de> for Cut<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Cut<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if !self.at_root {
            return Value::deserialize(SeqAccessDeserializer::new(seq));
        }
        let row = || Cut {
            keep: self.keep,
            at_root: false,
        };
        let mut rows = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(one) = seq.next_element_seed(row())? {
            rows.push(one);
        }
        Ok(Value::Array(rows))
    }

    /// A row builds only its kept keys; a repeated key keeps its first place and its last
    /// value, as in a parsed object.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        if self.at_root {
            return Value::deserialize(MapAccessDeserializer::new(map));
        }
        let mut row = Map::new();
        while let Some(kept) = map.next_key_seed(Kept(self.keep))? {
            match kept {
                Some(key) => {
                    row.insert(key.to_owned(), map.next_value()?);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(row))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

/// A row's key: which of the kept keys it is, if any (read without being copied).
struct Kept<'k>(&'k [&'k str]);

impl<'de, 'k> DeserializeSeed<'de> for Kept<'k> {
    type Value = Option<&'k str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, 'k> Visitor<'de> for Kept<'k> {
    type Value = Option<&'k str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().find(|k| **k == key).copied())
    }
}

/// What kind of JSON value `value` is, for a message ("an array").
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The most pages a whole-collection walk reads before it stops and says so (`Capped`).
pub const MAX_WALK_PAGES: u32 = 50;
/// The page size of a whole-collection walk (the API's cap).
pub const WALK_PER_PAGE: u32 = 100;

/// Reads every page of a list (per_page 100), each row once, until the API has no more, a
/// page only repeats rows already read (an upstream that ignores `page`), [`MAX_WALK_PAGES`],
/// or the pages read hold more than `MODYO_MAX_BODY_BYTES` together (the most one answer may
/// hold; a walk of 50 pages of 16 MiB once peaked at 1.8 GB): the page that crosses it is
/// kept and the walk stops there, `Capped`.
/// When to read on and what the pages prove is [`Walk`]'s rule (C6, `contract/state.rs`):
/// `Exhausted` only when every piece of evidence agrees every row was read, `Capped` when
/// some surely were not, `None` when the API contradicts itself or a short page without
/// `meta` may be a silent cap.
pub async fn walk(
    client: &ModyoClient,
    path: &str,
    root: &str,
    filters: &Query,
) -> Result<(Vec<Value>, Evidence), CmsError> {
    let mut walk = Walk::new(WALK_PER_PAGE);
    let mut read = HashSet::new();
    let mut all = Vec::new();
    let budget = client.max_body();
    let mut held: u64 = 0;
    for page in 1..=MAX_WALK_PAGES {
        let query = filters.clone().page(page, WALK_PER_PAGE);
        let list = client.list(path, root, &query).await?;
        let rows = list.items.len();
        let before = all.len();
        held = held.saturating_add(list.body_bytes as u64);
        all.extend(
            list.items
                .into_iter()
                .filter(|row| read.insert(row_identity(row))),
        );
        if !walk.page(rows, all.len() - before, list.meta.as_ref()) {
            if walk.evidence() != Evidence::Exhausted {
                tracing::debug!(path, page, seen = walk.seen(), evidence = ?walk.evidence(), "walk ended without proof of the whole list");
            }
            return Ok((all, walk.evidence()));
        }
        if held > budget {
            tracing::warn!(
                path,
                page,
                held,
                "a walk stopped at MODYO_MAX_BODY_BYTES of pages held; the answer says complete: false"
            );
            break;
        }
    }
    walk.capped();
    Ok((all, walk.evidence()))
}

/// `GET` a list that answers a bare JSON array (no root key, so no `meta`, and no page to
/// ask for: the specification declares no pagination for such lists, e.g. a site's templates
/// of one type); anything but an array is a shape error.
pub async fn read_array(
    client: &ModyoClient,
    path: &str,
    query: &Query,
) -> Result<Vec<Value>, CmsError> {
    match client.send(reqwest::Method::GET, path, query, None).await? {
        Value::Array(items) => Ok(items),
        other => Err(CmsError::InvalidShape {
            method: reqwest::Method::GET,
            path: path.to_owned(),
            reason: format!("expected an array, got {}", kind(&other)),
        }),
    }
}

/// What tells one row from another: the whole row (an `id` alone is not enough: a list may
/// hold a user and a group that share one), kept as a 128-bit digest of its JSON rather than
/// the text itself, so a walk does not hold every row twice.
fn row_identity(row: &Value) -> (u64, u64) {
    use std::hash::{Hash, Hasher};
    let text = row.to_string();
    let digest = |seed: u8| {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        seed.hash(&mut hasher);
        text.hash(&mut hasher);
        hasher.finish()
    };
    (digest(1), digest(2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_root_and_meta() {
        let page = parse_list(
            json!({"spaces": [{"id": 1}], "meta": {"total_entries": 1}}),
            "spaces",
        )
        .unwrap();
        assert_eq!(page.items.len(), 1);
        assert_eq!(page.meta.unwrap().total_entries, Some(1));
    }

    #[test]
    fn drifted_root_with_one_array_is_read() {
        let page = parse_list(json!({"items": [1, 2], "meta": {}}), "spaces").unwrap();
        assert_eq!(page.items.len(), 2);
    }

    /// What reading with `keep` gives equals the whole body's page with each root row cut
    /// down to the kept keys: order, repeated keys, rows that are not objects, `meta`, and
    /// a drifted root (read whole) included.
    #[test]
    fn reading_keeping_keys_cuts_only_the_root_rows() {
        let keep = ["id", "name", "nested"];
        let bodies = [
            r#"{"entries": [{"uuid": "u", "id": 1, "name": "a", "x": {"y": [1, 2]}}, {"name": "b", "id": 2}], "meta": {"total_entries": 2, "extra": [1]}}"#,
            r#"{"entries": [{"id": 1, "id": 3, "nested": {"deep": {"id": 9}}, "skip": "s\"q"}, 7, "text", null, [1, {"x": 1}]]}"#,
            r#"{"meta": {"total_entries": 1}, "items": [{"id": 1, "other": true}]}"#,
            r#"{"entries": {"id": 1, "other": 2}}"#,
            r#"{"entries": [], "entries": [{"id": 5, "z": 1.5}]}"#,
        ];
        for body in bodies {
            let whole: Value = serde_json::from_str(body).unwrap();
            let kept = read_keeping(body.as_bytes(), "entries", &keep).unwrap();
            let (whole, kept) = (parse_list(whole, "entries"), parse_list(kept, "entries"));
            let Ok(mut expected) = whole else {
                assert_eq!(kept, whole, "{body}");
                continue;
            };
            if serde_json::from_str::<Value>(body)
                .unwrap()
                .get("entries")
                .is_some()
            {
                for row in &mut expected.items {
                    if let Value::Object(row) = row {
                        row.retain(|k, _| keep.contains(&k.as_str()));
                    }
                }
            }
            assert_eq!(kept.unwrap(), expected, "{body}");
        }
    }

    #[test]
    fn reading_keeping_keys_refuses_what_is_not_a_json_object() {
        for body in [
            "[1]",
            "null",
            "",
            "3",
            "{\"entries\": [}",
            "{} {}",
            "{\"entries\": [1]} x",
        ] {
            assert!(
                read_keeping(body.as_bytes(), "entries", &["id"]).is_err(),
                "{body}"
            );
        }
    }

    #[test]
    fn no_root_and_no_single_array_is_an_error() {
        assert!(parse_list(json!({"a": [], "b": []}), "spaces").is_err());
        assert!(parse_list(json!({"meta": {}}), "spaces").is_err());
        assert!(parse_list(json!([1]), "spaces").is_err());
        assert!(parse_list(json!({"spaces": {"id": 1}}), "spaces").is_err());
    }
}
