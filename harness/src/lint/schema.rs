//! The rules the lint reads off `tools/list` alone: C5 (state faces), C9 (no structural
//! unions), C10 (strict own roots), C13 (no bare `message`) and C19 (a tool's class).
//!
//! Everything here works on plain JSON Schema as any server publishes it: subschemas are found
//! by keyword (never inside `enum`, `const`, `default` or `examples`, which hold values), and
//! local `$ref`s (`#/...`) are followed where a rule needs to know what a branch accepts.

use std::collections::BTreeSet;

use modyo_mcp::contract::ToolClass;
use modyo_mcp::contract::class::is_read_action;
use rmcp::model::Tool;
use serde_json::{Map, Value};

use super::{Rule, Violation};

/// The keys of the coverage face of `state` (C5, reads).
pub const COVERAGE_KEYS: [&str; 6] = [
    "returned", "total", "searched", "page", "per_page", "complete",
];

/// The keys of the post-condition face of `state` (C5, writes).
pub const POST_KEYS: [&str; 5] = ["status", "published", "live_version", "pending", "affected"];

/// Keywords whose value is one subschema.
const ONE: [&str; 11] = [
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
];
/// Keywords whose value is an array of subschemas.
const MANY: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value is a map of subschemas.
const MAP: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Escapes one JSON pointer token (RFC 6901).
pub(crate) fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Calls `visit(pointer, schema)` for `schema` and every subschema under it, depth first, in
/// key order. `skip` names pointers whose subtree is left out.
fn walk(schema: &Value, pointer: &str, skip: &[&str], visit: &mut dyn FnMut(&str, &Value)) {
    if skip.contains(&pointer) {
        return;
    }
    visit(pointer, schema);
    let Value::Object(map) = schema else { return };
    for (key, value) in map {
        let here = format!("{pointer}/{}", token(key));
        if ONE.contains(&key.as_str()) {
            match value {
                // `items` may still be an array of schemas in older drafts.
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        walk(item, &format!("{here}/{i}"), skip, visit);
                    }
                }
                other => walk(other, &here, skip, visit),
            }
        } else if MANY.contains(&key.as_str()) {
            if let Value::Array(items) = value {
                for (i, item) in items.iter().enumerate() {
                    walk(item, &format!("{here}/{i}"), skip, visit);
                }
            }
        } else if MAP.contains(&key.as_str())
            && let Value::Object(children) = value
        {
            for (name, child) in children {
                walk(child, &format!("{here}/{}", token(name)), skip, visit);
            }
        }
    }
}

/// Follows a local `$ref` (`#/...`) against `root`, a few hops at most.
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..8 {
        let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let Some(target) = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
        else {
            break;
        };
        schema = target;
    }
    schema
}

/// Keywords whose value is a value, not a subschema.
const VALUES: [&str; 4] = ["enum", "const", "default", "examples"];

/// `schema` with every local `$ref` (`#/...`) replaced by what it points to, merged with the
/// keywords beside it (JSON Schema 2020-12 applies both): `properties` and `required` are
/// joined, any other keyword beside the `$ref` wins. The rules then read one object where a
/// server wrote a shared definition once; a reference deeper than a few hops (a cycle) stays.
pub(crate) fn inline_refs(root: &Value) -> Value {
    inline(root, root, 0)
}

fn inline(root: &Value, schema: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(map) => {
            let target = map
                .get("$ref")
                .and_then(Value::as_str)
                .filter(|_| depth < 8)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|pointer| root.pointer(pointer));
            let mut out = match target.map(|t| inline(root, t, depth + 1)) {
                Some(Value::Object(target)) => target,
                _ => Map::new(),
            };
            for (key, value) in map {
                if key == "$ref" && target.is_some() {
                    continue;
                }
                let value = if VALUES.contains(&key.as_str()) {
                    value.clone()
                } else {
                    inline(root, value, depth)
                };
                match (key.as_str(), out.get_mut(key), value) {
                    ("properties", Some(Value::Object(joined)), Value::Object(own)) => {
                        joined.extend(own);
                    }
                    ("required", Some(Value::Array(joined)), Value::Array(own)) => {
                        for name in own {
                            if !joined.contains(&name) {
                                joined.push(name);
                            }
                        }
                    }
                    (_, _, value) => {
                        out.insert(key.clone(), value);
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| inline(root, i, depth)).collect()),
        other => other.clone(),
    }
}

/// The `type` keyword as a list of names (empty when absent).
fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a union branch can accept an object or an array (a "structured" branch, C9).
fn structured(root: &Value, branch: &Value, depth: usize) -> bool {
    let branch = resolve(root, branch);
    let Value::Object(map) = branch else {
        // `true` accepts anything (objects included); `false` accepts nothing.
        return branch == &Value::Bool(true);
    };
    let kinds = types(branch);
    if !kinds.is_empty() {
        return kinds.iter().any(|k| matches!(*k, "object" | "array"));
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        return values.iter().any(|v| v.is_object() || v.is_array());
    }
    if let Some(value) = map.get("const") {
        return value.is_object() || value.is_array();
    }
    if [
        "properties",
        "additionalProperties",
        "patternProperties",
        "items",
        "prefixItems",
        "required",
    ]
    .iter()
    .any(|k| map.contains_key(*k))
    {
        return true;
    }
    let nested: Vec<&Value> = ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|k| map.get(*k).and_then(Value::as_array))
        .flatten()
        .collect();
    if !nested.is_empty() && depth < 16 {
        return nested.iter().any(|b| structured(root, b, depth + 1));
    }
    // No constraint on the type at all (`{}`): it accepts objects and arrays.
    !map.contains_key("not")
}

/// C9: no `anyOf`/`oneOf` with more than one structured branch, at any depth; a `type` list
/// naming both `object` and `array` is the same union and is reported too.
pub(crate) fn c9(tool: &str, schema: &Value, out: &mut Vec<Violation>) {
    walk(schema, "", &[], &mut |pointer, node| {
        for keyword in ["anyOf", "oneOf"] {
            let Some(branches) = node.get(keyword).and_then(Value::as_array) else {
                continue;
            };
            let count = branches.iter().filter(|b| structured(schema, b, 0)).count();
            if count > 1 {
                out.push(Violation::new(
                    tool,
                    Rule::C9,
                    format!("{pointer}/{keyword}"),
                    format!(
                        "{keyword} with {count} structured (object or array) branches; some clients keep only the first branch. Use one object with optional fields"
                    ),
                ));
            }
        }
        let kinds = types(node);
        if kinds.contains(&"object") && kinds.contains(&"array") {
            out.push(Violation::new(
                tool,
                Rule::C9,
                format!("{pointer}/type"),
                "type allows both object and array: a structural union".to_owned(),
            ));
        }
    });
}

/// C13: no `message` property unless the same object schema also declares `code`, at any depth
/// of the output schema except `control` (whose `message` is the legitimate one, C18).
pub(crate) fn c13(tool: &str, schema: &Value, out: &mut Vec<Violation>) {
    walk(
        schema,
        "",
        &["/properties/control"],
        &mut |pointer, node| {
            let Some(props) = node.get("properties").and_then(Value::as_object) else {
                return;
            };
            if props.contains_key("message") && !props.contains_key("code") {
                out.push(Violation::new(
                tool,
                Rule::C13,
                format!("{pointer}/properties/message"),
                "`message` without a `code` sibling: prose the consumer cannot branch on; drop it or add a stable `code`".to_owned(),
            ));
            }
        },
    );
}

/// How strict a `data` root is (C10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Root {
    /// Every key declared and nothing else allowed (or a scalar, or a typed map).
    Strict,
    /// Declared keys, others allowed: an echoed foreign object.
    Loose,
    /// Nothing declared: the server cannot enumerate it.
    Opaque,
}

/// The strictness of a `data` root, and the pointer of the object that decides it (arrays are
/// judged by their items).
pub(crate) fn root(schema: &Value, data: &Value, pointer: String) -> (Root, String) {
    let data = resolve(schema, data);
    let all = types(data);
    let kinds: Vec<&str> = all.iter().copied().filter(|k| *k != "null").collect();
    // Always null (a delete that returns nothing): there is nothing to enumerate.
    if !all.is_empty() && kinds.is_empty() {
        return (Root::Strict, pointer);
    }
    if kinds == ["array"] {
        return match data.get("items") {
            Some(items) if items.is_object() || items.is_boolean() => {
                root(schema, items, format!("{pointer}/items"))
            }
            _ => (Root::Opaque, pointer),
        };
    }
    if kinds.is_empty() {
        if data.get("enum").is_some() || data.get("const").is_some() {
            return (Root::Strict, pointer);
        }
        return (Root::Opaque, pointer);
    }
    if kinds.contains(&"array") {
        return (Root::Opaque, pointer);
    }
    if !kinds.contains(&"object") {
        return (Root::Strict, pointer);
    }
    let declared = data
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    match data.get("additionalProperties") {
        Some(Value::Bool(false)) => (Root::Strict, pointer),
        // A typed map (keys are values the caller chose): the value schema is the promise.
        Some(Value::Object(values)) if !declared && !values.is_empty() => (Root::Strict, pointer),
        _ if declared => (Root::Loose, pointer),
        _ => (Root::Opaque, pointer),
    }
}

/// The options of a tool's `action` argument (from `enum` or `const`, through unions and
/// local references).
pub fn actions(tool: &Tool) -> Vec<String> {
    let input = Value::Object((*tool.input_schema).clone());
    let Some(action) = input.pointer("/properties/action") else {
        return Vec::new();
    };
    let mut found = BTreeSet::new();
    collect_actions(&input, action, &mut found, 0);
    found.into_iter().collect()
}

fn collect_actions(root: &Value, schema: &Value, found: &mut BTreeSet<String>, depth: usize) {
    if depth > 8 {
        return;
    }
    let schema = resolve(root, schema);
    for value in schema
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(schema.get("const"))
    {
        if let Some(s) = value.as_str() {
            found.insert(s.to_owned());
        }
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        for branch in schema
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect_actions(root, branch, found, depth + 1);
        }
    }
}

/// The mutating actions of a tool: its `action` options that are not reads (C19).
pub fn mutating_actions(tool: &Tool) -> Vec<String> {
    actions(tool)
        .into_iter()
        .filter(|a| !is_read_action(a))
        .collect()
}

/// C19: a tool's class as a client decides it. Gated: read actions (list, get, search, find)
/// and mutating ones behind `action`, or a `*-manage` name; read: `readOnlyHint: true`;
/// mutation: everything else.
pub fn classify(tool: &Tool) -> ToolClass {
    let actions = actions(tool);
    let reads = actions.iter().any(|a| is_read_action(a));
    let writes = actions.iter().any(|a| !is_read_action(a));
    if (reads && writes) || tool.name.ends_with("-manage") {
        ToolClass::Gated
    } else if read_only_hint(tool) {
        ToolClass::Read
    } else {
        ToolClass::Mutation
    }
}

fn read_only_hint(tool: &Tool) -> bool {
    tool.annotations
        .as_ref()
        .and_then(|a| a.read_only_hint)
        .unwrap_or(false)
}

/// C19: `readOnlyHint: true` on a tool whose `action` has mutating options is a contradiction.
pub(crate) fn c19(tool: &Tool, out: &mut Vec<Violation>) {
    let writes = mutating_actions(tool);
    if read_only_hint(tool) && !writes.is_empty() {
        out.push(Violation::new(
            &tool.name,
            Rule::C19,
            "/annotations/readOnlyHint".to_owned(),
            format!(
                "readOnlyHint is true but action has mutating options: {}",
                writes.join(", ")
            ),
        ));
    }
}

/// C5: the `state` slot publishes the face(s) of the tool's class: coverage for reads, the
/// post-condition for mutations, both for gated tools.
pub(crate) fn c5(tool: &Tool, class: ToolClass, schema: &Value, out: &mut Vec<Violation>) {
    let name = tool.name.as_ref();
    let Some(state) = schema.pointer("/properties/state") else {
        if class == ToolClass::Gated {
            out.push(Violation::new(
                name,
                Rule::C5,
                "/properties/state".to_owned(),
                "a gated tool publishes state with both faces (coverage for its read actions, the post-condition for its writes); it has no state".to_owned(),
            ));
        }
        return;
    };
    let state = resolve(schema, state);
    let keys: BTreeSet<&str> = state
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let allowed: Vec<&str> = match class {
        ToolClass::Read => COVERAGE_KEYS.to_vec(),
        ToolClass::Mutation => POST_KEYS.to_vec(),
        ToolClass::Gated => COVERAGE_KEYS.iter().chain(&POST_KEYS).copied().collect(),
    };
    let class_name = class.as_str();
    for key in &keys {
        if !allowed.contains(key) {
            let why = if COVERAGE_KEYS.contains(key) || POST_KEYS.contains(key) {
                "belongs to the other face"
            } else {
                "is in neither face"
            };
            out.push(Violation::new(
                name,
                Rule::C5,
                format!("/properties/state/properties/{}", token(key)),
                format!("state key `{key}` {why} of a {class_name} tool"),
            ));
        }
    }
    // Each face the class needs must be there: coverage always says `returned`; the
    // post-condition face has no required key, so one of its keys must be declared.
    let mut missing = Vec::new();
    if matches!(class, ToolClass::Read | ToolClass::Gated) && !keys.contains("returned") {
        missing.push("the coverage face (`returned`)");
    }
    if class == ToolClass::Gated && !POST_KEYS.iter().any(|k| keys.contains(k)) {
        missing
            .push("the post-condition face (status, published, live_version, pending, affected)");
    }
    if !missing.is_empty() {
        out.push(Violation::new(
            name,
            Rule::C5,
            "/properties/state/properties".to_owned(),
            format!(
                "state of a {class_name} tool does not declare {}",
                missing.join(" nor ")
            ),
        ));
    }
}

/// The `data` schema of an output schema, if it has one.
pub(crate) fn data(schema: &Value) -> Option<&Value> {
    schema
        .pointer("/properties/data")
        .map(|d| resolve(schema, d))
}

/// The declared property names of an object schema (through a local `$ref`).
pub(crate) fn declared<'a>(root: &'a Value, schema: &'a Value) -> Option<&'a Map<String, Value>> {
    resolve(root, schema)
        .get("properties")
        .and_then(Value::as_object)
}

/// Whether an object schema is a typed map (`additionalProperties` a schema, nothing declared):
/// its keys are values, not structure.
pub(crate) fn is_map(root: &Value, schema: &Value) -> bool {
    let schema = resolve(root, schema);
    declared(root, schema).is_none_or(Map::is_empty)
        && schema
            .get("additionalProperties")
            .is_some_and(|a| a.as_object().is_some_and(|m| !m.is_empty()))
}

/// The `items` schema of an array schema.
pub(crate) fn items<'a>(root: &'a Value, schema: &'a Value) -> Option<&'a Value> {
    resolve(root, schema)
        .get("items")
        .filter(|i| i.is_object())
        .map(|i| resolve(root, i))
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
