//! What the content-type tools read of a type the API sent and of its field definitions:
//! views, deserialized once ([`view`]), and the field definition a copy sends.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::tools::engine::{body, lenient, view};

/// The keys a copy reads of a content type: the source's, and the one it creates.
#[derive(Default, Deserialize)]
#[serde(default)]
pub(crate) struct TypeView {
    #[serde(deserialize_with = "lenient")]
    pub(crate) id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) name: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) uid: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) single: Option<bool>,
    /// The field definitions, as sent (any value: a type whose `fields` is `null` has them).
    #[serde(deserialize_with = "lenient")]
    pub(crate) fields: Option<Value>,
}

impl TypeView {
    /// The field definitions, none when `fields` is not an array.
    pub(crate) fn fields(&self) -> &[Value] {
        self.fields
            .as_ref()
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
}

/// The keys that name a field definition, and its type.
#[derive(Default, Deserialize)]
#[serde(default)]
pub(crate) struct FieldKeys {
    #[serde(deserialize_with = "lenient")]
    pub(crate) id: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) name: Option<String>,
    #[serde(rename = "type", deserialize_with = "lenient")]
    pub(crate) kind: Option<String>,
}

/// A field definition copied to another type: its documented keys (`name`, `type`, `hint`,
/// `position`, `multi`, `validations`) when present and not `null`, without the identifiers
/// of the original; a `required` the API answered at the top level goes under `validations`,
/// and keys the documented field lacks (a label) are not sent.
#[derive(Default, Deserialize, Serialize)]
#[serde(default)]
struct CopiedField {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<Value>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    multi: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    validations: Option<Value>,
    #[serde(skip_serializing, deserialize_with = "lenient")]
    required: Option<bool>,
}

/// A field definition copied to another type (see [`CopiedField`]).
pub(crate) fn copied_field(field: &Value) -> Value {
    let mut copy: CopiedField = view(field);
    if let Some(required) = copy.required {
        let validations = copy
            .validations
            .get_or_insert_with(|| Value::Object(Map::new()));
        if let Some(validations) = validations.as_object_mut() {
            validations
                .entry("required")
                .or_insert(Value::from(required));
        }
    }
    body(copy)
}
