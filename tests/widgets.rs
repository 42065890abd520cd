//! The widgets module through the real server: public mode (no URL, no token), the read-only
//! gate, the catalogue tools and resources, `widgets-scaffold` into a temporary folder (read
//! back, refusals, bad names) and `widgets-validate` on the committed fixture project and on
//! scaffolded ones. Every result is also held to the client-side contract check.

use std::path::{Path, PathBuf};

use modyo_lab::check::{self, Kind};
use modyo_lab::session::Session;
use modyo_mcp::{Config, ModyoServer};
use modyo_replay::{ReplayOptions, ReplayServer};
use rmcp::model::{CallToolResult, ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

const TOOLS: [&str; 5] = [
    "widgets-list-components",
    "widgets-get-component-props",
    "widgets-list-patterns",
    "widgets-scaffold",
    "widgets-validate",
];

/// The committed fixture project (deliberate mistakes, see its README).
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/widget-project")
}

/// A session on a server built from `vars` alone: no `MODYO_URL`/`MODYO_TOKEN` means public
/// mode. The replay server is there only because a session owns one; nothing calls it.
async fn session(vars: &[(&str, &str)]) -> anyhow::Result<Session> {
    let replay = ReplayServer::start(ReplayOptions::default()).await;
    let config = Config::from_vars(vars.iter().map(|(k, v)| (*k, (*v).to_owned())))?;
    Ok(Session::connect(replay, config).await?)
}

/// Calls `tool`, checks the result against the contract, and returns it.
async fn call(session: &Session, tool: &str, args: Value) -> anyhow::Result<CallToolResult> {
    let tools = session.tools().await?;
    let listed = tools
        .iter()
        .find(|t| t.name == tool)
        .ok_or_else(|| anyhow::anyhow!("{tool} is not listed"))?;
    let result = session.call(tool, args).await?;
    let problems = check::problems(listed, &result);
    assert!(problems.is_empty(), "{tool}: {problems:?}");
    assert!(
        session.replay().received().is_empty(),
        "the widgets module makes no HTTP call"
    );
    Ok(result)
}

fn structured(result: &CallToolResult) -> Value {
    result.structured_content.clone().unwrap_or(Value::Null)
}

fn error_code(result: &CallToolResult) -> Option<String> {
    check::error(result).and_then(|e| e["code"].as_str().map(str::to_owned))
}

#[test]
fn public_mode_registers_exactly_the_widgets_tools() -> anyhow::Result<()> {
    // Arrange / Act
    let public = ModyoServer::new(Config::from_vars(Vec::<(String, String)>::new())?)?;
    let read_only = ModyoServer::new(Config::from_vars([("MODYO_READ_ONLY", "true")])?)?;
    let only_widgets = ModyoServer::new(Config::from_vars([
        ("MODYO_URL", "https://acme.modyo.cloud"),
        ("MODYO_TOKEN", "t"),
        ("MODYO_MCP_MODULES", "widgets"),
        ("MODYO_READ_ONLY", "true"),
    ])?)?;

    // Assert
    assert_eq!(public.tool_names(), TOOLS);
    let without_scaffold: Vec<&str> = TOOLS
        .into_iter()
        .filter(|t| *t != "widgets-scaffold")
        .collect();
    assert_eq!(read_only.tool_names(), without_scaffold);
    assert_eq!(only_widgets.tool_names(), without_scaffold);
    let classes: Vec<(String, Option<bool>)> = public
        .tools()
        .into_iter()
        .map(|t| {
            (
                t.name.to_string(),
                t.annotations.and_then(|a| a.read_only_hint),
            )
        })
        .collect();
    assert_eq!(
        classes,
        vec![
            ("widgets-list-components".into(), Some(true)),
            ("widgets-get-component-props".into(), Some(true)),
            ("widgets-list-patterns".into(), Some(true)),
            ("widgets-scaffold".into(), Some(false)),
            ("widgets-validate".into(), Some(true)),
        ],
        "scaffold writes files (mutation); the rest only read"
    );
    Ok(())
}

#[tokio::test]
async fn component_lists_are_complete_by_evidence_and_filters_say_what_they_searched()
-> anyhow::Result<()> {
    let s = session(&[]).await?;

    let all = structured(&call(&s, "widgets-list-components", json!({})).await?);
    assert_eq!(all["platform"], json!({"name": "public", "host": ""}));
    let total = all["data"].as_array().map_or(0, Vec::len);
    assert!(total >= 12, "at least a dozen components, got {total}");
    assert_eq!(
        all["state"],
        json!({"returned": total, "total": total, "searched": total, "complete": true})
    );
    assert!(
        all.get("resource").is_none(),
        "a root listing has no resource"
    );

    let forms = structured(
        &call(
            &s,
            "widgets-list-components",
            json!({"category": "Forms", "query": "select"}),
        )
        .await?,
    );
    assert_eq!(
        forms["data"],
        json!([{"id": "select", "name": "DInputSelect", "category": "forms",
                "description": "Native select with label and hint; options default to {value, label}."}])
    );
    assert_eq!(
        forms["state"],
        json!({"returned": 1, "total": 1, "searched": total, "complete": true})
    );

    let none = structured(&call(&s, "widgets-list-components", json!({"query": "zzz"})).await?);
    assert_eq!(none["data"], json!([]));
    assert_eq!(none["state"]["complete"], json!(true));

    let bad = call(&s, "widgets-list-components", json!({"category": "charts"})).await?;
    assert_eq!(check::kind(&bad), Kind::Error);
    assert_eq!(error_code(&bad).as_deref(), Some("invalid_parameters"));
    assert!(
        check::error(&bad).is_some_and(|e| e["message"]
            .as_str()
            .is_some_and(|m| m.contains("categories: actions, data,"))),
        "the message names the categories"
    );
    s.close().await;
    Ok(())
}

#[tokio::test]
async fn component_props_are_typed_and_the_component_is_the_resource() -> anyhow::Result<()> {
    let s = session(&[]).await?;

    let button = structured(
        &call(
            &s,
            "widgets-get-component-props",
            json!({"component": "DButton"}),
        )
        .await?,
    );
    assert_eq!(button["resource"], json!({"type": "component"}));
    assert_eq!(
        (&button["data"]["id"], &button["data"]["name"]),
        (&json!("button"), &json!("DButton")),
        "the component's identifiers, in data and not repeated in resource"
    );
    let theme = button["data"]["props"]
        .as_array()
        .and_then(|props| props.iter().find(|p| p["name"] == "theme"))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(theme["type"], "enum");
    assert_eq!(theme["default"], "primary");
    assert!(
        theme["values"]
            .as_array()
            .is_some_and(|v| v.contains(&json!("danger")))
    );
    assert_eq!(button["data"]["package"], "@dynamic-framework/ui-react");

    let by_id = structured(
        &call(
            &s,
            "widgets-get-component-props",
            json!({"component": "modal"}),
        )
        .await?,
    );
    let name = by_id["data"]["props"]
        .as_array()
        .and_then(|props| props.iter().find(|p| p["name"] == "name"))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(name["required"], true);
    assert_eq!(
        by_id["data"]["subcomponents"],
        json!(["Header", "Body", "Footer"])
    );

    let missing = call(
        &s,
        "widgets-get-component-props",
        json!({"component": "DFancyTable"}),
    )
    .await?;
    assert_eq!(error_code(&missing).as_deref(), Some("not_found"));
    s.close().await;
    Ok(())
}

#[tokio::test]
async fn patterns_list_filters_by_component() -> anyhow::Result<()> {
    let s = session(&[]).await?;
    let all = structured(&call(&s, "widgets-list-patterns", json!({})).await?);
    let total = all["data"].as_array().map_or(0, Vec::len);
    assert!(total >= 3);
    assert_eq!(all["state"]["complete"], true);

    let with_modal =
        structured(&call(&s, "widgets-list-patterns", json!({"component": "DModal"})).await?);
    let ids: Vec<&str> = with_modal["data"]
        .as_array()
        .map(|a| a.iter().filter_map(|p| p["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(ids, ["confirm-dialog"]);
    assert_eq!(
        with_modal["data"][0]["components"],
        json!(["DButton", "DModal"])
    );
    assert_eq!(
        with_modal["state"],
        json!({"returned": 1, "total": 1, "searched": total, "complete": true})
    );

    let unknown = call(&s, "widgets-list-patterns", json!({"component": "nope"})).await?;
    assert_eq!(error_code(&unknown).as_deref(), Some("not_found"));
    s.close().await;
    Ok(())
}

#[tokio::test]
async fn scaffold_writes_a_project_reports_it_read_back_and_it_validates_clean()
-> anyhow::Result<()> {
    let s = session(&[]).await?;
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("widgets");

    let result = call(
        &s,
        "widgets-scaffold",
        json!({"name": "promo-banner", "targetDir": target, "pattern": "product-carousel"}),
    )
    .await?;
    let out = structured(&result);

    let root = target.join("promo-banner").canonicalize()?;
    assert_eq!(
        out["resource"],
        json!({"type": "widget_project", "path": root.to_string_lossy(), "name": "promo-banner"})
    );
    assert_eq!(out["state"], json!({"status": "created", "affected": 8}));
    assert_eq!(out["data"]["pattern"], "product-carousel");
    let files = out["data"]["files"].as_array().cloned().unwrap_or_default();
    let paths: Vec<&str> = files.iter().filter_map(|f| f["path"].as_str()).collect();
    assert_eq!(
        paths,
        [
            ".env.example",
            ".gitignore",
            "README.md",
            "index.html",
            "package.json",
            "src/App.jsx",
            "src/main.jsx",
            "vite.config.js"
        ]
    );
    for file in &files {
        let path = root.join(file["path"].as_str().unwrap_or_default());
        assert_eq!(
            file["bytes"].as_u64(),
            Some(std::fs::metadata(&path)?.len()),
            "{path:?}: the size is the one on disk"
        );
    }
    let app = std::fs::read_to_string(root.join("src/App.jsx"))?;
    assert!(app.contains("<DCarousel"), "{app}");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("package.json"))?)?;
    assert_eq!(manifest["name"], "promo-banner");
    assert!(manifest["dependencies"]["@dynamic-framework/ui-react"].is_string());

    let validated = structured(&call(&s, "widgets-validate", json!({"projectDir": root})).await?);
    assert_eq!(
        validated["data"],
        json!([]),
        "a scaffolded project is clean"
    );
    assert_eq!(
        validated["state"],
        json!({"returned": 0, "total": 0, "searched": 4, "complete": true}),
        "package.json, src/App.jsx, src/main.jsx and vite.config.js were read"
    );
    assert_eq!(validated["resource"]["name"], "promo-banner");
    s.close().await;
    Ok(())
}

#[tokio::test]
async fn scaffold_refuses_a_non_empty_folder_and_accepts_an_empty_one() -> anyhow::Result<()> {
    let s = session(&[]).await?;
    let dir = tempfile::tempdir()?;
    let taken = dir.path().join("taken");
    std::fs::create_dir(&taken)?;
    std::fs::write(taken.join("notes.txt"), "mine")?;

    let refused = call(
        &s,
        "widgets-scaffold",
        json!({"name": "taken", "targetDir": dir.path()}),
    )
    .await?;
    assert_eq!(error_code(&refused).as_deref(), Some("local_io"));
    let message = check::error(&refused)
        .map(|e| e["message"].to_string())
        .unwrap_or_default();
    assert!(message.contains("not empty"), "{message}");
    let left: Vec<_> = std::fs::read_dir(&taken)?.collect();
    assert_eq!(
        left.len(),
        1,
        "nothing was written next to the existing file"
    );
    assert_eq!(std::fs::read_to_string(taken.join("notes.txt"))?, "mine");

    std::fs::write(dir.path().join("file-widget"), "x")?;
    let a_file = call(
        &s,
        "widgets-scaffold",
        json!({"name": "file-widget", "targetDir": dir.path()}),
    )
    .await?;
    assert_eq!(error_code(&a_file).as_deref(), Some("local_io"));

    std::fs::create_dir(dir.path().join("empty"))?;
    let ok = call(
        &s,
        "widgets-scaffold",
        json!({"name": "empty", "targetDir": dir.path()}),
    )
    .await?;
    assert_eq!(check::kind(&ok), Kind::Success);
    assert_eq!(
        structured(&ok)["data"]["pattern"],
        "login-form",
        "the default pattern"
    );
    s.close().await;
    Ok(())
}

#[tokio::test]
async fn scaffold_rejects_bad_names_and_unknown_patterns_without_writing() -> anyhow::Result<()> {
    let s = session(&[]).await?;
    let dir = tempfile::tempdir()?;
    for (name, hint) in [
        ("PromoBanner", "promo-banner"),
        ("../escape", "escape"),
        ("promo_banner", "promo-banner"),
        ("", "kebab-case"),
    ] {
        let result = call(
            &s,
            "widgets-scaffold",
            json!({"name": name, "targetDir": dir.path()}),
        )
        .await?;
        assert_eq!(
            error_code(&result).as_deref(),
            Some("invalid_parameters"),
            "{name}"
        );
        let message = check::error(&result)
            .map(|e| e["message"].to_string())
            .unwrap_or_default();
        assert!(message.contains(hint), "{name}: {message}");
    }
    let unknown = call(
        &s,
        "widgets-scaffold",
        json!({"name": "ok-name", "targetDir": dir.path(), "pattern": "nope"}),
    )
    .await?;
    assert_eq!(error_code(&unknown).as_deref(), Some("not_found"));
    let home = call(
        &s,
        "widgets-scaffold",
        json!({"name": "x", "targetDir": "~/widgets"}),
    )
    .await?;
    assert_eq!(error_code(&home).as_deref(), Some("invalid_parameters"));
    let empty_target = call(
        &s,
        "widgets-scaffold",
        json!({"name": "x", "targetDir": " "}),
    )
    .await?;
    assert_eq!(
        error_code(&empty_target).as_deref(),
        Some("invalid_parameters")
    );
    assert_eq!(
        std::fs::read_dir(dir.path())?.count(),
        0,
        "nothing was written"
    );
    s.close().await;
    Ok(())
}

/// `(code, file, line, prop or component)` of a finding.
type Row = (String, Option<String>, Option<u64>, Option<String>);

#[tokio::test]
async fn validate_reports_every_mistake_of_the_fixture_as_data() -> anyhow::Result<()> {
    let s = session(&[]).await?;
    let out = structured(&call(&s, "widgets-validate", json!({"projectDir": fixture()})).await?);
    let got: Vec<Row> = out["data"]
        .as_array()
        .map(|findings| {
            findings
                .iter()
                .map(|f| {
                    (
                        f["code"].as_str().unwrap_or_default().to_owned(),
                        f["file"].as_str().map(str::to_owned),
                        f["line"].as_u64(),
                        f["prop"]
                            .as_str()
                            .or(f["component"].as_str())
                            .map(str::to_owned),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let f = |code: &str, file: Option<&str>, line: Option<u64>, what: Option<&str>| {
        (
            code.to_owned(),
            file.map(str::to_owned),
            line,
            what.map(str::to_owned),
        )
    };
    let banner = Some("src/Banner.jsx");
    assert_eq!(
        got,
        vec![
            f("missing_modyo_config", None, None, None),
            f("missing_dependency", Some("package.json"), None, None),
            f("unknown_component", banner, Some(2), Some("DFancyTable")),
            f("unknown_subcomponent", banner, Some(8), Some("DCard.Title")),
            f("wrong_prop_type", banner, Some(10), Some("currentValue")),
            f("invalid_prop_value", banner, Some(11), Some("theme")),
            f("unknown_prop", banner, Some(11), Some("color")),
            f("wrong_prop_type", banner, Some(11), Some("disabled")),
            f("wrong_prop_type", banner, Some(11), Some("onClick")),
            f("missing_required_prop", banner, Some(15), Some("name")),
        ]
    );
    let theme = &out["data"][5];
    assert_eq!(theme["found"], "purple");
    assert!(
        theme["allowed"]
            .as_array()
            .is_some_and(|a| a.contains(&json!("primary")))
    );
    assert_eq!(out["data"][7]["expected"], "boolean");
    assert_eq!(out["data"][7]["found"], "string");
    assert!(
        out["data"].as_array().is_some_and(|a| a
            .iter()
            .all(|f| f["message"].is_string() && f["code"].is_string())),
        "every message sits beside its code (C13)"
    );
    assert_eq!(
        out["state"],
        json!({"returned": 10, "total": 10, "searched": 3, "complete": true})
    );
    assert_eq!(out["resource"]["type"], "widget_project");
    assert_eq!(out["resource"]["name"], "summer-banner");
    s.close().await;
    Ok(())
}

/// A hostile source file nesting a tag 5,000 times in its own attribute (60 KB) once overflowed
/// a worker's stack and aborted the server (every other session with it); now the tag at the
/// nesting limit is reported unreadable and the call answers.
#[tokio::test]
async fn validate_survives_a_deeply_nested_file() -> anyhow::Result<()> {
    let s = session(&[]).await?;
    let dir = tempfile::tempdir()?;
    let root = dir.path();
    std::fs::create_dir_all(root.join("src"))?;
    std::fs::write(
        root.join("package.json"),
        r#"{"name": "deep", "dependencies": {"@dynamic-framework/ui-react": "1"}}"#,
    )?;
    let deep = format!(
        "import {{ DButton }} from '@dynamic-framework/ui-react';\n{}",
        "<DButton a={".repeat(5_000)
    );
    std::fs::write(root.join("src/main.jsx"), deep)?;
    let out = structured(&call(&s, "widgets-validate", json!({"projectDir": root})).await?);
    let codes: Vec<&str> = out["data"]
        .as_array()
        .map(|a| a.iter().filter_map(|f| f["code"].as_str()).collect())
        .unwrap_or_default();
    assert!(codes.contains(&"unreadable_element"), "{codes:?}");
    assert!(codes.len() < 100, "{} findings", codes.len());
    s.close().await;
    Ok(())
}

#[tokio::test]
async fn validate_checks_project_files_and_skips_dependencies() -> anyhow::Result<()> {
    let s = session(&[]).await?;
    let dir = tempfile::tempdir()?;
    let root = dir.path();
    std::fs::create_dir_all(root.join("node_modules/lib"))?;
    std::fs::write(
        root.join("node_modules/lib/index.jsx"),
        "import { DNope } from '@dynamic-framework/ui-react';",
    )?;
    std::fs::write(root.join("package.json"), "{ not json")?;
    std::fs::write(root.join(".env"), "MODYO_TOKEN=secret-never-read")?;

    let result = call(&s, "widgets-validate", json!({"projectDir": root})).await?;
    let out = structured(&result);
    let codes: Vec<&str> = out["data"]
        .as_array()
        .map(|a| a.iter().filter_map(|f| f["code"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(codes, ["missing_entry", "invalid_package_json"]);
    assert_eq!(out["state"]["searched"], 1, "only package.json was read");
    assert!(!format!("{result:?}").contains("secret-never-read"));

    std::fs::remove_file(root.join("package.json"))?;
    let out = structured(&call(&s, "widgets-validate", json!({"projectDir": root})).await?);
    assert_eq!(out["data"][1]["code"], "missing_file");
    assert_eq!(out["data"][1]["file"], "package.json");

    let missing = call(
        &s,
        "widgets-validate",
        json!({"projectDir": root.join("does-not-exist")}),
    )
    .await?;
    assert_eq!(error_code(&missing).as_deref(), Some("not_found"));
    let a_file = call(
        &s,
        "widgets-validate",
        json!({"projectDir": root.join(".env")}),
    )
    .await?;
    assert_eq!(error_code(&a_file).as_deref(), Some("invalid_parameters"));
    s.close().await;
    Ok(())
}

#[tokio::test]
async fn the_catalogue_is_served_as_resources_only_with_the_widgets_module() -> anyhow::Result<()> {
    let s = session(&[]).await?;
    let client = s.client();
    let resources: Vec<String> = client
        .list_all_resources()
        .await?
        .into_iter()
        .map(|r| r.uri.clone())
        .collect();
    assert_eq!(
        resources,
        [
            "modyo://widgets/catalog/components",
            "modyo://widgets/catalog/patterns"
        ]
    );
    let templates: Vec<String> = client
        .list_all_resource_templates()
        .await?
        .into_iter()
        .map(|t| t.uri_template.clone())
        .collect();
    assert_eq!(
        templates,
        [
            "modyo://docs/tools/{toolPath}",
            "modyo://widgets/catalog/components/{componentId}",
            "modyo://widgets/catalog/patterns/{patternId}"
        ]
    );
    let read = |uri: &'static str| async move {
        let result = client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await?;
        match result.contents.first() {
            Some(ResourceContents::TextResourceContents {
                text, mime_type, ..
            }) => {
                assert_eq!(mime_type.as_deref(), Some("application/json"));
                Ok::<Value, anyhow::Error>(serde_json::from_str(text)?)
            }
            other => anyhow::bail!("{uri}: {other:?}"),
        }
    };
    let list = read("modyo://widgets/catalog/components").await?;
    assert!(list["components"].as_array().is_some_and(|c| c.len() >= 12));
    let button = read("modyo://widgets/catalog/components/button").await?;
    assert_eq!(button["name"], "DButton");
    let via_tool = structured(
        &call(
            &s,
            "widgets-get-component-props",
            json!({"component": "button"}),
        )
        .await?,
    );
    assert_eq!(
        button, via_tool["data"],
        "the resource and the tool say the same"
    );
    let pattern = read("modyo://widgets/catalog/patterns/faq-accordion").await?;
    assert_eq!(pattern["components"], json!(["DCollapse"]));
    assert!(
        client
            .read_resource(ReadResourceRequestParams::new(
                "modyo://widgets/catalog/components/nope"
            ))
            .await
            .is_err()
    );
    s.close().await;

    let content_only = session(&[
        ("MODYO_URL", "https://acme.modyo.cloud"),
        ("MODYO_TOKEN", "t"),
        ("MODYO_MCP_MODULES", "content"),
    ])
    .await?;
    assert!(content_only.client().list_all_resources().await?.is_empty());
    assert!(
        content_only
            .client()
            .read_resource(ReadResourceRequestParams::new(
                "modyo://widgets/catalog/components"
            ))
            .await
            .is_err()
    );
    content_only.close().await;
    Ok(())
}

#[tokio::test]
async fn legacy_mode_answers_the_old_way() -> anyhow::Result<()> {
    let s = session(&[("MODYO_MCP_LEGACY_MODULES", "widgets")]).await?;
    let tools = s.tools().await?;
    assert!(tools.iter().all(|t| t.output_schema.is_none()));
    let scaffold = tools
        .iter()
        .find(|t| t.name == "widgets-scaffold")
        .map(|t| t.input_schema["properties"].clone())
        .unwrap_or(Value::Null);
    assert!(
        scaffold.get("pattern").is_none(),
        "pattern is new: not in the legacy schema"
    );

    let list = s.call("widgets-list-components", json!({})).await?;
    assert!(list.structured_content.is_none());
    let text: Value = serde_json::from_str(check::text(&list).unwrap_or("null"))?;
    assert_eq!(
        text["total"].as_u64(),
        text["components"].as_array().map(|a| a.len() as u64)
    );

    let dir = tempfile::tempdir()?;
    let made = s
        .call(
            "widgets-scaffold",
            json!({"name": "old-style", "targetDir": dir.path()}),
        )
        .await?;
    let text: Value = serde_json::from_str(check::text(&made).unwrap_or("null"))?;
    assert_eq!(text["success"], true);
    assert_eq!(text["message"], "Widget scaffolded");
    assert_eq!(text["files"].as_array().map(Vec::len), Some(8));

    let checked = s
        .call("widgets-validate", json!({"projectDir": fixture()}))
        .await?;
    let text: Value = serde_json::from_str(check::text(&checked).unwrap_or("null"))?;
    assert_eq!(text["valid"], false);
    assert_eq!(text["errors"], 8);
    assert_eq!(text["warnings"], 2);
    s.close().await;
    Ok(())
}

#[tokio::test]
async fn validate_says_incomplete_when_a_limit_stops_the_walk() -> anyhow::Result<()> {
    let s = session(&[]).await?;
    let dir = tempfile::tempdir()?;
    std::fs::create_dir(dir.path().join("src"))?;
    for i in 0..1001 {
        std::fs::write(dir.path().join(format!("src/f{i:04}.js")), "export {};\n")?;
    }
    let out = structured(&call(&s, "widgets-validate", json!({"projectDir": dir.path()})).await?);
    assert_eq!(
        out["state"],
        json!({"returned": 3, "searched": 1000, "complete": false}),
        "no total and complete: false once files were left unread (C6)"
    );
    s.close().await;
    Ok(())
}
