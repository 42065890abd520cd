//! The schema rules' tests: C9's object check, shared definitions read with their `$ref`, values
//! that are not schemas, roots judged by their objects.

use super::*;
use serde_json::json;

fn c9_of(schema: Value) -> Vec<String> {
    let mut out = Vec::new();
    c9("t", &schema, &mut out);
    out.into_iter().map(|v| v.pointer).collect()
}

#[test]
fn a_shared_definition_is_read_with_the_keywords_beside_its_ref() {
    let output = json!({
        "type": "object",
        "properties": {"data": {"type": ["object", "null"], "$ref": "#/$defs/page",
            "properties": {"pages": {"type": "array", "items": {"type": "object", "$ref": "#/$defs/page"}}}}},
        "$defs": {"page": {"properties": {"id": {"type": "integer"}}, "required": ["id"]}}
    });
    let inlined = inline_refs(&output);
    let data = data(&inlined).unwrap();
    assert_eq!(data["type"], json!(["object", "null"]));
    let keys: Vec<&String> = declared(&inlined, data).unwrap().keys().collect();
    assert_eq!(keys, ["id", "pages"]);
    assert_eq!(data["required"], json!(["id"]));
    let item = items(&inlined, &data["properties"]["pages"]).unwrap();
    assert_eq!(item["type"], "object");
    assert!(declared(&inlined, item).unwrap().contains_key("id"));
    assert_eq!(
        root(&inlined, data, "/properties/data".into()).0,
        Root::Loose
    );
    let cycle = json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
    let _ = inline_refs(&cycle);
}

#[test]
fn nullable_and_scalar_unions_pass_c9_structural_ones_do_not() {
    assert!(c9_of(json!({"anyOf": [{"type": "object"}, {"type": "null"}]})).is_empty());
    assert!(c9_of(json!({"oneOf": [{"type": "string"}, {"type": "integer"}]})).is_empty());
    assert!(c9_of(json!({"type": ["object", "null"]})).is_empty());
    assert_eq!(
        c9_of(
            json!({"properties": {"data": {"properties": {"x": {"anyOf": [{"type": "object"}, {"type": "array"}]}}}}})
        ),
        ["/properties/data/properties/x/anyOf"]
    );
    assert_eq!(
        c9_of(
            json!({"oneOf": [{"properties": {"a": {}}}, {"$ref": "#/$defs/b"}], "$defs": {"b": {"type": "array"}}})
        ),
        ["/oneOf"]
    );
    assert_eq!(c9_of(json!({"type": ["object", "array"]})), ["/type"]);
}

#[test]
fn values_are_not_schemas() {
    let mut out = Vec::new();
    c13(
        "t",
        &json!({"properties": {"a": {"enum": [{"properties": {"message": {}}}]}}}),
        &mut out,
    );
    assert!(out.is_empty());
}

#[test]
fn c13_spares_control_and_message_next_to_code() {
    let mut out = Vec::new();
    let schema = json!({"properties": {
        "control": {"properties": {"message": {}}},
        "data": {"properties": {
            "error": {"properties": {"code": {}, "message": {}}},
            "items": {"type": "array", "items": {"properties": {"message": {}}}}
        }}
    }});
    c13("t", &schema, &mut out);
    let pointers: Vec<&str> = out.iter().map(|v| v.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        ["/properties/data/properties/items/items/properties/message"]
    );
}

#[test]
fn roots_are_judged_by_their_objects() {
    let s = json!({});
    let judge = |d: Value| root(&s, &d, "/properties/data".into());
    assert_eq!(
        judge(json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false})).0,
        Root::Strict
    );
    assert_eq!(
        judge(json!({"type": ["object", "null"], "properties": {"a": {}}})).0,
        Root::Loose
    );
    assert_eq!(judge(json!({})).0, Root::Opaque);
    assert_eq!(judge(json!({"type": "object"})).0, Root::Opaque);
    assert_eq!(
        judge(json!({"type": "array", "items": {"type": "object", "properties": {"a": {}}}})),
        (Root::Loose, "/properties/data/items".to_owned())
    );
    assert_eq!(judge(json!({"type": "array"})).0, Root::Opaque);
    assert_eq!(judge(json!({"type": "string"})).0, Root::Strict);
    // A data root that is always null (a delete that returns nothing) is strict.
    assert_eq!(judge(json!({"type": ["null"]})).0, Root::Strict);
    assert_eq!(judge(json!({"type": "null"})).0, Root::Strict);
    assert_eq!(
        judge(json!({"type": "object", "additionalProperties": {"type": "string"}})).0,
        Root::Strict
    );
}
