//! The one exit every tool response leaves through.
//!
//! Migrated: the envelope `{platform, data, resource?, state?, control?}` (C1, C2) is built,
//! validated once against the tool's own `outputSchema` (C8), and sent as `structuredContent`
//! with its compact serialization as `content[0].text` (C17). Errors become C16 results. Legacy
//! modules get the old rendering instead (C21, [`legacy`]).

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

use super::envelope::{Mode, Outcome};
use super::errors::ToolError;
use super::legacy;
use super::platform::Platform;
use super::validate::{OutputValidator, join};

/// Builds the envelope of a successful (or controlled) call, in slot order.
pub fn envelope(platform: &Platform, outcome: Outcome) -> Value {
    let mut envelope = Map::new();
    envelope.insert("platform".into(), platform.to_value());
    match outcome {
        Outcome::Reply(reply) => {
            if let Some(resource) = &reply.resource {
                let resource = to_value(&resource.beside(&reply.data));
                envelope.insert("data".into(), reply.data);
                envelope.insert("resource".into(), resource);
            } else {
                envelope.insert("data".into(), reply.data);
            }
            if let Some(state) = &reply.state {
                envelope.insert("state".into(), to_value(state));
            }
        }
        Outcome::Control(control) => {
            envelope.insert("data".into(), Value::Null);
            envelope.insert("control".into(), to_value(&control));
        }
    }
    Value::Object(envelope)
}

fn to_value(value: &impl serde::Serialize) -> Value {
    // The contract types serialize infallibly (plain structs of strings and numbers).
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Why an answer failed its `outputSchema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// Only values under `data` break it: the API's values drifted from what the tool
    /// publishes (pointers relative to `data`).
    Upstream(String),
    /// Something the server itself built breaks it: a bug in the server.
    Server(String),
}

/// Renders a handler's outcome. In migrated mode the envelope is validated once against the
/// tool's `outputSchema`; a violation is returned, classified, for the caller to answer.
pub fn respond(
    platform: &Platform,
    mode: Mode,
    validator: Option<&OutputValidator>,
    outcome: Outcome,
) -> Result<CallToolResult, Invalid> {
    if mode == Mode::Legacy {
        let payload = match outcome {
            Outcome::Reply(reply) => reply.legacy.render(reply.data),
            Outcome::Control(control) => legacy::control(&control),
        };
        return Ok(legacy::success(&payload));
    }
    let envelope = envelope(platform, outcome);
    if let Some(validator) = validator {
        let violations = validator.violations(&envelope);
        if !violations.is_empty() {
            return Err(classify(violations));
        }
    }
    Ok(structured(envelope))
}

/// What `CallToolResult::structured` builds (the envelope as `structuredContent`, its compact
/// serialization as the one text block, not an error), serialized by `serde_json::to_string`:
/// rmcp's constructor writes the text through `Display`, a `fmt::Formatter` call per token,
/// about 2.5x slower on a 100-row page, on every call's critical path.
fn structured(envelope: Value) -> CallToolResult {
    // A `Value` always serializes (its keys are strings); `Display` would give the same text.
    let text = serde_json::to_string(&envelope).unwrap_or_else(|_| envelope.to_string());
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(envelope);
    result
}

fn classify(violations: Vec<(String, String)>) -> Invalid {
    let in_data: Option<Vec<(String, String)>> = violations
        .iter()
        .map(|(path, message)| {
            let rest = path.strip_prefix("/data")?;
            (rest.is_empty() || rest.starts_with('/')).then(|| (rest.to_owned(), message.clone()))
        })
        .collect();
    match in_data {
        Some(in_data) => Invalid::Upstream(join(&in_data)),
        None => Invalid::Server(join(&violations)),
    }
}

/// The C16 error payload: `{error, message, ..., platform}`, the code first, so the text
/// reads as an error from its first bytes (some clients forward an error result like a
/// success, without its `isError` flag), and the platform once, last.
pub fn error_payload(platform: &Platform, error: &ToolError) -> Value {
    let mut payload = match error.to_value() {
        Value::Object(keys) => keys,
        _ => Map::new(),
    };
    payload.insert("platform".into(), platform.to_value());
    Value::Object(payload)
}

/// Renders a tool error: compact JSON text `{error, message, ..., platform}`, `isError: true`, no
/// `structuredContent` (C16), in every result form (C22); or the old `Error:` text in legacy
/// mode.
pub fn fail(platform: &Platform, mode: Mode, error: &ToolError) -> CallToolResult {
    match mode {
        Mode::Legacy => legacy::error(error),
        Mode::Migrated => CallToolResult::error(vec![ContentBlock::text(
            error_payload(platform, error).to_string(),
        )]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{
        Control, Coverage, ErrorCode, Reply, Resource, Slots, ToolClass, schema,
    };
    use serde_json::json;

    fn platform() -> Platform {
        Platform {
            name: "acme".into(),
            host: "acme.modyo.cloud".into(),
        }
    }

    fn validator(class: ToolClass, slots: Slots, data: Value) -> OutputValidator {
        OutputValidator::new(&schema::output_schema(class, slots, data, &platform())).unwrap()
    }

    #[test]
    fn text_is_the_compact_serialization_of_structured_content() {
        let reply = Reply::new(json!([{"id": 1}]))
            .resource(Resource::new("space").id(636).name("Sucursales"))
            .state(Coverage::page(1, None, 1));
        let v = validator(
            ToolClass::Read,
            Slots {
                resource: true,
                state: true,
                control: false,
                ..Slots::default()
            },
            json!({"type": "array", "items": {"type": "object"}}),
        );
        let result = respond(&platform(), Mode::Migrated, Some(&v), reply.into()).unwrap();
        let structured = result.structured_content.clone().unwrap();
        let text = result.content[0].as_text().unwrap().text.clone();
        assert_eq!(text, structured.to_string());
        assert!(!text.contains('\n'));
        // Field for field what rmcp's own constructor builds.
        assert_eq!(result, CallToolResult::structured(structured.clone()));
        assert_eq!(
            text,
            r#"{"platform":{"name":"acme","host":"acme.modyo.cloud"},"data":[{"id":1}],"resource":{"type":"space","id":636,"name":"Sucursales"},"state":{"returned":1}}"#
        );
    }

    #[test]
    fn api_values_that_break_the_data_schema_are_upstream_drift() {
        let v = validator(
            ToolClass::Read,
            Slots::default(),
            json!({"type": "array", "items": {"type": "integer"}}),
        );
        let err = respond(
            &platform(),
            Mode::Migrated,
            Some(&v),
            Reply::new(json!(["x"])).into(),
        )
        .unwrap_err();
        let Invalid::Upstream(message) = err else {
            panic!("data drift: {err:?}")
        };
        assert!(message.starts_with("/0: "), "{message}");
    }

    #[test]
    fn a_slot_the_server_built_wrong_is_a_server_bug() {
        let v = validator(ToolClass::Read, Slots::default(), schema::any());
        let reply = Reply::new(json!(1)).state(Coverage::page(1, None, 1));
        let err = respond(&platform(), Mode::Migrated, Some(&v), reply.into()).unwrap_err();
        assert!(matches!(err, Invalid::Server(_)), "{err:?}");
    }

    #[test]
    fn a_rare_state_key_the_tool_did_not_declare_is_a_server_bug() {
        let post = crate::contract::PostCondition::status("queued").pending(true);
        let slots = Slots {
            state: true,
            ..Slots::default()
        };
        let v = validator(ToolClass::Mutation, slots, schema::any());
        let reply = || Reply::new(json!(1)).state(post.clone());
        let err = respond(&platform(), Mode::Migrated, Some(&v), reply().into()).unwrap_err();
        assert!(matches!(err, Invalid::Server(_)), "{err:?}");
        let slots = Slots {
            rare: schema::RareState {
                pending: true,
                ..schema::RareState::default()
            },
            ..slots
        };
        let v = validator(ToolClass::Mutation, slots, schema::any());
        assert!(respond(&platform(), Mode::Migrated, Some(&v), reply().into()).is_ok());
    }

    #[test]
    fn control_validates_with_null_data() {
        let slots = Slots {
            resource: true,
            state: true,
            control: true,
            ..Slots::default()
        };
        let v = validator(ToolClass::Gated, slots, json!({"type": "object"}));
        let control = Control::refused_read_only("content-spaces-manage", "delete");
        let result = respond(
            &platform(),
            Mode::Migrated,
            Some(&v),
            control.clone().into(),
        )
        .unwrap();
        let s = result.structured_content.unwrap();
        assert_eq!(s["data"], Value::Null);
        assert_eq!(s["control"]["outcome"], "refused");
        let old = respond(&platform(), Mode::Legacy, None, control.into()).unwrap();
        let text = &old.content[0].as_text().unwrap().text;
        assert!(text.contains("\"rejected\": \"delete\""), "{text}");
    }

    #[test]
    fn legacy_is_pretty_text_without_structured_content() {
        let reply = Reply::new(json!(1)).old(crate::contract::Legacy::write("done", "ok", "a"));
        let result = respond(&platform(), Mode::Legacy, None, reply.into()).unwrap();
        assert!(result.structured_content.is_none());
        assert_eq!(
            result.content[0].as_text().unwrap().text,
            "{\n  \"message\": \"ok\",\n  \"action\": \"done\",\n  \"a\": 1\n}"
        );
    }

    #[test]
    fn errors_read_as_errors_first_and_carry_platform_once() {
        let e = ToolError::new(ErrorCode::NotFound, "entry 9 not found").with_status(404);
        let result = fail(&platform(), Mode::Migrated, &e);
        assert_eq!(result.is_error, Some(true));
        assert!(result.structured_content.is_none());
        assert_eq!(
            result.content[0].as_text().unwrap().text,
            r#"{"error":"not_found","message":"entry 9 not found","status":404,"platform":{"name":"acme","host":"acme.modyo.cloud"}}"#
        );
    }
}
