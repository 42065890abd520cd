//! Every tool's `inputSchema`, derived from its argument type: closed to unknown arguments,
//! without `$schema`, `title` or integer `format` noise, and every string bounded.

use schemars::JsonSchema;
use serde_json::{Map, Value, json};

/// The `inputSchema` of an argument type, closed to unknown arguments, without `$schema`,
/// `title` or integer `format` noise.
pub fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    strip_noise(&mut value, true);
    bound_strings(&mut value, "");
    let mut map = match value {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    // Every argument is declared: an unknown one is a mistake to report, never to ignore
    // (serde cannot deny unknown fields through `flatten`, so the schema does it).
    map.insert("additionalProperties".into(), json!(false));
    map
}

/// The longest short text an input string may be (a name, a search, a description, a path),
/// unless its schema says otherwise.
pub const MAX_TEXT_CHARS: u64 = 4096;

/// The longest a body an input carries may be (a template, widget code, a file in base64):
/// half the 16 MiB a stdio line may hold.
pub const MAX_BODY_CHARS: u64 = 8 * 1024 * 1024;

/// The input parameters that carry a body rather than a short text.
pub const BODY_PARAMS: [&str; 8] = [
    "content",
    "html",
    "css",
    "js",
    "data_base64",
    "find",
    "replace",
    "value",
];

/// Gives every string of an input schema (at any depth) a `maxLength`, unless it has one or is
/// an enum: [`MAX_BODY_CHARS`] for the [`BODY_PARAMS`], [`MAX_TEXT_CHARS`] for the rest. A
/// too-long argument is then refused as the caller's mistake (`-32602`) before anything runs.
fn bound_strings(schema: &mut Value, name: &str) {
    let Value::Object(map) = schema else {
        return;
    };
    let is_string = match map.get("type") {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "string"),
        _ => false,
    };
    if is_string && !map.contains_key("maxLength") && !map.contains_key("enum") {
        let max = if BODY_PARAMS.contains(&name) {
            MAX_BODY_CHARS
        } else {
            MAX_TEXT_CHARS
        };
        map.insert("maxLength".into(), json!(max));
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (key, property) in properties.iter_mut() {
            bound_strings(property, key);
        }
    }
    if let Some(items) = map.get_mut("items") {
        bound_strings(items, name);
    }
    if let Some(extra) = map.get_mut("additionalProperties") {
        bound_strings(extra, name);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get_mut(key) {
            branches.iter_mut().for_each(|b| bound_strings(b, name));
        }
    }
}

fn strip_noise(value: &mut Value, root: bool) {
    match value {
        Value::Object(map) => {
            map.remove("$schema");
            if root {
                map.remove("title");
            }
            if let Some(Value::String(format)) = map.get("format")
                && (format.starts_with("int") || format.starts_with("uint"))
            {
                map.remove("format");
            }
            map.values_mut().for_each(|child| strip_noise(child, false));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| strip_noise(v, false)),
        _ => {}
    }
}
