//! C16: tool errors. `isError: true`, no `structuredContent`, and a compact JSON text
//! `{error: code, message, status?, retryable?, retry_after_s?, ..., platform}`.
//!
//! Codes are stable identifiers a consumer branches on; the message is for humans and says
//! what to do next. The payload says nothing twice: the upstream status appears only when
//! neither the message nor the code says it (a `not_found` keeps its 404, which tells the
//! API's answer from a lookup miss), `retryable` only when retrying may help and the
//! code does not already say so, `retry_after_s` only when the message does not name the
//! wait, and a detail only when the message does not already say it (`candidates` keep only
//! what tells them apart: bare ids when nothing else does). Protocol problems (unknown tool,
//! bad arguments) are not tool errors: they stay JSON-RPC errors (`-32602`, raised by the
//! registry in `server.rs`).

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

/// The stable `error.code` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// 404, or a lookup that matched nothing.
    NotFound,
    /// 401 with a JSON body: token missing, invalid, or its user inactive.
    Unauthorized,
    /// 401/403 with an empty body: a valid token without the permission.
    Forbidden,
    /// 409 (Modyo's default for a failed operation) and other refusals.
    Rejected,
    /// 409 or 422 with a `{field, messages}` list (Modyo's documented validation answer).
    ValidationFailed,
    /// 422 or 400: bad parameters as the API saw them, or a local check of the same kind.
    InvalidParameters,
    /// 429.
    RateLimited,
    /// 5xx, timeout, connection refused.
    UpstreamUnavailable,
    /// A 2xx that cannot be parsed or lacks its root key.
    InvalidUpstreamResponse,
    /// `fields` named a field no content type on the page has.
    UnknownFields,
    /// A heuristic lookup matched more than one entity.
    Ambiguous,
    /// A write whose read-back disagrees with what was sent (C7).
    PersistedMismatch,
    /// A local file-system operation failed or was refused.
    LocalIo,
}

impl ErrorCode {
    /// The one upstream status the code stands for, when it stands for one: the status is
    /// then not repeated. A `not_found` does not: its 404 tells the API's answer from a lookup
    /// that matched nothing (no status), which its rewritten message no longer says.
    fn implied_status(self) -> Option<u16> {
        match self {
            ErrorCode::Unauthorized => Some(401),
            ErrorCode::RateLimited => Some(429),
            _ => None,
        }
    }

    /// Whether the code alone says that retrying the same call may help.
    fn implies_retry(self) -> bool {
        self == ErrorCode::RateLimited
    }

    /// The wire name of the code.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "not_found",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Rejected => "rejected",
            ErrorCode::ValidationFailed => "validation_failed",
            ErrorCode::InvalidParameters => "invalid_parameters",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::UpstreamUnavailable => "upstream_unavailable",
            ErrorCode::InvalidUpstreamResponse => "invalid_upstream_response",
            ErrorCode::UnknownFields => "unknown_fields",
            ErrorCode::Ambiguous => "ambiguous",
            ErrorCode::PersistedMismatch => "persisted_mismatch",
            ErrorCode::LocalIo => "local_io",
        }
    }
}

/// A failure the model should read: carried to the client as a C16 error result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError(Box<Inner>);

#[derive(Debug, Clone, PartialEq)]
struct Inner {
    code: ErrorCode,
    message: String,
    status: Option<u16>,
    retryable: Option<bool>,
    retry_after_s: Option<u64>,
    details: Map<String, Value>,
}

impl ToolError {
    /// An error with a code and a human message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError(Box::new(Inner {
            code,
            message: message.into(),
            status: None,
            retryable: None,
            retry_after_s: None,
            details: Map::new(),
        }))
    }

    /// `not_found`, naming what was looked for.
    pub fn not_found(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::NotFound, message)
    }

    /// `invalid_parameters`, for a local check the API would have failed or ignored.
    pub fn invalid_parameters(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::InvalidParameters, message)
    }

    /// The upstream HTTP status.
    pub fn with_status(mut self, status: u16) -> ToolError {
        self.0.status = Some(status);
        self
    }

    /// Whether retrying the same call may succeed.
    pub fn retryable(mut self, retryable: bool) -> ToolError {
        self.0.retryable = Some(retryable);
        self
    }

    /// Seconds to wait before retrying (from `Retry-After`).
    pub fn retry_after(mut self, seconds: u64) -> ToolError {
        self.0.retry_after_s = Some(seconds);
        self
    }

    /// An extra key in the `error` object, for what the message does not say (`assignees`,
    /// `mismatches`, ...).
    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> ToolError {
        self.0.details.insert(key.to_owned(), value.into());
        self
    }

    /// The `candidates` of an `ambiguous` lookup: each one's `id`, and of its other keys only
    /// those whose values differ between the candidates (a key they all share, such as the
    /// name they were matched by, tells none of them apart and is already in the message).
    pub fn candidates(self, candidates: Vec<Value>) -> ToolError {
        let shared: Vec<String> = match candidates.first().and_then(Value::as_object) {
            Some(first) if candidates.len() > 1 => first
                .iter()
                .filter(|(key, value)| {
                    key.as_str() != "id"
                        && candidates
                            .iter()
                            .all(|c| c.get(key.as_str()) == Some(*value))
                })
                .map(|(key, _)| key.clone())
                .collect(),
            _ => Vec::new(),
        };
        let candidates = candidates
            .into_iter()
            .map(|mut candidate| {
                if let Value::Object(keys) = &mut candidate {
                    keys.retain(|key, _| !shared.contains(key));
                }
                candidate
            })
            .collect();
        self.detail("candidates", Value::Array(candidates))
    }

    /// Prefixes the message with what the tool was doing ("space 'blog': ...").
    pub fn context(mut self, context: impl fmt::Display) -> ToolError {
        self.0.message = format!("{context}: {}", self.0.message);
        self
    }

    /// Replaces the message, keeping code, status and details.
    pub fn with_message(mut self, message: impl Into<String>) -> ToolError {
        self.0.message = message.into();
        self
    }

    /// The code.
    pub fn code(&self) -> ErrorCode {
        self.0.code
    }

    /// The human message.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The upstream status, if any.
    pub fn status(&self) -> Option<u16> {
        self.0.status
    }

    /// Whether retrying may help, when said.
    pub fn is_retryable(&self) -> Option<bool> {
        self.0.retryable
    }

    /// How long to wait before retrying, when the API said.
    pub fn retry_after_s(&self) -> Option<u64> {
        self.0.retry_after_s
    }

    /// Whether the message names the upstream status as the server words it (`answered 404`,
    /// `was rejected (409)`, `rate limited (429)`).
    fn names_status(&self, status: u16) -> bool {
        let message = &self.0.message;
        message.contains(&format!("answered {status}")) || message.contains(&format!("({status})"))
    }

    /// A detail as it was given (the `candidates` with their `id` objects), before rendering.
    pub fn detail_value(&self, key: &str) -> Option<&Value> {
        self.0.details.get(key)
    }

    /// The keys of the C16 payload before `platform`, in order: `error` (the code),
    /// `message`, the upstream `status` unless the message names it or the code stands for
    /// it, `retryable: true` when retrying may help and the code does not say so already,
    /// `retry_after_s` when the API said and the message does not name the wait, then the
    /// details (`candidates` that carry nothing but an id as bare ids).
    pub(crate) fn to_value(&self) -> Value {
        let mut error = Map::new();
        error.insert("error".into(), Value::from(self.0.code.as_str()));
        error.insert("message".into(), Value::from(self.0.message.clone()));
        let implied = self.0.code.implied_status();
        if let Some(status) = self
            .0
            .status
            .filter(|s| !self.names_status(*s) && implied != Some(*s))
        {
            error.insert("status".into(), Value::from(status));
        }
        if self.0.retryable == Some(true) && !self.0.code.implies_retry() {
            error.insert("retryable".into(), Value::from(true));
        }
        if let Some(seconds) = self.0.retry_after_s.filter(|s| !self.names_wait(*s)) {
            error.insert("retry_after_s".into(), Value::from(seconds));
        }
        for (key, value) in &self.0.details {
            if RESERVED.contains(&key.as_str()) {
                continue;
            }
            let value = match key.as_str() {
                "candidates" => bare_ids(value),
                _ => value.clone(),
            };
            error.entry(key.clone()).or_insert(value);
        }
        Value::Object(error)
    }

    /// Whether the message names the wait before a retry as the server words it (`retry
    /// after 30s`).
    fn names_wait(&self, seconds: u64) -> bool {
        self.0.message.contains(&format!("retry after {seconds}s"))
    }
}

/// Keys a detail cannot take: the payload's own, rendered or left out on purpose.
const RESERVED: [&str; 7] = [
    "error",
    "code",
    "message",
    "status",
    "retryable",
    "retry_after_s",
    "platform",
];

/// Candidates that carry nothing but their `id` as the bare ids (`[504, 505]`); others as
/// they are.
fn bare_ids(candidates: &Value) -> Value {
    match candidates {
        Value::Array(items)
            if items.iter().all(|c| {
                c.as_object()
                    .is_some_and(|o| o.len() == 1 && o.contains_key("id"))
            }) =>
        {
            Value::Array(items.iter().filter_map(|c| c.get("id").cloned()).collect())
        }
        other => other.clone(),
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.code.as_str(), self.0.message)
    }
}

impl std::error::Error for ToolError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_code_comes_first_and_nothing_the_message_or_code_says_is_repeated() {
        let e = ToolError::new(
            ErrorCode::RateLimited,
            "GET /x was rate limited (429): slow down; retry after 7s",
        )
        .with_status(429)
        .retryable(true)
        .retry_after(7);
        assert_eq!(
            e.to_value().to_string(),
            r#"{"error":"rate_limited","message":"GET /x was rate limited (429): slow down; retry after 7s"}"#
        );
        assert_eq!(e.status(), Some(429), "kept for the server's own decisions");
        assert_eq!(
            e.retry_after_s(),
            Some(7),
            "kept for the server's own decisions"
        );
        let unnamed = ToolError::new(ErrorCode::RateLimited, "GET /x: slow down")
            .with_status(429)
            .retryable(true)
            .retry_after(7);
        assert_eq!(
            unnamed.to_value().to_string(),
            r#"{"error":"rate_limited","message":"GET /x: slow down","retry_after_s":7}"#,
            "the wait is kept when the message does not name it"
        );
    }

    #[test]
    fn retryable_appears_only_when_retrying_may_help_and_the_code_does_not_say_so() {
        let e = ToolError::not_found("GET /x answered 404").with_status(404);
        for e in [e.clone(), e.retryable(false)] {
            assert_eq!(
                e.to_value(),
                json!({"error": "not_found", "message": "GET /x answered 404"})
            );
        }
        let down = ToolError::new(ErrorCode::UpstreamUnavailable, "GET /x answered 503")
            .with_status(503)
            .retryable(true);
        assert_eq!(down.to_value()["retryable"], true);
    }

    #[test]
    fn the_status_appears_only_when_neither_the_message_nor_the_code_says_it() {
        let named = ToolError::new(ErrorCode::Rejected, "POST /x was rejected (409): taken")
            .with_status(409);
        assert_eq!(named.to_value().get("status"), None);
        let rewritten =
            ToolError::not_found("entry 9 not found; call content-entries-list").with_status(404);
        assert_eq!(
            rewritten.to_value()["status"],
            404,
            "the API's 404, not a lookup miss"
        );
        let implied = ToolError::new(ErrorCode::RateLimited, "slow down").with_status(429);
        assert_eq!(
            implied.to_value().get("status"),
            None,
            "rate_limited is the 429"
        );
        let other =
            ToolError::new(ErrorCode::Forbidden, "the token lacks the permission").with_status(403);
        assert_eq!(
            other.to_value()["status"],
            403,
            "forbidden is a 401 or a 403"
        );
    }

    #[test]
    fn candidates_keep_their_id_and_what_tells_them_apart() {
        let e = ToolError::new(
            ErrorCode::Ambiguous,
            "site 'Landing' matches 2 sites by name",
        )
        .candidates(vec![
            json!({"id": 15, "name": "Landing", "host": "a"}),
            json!({"id": 16, "name": "Landing", "host": "b"}),
        ]);
        assert_eq!(
            e.to_value()["candidates"],
            json!([{"id": 15, "host": "a"}, {"id": 16, "host": "b"}])
        );
        let e = ToolError::new(ErrorCode::Ambiguous, "group 'REVISORES' matches 2 groups")
            .candidates(vec![
                json!({"id": 7, "name": "Revisores"}),
                json!({"id": 8, "name": "revisores"}),
                json!({"id": 9}),
            ]);
        assert_eq!(
            e.to_value()["candidates"],
            json!([{"id": 7, "name": "Revisores"}, {"id": 8, "name": "revisores"}, {"id": 9}]),
            "a key one candidate lacks tells it apart"
        );
        let one = ToolError::not_found("x").candidates(vec![json!({"id": 1, "name": "a"})]);
        assert_eq!(
            one.to_value()["candidates"],
            json!([{"id": 1, "name": "a"}])
        );
    }

    #[test]
    fn candidates_told_apart_by_nothing_but_their_id_are_bare_ids() {
        let e = ToolError::new(
            ErrorCode::Ambiguous,
            "menu 'Footer' matches 2 menus by name",
        )
        .candidates(vec![
            json!({"id": 302, "name": "Footer"}),
            json!({"id": 303, "name": "Footer"}),
        ]);
        assert_eq!(e.to_value()["candidates"], json!([302, 303]));
        assert_eq!(
            e.detail_value("candidates"),
            Some(&json!([{"id": 302}, {"id": 303}])),
            "kept as objects for the server's own reads"
        );
    }

    #[test]
    fn details_never_override_the_standard_keys() {
        let e = ToolError::not_found("x")
            .detail("code", "evil")
            .detail("platform", "evil")
            .detail("error", "evil")
            .detail("tried", json!(["id"]));
        assert_eq!(
            e.to_value(),
            json!({"error": "not_found", "message": "x", "tried": ["id"]})
        );
    }
}
