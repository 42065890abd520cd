//! [`Shape`]: the tree of keys and types of a body or a parameter, and how a value conforms
//! to one.
//!
//! A shape is written compactly in the surface files:
//!
//! - a scalar is its type name: `"string"`, `"integer"`, `"number"`, `"boolean"`, `"file"`,
//!   `"any"` (the document does not say), or `"object"` (an object whose keys the document does
//!   not list);
//! - `{"<type>": [<value>, ...]}`: a scalar of that type whose values the document enumerates
//!   (`{"string": ["asc", "desc"]}`, `{"integer": [0, 2, 3]}`), the values as written there;
//! - `{"array": <shape>}`: an array of items of one shape;
//! - `{"object": {"key": <shape>, ...}}`: an object with the keys the document lists (sorted);
//! - `{"any_of": [<shape>, ...]}`: one of several shapes (OpenAPI 3 `oneOf` / `anyOf`);
//! - `{"cycle": "<Name>"}`: the definition `Name` again, where a reference loops back on itself
//!   (any value conforms there);
//! - `{"unresolved": "<reference>"}`: the document refers to a definition it does not have
//!   (any value conforms there).
//!
//! Conformance is about keys, types and enumerations: a value of an enumerated scalar must be
//! one of its values (compared by their text, so the query string's `1` is the document's `1`
//! and a document that types `[0, 1]` as strings accepts `"0"`). Formats and bounds are not
//! checked. `null` conforms to every shape, since Swagger 2.0 has no way to say a value may be
//! null and Modyo answers `null` for unset values.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The keys and types of a value, as the specification declares them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// Anything (the document gives no type).
    Any,
    /// A JSON string.
    String,
    /// A JSON number without a fraction.
    Integer,
    /// Any JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A file (multipart upload); any value conforms.
    File,
    /// A JSON object whose keys the document does not list.
    FreeObject,
    /// A scalar whose values the document enumerates.
    Enum {
        /// The scalar type the document declares.
        of: Box<Shape>,
        /// The documented values, in the document's order (strings, numbers or booleans).
        values: Vec<Value>,
    },
    /// A JSON object with the listed keys.
    Object(BTreeMap<String, Shape>),
    /// A JSON array of items of one shape.
    Array(Box<Shape>),
    /// One of several shapes.
    AnyOf(Vec<Shape>),
    /// The named definition again (a recursive reference); any value conforms.
    Cycle(String),
    /// A reference the document does not resolve; any value conforms.
    Unresolved(String),
}

impl Shape {
    /// The scalar shape named `name`, if it is one.
    fn scalar(name: &str) -> Option<Shape> {
        Some(match name {
            "any" => Shape::Any,
            "string" => Shape::String,
            "integer" => Shape::Integer,
            "number" => Shape::Number,
            "boolean" => Shape::Boolean,
            "file" => Shape::File,
            "object" => Shape::FreeObject,
            _ => return None,
        })
    }

    fn scalar_name(&self) -> Option<&'static str> {
        Some(match self {
            Shape::Any => "any",
            Shape::String => "string",
            Shape::Integer => "integer",
            Shape::Number => "number",
            Shape::Boolean => "boolean",
            Shape::File => "file",
            Shape::FreeObject => "object",
            _ => return None,
        })
    }

    /// Reads the compact written form.
    pub fn from_value(value: &Value) -> Result<Shape, String> {
        match value {
            Value::String(name) => {
                Shape::scalar(name).ok_or_else(|| format!("unknown type name '{name}'"))
            }
            Value::Object(map) if map.len() == 1 => {
                let (key, inner) = map.iter().next().ok_or("an empty shape object")?;
                match (key.as_str(), inner) {
                    ("array", item) => Ok(Shape::Array(Box::new(Shape::from_value(item)?))),
                    ("object", Value::Object(keys)) => keys
                        .iter()
                        .map(|(k, v)| Ok((k.clone(), Shape::from_value(v)?)))
                        .collect::<Result<_, String>>()
                        .map(Shape::Object),
                    ("any_of", Value::Array(items)) => items
                        .iter()
                        .map(Shape::from_value)
                        .collect::<Result<_, _>>()
                        .map(Shape::AnyOf),
                    ("cycle", Value::String(name)) => Ok(Shape::Cycle(name.clone())),
                    (name, Value::Array(values)) => Shape::enumerated(name, values),
                    ("unresolved", Value::String(r)) => Ok(Shape::Unresolved(r.clone())),
                    (other, _) => Err(format!("unknown shape form '{other}'")),
                }
            }
            other => Err(format!("not a shape: {other}")),
        }
    }

    /// An enumerated scalar written `{"<name>": [values]}`.
    fn enumerated(name: &str, values: &[Value]) -> Result<Shape, String> {
        let of = Shape::scalar(name)
            .filter(|s| *s != Shape::FreeObject && *s != Shape::File)
            .ok_or_else(|| format!("'{name}' takes no enumeration"))?;
        if values.is_empty() {
            return Err(format!("an empty enumeration of {name}"));
        }
        if let Some(bad) = values
            .iter()
            .find(|v| !matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_)))
        {
            return Err(format!("an enumerated value is not a scalar: {bad}"));
        }
        Ok(Shape::Enum {
            of: Box::new(of),
            values: values.to_vec(),
        })
    }

    /// A short description for messages: `integer`, `array of string`, `object`.
    pub fn describe(&self) -> String {
        match self {
            Shape::Object(_) => "object".into(),
            Shape::Array(item) => format!("array of {}", item.describe()),
            Shape::AnyOf(options) => format!(
                "one of ({})",
                options
                    .iter()
                    .map(Shape::describe)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Shape::Cycle(name) => format!("{name} (recursive)"),
            Shape::Unresolved(reference) => format!("{reference} (unresolved)"),
            Shape::Enum { of, values } => format!("{} ({})", of.describe(), value_list(values)),
            scalar => scalar.scalar_name().unwrap_or("any").to_owned(),
        }
    }

    /// How a single query-string value fails this scalar shape, if it does.
    fn text_mismatch(&self, text: &str) -> Option<String> {
        let typed = match self {
            Shape::Integer => text.parse::<i64>().is_ok(),
            Shape::Number => text.parse::<f64>().is_ok_and(f64::is_finite),
            Shape::Boolean => matches!(text, "true" | "false"),
            Shape::AnyOf(options) => options.iter().any(|o| o.text_mismatch(text).is_none()),
            Shape::Enum { of, values } => {
                return of.text_mismatch(text).or_else(|| {
                    (!values.iter().any(|v| value_text(v) == text)).then(|| {
                        format!(
                            "'{text}' is not a documented value ({})",
                            value_list(values)
                        )
                    })
                });
            }
            _ => true,
        };
        (!typed).then(|| format!("'{text}' is not of type {}", self.describe()))
    }

    /// Checks the values a query key carries (one, or several for a repeated key); the error
    /// describes the mismatch.
    pub fn conform_query(&self, values: &[String]) -> Result<(), String> {
        match self {
            Shape::Array(item) => match values.iter().find_map(|v| item.text_mismatch(v)) {
                Some(why) => Err(format!("{why} (declared {})", self.describe())),
                None => Ok(()),
            },
            scalar if values.len() > 1 => Err(format!(
                "sent {} times, but declared a single {}",
                values.len(),
                scalar.describe()
            )),
            scalar => match values.iter().find_map(|v| scalar.text_mismatch(v)) {
                Some(why) => Err(why),
                None => Ok(()),
            },
        }
    }
}

/// How a JSON value differs from a shape.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mismatch {
    /// The value at `at` is not of the declared type.
    Type {
        /// Where: a JSON path with `[]` for any array item (`$.entries[].id`).
        at: String,
        /// The declared shape, described.
        expected: String,
        /// The JSON type found.
        found: &'static str,
    },
    /// The object at `at` has a key the shape does not list.
    UnknownKey {
        /// Where: the key's JSON path (`$.entries[].slug`).
        at: String,
    },
    /// The value at `at` is of the declared type but not one of the documented values.
    Value {
        /// Where: a JSON path with `[]` for any array item (`$.sites[].status`).
        at: String,
        /// The documented values, listed (`enabled, disabled, draft`).
        documented: String,
        /// The value found, as text.
        found: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Type {
                at,
                expected,
                found,
            } => write!(f, "{at}: declared {expected}, found {found}"),
            Mismatch::UnknownKey { at } => write!(f, "{at}: a key the specification does not list"),
            Mismatch::Value {
                at,
                documented,
                found,
            } => write!(
                f,
                "{at}: '{found}' is not a documented value ({documented})"
            ),
        }
    }
}

/// A scalar value as text: a string as itself, a number or boolean as JSON writes it.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Documented values for messages: `enabled, disabled, draft`.
fn value_list(values: &[Value]) -> String {
    values.iter().map(value_text).collect::<Vec<_>>().join(", ")
}

/// The JSON type of a value, for messages.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Holds `value` to `shape`, adding every mismatch (each location once) to `out`. `at` is the
/// JSON path of `value` (`$` for a whole body).
pub fn conform(value: &Value, shape: &Shape, at: &str, out: &mut Vec<Mismatch>) {
    let type_mismatch = |out: &mut Vec<Mismatch>| {
        push_once(
            out,
            Mismatch::Type {
                at: at.to_owned(),
                expected: shape.describe(),
                found: json_type(value),
            },
        );
    };
    match (shape, value) {
        (_, Value::Null)
        | (Shape::Any | Shape::File | Shape::Cycle(_) | Shape::Unresolved(_), _) => {}
        (Shape::String, Value::String(_))
        | (Shape::Boolean, Value::Bool(_))
        | (Shape::Number, Value::Number(_))
        | (Shape::FreeObject, Value::Object(_)) => {}
        (Shape::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => {}
        (Shape::Object(keys), Value::Object(map)) => {
            for (key, item) in map {
                let here = format!("{at}.{key}");
                match keys.get(key) {
                    Some(inner) => conform(item, inner, &here, out),
                    None => push_once(out, Mismatch::UnknownKey { at: here }),
                }
            }
        }
        (Shape::Enum { of, values }, _) => {
            let mut typed = Vec::new();
            conform(value, of, at, &mut typed);
            if !typed.is_empty() {
                for m in typed {
                    push_once(out, m);
                }
            } else if !values.iter().any(|v| value_text(v) == value_text(value)) {
                push_once(
                    out,
                    Mismatch::Value {
                        at: at.to_owned(),
                        documented: value_list(values),
                        found: value_text(value),
                    },
                );
            }
        }
        (Shape::Array(inner), Value::Array(items)) => {
            let here = format!("{at}[]");
            for item in items {
                conform(item, inner, &here, out);
            }
        }
        (Shape::AnyOf(options), _) => {
            let best = options
                .iter()
                .map(|option| {
                    let mut found = Vec::new();
                    conform(value, option, at, &mut found);
                    found
                })
                .filter(|found| {
                    !found
                        .iter()
                        .any(|m| matches!(m, Mismatch::Type { .. } | Mismatch::Value { .. }))
                })
                .min_by_key(Vec::len);
            match best {
                Some(found) => {
                    for m in found {
                        push_once(out, m);
                    }
                }
                None => type_mismatch(out),
            }
        }
        _ => type_mismatch(out),
    }
}

fn push_once(out: &mut Vec<Mismatch>, mismatch: Mismatch) {
    if !out.contains(&mismatch) {
        out.push(mismatch);
    }
}

impl Serialize for Shape {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(name) = self.scalar_name() {
            return serializer.serialize_str(name);
        }
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            Shape::Object(keys) => map.serialize_entry("object", keys)?,
            Shape::Array(item) => map.serialize_entry("array", item)?,
            Shape::AnyOf(options) => map.serialize_entry("any_of", options)?,
            Shape::Cycle(name) => map.serialize_entry("cycle", name)?,
            Shape::Unresolved(reference) => map.serialize_entry("unresolved", reference)?,
            Shape::Enum { of, values } => {
                map.serialize_entry(of.scalar_name().unwrap_or("any"), values)?;
            }
            _ => {}
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Shape::from_value(&value).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shape(value: Value) -> Shape {
        Shape::from_value(&value).expect("a shape")
    }

    fn mismatches(value: Value, shape: &Shape) -> Vec<String> {
        let mut out = Vec::new();
        conform(&value, shape, "$", &mut out);
        out.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_written_form_round_trips() {
        let written = json!({"object": {
            "id": "integer",
            "tags": {"array": "string"},
            "meta": "object",
            "any": {"any_of": ["string", "integer"]},
            "self": {"cycle": "Node"},
            "gone": {"unresolved": "#/definitions/Gone"}
        }});
        let parsed = shape(written.clone());
        assert_eq!(serde_json::to_value(&parsed).expect("writes"), written);
        assert!(Shape::from_value(&json!("date-time")).is_err());
        assert!(Shape::from_value(&json!({"map": "string"})).is_err());
    }

    #[test]
    fn keys_and_types_are_checked_and_each_location_is_reported_once() {
        let entry = shape(
            json!({"object": {"id": "integer", "name": "string", "tags": {"array": "string"}}}),
        );
        let list = Shape::Object(BTreeMap::from([(
            "entries".to_owned(),
            Shape::Array(Box::new(entry)),
        )]));
        let found = mismatches(
            json!({"entries": [
                {"id": 1, "name": "a", "tags": ["x"], "slug": "a"},
                {"id": "2", "name": null, "tags": [3], "slug": "b"},
                {"id": 3.5}
            ]}),
            &list,
        );
        assert_eq!(
            found,
            [
                "$.entries[].slug: a key the specification does not list",
                "$.entries[].id: declared integer, found string",
                "$.entries[].tags[]: declared string, found integer",
                "$.entries[].id: declared integer, found number",
            ]
        );
        assert!(mismatches(json!({"a": 1}), &Shape::FreeObject).is_empty());
        assert!(mismatches(json!([1, "x"]), &Shape::Any).is_empty());
        assert_eq!(
            mismatches(json!([]), &Shape::FreeObject),
            ["$: declared object, found array"]
        );
    }

    #[test]
    fn any_of_takes_the_closest_alternative() {
        let either = shape(json!({"any_of": ["integer", {"object": {"id": "integer"}}]}));
        assert!(mismatches(json!(3), &either).is_empty());
        assert_eq!(
            mismatches(json!({"id": 1, "x": 2}), &either),
            ["$.x: a key the specification does not list"]
        );
        assert_eq!(
            mismatches(json!("x"), &either),
            ["$: declared one of (integer, object), found string"]
        );
    }

    #[test]
    fn query_values_are_held_to_scalars_and_arrays() {
        assert_eq!(Shape::Integer.conform_query(&["12".into()]), Ok(()));
        assert_eq!(
            Shape::Integer.conform_query(&["branch".into()]),
            Err("'branch' is not of type integer".into())
        );
        assert_eq!(
            Shape::Boolean.conform_query(&["1".into()]),
            Err("'1' is not of type boolean".into())
        );
        assert!(
            Shape::String
                .conform_query(&["a".into(), "b".into()])
                .is_err()
        );
        let states = shape(json!({"array": "string"}));
        assert_eq!(states.conform_query(&["a".into(), "b".into()]), Ok(()));
        let ids = shape(json!({"array": "integer"}));
        assert!(ids.conform_query(&["1".into(), "x".into()]).is_err());
    }

    #[test]
    fn an_enumeration_is_written_under_its_type_and_read_back() {
        let written = json!({"object": {
            "order": {"string": ["asc", "desc"]},
            "status": {"integer": [0, 2, 3]},
            "states": {"array": {"string": ["lent", "shelved"]}}
        }});
        let parsed = shape(written.clone());
        assert_eq!(serde_json::to_value(&parsed).expect("writes"), written);
        assert!(Shape::from_value(&json!({"object": ["a"]})).is_err());
        assert!(Shape::from_value(&json!({"string": []})).is_err());
        assert!(Shape::from_value(&json!({"string": [{"a": 1}]})).is_err());
    }

    #[test]
    fn a_query_value_outside_its_enumeration_fails_and_one_inside_passes() {
        let status = shape(json!({"string": ["enabled", "disabled", "draft"]}));
        assert_eq!(status.conform_query(&["draft".into()]), Ok(()));
        assert_eq!(
            status.conform_query(&["staging".into()]),
            Err("'staging' is not a documented value (enabled, disabled, draft)".into())
        );
        // Numbers and booleans compare by their text; the type is checked first.
        let active = shape(json!({"integer": [0, 1]}));
        assert_eq!(active.conform_query(&["1".into()]), Ok(()));
        assert_eq!(
            active.conform_query(&["2".into()]),
            Err("'2' is not a documented value (0, 1)".into())
        );
        assert_eq!(
            active.conform_query(&["yes".into()]),
            Err("'yes' is not of type integer".into())
        );
        let states = shape(json!({"array": {"string": ["lent", "shelved"]}}));
        assert_eq!(
            states.conform_query(&["lent".into(), "shelved".into()]),
            Ok(())
        );
        assert_eq!(
            states.conform_query(&["lent".into(), "lost".into()]),
            Err(
                "'lost' is not a documented value (lent, shelved) (declared array of string (lent, shelved))"
                    .into()
            )
        );
    }

    #[test]
    fn a_body_value_outside_its_enumeration_is_a_mismatch() {
        let site = shape(json!({"object": {"status": {"string": ["enabled", "disabled"]}}}));
        assert!(mismatches(json!({"status": "enabled"}), &site).is_empty());
        assert!(mismatches(json!({"status": null}), &site).is_empty());
        assert_eq!(
            mismatches(json!({"status": "staging"}), &site),
            ["$.status: 'staging' is not a documented value (enabled, disabled)"]
        );
        // The wrong type is a type mismatch, not a value one.
        assert_eq!(
            mismatches(json!({"status": 2}), &site),
            ["$.status: declared string, found integer"]
        );
        // A document that types numbers as strings accepts their text.
        let sex = shape(json!({"string": [0, 1, 3]}));
        assert!(mismatches(json!("1"), &sex).is_empty());
        // Alternatives: the value must fit one of them, enumeration included.
        let either = shape(json!({"any_of": [{"string": ["a"]}, {"string": ["b"]}]}));
        assert!(mismatches(json!("b"), &either).is_empty());
        assert_eq!(
            mismatches(json!("c"), &either),
            ["$: declared one of (string (a), string (b)), found string"]
        );
    }
}
