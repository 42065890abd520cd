//! What can go wrong between the server and Modyo, and how each case maps to a C16 code.
//!
//! The mapping follows the error table of `server/CONTRACT.md`: 401 with a JSON body is `unauthorized`, 401
//! or 403 with an empty body is `forbidden`, 404 `not_found`, 409 `rejected`, 400/422
//! `invalid_parameters`; a 409 or 422 whose body lists `{field, messages}` (Modyo's documented
//! validation answer is a 422 with that list) is `validation_failed` with the fields, whichever of
//! the two statuses carried it; 429 `rate_limited` (with
//! `retry_after_s`), 5xx / timeout / connection failure `upstream_unavailable`, and a 2xx that
//! cannot be parsed or lacks its root `invalid_upstream_response`, as is an answer past the body
//! cap or a redirect the client refused (to another origin, or too many). A request the client
//! would not send because its URL is too long is the caller's `invalid_parameters`. Messages
//! name the method and path, never the configured host or the token (a refused redirect names
//! the origin it pointed to).

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::contract::{ErrorCode, ToolError};

/// The client could not be built (bad token characters, TLS setup).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct SetupError(pub(crate) String);

/// A failed call to the Modyo API.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum CmsError {
    /// A non-2xx answer.
    #[error("{method} {path} answered {status}")]
    Status {
        /// Request method.
        method: Method,
        /// Request path.
        path: String,
        /// HTTP status.
        status: u16,
        /// The body, when it was JSON.
        body: Option<Value>,
        /// The start of the body, when it was not JSON (an HTML error page).
        text: Option<String>,
        /// Whether the body was empty.
        empty: bool,
        /// `Retry-After` in seconds.
        retry_after: Option<u64>,
    },
    /// No answer within the client timeout.
    #[error("{method} {path} timed out after {after:?}")]
    Timeout {
        /// Request method.
        method: Method,
        /// Request path.
        path: String,
        /// The timeout.
        after: Duration,
    },
    /// No connection, or the connection broke.
    #[error("{method} {path} failed: {detail}")]
    Unreachable {
        /// Request method.
        method: Method,
        /// Request path.
        path: String,
        /// Whether it failed while connecting.
        connect: bool,
        /// The innermost cause.
        detail: String,
    },
    /// A 2xx whose body is not JSON.
    #[error("{method} {path} answered {status} with a body that is not JSON: {detail}")]
    InvalidJson {
        /// Request method.
        method: Method,
        /// Request path.
        path: String,
        /// HTTP status.
        status: u16,
        /// The parse error.
        detail: String,
    },
    /// A 2xx JSON body without the shape the tool needs (missing root key, not an object).
    #[error("{method} {path}: {reason}")]
    InvalidShape {
        /// Request method.
        method: Method,
        /// Request path.
        path: String,
        /// What is missing.
        reason: String,
    },
    /// An answer longer than the body cap (`MODYO_MAX_BODY_BYTES`): refused, not read whole.
    #[error("{method} {path} answered more than {limit} bytes")]
    TooLarge {
        /// Request method.
        method: Method,
        /// Request path.
        path: String,
        /// The cap, in bytes.
        limit: u64,
    },
    /// A request not sent: its URL would be longer than the API accepts.
    #[error("{method} {path}: the URL would be {bytes} bytes")]
    TooLong {
        /// Request method.
        method: Method,
        /// Request path.
        path: String,
        /// The URL's length.
        bytes: usize,
        /// The longest URL sent.
        limit: usize,
    },
    /// A redirect not followed: to another origin (`to`), or one too many (`to: None`).
    #[error("{method} {path}: redirect refused")]
    Redirect {
        /// Request method.
        method: Method,
        /// Request path.
        path: String,
        /// The origin it pointed to, when that is why it was refused.
        to: Option<String>,
    },
}

impl CmsError {
    /// The HTTP status, when the API answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            CmsError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether this is a 404.
    pub fn is_not_found(&self) -> bool {
        self.status() == Some(404)
    }
}

/// The human texts in an error body: `{"errors": ["..."]}`, `{"errors": [{field, messages}]}`,
/// `{"error": "..."}` or `{"error": {"key": "text"}}`.
fn upstream_messages(body: Option<&Value>) -> Vec<String> {
    let Some(body) = body else { return Vec::new() };
    let mut out = Vec::new();
    match body.get("errors") {
        Some(Value::Array(errors)) => {
            for e in errors {
                match e {
                    Value::String(s) => out.push(s.clone()),
                    Value::Object(o) => {
                        let field = o.get("field").and_then(Value::as_str).unwrap_or("");
                        let messages: Vec<String> = match o.get("messages") {
                            Some(Value::Array(m)) => m
                                .iter()
                                .filter_map(Value::as_str)
                                .map(str::to_owned)
                                .collect(),
                            Some(Value::String(m)) => vec![m.clone()],
                            _ => Vec::new(),
                        };
                        let text = messages.join(", ");
                        out.push(if field.is_empty() {
                            text
                        } else {
                            format!("{field}: {text}")
                        });
                    }
                    _ => {}
                }
            }
        }
        Some(Value::String(s)) => out.push(s.clone()),
        _ => {}
    }
    match body.get("error") {
        Some(Value::String(s)) => out.push(s.clone()),
        Some(Value::Object(o)) => {
            for (k, v) in o {
                match v {
                    Value::String(s) => out.push(format!("{k}: {s}")),
                    other => out.push(format!("{k}: {other}")),
                }
            }
        }
        _ => {}
    }
    out.retain(|m| !m.is_empty());
    out
}

/// The `{field, messages}` list of a 409 or 422 validation body, if it is one.
fn validation_fields(body: Option<&Value>) -> Option<Value> {
    let errors = body?.get("errors")?.as_array()?;
    let fields: Vec<Value> = errors
        .iter()
        .filter_map(|e| {
            let o = e.as_object()?;
            let field = o.get("field")?.as_str()?;
            let messages = match o.get("messages") {
                Some(Value::Array(m)) => {
                    Value::Array(m.iter().filter(|v| v.is_string()).cloned().collect())
                }
                Some(Value::String(m)) => json!([m]),
                _ => json!([]),
            };
            Some(json!({"field": field, "messages": messages}))
        })
        .collect();
    (!fields.is_empty()).then_some(Value::Array(fields))
}

impl From<CmsError> for ToolError {
    fn from(error: CmsError) -> ToolError {
        match error {
            CmsError::Status { method, path, status, body, text, empty, retry_after } => {
                let said = upstream_messages(body.as_ref());
                let upstream = if said.is_empty() {
                    String::new()
                } else {
                    format!(": {}", said.join("; "))
                };
                let at = format!("{method} {path}");
                let e = match status {
                    401 if !empty => ToolError::new(
                        ErrorCode::Unauthorized,
                        format!("{at} answered 401{upstream}: the token is missing, invalid, or its user is inactive; check MODYO_TOKEN"),
                    ),
                    401 | 403 => ToolError::new(
                        ErrorCode::Forbidden,
                        format!("{at} answered {status}{upstream}: the token's user lacks the permission for this operation"),
                    ),
                    404 => ToolError::new(ErrorCode::NotFound, format!("{at} answered 404{upstream}: it does not exist or is not visible to this token")),
                    409 | 422 => match validation_fields(body.as_ref()) {
                        // The message names each field and what the API said of it.
                        Some(_) => ToolError::new(ErrorCode::ValidationFailed, format!("{at} was rejected ({status}){upstream}")),
                        None if status == 409 => ToolError::new(ErrorCode::Rejected, format!("{at} was rejected (409){upstream}")),
                        None => ToolError::new(ErrorCode::InvalidParameters, format!("{at} answered 422{upstream}: the API refused the parameters")),
                    },
                    400 => ToolError::new(ErrorCode::InvalidParameters, format!("{at} answered 400{upstream}: the API refused the parameters")),
                    429 => {
                        let wait = retry_after.map(|s| format!("; retry after {s}s")).unwrap_or_default();
                        let e = ToolError::new(ErrorCode::RateLimited, format!("{at} was rate limited (429){upstream}{wait}")).retryable(true);
                        match retry_after {
                            Some(s) => e.retry_after(s),
                            None => e,
                        }
                    }
                    // 501 Not Implemented will not change on retry (it is also what the replay
                    // server answers for a request no cassette recorded).
                    501 => ToolError::new(ErrorCode::UpstreamUnavailable, format!("{at} answered 501{upstream}")).retryable(false),
                    500..=599 => {
                        let page = text.map(|t| format!(" ({} bytes of non-JSON body)", t.len())).unwrap_or_default();
                        ToolError::new(ErrorCode::UpstreamUnavailable, format!("{at} answered {status}{upstream}{page}; retry later"))
                            .retryable(true)
                    }
                    _ => ToolError::new(ErrorCode::Rejected, format!("{at} answered {status}{upstream}")),
                };
                let e = e.with_status(status);
                if matches!(status, 401 | 403 | 404 | 409 | 400 | 422) { e.retryable(false) } else { e }
            }
            CmsError::Timeout { method, path, after } => ToolError::new(
                ErrorCode::UpstreamUnavailable,
                format!("{method} {path} timed out after {} ms (MODYO_TIMEOUT_MS); retry later", after.as_millis()),
            )
            .retryable(true),
            CmsError::Unreachable { method, path, connect, detail } => {
                let what = if connect { "could not connect" } else { "lost the connection" };
                ToolError::new(ErrorCode::UpstreamUnavailable, format!("{method} {path} {what}: {detail}; check MODYO_URL or retry later"))
                    .retryable(true)
            }
            CmsError::InvalidJson { method, path, status, detail } => ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("{method} {path} answered {status} with a body that is not valid JSON ({detail})"),
            )
            .with_status(status)
            .retryable(false),
            CmsError::InvalidShape { method, path, reason } => {
                ToolError::new(ErrorCode::InvalidUpstreamResponse, format!("{method} {path}: {reason}")).retryable(false)
            }
            CmsError::TooLarge { method, path, limit } => ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("{method} {path} answered more than {limit} bytes, the cap on one API answer (MODYO_MAX_BODY_BYTES); ask for less (a smaller per_page) or raise the cap"),
            )
            .retryable(false),
            CmsError::TooLong { method, path, bytes, limit } => ToolError::invalid_parameters(format!(
                "{method} {path} was not sent: its URL would be {bytes} bytes, more than the {limit} the API accepts; shorten the text passed in the arguments (a search, a filter)"
            ))
            .retryable(false),
            CmsError::Redirect { method, path, to: Some(to) } => ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("{method} {path} was redirected to another origin ({to}): refused, so nothing is read from a host that is not MODYO_URL's; if the account moved, set MODYO_URL to its address"),
            )
            .retryable(false),
            CmsError::Redirect { method, path, to: None } => ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                format!("{method} {path}: too many redirects (more than {}), the API is redirecting in a loop; check MODYO_URL", super::client::MAX_REDIRECTS),
            )
            .retryable(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16, body: Option<Value>, empty: bool) -> ToolError {
        CmsError::Status {
            method: Method::GET,
            path: "/api/admin/x".into(),
            status,
            body,
            text: None,
            empty,
            retry_after: None,
        }
        .into()
    }

    #[test]
    fn the_catalogue_table() {
        assert_eq!(
            status(401, Some(json!({})), false).code(),
            ErrorCode::Unauthorized
        );
        assert_eq!(status(401, None, true).code(), ErrorCode::Forbidden);
        assert_eq!(status(403, None, true).code(), ErrorCode::Forbidden);
        assert_eq!(
            status(404, Some(json!({})), false).code(),
            ErrorCode::NotFound
        );
        assert_eq!(
            status(409, Some(json!({"errors": ["Name taken"]})), false).code(),
            ErrorCode::Rejected
        );
        assert_eq!(status(422, None, true).code(), ErrorCode::InvalidParameters);
        assert_eq!(
            status(500, None, true).code(),
            ErrorCode::UpstreamUnavailable
        );
        assert_eq!(
            status(503, None, true).code(),
            ErrorCode::UpstreamUnavailable
        );
    }

    #[test]
    fn a_documented_422_with_fields_is_a_validation_failure_and_without_them_invalid_parameters() {
        let e = status(
            422,
            Some(
                json!({"errors": [{"field": "slug", "messages": ["Slug has already been taken"], "details": [{"error": "taken"}]}]}),
            ),
            false,
        );
        assert_eq!(e.code(), ErrorCode::ValidationFailed);
        assert!(
            e.message()
                .contains("(422): slug: Slug has already been taken"),
            "{}",
            e.message()
        );
        assert_eq!(
            e.to_value().as_object().unwrap().keys().collect::<Vec<_>>(),
            ["error", "message"],
            "the fields are in the message, nothing repeats them"
        );
        assert_eq!(
            status(
                422,
                Some(json!({"errors": ["Name has already been taken"]})),
                false
            )
            .code(),
            ErrorCode::InvalidParameters
        );
    }

    #[test]
    fn validation_409_names_the_fields_in_the_message() {
        let e = status(
            409,
            Some(
                json!({"errors": [{"field": "name", "messages": ["Name can't be blank"], "details": [{"error": "blank"}]}]}),
            ),
            false,
        );
        assert_eq!(e.code(), ErrorCode::ValidationFailed);
        assert!(
            e.message().contains("name: Name can't be blank"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn rate_limit_carries_retry_after() {
        let e: ToolError = CmsError::Status {
            method: Method::GET,
            path: "/p".into(),
            status: 429,
            body: None,
            text: None,
            empty: true,
            retry_after: Some(12),
        }
        .into();
        let v = e.to_value();
        assert_eq!(
            (e.code(), e.is_retryable(), e.retry_after_s()),
            (ErrorCode::RateLimited, Some(true), Some(12))
        );
        assert!(
            e.message().contains("retry after 12s"),
            "the wait is in the message: {v}"
        );
        assert_eq!(
            (
                v["error"].as_str(),
                v.get("retryable"),
                v.get("retry_after_s")
            ),
            (Some("rate_limited"), None, None),
            "neither repeats what the code and the message say: {v}"
        );
    }

    #[test]
    fn singular_error_objects_are_read() {
        let e = status(
            401,
            Some(json!({"error": {"grant_expired": "Session expired"}})),
            false,
        );
        assert!(
            e.message().contains("grant_expired: Session expired"),
            "{}",
            e.message()
        );
    }
}
