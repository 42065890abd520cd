//! The contract as a client sees it: what every tool result must satisfy, whatever the tool.
//!
//! Used by the scenario tests, the property tests and the lint: C1 (envelope keys), C2
//! (`platform` everywhere, errors included), C8 (the result validates against the published
//! `outputSchema`), C16 (errors: `isError`, no `structuredContent`, `{error: code, message,
//! ..., platform}`, `error` first), C17 (`content[0].text` is the compact serialization), C18
//! (`control` means `data: null`), C21 (legacy results carry no `structuredContent`), and C22
//! (what each result form keeps of the whole answer: [`form_problems`]).

use modyo_mcp::contract::{OutputValidator, ResultForm};
use rmcp::model::{CallToolResult, Tool};
use serde_json::Value;

/// What kind of result a call produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A normal result.
    Success,
    /// `isError: true`.
    Error,
    /// The call did not run (`control`).
    Control,
}

/// The kind of a result, in any result form (C22): `control` is read from
/// `structuredContent`, or from the envelope the text holds when there is none.
pub fn kind(result: &CallToolResult) -> Kind {
    if result.is_error == Some(true) {
        Kind::Error
    } else if ResultForm::envelope(result)
        .as_ref()
        .and_then(|s| s.get("control"))
        .is_some()
    {
        Kind::Control
    } else {
        Kind::Success
    }
}

/// The first text content of a result.
pub fn text(result: &CallToolResult) -> Option<&str> {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.as_str())
}

/// What a C16 error result says, as one object: `code` (the payload's `error`), `message`
/// and every other key but `platform`. A build from before the flat payload (`{error: {code,
/// message, ...}, platform}`, which `modyo-lab diff` measures as a base) reads the same.
pub fn error(result: &CallToolResult) -> Option<Value> {
    let payload: Value = serde_json::from_str(text(result)?).ok()?;
    if let Some(nested @ Value::Object(_)) = payload.get("error") {
        return Some(nested.clone());
    }
    let mut said = payload.as_object()?.clone();
    let code = said.shift_remove("error")?;
    said.shift_remove("platform");
    let mut error = serde_json::Map::new();
    error.insert("code".into(), code);
    error.extend(said);
    Some(Value::Object(error))
}

const SLOTS: [&str; 5] = ["platform", "data", "resource", "state", "control"];

/// Every way `result` breaks the contract for `tool` (empty when it keeps it).
pub fn problems(tool: &Tool, result: &CallToolResult) -> Vec<String> {
    let mut out = Vec::new();
    let Some(text) = text(result) else {
        out.push("no text content (C17)".into());
        return out;
    };
    if result.is_error == Some(true) {
        if result.structured_content.is_some() {
            out.push("an error carries structuredContent (C16)".into());
        }
        if tool.output_schema.is_none() {
            return out; // legacy errors are `Error: ...` text (C21)
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(payload)) => {
                let keys: Vec<&str> = payload.keys().map(String::as_str).collect();
                if keys.first() != Some(&"error")
                    || keys.get(1) != Some(&"message")
                    || keys.last() != Some(&"platform")
                {
                    out.push(format!(
                        "error payload keys are {keys:?}, not [error, message, ..., platform] (C16)"
                    ));
                }
                check_platform(payload.get("platform"), &mut out);
                if !payload.get("error").is_some_and(Value::is_string)
                    || !payload.get("message").is_some_and(Value::is_string)
                {
                    out.push("error without a string code and message (C16)".into());
                }
            }
            _ => out.push("error text is not a JSON object (C16)".into()),
        }
        if text.contains('\n') {
            out.push("error text is not compact (C17)".into());
        }
        if !text.starts_with(r#"{"error":"#) {
            out.push("error text does not read as an error from its first bytes (C16)".into());
        }
        return out;
    }
    let Some(schema) = &tool.output_schema else {
        if result.structured_content.is_some() {
            out.push("a legacy tool (no outputSchema) returned structuredContent (C21)".into());
        }
        return out;
    };
    let Some(structured) = &result.structured_content else {
        out.push("a tool with an outputSchema returned no structuredContent (C8)".into());
        return out;
    };
    match OutputValidator::new(schema) {
        Ok(validator) => {
            if let Err(violations) = validator.check(structured) {
                out.push(format!(
                    "structuredContent breaks the outputSchema (C8): {violations}"
                ));
            }
        }
        Err(e) => out.push(format!("the outputSchema does not compile: {e}")),
    }
    let compact = serde_json::to_string(structured).unwrap_or_default();
    if text != compact {
        out.push(
            "content[0].text is not the compact serialization of structuredContent (C17)".into(),
        );
    }
    match structured {
        Value::Object(envelope) => {
            let keys: Vec<&str> = envelope.keys().map(String::as_str).collect();
            let expected: Vec<&str> = SLOTS
                .iter()
                .copied()
                .filter(|s| envelope.contains_key(*s))
                .collect();
            if keys != expected
                || !envelope.contains_key("platform")
                || !envelope.contains_key("data")
            {
                out.push(format!(
                    "envelope keys {keys:?} are not platform, data[, resource, state, control] (C1)"
                ));
            }
            check_platform(envelope.get("platform"), &mut out);
            if envelope.contains_key("control") && envelope.get("data") != Some(&Value::Null) {
                out.push("control with non-null data (C18)".into());
            }
        }
        _ => out.push("structuredContent is not an object (C1)".into()),
    }
    out
}

/// Every way `shaped`, an answer in `form`, keeps other than the form says of `whole`, the
/// same call answered in the `both` form (which [`problems`] checks): an error, a legacy
/// answer and every answer of `both` are kept whole; `structured` keeps `structuredContent`
/// with an empty `content`; `text` keeps the text without `structuredContent` (C22).
pub fn form_problems(
    form: ResultForm,
    whole: &CallToolResult,
    shaped: &CallToolResult,
) -> Vec<String> {
    let mut out = Vec::new();
    if shaped.is_error != whole.is_error {
        out.push(format!(
            "isError is {:?} in the {form} form, {:?} in both",
            shaped.is_error, whole.is_error
        ));
    }
    let kept_whole = form == ResultForm::Both
        || whole.is_error == Some(true)
        || whole.structured_content.is_none();
    if kept_whole {
        if shaped != whole {
            out.push(format!("the {form} form changed an answer it keeps whole"));
        }
        return out;
    }
    match form {
        ResultForm::Both => {}
        ResultForm::Structured => {
            if !shaped.content.is_empty() {
                out.push("the structured form sent content (C22: an empty array)".into());
            }
            if shaped.structured_content != whole.structured_content {
                out.push(
                    "the structured form's structuredContent is not the whole answer's".into(),
                );
            }
        }
        ResultForm::Text => {
            if shaped.structured_content.is_some() {
                out.push("the text form sent structuredContent (C22)".into());
            }
            if shaped.content != whole.content {
                out.push("the text form's content is not the whole answer's text (C17)".into());
            }
        }
    }
    out
}

fn check_platform(platform: Option<&Value>, out: &mut Vec<String>) {
    let ok = platform.and_then(Value::as_object).is_some_and(|p| {
        p.len() == 2
            && p.get("name").is_some_and(Value::is_string)
            && p.get("host").is_some_and(Value::is_string)
    });
    if !ok {
        out.push("platform is not {name, host} (C2)".into());
    }
}

/// The arguments a call passes that `tool` (a `tools/list` entry; `None`: not listed) does
/// not declare in its `inputSchema`.
pub fn undeclared<'a>(tool: Option<&Value>, arguments: &'a Value) -> Vec<&'a str> {
    let declared = tool
        .and_then(|t| t.pointer("/inputSchema/properties"))
        .and_then(Value::as_object);
    arguments
        .as_object()
        .into_iter()
        .flat_map(serde_json::Map::keys)
        .filter(|k| declared.is_none_or(|d| !d.contains_key(*k)))
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ContentBlock;
    use serde_json::json;

    fn failed(text: &str) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text(text)])
    }

    #[test]
    fn an_error_reads_the_same_in_the_flat_payload_and_in_an_older_build_s_nested_one() {
        let want = json!({"code": "not_found", "message": "x", "status": 404});
        let flat = r#"{"error":"not_found","message":"x","status":404,"platform":{"name":"a","host":"b"}}"#;
        let nested = r#"{"error":{"code":"not_found","message":"x","status":404},"platform":{"name":"a","host":"b"}}"#;
        for text in [flat, nested] {
            assert_eq!(error(&failed(text)), Some(want.clone()), "{text}");
        }
        assert_eq!(
            error(&failed("Error: x")),
            None,
            "a legacy error is not C16"
        );
    }
}
