//! The catalogue's faces: what the widgets tools answer as `data` and the catalogue resources
//! serve, borrowed from the catalogue. Each is a type, so a tool's `outputSchema` is derived
//! from what it answers (strict: the server writes them key by key, C8, C10).

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::Value;

use super::{Catalogue, Component, Pattern, Prop, PropType};

/// A component in a list: what it is called and what it is for.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct ComponentSummary<'a> {
    /// Stable kebab-case id.
    id: &'a str,
    /// The exported React name.
    name: &'a str,
    /// A coarse group.
    category: &'a str,
    /// What it is for.
    description: &'a str,
}

/// A component with its props, subcomponents and a usage example.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct ComponentDetail<'a> {
    /// Stable kebab-case id.
    pub(crate) id: &'a str,
    /// The exported React name.
    pub(crate) name: &'a str,
    /// A coarse group.
    category: &'a str,
    /// What it is for.
    description: &'a str,
    /// The npm package it comes from.
    package: &'a str,
    /// Static subcomponents; absent when it has none.
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    subcomponents: &'a [String],
    /// The typed props.
    props: Vec<PropDetail<'a>>,
    /// A usage snippet.
    example: &'a str,
}

/// One prop of a component.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct PropDetail<'a> {
    /// The prop name as written in JSX.
    name: &'a str,
    /// Its type.
    #[serde(rename = "type")]
    kind: PropType,
    /// Whether the component needs it.
    required: bool,
    /// The value the component uses when it is absent (a scalar).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "scalar")]
    default: Option<&'a Value>,
    /// The allowed values of an `enum` prop; absent for the others.
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    values: &'a [String],
    /// What it does.
    description: &'a str,
}

/// A prop default: a string, number or boolean (the catalogue check refuses the others).
fn scalar(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": ["string", "number", "boolean", "null"]})
}

/// A pattern with its code: the components it uses (by exported name), then its setup and JSX.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct PatternDetail<'a> {
    /// Stable kebab-case id.
    id: &'a str,
    /// Display name.
    name: &'a str,
    /// What it builds.
    description: &'a str,
    /// The exported names of the components it uses, in its order.
    components: Vec<&'a str>,
    /// Statements before the JSX.
    setup: &'a str,
    /// The JSX it renders.
    jsx: &'a str,
}

impl Component {
    /// The list face.
    pub(crate) fn summary(&self) -> ComponentSummary<'_> {
        ComponentSummary {
            id: &self.id,
            name: &self.name,
            category: &self.category,
            description: &self.description,
        }
    }

    /// The full face, with the package the component comes from.
    pub(crate) fn detail<'a>(&'a self, package: &'a str) -> ComponentDetail<'a> {
        ComponentDetail {
            id: &self.id,
            name: &self.name,
            category: &self.category,
            description: &self.description,
            package,
            subcomponents: &self.subcomponents,
            props: self.props.iter().map(Prop::detail).collect(),
            example: &self.example,
        }
    }
}

impl Prop {
    fn detail(&self) -> PropDetail<'_> {
        PropDetail {
            name: &self.name,
            kind: self.kind,
            required: self.required,
            default: self.default.as_ref(),
            values: &self.values,
            description: &self.description,
        }
    }
}

impl Pattern {
    /// The data face, its components named as the code imports them.
    pub(crate) fn detail<'a>(&'a self, catalogue: &'a Catalogue) -> PatternDetail<'a> {
        PatternDetail {
            id: &self.id,
            name: &self.name,
            description: &self.description,
            components: catalogue.pattern_component_names(self),
            setup: &self.setup,
            jsx: &self.jsx,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::catalogue;
    use crate::contract::OutputValidator;
    use crate::contract::schema::derived;
    use serde::Serialize;

    /// Checks `face` against the schema derived from its type.
    fn check<T: Serialize + schemars::JsonSchema>(face: &T) {
        let schema = derived::<T>();
        let validator = OutputValidator::new(schema.as_object().unwrap()).unwrap();
        validator
            .check(&serde_json::to_value(face).unwrap())
            .unwrap();
    }

    #[test]
    fn faces_validate_against_their_derived_schemas() {
        let c = catalogue();
        for component in &c.components {
            check(&component.summary());
            check(&component.detail(&c.package));
        }
        for pattern in &c.patterns {
            check(&pattern.detail(c));
        }
    }

    #[test]
    fn absent_keys_are_left_out_and_present_ones_keep_their_order() {
        let c = catalogue();
        let button = c.component("button").unwrap();
        let detail = serde_json::to_value(button.detail(&c.package)).unwrap();
        let keys: Vec<&str> = detail
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = vec!["id", "name", "category", "description", "package"];
        if !button.subcomponents.is_empty() {
            expected.push("subcomponents");
        }
        expected.extend(["props", "example"]);
        assert_eq!(keys, expected);
        for (prop, face) in button.props.iter().zip(detail["props"].as_array().unwrap()) {
            assert_eq!(face.get("default"), prop.default.as_ref());
            assert_eq!(face.get("values").is_some(), !prop.values.is_empty());
            assert_eq!(face["type"], prop.kind.as_str());
        }
    }
}
