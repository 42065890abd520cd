//! Entry writes, what [`manage`] (`content-entries-manage`: list, get, create, update, delete,
//! publish, unpublish, archive, clone) and [`upsert`] (`content-entries-upsert`, by slug, type
//! and locale) share: the body of a write, its read-back and its answer.
//!
//! Archiving is the entry's documented `archived` attribute (a `PUT` of `{"archived": true}`):
//! the specification has no archive action.
//!
//! Field values are given by name and sent as `field_values: [{field_id, type, value}]`
//! through the entry's content type; a name the type does not have fails with
//! `unknown_fields` before anything is sent. Asset fields take an asset uuid (or an object
//! carrying one); anything else is refused locally. What a write reports is read back (C7):
//! the API's answer when it carries the field values, else a re-read.
//!
//! Decision (C7, "a string persisted where an asset reference belonged must surface as a
//! visible error in the same call"): when an asset field the call set comes back as a plain
//! string (or missing), the call fails with `persisted_mismatch`. The write did happen, so the
//! error says so and carries the entry's identifiers and the persisted values (`entry`,
//! `fields`), for the agent to repair it. A success with a flag in `state` would be read as
//! "done" by a client that only looks at `isError`.

use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::categories;
use super::super::types::{FieldKeys, TypeView};
use super::super::{Space, id_key};
use super::{is_asset_kind, present, read_entry};
use crate::contract::{ErrorCode, Legacy, PostCondition, Reply, ToolError, legacy};
use crate::modyo::resolve::{echoed_names, is_uuid};
use crate::modyo::{ModyoClient, Query};
use crate::tools::engine::tool::CallError;
use crate::tools::engine::{Object, body, lenient, reply, view, views};

mod manage;
mod upsert;

pub(crate) use manage::manage_tool;
pub(crate) use upsert::upsert_tool;

/// The keys a write reads of an entry the API sent; `id`, `uuid` and `slug` are also the
/// `entry` of its `persisted_mismatch` error.
#[derive(Default, Deserialize, Serialize)]
#[serde(default)]
struct EntryKeys {
    #[serde(deserialize_with = "lenient")]
    id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    uuid: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    slug: Option<Value>,
    #[serde(skip_serializing, deserialize_with = "views")]
    field_values: Option<Vec<FieldValue>>,
}

/// An element of an entry's `field_values`, as the API sent it and as a write sends it.
#[derive(Default, Deserialize, Serialize)]
#[serde(default)]
struct FieldValue {
    #[serde(deserialize_with = "lenient")]
    field_id: Option<Value>,
    #[serde(rename = "type", deserialize_with = "lenient")]
    kind: Option<String>,
    #[serde(deserialize_with = "lenient")]
    value: Option<Value>,
}

impl FieldValue {
    /// The element a write sends.
    fn sent(field_id: Value, kind: &str, value: Value) -> Value {
        body(FieldValue {
            field_id: Some(field_id),
            kind: Some(kind.to_owned()),
            value: Some(value),
        })
    }
}

/// A value as a write sends it: asset kinds take the asset's uuid (an asset list, a list of
/// them); other kinds are sent as given.
pub(in crate::tools::content) fn write_value(kind: &str, value: &Value) -> Result<Value, String> {
    if !is_asset_kind(kind) {
        return Ok(value.clone());
    }
    let one = |v: &Value| -> Result<Value, String> {
        match v {
            Value::Null => Ok(Value::Null),
            Value::String(s) if is_uuid(s.trim()) => Ok(Value::from(s.trim())),
            Value::Object(o) => match o.get("uuid").and_then(Value::as_str) {
                Some(uuid) if is_uuid(uuid) => Ok(Value::from(uuid)),
                _ => Err("an asset object without its uuid".to_owned()),
            },
            Value::String(s) => Err(format!("'{s}', which is not an asset uuid")),
            other => Err(format!("{other}, which is not an asset uuid")),
        }
    };
    match value {
        Value::Array(items) => items
            .iter()
            .map(one)
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => one(other),
    }
}

/// `field_values` for the given values by name, and the asset fields set to a value (their
/// `(field_id, name)`, checked after the write).
pub(in crate::tools::content) struct Encoded {
    pub(in crate::tools::content) field_values: Vec<Value>,
    assets: Vec<(String, String)>,
}

/// Encodes values by name through the content type.
pub(in crate::tools::content) fn encode_fields(
    content_type: &Value,
    fields: &Map<String, Value>,
) -> Result<Encoded, ToolError> {
    let defined: Vec<(String, Value, String)> = view::<TypeView>(content_type)
        .fields()
        .iter()
        .map(view::<FieldKeys>)
        .filter_map(|f| Some((f.name?, f.id?, f.kind.unwrap_or_default())))
        .collect();
    let unknown: Vec<&String> = fields
        .keys()
        .filter(|name| !defined.iter().any(|(n, _, _)| n == *name))
        .collect();
    if !unknown.is_empty() {
        let available: Vec<&str> = defined.iter().map(|(n, _, _)| n.as_str()).collect();
        let unknown_text = echoed_names(&unknown);
        return Err(ToolError::new(
            ErrorCode::UnknownFields,
            format!(
                "unknown field name(s): {unknown_text}. Fields of the content type: {}",
                available.join(", ")
            ),
        ));
    }
    let mut encoded = Encoded {
        field_values: Vec::new(),
        assets: Vec::new(),
    };
    for (name, value) in fields {
        let Some((_, id, kind)) = defined.iter().find(|(n, _, _)| n == name) else {
            continue;
        };
        let sent = write_value(kind, value).map_err(|why| {
            ToolError::invalid_parameters(format!(
                "field '{name}' is an {kind} field and got {why}; pass the uuid of an asset of the account's library (content-assets-list), or null"
            ))
        })?;
        if is_asset_kind(kind) && !sent.is_null() {
            encoded.assets.push((id_key(id), name.clone()));
        }
        encoded
            .field_values
            .push(FieldValue::sent(id.clone(), kind, sent));
    }
    Ok(encoded)
}

/// The persisted value of a field in an entry detail: `field_values` by id, else `json.fields`.
fn persisted_value(detail: &Value, field_id: &str, name: &str) -> Option<Value> {
    view::<EntryKeys>(detail)
        .field_values
        .and_then(|values| {
            values
                .into_iter()
                .find(|fv| fv.field_id.as_ref().map(id_key).as_deref() == Some(field_id))
        })
        .and_then(|fv| fv.value)
        .or_else(|| detail.pointer("/json/fields")?.get(name).cloned())
}

/// An asset field that did not persist as an asset reference, in the error's `fields`.
#[derive(Serialize)]
struct Broken<'a> {
    field: &'a str,
    persisted: Value,
}

/// C7: every asset field the write set must hold an asset reference after it, not a string.
fn check_assets(detail: &Value, encoded: &Encoded) -> Result<(), ToolError> {
    let broken: Vec<Broken<'_>> = encoded
        .assets
        .iter()
        .filter_map(|(id, name)| {
            let value = persisted_value(detail, id, name);
            let holds_reference = match &value {
                Some(Value::Object(_)) => true,
                Some(Value::Array(items)) => items.iter().all(Value::is_object),
                _ => false,
            };
            (!holds_reference).then(|| Broken {
                field: name,
                persisted: value.unwrap_or(Value::Null),
            })
        })
        .collect();
    if broken.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = broken.iter().map(|b| b.field).collect();
    let entry: EntryKeys = view(detail);
    let id = entry.id.clone().unwrap_or(Value::Null);
    Err(ToolError::new(
        ErrorCode::PersistedMismatch,
        format!(
            "entry {id} was saved, but asset field(s) {} did not persist as asset references (the API kept a plain string or nothing); the entry now holds broken asset values. Set them again with the uuid of an asset of the account's library (content-assets-list), or null to clear them",
            names.join(", ")
        ),
    )
    .detail("entry", body(entry))
    .detail("fields", Value::Array(broken.iter().map(body).collect())))
}

/// The entry as persisted after a write: the answer when it carries field values, else a
/// re-read (an empty or summary answer says nothing about them).
async fn persisted_entry(
    client: &ModyoClient,
    space: &Space,
    response: Value,
    id: &str,
) -> Result<Value, ToolError> {
    let keys: EntryKeys = view(&response);
    let complete = keys.field_values.is_some() || response.pointer("/json/fields").is_some();
    if complete {
        return Ok(response);
    }
    let id = keys
        .id
        .as_ref()
        .map(id_key)
        .unwrap_or_else(|| id.to_owned());
    read_entry(client, space, &id).await
}

/// The write's reply: the entry as `content-entries-get` shows it, its resource, and the
/// post-condition read from it; the old payload held the API's object.
async fn write_reply<D: Object>(
    client: &ModyoClient,
    space: &Space,
    detail: Value,
    content_type: Option<&Value>,
    (status, message): (&str, &str),
) -> Result<Reply<D>, ToolError> {
    let (data, resource) = present(client, space, &detail, content_type).await?;
    let mut post = PostCondition::status(status);
    if let Some(published) = reply::published_of(&detail) {
        post = post.published(published);
    }
    let (word, message) = (status.to_owned(), message.to_owned());
    let old = Legacy::custom(move |_| legacy::write(&word, message, "entry", detail));
    Ok(reply::written(data, resource, post, old))
}

/// What a create or update sets, besides the type.
struct EntryFields<'a> {
    name: Option<&'a str>,
    slug: Option<&'a str>,
    tags: Option<&'a Vec<String>>,
    category: Option<&'a str>,
    locale: Option<&'a str>,
    fields: Option<&'a Map<String, Value>>,
}

/// The body of an entry create or update: what it sets, when it sets it.
#[derive(Serialize)]
struct WriteBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    slug: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<&'a Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    locale: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    field_values: Option<&'a [Value]>,
}

/// The body of an entry create or update, and what it sets in asset fields.
async fn entry_body(
    client: &ModyoClient,
    space: &Space,
    content_type: Option<&Value>,
    given: &EntryFields<'_>,
) -> Result<(Value, Encoded), ToolError> {
    let category_id = match given.category {
        Some(category) => Some(categories::resolve_id(client, space, category).await?),
        None => None,
    };
    let encoded = match (given.fields, content_type) {
        (Some(fields), Some(content_type)) => encode_fields(content_type, fields)?,
        _ => Encoded {
            field_values: Vec::new(),
            assets: Vec::new(),
        },
    };
    let body = body(WriteBody {
        name: given.name,
        slug: given.slug,
        tags: given.tags,
        locale: given.locale,
        category_id,
        field_values: given.fields.map(|_| encoded.field_values.as_slice()),
    });
    Ok((body, encoded))
}

/// Sends an entry write (`body` and what it sets in asset fields) and reads back the entry as
/// persisted, its asset fields checked (C7). `id` is the entry's, when it has one.
async fn send_checked(
    client: &ModyoClient,
    space: &Space,
    method: Method,
    path: &str,
    (body, encoded): (Value, Encoded),
    id: &str,
) -> Result<Value, CallError> {
    let response = client
        .send(method, path, &Query::new(), Some(&body))
        .await?;
    let detail = persisted_entry(client, space, response, id).await?;
    check_assets(&detail, &encoded)?;
    Ok(detail)
}

/// The create body of a copy of `source`: its type, tags, category, locale and field values
/// (asset objects sent as their uuid), with a new name and slug.
pub(in crate::tools::content) fn clone_body(
    source: &Value,
    name: Option<&str>,
    slug: Option<&str>,
) -> Result<Value, ToolError> {
    let read: CloneSource = view(source);
    let text = |text: &Option<String>| text.clone().unwrap_or_default();
    Ok(body(CloneBody {
        content_type_id: read.content_type_id.unwrap_or(Value::Null),
        name: name.map_or_else(|| format!("{} (copy)", text(&read.name)), str::to_owned),
        slug: slug.map_or_else(|| format!("{}-copy", text(&read.slug)), str::to_owned),
        kept: read.kept,
        field_values: copied_field_values(source, |id| Some(id.clone()))?,
    }))
}

/// The keys a clone reads of its source entry.
#[derive(Default, Deserialize)]
#[serde(default)]
struct CloneSource {
    #[serde(deserialize_with = "lenient")]
    content_type_id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    name: Option<String>,
    #[serde(deserialize_with = "lenient")]
    slug: Option<String>,
    #[serde(flatten)]
    kept: CloneKept,
}

/// The keys of the source a clone keeps, when present and not `null`.
#[derive(Default, Deserialize, Serialize)]
#[serde(default)]
struct CloneKept {
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    category_id: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    locale: Option<Value>,
}

/// The create body of a clone.
#[derive(Serialize)]
struct CloneBody {
    content_type_id: Value,
    name: String,
    slug: String,
    #[serde(flatten)]
    kept: CloneKept,
    field_values: Vec<Value>,
}

/// The field values of an entry detail ready to be sent again, with each field id passed
/// through `map_id` (identity for a clone; old to new for a copy into another space). Values
/// whose field has no counterpart are left out.
pub(in crate::tools::content) fn copied_field_values(
    source: &Value,
    map_id: impl Fn(&Value) -> Option<Value>,
) -> Result<Vec<Value>, ToolError> {
    let mut out = Vec::new();
    let entry: EntryKeys = view(source);
    for fv in entry.field_values.into_iter().flatten() {
        let (Some(id), Some(kind)) = (fv.field_id, fv.kind) else {
            continue;
        };
        let Some(new_id) = map_id(&id) else { continue };
        let value = write_value(&kind, &fv.value.unwrap_or(Value::Null)).map_err(|why| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!(
                    "field {id} of entry {} holds {why}",
                    entry.id.clone().unwrap_or(Value::Null)
                ),
            )
        })?;
        out.push(FieldValue::sent(new_id, &kind, value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const UUID: &str = "0f5c2a8e-6b1d-4c3e-9a7f-2d4e6f8a0b1c";

    fn branch_type() -> Value {
        json!({"id": 4021, "fields": [
            {"id": 70001, "name": "title", "type": "text"},
            {"id": 70029, "name": "facade_photo", "type": "asset"},
            {"id": 70040, "name": "gallery", "type": "asset_list"}
        ]})
    }

    #[test]
    fn asset_fields_take_uuids_and_refuse_anything_else() {
        assert_eq!(write_value("asset", &json!(UUID)).unwrap(), json!(UUID));
        assert_eq!(
            write_value("asset", &json!({"uuid": UUID, "url": "u"})).unwrap(),
            json!(UUID)
        );
        assert_eq!(
            write_value("asset_list", &json!([UUID])).unwrap(),
            json!([UUID])
        );
        assert_eq!(write_value("asset", &Value::Null).unwrap(), Value::Null);
        assert!(
            write_value("asset", &json!("fachada.jpg"))
                .unwrap_err()
                .contains("fachada.jpg")
        );
        assert!(write_value("asset", &json!({"name": "x", "url": "u"})).is_err());
        assert_eq!(
            write_value("text", &json!("fachada.jpg")).unwrap(),
            json!("fachada.jpg")
        );
    }

    #[test]
    fn fields_are_encoded_by_name_and_unknown_names_fail() {
        let mut fields = Map::new();
        fields.insert("title".into(), json!("Centro"));
        fields.insert("facade_photo".into(), json!(UUID));
        let encoded = encode_fields(&branch_type(), &fields).unwrap();
        assert_eq!(
            Value::Array(encoded.field_values.clone()),
            json!([{"field_id": 70001, "type": "text", "value": "Centro"}, {"field_id": 70029, "type": "asset", "value": UUID}])
        );
        assert_eq!(
            encoded.assets,
            vec![("70029".to_owned(), "facade_photo".to_owned())]
        );
        fields.insert("titel".into(), json!("x"));
        let err = encode_fields(&branch_type(), &fields)
            .map(|_| ())
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::UnknownFields);
        assert!(
            err.message().starts_with("unknown field name(s): titel."),
            "{}",
            err.message()
        );
    }

    #[test]
    fn a_string_persisted_in_an_asset_field_is_a_mismatch() {
        let mut fields = Map::new();
        fields.insert("facade_photo".into(), json!(UUID));
        let encoded = encode_fields(&branch_type(), &fields).unwrap();
        let good = json!({"id": 1, "field_values": [{"field_id": 70029, "type": "asset", "value": {"uuid": UUID, "url": "u"}}]});
        assert!(check_assets(&good, &encoded).is_ok());
        let bad = json!({"id": 1, "uuid": "e", "slug": "s", "field_values": [{"field_id": 70029, "type": "asset", "value": UUID}]});
        let err = check_assets(&bad, &encoded).unwrap_err();
        assert_eq!(err.code(), ErrorCode::PersistedMismatch);
        let v = err.to_value();
        assert_eq!(
            v["fields"],
            json!([{"field": "facade_photo", "persisted": UUID}])
        );
        assert_eq!(v["entry"]["id"], 1);
        let missing = json!({"id": 1, "field_values": []});
        assert!(check_assets(&missing, &encoded).is_err());
    }

    #[test]
    fn clones_keep_values_and_send_asset_uuids() {
        let source = json!({"id": 9, "name": "Centro", "slug": "centro", "content_type_id": 4021, "tags": ["a"], "category_id": null,
            "field_values": [{"field_id": 70029, "type": "asset", "value": {"uuid": UUID, "url": "u"}}, {"field_id": 70001, "type": "text", "value": "T"}]});
        assert_eq!(
            clone_body(&source, None, None).unwrap(),
            json!({"content_type_id": 4021, "name": "Centro (copy)", "slug": "centro-copy", "tags": ["a"],
                "field_values": [{"field_id": 70029, "type": "asset", "value": UUID}, {"field_id": 70001, "type": "text", "value": "T"}]})
        );
    }
}
