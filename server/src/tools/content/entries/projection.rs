//! The `fields` projection of `content-entries-list` and `-get` (C14): each entry's field
//! values mapped to names through its content type, only the requested ones kept, assets
//! reduced to `{name, url}`; a name no type on the page has is `unknown_fields`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use futures::{StreamExt, TryStreamExt, stream};
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio_util::task::AbortOnDropHandle;

use super::minimal;
use super::parts::{self, EntryParts};
use crate::contract::{ErrorCode, ToolError};
use crate::modyo::resolve::echoed_names;
use crate::modyo::{ModyoClient, Query};
use crate::tools::content::types::{FieldKeys, TypeView, fetch_type};
use crate::tools::content::{Space, id_key};
use crate::tools::engine::{lenient, view};

/// A content type's fields by id: name and kind.
#[derive(Clone)]
pub(super) struct FieldMap {
    by_id: BTreeMap<String, (String, String)>,
    /// The same fields under the ids that are unsigned integers written plainly ("70001"):
    /// a numeric `field_id` (every entry's case) is found without writing it as text.
    by_number: BTreeMap<u64, (String, String)>,
    pub(super) names: BTreeSet<String>,
}

impl FieldMap {
    pub(super) fn of(content_type: &Value) -> FieldMap {
        let mut by_id = BTreeMap::new();
        let mut names = BTreeSet::new();
        for field in view::<TypeView>(content_type)
            .fields()
            .iter()
            .map(view::<FieldKeys>)
        {
            let Some(name) = field.name else {
                continue;
            };
            let kind = field.kind.unwrap_or_default();
            if let Some(id) = field.id.filter(|v| !v.is_null()) {
                by_id.insert(id_key(&id), (name.clone(), kind));
            }
            names.insert(name);
        }
        let by_number = by_id
            .iter()
            .filter_map(|(id, field)| {
                let number = id.parse::<u64>().ok()?;
                (number.to_string() == *id).then(|| (number, field.clone()))
            })
            .collect();
        FieldMap {
            by_id,
            by_number,
            names,
        }
    }

    /// The name and kind of the field with this id (matched as [`id_key`] writes it).
    fn field(&self, id: &Value) -> Option<&(String, String)> {
        match id {
            // A number's text is its integer's (serde_json writes both the same way).
            Value::Number(n) if n.is_u64() => n.as_u64().and_then(|n| self.by_number.get(&n)),
            Value::String(s) => self.by_id.get(s),
            other => self.by_id.get(&id_key(other)),
        }
    }
}

/// The keys projection reads of a list row.
#[derive(Default, Deserialize)]
#[serde(default)]
struct RowKeys {
    #[serde(deserialize_with = "lenient")]
    id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    content_type_id: Option<Value>,
}

pub(super) async fn project(
    client: &ModyoClient,
    space: &Space,
    rows: &[Value],
    wanted: &[String],
    concurrency: usize,
) -> Result<Vec<Value>, ToolError> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    // Types first (once each): an unknown field name fails before any entry is read.
    let keys: Vec<RowKeys> = rows.iter().map(view).collect();
    let type_ids: BTreeSet<String> = keys
        .iter()
        .filter_map(|r| {
            r.content_type_id
                .as_ref()
                .filter(|v| !v.is_null())
                .map(id_key)
        })
        .collect();
    let mut types: BTreeMap<String, FieldMap> = BTreeMap::new();
    for id in &type_ids {
        types.insert(
            id.clone(),
            FieldMap::of(&fetch_type(client, space, id).await?),
        );
    }
    check_names(&types, wanted)?;
    // Each entry is read and picked in a task of its own, as soon as its body arrives, from
    // the body's own bytes (the values it does not want are never built): the picking of
    // several entries runs on every worker thread, not in this one task. Only an entry whose
    // type is not read yet (drift: the list row did not name it) keeps its body until its
    // type is. The tasks are aborted if this call is dropped (a cancelled call).
    let known = Arc::new(types);
    let wanted_all: Arc<[String]> = wanted.into();
    let shared = Arc::new(client.clone());
    let reads: Vec<_> = keys
        .iter()
        .map(|row| {
            let id = row.id.as_ref().map(id_key).unwrap_or_default();
            let path = format!("{}/entries/{id}", space.path());
            let row_type = row.content_type_id.clone();
            let (client, known, wanted) = (shared.clone(), known.clone(), wanted_all.clone());
            let read = async move {
                client
                    .get_sparse(&path, &Query::new(), |bytes| {
                        let detail = EntryParts::read(bytes)?;
                        Ok(match unread_type(&detail, &known) {
                            Some(type_id) => Picked::Later {
                                type_id,
                                body: bytes.to_vec(),
                            },
                            None => Picked::Now(pick_fields(
                                &detail,
                                type_of(&detail, row_type.as_ref(), &known),
                                &wanted,
                            )),
                        })
                    })
                    .await
                    .map_err(|e| {
                        ToolError::from(e).context(format!("reading entry {id} for fields"))
                    })
            };
            async move { joined(AbortOnDropHandle::new(tokio::spawn(read)).await) }
        })
        .collect();
    let picked: Vec<Picked> = stream::iter(reads)
        .buffered(concurrency.max(1))
        .try_collect()
        .await?;
    let mut types = Arc::unwrap_or_clone(known);
    // Entries whose list row had no type id: read their types now (drift), still once each.
    for entry in &picked {
        if let Picked::Later { type_id, .. } = entry
            && !types.contains_key(type_id)
        {
            types.insert(
                type_id.clone(),
                FieldMap::of(&fetch_type(client, space, type_id).await?),
            );
        }
    }
    if type_ids.is_empty() {
        check_names(&types, wanted)?;
    }
    Ok(rows
        .iter()
        .zip(keys)
        .zip(picked)
        .map(|((row, keys), entry)| {
            let fields = match entry {
                Picked::Now(fields) => fields,
                Picked::Later { body, .. } => {
                    let detail = EntryParts::read(&body).unwrap_or_default();
                    let row_type = keys.content_type_id.as_ref();
                    pick_fields(&detail, type_of(&detail, row_type, &types), wanted)
                }
            };
            let mut out = minimal(row);
            out["fields"] = Value::Object(fields);
            out
        })
        .collect())
}

/// What an entry's task gave: a panic goes on unwinding here, as it would have in this
/// task; a task cancelled under us (the runtime shutting down) is an upstream failure.
fn joined(
    task: Result<Result<Picked, ToolError>, tokio::task::JoinError>,
) -> Result<Picked, ToolError> {
    match task {
        Ok(picked) => picked,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => Err(ToolError::new(
            ErrorCode::UpstreamUnavailable,
            "reading the entries for fields was cancelled (the server is shutting down)",
        )),
    }
}

/// The requested fields of one entry, or its body while its type is not read yet.
enum Picked {
    Now(Map<String, Value>),
    Later { type_id: String, body: Vec<u8> },
}

/// The type id an entry names that is not among the types read (drift).
fn unread_type(detail: &EntryParts<'_>, types: &BTreeMap<String, FieldMap>) -> Option<String> {
    let id = detail
        .content_type_id
        .as_ref()
        .filter(|v| !v.is_null())
        .map(id_key)?;
    (!types.contains_key(&id)).then_some(id)
}

/// The fields of an entry's type: the type the entry names, else its list row's (`row_type`).
fn type_of<'t>(
    detail: &EntryParts<'_>,
    row_type: Option<&Value>,
    types: &'t BTreeMap<String, FieldMap>,
) -> Option<&'t FieldMap> {
    let type_id = detail.content_type_id.as_ref().or(row_type).map(id_key)?;
    types.get(&type_id)
}

fn check_names(types: &BTreeMap<String, FieldMap>, wanted: &[String]) -> Result<(), ToolError> {
    let available: BTreeSet<&String> = types.values().flat_map(|t| t.names.iter()).collect();
    let unknown: Vec<&String> = wanted.iter().filter(|w| !available.contains(w)).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    // The names given are shortened (they are the caller's, of any number); the ones the
    // types define are the answer to the mistake and stay whole.
    let unknown_text = echoed_names(&unknown);
    let available_text = available
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    Err(ToolError::new(
        ErrorCode::UnknownFields,
        format!(
            "unknown field name(s): {unknown_text}. Fields of the content type(s) on this page: {available_text}"
        ),
    ))
}

/// The requested fields of one entry, by name, in the requested order.
/// Values are parsed only for wanted names; `json.fields` only when a name is not among the
/// entry's field values. Of two field values of one name the last counts; a name asked twice
/// is read from `json.fields` the second time.
pub(super) fn pick_fields(
    detail: &EntryParts<'_>,
    fields: Option<&FieldMap>,
    wanted: &[String],
) -> Map<String, Value> {
    let mut found: Vec<Option<(&parts::FieldRef<'_>, &str)>> = vec![None; wanted.len()];
    if let Some(fields) = fields {
        for fv in &detail.field_values {
            let Some((name, kind)) = fv.field_id.as_ref().and_then(|id| fields.field(id)) else {
                continue;
            };
            if let Some(slot) = wanted.iter().position(|w| w == name) {
                found[slot] = Some((fv, kind.as_str()));
            }
        }
    }
    let mut by_json = None;
    let mut out = Map::new();
    for (name, found) in wanted.iter().zip(found) {
        let value = match found {
            Some((fv, kind)) => Some(reduced(fv, kind)),
            None => by_json
                .get_or_insert_with(|| detail.json_fields())
                .as_mut()
                .and_then(|j| j.remove(name))
                .map(|v| reduce_assets(v, "")),
        };
        if let Some(value) = value {
            out.insert(name.clone(), value);
        }
    }
    out
}

/// [`pick_fields`] of an entry already parsed (`content-entries-get`, one entry): a value
/// that is not an object has no fields.
pub(super) fn pick_fields_of(
    entry: &Value,
    fields: Option<&FieldMap>,
    wanted: &[String],
) -> Map<String, Value> {
    let body = entry.to_string();
    let detail = EntryParts::read(body.as_bytes()).unwrap_or_default();
    pick_fields(&detail, fields, wanted)
}

/// The field kinds whose values are asset references.
const ASSET_KINDS: [&str; 5] = ["asset", "file", "image", "asset_list", "media"];

/// Whether a field kind holds asset references.
pub(super) fn is_asset_kind(kind: &str) -> bool {
    ASSET_KINDS.contains(&kind)
}

/// A field value with its assets reduced ([`reduce_assets`]). A value of an asset kind is
/// read sparsely from its raw text: of an asset object (about 1 KB: author, sizes, dates)
/// only the keys of `{name, url}` are built, not the whole object.
fn reduced(field: &parts::FieldRef<'_>, kind: &str) -> Value {
    match field.value {
        Some(raw) if is_asset_kind(kind) => asset_of_raw(raw),
        _ => reduce_assets(field.parsed(), kind),
    }
}

/// [`reduce_assets`] of an asset kind's value, read from its raw text: objects become
/// `{name, url}` reading only those keys, arrays are reduced element by element, anything
/// else is parsed as it is.
fn asset_of_raw(raw: &RawValue) -> Value {
    let text = raw.get().trim_start();
    let read = match text.as_bytes().first() {
        Some(b'{') => serde_json::from_str::<AssetRef>(text).map(AssetRef::reduced),
        Some(b'[') => serde_json::from_str::<Vec<&RawValue>>(text)
            .map(|items| Value::Array(items.into_iter().map(asset_of_raw).collect())),
        _ => serde_json::from_str(text),
    };
    read.unwrap_or(Value::Null)
}

/// The keys of an asset object that `{name, url}` is made of; the last of a repeated key
/// counts, as in a parsed object.
#[derive(Default)]
struct AssetRef {
    /// `name`, `title`, `data_file_name`, `file_name`: the name is the first of them that is
    /// a string.
    names: [Option<Value>; 4],
    url: Option<Value>,
}

impl AssetRef {
    fn reduced(self) -> Value {
        let [name, title, data_file_name, file_name] = self.names;
        let name = [name, title, data_file_name, file_name]
            .into_iter()
            .flatten()
            .find(Value::is_string)
            .unwrap_or(Value::Null);
        json!({"name": name, "url": self.url.unwrap_or(Value::Null)})
    }
}

impl<'de> Deserialize<'de> for AssetRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<AssetRef, D::Error> {
        deserializer.deserialize_map(AssetVisitor)
    }
}

struct AssetVisitor;

impl<'de> Visitor<'de> for AssetVisitor {
    type Value = AssetRef;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an asset object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AssetRef, A::Error> {
        let mut asset = AssetRef::default();
        while let Some(key) = map.next_key::<AssetKey>()? {
            let slot = match key {
                AssetKey::Name => &mut asset.names[0],
                AssetKey::Title => &mut asset.names[1],
                AssetKey::DataFileName => &mut asset.names[2],
                AssetKey::FileName => &mut asset.names[3],
                AssetKey::Url => &mut asset.url,
                AssetKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(asset)
    }
}

/// The keys of an asset object that [`AssetRef`] reads.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum AssetKey {
    Name,
    Title,
    DataFileName,
    FileName,
    Url,
    #[serde(other)]
    Other,
}

/// Assets become `{name, url}`: by field kind, or by shape (an object with a `url` and a file).
fn reduce_assets(value: Value, kind: &str) -> Value {
    let asset_kind = is_asset_kind(kind);
    match value {
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| reduce_assets(v, kind)).collect())
        }
        Value::Object(map) if asset_kind || looks_like_asset(&map) => {
            let name = ["name", "title", "data_file_name", "file_name"]
                .iter()
                .find_map(|k| map.get(*k).filter(|v| v.is_string()).cloned())
                .unwrap_or(Value::Null);
            json!({"name": name, "url": map.get("url").cloned().unwrap_or(Value::Null)})
        }
        other => other,
    }
}

fn looks_like_asset(map: &Map<String, Value>) -> bool {
    map.get("url").is_some_and(Value::is_string)
        && ["data_file_name", "file_name", "content_type"]
            .iter()
            .any(|k| map.contains_key(*k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assets_reduce_to_name_and_url() {
        let asset = json!({"uuid": "a", "name": "front.jpg", "url": "https://cdn/x.jpg", "content_type": "image/jpeg", "author": {}});
        assert_eq!(
            reduce_assets(asset.clone(), ""),
            json!({"name": "front.jpg", "url": "https://cdn/x.jpg"})
        );
        assert_eq!(
            reduce_assets(json!([asset]), "asset_list"),
            json!([{"name": "front.jpg", "url": "https://cdn/x.jpg"}])
        );
        assert_eq!(reduce_assets(json!({"lat": 1}), ""), json!({"lat": 1}));
    }

    /// The sparse read of an asset kind's raw value gives what parsing it whole and reducing
    /// it gives, for every shape: objects with and without each key, repeated keys, names
    /// that are not strings, nested arrays, scalars and null.
    #[test]
    fn assets_read_from_raw_text_reduce_as_parsed_ones_do() {
        let cases = [
            r#"{"uuid": "a", "name": "front.jpg", "url": "https://cdn/x.jpg", "author": {"name": "x"}}"#,
            r#"{"title": "T", "data_file_name": "d.png", "url": "u"}"#,
            r#"{"name": 7, "title": null, "file_name": "f.pdf", "url": 3}"#,
            r#"{"name": "first", "name": "second", "url": "u1", "url": "u2"}"#,
            r#"{"name": {"nested": "object"}, "data_file_name": ["x"]}"#,
            r#"{"url": "only"}"#,
            r#"{}"#,
            r#"[{"name": "a", "url": "u"}, [{"title": "b"}, 1], "s", null, {"url": null}]"#,
            r#"[]"#,
            r#""just text""#,
            r#"12.5"#,
            r#"true"#,
            r#"null"#,
            r#" {"name": "spaced", "url": "u"}"#,
            r#"{"name": "esc\"aped \u00e9", "url": "https://x/\u00e9"}"#,
        ];
        for case in cases {
            let raw: Box<RawValue> = serde_json::from_str(case).unwrap();
            let parsed: Value = serde_json::from_str(case).unwrap();
            for kind in ASSET_KINDS {
                assert_eq!(
                    asset_of_raw(&raw),
                    reduce_assets(parsed.clone(), kind),
                    "{case} as {kind}"
                );
            }
        }
    }

    #[test]
    fn fields_are_mapped_by_type_in_requested_order() {
        let t = FieldMap::of(
            &json!({"fields": [{"id": 1, "name": "title", "type": "text"}, {"id": 2, "name": "photo", "type": "asset"}]}),
        );
        let detail = json!({"field_values": [
            {"field_id": 2, "type": "asset", "value": {"name": "p.png", "url": "u"}},
            {"field_id": 1, "type": "text", "value": "Hello"}
        ]});
        let picked = pick_fields_of(&detail, Some(&t), &["photo".into(), "title".into()]);
        assert_eq!(
            Value::Object(picked).to_string(),
            r#"{"photo":{"name":"p.png","url":"u"},"title":"Hello"}"#
        );
    }

    #[test]
    fn unknown_names_list_the_available_ones() {
        let mut types = BTreeMap::new();
        types.insert(
            "1".to_owned(),
            FieldMap::of(&json!({"fields": [{"id": 1, "name": "title"}]})),
        );
        let err = check_names(&types, &["title".into(), "titel".into()]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::UnknownFields);
        assert_eq!(
            err.message(),
            "unknown field name(s): titel. Fields of the content type(s) on this page: title"
        );
        assert_eq!(
            err.to_value().as_object().unwrap().len(),
            2,
            "code and message"
        );
    }

    #[test]
    fn a_flood_of_unknown_names_is_echoed_shortened() {
        // Before, 400,000 names given were all repeated (an 8.2 MB answer).
        let mut types = BTreeMap::new();
        types.insert(
            "1".to_owned(),
            FieldMap::of(&json!({"fields": [{"id": 1, "name": "title"}]})),
        );
        let wanted: Vec<String> = (0..400_000).map(|i| format!("f{i}")).collect();
        let err = check_names(&types, &wanted).unwrap_err();
        let value = err.to_value();
        assert!(
            value.to_string().len() < 4_000,
            "{} bytes",
            value.to_string().len()
        );
        assert!(
            err.message().contains("and 399980 more"),
            "{}",
            err.message()
        );
    }
}
