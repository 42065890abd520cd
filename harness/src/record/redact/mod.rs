//! Redaction: what a cassette stores in place of the secrets a live exchange carried.
//!
//! Everything the recorder writes (cassettes, reports, logs) goes through one [`Redactor`]
//! first. It replaces, with stable placeholders that replay still matches:
//!
//! - the value of every sensitive key in query strings, JSON bodies (at any depth, embedded
//!   JSON text included), scenario arguments and `key=value` pairs inside any text (URL query
//!   strings, presigned URLs, HTML with `&amp;`), with [`PLACEHOLDER`]. A key is sensitive when,
//!   without case, `_`, `-` or a trailing `[]`, it is a known key ([`DEFAULT_KEYS`], extended
//!   with [`Redactor::key`]) or names a secret by its last word (`*token`, `*secret`,
//!   `*signature`, `*apikey`, `*sessionid`, `jwt`...): the words, and the Modyo keys that only
//!   look like secrets and stay readable (`token_type`, `tokens_count`, `token_endpoint`...),
//!   are in [`keys`];
//! - every literal secret ([`Redactor::secret`]: the value of `MODYO_TOKEN`) wherever it
//!   appears (path, query, bodies, headers) in any URL spelling: as it is, form-encoded,
//!   `%20`-encoded, with upper- or lower-case hex (see `redact/literal.rs`);
//! - the account host when asked ([`Redactor::host`]): `https://acme.modyo.cloud` becomes
//!   [`HOST_ORIGIN_PLACEHOLDER`] and the bare `acme.modyo.cloud` [`HOST_PLACEHOLDER`].
//!
//! Request headers are never stored; response headers only from a short allow-list
//! ([`STORED_RESPONSE_HEADERS`]). Redaction is idempotent: redacting a redacted value changes
//! nothing, so a request redacted at record time and one redacted at replay time are equal.

pub mod keys;
mod literal;

use std::fmt;

use serde_json::Value;
use url::Url;

pub use keys::{DEFAULT_KEYS, SENSITIVE_ENDINGS};
use keys::{names_a_secret, normalize};
use literal::Literal;

use modyo_replay::cassette::{
    Interaction, OrderedMap, RecordedRequest, RecordedResponse, ResponseBody,
};

/// What a redacted value becomes.
pub const PLACEHOLDER: &str = "<redacted>";

/// What a redacted `Authorization` header value would become (it is never stored at all).
pub const AUTHORIZATION_PLACEHOLDER: &str = "Bearer <redacted>";

/// What the account origin (`https://acme.modyo.cloud`) becomes with host redaction.
pub const HOST_ORIGIN_PLACEHOLDER: &str = "https://account.example";

/// What the bare account host (`acme.modyo.cloud`) becomes with host redaction.
pub const HOST_PLACEHOLDER: &str = "account.example";

/// The response headers a cassette keeps (everything else, `set-cookie` first, is dropped).
pub const STORED_RESPONSE_HEADERS: [&str; 4] = [
    "content-type",
    "retry-after",
    "location",
    "content-disposition",
];

/// Replaces secrets with placeholders. Its `Debug` never shows a secret. The default redacts
/// nothing; [`Redactor::new`] has the default keys and words.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Normalized sensitive keys.
    keys: Vec<String>,
    /// Whether a key that ends with a word of [`SENSITIVE_ENDINGS`] is sensitive too.
    words: bool,
    /// Literal secrets, longest first, each found in any URL spelling.
    secrets: Vec<Literal>,
    /// `(origin, host)` of the account, when host redaction is on.
    host: Option<(String, String)>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field("keys", &self.keys)
            .field("words", &self.words)
            .field(
                "secrets",
                &format_args!("[{} redacted]", self.secrets.len()),
            )
            .field("host", &self.host.is_some())
            .finish()
    }
}

impl Redactor {
    /// A redactor with the [`DEFAULT_KEYS`] and the [`SENSITIVE_ENDINGS`], no literal secret
    /// and no host redaction.
    pub fn new() -> Redactor {
        Redactor {
            keys: DEFAULT_KEYS.iter().map(|k| normalize(k)).collect(),
            words: true,
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

    /// Replaces this literal value wherever it appears, in any URL spelling (as it is,
    /// form-encoded, `%20`-encoded, either case of hex). An empty value is ignored.
    pub fn secret(mut self, value: &str) -> Redactor {
        if value.is_empty() || self.secrets.iter().any(|s| s.as_str() == value) {
            return self;
        }
        self.secrets.push(Literal::new(value));
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

    /// Whether values under `key` are secrets (see [`keys`]).
    pub fn is_sensitive_key(&self, key: &str) -> bool {
        let key = normalize(key);
        !key.is_empty() && (self.keys.contains(&key) || (self.words && names_a_secret(&key)))
    }

    /// Whether `text` contains a literal secret, in any URL spelling.
    pub fn contains_secret(&self, text: &str) -> bool {
        self.secrets.iter().any(|s| s.is_in(text.as_bytes()))
    }

    /// The text with literal secrets, the account host and the values of sensitive
    /// `key=value` pairs replaced.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            if let Some(replaced) = secret.replace(out.as_bytes(), PLACEHOLDER.as_bytes()) {
                // A match starts and ends on character boundaries of valid UTF-8 (see
                // `literal`), so this never loses a character.
                out = String::from_utf8(replaced)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
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
            if let Some(replaced) = secret.replace(&out, PLACEHOLDER.as_bytes()) {
                out = replaced;
            }
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

    /// Replaces the values of sensitive `key=value` pairs inside `text`: URL query strings
    /// (`...?token=abc&page=1` becomes `...?token=<redacted>&page=1`), HTML-escaped ones
    /// (`&amp;X-Amz-Signature=...`), form bodies and cookies (`session_id=abc; Path=/`). A key
    /// is the run of key characters (ASCII letters, digits, `_-.[]`) just before an `=`; its
    /// value runs to the next `&`, `;`, `#`, quote, `<`, `>` or whitespace.
    fn url_params(&self, text: &str) -> String {
        if !text.contains('=') {
            return text.to_owned();
        }
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        let mut from = 0;
        while let Some(eq) = text[from..].find('=').map(|i| from + i) {
            from = eq + 1;
            let mut start = eq;
            while start > copied && is_key_byte(bytes[start - 1]) {
                start -= 1;
            }
            if start == eq || !self.is_sensitive_key(&text[start..eq]) {
                continue;
            }
            let value = &text[eq + 1..];
            let end = value
                .find(|c: char| {
                    matches!(c, '&' | ';' | '#' | '"' | '\'' | '<' | '>') || c.is_whitespace()
                })
                .unwrap_or(value.len());
            if end > 0 {
                out.push_str(&text[copied..=eq]);
                out.push_str(PLACEHOLDER);
                copied = eq + 1 + end;
                from = copied;
            }
        }
        out.push_str(&text[copied..]);
        out
    }
}

/// A byte of a `key` in `key=value` (all ASCII: a multi-byte character ends a key).
fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'[' | b']' | b'.')
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
        for spelling in [
            "s3cr3t%2Ft0ken%2Bvalue",
            "s3cr3t%2ft0ken%2bvalue",
            "s3cr3t/t0ken%2bvalue",
        ] {
            assert_eq!(
                r.text(&format!("a{spelling}b")),
                "a<redacted>b",
                "{spelling}"
            );
            assert!(r.contains_secret(spelling), "{spelling}");
        }
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
    fn sensitive_pairs_are_found_in_any_text() {
        let r = Redactor::new();
        for (text, redacted) in [
            (
                "<a href=\"https://x/a?b=1&amp;X-Amz-Signature=ab12\">",
                "<a href=\"https://x/a?b=1&amp;X-Amz-Signature=<redacted>\">",
            ),
            (
                "access_token=abc&token_type=bearer&expires_in=60",
                "access_token=<redacted>&token_type=bearer&expires_in=60",
            ),
            ("session_id=abc; Path=/", "session_id=<redacted>; Path=/"),
            (
                "see https://s3.example/f?X-Amz-Date=1&X-Amz-Signature=ff00 now",
                "see https://s3.example/f?X-Amz-Date=1&X-Amz-Signature=<redacted> now",
            ),
            ("ñsignature=abc", "ñsignature=<redacted>"),
            ("a==b ?token= &page=2", "a==b ?token= &page=2"),
            ("tokens=3&token_type=x", "tokens=3&token_type=x"),
        ] {
            assert_eq!(r.text(text), redacted, "{text}");
            assert_eq!(r.text(redacted), redacted, "idempotent: {redacted}");
        }
        assert_eq!(Redactor::default().text("token=abc"), "token=abc");
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
