//! Structural drift: how the shape of a live response differs from the recorded one, values
//! ignored.
//!
//! A JSON value's shape is its kind and, for objects, the shapes of its keys; the elements of
//! an array are merged into one element shape (the union of their keys), so a list whose 40th
//! entry gained a key is reported once as `$.entries[].new_key`. `null` carries no type: a key
//! that is `null` on one side and a string on the other is not a type change.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// One structural difference at a JSON path (`$.spaces[].uid`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Difference {
    /// The live response has a key the recording does not.
    Added {
        /// Where.
        path: String,
        /// Its kind in the live response.
        live: String,
    },
    /// The recording has a key the live response lacks.
    Removed {
        /// Where.
        path: String,
        /// Its kind in the recording.
        recorded: String,
    },
    /// The same key has another kind.
    TypeChanged {
        /// Where.
        path: String,
        /// The recorded kind(s).
        recorded: String,
        /// The live kind(s).
        live: String,
    },
    /// The HTTP status differs.
    Status {
        /// The recorded status.
        recorded: u16,
        /// The live status.
        live: u16,
    },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Added { path, live } => write!(f, "{path}: added ({live})"),
            Difference::Removed { path, recorded } => write!(f, "{path}: removed (was {recorded})"),
            Difference::TypeChanged {
                path,
                recorded,
                live,
            } => write!(f, "{path}: type changed from {recorded} to {live}"),
            Difference::Status { recorded, live } => {
                write!(f, "status: recorded {recorded}, live {live}")
            }
        }
    }
}

/// The shape of a JSON value: the kinds seen and, for objects and arrays, what they hold.
#[derive(Debug, Default, Clone)]
struct Shape {
    kinds: BTreeSet<&'static str>,
    fields: BTreeMap<String, Shape>,
    has_object: bool,
    elements: Option<Box<Shape>>,
}

impl Shape {
    fn of(value: &Value) -> Shape {
        let mut shape = Shape::default();
        shape.add(value);
        shape
    }

    fn add(&mut self, value: &Value) {
        match value {
            Value::Null => {}
            Value::Bool(_) => {
                self.kinds.insert("boolean");
            }
            Value::Number(_) => {
                self.kinds.insert("number");
            }
            Value::String(_) => {
                self.kinds.insert("string");
            }
            Value::Array(items) => {
                self.kinds.insert("array");
                let elements = self.elements.get_or_insert_with(Box::default);
                for item in items {
                    elements.add(item);
                }
            }
            Value::Object(map) => {
                self.kinds.insert("object");
                self.has_object = true;
                for (k, v) in map {
                    self.fields.entry(k.clone()).or_default().add(v);
                }
            }
        }
    }

    fn kinds(&self) -> String {
        if self.kinds.is_empty() {
            "null".to_owned()
        } else {
            self.kinds.iter().copied().collect::<Vec<_>>().join(" or ")
        }
    }
}

/// The structural differences between a recorded JSON body and a live one, sorted by path.
pub fn json_differences(recorded: &Value, live: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    compare("$", &Shape::of(recorded), &Shape::of(live), &mut out);
    out
}

/// How many JSON paths two bodies both have, values ignored (`$` included): how much one can
/// say about the other. An empty list says nothing about its elements.
pub fn common_paths(recorded: &Value, live: &Value) -> usize {
    common(&Shape::of(recorded), &Shape::of(live))
}

fn common(recorded: &Shape, live: &Shape) -> usize {
    let fields: usize = recorded
        .fields
        .iter()
        .filter_map(|(key, r)| live.fields.get(key).map(|l| common(r, l)))
        .sum();
    let elements = match (&recorded.elements, &live.elements) {
        (Some(r), Some(l)) if !r.kinds.is_empty() && !l.kinds.is_empty() => common(r, l),
        _ => 0,
    };
    1 + fields + elements
}

fn compare(path: &str, recorded: &Shape, live: &Shape, out: &mut Vec<Difference>) {
    // Unknown kinds (only nulls, or an empty array's elements) compare with anything.
    if !recorded.kinds.is_empty() && !live.kinds.is_empty() && recorded.kinds != live.kinds {
        out.push(Difference::TypeChanged {
            path: path.to_owned(),
            recorded: recorded.kinds(),
            live: live.kinds(),
        });
    }
    if recorded.has_object && live.has_object {
        let keys: BTreeSet<&String> = recorded.fields.keys().chain(live.fields.keys()).collect();
        for key in keys {
            let at = format!("{path}.{key}");
            match (recorded.fields.get(key), live.fields.get(key)) {
                (Some(r), Some(l)) => compare(&at, r, l, out),
                (Some(r), None) => out.push(Difference::Removed {
                    path: at,
                    recorded: r.kinds(),
                }),
                (None, Some(l)) => out.push(Difference::Added {
                    path: at,
                    live: l.kinds(),
                }),
                (None, None) => {}
            }
        }
    }
    if let (Some(r), Some(l)) = (&recorded.elements, &live.elements) {
        compare(&format!("{path}[]"), r, l, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_added_removed_and_retyped_are_reported_values_ignored() {
        let recorded = json!({"spaces": [{"id": 1, "uid": "a", "name": "x", "tags": []}], "meta": {"total_entries": 1}});
        let live = json!({"spaces": [{"id": "1", "name": "y", "region": "cl", "tags": ["t"]}, {"id": "2", "name": null}], "meta": {"total_entries": 2}});
        let text: Vec<String> = json_differences(&recorded, &live)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            text,
            [
                "$.spaces[].id: type changed from number to string",
                "$.spaces[].region: added (string)",
                "$.spaces[].uid: removed (was string)",
            ]
        );
    }

    #[test]
    fn common_paths_count_what_both_bodies_have() {
        let full = json!({"menus": [{"id": 1, "slug": "a"}], "meta": {"page": 1}});
        let live = json!({"menus": [{"id": 2, "slug": 3}], "meta": {"page": 1}});
        assert_eq!(common_paths(&full, &live), 7);
        assert_eq!(common_paths(&json!({"menus": [], "meta": {}}), &live), 3);
        assert_eq!(common_paths(&json!([]), &live), 1);
    }

    #[test]
    fn equal_shapes_and_nulls_give_nothing() {
        let a = json!({"a": null, "b": [1, 2], "c": {"d": "x"}});
        let b = json!({"a": "now set", "b": [], "c": {"d": "y"}});
        assert!(json_differences(&a, &b).is_empty());
        let diff = json_differences(&json!([1]), &json!({"errors": []}));
        assert_eq!(diff[0].to_string(), "$: type changed from array to object");
    }
}
