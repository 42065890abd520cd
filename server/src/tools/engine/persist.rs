//! C7: a write reports what the API persisted, never what was sent, and a value persisted
//! differently from what was sent fails the same call (`persisted_mismatch`).
//!
//! The persisted object is the write's response when it is an object, else a re-read; a
//! create must answer with the object it made (it is the only way to know its id).

use reqwest::Method;
use serde::Serialize;
use serde_json::{Map, Value};

use super::view::{Identity, view};
use crate::contract::{ErrorCode, ToolError};
use crate::modyo::{ModyoClient, Query};

/// The fields of `fields` that were given (`null` left out), in declaration order: what a
/// write sends.
pub(crate) fn given(fields: &impl Serialize) -> Value {
    match serde_json::to_value(fields) {
        Ok(Value::Object(map)) => {
            Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).collect())
        }
        _ => Value::Object(Map::new()),
    }
}

/// A JSON object of the given fields, in order, leaving out the absent ones (a `null` that
/// is present is kept: a copy sends what its source holds).
pub(crate) fn body(fields: Vec<(&str, Option<Value>)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
            .collect(),
    )
}

/// Whether a write body carries nothing.
pub(crate) fn is_empty(body: &Value) -> bool {
    body.as_object().is_none_or(Map::is_empty)
}

/// Appends the fields of `more` to the object `body`.
pub(crate) fn extend(body: &mut Value, more: Value) {
    if let (Value::Object(body), Value::Object(more)) = (body, more) {
        body.extend(more);
    }
}

/// Sends `method` with `body` to `path` and returns the persisted object: the response when
/// it is an object, else a re-read of `read_path` (a `204` or an empty `200`).
pub(crate) async fn write(
    client: &ModyoClient,
    method: Method,
    path: &str,
    body: Option<&Value>,
    read_path: &str,
) -> Result<Value, ToolError> {
    let response = client.send(method, path, &Query::new(), body).await?;
    read_back(client, response, read_path).await
}

/// The persisted object after a write: `response` when it is an object, else a re-read.
pub(crate) async fn read_back(
    client: &ModyoClient,
    response: Value,
    read_path: &str,
) -> Result<Value, ToolError> {
    if response.is_object() {
        return Ok(response);
    }
    Ok(client.get(read_path, &Query::new()).await?)
}

/// `POST body` to a collection: the object the create answered with (C7: it is what was
/// persisted). A create that answers without the object cannot say what it made, so that is
/// an `invalid_upstream_response`.
pub(crate) async fn create(
    client: &ModyoClient,
    path: &str,
    body: &Value,
    what: &str,
) -> Result<Value, ToolError> {
    let response = client
        .send(Method::POST, path, &Query::new(), Some(body))
        .await?;
    created(response, what)
}

/// The object a create answered with, or `invalid_upstream_response`.
pub(crate) fn created(response: Value, what: &str) -> Result<Value, ToolError> {
    if view::<Identity>(&response).id.is_some() {
        Ok(response)
    } else {
        Err(ToolError::new(
            ErrorCode::InvalidUpstreamResponse,
            format!(
                "the API accepted the new {what} but answered without it (no id); list the collection to find it before retrying"
            ),
        ))
    }
}

/// A value the API persisted differently from what was sent, as `persisted_mismatch` lists it.
#[derive(Serialize)]
struct Mismatch<'a> {
    field: &'a str,
    sent: Value,
    persisted: Value,
}

/// The values `sent` that the persisted `object` holds differently. A key the API does not
/// echo cannot be checked and is skipped; objects and arrays are not compared (the API may
/// normalise them). Any difference fails the call with `persisted_mismatch`.
pub(crate) fn check_sent(what: &str, object: &Value, sent: &Value) -> Result<(), ToolError> {
    let Some(sent) = sent.as_object() else {
        return Ok(());
    };
    let mismatches: Vec<Mismatch<'_>> = sent
        .iter()
        .filter(|(_, v)| !v.is_object() && !v.is_array() && !v.is_null())
        .filter_map(|(key, value)| {
            let persisted = object.get(key)?;
            (persisted != value).then(|| Mismatch {
                field: key,
                sent: preview(value),
                persisted: preview(persisted),
            })
        })
        .collect();
    if mismatches.is_empty() {
        return Ok(());
    }
    let fields: Vec<&str> = mismatches.iter().map(|m| m.field).collect();
    Err(ToolError::new(
        ErrorCode::PersistedMismatch,
        format!(
            "the {what} was written, but the API persisted different values for: {}; read it back and correct it",
            fields.join(", ")
        ),
    )
    .detail("mismatches", super::view::body(mismatches)))
}

/// One key the API must have persisted as `wanted`, or the call fails visibly.
pub(crate) fn check_key(
    object: &Value,
    key: &str,
    wanted: &Value,
    what: &str,
) -> Result<(), ToolError> {
    let got = object.get(key).unwrap_or(&Value::Null);
    if got == wanted {
        Ok(())
    } else {
        Err(ToolError::new(
            ErrorCode::PersistedMismatch,
            format!(
                "{what}: the write was sent with {key} = {wanted} but the API persisted {key} = {got}; read it again before retrying"
            ),
        ))
    }
}

fn preview(value: &Value) -> Value {
    match value {
        Value::String(s) if s.chars().count() > 120 => {
            let head: String = s.chars().take(120).collect();
            Value::from(format!("{head}… ({} chars)", s.chars().count()))
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn check_sent_reports_what_differs_and_skips_what_is_not_echoed() {
        let object = json!({"name": "Home", "content": "<p>x</p>", "position": 2});
        let sent = json!({"name": "Home", "content": "<p>y</p>", "missing": "a", "position": 2});
        let err = check_sent("template", &object, &sent).unwrap_err();
        assert_eq!(err.code(), ErrorCode::PersistedMismatch);
        assert_eq!(
            err.to_value()["mismatches"],
            json!([{"field": "content", "sent": "<p>y</p>", "persisted": "<p>x</p>"}])
        );
        assert!(check_sent("template", &object, &json!({"name": "Home"})).is_ok());
    }

    #[test]
    fn check_key_names_both_values() {
        let err = check_key(
            &json!({"active": true}),
            "active",
            &json!(false),
            "admin user 7",
        )
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::PersistedMismatch);
        assert!(
            err.message()
                .contains("sent with active = false but the API persisted active = true"),
            "{}",
            err.message()
        );
        assert!(check_key(&json!({"active": false}), "active", &json!(false), "x").is_ok());
    }
}
