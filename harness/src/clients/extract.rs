//! What of a client's request is ours, found by comparing it with the reference (what our
//! server listed and answered): which fields of our tool a definition carries, and what of our
//! result a forwarded result is.

use serde_json::Value;

use super::capture::Forwarded;

/// Our tool's fields a definition can carry, in the order reports list them.
pub(crate) const TOOL_FIELDS: [&str; 5] = [
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "title",
];

/// The fields of `ours` (a `tools/list` entry) whose value appears as one of `sent`'s
/// top-level values, whatever the client renamed them to.
pub(crate) fn carries(ours: &Value, sent: &Value) -> Vec<String> {
    let Some(sent) = sent.as_object() else {
        return Vec::new();
    };
    TOOL_FIELDS
        .iter()
        .filter(|field| {
            ours.get(**field)
                .is_some_and(|value| sent.values().any(|v| v == value))
        })
        .map(|field| (*field).to_owned())
        .collect()
}

/// What of `result` (our `tools/call` result) `sent` is.
pub(crate) fn forwarded(result: &Value, sent: &Value) -> Forwarded {
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    let sent_texts: Option<Vec<&str>> = match sent {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(blocks) => blocks
            .iter()
            .map(
                |b| match (b.get("type").and_then(Value::as_str), b.get("text")) {
                    (Some("text"), Some(Value::String(t))) => Some(t.as_str()),
                    _ => None,
                },
            )
            .collect(),
        _ => None,
    };
    if sent_texts.is_some_and(|s| s == texts) {
        return Forwarded::Text;
    }
    if sent == result
        || sent.get("error") == Some(result) && sent.as_object().map(|o| o.len()) == Some(1)
    {
        return Forwarded::Result;
    }
    Forwarded::Other
}

/// The items of every `inner` array of the items of `body`'s `outer` array (the blocks of
/// every message, the parts of every content, the declarations of every tool).
pub(crate) fn nested<'a>(
    body: &'a Value,
    outer: &'static str,
    inner: &'static str,
) -> impl Iterator<Item = &'a Value> {
    body.get(outer)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(move |item| item.get(inner).and_then(Value::as_array))
        .flatten()
}

/// Every occurrence of `needle` in `texts`.
pub(crate) fn occurrences(texts: &[&str], needle: &str) -> Vec<String> {
    if needle.is_empty() {
        return Vec::new();
    }
    texts
        .iter()
        .flat_map(|t| t.matches(needle))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool() -> Value {
        json!({
            "name": "content-spaces-list",
            "description": "List spaces.",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"data": {}}},
            "annotations": {"readOnlyHint": true}
        })
    }

    #[test]
    fn a_definition_carries_the_fields_whose_values_it_holds_under_any_name() {
        let claude = json!({"name": "mcp__s__content-spaces-list", "description": "List spaces.", "input_schema": {"type": "object"}, "defer_loading": true});
        assert_eq!(carries(&tool(), &claude), ["description", "inputSchema"]);
        let gemini = json!({"name": "content-spaces-list", "description": "List spaces.", "parametersJsonSchema": {"type": "object"}, "responseJsonSchema": {"type": "object", "properties": {"data": {}}}});
        assert_eq!(
            carries(&tool(), &gemini),
            ["description", "inputSchema", "outputSchema"]
        );
        let rewritten = json!({"name": "x", "description": "List spaces. (from MCP)"});
        assert!(carries(&tool(), &rewritten).is_empty());
    }

    #[test]
    fn a_forwarded_result_is_its_text_the_whole_result_or_something_else() {
        let result = json!({"content": [{"type": "text", "text": "{\"data\":[]}"}], "structuredContent": {"data": []}});
        assert_eq!(forwarded(&result, &json!("{\"data\":[]}")), Forwarded::Text);
        assert_eq!(
            forwarded(&result, &json!([{"type": "text", "text": "{\"data\":[]}"}])),
            Forwarded::Text
        );
        assert_eq!(forwarded(&result, &result.clone()), Forwarded::Result);
        assert_eq!(
            forwarded(&result, &json!({"error": result.clone()})),
            Forwarded::Result
        );
        assert_eq!(forwarded(&result, &json!("{\"data\":[")), Forwarded::Other);
        assert_eq!(
            forwarded(&result, &json!({"error": result.clone(), "more": 1})),
            Forwarded::Other
        );
    }

    #[test]
    fn occurrences_are_counted_in_every_text() {
        assert_eq!(occurrences(&["ab ab", "b", "ab"], "ab").len(), 3);
        assert!(occurrences(&["ab"], "").is_empty());
    }
}
