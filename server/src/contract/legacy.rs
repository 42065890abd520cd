//! C21: the old way of answering, kept so one build measures before and after.
//!
//! Before the contract every tool ended in `success(data)`: `content[0].text =
//! JSON.stringify(data, null, 2)` and nothing else, with canned prose (`message`), an `action`
//! word and the API's `meta` echoed; errors were `Error: <message>` text. No
//! `structuredContent`, no `outputSchema`. Which modules answer this way is configuration
//! (`MODYO_MCP_LEGACY_MODULES`).

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

use super::errors::ToolError;

/// The old list payload: the API's root key and its `meta`, as the API sent them.
pub fn list(root: &str, items: Value, meta: Option<&Value>) -> Value {
    let mut payload = Map::new();
    payload.insert(root.to_owned(), items);
    if let Some(meta) = meta {
        payload.insert("meta".into(), meta.clone());
    }
    Value::Object(payload)
}

/// The old write payload: `{message, action, <key>: entity}`.
pub fn write(action: &str, message: impl Into<String>, key: &str, entity: Value) -> Value {
    let mut payload = Map::new();
    payload.insert("message".into(), Value::from(message.into()));
    payload.insert("action".into(), Value::from(action));
    payload.insert(key.to_owned(), entity);
    Value::Object(payload)
}

/// The old structured rejection of the read-only gate.
pub fn refused(action: &str, message: &str) -> Value {
    json!({"readOnly": true, "rejected": action, "message": message})
}

/// `success(data)`: pretty-printed text only.
pub(crate) fn success(payload: &Value) -> CallToolResult {
    let text = serde_json::to_string_pretty(payload).unwrap_or_else(|_| payload.to_string());
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// The old error: `Error: <message>` text.
pub(crate) fn error(error: &ToolError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "Error: {}",
        error.message()
    ))])
}
