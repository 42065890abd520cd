//! The channels module where a scenario's `expect` cannot say enough: what `channels-download`
//! leaves on disk (files read back; nothing at all when an entry would escape `targetDir`),
//! that read-only mode sends no write, the exact `state` of the search and replace
//! post-conditions, and the releases refused before any request.

use std::io::Write as _;
use std::path::Path;

use modyo_lab::session::Session;
use modyo_replay::cassette::RecordedResponse;
use modyo_replay::{Cassette, Interaction, Provenance};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

const BASE: &str = "channels/banco-andino/base";

/// A session over `name` and everything it includes.
async fn session(name: &str, env: &[(&str, &str)]) -> anyhow::Result<Session> {
    let library = crate::util::library();
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    Ok(Session::start(&library.mount_set(name)?, &env).await?)
}

/// A session over the base world plus `interactions` built in code.
async fn session_with(interactions: Vec<Interaction>) -> anyhow::Result<Session> {
    let library = crate::util::library();
    let extra = Cassette::new(
        "test/channels-extra",
        Provenance::synthetic("2026-11-29", "channels integration test"),
    )
    .interactions(interactions);
    let mut cassettes = vec![extra];
    cassettes.extend(library.mount_set(BASE)?);
    Ok(Session::start(&cassettes, &[]).await?)
}

fn structured(result: &CallToolResult) -> &Value {
    result
        .structured_content
        .as_ref()
        .expect("a successful call carries structuredContent")
}

fn error_code(result: &CallToolResult) -> Option<String> {
    modyo_lab::check::error(result).and_then(|e| e["code"].as_str().map(str::to_owned))
}

/// A ZIP with the given entries; `links` are stored as Unix symbolic links.
fn zip(files: &[(&str, &str)], links: &[(&str, &str)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, body) in files {
        writer.start_file(*name, options).expect("entry");
        writer.write_all(body.as_bytes()).expect("write");
    }
    for (name, target) in links {
        writer.add_symlink(*name, *target, options).expect("link");
    }
    writer.finish().expect("finish").into_inner()
}

/// The download of widget 503 (branch-locator-v2) answering `bytes`.
fn download_answering(bytes: Vec<u8>) -> Interaction {
    Interaction::get("/api/admin/sites/12/widget_definitions/503/download")
        .respond_with(RecordedResponse::bytes(200, bytes).header("content-type", "application/zip"))
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(
                    path.strip_prefix(dir)
                        .unwrap_or(&path)
                        .display()
                        .to_string(),
                );
            }
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn download_unpacks_the_zip_and_reports_the_files_read_back_from_disk() -> anyhow::Result<()>
{
    // Arrange
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("widget");
    let bytes = zip(
        &[
            ("index.html", "<div></div>"),
            ("dist/main.js", "go();"),
            ("./dist/main.css", ""),
        ],
        &[],
    );
    // Two calls: the lookup and the download are each recorded twice (a sequence).
    let lookup = Interaction::get("/api/admin/sites/12/widget_definitions")
        .query("query", "branch-locator-v2")
        .query("page", "1")
        .query("per_page", "100")
        .respond(
            200,
            json!({"widget_definitions": [{"id": 503, "name": "branch-locator-v2"}]}),
        );
    let session = session_with(vec![
        lookup.clone(),
        download_answering(bytes.clone()),
        lookup,
        download_answering(bytes),
    ])
    .await?;
    let args = json!({"site": "12", "widget": "branch-locator-v2", "targetDir": target.display().to_string()});

    // Act
    let result = session.call("channels-download", args.clone()).await?;
    let again = session.call("channels-download", args).await?;

    // Assert
    let s = structured(&result);
    assert_eq!(
        s["data"]["files"],
        json!([
            {"path": "dist/main.css", "bytes": 0},
            {"path": "dist/main.js", "bytes": 5},
            {"path": "index.html", "bytes": 11}
        ])
    );
    assert_eq!(
        s["data"]["path"],
        json!(target.canonicalize()?.display().to_string())
    );
    assert_eq!(s["state"], json!({"status": "downloaded", "affected": 3}));
    assert_eq!(s["resource"]["type"], "widget");
    assert_eq!(s["resource"]["id"], 503);
    assert_eq!(
        std::fs::read_to_string(target.join("dist/main.js"))?,
        "go();"
    );
    // Existing files are not replaced without overwrite.
    assert_eq!(error_code(&again).as_deref(), Some("local_io"));
    assert!(
        modyo_lab::check::text(&again)
            .unwrap_or("")
            .contains("overwrite")
    );
    session.close().await;
    Ok(())
}

#[tokio::test]
async fn download_refuses_entries_that_escape_and_writes_nothing() -> anyhow::Result<()> {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "parent dir",
            zip(&[("ok.txt", "x"), ("../escaped.txt", "x")], &[]),
        ),
        ("deep parent dir", zip(&[("a/../../escaped.txt", "x")], &[])),
        (
            "absolute path",
            zip(&[("ok.txt", "x"), ("/tmp/escaped.txt", "x")], &[]),
        ),
        (
            "symbolic link",
            zip(&[("ok.txt", "x")], &[("link", "/etc")]),
        ),
        ("backslash", zip(&[("..\\escaped.txt", "x")], &[])),
    ];
    for (label, bytes) in cases {
        refused_without_writing(label, bytes).await?;
    }
    Ok(())
}

/// Downloads `bytes` into a fresh directory: the call must fail with `local_io`, say that
/// nothing was written, and leave nothing behind, not even the target directory.
async fn refused_without_writing(label: &str, bytes: Vec<u8>) -> anyhow::Result<()> {
    // Arrange
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("widget");
    let session = session_with(vec![download_answering(bytes)]).await?;

    // Act
    let result = session
        .call(
            "channels-download",
            json!({"site": "12", "widget": "branch-locator-v2", "targetDir": target.display().to_string()}),
        )
        .await?;

    // Assert: a clear error, and not even the target directory was created.
    assert_eq!(error_code(&result).as_deref(), Some("local_io"), "{label}");
    let text = modyo_lab::check::text(&result).unwrap_or("");
    assert!(text.contains("nothing was written"), "{label}: {text}");
    assert!(
        !target.exists(),
        "{label}: the target directory was created"
    );
    assert!(files_under(dir.path()).is_empty(), "{label}");
    session.close().await;
    Ok(())
}

/// A ZIP that holds `x.txt` twice: the writer refuses duplicate names, so the second entry is
/// written as `y.txt` and renamed in place (the names are as long, the CRCs cover data only).
fn zip_with_a_duplicate() -> Vec<u8> {
    let bytes = zip(&[("x.txt", "first"), ("y.txt", "second")], &[]);
    let (from, to) = (b"y.txt", b"x.txt");
    let mut out = bytes.clone();
    let mut i = 0;
    while i + from.len() <= out.len() {
        if &out[i..i + from.len()] == from {
            out[i..i + from.len()].copy_from_slice(to);
        }
        i += 1;
    }
    assert_ne!(out, bytes);
    out
}

/// Archives that cannot be unpacked whole: a file and a directory of the same name (in either
/// order), and a duplicate entry. Nothing may be written (the conflict used to surface only
/// after the first files were on disk, and a duplicate silently kept the last copy).
#[tokio::test]
async fn download_refuses_conflicting_or_duplicate_entries_and_writes_nothing() -> anyhow::Result<()>
{
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "file then directory",
            zip(&[("ok.txt", "x"), ("a", "file"), ("a/b", "x")], &[]),
        ),
        (
            "directory then file",
            zip(&[("ok.txt", "x"), ("a/b", "x"), ("a", "file")], &[]),
        ),
        ("duplicate entry", zip_with_a_duplicate()),
    ];
    for (label, bytes) in cases {
        refused_without_writing(label, bytes).await?;
    }
    Ok(())
}

/// A file on disk where the archive needs a directory (`targetDir/a` is a file, the archive has
/// `a/b`): found before the first write, so `ok.txt` is not written either.
#[tokio::test]
async fn download_checks_the_disk_before_the_first_write() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("widget");
    std::fs::create_dir_all(&target)?;
    std::fs::write(target.join("a"), "already here")?;
    let session = session_with(vec![download_answering(zip(
        &[("ok.txt", "x"), ("a/b", "x")],
        &[],
    ))])
    .await?;

    let result = session
        .call(
            "channels-download",
            json!({"site": "12", "widget": "branch-locator-v2", "targetDir": target.display().to_string(), "overwrite": true}),
        )
        .await?;

    assert_eq!(
        error_code(&result).as_deref(),
        Some("local_io"),
        "{result:?}"
    );
    assert_eq!(files_under(&target), ["a"], "only what was there before");
    assert_eq!(std::fs::read_to_string(target.join("a"))?, "already here");
    session.close().await;
    Ok(())
}

#[cfg(unix)]
#[tokio::test]
async fn download_refuses_a_link_already_inside_the_target() -> anyhow::Result<()> {
    // Arrange: targetDir/dist is a link to a directory outside it.
    let dir = tempfile::tempdir()?;
    let outside = dir.path().join("outside");
    let target = dir.path().join("widget");
    std::fs::create_dir_all(&outside)?;
    std::fs::create_dir_all(&target)?;
    std::os::unix::fs::symlink(&outside, target.join("dist"))?;
    let session =
        session_with(vec![download_answering(zip(&[("dist/main.js", "x")], &[]))]).await?;

    // Act
    let result = session
        .call(
            "channels-download",
            json!({"site": "12", "widget": "branch-locator-v2", "targetDir": target.display().to_string(), "overwrite": true}),
        )
        .await?;

    // Assert
    assert_eq!(error_code(&result).as_deref(), Some("local_io"));
    assert!(files_under(&outside).is_empty());
    session.close().await;
    Ok(())
}

#[tokio::test]
async fn read_only_mode_sends_no_write_for_any_gated_action() -> anyhow::Result<()> {
    // Arrange: every read-only scenario of the channels cassette, in one session.
    let library = crate::util::library();
    let cassette = library
        .get("channels/read-only")
        .expect("the read-only cassette exists");
    let session = session("channels/read-only", &[("MODYO_READ_ONLY", "true")]).await?;
    let listed: Vec<String> = session
        .tools()
        .await?
        .iter()
        .map(|t| t.name.to_string())
        .filter(|n| n.starts_with("channels-"))
        .collect();
    let mut refused = 0;

    // Act
    for scenario in &cassette.scenarios {
        let result = session
            .call(&scenario.tool, scenario.arguments.clone())
            .await?;
        if scenario.expect.outcome == modyo_replay::cassette::Outcome::Control {
            assert_eq!(
                structured(&result)["control"]["outcome"],
                "refused",
                "{}",
                scenario.name
            );
            refused += 1;
        }
    }

    // Assert
    assert_eq!(
        listed.len(),
        12,
        "12 channels tools in read-only mode: {listed:?}"
    );
    assert!(
        refused >= 30,
        "every mutating action of the nine gated tools"
    );
    let writes: Vec<String> = session
        .replay()
        .received()
        .iter()
        .filter(|r| r.method != "GET")
        .map(|r| r.line())
        .collect();
    assert!(writes.is_empty(), "writes reached the API: {writes:?}");
    session.close().await;
    Ok(())
}

#[tokio::test]
async fn searching_a_site_without_templates_says_searched_zero() -> anyhow::Result<()> {
    let session = session("channels/templates-search", &[]).await?;

    let empty = session
        .call(
            "channels-templates-search",
            json!({"site": "portal-clientes", "query": "site.name"}),
        )
        .await?;
    let full = session
        .call(
            "channels-templates-search",
            json!({"site": "12", "query": "site.name"}),
        )
        .await?;

    let empty = structured(&empty);
    assert_eq!(empty["data"], json!([]));
    assert_eq!(
        empty["state"],
        json!({"returned": 0, "total": 0, "searched": 0, "complete": true})
    );
    assert_eq!(empty["resource"]["slug"], "portal-clientes");
    let full = structured(&full);
    assert_eq!(
        full["state"]["searched"], 10,
        "every template body was read"
    );
    let hits = full["data"].as_array().expect("an array");
    assert_eq!(full["state"]["returned"], hits.len());
    assert!(hits.iter().any(|h| h["name"] == "header"
        && h["matches"] == json!([{"line": 2, "text": "<a href=\"/\" title=\"Banco Andino\">{{ site.name }}</a>"}])));
    session.close().await;
    Ok(())
}

#[tokio::test]
async fn replace_reports_what_changed_and_names_the_template_only_when_one_did()
-> anyhow::Result<()> {
    // One session per call: a session answers each recorded request once.
    let first = session("channels/templates-replace", &[]).await?;
    let second = session("channels/templates-replace", &[]).await?;

    let one = first
        .call(
            "channels-templates-replace",
            json!({"site": "12", "find": "Banco Andino", "replace": "Banco Andino S.A.", "templates": ["header"], "category": "snippet"}),
        )
        .await?;
    let many = second
        .call(
            "channels-templates-replace",
            json!({"site": "12", "find": "#003366", "replace": "#00264d", "category": "css"}),
        )
        .await?;

    let one = structured(&one);
    assert_eq!(one["state"], json!({"status": "updated", "affected": 1}));
    assert_eq!(one["resource"]["id"], 203);
    assert_eq!(one["data"]["changed"][0]["replacements"], 1);
    let many = structured(&many);
    assert_eq!(many["state"], json!({"status": "updated", "affected": 2}));
    assert!(
        many.get("resource").is_none(),
        "two changed: no single resource"
    );
    first.close().await;
    second.close().await;
    Ok(())
}

#[tokio::test]
async fn preview_and_publish_are_refused_before_any_request() -> anyhow::Result<()> {
    // Arrange: the whole base world, so a request would be answered rather than miss.
    let session = session_with(Vec::new()).await?;

    // Act
    let preview = session
        .call("channels-preview", json!({"site": "banco-andino"}))
        .await?;
    let publish = session
        .call("channels-publish", json!({"site": "12"}))
        .await?;

    // Assert: rejected with the reason, and nothing sent.
    for (result, tool) in [
        (&preview, "channels-preview"),
        (&publish, "channels-publish"),
    ] {
        assert_eq!(error_code(result).as_deref(), Some("rejected"), "{tool}");
        let message = modyo_lab::check::error(result)
            .and_then(|e| e["message"].as_str().map(str::to_owned))
            .unwrap_or_default();
        assert!(
            message.contains("refused before any request") && message.contains("oid and type"),
            "{tool}: {message}"
        );
    }
    assert!(
        session.replay().received().is_empty(),
        "{:?}",
        session
            .replay()
            .received()
            .iter()
            .map(|r| r.line())
            .collect::<Vec<_>>()
    );
    session.close().await;
    Ok(())
}

#[tokio::test]
async fn legacy_mode_answers_the_old_way() -> anyhow::Result<()> {
    // Arrange
    let session = session(
        "channels/sites-manage",
        &[("MODYO_MCP_LEGACY_MODULES", "channels")],
    )
    .await?;
    let old = |result: &CallToolResult| -> Value {
        assert!(
            result.structured_content.is_none(),
            "legacy has no structuredContent"
        );
        let text = modyo_lab::check::text(result).unwrap_or("");
        assert!(text.contains('\n'), "legacy text is pretty-printed");
        serde_json::from_str(text).unwrap_or(Value::Null)
    };

    // Act
    let list = session
        .call("channels-sites-manage", json!({"action": "list"}))
        .await?;
    let create = session
        .call(
            "channels-sites-manage",
            json!({"action": "create", "name": "Banco Andino Empresas", "host": "empresas"}),
        )
        .await?;
    let cancelled = session
        .call(
            "channels-sites-manage",
            json!({"action": "delete", "site": "16"}),
        )
        .await?;

    // Assert
    let tool = session
        .tools()
        .await?
        .into_iter()
        .find(|t| t.name == "channels-sites-manage")
        .expect("listed");
    assert!(
        tool.output_schema.is_none(),
        "legacy tools publish no outputSchema"
    );
    let list = old(&list);
    assert_eq!(list["meta"]["total_entries"], 3);
    assert_eq!(list["sites"].as_array().map(Vec::len), Some(3));
    let create = old(&create);
    assert_eq!(create["action"], "created");
    assert_eq!(create["message"], "Site created successfully");
    assert_eq!(create["site"]["id"], 17);
    assert_eq!(old(&cancelled)["action"], "cancelled");
    session.close().await;
    Ok(())
}
