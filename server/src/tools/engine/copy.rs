//! Copies (`-copy` tools): what a copy sends of its source, and what it is called.

use serde_json::{Map, Value};

/// Keys the API owns: never sent back when copying an object.
const OWNED: [&str; 6] = [
    "id",
    "uuid",
    "origination_id",
    "created_at",
    "updated_at",
    "submissions_count",
];

/// A copy of an API object without the keys the API owns, at any depth (what a `-copy`
/// tool sends to create the copy).
pub(crate) fn without_owned(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !OWNED.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), without_owned(v)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_owned).collect()),
        other => other.clone(),
    }
}

/// The name of a copy: the one given, else the source's name (`source`; `fallback` when it
/// has none) in another container, or `"<name> (copy)"` beside the source.
pub(crate) fn copy_name(
    given: Option<&str>,
    source: Option<&str>,
    fallback: &str,
    beside: bool,
) -> String {
    if let Some(name) = given {
        return name.to_owned();
    }
    let name = source.unwrap_or(fallback);
    if beside {
        format!("{name} (copy)")
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn owned_keys_go_at_any_depth() {
        let q = json!([{"id": 9, "label": "Región", "data_set_id": 401, "options": [{"id": 1, "value": "x"}]}]);
        assert_eq!(
            without_owned(&q),
            json!([{"label": "Región", "data_set_id": 401, "options": [{"value": "x"}]}])
        );
    }

    #[test]
    fn a_copy_beside_its_source_says_so() {
        let source = Some("Alta");
        assert_eq!(copy_name(None, source, "form", true), "Alta (copy)");
        assert_eq!(copy_name(None, source, "form", false), "Alta");
        assert_eq!(copy_name(Some("B"), source, "form", true), "B");
        assert_eq!(copy_name(None, None, "form", false), "form");
    }
}
