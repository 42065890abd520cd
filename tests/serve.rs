//! The offline server: the real `modyo-mcp` server answering from cassettes, driven in-process
//! over `tokio::io::duplex` and as the `modyo-lab serve` child process.

use std::path::Path;
use std::process::Stdio;

use modyo_lab::serve::{Offline, ServeError, ServeOptions};
use modyo_replay::Interaction;
use modyo_replay::cassette::CassetteError;
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

/// A FIFO named like a cassette used to hang start-up (reading it blocks for ever): it is
/// refused at once, naming the file.
#[cfg(unix)]
#[test]
fn a_fifo_among_the_cassettes_is_refused_not_waited_on() -> anyhow::Result<()> {
    let dir = cassettes_dir();
    let fifo = dir.path().join("content").join("pipe.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status()?;
    assert!(made.success(), "mkfifo");

    // Started on a thread of its own: a start-up blocked in a read of the FIFO cannot block
    // this test's runtime, and the wait below ends either way.
    let (sent, received) = std::sync::mpsc::channel();
    let root = dir.path().to_path_buf();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let started = runtime.block_on(Offline::start(&ServeOptions::new(root)));
        let _ = sent.send(started.map(|_| ()));
    });
    let started = received
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("start-up does not wait on the FIFO");

    let err = started.expect_err("a FIFO is not a cassette");
    let message = err.to_string();
    assert!(
        message.contains("pipe.json") && message.contains("not a regular file"),
        "{message}"
    );
    Ok(())
}

/// A cassette that is a link to `/dev/zero` used to be read without limit (until memory ran
/// out); it is refused before reading. The lab runs under a 600 MB address-space limit here,
/// so the old behaviour fails the test instead of the machine.
#[cfg(target_os = "linux")]
#[test]
fn a_link_to_an_endless_device_is_refused_before_reading() {
    let dir = cassettes_dir();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("content").join("zero.json"))
        .expect("symlink");
    let script = format!(
        "ulimit -v 600000; exec '{}' serve --cassettes '{}'",
        crate::util::lab_binary().display(),
        dir.path().display()
    );

    let output = std::process::Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .output()
        .expect("runs");

    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("zero.json") && stderr.contains("not a regular file"),
        "{stderr}"
    );
}

/// `--cassettes FILE` serves that one cassette (with what it includes); a path that is neither
/// a directory nor a cassette file says precisely which it is not.
#[tokio::test]
async fn cassettes_may_name_a_single_file() -> anyhow::Result<()> {
    let dir = cassettes_dir();
    let file = dir.path().join("content").join("spaces-list.json");

    let offline = Offline::start(&ServeOptions::new(&file)).await?;
    assert_eq!(
        offline.replay().cassettes(),
        ["spaces-list"],
        "a cassette that includes nothing is named after its file"
    );

    // One that includes another: named from the directory its include is found under.
    cassette("content/overview", vec![])
        .include("content/spaces-list")
        .save(dir.path())?;
    let offline = Offline::start(&ServeOptions::new(
        dir.path().join("content").join("overview.json"),
    ))
    .await?;
    assert_eq!(
        offline.replay().cassettes(),
        ["content/overview", "content/spaces-list"]
    );

    let not_json = dir.path().join("notes.txt");
    std::fs::write(&not_json, "hello")?;
    let err = Offline::start(&ServeOptions::new(&not_json))
        .await
        .expect_err("not a cassette");
    let message = err.to_string();
    assert!(
        message.contains("notes.txt") && message.contains(".json"),
        "{message}"
    );

    let absent = dir.path().join("absent.json");
    let err = Offline::start(&ServeOptions::new(&absent))
        .await
        .expect_err("absent");
    assert!(err.to_string().contains("does not exist"), "{err}");
    Ok(())
}

/// The offline server keeps a bounded ledger of what it received: thousands of requests leave
/// at most the last thousand in memory, however long it runs.
#[tokio::test]
async fn the_offline_server_keeps_a_bounded_ledger() -> anyhow::Result<()> {
    let dir = cassettes_dir();
    let offline = Offline::start(&ServeOptions::new(dir.path())).await?;
    let client = reqwest::Client::new();
    let base = offline.replay().uri();
    for i in 0..2_500 {
        let path = if i % 2 == 0 {
            "/api/admin/content/spaces?page=1&per_page=10".to_owned()
        } else {
            format!("/api/admin/unknown/{i}")
        };
        client.get(format!("{base}{path}")).send().await?;
    }

    assert!(
        offline.replay().received().len() <= 1_000,
        "{} requests kept",
        offline.replay().received().len()
    );
    assert!(
        offline.replay().misses().len() <= 1_000,
        "{} misses kept",
        offline.replay().misses().len()
    );
    Ok(())
}
