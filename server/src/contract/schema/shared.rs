//! C9 without repetition: a list whose items are declared like `data` itself, or two lists of
//! the same item, publish the item once under `$defs` and reference it (JSON Schema 2020-12),
//! so a `-manage` tool's `outputSchema` does not declare the same keys twice.

use serde_json::{Map, Value, json};

/// The fewest keys a listed item must declare before it is written once and referenced.
const SHARED_MIN_KEYS: usize = 3;

/// A `-manage` tool's `data` is one object (get, create, ...) that also lists objects of the
/// same kind (`list`: `data.<plural>`), so the same keys were declared twice. When every key of
/// a list's items is declared the same way on `data` itself, the keys are written once under
/// `$defs/<plural>` and both places reference them (`$ref` beside `type`, JSON Schema
/// 2020-12): the same values validate, nothing is looser and no union is introduced (C9).
/// Returns the `$defs` to publish.
pub(super) fn listed_items(data: Option<&mut Value>) -> Map<String, Value> {
    let mut defs = Map::new();
    let Some(Value::Object(data)) = data else {
        return defs;
    };
    let Some(Value::Object(own)) = data.get("properties") else {
        return defs;
    };
    let listed = own.iter().find_map(|(key, list)| {
        let item = list.get("items")?.as_object()?;
        let keys = item.get("properties")?.as_object()?;
        let plain = item.keys().all(|k| k == "type" || k == "properties")
            && item.get("type") == Some(&json!("object"));
        let same = keys.iter().all(|(k, v)| own.get(k) == Some(v));
        (plain && same && keys.len() >= SHARED_MIN_KEYS).then(|| (key.clone(), keys.clone()))
    });
    let Some((list, keys)) = listed else {
        return defs;
    };
    let reference = json!(format!("#/$defs/{list}"));
    if let Some(Value::Object(own)) = data.get_mut("properties") {
        own.retain(|k, _| !keys.contains_key(k));
        if let Some(Value::Object(item)) = own.get_mut(&list).and_then(|l| l.get_mut("items")) {
            item.remove("properties");
            item.insert("$ref".into(), reference.clone());
        }
    }
    data.insert("$ref".into(), reference);
    defs.insert(list, json!({"properties": keys}));
    defs
}

/// Two lists of `data` whose items are the same object (`channels-publish`: what was released
/// and what is still pending are the same kind of row), so the same keys were declared twice.
/// The item is written once, under `$defs/<first list>`, and every list with that item
/// references it (`items: {"$ref": ...}`): the same values validate, strict items stay strict,
/// nothing is looser and no union is introduced (C9). Only items of
/// [`SHARED_MIN_KEYS`] keys or more: a reference costs about as much as a small item.
/// Returns the `$defs` to publish.
pub(super) fn sibling_lists(data: Option<&mut Value>) -> Map<String, Value> {
    let mut defs = Map::new();
    let Some(Value::Object(own)) = data.and_then(|d| d.get_mut("properties")) else {
        return defs;
    };
    let item_of = |list: &Value| -> Option<Value> {
        let item = list.get("items")?;
        let keys = item.get("properties")?.as_object()?.len();
        (item.get("type") == Some(&json!("object")) && keys >= SHARED_MIN_KEYS)
            .then(|| item.clone())
    };
    let lists: Vec<(String, Value)> = own
        .iter()
        .filter_map(|(key, list)| Some((key.clone(), item_of(list)?)))
        .collect();
    for (first, item) in &lists {
        let same: Vec<&String> = lists
            .iter()
            .filter(|(_, other)| other == item)
            .map(|(key, _)| key)
            .collect();
        if same.len() < 2 || same[0] != first {
            continue;
        }
        let reference = json!({"$ref": format!("#/$defs/{first}")});
        for key in same {
            if let Some(list) = own.get_mut(key.as_str()) {
                list["items"] = reference.clone();
            }
        }
        defs.insert(first.clone(), item.clone());
    }
    defs
}
