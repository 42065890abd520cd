//! What `content-spaces-copy` reads of the source's objects (views, deserialized once) and
//! the bodies it writes into the copy.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tools::engine::lenient;

/// The keys a copy reads of a source category.
#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct CategoryView {
    #[serde(deserialize_with = "lenient")]
    pub(super) id: Option<Value>,
    pub(super) name: Option<Value>,
    pub(super) slug: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub(super) parent_id: Option<u64>,
}

impl CategoryView {
    pub(super) fn numeric_id(&self) -> Option<u64> {
        self.id.as_ref().and_then(Value::as_u64)
    }
}

/// The body that creates a category: its name and slug when it has them, its parent mapped
/// to the copy's.
#[derive(Serialize)]
pub(super) struct CategoryBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) slug: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) parent_id: Option<u64>,
}

/// The keys a copy reads of a source entry (beside its `field_values`).
#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct EntryView {
    #[serde(deserialize_with = "lenient")]
    pub(super) id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub(super) content_type_id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub(super) category_id: Option<u64>,
    #[serde(flatten)]
    pub(super) kept: EntryKept,
}

/// The keys of a source entry its copy keeps, when present and not `null`.
#[derive(Default, Deserialize, Serialize)]
#[serde(default)]
pub(super) struct EntryKept {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) slug: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tags: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) locale: Option<Value>,
}

/// The body that creates an entry in the copy.
#[derive(Serialize)]
pub(super) struct EntryBody<'a> {
    pub(super) content_type_id: &'a Value,
    #[serde(flatten)]
    pub(super) kept: &'a EntryKept,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) category_id: Option<u64>,
    pub(super) field_values: Vec<Value>,
}

/// The source's locales a new space keeps, when present and not `null`.
#[derive(Default, Deserialize, Serialize)]
#[serde(default)]
pub(super) struct Locales {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) default_locale: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) locales: Option<Value>,
}

/// The body that creates the new space.
#[derive(Serialize)]
pub(super) struct SpaceBody<'a> {
    pub(super) name: &'a str,
    pub(super) uid: &'a str,
    #[serde(flatten)]
    pub(super) locales: Locales,
}
