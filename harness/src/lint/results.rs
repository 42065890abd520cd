//! The rules the lint reads off tool results: C11 (every emitted `data` key is declared; the
//! lint waives it for a listed echoed root, `Lint::finish`) and
//! C12 (an echoed object never disagrees with `resource` on `id`, `uuid` or `name`).
//!
//! Only results that carry `structuredContent` and ran (no `isError`, no `control`) are read:
//! errors and refusals have no `data` to check.

use std::collections::BTreeSet;

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value};

use super::schema::{self, token};
use super::{Rule, Violation};

/// Every C11 and C12 violation in one result of `tool`; `origin` says which call produced it.
pub(crate) fn check(tool: &Tool, result: &CallToolResult, origin: &str) -> Vec<Violation> {
    let mut out = Vec::new();
    if result.is_error == Some(true) {
        return out;
    }
    let (Some(output), Some(Value::Object(envelope))) =
        (&tool.output_schema, &result.structured_content)
    else {
        return out;
    };
    if envelope.contains_key("control") {
        return out;
    }
    let output = schema::inline_refs(&Value::Object((**output).clone()));
    let data = envelope.get("data").unwrap_or(&Value::Null);
    c11(&tool.name, &output, data, origin, &mut out);
    c12(&tool.name, envelope, data, origin, &mut out);
    out
}

/// C11: the keys of `data` (an object), or of each item (an array of objects), are declared.
fn c11(name: &str, output: &Value, data: &Value, origin: &str, out: &mut Vec<Violation>) {
    let Some(data_schema) = schema::data(output) else {
        return;
    };
    let mut seen = BTreeSet::new();
    let mut report = |pointer: String, key: &str, declared: &Map<String, Value>| {
        if declared.contains_key(key) || !seen.insert(key.to_owned()) {
            return;
        }
        out.push(Violation::new(
            name,
            Rule::C11,
            pointer,
            format!("`{key}` is emitted but not declared in the outputSchema (seen in {origin})"),
        ));
    };
    let empty = Map::new();
    match data {
        Value::Object(map) => {
            if schema::is_map(output, data_schema) {
                return;
            }
            let declared = schema::declared(output, data_schema).unwrap_or(&empty);
            for key in map.keys() {
                report(format!("/data/{}", token(key)), key, declared);
            }
        }
        Value::Array(items) => {
            let item_schema = schema::items(output, data_schema);
            if item_schema.is_some_and(|s| schema::is_map(output, s)) {
                return;
            }
            let declared = item_schema
                .and_then(|s| schema::declared(output, s))
                .unwrap_or(&empty);
            for (i, item) in items.iter().enumerate() {
                if let Value::Object(map) = item {
                    for key in map.keys() {
                        report(format!("/data/{i}/{}", token(key)), key, declared);
                    }
                }
            }
        }
        _ => {}
    }
}

/// C12: where `data` is an object and `resource` is present, `data.id`, `data.uuid` and
/// `data.name` (when both sides have them) say the same as `resource`.
fn c12(
    name: &str,
    envelope: &Map<String, Value>,
    data: &Value,
    origin: &str,
    out: &mut Vec<Violation>,
) {
    let (Value::Object(data), Some(Value::Object(resource))) = (data, envelope.get("resource"))
    else {
        return;
    };
    for key in ["id", "uuid", "name"] {
        let (Some(ours), Some(theirs)) = (resource.get(key), data.get(key)) else {
            continue;
        };
        if ours.is_null() || theirs.is_null() || same(ours, theirs) {
            continue;
        }
        out.push(Violation::new(
            name,
            Rule::C12,
            format!("/data/{key}"),
            format!("data.{key} = {theirs} disagrees with resource.{key} = {ours} (seen in {origin}); the server's own keys must win"),
        ));
    }
}

/// Equal as JSON, or the same number written as a number and as a string (`636` and `"636"`).
fn same(a: &Value, b: &Value) -> bool {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    a == b
        || (matches!(
            (a, b),
            (Value::Number(_), Value::String(_)) | (Value::String(_), Value::Number(_))
        ) && text(a) == text(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    fn tool(data: Value) -> Tool {
        let mut tool = Tool::new(
            "t",
            "d",
            Arc::new(
                json!({"type": "object"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
        );
        let schema =
            json!({"type": "object", "properties": {"platform": {}, "data": data, "resource": {}}});
        tool.output_schema = schema.as_object().cloned().map(Arc::new);
        tool
    }

    fn result(structured: Value) -> CallToolResult {
        CallToolResult::structured(structured)
    }

    #[test]
    fn undeclared_keys_are_named_once_per_key() {
        let t =
            tool(json!({"type": "array", "items": {"type": "object", "properties": {"id": {}}}}));
        let r =
            result(json!({"platform": {}, "data": [{"id": 1, "x": 1}, {"id": 2, "x": 2, "y": 3}]}));
        let pointers: Vec<String> = check(&t, &r, "s").into_iter().map(|v| v.pointer).collect();
        assert_eq!(pointers, ["/data/0/x", "/data/1/y"]);
    }

    #[test]
    fn maps_and_errors_are_not_read() {
        let t = tool(json!({"type": "object", "additionalProperties": {"type": "string"}}));
        assert!(
            check(
                &t,
                &result(json!({"platform": {}, "data": {"any": "x"}})),
                "s"
            )
            .is_empty()
        );
        let t = tool(json!({"type": "object", "properties": {}}));
        let mut error = result(json!({"platform": {}, "data": {"x": 1}}));
        error.is_error = Some(true);
        assert!(check(&t, &error, "s").is_empty());
    }

    #[test]
    fn data_disagreeing_with_resource_is_named() {
        let t = tool(json!({"type": "object", "properties": {"id": {}, "name": {}, "uuid": {}}}));
        let agree = json!({"platform": {}, "data": {"id": 636, "name": "A"}, "resource": {"type": "space", "id": "636", "name": "A"}});
        assert!(check(&t, &result(agree), "s").is_empty());
        let disagree = json!({"platform": {}, "data": {"id": 1, "name": "B"}, "resource": {"type": "space", "id": 636, "name": "A"}});
        let rules: Vec<(Rule, String)> = check(&t, &result(disagree), "s")
            .into_iter()
            .map(|v| (v.rule, v.pointer))
            .collect();
        assert_eq!(
            rules,
            [
                (Rule::C12, "/data/id".to_owned()),
                (Rule::C12, "/data/name".to_owned())
            ]
        );
    }
}
