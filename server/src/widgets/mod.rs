//! The widget component catalogue shipped inside the binary, and the local work on widget
//! projects built from it (scaffolding, validation), used by `tools/widgets` and by the
//! `modyo://widgets/catalog/...` resources.
//!
//! The catalogue (`catalog.json`, embedded with `include_str!` and parsed once) describes the
//! building blocks of Modyo widgets: the React components of Dynamic UI
//! (`@dynamic-framework/ui-react`, the library Modyo's widget templates use), each with typed
//! props, and a few patterns that compose them. The server holds it whole, so every list over
//! it is complete by evidence (C6, case 3). Nothing here makes an HTTP call.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod faces;
pub(crate) mod jsx;
pub(crate) mod resources;
pub(crate) mod scaffold;
pub(crate) mod validate;

pub(crate) use faces::{ComponentDetail, ComponentSummary, PatternDetail};

/// The embedded catalogue, as shipped.
const CATALOG_JSON: &str = include_str!("catalog.json");

/// The whole catalogue: the component package, its components and the patterns.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Catalogue {
    /// The npm package the components come from.
    pub(crate) package: String,
    /// The package version the catalogue describes (and scaffolded projects depend on).
    pub(crate) version: String,
    /// The components, in catalogue order.
    pub(crate) components: Vec<Component>,
    /// The patterns, in catalogue order.
    pub(crate) patterns: Vec<Pattern>,
}

/// One component and its props.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Component {
    /// Stable kebab-case id (`button`), the key of the resource URI.
    pub(crate) id: String,
    /// The exported React name (`DButton`).
    pub(crate) name: String,
    /// A coarse group (`forms`, `layout`, ...).
    pub(crate) category: String,
    /// What it is for.
    pub(crate) description: String,
    /// Static subcomponents (`DCard.Header`).
    #[serde(default)]
    pub(crate) subcomponents: Vec<String>,
    /// Whether it forwards any other HTML or library attribute (no `unknown_prop` then).
    #[serde(default)]
    pub(crate) passthrough: bool,
    /// The typed props.
    pub(crate) props: Vec<Prop>,
    /// A usage snippet.
    pub(crate) example: String,
}

/// One prop of a component.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Prop {
    /// The prop name as written in JSX.
    pub(crate) name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub(crate) kind: PropType,
    /// Whether the component needs it.
    #[serde(default)]
    pub(crate) required: bool,
    /// The value the component uses when it is absent.
    #[serde(default)]
    pub(crate) default: Option<Value>,
    /// What it does.
    pub(crate) description: String,
    /// The allowed values of an `enum` prop.
    #[serde(default)]
    pub(crate) values: Vec<String>,
}

/// The type of a prop, as the validator checks it: a string, a number, a boolean (`disabled`
/// alone means `true`), one string of `values` (`enum`), an array, an object, a callback
/// (`function`) or anything React renders (`node`). The variants carry no docs of their own,
/// so the derived schema is a plain `enum` of the wire names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PropType {
    String,
    Number,
    Boolean,
    Enum,
    Array,
    Object,
    Function,
    Node,
}

impl PropType {
    /// The wire name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PropType::String => "string",
            PropType::Number => "number",
            PropType::Boolean => "boolean",
            PropType::Enum => "enum",
            PropType::Array => "array",
            PropType::Object => "object",
            PropType::Function => "function",
            PropType::Node => "node",
        }
    }
}

/// A composition of components for a common widget need.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Pattern {
    /// Stable kebab-case id (`login-form`).
    pub(crate) id: String,
    /// Display name.
    pub(crate) name: String,
    /// What it builds.
    pub(crate) description: String,
    /// The component ids it uses.
    pub(crate) components: Vec<String>,
    /// Statements before the JSX (state, data).
    pub(crate) setup: String,
    /// The JSX it renders.
    pub(crate) jsx: String,
}

/// The embedded catalogue, parsed once; [`check`] proves at start-up that it parses.
pub(crate) fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| parse().unwrap_or_default())
}

fn parse() -> Result<Catalogue, String> {
    let catalogue: Catalogue =
        serde_json::from_str(CATALOG_JSON).map_err(|e| format!("catalog.json: {e}"))?;
    catalogue.consistent()?;
    Ok(catalogue)
}

/// Start-up check of the embedded catalogue: it parses and is consistent (unique ids and
/// names, enum props with values, patterns naming known components). A failure is a bug in
/// the shipped data, reported before any tool answers from it.
pub(crate) fn check() -> Result<(), String> {
    parse().map(|_| ())
}

impl Catalogue {
    fn consistent(&self) -> Result<(), String> {
        let mut ids = std::collections::BTreeSet::new();
        let mut names = std::collections::BTreeSet::new();
        for c in &self.components {
            if !ids.insert(c.id.as_str()) || !names.insert(c.name.as_str()) {
                return Err(format!("component {} is defined twice", c.id));
            }
            let mut props = std::collections::BTreeSet::new();
            for p in &c.props {
                if !props.insert(p.name.as_str()) {
                    return Err(format!("{}.{} is defined twice", c.name, p.name));
                }
                if (p.kind == PropType::Enum) == p.values.is_empty() {
                    return Err(format!(
                        "{}.{}: values go with enum props, and only with them",
                        c.name, p.name
                    ));
                }
                let default_fits = match (&p.default, p.kind) {
                    (None, _) => true,
                    (Some(Value::String(s)), PropType::Enum) => p.values.contains(s),
                    (Some(Value::String(_)), PropType::String) => true,
                    (Some(Value::Bool(_)), PropType::Boolean) => true,
                    (Some(Value::Number(_)), PropType::Number) => true,
                    _ => false,
                };
                if !default_fits {
                    return Err(format!(
                        "{}.{}: default does not fit its type",
                        c.name, p.name
                    ));
                }
            }
        }
        let mut patterns = std::collections::BTreeSet::new();
        for p in &self.patterns {
            if !patterns.insert(p.id.as_str()) {
                return Err(format!("pattern {} is defined twice", p.id));
            }
            if let Some(missing) = p.components.iter().find(|c| !ids.contains(c.as_str())) {
                return Err(format!("pattern {} uses unknown component {missing}", p.id));
            }
        }
        Ok(())
    }

    /// A component by id or exported name: exact id, exact name, then either without regard
    /// to case or the `D` prefix (`Button`, `dbutton`).
    pub(crate) fn component(&self, key: &str) -> Option<&Component> {
        let key = key.trim();
        let exact = self
            .components
            .iter()
            .find(|c| c.id == key || c.name == key);
        exact.or_else(|| {
            let lower = key.to_ascii_lowercase();
            self.components.iter().find(|c| {
                let name = c.name.to_ascii_lowercase();
                c.id == lower || name == lower || name.strip_prefix('d') == Some(lower.as_str())
            })
        })
    }

    /// A component by its exported name, exactly.
    pub(crate) fn by_name(&self, name: &str) -> Option<&Component> {
        self.components.iter().find(|c| c.name == name)
    }

    /// A pattern by id, or by name without regard to case.
    pub(crate) fn pattern(&self, key: &str) -> Option<&Pattern> {
        let key = key.trim();
        self.patterns.iter().find(|p| p.id == key).or_else(|| {
            self.patterns
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(key) || p.id.eq_ignore_ascii_case(key))
        })
    }

    /// The component categories, sorted and unique.
    pub(crate) fn categories(&self) -> Vec<&str> {
        let set: std::collections::BTreeSet<&str> = self
            .components
            .iter()
            .map(|c| c.category.as_str())
            .collect();
        set.into_iter().collect()
    }

    /// The component names a pattern uses, in the pattern's order.
    pub(crate) fn pattern_component_names(&self, pattern: &Pattern) -> Vec<&str> {
        pattern
            .components
            .iter()
            .filter_map(|id| self.components.iter().find(|c| &c.id == id))
            .map(|c| c.name.as_str())
            .collect()
    }
}

impl Component {
    /// Whether `name` is a prop every component accepts (React and Dynamic UI base props,
    /// `aria-*` and `data-*` attributes).
    pub(crate) fn accepts_base(name: &str) -> bool {
        const BASE: [&str; 6] = ["className", "style", "key", "ref", "id", "dataAttributes"];
        BASE.contains(&name) || name.starts_with("aria-") || name.starts_with("data-")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_catalogue_parses_and_is_consistent() {
        check().unwrap();
        let c = catalogue();
        assert!(c.components.len() >= 12, "at least a dozen components ship");
        assert!(c.patterns.len() >= 3, "a few patterns ship");
        assert!(
            c.components.iter().all(|c| !c.props.is_empty()),
            "every component has typed props"
        );
    }

    #[test]
    fn lookup_accepts_id_name_and_loose_forms() {
        let c = catalogue();
        for key in ["button", "DButton", "Button", "dbutton", " button "] {
            assert_eq!(
                c.component(key).map(|c| c.id.as_str()),
                Some("button"),
                "{key}"
            );
        }
        assert!(c.component("DFancyTable").is_none());
        assert_eq!(
            c.pattern("Login form").map(|p| p.id.as_str()),
            Some("login-form")
        );
    }

    #[test]
    fn inconsistent_data_is_refused() {
        let mut bad = catalogue().clone();
        bad.patterns[0].components.push("nope".into());
        assert!(bad.consistent().unwrap_err().contains("nope"));
        let mut bad = catalogue().clone();
        let twin = bad.components[0].clone();
        bad.components.push(twin);
        assert!(bad.consistent().is_err());
    }
}
