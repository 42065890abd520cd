//! C21: the old way of answering, kept so one build measures before and after, rendered here
//! and nowhere else.
//!
//! Before the contract every tool ended in `success(data)`: `content[0].text =
//! JSON.stringify(data, null, 2)` and nothing else, with canned prose (`message`), an `action`
//! word and the API's `meta` echoed; errors were `Error: <message>` text. No
//! `structuredContent`, no `outputSchema`. Which modules answer this way is configuration
//! (`MODYO_MCP_LEGACY_MODULES`).
//!
//! A reply says which shape its old payload had ([`Legacy`]); the exit renders it from the
//! reply's `data` only when the tool's module is in legacy mode, so the migrated path never
//! builds it.

use std::fmt;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

use super::control::Control;
use super::errors::ToolError;

/// The shape of the old payload of a reply, built from its `data` at the exit.
#[derive(Default)]
#[non_exhaustive]
pub enum Legacy {
    /// `data` itself (a read of one object, and most tools of their own shape).
    #[default]
    Data,
    /// `{<root>: data, meta?}`: a list, with the API's `meta` exactly as it was sent.
    List {
        /// The API's root key.
        root: String,
        /// `meta` as sent (absent when the API sent none).
        meta: Option<Value>,
    },
    /// `data` (an object) with the API's `meta` beside it: a `-manage` tool's `list`.
    Paged {
        /// `meta` as sent (absent when the API sent none).
        meta: Option<Value>,
    },
    /// `{message, action, <key>: data}`: a write, with its canned message.
    Write {
        /// The old `action` word (`created`, `updated`, ...).
        action: String,
        /// The canned message.
        message: String,
        /// The key the entity sat under (`space`, `user`).
        key: String,
    },
    /// `{message, action, <id_key>: id}`: a delete-type write (`data` is null).
    Gone {
        /// The old `action` word (`deleted`, `removed`, ...).
        action: String,
        /// The canned message.
        message: String,
        /// The key of the id (`spaceId`).
        id_key: String,
        /// The id.
        id: Value,
    },
    /// A payload of the tool's own, built from `data` (only in legacy mode).
    Custom(Box<dyn FnOnce(Value) -> Value + Send>),
}

impl fmt::Debug for Legacy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Legacy::Data => f.write_str("Data"),
            Legacy::List { root, .. } => write!(f, "List({root})"),
            Legacy::Paged { .. } => f.write_str("Paged"),
            Legacy::Write { action, key, .. } => write!(f, "Write({action}, {key})"),
            Legacy::Gone { action, id_key, .. } => write!(f, "Gone({action}, {id_key})"),
            Legacy::Custom(_) => f.write_str("Custom"),
        }
    }
}

impl Legacy {
    /// `{<root>: data, meta?}`.
    pub fn list(root: impl Into<String>, meta: Option<Value>) -> Legacy {
        Legacy::List {
            root: root.into(),
            meta,
        }
    }

    /// `data` with `meta` beside it.
    pub fn paged(meta: Option<Value>) -> Legacy {
        Legacy::Paged { meta }
    }

    /// `{message, action, <key>: data}`.
    pub fn write(
        action: impl Into<String>,
        message: impl Into<String>,
        key: impl Into<String>,
    ) -> Legacy {
        Legacy::Write {
            action: action.into(),
            message: message.into(),
            key: key.into(),
        }
    }

    /// `{message, action, <id_key>: id}`.
    pub fn gone(
        action: impl Into<String>,
        message: impl Into<String>,
        id_key: impl Into<String>,
        id: impl Into<Value>,
    ) -> Legacy {
        Legacy::Gone {
            action: action.into(),
            message: message.into(),
            id_key: id_key.into(),
            id: id.into(),
        }
    }

    /// A payload of the tool's own, built from `data`.
    pub fn custom(build: impl FnOnce(Value) -> Value + Send + 'static) -> Legacy {
        Legacy::Custom(Box::new(build))
    }

    /// The old payload of a reply whose `data` is `data`.
    pub fn render(self, data: Value) -> Value {
        match self {
            Legacy::Data => data,
            Legacy::List { root, meta } => {
                let mut payload = Map::new();
                payload.insert(root, data);
                if let Some(meta) = meta {
                    payload.insert("meta".into(), meta);
                }
                Value::Object(payload)
            }
            Legacy::Paged { meta } => match (data, meta) {
                (Value::Object(mut payload), Some(meta)) => {
                    payload.insert("meta".into(), meta);
                    Value::Object(payload)
                }
                (data, _) => data,
            },
            Legacy::Write {
                action,
                message,
                key,
            } => {
                let mut payload = Map::new();
                payload.insert("message".into(), Value::from(message));
                payload.insert("action".into(), Value::from(action));
                payload.insert(key, data);
                Value::Object(payload)
            }
            Legacy::Gone {
                action,
                message,
                id_key,
                id,
            } => {
                let mut payload = Map::new();
                payload.insert("message".into(), Value::from(message));
                payload.insert("action".into(), Value::from(action));
                payload.insert(id_key, id);
                Value::Object(payload)
            }
            Legacy::Custom(build) => build(data),
        }
    }
}

/// The old payload of a call that did not run: the gate's structured rejection, or a
/// cancelled confirmation.
pub fn control(control: &Control) -> Value {
    match control.outcome() {
        "refused" => {
            json!({"readOnly": true, "rejected": control.action(), "message": control.legacy_message()})
        }
        _ => json!({"message": control.legacy_message(), "action": "cancelled"}),
    }
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

/// The old list payload: the API's root key and its `meta`, as the API sent them.
pub fn list(root: &str, items: Value, meta: Option<&Value>) -> Value {
    Legacy::list(root, meta.cloned()).render(items)
}

/// The old write payload: `{message, action, <key>: entity}`.
pub fn write(action: &str, message: impl Into<String>, key: &str, entity: Value) -> Value {
    Legacy::write(action, message, key).render(entity)
}
