//! The contract lint: clean on our server with the lists as they are, and a deliberately broken
//! server (`tests/python/broken_server.py`, a stdio MCP server in plain Python) caught by every
//! rule, through the `modyo-lab lint` binary exactly as another project would run it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use modyo_lab::lint::{self, LintOptions, Lists, ServerCommand};
use modyo_replay::cassette;
use serde_json::{Value, json};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness sits in the workspace")
        .to_path_buf()
}

fn broken_server() -> String {
    workspace()
        .join("tests/python/broken_server.py")
        .display()
        .to_string()
}

/// Runs `modyo-lab lint <args>` and returns the exit code and stdout.
fn lint_binary(args: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_modyo-lab"))
        .arg("lint")
        .args(args)
        .output()
        .expect("modyo-lab runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[tokio::test]
async fn our_server_passes_the_lint_with_the_lists_as_they_are() -> anyhow::Result<()> {
    let cassettes = cassette::default_dir();
    let options = LintOptions {
        command: ServerCommand::ours(env!("CARGO_BIN_EXE_modyo-lab"), &cassettes),
        replay: Some(cassettes),
        lists: Lists::builtin(),
        calls: Vec::new(),
        rules: Vec::new(),
    };
    let report = lint::run(&options).await?;
    assert!(report.is_clean(), "{}", report.text());
    assert!(
        report.tools > 0 && report.checked == report.tools,
        "{report:?}"
    );
    assert!(report.calls > 0, "the cassette scenarios were replayed");
    // Every list entry is used (an unused one would have failed as stale).
    let used: BTreeSet<&str> = report.exempted.iter().map(|e| e.tool.as_str()).collect();
    let listed = Lists::builtin();
    for tool in listed
        .echoed_root_tools
        .keys()
        .chain(listed.opaque_root_tools.keys())
        .chain(listed.known_underdeclared.keys())
    {
        assert!(used.contains(tool.as_str()), "{tool} exempted nothing");
    }
    Ok(())
}

#[test]
fn a_broken_server_is_caught_by_every_rule() -> anyhow::Result<()> {
    // Arrange: lists that exempt two tools and carry three stale entries; calls for C11/C12.
    let dir = tempfile::tempdir()?;
    let lists = dir.path().join("lists.json");
    std::fs::write(
        &lists,
        json!({
            "echoed_root_tools": {
                "echo-extra": "echoes a thing",
                "disagree": "echoes a thing",
                "good-read": "stale: its root is strict",
                "gone": "stale: no such tool"
            },
            "known_underdeclared": {"disagree": "stale: it declares what it emits"}
        })
        .to_string(),
    )?;
    let calls = dir.path().join("calls.json");
    std::fs::write(
        &calls,
        json!([
            {"tool": "good-read", "arguments": {}},
            {"tool": "underdeclared"},
            {"tool": "echo-extra"},
            {"tool": "disagree", "arguments": {}}
        ])
        .to_string(),
    )?;
    let server = broken_server();

    // Act
    let (code, stdout) = lint_binary(&[
        "--format",
        "json",
        "--lists",
        lists.to_str().unwrap_or_default(),
        "--calls",
        calls.to_str().unwrap_or_default(),
        "--",
        "python3",
        &server,
    ]);

    // Assert: exit 1 and exactly these violations, each naming tool, rule and pointer.
    assert_eq!(code, 1, "{stdout}");
    let report: Value = serde_json::from_str(&stdout)?;
    let found: BTreeSet<(String, String, String)> = report["violations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            (s("tool"), s("rule"), s("pointer"))
        })
        .collect();
    let mut expected: BTreeSet<(String, String, String)> = [
        ("union", "C9", "/properties/data/properties/x/anyOf"),
        (
            "message",
            "C13",
            "/properties/data/items/properties/message",
        ),
        ("loose-root", "C10", "/properties/data"),
        ("opaque-root", "C10", "/properties/data"),
        (
            "read-with-post",
            "C5",
            "/properties/state/properties/status",
        ),
        ("thing-manage", "C5", "/properties/state/properties"),
        ("lying", "C19", "/annotations/readOnlyHint"),
        ("lying", "C5", "/properties/state"),
        ("bare", "C1", "/properties"),
        ("underdeclared", "C11", "/data/extra"),
        ("disagree", "C12", "/data/id"),
        ("disagree", "C12", "/data/name"),
        ("good-read", "C10", ""),
        ("gone", "C10", ""),
        ("disagree", "C11", ""),
    ]
    .iter()
    .map(|(t, r, p)| ((*t).to_owned(), (*r).to_owned(), (*p).to_owned()))
    .collect();
    for key in [
        "returned", "total", "searched", "page", "per_page", "complete",
    ] {
        expected.insert((
            "writer".into(),
            "C5".into(),
            format!("/properties/state/properties/{key}"),
        ));
    }
    let missing: Vec<_> = expected.difference(&found).collect();
    let extra: Vec<_> = found.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}\nextra {extra:?}\n{stdout}"
    );
    assert_eq!(report["calls"], 4);
    Ok(())
}

#[test]
fn a_clean_server_exits_zero_and_a_dead_one_two() {
    let server = broken_server();
    let (code, stdout) = lint_binary(&["--", "python3", &server, "clean"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("0 violation(s)"), "{stdout}");
    let (code, _) = lint_binary(&["--", "python3", "-c", "import sys; sys.exit(3)"]);
    assert_eq!(code, 2, "a server that does not speak MCP cannot be linted");
}

#[test]
fn rules_can_be_selected() {
    let server = broken_server();
    let (code, stdout) = lint_binary(&["--rule", "c9", "--", "python3", &server]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.starts_with("modyo-lab"))
        .collect();
    assert_eq!(
        lines,
        [
            "union C9 /properties/data/properties/x/anyOf: anyOf with 2 structured (object or array) branches; some clients keep only the first branch. Use one object with optional fields"
        ]
    );
}
