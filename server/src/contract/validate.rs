//! C8: the server checks its own structured output against the tool's `outputSchema` before
//! sending it (rmcp does not). A violation is a bug in the server, and becomes JSON-RPC
//! `-32602` "Output validation error" instead of a response that lies about its shape.

use jsonschema::Validator;
use serde_json::{Map, Value};

/// A compiled `outputSchema`.
pub struct OutputValidator {
    validator: Validator,
}

impl std::fmt::Debug for OutputValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OutputValidator")
    }
}

impl OutputValidator {
    /// Compiles a schema. Fails only when the schema itself is invalid (a server bug).
    pub fn new(schema: &Map<String, Value>) -> Result<OutputValidator, String> {
        let value = Value::Object(schema.clone());
        jsonschema::validator_for(&value)
            .map(|validator| OutputValidator { validator })
            .map_err(|e| format!("invalid schema: {e}"))
    }

    /// Validates an instance; the error lists up to five violations with their JSON pointers.
    pub fn check(&self, instance: &Value) -> Result<(), String> {
        let violations = self.violations(instance);
        if violations.is_empty() {
            Ok(())
        } else {
            Err(join(&violations))
        }
    }

    /// Up to five violations of an instance, as `(JSON pointer, message)`; none when it is valid.
    pub fn violations(&self, instance: &Value) -> Vec<(String, String)> {
        // The fast path: no error is built for a valid instance (every call's case).
        if self.validator.is_valid(instance) {
            return Vec::new();
        }
        self.validator
            .iter_errors(instance)
            .take(5)
            .map(|e| {
                let message = match e.kind() {
                    jsonschema::error::ValidationErrorKind::Enum { options } => {
                        every_option(e.instance(), options).unwrap_or_else(|| e.to_string())
                    }
                    _ => e.to_string(),
                };
                (
                    e.instance_path().to_string(),
                    shortened(&message, e.instance()),
                )
            })
            .collect()
    }
}

/// The most allowed values an enumeration's violation lists whole.
const LISTED_OPTIONS: usize = 40;

/// An enumeration's violation naming every allowed value (jsonschema names two and counts the
/// rest, which leaves a caller guessing): `"published" is not one of "enabled", "disabled",
/// "draft", "staging"`. `None` for a long or unusual enumeration, which keeps jsonschema's text.
fn every_option(instance: &Value, options: &Value) -> Option<String> {
    let options = options.as_array()?;
    if options.is_empty() || options.len() > LISTED_OPTIONS {
        return None;
    }
    let listed: Vec<String> = options.iter().map(Value::to_string).collect();
    Some(format!("{instance} is not one of {}", listed.join(", ")))
}

/// `pointer: message; ...`, the root written `/`.
pub fn join(violations: &[(String, String)]) -> String {
    violations
        .iter()
        .map(|(path, message)| {
            let path = if path.is_empty() { "/" } else { path };
            format!("{path}: {message}")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The longest rendering of the offending value kept in a violation message.
const SHOWN_CHARS: usize = 80;

/// A violation message with the offending value shortened: jsonschema quotes it whole, and a
/// 10 MB argument must not make a 10 MB error.
fn shortened(message: &str, instance: &Value) -> String {
    let rendered = instance.to_string();
    let chars = rendered.chars().count();
    if chars <= SHOWN_CHARS || !message.contains(&rendered) {
        return message.to_owned();
    }
    let head: String = rendered.chars().take(SHOWN_CHARS).collect();
    message.replacen(&rendered, &format!("{head}... ({chars} characters)"), 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn violations_name_the_pointer() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false});
        let v = OutputValidator::new(schema.as_object().unwrap()).unwrap();
        assert!(v.check(&json!({"a": 1})).is_ok());
        let err = v.check(&json!({"a": "x", "b": 1})).unwrap_err();
        assert!(err.contains("/a"), "{err}");
        assert!(err.contains('b'), "{err}");
    }

    #[test]
    fn an_enumeration_violation_names_every_allowed_value() {
        let schema = json!({"type": "object", "properties": {"status": {"enum": ["enabled", "disabled", "draft", "staging", null]}}});
        let v = OutputValidator::new(schema.as_object().unwrap()).unwrap();
        assert!(v.check(&json!({"status": "draft"})).is_ok());
        let err = v.check(&json!({"status": "published"})).unwrap_err();
        assert_eq!(
            err,
            r#"/status: "published" is not one of "enabled", "disabled", "draft", "staging", null"#
        );
    }

    #[test]
    fn a_long_value_is_not_quoted_whole() {
        let schema =
            json!({"type": "object", "properties": {"q": {"type": "string", "maxLength": 3}}});
        let v = OutputValidator::new(schema.as_object().unwrap()).unwrap();
        let err = v.check(&json!({"q": "x".repeat(100_000)})).unwrap_err();
        assert!(err.len() < 300, "{err}");
        assert!(
            err.contains("longer than 3") && err.contains("100002 characters"),
            "{err}"
        );
    }
}
