//! C8-C10: every tool's `outputSchema`: the envelope's slots written here, its `data` schema
//! derived from the tool's `data` type ([`derived`]).
//!
//! What the server builds (`platform`, `resource`, `state`, `control`, projections) is strict
//! (`additionalProperties: false`); what it echoes from the API is loose, so upstream drift adds
//! information and never breaks a tool. No structural unions anywhere (C9): the only unions are
//! of scalars, or one structured branch plus `null`. No `$schema` key.

use schemars::JsonSchema;
use serde_json::{Map, Value, json};

use super::class::ToolClass;
use super::platform::Platform;

/// Which optional envelope slots a tool can emit. The schema declares only those.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Slots {
    /// The tool reports a `resource` (C4).
    pub resource: bool,
    /// Its `resource` can carry a `path`: only entities that have one (pages, categories, local
    /// directories) do, so the other tools do not declare the key.
    pub resource_path: bool,
    /// The tool reports `state` (C5); its face follows the class.
    pub state: bool,
    /// The tool can answer with `control` (C18): gated tools, and confirmations.
    pub control: bool,
    /// The `state` keys few tools write, declared only by the tools that can write them.
    pub rare: RareState,
}

/// A string.
pub fn string() -> Value {
    json!({"type": "string"})
}

/// A boolean.
pub fn boolean() -> Value {
    json!({"type": "boolean"})
}

/// Any JSON value (an echoed value whose type the API does not fix).
pub fn any() -> Value {
    json!({})
}

/// An integer or a string (ids that are numeric in one API and strings in another).
pub fn id() -> Value {
    json!({"type": ["integer", "string"]})
}

/// `schema` or `null` (the one union C9 allows besides scalars).
pub fn nullable(mut schema: Value) -> Value {
    if let Some(Value::String(kind)) = schema.get("type").cloned() {
        schema["type"] = json!([kind, "null"]);
    } else if let Some(Value::Array(mut kinds)) = schema.get("type").cloned() {
        if !kinds.contains(&json!("null")) {
            kinds.push(json!("null"));
        }
        schema["type"] = Value::Array(kinds);
    }
    schema
}

/// An object the server writes key by key: every key declared, nothing else allowed.
pub fn strict(properties: &[(&str, Value)], required: &[&str]) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    let props: Map<String, Value> = properties
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    schema.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Value::Object(schema)
}

/// A map from names the caller chose (projected field names) to any value.
pub fn map_of(values: Value) -> Value {
    json!({"type": "object", "additionalProperties": values})
}

/// The `platform` slot (C2): the one value this server writes in it, as a `const`. The account
/// is fixed for the life of the process, so the schema promises the exact `{name, host}` every
/// answer carries (stricter than an object of two strings, and a third of its size in every
/// definition a client copies).
pub fn platform(platform: &Platform) -> Value {
    json!({ "const": platform })
}

/// The `resource` slot (C4); `path` only for a tool whose entities have one.
pub fn resource(path: bool) -> Value {
    let keys = [
        ("type", string(), true),
        ("uuid", string(), true),
        ("id", id(), true),
        ("slug", string(), true),
        ("path", string(), path),
        ("name", string(), true),
    ];
    let keys: Vec<(&str, Value)> = keys
        .into_iter()
        .filter_map(|(key, schema, declared)| declared.then_some((key, schema)))
        .collect();
    strict(&keys, &["type"])
}

fn coverage_properties(rare: RareState) -> Vec<(&'static str, Value)> {
    let count = json!({"type": "integer", "minimum": 0});
    [
        ("returned", count.clone(), true),
        ("total", count.clone(), true),
        ("searched", count.clone(), rare.searched),
        ("page", count.clone(), rare.paged),
        ("per_page", count, rare.paged),
        ("complete", boolean(), true),
    ]
    .into_iter()
    .filter_map(|(key, schema, declared)| declared.then_some((key, schema)))
    .collect()
}

fn post_properties(rare: RareState) -> Vec<(&'static str, Value)> {
    [
        ("status", string(), true),
        ("published", boolean(), rare.published),
        ("live_version", id(), rare.live_version),
        ("pending", boolean(), rare.pending),
        (
            "affected",
            json!({"type": "integer", "minimum": 0}),
            rare.affected,
        ),
    ]
    .into_iter()
    .filter_map(|(key, schema, declared)| declared.then_some((key, schema)))
    .collect()
}

/// The `state` slot for a class (C5): coverage for reads, post-condition for mutations, and
/// one object with both sets of keys for gated tools (no union, C9); of the [`RareState`]
/// keys, only those the tool can write.
pub fn state(class: ToolClass, rare: RareState) -> Value {
    match class {
        ToolClass::Read => strict(&coverage_properties(rare), &["returned"]),
        ToolClass::Mutation => strict(&post_properties(rare), &[]),
        ToolClass::Gated => {
            let mut both = coverage_properties(rare);
            both.extend(post_properties(rare));
            strict(&both, &[])
        }
    }
}

/// The `control` slot (C18).
pub fn control() -> Value {
    strict(
        &[
            ("outcome", json!({"enum": ["refused", "cancelled"]})),
            ("message", string()),
        ],
        &["outcome", "message"],
    )
}

/// Assembles a tool's `outputSchema` from its class, its slots, its `data` schema and the
/// platform it answers for.
pub fn output_schema(
    class: ToolClass,
    slots: Slots,
    data: Value,
    on: &Platform,
) -> Map<String, Value> {
    let mut properties = Map::new();
    properties.insert("platform".into(), platform(on));
    let data = if slots.control { nullable(data) } else { data };
    properties.insert("data".into(), data);
    if slots.resource {
        properties.insert("resource".into(), resource(slots.resource_path));
    }
    if slots.state {
        properties.insert("state".into(), state(class, slots.rare));
    }
    if slots.control {
        properties.insert("control".into(), control());
    }
    let mut shared = shared::listed_items(properties.get_mut("data"));
    shared.extend(shared::sibling_lists(properties.get_mut("data")));
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), json!(["platform", "data"]));
    schema.insert("additionalProperties".into(), json!(false));
    if !shared.is_empty() {
        schema.insert("$defs".into(), Value::Object(shared));
    }
    schema
}

/// The schema of a `data` type, derived from the type (schemars) and written in this module's
/// dialect, so a tool's `outputSchema` and the value it answers come from the same type:
/// everything inline, no `$schema`, `title`, `description`, `format` or `default`; the
/// schemas schemars writes as `true` (any value) as `{}`, and the `true` of an open object
/// (`additionalProperties`) or an untyped list (`items`) left out; keys in a fixed order.
pub fn derived<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    dialect(&mut value);
    value
}

/// The order keys are written in (others follow in the order schemars gave them).
const KEY_ORDER: [&str; 8] = [
    "type",
    "properties",
    "items",
    "required",
    "additionalProperties",
    "enum",
    "minimum",
    "maximum",
];

fn dialect(schema: &mut Value) {
    let Value::Object(map) = schema else {
        if *schema == Value::Bool(true) {
            *schema = json!({});
        }
        return;
    };
    for noise in ["$schema", "title", "description", "format", "default"] {
        map.remove(noise);
    }
    for open in ["additionalProperties", "items"] {
        if map.get(open) == Some(&Value::Bool(true)) {
            map.remove(open);
        }
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(dialect);
    }
    for child in ["items", "additionalProperties"] {
        if let Some(child @ Value::Object(_)) = map.get_mut(child) {
            dialect(child);
        }
    }
    let mut ordered = Map::new();
    for key in KEY_ORDER {
        if let Some(value) = map.remove(key) {
            ordered.insert(key.to_owned(), value);
        }
    }
    ordered.append(map);
    *map = ordered;
}

mod input;
mod rare;
mod shared;

pub use input::{BODY_PARAMS, MAX_BODY_CHARS, MAX_TEXT_CHARS, input_schema};
pub use rare::RareState;

#[cfg(test)]
mod tests {
    use super::*;

    /// An echoed object whose keys have these JSON types (each also `null`), others allowed.
    fn echo(keys: &[(&str, &str)]) -> Value {
        let props: Map<String, Value> = keys
            .iter()
            .map(|(k, kind)| ((*k).to_owned(), json!({"type": [kind, "null"]})))
            .collect();
        json!({"type": "object", "properties": props})
    }

    fn offline() -> Platform {
        Platform {
            name: "a".into(),
            host: "h".into(),
        }
    }

    fn array(items: Value) -> Value {
        json!({"type": "array", "items": items})
    }

    #[test]
    fn nullable_adds_null_once() {
        assert_eq!(nullable(string()), json!({"type": ["string", "null"]}));
        assert_eq!(
            nullable(id()),
            json!({"type": ["integer", "string", "null"]})
        );
        assert_eq!(
            nullable(nullable(string())),
            json!({"type": ["string", "null"]})
        );
    }

    #[test]
    fn gated_state_has_both_faces_in_one_object() {
        let s = state(ToolClass::Gated, RareState::default());
        let props = s["properties"].as_object().unwrap();
        assert!(props.contains_key("returned") && props.contains_key("status"));
        assert_eq!(s["additionalProperties"], json!(false));
        assert!(s.get("required").is_none());
    }

    #[test]
    fn rare_state_keys_are_declared_only_when_the_tool_writes_them() {
        let keys = |class, rare| {
            let s = state(class, rare);
            s["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(
            keys(ToolClass::Read, RareState::default()),
            ["returned", "total", "complete"]
        );
        assert_eq!(keys(ToolClass::Mutation, RareState::default()), ["status"]);
        let all = RareState {
            searched: true,
            paged: true,
            published: true,
            live_version: true,
            pending: true,
            affected: true,
        };
        assert_eq!(
            keys(ToolClass::Read, all),
            [
                "returned", "total", "searched", "page", "per_page", "complete"
            ]
        );
        assert_eq!(
            keys(ToolClass::Mutation, all),
            ["status", "published", "live_version", "pending", "affected"]
        );
        let paged = RareState {
            paged: true,
            ..RareState::default()
        };
        assert_eq!(
            RareState {
                affected: true,
                ..RareState::default()
            }
            .union(paged),
            RareState {
                paged: true,
                affected: true,
                ..RareState::default()
            }
        );
    }

    #[test]
    fn resource_declares_path_only_for_tools_whose_entities_have_one() {
        let keys = |path| {
            resource(path)["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(keys(false), ["type", "uuid", "id", "slug", "name"]);
        assert_eq!(keys(true), ["type", "uuid", "id", "slug", "path", "name"]);
    }

    #[test]
    fn a_listed_item_declared_like_data_itself_is_written_once() {
        let keys = [("id", "integer"), ("name", "string"), ("path", "string")];
        let mut data = echo(&keys);
        data["properties"]["pages"] = array(echo(&keys));
        let slots = Slots {
            control: true,
            ..Slots::default()
        };
        let schema = Value::Object(output_schema(ToolClass::Gated, slots, data, &offline()));
        assert_eq!(
            schema["properties"]["data"],
            json!({"type": ["object", "null"], "properties": {"pages": {"type": "array",
                "items": {"type": "object", "$ref": "#/$defs/pages"}}}, "$ref": "#/$defs/pages"})
        );
        assert_eq!(
            schema["$defs"]["pages"]["properties"]
                .as_object()
                .unwrap()
                .len(),
            3
        );
        let validator = jsonschema::validator_for(&schema).unwrap();
        let answer = |data: Value| json!({"platform": {"name": "a", "host": "h"}, "data": data});
        for good in [
            json!(null),
            json!({"id": 1, "extra": true}),
            json!({"pages": [{"id": 2, "name": null}]}),
        ] {
            assert!(validator.is_valid(&answer(good.clone())), "{good}");
        }
        for bad in [
            json!({"id": "1"}),
            json!({"pages": [{"path": 3}]}),
            json!({"pages": [null]}),
            json!({"pages": {}}),
        ] {
            assert!(!validator.is_valid(&answer(bad.clone())), "{bad}");
        }
    }

    #[test]
    fn a_listed_item_that_differs_from_data_stays_inline() {
        let mut data = echo(&[("id", "integer"), ("name", "string"), ("path", "string")]);
        data["properties"]["pages"] = array(echo(&[
            ("id", "string"),
            ("name", "string"),
            ("path", "string"),
        ]));
        let schema = output_schema(ToolClass::Read, Slots::default(), data.clone(), &offline());
        assert_eq!(schema["properties"]["data"], data);
        assert!(!schema.contains_key("$defs"));
    }

    #[test]
    fn sibling_lists_of_the_same_item_declare_it_once() {
        let row = strict(
            &[
                ("type", string()),
                ("id", id()),
                ("name", nullable(string())),
            ],
            &["type", "id", "name"],
        );
        let data = strict(
            &[
                ("released", array(row.clone())),
                ("still_pending", array(row.clone())),
                ("other", array(echo(&[("id", "integer")]))),
            ],
            &["released", "still_pending"],
        );
        let inline = serde_json::to_string(&data).unwrap().len();
        let schema = Value::Object(output_schema(
            ToolClass::Mutation,
            Slots::default(),
            data,
            &offline(),
        ));
        let lists = &schema["properties"]["data"]["properties"];
        assert_eq!(
            lists["released"]["items"],
            json!({"$ref": "#/$defs/released"})
        );
        assert_eq!(
            lists["still_pending"]["items"],
            json!({"$ref": "#/$defs/released"})
        );
        assert_eq!(
            lists["other"]["items"]["properties"]["id"]["type"],
            json!(["integer", "null"])
        );
        assert_eq!(schema["$defs"]["released"], row);
        let shared = serde_json::to_string(&schema["properties"]["data"])
            .unwrap()
            .len()
            + serde_json::to_string(&schema["$defs"]).unwrap().len();
        assert!(shared < inline, "{shared} >= {inline}");
        let validator = jsonschema::validator_for(&schema).unwrap();
        let answer = |data: Value| json!({"platform": {"name": "a", "host": "h"}, "data": data});
        let good = json!({"type": "page", "id": 1, "name": null});
        assert!(validator.is_valid(&answer(json!({"released": [good], "still_pending": []}))));
        for bad in [
            json!({"type": "page", "id": 1}),
            json!({"type": "page", "id": 1, "name": null, "extra": 1}),
            json!({"type": "page", "id": [1], "name": "x"}),
        ] {
            for list in ["released", "still_pending"] {
                let mut data = json!({"released": [], "still_pending": []});
                data[list] = json!([bad.clone()]);
                assert!(!validator.is_valid(&answer(data)), "{list}: {bad}");
            }
        }
    }

    #[test]
    fn output_schema_declares_only_the_slots_asked_for() {
        let schema = output_schema(ToolClass::Read, Slots::default(), array(any()), &offline());
        let props = schema["properties"].as_object().unwrap();
        assert_eq!(props.keys().collect::<Vec<_>>(), vec!["platform", "data"]);
        assert!(!schema.contains_key("$schema"));
        let schema = output_schema(
            ToolClass::Gated,
            Slots {
                resource: true,
                state: true,
                control: true,
                ..Slots::default()
            },
            echo(&[]),
            &offline(),
        );
        assert_eq!(
            schema["properties"]["data"]["type"],
            json!(["object", "null"])
        );
    }
}
