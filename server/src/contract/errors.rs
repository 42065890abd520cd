//! C16: tool errors. `isError: true`, no `structuredContent`, and a compact JSON text with
//! `platform` and `error {code, message, status?, retryable?, retry_after_s?}`.
//!
//! Codes are stable identifiers a consumer branches on; the message is for humans and says
//! what to do next. Protocol problems (unknown tool, bad arguments) are not tool errors: they
//! stay JSON-RPC errors (`-32602`, raised by the registry in `server.rs`).

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

    /// An extra key in the `error` object (`available`, `candidates`, `fields`, ...).
    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> ToolError {
        self.0.details.insert(key.to_owned(), value.into());
        self
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

    /// The `error` object of the C16 payload.
    pub(crate) fn to_value(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), Value::from(self.0.code.as_str()));
        error.insert("message".into(), Value::from(self.0.message.clone()));
        if let Some(status) = self.0.status {
            error.insert("status".into(), Value::from(status));
        }
        if let Some(retryable) = self.0.retryable {
            error.insert("retryable".into(), Value::from(retryable));
        }
        if let Some(seconds) = self.0.retry_after_s {
            error.insert("retry_after_s".into(), Value::from(seconds));
        }
        for (key, value) in &self.0.details {
            error.entry(key.clone()).or_insert_with(|| value.clone());
        }
        Value::Object(error)
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
    fn error_object_has_code_first_and_only_known_keys() {
        let e = ToolError::new(ErrorCode::RateLimited, "slow down")
            .with_status(429)
            .retryable(true)
            .retry_after(7);
        assert_eq!(
            e.to_value().to_string(),
            r#"{"code":"rate_limited","message":"slow down","status":429,"retryable":true,"retry_after_s":7}"#
        );
    }

    #[test]
    fn details_never_override_the_standard_keys() {
        let e = ToolError::not_found("x")
            .detail("code", "evil")
            .detail("tried", json!(["id"]));
        assert_eq!(
            e.to_value(),
            json!({"code": "not_found", "message": "x", "tried": ["id"]})
        );
    }
}
