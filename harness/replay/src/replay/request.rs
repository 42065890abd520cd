//! The two sides of a match: [`RequestKey`] (what a cassette recorded, in canonical form) and
//! [`ReceivedRequest`] (what arrived, in the same form).
//!
//! Canonical form: upper-case method; the path as the `url` crate encodes it (so a recorded
//! `/spaces/mi espacio` and a received `/spaces/mi%20espacio` are the same path); the query as
//! decoded `(key, value)` pairs sorted by key, the values of a repeated key kept in order; the
//! body as parsed JSON, or a `multipart/form-data` body as its canonical object (see `replay/form.rs`).
//! Two requests match when all four are equal (a form only with a recording whose request
//! `content-type` says it is one), which makes the query an exact multiset comparison, never a
//! subset one.

use std::fmt;

use serde_json::Value;
use url::Url;

use super::form;
use super::http::Arrived;
use crate::cassette::RecordedRequest;

/// One HTTP request the replay server received, in canonical form. Headers are not kept (they
/// may carry the token).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ReceivedRequest {
    /// Upper-case method.
    pub method: String,
    /// The path as received (percent-encoded).
    pub path: String,
    /// Decoded query pairs, sorted by key; a repeated key keeps its values in arrival order.
    pub query: Vec<(String, String)>,
    /// The body.
    pub body: ReceivedBody,
    /// Whether a recorded interaction answered it (`false`: it was a miss).
    pub replayed: bool,
}

impl ReceivedRequest {
    /// A request as the replay server would have received it, not (yet) answered: for tests.
    pub fn unanswered(
        method: &str,
        path: &str,
        query: &[(&str, &str)],
        body: ReceivedBody,
    ) -> ReceivedRequest {
        ReceivedRequest {
            method: method.into(),
            path: path.into(),
            query: query
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
            body,
            replayed: false,
        }
    }
}

/// The body of a received request.
#[derive(Debug, Clone, PartialEq)]
pub enum ReceivedBody {
    /// No body bytes.
    Empty,
    /// A body that parses as JSON.
    Json(Value),
    /// A `multipart/form-data` body, as its canonical object (see `replay/form.rs`).
    Form(Value),
    /// A body that is not JSON (kept raw).
    Other(Vec<u8>),
}

impl ReceivedRequest {
    pub(crate) fn from_arrived(request: &Arrived, replayed: bool) -> ReceivedRequest {
        let mut query: Vec<(String, String)> = request
            .url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        // Stable: the values of a repeated key keep their order.
        query.sort_by(|a, b| a.0.cmp(&b.0));
        let body = if request.body.is_empty() {
            ReceivedBody::Empty
        } else if let Some(form) = form::parse(&request.content_type, &request.body) {
            ReceivedBody::Form(form)
        } else {
            match serde_json::from_slice(&request.body) {
                Ok(json) => ReceivedBody::Json(json),
                Err(_) => ReceivedBody::Other(request.body.to_vec()),
            }
        };
        ReceivedRequest {
            method: request.method.clone(),
            path: request.url.path().to_owned(),
            query,
            body,
            replayed,
        }
    }

    /// `GET /path?a=1&b=2` (decoded query, sorted).
    pub fn line(&self) -> String {
        line(&self.method, &self.path, &self.query)
    }

    /// Whether a recorded request would have answered this one (the replay's exact match).
    pub fn matches(&self, recorded: &RecordedRequest) -> bool {
        RequestKey::of(recorded).matches(self)
    }

    /// This request as a cassette request that replay matches exactly (for building cassettes
    /// from traffic, such as a fault injected at one request). `None` when the body is not
    /// JSON, which a cassette cannot record.
    pub fn to_recorded(&self) -> Option<RecordedRequest> {
        let mut recorded = RecordedRequest::new(self.method.clone(), self.path.clone());
        for (key, value) in &self.query {
            recorded = recorded.query(key.clone(), value.clone());
        }
        match &self.body {
            ReceivedBody::Empty => {}
            ReceivedBody::Json(json) => recorded = recorded.body(json.clone()),
            ReceivedBody::Form(form) => {
                recorded = recorded
                    .header("content-type", form::FORM_MEDIA_TYPE)
                    .body(form.clone());
            }
            ReceivedBody::Other(_) => return None,
        }
        Some(recorded)
    }
}

impl fmt::Display for ReceivedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.line(), body_summary(&self.body))
    }
}

/// A recorded request in canonical form: what one replay sequence matches.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestKey {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) query: Vec<(String, String)>,
    pub(crate) body: Option<Value>,
    /// The recording says its body is a form (request `content-type: multipart/form-data`).
    pub(crate) form: bool,
}

impl RequestKey {
    /// The canonical form of `request`: two requests with equal keys are the same to replay.
    pub fn of(request: &RecordedRequest) -> RequestKey {
        let mut query: Vec<(String, String)> = request
            .query
            .iter()
            .flat_map(|(k, v)| v.values().iter().map(move |v| (k.to_owned(), v.clone())))
            .collect();
        query.sort_by(|a, b| a.0.cmp(&b.0));
        RequestKey {
            method: request.method.to_ascii_uppercase(),
            path: canonical_path(&request.path),
            query,
            body: request.body.clone(),
            form: request
                .headers
                .iter()
                .any(|(k, v)| k.eq_ignore_ascii_case("content-type") && form::is_form(v)),
        }
    }

    /// Exact match: method, path, the whole query, and the body (JSON-equal, or both absent).
    pub(crate) fn matches(&self, received: &ReceivedRequest) -> bool {
        self.method == received.method
            && self.path == received.path
            && self.query == received.query
            && match (&self.body, &received.body) {
                (None, ReceivedBody::Empty) => true,
                (Some(recorded), ReceivedBody::Json(json)) => !self.form && recorded == json,
                (Some(recorded), ReceivedBody::Form(form)) => self.form && recorded == form,
                _ => false,
            }
    }

    /// `GET /path?a=1`.
    pub fn line(&self) -> String {
        line(&self.method, &self.path, &self.query)
    }
}

/// The path as the `url` crate would send it (spaces and non-ASCII percent-encoded).
fn canonical_path(path: &str) -> String {
    match Url::parse("http://replay.invalid/") {
        Ok(mut url) => {
            url.set_path(path);
            url.path().to_owned()
        }
        Err(_) => path.to_owned(),
    }
}

fn line(method: &str, path: &str, query: &[(String, String)]) -> String {
    if query.is_empty() {
        format!("{method} {path}")
    } else {
        let query: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{method} {path}?{}", query.join("&"))
    }
}

/// `no body`, `JSON body: object {a, b}`, `non-JSON body, 12 bytes`.
pub(crate) fn body_summary(body: &ReceivedBody) -> String {
    match body {
        ReceivedBody::Empty => "no body".to_owned(),
        ReceivedBody::Json(json) => format!("JSON body: {}", json_summary(json)),
        ReceivedBody::Form(form) => format!("form body: {}", json_summary(form)),
        ReceivedBody::Other(bytes) => format!("non-JSON body, {} bytes", bytes.len()),
    }
}

/// A short description of a JSON value: its kind, and the top-level keys of an object.
pub(crate) fn json_summary(json: &Value) -> String {
    const MAX_KEYS: usize = 8;
    match json {
        Value::Object(map) => {
            let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
            keys.sort_unstable();
            let more = keys.len().saturating_sub(MAX_KEYS);
            keys.truncate(MAX_KEYS);
            let mut text = format!("object {{{}", keys.join(", "));
            if more > 0 {
                text.push_str(&format!(", +{more} more"));
            }
            text.push('}');
            text
        }
        Value::Array(items) => format!("array of {}", items.len()),
        Value::String(_) => "string".to_owned(),
        Value::Number(_) => "number".to_owned(),
        Value::Bool(_) => "boolean".to_owned(),
        Value::Null => "null".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cassette::Interaction;
    use serde_json::json;

    #[test]
    fn the_query_is_a_multiset_with_ordered_repeats() {
        let key = RequestKey::of(
            &Interaction::get("/x")
                .query("page", "1")
                .query("only[]", "id")
                .query("only[]", "name"),
        );
        let exact = [("only[]", "id"), ("only[]", "name"), ("page", "1")];
        assert!(key.matches(&ReceivedRequest::unanswered(
            "GET",
            "/x",
            &exact,
            ReceivedBody::Empty
        )));
        let swapped = [("only[]", "name"), ("only[]", "id"), ("page", "1")];
        assert!(!key.matches(&ReceivedRequest::unanswered(
            "GET",
            "/x",
            &swapped,
            ReceivedBody::Empty
        )));
        let superset = [
            ("only[]", "id"),
            ("only[]", "name"),
            ("page", "1"),
            ("q", ""),
        ];
        assert!(!key.matches(&ReceivedRequest::unanswered(
            "GET",
            "/x",
            &superset,
            ReceivedBody::Empty
        )));
        let subset = [("only[]", "id"), ("only[]", "name")];
        assert!(!key.matches(&ReceivedRequest::unanswered(
            "GET",
            "/x",
            &subset,
            ReceivedBody::Empty
        )));
    }

    #[test]
    fn bodies_match_as_json_or_both_absent() {
        let key = RequestKey::of(&Interaction::post("/x").body(json!({"a": 1, "b": [true]})));
        let reordered = ReceivedBody::Json(json!({"b": [true], "a": 1}));
        assert!(key.matches(&ReceivedRequest::unanswered("POST", "/x", &[], reordered)));
        assert!(!key.matches(&ReceivedRequest::unanswered(
            "POST",
            "/x",
            &[],
            ReceivedBody::Empty
        )));
        assert!(!key.matches(&ReceivedRequest::unanswered(
            "POST",
            "/x",
            &[],
            ReceivedBody::Json(json!({"a": 1}))
        )));
        let bodiless = RequestKey::of(&Interaction::delete("/x"));
        assert!(bodiless.matches(&ReceivedRequest::unanswered(
            "DELETE",
            "/x",
            &[],
            ReceivedBody::Empty
        )));
        assert!(!bodiless.matches(&ReceivedRequest::unanswered(
            "DELETE",
            "/x",
            &[],
            ReceivedBody::Json(json!({}))
        )));
    }

    #[test]
    fn recorded_paths_are_encoded_like_sent_ones() {
        let key = RequestKey::of(&Interaction::get("/spaces/mi espacio/ñ"));
        assert_eq!(key.path, "/spaces/mi%20espacio/%C3%B1");
        let key = RequestKey::of(&Interaction::get("/spaces/mi%20espacio"));
        assert_eq!(key.path, "/spaces/mi%20espacio");
    }

    #[test]
    fn summaries_name_the_kind_and_sorted_keys() {
        assert_eq!(json_summary(&json!({"b": 1, "a": 2})), "object {a, b}");
        assert_eq!(json_summary(&json!([1, 2])), "array of 2");
        let r = ReceivedRequest::unanswered(
            "GET",
            "/x",
            &[("a", "1"), ("b", "2")],
            ReceivedBody::Other(vec![1, 2]),
        );
        assert_eq!(r.to_string(), "GET /x?a=1&b=2 (non-JSON body, 2 bytes)");
    }
}
