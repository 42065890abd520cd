//! Redaction: what a cassette stores in place of the secrets a live exchange carried.
//!
//! Everything the recorder writes (cassettes, reports, logs) goes through one [`Redactor`]
//! first. It replaces, with stable placeholders that replay still matches:
//!
//! - the value of every sensitive key (case and `_`/`-` ignored, a trailing `[]` ignored) in
//!   query strings, JSON bodies, scenario arguments and URL query strings inside any text,
//!   with [`PLACEHOLDER`] (`token`, `access_token`, `api_key`, `password`, `secret`,
//!   `delivery_token`... see [`DEFAULT_KEYS`], extended with [`Redactor::key`]);
//! - every literal secret ([`Redactor::secret`]: the value of `MODYO_TOKEN`, and its
//!   URL-encoded form) wherever it appears: path, query, bodies, headers;
//! - the account host when asked ([`Redactor::host`]): `https://acme.modyo.cloud` becomes
//!   [`HOST_ORIGIN_PLACEHOLDER`] and the bare `acme.modyo.cloud` [`HOST_PLACEHOLDER`].
//!
//! Request headers are never stored; response headers only from a short allow-list
//! ([`STORED_RESPONSE_HEADERS`]). Redaction is idempotent: redacting a redacted value changes
//! nothing, so a request redacted at record time and one redacted at replay time are equal.

use std::fmt;

use serde_json::Value;
use url::Url;

use crate::cassette::{Interaction, OrderedMap, RecordedRequest, RecordedResponse, ResponseBody};

/// What a redacted value becomes.
pub const PLACEHOLDER: &str = "<redacted>";

/// What a redacted `Authorization` header value would become (it is never stored at all).
pub const AUTHORIZATION_PLACEHOLDER: &str = "Bearer <redacted>";

/// What the account origin (`https://acme.modyo.cloud`) becomes with host redaction.
pub const HOST_ORIGIN_PLACEHOLDER: &str = "https://account.example";

/// What the bare account host (`acme.modyo.cloud`) becomes with host redaction.
pub const HOST_PLACEHOLDER: &str = "account.example";

/// Keys whose values are secrets by default (compared without case, `_` or `-`).
pub const DEFAULT_KEYS: [&str; 15] = [
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "delivery_token",
    "api_key",
    "password",
    "password_confirmation",
    "current_password",
    "secret",
    "client_secret",
    "private_key",
    "authorization",
    "cookie",
    "set_cookie",
];

/// The response headers a cassette keeps (everything else, `set-cookie` first, is dropped).
pub const STORED_RESPONSE_HEADERS: [&str; 4] = [
    "content-type",
    "retry-after",
    "location",
    "content-disposition",
];

/// Replaces secrets with placeholders. Its `Debug` never shows a secret.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Normalized sensitive keys.
    keys: Vec<String>,
    /// Literal secrets (and their encoded forms), longest first.
    secrets: Vec<String>,
    /// `(origin, host)` of the account, when host redaction is on.
    host: Option<(String, String)>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field("keys", &self.keys)
            .field(
                "secrets",
                &format_args!("[{} redacted]", self.secrets.len()),
            )
            .field("host", &self.host.is_some())
            .finish()
    }
}

/// `Access-Token`, `accessToken`, `access_token[]` all normalize to `accesstoken`.
fn normalize(key: &str) -> String {
    key.trim_end_matches("[]")
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

impl Redactor {
    /// A redactor with the [`DEFAULT_KEYS`], no literal secret and no host redaction.
    pub fn new() -> Redactor {
        Redactor {
            keys: DEFAULT_KEYS.iter().map(|k| normalize(k)).collect(),
            secrets: Vec::new(),
            host: None,
        }
    }

    /// Also treats `key` as sensitive.
    pub fn key(mut self, key: &str) -> Redactor {
        let key = normalize(key);
        if !key.is_empty() && !self.keys.contains(&key) {
            self.keys.push(key);
        }
        self
    }

    /// Replaces this literal value (and its URL-encoded form) wherever it appears. An empty
    /// value is ignored.
    pub fn secret(mut self, value: &str) -> Redactor {
        if value.is_empty() {
            return self;
        }
        let encoded: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
        for form in [value.to_owned(), encoded] {
            if !self.secrets.contains(&form) {
                self.secrets.push(form);
            }
        }
        // Longest first, so a secret that contains another is replaced whole.
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        self
    }

    /// Replaces the origin and the bare host of `account` with placeholders.
    pub fn host(mut self, account: &Url) -> Redactor {
        if let Some(host) = account.host_str().filter(|h| !h.is_empty()) {
            let origin = account.origin().ascii_serialization();
            self.host = Some((origin, host.to_owned()));
        }
        self
    }

    /// Whether values under `key` are secrets.
    pub fn is_sensitive_key(&self, key: &str) -> bool {
        let key = normalize(key);
        !key.is_empty() && self.keys.contains(&key)
    }

    /// Whether `text` contains a literal secret.
    pub fn contains_secret(&self, text: &str) -> bool {
        self.secrets.iter().any(|s| text.contains(s.as_str()))
    }

    /// The text with literal secrets, the account host and sensitive URL query parameters
    /// replaced.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), PLACEHOLDER);
            }
        }
        if let Some((origin, host)) = &self.host {
            out = out.replace(origin.as_str(), HOST_ORIGIN_PLACEHOLDER);
            out = out.replace(host.as_str(), HOST_PLACEHOLDER);
        }
        self.url_params(&out)
    }

    /// Raw bytes with literal secrets replaced (and, when they are UTF-8, everything
    /// [`Redactor::text`] replaces).
    pub fn bytes(&self, bytes: &[u8]) -> Vec<u8> {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return self.text(text).into_bytes();
        }
        let mut out = bytes.to_vec();
        for secret in &self.secrets {
            out = replace_bytes(&out, secret.as_bytes(), PLACEHOLDER.as_bytes());
        }
        out
    }

    /// A JSON value with the values of sensitive keys replaced and every string redacted.
    pub fn json(&self, value: &Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let v = if self.is_sensitive_key(k) {
                            scrub(v)
                        } else {
                            self.json(v)
                        };
                        (self.text(k), v)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.json(v)).collect()),
            Value::String(s) => Value::String(self.string(s)),
            other => other.clone(),
        }
    }

    /// A JSON string value: JSON embedded in it (a tool result's text, a field holding
    /// serialized JSON) is redacted as JSON, so its keys count too; anything else as text.
    fn string(&self, s: &str) -> String {
        let trimmed = s.trim_start();
        if (trimmed.starts_with('{') || trimmed.starts_with('['))
            && let Ok(embedded) = serde_json::from_str::<Value>(s)
        {
            let redacted = self.json(&embedded);
            if redacted != embedded {
                return serde_json::to_string(&redacted).unwrap_or_else(|_| self.text(s));
            }
        }
        self.text(s)
    }

    /// The request as a cassette stores it: path and query redacted, no headers, body
    /// redacted.
    pub fn request(&self, request: &RecordedRequest) -> RecordedRequest {
        let mut out = RecordedRequest::new(request.method.clone(), self.text(&request.path));
        for (key, value) in request.query.iter() {
            for v in value.values() {
                let v = if self.is_sensitive_key(key) && !v.is_empty() {
                    PLACEHOLDER.to_owned()
                } else {
                    self.text(v)
                };
                out = out.query(self.text(key), v);
            }
        }
        out.body = request.body.as_ref().map(|b| self.json(b));
        out
    }

    /// The response as a cassette stores it: allow-listed headers (values redacted), body
    /// redacted in whichever form it has.
    pub fn response(&self, response: &RecordedResponse) -> RecordedResponse {
        let body = match &response.body {
            ResponseBody::Empty => ResponseBody::Empty,
            ResponseBody::Json(json) => ResponseBody::Json(self.json(json)),
            ResponseBody::Text(text) => ResponseBody::Text(self.text(text)),
            ResponseBody::Bytes(bytes) => ResponseBody::Bytes(self.bytes(bytes)),
        };
        let headers: OrderedMap<String> = response
            .headers
            .iter()
            .filter(|(name, _)| {
                STORED_RESPONSE_HEADERS
                    .iter()
                    .any(|kept| name.eq_ignore_ascii_case(kept))
            })
            .map(|(name, value)| (name.to_ascii_lowercase(), self.text(value)))
            .collect();
        RecordedResponse {
            status: response.status,
            headers,
            body,
            delay_ms: response.delay_ms,
        }
    }

    /// Both halves of an interaction.
    pub fn interaction(&self, interaction: &Interaction) -> Interaction {
        Interaction::new(
            self.request(&interaction.request),
            self.response(&interaction.response),
        )
    }

    /// Replaces the values of sensitive parameters in URL query strings inside `text`
    /// (`...?token=abc&page=1` becomes `...?token=<redacted>&page=1`).
    fn url_params(&self, text: &str) -> String {
        if !text.contains('=') {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(['?', '&']) {
            out.push_str(&rest[..=at]);
            rest = &rest[at + 1..];
            let key_len = rest
                .find(|c: char| {
                    !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '[' | ']' | '.'))
                })
                .unwrap_or(rest.len());
            let (key, after) = rest.split_at(key_len);
            if !after.starts_with('=') || !self.is_sensitive_key(key) {
                continue;
            }
            out.push_str(key);
            out.push('=');
            let value = &after[1..];
            let end = value
                .find(|c: char| {
                    matches!(c, '&' | '#' | '"' | '\'' | '<' | '>') || c.is_whitespace()
                })
                .unwrap_or(value.len());
            if end > 0 {
                out.push_str(PLACEHOLDER);
            }
            rest = &value[end..];
        }
        out.push_str(rest);
        out
    }
}

/// Under a sensitive key: every string or number becomes the placeholder (empty strings,
/// booleans and nulls say nothing and stay).
fn scrub(value: &Value) -> Value {
    match value {
        Value::String(s) if s.is_empty() => value.clone(),
        Value::String(_) | Value::Number(_) => Value::String(PLACEHOLDER.to_owned()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), scrub(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(scrub).collect()),
        other => other.clone(),
    }
}

/// Whether a value found under a sensitive key is a placeholder (or says nothing).
pub(crate) fn is_placeholder(value: &Value) -> bool {
    match value {
        Value::String(s) => {
            s.is_empty()
                || s == PLACEHOLDER
                || s == AUTHORIZATION_PLACEHOLDER
                || s.chars().all(|c| c == '*')
        }
        Value::Number(_) => false,
        Value::Object(map) => map.values().all(is_placeholder),
        Value::Array(items) => items.iter().all(is_placeholder),
        Value::Bool(_) | Value::Null => true,
    }
}

fn replace_bytes(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return haystack.to_vec();
    }
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SECRET: &str = "s3cr3t/t0ken+value";

    fn redactor() -> Redactor {
        Redactor::new()
            .secret(SECRET)
            .host(&Url::parse("https://acme.modyo.cloud/").expect("url"))
    }

    #[test]
    fn sensitive_keys_ignore_case_separators_and_brackets() {
        let r = Redactor::new().key("X-Session");
        for key in [
            "token",
            "Access-Token",
            "accessToken",
            "api_key[]",
            "PASSWORD",
            "xsession",
        ] {
            assert!(r.is_sensitive_key(key), "{key}");
        }
        for key in ["tokens", "name", "uid", ""] {
            assert!(!r.is_sensitive_key(key), "{key}");
        }
    }

    #[test]
    fn json_values_under_sensitive_keys_become_placeholders() {
        let r = redactor();
        let body = json!({
            "user": {"name": "ana", "password": "hunter2", "token": {"value": 12345}},
            "delivery_token": "",
            "secret": null,
            "note": format!("uses {SECRET} at https://acme.modyo.cloud/x and acme.modyo.cloud"),
            "preview": "https://cdn.example/p?token=abc&page=2#top",
            "text": "{\"data\":{\"api_key\":\"k\",\"n\":1}}",
            "plain": "{not json",
        });
        let out = r.json(&body);
        assert_eq!(
            out,
            json!({
                "user": {"name": "ana", "password": PLACEHOLDER, "token": {"value": PLACEHOLDER}},
                "delivery_token": "",
                "secret": null,
                "note": "uses <redacted> at https://account.example/x and account.example",
                "preview": "https://cdn.example/p?token=<redacted>&page=2#top",
                "text": "{\"data\":{\"api_key\":\"<redacted>\",\"n\":1}}",
                "plain": "{not json",
            })
        );
        assert_eq!(r.json(&out), out, "idempotent");
    }

    #[test]
    fn literal_secrets_are_replaced_in_every_form() {
        let r = redactor();
        let encoded: String = url::form_urlencoded::byte_serialize(SECRET.as_bytes()).collect();
        assert_ne!(encoded, SECRET);
        assert_eq!(r.text(&format!("a{encoded}b")), "a<redacted>b");
        let bytes = [&[0xff, 0x00][..], SECRET.as_bytes(), &[0xfe]].concat();
        let out = r.bytes(&bytes);
        assert!(!out.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()));
        assert!(r.contains_secret(&format!("x{SECRET}")));
        assert!(!format!("{r:?}").contains(SECRET));
    }

    #[test]
    fn requests_lose_headers_and_secrets_responses_keep_only_allowed_headers() {
        let r = redactor();
        let request = Interaction::get(format!("/api/{SECRET}/x"))
            .query("token", "abc")
            .query("page", "1")
            .query("q", SECRET)
            .header("Authorization", format!("Bearer {SECRET}"))
            .body(json!({"api_key": "k"}));
        let out = r.request(&request);
        assert_eq!(out.path, "/api/<redacted>/x");
        assert!(out.headers.is_empty());
        let query: Vec<(&str, Vec<String>)> = out
            .query
            .iter()
            .map(|(k, v)| (k, v.values().to_vec()))
            .collect();
        assert_eq!(
            query,
            [
                ("token", vec![PLACEHOLDER.to_owned()]),
                ("page", vec!["1".to_owned()]),
                ("q", vec![PLACEHOLDER.to_owned()])
            ]
        );
        assert_eq!(out.body, Some(json!({"api_key": PLACEHOLDER})));
        assert_eq!(r.request(&out), out, "idempotent");

        let response = RecordedResponse::text(302, "moved")
            .header("Set-Cookie", "session=abc")
            .header("Location", "https://acme.modyo.cloud/login?token=abc")
            .header("X-Request-Id", "42");
        let out = r.response(&response);
        let headers: Vec<(&str, &String)> = out.headers.iter().collect();
        assert_eq!(
            headers,
            [(
                "location",
                &"https://account.example/login?token=<redacted>".to_owned()
            )]
        );
    }

    #[test]
    fn placeholders_are_recognized() {
        for ok in [
            json!("<redacted>"),
            json!(""),
            json!(null),
            json!("****"),
            json!({"a": "<redacted>"}),
        ] {
            assert!(is_placeholder(&ok), "{ok}");
        }
        for bad in [json!("abc"), json!(1), json!(["x"])] {
            assert!(!is_placeholder(&bad), "{bad}");
        }
    }
}
