//! The HTTP half of format v1: one recorded exchange ([`Interaction`]), its request and its
//! response with their bodies, query values, and the ordered maps (headers, query, env) that
//! reject a repeated key.

use std::fmt;
use std::marker::PhantomData;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One recorded HTTP exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interaction {
    /// What the server sent.
    pub request: RecordedRequest,
    /// What the API answered.
    pub response: RecordedResponse,
}

impl Interaction {
    /// An interaction from its two halves.
    pub fn new(request: RecordedRequest, response: RecordedResponse) -> Interaction {
        Interaction { request, response }
    }

    /// Starts a `GET path` request; finish it with [`RecordedRequest::respond`].
    pub fn get(path: impl Into<String>) -> RecordedRequest {
        RecordedRequest::new("GET", path)
    }

    /// Starts a `POST path` request.
    pub fn post(path: impl Into<String>) -> RecordedRequest {
        RecordedRequest::new("POST", path)
    }

    /// Starts a `PUT path` request.
    pub fn put(path: impl Into<String>) -> RecordedRequest {
        RecordedRequest::new("PUT", path)
    }

    /// Starts a `PATCH path` request.
    pub fn patch(path: impl Into<String>) -> RecordedRequest {
        RecordedRequest::new("PATCH", path)
    }

    /// Starts a `DELETE path` request.
    pub fn delete(path: impl Into<String>) -> RecordedRequest {
        RecordedRequest::new("DELETE", path)
    }
}

/// The request half of an interaction. Method, path, query and body are matched exactly by
/// replay; headers are documentation only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedRequest {
    /// Upper-case HTTP method.
    pub method: String,
    /// The path, starting with `/`, without query string.
    pub path: String,
    /// Decoded query parameters; a repeated key holds an array, in order.
    #[serde(default, skip_serializing_if = "OrderedMap::is_empty")]
    pub query: OrderedMap<QueryValue>,
    /// Request headers, for the reader (never matched, never a credential).
    #[serde(default, skip_serializing_if = "OrderedMap::is_empty")]
    pub headers: OrderedMap<String>,
    /// The JSON body; absent means the request has no body.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub body: Option<Value>,
}

impl RecordedRequest {
    /// A request with no query, headers or body.
    pub fn new(method: impl Into<String>, path: impl Into<String>) -> RecordedRequest {
        RecordedRequest {
            method: method.into(),
            path: path.into(),
            query: OrderedMap::new(),
            headers: OrderedMap::new(),
            body: None,
        }
    }

    /// Adds one query parameter; adding a key again makes it a repeated key, in order.
    pub fn query(mut self, key: impl Into<String>, value: impl Into<String>) -> RecordedRequest {
        let key = key.into();
        let value = value.into();
        match self.query.get_mut(&key) {
            Some(existing) => existing.push(value),
            None => self.query.insert(key, QueryValue::One(value)),
        }
        self
    }

    /// Adds a header (documentation only).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> RecordedRequest {
        self.headers.insert(name, value.into());
        self
    }

    /// Sets the JSON body.
    pub fn body(mut self, body: Value) -> RecordedRequest {
        self.body = Some(body);
        self
    }

    /// Finishes the interaction with a JSON response.
    pub fn respond(self, status: u16, body: Value) -> Interaction {
        Interaction::new(self, RecordedResponse::json(status, body))
    }

    /// Finishes the interaction with any response.
    pub fn respond_with(self, response: RecordedResponse) -> Interaction {
        Interaction::new(self, response)
    }
}

/// The value of one query key: a string, or the ordered values of a repeated key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryValue {
    /// `key=value` once.
    One(String),
    /// `key=a&key=b`: the values in order.
    Many(Vec<String>),
}

impl QueryValue {
    /// The values, in order.
    pub fn values(&self) -> &[String] {
        match self {
            QueryValue::One(v) => std::slice::from_ref(v),
            QueryValue::Many(vs) => vs,
        }
    }

    fn push(&mut self, value: String) {
        match self {
            QueryValue::One(first) => *self = QueryValue::Many(vec![std::mem::take(first), value]),
            QueryValue::Many(values) => values.push(value),
        }
    }
}

impl Serialize for QueryValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            QueryValue::One(v) => serializer.serialize_str(v),
            QueryValue::Many(vs) => {
                let mut seq = serializer.serialize_seq(Some(vs.len()))?;
                for v in vs {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for QueryValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct QueryValueVisitor;
        impl<'de> Visitor<'de> for QueryValueVisitor {
            type Value = QueryValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a non-empty array of strings")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<QueryValue, E> {
                Ok(QueryValue::One(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<QueryValue, E> {
                Ok(QueryValue::One(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<QueryValue, A::Error> {
                let mut values = Vec::new();
                while let Some(v) = seq.next_element::<String>()? {
                    values.push(v);
                }
                if values.is_empty() {
                    return Err(de::Error::custom(
                        "empty array: omit the key when the parameter is not sent",
                    ));
                }
                Ok(QueryValue::Many(values))
            }
        }
        deserializer.deserialize_any(QueryValueVisitor)
    }
}

/// The response half of an interaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawResponse", into = "RawResponse")]
pub struct RecordedResponse {
    /// HTTP status (100 to 599).
    pub status: u16,
    /// Response headers, replayed as recorded (a JSON body defaults to `application/json`).
    pub headers: OrderedMap<String>,
    /// The body, in one of the three stored forms.
    pub body: ResponseBody,
    /// How long replay waits before answering.
    pub delay_ms: Option<u64>,
}

impl RecordedResponse {
    /// A response with a JSON body.
    pub fn json(status: u16, body: Value) -> RecordedResponse {
        RecordedResponse::with_body(status, ResponseBody::Json(body))
    }

    /// A response with a raw text body (an HTML error page, truncated JSON).
    pub fn text(status: u16, body: impl Into<String>) -> RecordedResponse {
        RecordedResponse::with_body(status, ResponseBody::Text(body.into()))
    }

    /// A response with a binary body (stored as base64).
    pub fn bytes(status: u16, body: impl Into<Vec<u8>>) -> RecordedResponse {
        RecordedResponse::with_body(status, ResponseBody::Bytes(body.into()))
    }

    /// A response with an empty body.
    pub fn empty(status: u16) -> RecordedResponse {
        RecordedResponse::with_body(status, ResponseBody::Empty)
    }

    fn with_body(status: u16, body: ResponseBody) -> RecordedResponse {
        RecordedResponse {
            status,
            headers: OrderedMap::new(),
            body,
            delay_ms: None,
        }
    }

    /// Adds a response header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> RecordedResponse {
        self.headers.insert(name, value.into());
        self
    }

    /// Delays the answer by `ms` milliseconds.
    pub fn delay_ms(mut self, ms: u64) -> RecordedResponse {
        self.delay_ms = Some(ms);
        self
    }
}

/// The body of a recorded response.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseBody {
    /// No body (`body`, `body_text` and `body_base64` all absent).
    Empty,
    /// `body`: JSON, stored as JSON.
    Json(Value),
    /// `body_text`: raw text, kept byte for byte.
    Text(String),
    /// `body_base64`: binary, decoded (stored in canonical padded base64).
    Bytes(Vec<u8>),
}

/// The file shape of a response, before the one-body rule is checked.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawResponse {
    status: u16,
    #[serde(default, skip_serializing_if = "OrderedMap::is_empty")]
    headers: OrderedMap<String>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    body: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body_base64: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    delay_ms: Option<u64>,
}

impl TryFrom<RawResponse> for RecordedResponse {
    type Error = String;

    fn try_from(raw: RawResponse) -> Result<Self, String> {
        if !(100..=599).contains(&raw.status) {
            return Err(format!(
                "status {} is not an HTTP status (100..=599)",
                raw.status
            ));
        }
        let body = match (raw.body, raw.body_text, raw.body_base64) {
            (None, None, None) => ResponseBody::Empty,
            (Some(json), None, None) => ResponseBody::Json(json),
            (None, Some(text), None) => ResponseBody::Text(text),
            (None, None, Some(b64)) => ResponseBody::Bytes(
                BASE64
                    .decode(b64.as_bytes())
                    .map_err(|e| format!("body_base64 is not canonical padded base64: {e}"))?,
            ),
            _ => {
                return Err(
                    "a response has at most one of body, body_text and body_base64".to_owned(),
                );
            }
        };
        Ok(RecordedResponse {
            status: raw.status,
            headers: raw.headers,
            body,
            delay_ms: raw.delay_ms,
        })
    }
}

impl From<RecordedResponse> for RawResponse {
    fn from(response: RecordedResponse) -> RawResponse {
        let (body, body_text, body_base64) = match response.body {
            ResponseBody::Empty => (None, None, None),
            ResponseBody::Json(json) => (Some(json), None, None),
            ResponseBody::Text(text) => (None, Some(text), None),
            ResponseBody::Bytes(bytes) => (None, None, Some(BASE64.encode(bytes))),
        };
        RawResponse {
            status: response.status,
            headers: response.headers,
            body,
            body_text,
            body_base64,
            delay_ms: response.delay_ms,
        }
    }
}

/// Deserializes a present key as `Some`, even when its value is `null` (a JSON `null` body).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// A JSON object with unique keys, kept in file order (headers, query, env).
///
/// Parsing rejects a repeated key instead of silently keeping the last one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedMap<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap {
            entries: Vec::new(),
        }
    }
}

impl<V> OrderedMap<V> {
    /// An empty map.
    pub fn new() -> OrderedMap<V> {
        OrderedMap::default()
    }

    /// Sets `key` to `value`, in place when the key exists, else at the end.
    pub fn insert(&mut self, key: impl Into<String>, value: V) {
        let key = key.into();
        match self.get_mut(&key) {
            Some(existing) => *existing = value,
            None => self.entries.push((key, value)),
        }
    }

    /// The value of `key` (exact, case-sensitive).
    pub fn get(&self, key: &str) -> Option<&V> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// The value of `key`, ignoring ASCII case (for header names).
    pub fn get_ignore_case(&self, key: &str) -> Option<&V> {
        self.entries
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<K: Into<String>, V> FromIterator<(K, V)> for OrderedMap<V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = OrderedMap::new();
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut entries: Vec<(String, V)> = Vec::new();
                while let Some(key) = access.next_key::<String>()? {
                    if entries.iter().any(|(k, _)| *k == key) {
                        return Err(de::Error::custom(format!("duplicate key `{key}`")));
                    }
                    let value = access.next_value()?;
                    entries.push((key, value));
                }
                Ok(OrderedMap { entries })
            }
        }
        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repeated_query_keys_become_an_ordered_array() {
        let request = Interaction::get("/x")
            .query("only[]", "id")
            .query("page", "1")
            .query("only[]", "name");
        assert_eq!(
            serde_json::to_value(&request.query).expect("serializes"),
            json!({"only[]": ["id", "name"], "page": "1"})
        );
    }

    #[test]
    fn a_response_with_two_bodies_is_rejected() {
        let err = serde_json::from_value::<RecordedResponse>(
            json!({"status": 200, "body": {}, "body_text": "x"}),
        )
        .expect_err("two bodies");
        assert!(err.to_string().contains("at most one of body"), "{err}");
    }

    #[test]
    fn a_null_body_is_kept_as_json_null() {
        let response =
            serde_json::from_value::<RecordedResponse>(json!({"status": 200, "body": null}))
                .expect("parses");
        assert_eq!(response.body, ResponseBody::Json(Value::Null));
        let request =
            serde_json::from_value::<RecordedRequest>(json!({"method": "POST", "path": "/x"}))
                .expect("parses");
        assert_eq!(request.body, None);
    }

    #[test]
    fn base64_must_be_canonical_and_round_trips() {
        let response = RecordedResponse::bytes(200, b"PK\x03\x04zip".to_vec());
        let value = serde_json::to_value(&response).expect("serializes");
        assert_eq!(value, json!({"status": 200, "body_base64": "UEsDBHppcA=="}));
        let back: RecordedResponse = serde_json::from_value(value).expect("parses");
        assert_eq!(back, response);
        let err = serde_json::from_value::<RecordedResponse>(
            json!({"status": 200, "body_base64": "UEsDBHppcA"}),
        )
        .expect_err("unpadded");
        assert!(err.to_string().contains("body_base64"), "{err}");
    }

    #[test]
    fn duplicate_keys_and_bad_query_values_are_rejected() {
        let err = serde_json::from_str::<OrderedMap<String>>(r#"{"a": "1", "a": "2"}"#)
            .expect_err("duplicate");
        assert!(err.to_string().contains("duplicate key `a`"), "{err}");
        let err = serde_json::from_value::<QueryValue>(json!([])).expect_err("empty");
        assert!(err.to_string().contains("omit the key"), "{err}");
        serde_json::from_value::<QueryValue>(json!(1)).expect_err("number");
    }

    #[test]
    fn the_status_must_be_an_http_status() {
        let err = serde_json::from_value::<RecordedResponse>(json!({"status": 42}))
            .expect_err("bad status");
        assert!(err.to_string().contains("status 42"), "{err}");
    }

    #[test]
    fn json_objects_compare_regardless_of_key_order() {
        // Replay relies on this: preserve_order keeps file order, equality ignores it.
        assert_eq!(json!({"a": 1, "b": [1, 2]}), json!({"b": [1, 2], "a": 1}));
        assert_ne!(json!({"b": [2, 1]}), json!({"b": [1, 2]}));
    }
}
