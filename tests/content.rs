//! The content module, for what cassette scenarios cannot say on their own: every tool's class
//! and the read-only counts (C19), no write reaching the API in read-only mode, the coverage
//! every tool owes (success, upstream error, read-only), persisted-vs-sent (C7), the job
//! registry followed through `content-jobs-manage`, and multipart uploads with fan-out
//! failures (against a plain wiremock: replay cannot match a multipart body, see below).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use modyo_lab::check::{self, Kind};
use modyo_lab::serve::{Offline, ServeOptions, offline_config};
use modyo_lab::session::{CANARY_TOKEN, Session};
use modyo_replay::cassette::{self, Outcome};
use modyo_replay::{Cassette, ReplayOptions, ReplayServer};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// Every content tool in catalogue order, with its class (`server/CONTRACT.md`, "Classes and names").
const CONTENT_TOOLS: [(&str, &str); 22] = [
    ("content-spaces-list", "read"),
    ("content-spaces-get", "read"),
    ("content-spaces-manage", "gated"),
    ("content-spaces-copy", "mutation"),
    ("content-types-list", "read"),
    ("content-types-get", "read"),
    ("content-types-manage", "gated"),
    ("content-types-upsert", "mutation"),
    ("content-types-copy", "mutation"),
    ("content-entries-list", "read"),
    ("content-entries-get", "read"),
    ("content-entries-manage", "gated"),
    ("content-entries-upsert", "mutation"),
    ("content-entries-bulk", "mutation"),
    ("content-assets-list", "read"),
    ("content-assets-get", "read"),
    ("content-assets-manage", "gated"),
    ("content-assets-bulk", "mutation"),
    ("content-categories-list", "read"),
    ("content-categories-get", "read"),
    ("content-categories-manage", "gated"),
    ("content-jobs-manage", "gated"),
];

/// The mutating actions of each gated content tool.
const WRITE_ACTIONS: [(&str, &[&str]); 6] = [
    ("content-spaces-manage", &["create", "update", "delete"]),
    (
        "content-types-manage",
        &[
            "create",
            "update",
            "delete",
            "add_field",
            "update_field",
            "remove_field",
        ],
    ),
    (
        "content-entries-manage",
        &[
            "create",
            "update",
            "delete",
            "publish",
            "unpublish",
            "archive",
            "clone",
        ],
    ),
    ("content-assets-manage", &["upload", "update", "delete"]),
    (
        "content-categories-manage",
        &["create", "update", "move", "delete"],
    ),
    ("content-jobs-manage", &["cancel"]),
];

/// The actions of the multi-action mutation tool.
const BULK_ACTIONS: [&str; 5] = ["create", "publish", "unpublish", "archive", "delete"];

/// Actions whose success path no cassette can replay: an upload is a multipart body, and
/// replay matches a request without a recorded body only when it has no body at all
/// (`harness/replay/src/replay/request.rs`). Their success paths are the wiremock tests below.
const MULTIPART_ONLY: [(&str, &str); 2] = [
    ("content-assets-manage", "upload"),
    ("content-assets-bulk", "-"),
];

/// Error codes that come from the API (as opposed to local checks).
const UPSTREAM_CODES: [&str; 9] = [
    "not_found",
    "unauthorized",
    "forbidden",
    "rejected",
    "validation_failed",
    "invalid_parameters",
    "rate_limited",
    "upstream_unavailable",
    "persisted_mismatch",
];

fn env(read_only: bool) -> Vec<(String, String)> {
    vec![(
        "MODYO_READ_ONLY".to_owned(),
        if read_only { "true" } else { "false" }.to_owned(),
    )]
}

fn structured(result: &CallToolResult) -> Value {
    result.structured_content.clone().unwrap_or(Value::Null)
}

async fn session_for(names: &[&str]) -> anyhow::Result<Session> {
    let library = crate::util::library();
    let mut cassettes = Vec::new();
    for name in names {
        for c in library.mount_set(name)? {
            if !cassettes.iter().any(|m: &Cassette| m.name() == c.name()) {
                cassettes.push(c);
            }
        }
    }
    Ok(Session::start(&cassettes, &env(false)).await?)
}

/// Runs the named scenario of a cassette through a fresh session.
async fn run_scenario(cassette: &str, scenario: &str) -> anyhow::Result<(CallToolResult, Session)> {
    let library = crate::util::library();
    let found = library
        .get(cassette)
        .and_then(|c| c.scenarios.iter().find(|s| s.name == scenario))
        .ok_or_else(|| anyhow::anyhow!("no scenario {cassette}#{scenario}"))?
        .clone();
    let session = Session::start(&library.mount_set(cassette)?, &env(false)).await?;
    let result = session.call(&found.tool, found.arguments.clone()).await?;
    assert!(
        session.replay().misses().is_empty(),
        "{:?}",
        session.replay().misses()
    );
    Ok((result, session))
}

#[tokio::test]
async fn every_content_tool_has_its_class_and_read_only_hides_the_mutations() -> anyhow::Result<()>
{
    // Arrange
    let content = vec![("MODYO_MCP_MODULES".to_owned(), "content".to_owned())];
    let mut read_only = content.clone();
    read_only.push(("MODYO_READ_ONLY".to_owned(), "true".to_owned()));

    // Act
    let full = Session::start(&[], &content).await?;
    let listed = full.tools().await?;
    full.close().await;
    let gated = Session::start(&[], &read_only).await?;
    let listed_read_only: Vec<String> = gated
        .tools()
        .await?
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    gated.close().await;

    // Assert
    let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    let expected: Vec<&str> = CONTENT_TOOLS.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, expected, "the 22 content tools, in catalogue order");
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (tool, (name, class)) in listed.iter().zip(CONTENT_TOOLS) {
        *counts.entry(class).or_default() += 1;
        let read_hint = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
        assert_eq!(read_hint, Some(class == "read"), "{name}: readOnlyHint");
        assert_eq!(name.ends_with("-manage"), class == "gated", "{name}");
        assert_eq!(
            listed_read_only.iter().any(|n| n == name),
            class != "mutation",
            "{name} in read-only mode"
        );
        assert!(
            tool.output_schema.is_some(),
            "{name} declares an outputSchema"
        );
    }
    assert_eq!(
        counts,
        BTreeMap::from([("gated", 6), ("mutation", 6), ("read", 10)])
    );
    assert_eq!(listed_read_only.len(), 16);
    Ok(())
}

#[tokio::test]
async fn read_only_mode_lets_no_write_reach_the_api() -> anyhow::Result<()> {
    // Arrange: every content scenario that runs read-only.
    let library = crate::util::library();
    let scenarios: Vec<_> = library
        .scenarios()
        .into_iter()
        .filter(|(c, s)| {
            c.name().starts_with("content/")
                && s.env.get("MODYO_READ_ONLY").map(String::as_str) == Some("true")
        })
        .collect();
    assert!(scenarios.len() >= 24, "one per mutating action at least");
    let mut refused_actions: BTreeSet<(String, String)> = BTreeSet::new();

    for (cassette, scenario) in scenarios {
        // Act
        let session = Session::start(&library.mount_set(cassette.name())?, &env(true)).await?;
        let result = session
            .call(&scenario.tool, scenario.arguments.clone())
            .await?;
        let received = session.replay().received();
        session.close().await;

        // Assert
        let label = format!("{}#{}", cassette.name(), scenario.name);
        let writes: Vec<String> = received
            .iter()
            .filter(|r| r.method != "GET")
            .map(|r| r.line())
            .collect();
        assert!(
            writes.is_empty(),
            "{label}: writes reached the API: {writes:?}"
        );
        if scenario.expect.outcome == Outcome::Control {
            assert_eq!(check::kind(&result), Kind::Control, "{label}");
            assert_eq!(
                structured(&result)["control"]["outcome"],
                "refused",
                "{label}"
            );
            assert!(
                received.is_empty(),
                "{label}: a refused call sent {received:?}"
            );
            let action = scenario.arguments["action"].as_str().unwrap_or("");
            refused_actions.insert((scenario.tool.clone(), action.to_owned()));
        }
    }
    for (tool, actions) in WRITE_ACTIONS {
        for action in actions {
            assert!(
                refused_actions.contains(&(tool.to_owned(), (*action).to_owned())),
                "no read-only scenario refuses {tool} {action}"
            );
        }
    }
    Ok(())
}

#[test]
fn every_content_tool_has_success_upstream_error_and_read_only_scenarios() -> anyhow::Result<()> {
    // Arrange
    let library = crate::util::library();
    let mut success: BTreeSet<(String, String)> = BTreeSet::new();
    let mut upstream_error: BTreeSet<String> = BTreeSet::new();
    for (cassette, scenario) in library.scenarios() {
        if !cassette.name().starts_with("content/")
            || scenario.env.get("MODYO_READ_ONLY").map(String::as_str) == Some("true")
        {
            continue;
        }
        let action = scenario.arguments["action"]
            .as_str()
            .unwrap_or(if scenario.tool.ends_with("-manage") {
                "get"
            } else {
                "-"
            })
            .to_owned();
        match scenario.expect.outcome {
            Outcome::Success => {
                success.insert((scenario.tool.clone(), action));
            }
            Outcome::Error
                if scenario
                    .expect
                    .code
                    .as_deref()
                    .is_some_and(|c| UPSTREAM_CODES.contains(&c)) =>
            {
                upstream_error.insert(scenario.tool.clone());
            }
            _ => {}
        }
    }

    // Assert
    let mut missing = Vec::new();
    for (tool, class) in CONTENT_TOOLS {
        // A tool whose every request is an upload has no replayable upstream error either.
        let multipart = MULTIPART_ONLY.contains(&(tool, "-"));
        if !upstream_error.contains(tool) && !multipart {
            missing.push(format!("{tool}: no upstream error scenario"));
        }
        let actions: Vec<&str> = match (class, tool) {
            ("gated", _) => {
                let writes = WRITE_ACTIONS
                    .iter()
                    .find(|(t, _)| *t == tool)
                    .map(|(_, a)| *a)
                    .unwrap_or_default();
                ["list", "get"]
                    .into_iter()
                    .chain(writes.iter().copied())
                    .collect()
            }
            (_, "content-entries-bulk") => BULK_ACTIONS.to_vec(),
            _ => vec!["-"],
        };
        for action in actions {
            if !success.contains(&(tool.to_owned(), action.to_owned()))
                && !MULTIPART_ONLY.contains(&(tool, action))
            {
                missing.push(format!("{tool} {action}: no success scenario"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    Ok(())
}

#[test]
fn content_cassettes_are_in_the_writers_canonical_form() -> anyhow::Result<()> {
    let root = cassette::default_dir();
    for c in Cassette::load_all(&root)? {
        if !c.name().starts_with("content/") {
            continue;
        }
        let on_disk = fs::read_to_string(cassette::path_of(&root, c.name()))?;
        assert!(
            on_disk == c.to_json()?,
            "{}: not in the writer's canonical form (rewrite it with Cassette::save)",
            c.name()
        );
    }
    Ok(())
}

#[tokio::test]
async fn served_together_content_cassettes_never_shadow_each_other() -> anyhow::Result<()> {
    // `modyo-lab serve` and the Python acceptance mount every non-fault cassette at once: a
    // request two of them record differently would answer one scenario with the other's data.
    let offline = Offline::start(&ServeOptions::new(cassette::default_dir())).await?;
    let shadowed: Vec<String> = offline
        .replay()
        .unused()
        .into_iter()
        .filter(|u| u.cassette.starts_with("content/") && u.shadowed_by.is_some())
        .map(|u| u.to_string())
        .collect();
    assert!(shadowed.is_empty(), "{}", shadowed.join("\n"));
    Ok(())
}

#[tokio::test]
async fn a_write_reports_what_was_persisted_not_what_was_sent() -> anyhow::Result<()> {
    // Act: the name was sent with spaces around it and the slug as a title.
    let (result, session) =
        run_scenario("content/entries", "entries-manage-update-persisted-differs").await?;
    session.close().await;

    // Assert
    let envelope = structured(&result);
    assert_eq!(envelope["data"]["name"], "Sucursal Temuco Centro");
    assert_eq!(envelope["data"]["slug"], "sucursal-temuco-centro");
    assert_eq!(
        envelope["resource"].get("slug"),
        None,
        "the persisted slug is in data, not repeated"
    );
    assert_eq!(
        envelope["state"],
        json!({"status": "updated", "published": true})
    );
    assert!(
        !check::text(&result)
            .unwrap_or("")
            .contains("  Sucursal Temuco Centro  ")
    );
    Ok(())
}

#[tokio::test]
async fn a_string_persisted_in_an_asset_field_fails_the_call_and_names_the_entry()
-> anyhow::Result<()> {
    let (result, session) = run_scenario(
        "content/entries",
        "entries-manage-update-asset-persisted-as-string",
    )
    .await?;
    let writes = session
        .replay()
        .received()
        .iter()
        .filter(|r| r.method == "PUT")
        .count();
    session.close().await;

    let error = check::error(&result).expect("a C16 error");
    assert_eq!(error["code"], "persisted_mismatch");
    assert_eq!(writes, 1, "the write happened; the error says what it left");
    assert_eq!(error["entry"]["id"], 1000043);
    assert_eq!(error["fields"][0]["field"], "facade_photo");
    assert!(
        error["fields"][0]["persisted"].is_string(),
        "what the API kept"
    );
    assert!(
        error["message"]
            .as_str()
            .unwrap_or("")
            .contains("was saved")
    );
    Ok(())
}

#[tokio::test]
async fn a_bulk_create_is_queued_in_the_registry_and_followed_to_its_end() -> anyhow::Result<()> {
    // Arrange: one server for both calls, so the registry is shared.
    let session = session_for(&["content/entries", "content/jobs"]).await?;
    let library = crate::util::library();
    let bulk = library
        .get("content/entries")
        .and_then(|c| {
            c.scenarios
                .iter()
                .find(|s| s.name == "entries-bulk-create-queued")
        })
        .expect("the bulk create scenario")
        .arguments
        .clone();

    // Act
    let queued = structured(&session.call("content-entries-bulk", bulk).await?);
    let job = queued["data"]["job_id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let listed = structured(
        &session
            .call("content-jobs-manage", json!({"action": "list"}))
            .await?,
    );
    let done = structured(
        &session
            .call("content-jobs-manage", json!({"job": job, "wait_s": 10}))
            .await?,
    );
    let relisted = structured(
        &session
            .call("content-jobs-manage", json!({"action": "list"}))
            .await?,
    );
    let polls = session
        .replay()
        .received()
        .iter()
        .filter(|r| r.path.starts_with("/api/admin/background_jobs/"))
        .count();
    session.close().await;

    // Assert
    assert_eq!(
        queued["state"],
        json!({"status": "queued", "pending": true})
    );
    assert!(
        queued.get("resource").is_none(),
        "bulk work has no resource (C4)"
    );
    assert_eq!(
        listed["data"]["jobs"],
        json!([{"job_id": job, "action": "create", "space_id": 636, "items": 5, "status": "queued"}])
    );
    assert_eq!(
        listed["state"],
        json!({"returned": 1, "total": 1, "complete": true})
    );
    assert_eq!(polls, 2, "running, then completed");
    assert_eq!(
        done["state"],
        json!({"status": "partial", "pending": false, "affected": 4})
    );
    assert_eq!(
        done["data"]["errors"],
        json!([{"index": 3, "errors": ["Slug has already been taken"]}])
    );
    assert_eq!(done["resource"], json!({"type": "job", "uuid": job}));
    assert_eq!(relisted["data"]["jobs"][0]["status"], "partial");
    assert_eq!(relisted["data"]["jobs"][0]["affected"], 4);
    Ok(())
}

/// A session whose server talks to a plain wiremock `api` (for multipart, which the replay
/// server cannot match), with an unused replay server to satisfy the session.
/// A read-write session whose uploads may read files under `root` (`MODYO_UPLOAD_ROOTS`).
async fn session_uploading_from(
    api: &MockServer,
    root: &std::path::Path,
) -> anyhow::Result<Session> {
    let replay = ReplayServer::start(ReplayOptions::default()).await;
    let mut vars = env(false);
    vars.push(("MODYO_UPLOAD_ROOTS".into(), root.display().to_string()));
    let config = offline_config(&api.uri(), &vars, CANARY_TOKEN)?;
    Ok(Session::connect(replay, config).await?)
}

fn multipart_upload(request: &Request) -> bool {
    request
        .headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data; boundary="))
}

fn part_file_name(request: &Request) -> Option<String> {
    let body = String::from_utf8_lossy(&request.body);
    let start = body.find("name=\"data\"; filename=\"")? + "name=\"data\"; filename=\"".len();
    let end = body[start..].find('"')?;
    Some(body[start..start + end].to_owned())
}

/// The API's upload rule: one dot, other characters not alphanumeric or `-` become `_`.
fn normalized(name: &str) -> String {
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{stem}.{ext}")
}

/// The asset the API keeps for an uploaded file (documented keys).
fn asset_named(id: u64, file_name: &str) -> Value {
    let name = normalized(file_name);
    json!({"id": id, "uuid": format!("3f2b6c1e-8a4d-4f7b-9c2e-{id:012}"), "name": name,
           "data_content_type": "image/jpeg", "type": "image/jpeg",
           "url": format!("https://cdn.example/uploads/{id}/original/{name}")})
}

/// What the documented create and update forms answer: a summary, not the asset.
fn summary(id: u64) -> Value {
    json!({"id": id, "thumb": format!("https://cdn.example/uploads/{id}/C200x200/x.jpg"), "type": "image/jpeg"})
}

#[tokio::test]
async fn an_upload_sends_the_documented_forms_and_reports_the_asset_read_back() -> anyhow::Result<()>
{
    // Arrange
    let api = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/admin/content/assets"))
        .and(multipart_upload)
        .respond_with(ResponseTemplate::new(200).set_body_json(summary(88300)))
        .expect(1)
        .mount(&api)
        .await;
    Mock::given(method("PUT"))
        .and(path("/api/admin/content/assets/88300"))
        .and(multipart_upload)
        .respond_with(ResponseTemplate::new(200).set_body_json(summary(88300)))
        .expect(1)
        .mount(&api)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/admin/content/assets/88300"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(asset_named(88300, "Fachada Sucursal #42.jpg")),
        )
        .expect(1)
        .mount(&api)
        .await;
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("Fachada Sucursal #42.jpg");
    fs::write(&file, b"\xFF\xD8\xFF\xE0 not really a jpeg")?;
    let session = session_uploading_from(&api, dir.path()).await?;

    // Act
    let result = session
        .call(
            "content-assets-manage",
            json!({"action": "upload", "file": file, "title": "Fachada 42", "tags": ["sucursales", "sur"]}),
        )
        .await?;
    session.close().await;

    // Assert
    let envelope = structured(&result);
    assert_eq!(
        envelope["data"]["name"], "Fachada_Sucursal__42.jpg",
        "the persisted name"
    );
    assert_eq!(envelope["data"]["id"], 88300);
    assert_eq!(
        envelope["resource"],
        json!({"type": "asset"}),
        "its identifiers are in data"
    );
    assert_eq!(envelope["state"], json!({"status": "created"}));
    let received = api.received_requests().await.unwrap_or_default();
    let create = String::from_utf8_lossy(&received[0].body).into_owned();
    assert!(
        create.contains("name=\"data\"; filename=\"Fachada Sucursal #42.jpg\""),
        "{create}"
    );
    assert!(create.contains("Content-Type: image/jpeg"), "{create}");
    assert!(create.contains("not really a jpeg"));
    assert!(create.contains("name=\"klass\"\r\n\r\npicture"), "{create}");
    assert!(
        !create.contains("name=\"title\""),
        "the create form takes no metadata"
    );
    let update = String::from_utf8_lossy(&received[1].body).into_owned();
    assert!(
        update.contains("name=\"title\"\r\n\r\nFachada 42"),
        "{update}"
    );
    assert_eq!(update.matches("name=\"tags[]\"").count(), 2);
    Ok(())
}

/// An agent steered by text it read asked the upload tools for the server's own environment
/// (the token in it) and for system files: before, `/proc/self/environ` was sent to the
/// account. Now every upload tool refuses, naming the rule, and nothing is written upstream.
#[tokio::test]
async fn uploads_never_read_system_files_or_files_outside_the_roots() -> anyhow::Result<()> {
    let api = MockServer::start().await;
    let root = tempfile::tempdir()?;
    let outside = tempfile::tempdir()?;
    fs::write(outside.path().join("notes.txt"), b"private")?;
    fs::write(root.path().join(".env"), b"MODYO_TOKEN=x")?;
    #[cfg(unix)]
    std::os::unix::fs::symlink("/proc/self/environ", root.path().join("environ.png"))?;
    let session = session_uploading_from(&api, root.path()).await?;
    let hostile = [
        "/proc/self/environ".to_owned(),
        "/etc/shadow".to_owned(),
        "/dev/zero".to_owned(),
        outside.path().join("notes.txt").display().to_string(),
        root.path().join(".env").display().to_string(),
        root.path().join("environ.png").display().to_string(),
    ];
    for file in &hostile {
        let single = session
            .call(
                "content-assets-manage",
                json!({"action": "upload", "file": file}),
            )
            .await?;
        let error = check::error(&single).expect("an error");
        assert_eq!(error["code"], "local_io", "{file}: {error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap_or("")
                .contains(file.as_str()),
            "{error}"
        );
        let site = session
            .call(
                "channels-site-assets-manage",
                json!({"action": "upload", "site": "12", "path": file}),
            )
            .await?;
        let error = check::error(&site).expect("an error");
        assert_eq!(error["code"], "local_io", "{file}: {error}");
    }
    let files: Vec<Value> = hostile.iter().map(|p| json!({"path": p})).collect();
    let bulk = session
        .call("content-assets-bulk", json!({"files": files}))
        .await?;
    let text = format!("{bulk:?}");
    assert!(!text.contains("MODYO_TOKEN="), "{text}");
    session.close().await;
    let received = api.received_requests().await.unwrap_or_default();
    assert!(
        received.is_empty(),
        "nothing may reach the account: {:?}",
        received
            .iter()
            .map(|r| format!("{} {}", r.method, r.url))
            .collect::<Vec<_>>()
    );
    Ok(())
}

#[tokio::test]
async fn a_bulk_upload_keeps_going_after_failures_and_says_which() -> anyhow::Result<()> {
    // Arrange: the API refuses one file; another is missing locally.
    let api = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/admin/content/assets"))
        .and(multipart_upload)
        .respond_with(|request: &Request| {
            let name = part_file_name(request).unwrap_or_default();
            if name.contains("refused") {
                ResponseTemplate::new(409).set_body_json(
                    json!({"errors": ["File content type does not match its extension"]}),
                )
            } else {
                ResponseTemplate::new(200).set_body_json(summary(88400 + name.len() as u64))
            }
        })
        .expect(4)
        .mount(&api)
        .await;
    for name in ["a.jpg", "bb.jpg", "ccc.jpg"] {
        let id = 88400 + name.len() as u64;
        Mock::given(method("GET"))
            .and(path(format!("/api/admin/content/assets/{id}")))
            .respond_with(ResponseTemplate::new(200).set_body_json(asset_named(id, name)))
            .expect(1)
            .mount(&api)
            .await;
    }
    let dir = tempfile::tempdir()?;
    let mut files = Vec::new();
    for name in ["a.jpg", "refused.jpg", "missing.jpg", "bb.jpg", "ccc.jpg"] {
        let path = dir.path().join(name);
        if name != "missing.jpg" {
            fs::write(&path, name.as_bytes())?;
        }
        files.push(json!({"path": path}));
    }
    let session = session_uploading_from(&api, dir.path()).await?;

    // Act
    let result = session
        .call("content-assets-bulk", json!({"files": files}))
        .await?;
    session.close().await;

    // Assert
    let envelope = structured(&result);
    assert_eq!(
        envelope["state"],
        json!({"status": "partial", "affected": 3})
    );
    let succeeded: Vec<u64> = envelope["data"]["succeeded"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["index"].as_u64())
        .collect();
    assert_eq!(succeeded, vec![0, 3, 4]);
    assert_eq!(envelope["data"]["succeeded"][1]["name"], "bb.jpg");
    let failed = &envelope["data"]["failed"];
    assert_eq!(failed[0]["index"], 1);
    assert_eq!(failed[0]["error"]["code"], "rejected");
    assert_eq!(failed[1]["index"], 2);
    assert_eq!(failed[1]["error"]["code"], "local_io");
    assert!(envelope.get("resource").is_none());
    Ok(())
}

#[tokio::test]
async fn a_bulk_upload_refused_for_every_file_by_the_token_is_one_error() -> anyhow::Result<()> {
    // Arrange
    let api = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/admin/content/assets"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({})))
        .expect(3)
        .mount(&api)
        .await;
    let dir = tempfile::tempdir()?;
    let mut files = Vec::new();
    for name in ["a.png", "b.png", "c.png"] {
        let path = dir.path().join(name);
        fs::write(&path, name.as_bytes())?;
        files.push(json!({"path": path}));
    }
    let session = session_uploading_from(&api, dir.path()).await?;

    // Act
    let result = session
        .call("content-assets-bulk", json!({"files": files}))
        .await?;
    session.close().await;

    // Assert
    assert_eq!(check::kind(&result), Kind::Error);
    let error = check::error(&result).expect("a C16 error");
    assert_eq!(error["code"], "unauthorized");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("all 3 items failed the same way"),
        "{error}"
    );
    Ok(())
}
