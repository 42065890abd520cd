//! C22, errors: the form a C16 error's text takes, chosen by the operator for the client the
//! server is wired into (`MODYO_ERRORS`).
//!
//! `json` (the default) is the compact JSON `{error, message, ..., platform}`. `text` says the
//! same facts in one plain line, `Error (not_found): <message> [status: 404] [platform:
//! acme, acme.modyo.cloud]`, for a client that puts an error's text inside a JSON string of its
//! own (every quote of ours escaped, sometimes twice) or that parses a JSON text into
//! `structuredContent` and forwards it beside the text: the quotes are what it pays for. Like
//! the result form it is applied last, to the answer already validated and scrubbed; a legacy
//! error (`Error: ...`, C21) is left as it is.

use std::fmt;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

/// The form of a tool error's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum ErrorForm {
    /// The compact JSON payload (C16). The default.
    #[default]
    Json,
    /// The same keys in one plain line.
    Text,
}

impl ErrorForm {
    /// Every form, in the documented order.
    pub const ALL: [ErrorForm; 2] = [ErrorForm::Json, ErrorForm::Text];

    /// The name used in `MODYO_ERRORS`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorForm::Json => "json",
            ErrorForm::Text => "text",
        }
    }

    /// Parses a form name (any case, surrounding space ignored).
    pub fn parse(value: &str) -> Option<ErrorForm> {
        let value = value.trim().to_ascii_lowercase();
        ErrorForm::ALL.into_iter().find(|f| f.as_str() == value)
    }

    /// Rewrites the text of a C16 error in this form; anything else is left whole.
    pub fn shape(self, result: &mut CallToolResult) {
        if self == ErrorForm::Json || result.is_error != Some(true) {
            return;
        }
        let Some(text) = result.content.first().and_then(|c| c.as_text()) else {
            return;
        };
        let Ok(Value::Object(payload)) = serde_json::from_str::<Value>(&text.text) else {
            return;
        };
        if let Some(line) = plain(&payload) {
            result.content = vec![ContentBlock::text(line)];
        }
    }
}

impl fmt::Display for ErrorForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A C16 payload as one line: `Error (<code>): <message>`, then `[<key>: <value>]` for every
/// other key in order (a string as it is, anything else as compact JSON) and the platform as
/// `[platform: <name>, <host>]`. `None` when the payload is not a C16 error.
fn plain(payload: &Map<String, Value>) -> Option<String> {
    let code = payload.get("error")?.as_str()?;
    let message = payload.get("message")?.as_str()?;
    let mut line = format!("Error ({code}): {message}");
    for (key, value) in payload {
        let shown = match (key.as_str(), value) {
            ("error" | "message", _) => continue,
            ("platform", Value::Object(p)) => {
                let part = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or_default();
                format!("{}, {}", part("name"), part("host"))
            }
            (_, Value::String(s)) => s.clone(),
            (_, other) => other.to_string(),
        };
        line.push_str(&format!(" [{key}: {shown}]"));
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text(text)])
    }

    fn text(result: &CallToolResult) -> &str {
        result.content[0]
            .as_text()
            .map(|t| t.text.as_str())
            .unwrap_or_default()
    }

    #[test]
    fn text_says_every_key_of_the_payload_in_one_plain_line() {
        let mut result = error(
            r#"{"error":"ambiguous","message":"menu 'Footer' matches 2 menus by name; pass the id of the one you mean","candidates":[302,303],"status":404,"platform":{"name":"acme","host":"acme.modyo.cloud"}}"#,
        );
        ErrorForm::Text.shape(&mut result);
        assert_eq!(
            text(&result),
            "Error (ambiguous): menu 'Footer' matches 2 menus by name; pass the id of the one you mean [candidates: [302,303]] [status: 404] [platform: acme, acme.modyo.cloud]"
        );
        assert_eq!(result.is_error, Some(true));
        assert!(
            !text(&result).contains('"'),
            "no quote for a client to escape"
        );
    }

    #[test]
    fn json_successes_and_legacy_errors_are_left_whole() {
        let payload = r#"{"error":"not_found","message":"x","platform":{"name":"a","host":"b"}}"#;
        let legacy = error("Error: site 9 not found");
        let success =
            CallToolResult::success(vec![ContentBlock::text(r#"{"error":"x","message":"y"}"#)]);
        for (form, result) in [
            (ErrorForm::Json, error(payload)),
            (ErrorForm::Text, legacy),
            (ErrorForm::Text, success),
        ] {
            let mut shaped = result.clone();
            form.shape(&mut shaped);
            assert_eq!(shaped, result, "{form}");
        }
    }

    #[test]
    fn names_parse_in_any_case_and_nothing_else() {
        assert_eq!(ErrorForm::parse(" TEXT "), Some(ErrorForm::Text));
        assert_eq!(ErrorForm::parse("json"), Some(ErrorForm::Json));
        assert_eq!(ErrorForm::parse("plain"), None);
        assert_eq!(ErrorForm::default(), ErrorForm::Json);
    }
}
