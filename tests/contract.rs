//! The contract rules the foundation owns, through the real server: envelope and text (C1,
//! C17), coverage without evidence (C6), projection (C14), the read-only gate and classes
//! (C19, C18), legacy mode (C21), protocol errors, and the pinned instructions (C20).

use modyo_lab::check;
use modyo_lab::session::Session;
use modyo_replay::cassette::Interaction;
use serde_json::{Value, json};

use crate::util::cassette;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

async fn pilot(name: &str, pairs: &[(&str, &str)]) -> Session {
    let library = crate::util::library();
    Session::start(&library.mount_set(name).expect("mount set"), &env(pairs))
        .await
        .expect("session")
}

fn structured(result: &rmcp::model::CallToolResult) -> Value {
    result
        .structured_content
        .clone()
        .expect("structuredContent")
}

#[tokio::test]
async fn a_list_without_meta_never_claims_complete() {
    let page = Interaction::get("/api/admin/content/spaces")
        .query("page", "1")
        .query("per_page", "10")
        .respond(
            200,
            json!({"spaces": [{"id": 1, "name": "Blog", "uid": "blog"}]}),
        );
    let session = Session::start(&[cassette("test/no-meta", vec![page])], &[])
        .await
        .unwrap();
    let result = session
        .call("content-spaces-list", json!({}))
        .await
        .unwrap();
    assert_eq!(
        structured(&result)["state"],
        json!({"returned": 1}),
        "no total, no page, no complete"
    );
    session.close().await;
}

#[tokio::test]
async fn coverage_comes_from_meta_and_meta_is_never_echoed() {
    let session = pilot("content/sucursales/entries-per-page-10", &[]).await;
    let result = session
        .call("content-entries-list", json!({"space": "636"}))
        .await
        .unwrap();
    let s = structured(&result);
    assert_eq!(
        s["state"],
        json!({"returned": 10, "total": 314, "page": 1, "per_page": 10, "complete": false})
    );
    assert_eq!(
        s["resource"],
        json!({"type": "space", "uuid": s["resource"]["uuid"], "id": 636, "slug": "sucursales", "name": "Sucursales"})
    );
    assert!(
        !check::text(&result).unwrap().contains("total_entries"),
        "meta is not echoed (C14)"
    );
    let rows = s["data"].as_array().unwrap();
    assert_eq!(
        rows[0].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["id", "uuid", "name", "slug", "published"]
    );
    session.close().await;
}

#[tokio::test]
async fn fields_project_by_name_with_assets_reduced_and_bounded_requests() {
    let session = pilot("content/sucursales/entries-per-page-10", &[]).await;
    let fields = json!(["title", "facade_photo", "services"]);
    let result = session
        .call(
            "content-entries-list",
            json!({"space": "636", "fields": fields, "concurrency": 3}),
        )
        .await
        .unwrap();
    let rows = structured(&result)["data"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 10);
    let first = &rows[0]["fields"];
    assert_eq!(
        first.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["title", "facade_photo", "services"]
    );
    assert_eq!(
        first["facade_photo"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["name", "url"],
        "assets are {{name, url}}"
    );
    // space + list + the type once + one read per entry of the page, nothing else.
    let received = session.replay().received();
    assert_eq!(received.len(), 1 + 1 + 1 + 10, "{received:#?}");
    assert_eq!(
        received
            .iter()
            .filter(|r| r.path.ends_with("/types/4021"))
            .count(),
        1,
        "types are read once"
    );
    session.close().await;
}

#[tokio::test]
async fn an_unknown_field_fails_before_any_entry_is_read_and_lists_the_valid_names() {
    let session = pilot("content/sucursales/entries-per-page-10", &[]).await;
    let result = session
        .call(
            "content-entries-list",
            json!({"space": "636", "fields": ["title", "telefono"]}),
        )
        .await
        .unwrap();
    let e = check::error(&result).expect("a C16 error");
    assert_eq!(e["code"], "unknown_fields");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "unknown field name(s): telefono. Fields of the content type(s) on this page: "
        ) && message.contains(", phone,"),
        "the message names the unknown and the valid names: {e}"
    );
    assert_eq!(
        e.as_object().unwrap().len(),
        2,
        "nothing repeats the message: {e}"
    );
    assert!(
        session
            .replay()
            .received()
            .iter()
            .all(|r| !r.path.contains("/entries/")),
        "no entry was read"
    );
    session.close().await;
}

#[tokio::test]
async fn fields_with_include_details_or_empty_fields_are_argument_errors() {
    let session = pilot("content/sucursales/entries-per-page-10", &[]).await;
    for args in [
        json!({"space": "636", "fields": ["title"], "includeDetails": true}),
        json!({"space": "636", "fields": []}),
        json!({"space": "636", "per_page": 500}),
        json!({"space": "636", "colour": "red"}),
        json!({"per_page": 10}),
    ] {
        let err = session
            .call("content-entries-list", args.clone())
            .await
            .expect_err("a JSON-RPC error");
        let text = err.to_string();
        assert!(
            text.contains("-32602") || text.contains("Invalid arguments"),
            "{args}: {text}"
        );
    }
    assert!(
        session.replay().received().is_empty(),
        "bad arguments send nothing upstream"
    );
    let err = session
        .call(
            "content-entries-list",
            json!({"space": "636", "fields": ["a"], "includeDetails": true}),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("mutually exclusive"), "{err}");
    let err = session.call("no-such-tool", json!({})).await.unwrap_err();
    assert!(err.to_string().contains("Unknown tool"), "{err}");
    session.close().await;
}

#[tokio::test]
async fn read_only_refuses_mutating_actions_through_control_and_hides_nothing_else() {
    let session = pilot("content/sucursales/base", &[("MODYO_READ_ONLY", "true")]).await;
    let tools = session.tools().await.unwrap();
    let manage = tools
        .iter()
        .find(|t| t.name == "content-spaces-manage")
        .expect("gated tools stay");
    for action in ["create", "update", "delete"] {
        let result = session
            .call(
                "content-spaces-manage",
                json!({"action": action, "space": "636", "name": "x", "confirmDelete": true}),
            )
            .await
            .unwrap();
        assert_eq!(check::problems(manage, &result), Vec::<String>::new());
        let s = structured(&result);
        assert_eq!(s["data"], Value::Null);
        assert_eq!(s["control"]["outcome"], "refused", "{action}");
    }
    assert!(
        session.replay().received().is_empty(),
        "nothing reached the API"
    );
    let listed = session
        .call("content-spaces-manage", json!({"action": "list"}))
        .await
        .unwrap();
    assert_eq!(
        check::kind(&listed),
        check::Kind::Success,
        "read actions still run"
    );
    let got = session
        .call("content-spaces-manage", json!({"space": "636"}))
        .await
        .unwrap();
    assert_eq!(
        (
            &structured(&got)["data"]["id"],
            &structured(&got)["resource"]["type"]
        ),
        (&json!(636), &json!("space")),
        "no action and no mutating fields behaves like get"
    );
    session.close().await;
}

#[tokio::test]
async fn a_delete_without_confirmation_is_cancelled_through_control() {
    let session = pilot("content/sucursales/base", &[]).await;
    let result = session
        .call(
            "content-spaces-manage",
            json!({"action": "delete", "space": "636"}),
        )
        .await
        .unwrap();
    let s = structured(&result);
    assert_eq!(
        (s["data"].clone(), s["control"]["outcome"].clone()),
        (Value::Null, json!("cancelled"))
    );
    assert!(
        session
            .replay()
            .received()
            .iter()
            .all(|r| r.method == "GET"),
        "no DELETE was sent"
    );
    session.close().await;
}

/// Every string of every `enum` in a schema, at any depth (`Option<Action>` nests them).
fn enum_strings(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if let Some(Value::Array(values)) = map.get("enum") {
                    out.extend(values.iter().filter_map(Value::as_str).map(str::to_owned));
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out
}

#[tokio::test]
async fn classes_follow_read_only_hints_and_actions() {
    let session = pilot("content/sucursales/base", &[]).await;
    for tool in session.tools().await.unwrap() {
        let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
        let gated = tool.name.ends_with("-manage");
        // C19: gated = a writing tool whose `action` offers a read action; a multi-action
        // tool without one (channels-pages-widget) is a mutation (server/CONTRACT.md, "Classes and names").
        let actions = tool
            .input_schema
            .get("properties")
            .and_then(|p| p.get("action"))
            .map(enum_strings)
            .unwrap_or_default();
        let has_read_action = actions
            .iter()
            .any(|a| ["list", "get", "search", "find"].contains(&a.as_str()));
        assert_eq!(
            gated,
            has_read_action && read_only == Some(false),
            "{}: gated tools are the -manage ones whose actions include a read action ({actions:?})",
            tool.name
        );
        assert!(read_only.is_some(), "{} declares readOnlyHint", tool.name);
    }
    session.close().await;
}

#[tokio::test]
async fn legacy_mode_answers_the_old_way_with_the_old_schema() {
    let session = pilot(
        "content/sucursales/entries-per-page-10",
        &[("MODYO_MCP_LEGACY_MODULES", "content")],
    )
    .await;
    let tools = session.tools().await.unwrap();
    let list = tools
        .iter()
        .find(|t| t.name == "content-entries-list")
        .unwrap();
    assert!(
        list.output_schema.is_none(),
        "no outputSchema in legacy mode"
    );
    let props = list.input_schema["properties"].as_object().unwrap();
    assert!(
        !props.contains_key("fields") && props.contains_key("includeDetails"),
        "the old inputs"
    );
    let result = session
        .call("content-entries-list", json!({"space": "636"}))
        .await
        .unwrap();
    assert!(result.structured_content.is_none());
    let text = check::text(&result).unwrap();
    assert!(
        text.starts_with("{\n  \"entries\": ["),
        "pretty-printed success(data)"
    );
    let old: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        old["meta"]["total_entries"], 314,
        "the old answer echoed meta"
    );
    let err = session
        .call(
            "content-entries-list",
            json!({"space": "636", "fields": ["title"]}),
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("fields"),
        "the new parameter does not exist before: {err}"
    );
    session.close().await;
}

#[tokio::test]
async fn errors_in_legacy_mode_are_plain_text() {
    let session = pilot(
        "content/entries-get-not-found",
        &[("MODYO_MCP_LEGACY_MODULES", "content")],
    )
    .await;
    let result = session
        .call(
            "content-entries-get",
            json!({"space": "636", "entry": "999"}),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(check::text(&result).unwrap().starts_with("Error: "));
    session.close().await;
}

#[tokio::test]
async fn the_initialize_instructions_are_pinned() {
    let session = pilot("content/sucursales/base", &[]).await;
    let info = session.client().peer_info().expect("initialized").clone();
    insta::assert_snapshot!(
        "instructions",
        info.instructions.clone().unwrap_or_default()
    );
    let session_ro = pilot("content/sucursales/base", &[("MODYO_READ_ONLY", "true")]).await;
    let info = session_ro
        .client()
        .peer_info()
        .expect("initialized")
        .clone();
    insta::assert_snapshot!(
        "instructions_read_only",
        info.instructions.clone().unwrap_or_default()
    );
    session.close().await;
    session_ro.close().await;
}

#[tokio::test]
async fn tool_docs_are_readable_resources() {
    let session = pilot("content/sucursales/base", &[]).await;
    let params =
        rmcp::model::ReadResourceRequestParams::new("modyo://docs/tools/content-entries-list");
    let result = session.client().read_resource(params).await.unwrap();
    let text = format!("{result:?}");
    assert!(
        text.contains("Class: read") && text.contains("outputSchema"),
        "{text}"
    );
    session.close().await;
}
