//! `modyo-lab diff`: the verdict of a change between two builds of a server, on a
//! purpose-made pair that differs in one tool's description only (`tests/python/
//! verdict_pair.py`): exactly that tool and the catalogue move; two identical builds move
//! nothing; the verdict reaches `$GITHUB_STEP_SUMMARY`, a Markdown and a JSON file; a
//! `--fail-on` limit the change breaks fails the run.

use std::path::Path;

use serde_json::{Value, json};

use crate::peers::python;
use crate::util::workspace;

/// `modyo-lab diff --base-server <v_base> --head-server <v_head> --calls FILE EXTRA...` with
/// `env`: success, stdout, stderr.
fn diff(
    python: &Path,
    calls: &Path,
    (base, head): (&str, &str),
    extra: &[&str],
    env: &[(&str, &Path)],
) -> (bool, String, String) {
    let server = workspace().join("tests/python/verdict_pair.py");
    let build = |version: &str| format!("{} {} {version}", python.display(), server.display());
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_modyo-lab"));
    command
        .arg("diff")
        .arg("--base-server")
        .arg(build(base))
        .arg("--head-server")
        .arg(build(head))
        .arg("--calls")
        .arg(calls)
        .args(extra)
        .env("RUST_LOG", "warn")
        .env_remove("GITHUB_STEP_SUMMARY");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("modyo-lab runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn calls(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("calls.json");
    let calls = json!([
        {"tool": "shelf_list"},
        {"tool": "shelf_find"},
        {"tool": "shelf_count"}
    ]);
    std::fs::write(&path, calls.to_string()).expect("calls written");
    path
}

#[test]
fn one_description_moves_that_tool_and_the_catalogue_only() {
    let Some(python) = python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = calls(dir.path());
    let summary = dir.path().join("step-summary.md");
    let (markdown_file, json_file) = (dir.path().join("v.md"), dir.path().join("v.json"));
    let (ok, stdout, stderr) = diff(
        &python,
        &calls,
        ("v1", "v2"),
        &[
            "--markdown",
            &markdown_file.to_string_lossy(),
            "--json",
            &json_file.to_string_lossy(),
        ],
        &[("GITHUB_STEP_SUMMARY", &summary)],
    );
    assert!(ok, "{stderr}");
    // The catalogue rows move, the per-call rows do not.
    let moved: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| figure") && !l.starts_with("| tool"))
        .collect();
    assert!(
        moved
            .iter()
            .any(|l| l.starts_with("| catalogue in context |")),
        "{stdout}"
    );
    assert!(
        moved
            .iter()
            .any(|l| l.starts_with("| catalogue on the wire |")),
        "{stdout}"
    );
    assert!(
        !stdout.lines().any(|l| l.starts_with("| per call,")),
        "no call moved:\n{stdout}"
    );
    // Exactly one tool moved: the one whose description changed.
    let tools: Vec<&str> = moved
        .iter()
        .filter(|l| l.starts_with("| `"))
        .copied()
        .collect();
    assert_eq!(tools.len(), 1, "{stdout}");
    assert!(tools[0].starts_with("| `shelf_find` |"), "{stdout}");
    assert!(stdout.contains("Nothing else changed"), "{stdout}");
    assert!(
        stdout.lines().count() <= 25,
        "a verdict is short:\n{stdout}"
    );
    // The same verdict in every place asked for.
    assert_eq!(std::fs::read_to_string(&summary).expect("summary"), stdout);
    assert_eq!(std::fs::read_to_string(&markdown_file).expect("md"), stdout);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).expect("json")).expect("JSON");
    assert_eq!(json["tools_moved"], 1);
    assert_eq!(json["tools"][0]["tool"], "shelf_find");
    assert_eq!(json["counter"], "o200k_base");

    // A limit on the catalogue the change breaks fails the run, naming the figure.
    let (ok, _, stderr) = diff(
        &python,
        &calls,
        ("v1", "v2"),
        &["--fail-on", "catalogue=5%"],
        &[],
    );
    assert!(!ok);
    assert!(
        stderr.contains("catalogue in context") && stderr.contains("over the limit catalogue=5%"),
        "{stderr}"
    );
    // A limit it keeps passes.
    let (ok, _, stderr) = diff(
        &python,
        &calls,
        ("v1", "v2"),
        &["--fail-on", "per-call=1%"],
        &[],
    );
    assert!(ok, "{stderr}");
}

#[test]
fn two_identical_builds_move_nothing() {
    let Some(python) = python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (ok, stdout, stderr) = diff(&python, &calls(dir.path()), ("v1", "v1"), &[], &[]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("Nothing moved"), "{stdout}");
    assert!(!stdout.contains("| `"), "{stdout}");
}
