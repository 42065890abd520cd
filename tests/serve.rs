//! The offline server: the real `modyo-mcp` server answering from cassettes, driven in-process
//! over `tokio::io::duplex` and as the `modyo-lab serve` child process.

use std::path::Path;
use std::process::Stdio;

use modyo_lab::Interaction;
use modyo_lab::cassette::CassetteError;
use modyo_lab::serve::{Offline, ServeError, ServeOptions};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::json;

use crate::util::cassette;

/// A cassettes directory with one ordinary cassette and one tagged `fault`.
fn cassettes_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let spaces = Interaction::get("/api/admin/content/spaces")
        .query("page", "1")
        .query("per_page", "10")
        .respond(
            200,
            json!({"spaces": [], "meta": {"total_entries": 0, "per_page": 10, "current_page": 1, "total_pages": 0}}),
        );
    cassette("content/spaces-list", vec![spaces])
        .save(dir.path())
        .expect("saves");
    cassette(
        "content/spaces-list-outage",
        vec![
            Interaction::get("/api/admin/content/spaces").respond(503, json!({"errors": ["down"]})),
        ],
    )
    .tag("fault")
    .save(dir.path())
    .expect("saves");
    dir
}

#[tokio::test]
async fn the_offline_server_answers_tools_list_over_a_duplex() -> anyhow::Result<()> {
    // Arrange
    let dir = cassettes_dir();
    let offline = Offline::start(&ServeOptions::new(dir.path())).await?;
    let registered: Vec<String> = offline
        .server()
        .tool_names()
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        offline.replay().cassettes(),
        ["content/spaces-list"],
        "fault cassettes are left out"
    );
    assert!(offline.replay().options().allow_repeats);
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let serving = tokio::spawn(offline.serve(server_io));

    // Act
    let client = ().serve(client_io).await?;
    let tools = client.list_all_tools().await?;
    client.cancel().await?;

    // Assert: whatever tools exist today, tools/list shows exactly the registered ones.
    let listed: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(listed, registered);
    serving.await??;
    Ok(())
}

#[tokio::test]
async fn fault_cassettes_are_served_when_asked_for() -> anyhow::Result<()> {
    let dir = cassettes_dir();
    let offline = Offline::start(&ServeOptions::new(dir.path()).include_tag("fault")).await?;
    assert_eq!(
        offline.replay().cassettes(),
        ["content/spaces-list", "content/spaces-list-outage"]
    );
    Ok(())
}

#[tokio::test]
async fn a_missing_cassettes_dir_fails_before_serving() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = Offline::start(&ServeOptions::new(dir.path().join("absent")))
        .await
        .expect_err("no such directory");
    assert!(
        matches!(err, ServeError::Cassette(CassetteError::MissingRoot { .. })),
        "{err}"
    );
}

#[tokio::test]
async fn the_binary_serves_mcp_on_stdout_and_logs_on_stderr() -> anyhow::Result<()> {
    // Arrange
    let dir = cassettes_dir();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_modyo-lab"));
    command
        .arg("serve")
        .arg("--cassettes")
        .arg(Path::new(dir.path()))
        .env("RUST_LOG", "info");
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()?;

    // Act: any stray byte on stdout would break the JSON-RPC stream.
    let client = ().serve(transport).await?;
    let tools = client.list_all_tools().await?;
    let info = client
        .peer_info()
        .and_then(|i| i.server_info.as_ref().map(|s| s.name.clone()));
    client.cancel().await?;

    // Assert
    assert!(info.is_some(), "the server completed initialize");
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count, "tool names are unique");
    Ok(())
}
