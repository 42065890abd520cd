//! Swagger 2.0 and OpenAPI 3 documents imported: references, places, bodies, versions.

use super::*;
use crate::shape::Shape;
use serde_json::json;

fn surface(document: Value) -> Surface {
    let bytes = serde_json::to_vec(&document).expect("bytes");
    import(ImportInput {
        api: "demo",
        bytes: &bytes,
        provenance: SourceProvenance::default(),
    })
    .expect("imports")
}

#[test]
fn api_names_come_from_file_names() {
    assert_eq!(api_name("admin-swagger.json"), "admin");
    assert_eq!(api_name("dir/customers.openapi.json"), "customers");
    assert_eq!(api_name("content.json"), "content");
}

#[test]
fn misplaced_and_unlocated_parameters_are_kept_apart() {
    let s = surface(json!({
        "swagger": "2.0", "basePath": "/api/x/",
        "paths": {"/things/{id}": {"delete": {
            "parameters": [
                {"name": "id", "in": "path", "type": "integer"},
                {"name": "validation", "in": "path", "type": "string"},
                {"name": "token", "in": "header", "type": "string"},
                {"name": "loose", "type": "string"}
            ],
            "responses": {"200": {"description": "ok"}}
        }}}
    }));
    assert_eq!(s.base_path, "/api/x");
    let op = &s.operations[0];
    assert_eq!(op.path_params["id"], Shape::Integer);
    assert_eq!(
        op.unlocated.keys().collect::<Vec<_>>(),
        ["loose", "validation"]
    );
    assert!(op.query.is_empty());
    assert_eq!(op.responses["200"], None);
}

#[test]
fn cycles_are_cut_and_all_of_merges() {
    let s = surface(json!({
        "swagger": "2.0",
        "paths": {"/n": {"get": {"responses": {"200": {"schema": {"$ref": "#/definitions/Node"}}}}}},
        "definitions": {
            "Base": {"properties": {"id": {"type": "integer"}}},
            "Node": {"allOf": [
                {"$ref": "#/definitions/Base"},
                {"properties": {"next": {"$ref": "#/definitions/Node"}, "at": {"type": "date-time"}}}
            ]}
        }
    }));
    let body = s.operations[0].responses["200"].clone().expect("a body");
    assert_eq!(
        serde_json::to_value(&body).expect("writes"),
        json!({"object": {"at": "string", "id": "integer", "next": {"cycle": "Node"}}})
    );
}

#[test]
fn enumerations_are_kept_where_they_say_something() {
    let s = surface(json!({
        "swagger": "2.0",
        "paths": {"/sites": {"get": {
            "parameters": [
                {"name": "status", "in": "query", "type": "string", "enum": ["enabled", "draft", "enabled"]},
                {"name": "states[]", "in": "query", "type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                {"name": "all", "in": "query", "type": "boolean", "enum": [false, true]}
            ],
            "responses": {"200": {"schema": {"properties": {
                "status": {"type": "integer", "enum": [0, 2, null]},
                "tags": {"type": "object", "enum": [{}]}
            }}}}
        }}}
    }));
    let op = &s.operations[0];
    let written = |shape: &Shape| serde_json::to_value(shape).expect("writes");
    assert_eq!(
        written(&op.query["status"]),
        json!({"string": ["enabled", "draft"]})
    );
    assert_eq!(
        written(&op.query["states[]"]),
        json!({"array": {"string": ["a", "b"]}})
    );
    assert_eq!(op.query["all"], Shape::Boolean);
    let body = op.responses["200"].as_ref().expect("a body");
    assert_eq!(
        written(body),
        json!({"object": {"status": {"integer": [0, 2]}, "tags": "object"}})
    );
}

#[test]
fn unresolved_references_are_kept_and_unknown_versions_are_errors() {
    let s = surface(json!({
        "swagger": "2.0",
        "paths": {"/n": {"get": {
            "parameters": [{"$ref": "#/parameters/Gone"}],
            "responses": {"200": {"schema": {"$ref": "#/definitions/Gone"}}}
        }}}
    }));
    // A schema reference is a fact of the document; a parameter reference names nothing.
    assert_eq!(
        s.operations[0].responses["200"],
        Some(Shape::Unresolved("#/definitions/Gone".into()))
    );
    let err = import(ImportInput {
        api: "demo",
        bytes: br#"{"swagger": "1.2", "paths": {}}"#,
        provenance: SourceProvenance::default(),
    })
    .expect_err("old");
    assert!(err.to_string().contains("neither Swagger 2.0"), "{err}");
}
