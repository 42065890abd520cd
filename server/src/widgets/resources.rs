//! The catalogue as MCP resources: `modyo://widgets/catalog/components[/{componentId}]` and
//! `modyo://widgets/catalog/patterns[/{patternId}]`, compact JSON with the same faces the
//! tools return. Listed only when the widgets module is active.

use rmcp::model::{Resource, ResourceTemplate};
use serde_json::{Value, json};

use super::catalogue;

/// The component list.
pub(crate) const COMPONENTS_URI: &str = "modyo://widgets/catalog/components";
/// The pattern list.
pub(crate) const PATTERNS_URI: &str = "modyo://widgets/catalog/patterns";
/// The MIME type of every catalogue resource.
pub(crate) const MIME: &str = "application/json";

/// The two list resources.
pub(crate) fn list() -> Vec<Resource> {
    vec![
        Resource::new(COMPONENTS_URI, "widgets-components")
            .with_description("Widget components of the catalogue: id, name, category, description")
            .with_mime_type(MIME),
        Resource::new(PATTERNS_URI, "widgets-patterns")
            .with_description("Widget patterns: compositions of catalogue components, with code")
            .with_mime_type(MIME),
    ]
}

/// The two item templates.
pub(crate) fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(
            format!("{COMPONENTS_URI}/{{componentId}}"),
            "widgets-component",
        )
        .with_description("One widget component with its typed props (id or name, such as button)")
        .with_mime_type(MIME),
        ResourceTemplate::new(format!("{PATTERNS_URI}/{{patternId}}"), "widgets-pattern")
            .with_description("One widget pattern with its code")
            .with_mime_type(MIME),
    ]
}

/// Whether `uri` names a catalogue resource (known or not).
pub(crate) fn owns(uri: &str) -> bool {
    uri.starts_with("modyo://widgets/catalog/")
}

/// Reads a catalogue resource: its JSON text, or why there is none (an unknown id names the
/// known ones).
pub(crate) fn read(uri: &str) -> Result<String, String> {
    let c = catalogue();
    let value = if uri == COMPONENTS_URI {
        json!({
            "package": c.package,
            "version": c.version,
            "components": c.components.iter().map(|x| x.summary()).collect::<Vec<_>>(),
        })
    } else if uri == PATTERNS_URI {
        json!({
            "patterns": c.patterns.iter().map(|p| p.detail(c)).collect::<Vec<_>>(),
        })
    } else if let Some(id) = uri.strip_prefix(&format!("{COMPONENTS_URI}/")) {
        match c.component(id) {
            Some(component) => json!(component.detail(&c.package)),
            None => {
                return Err(format!(
                    "no widget component '{id}'; known: {}",
                    c.components
                        .iter()
                        .map(|x| x.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    } else if let Some(id) = uri.strip_prefix(&format!("{PATTERNS_URI}/")) {
        match c.pattern(id) {
            Some(pattern) => json!(pattern.detail(c)),
            None => {
                return Err(format!(
                    "no widget pattern '{id}'; known: {}",
                    c.patterns
                        .iter()
                        .map(|p| p.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    } else {
        return Err(format!(
            "no resource {uri}; the catalogue lives at {COMPONENTS_URI}[/<id>] and {PATTERNS_URI}[/<id>]"
        ));
    };
    Ok(Value::to_string(&value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_and_templated_uri_reads() {
        for r in list() {
            let text = read(&r.uri).unwrap();
            assert!(serde_json::from_str::<Value>(&text).is_ok());
        }
        let button: Value =
            serde_json::from_str(&read(&format!("{COMPONENTS_URI}/button")).unwrap()).unwrap();
        assert_eq!(button["name"], "DButton");
        let pattern: Value =
            serde_json::from_str(&read(&format!("{PATTERNS_URI}/login-form")).unwrap()).unwrap();
        assert_eq!(pattern["id"], "login-form");
    }

    #[test]
    fn unknown_ids_name_the_known_ones() {
        let err = read(&format!("{COMPONENTS_URI}/nope")).unwrap_err();
        assert!(err.contains("button"), "{err}");
        let err = read("modyo://widgets/catalog/other").unwrap_err();
        assert!(err.contains(COMPONENTS_URI), "{err}");
    }
}
