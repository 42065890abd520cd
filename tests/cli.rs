//! Both binaries as a newcomer meets them: quiet logs by default (warnings and our own progress
//! lines, no dependency chatter), more with `-v`, `RUST_LOG` or `DEBUG`; and no path of the
//! machine that built them in any `--help`, defaults resolved where the binary runs.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use modyo_replay::{Cassette, Interaction, Provenance, Scenario};
use serde_json::json;

use crate::util::{lab_binary, server_binary, workspace};

/// The log lines of `stderr` (the fmt layer's `<time> <LEVEL> ...` lines) at `level`.
fn lines_at<'a>(stderr: &'a str, level: &str) -> Vec<&'a str> {
    stderr
        .lines()
        .filter(|line| line.split_whitespace().nth(1) == Some(level))
        .collect()
}

/// Whether a log line comes from this project's crates.
fn ours(line: &str) -> bool {
    line.contains(" modyo_lab::") || line.contains(" modyo_mcp::")
}

/// Asserts stderr holds no INFO (or finer) line from a dependency, and returns it.
fn assert_no_dependency_chatter(what: &str, output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    for level in ["INFO", "DEBUG", "TRACE"] {
        let noise: Vec<&str> = lines_at(&stderr, level)
            .into_iter()
            .filter(|l| !ours(l))
            .collect();
        assert!(noise.is_empty(), "{what}: {level} noise:\n{stderr}");
    }
    stderr
}

/// A stdio MCP session with `command`: initialize, then `tools/call` of `tool` (each answer
/// awaited), then EOF; the process's output once it exited.
fn session(mut command: Command, tool: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut answer = || {
        let mut line = String::new();
        stdout.read_line(&mut line).expect("reads an answer");
        assert!(line.contains("\"result\""), "an answer: {line}");
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "cli-test", "version": "0"}}});
    writeln!(stdin, "{initialize}").expect("writes");
    answer();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": tool, "arguments": {}}});
    writeln!(stdin, "{initialized}\n{call}").expect("writes");
    answer();
    drop(stdin);
    let mut rest = Vec::new();
    std::io::Read::read_to_end(&mut stdout, &mut rest).expect("stdout drains");
    let output = child.wait_with_output().expect("exits");
    assert!(output.status.success(), "{output:?}");
    output
}

/// `modyo-lab serve` on stdio over the workspace's cassettes, with `args` and `env`.
fn lab_serve(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(lab_binary());
    command
        .arg("serve")
        .args(args)
        .arg("--cassettes")
        .arg(workspace().join("cassettes"))
        .env_remove("RUST_LOG")
        .envs(env.iter().copied());
    session(command, "content-spaces-list")
}

#[test]
fn the_offline_server_logs_its_progress_and_no_dependency_chatter_by_default() {
    let stderr = assert_no_dependency_chatter("serve", &lab_serve(&[], &[]));
    let info = lines_at(&stderr, "INFO");
    assert!(
        info.iter().any(|l| l.contains("replaying cassettes"))
            && info.iter().any(|l| l.contains("Tools: ")),
        "our progress lines:\n{stderr}"
    );
}

#[test]
fn v_and_rust_log_show_more() {
    let dependency_info = |output: &Output| {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        lines_at(&stderr, "INFO").iter().any(|l| !ours(l))
    };
    assert!(dependency_info(&lab_serve(&["-v"], &[])), "-v: rmcp's INFO");
    let debug = lab_serve(&["-vv"], &[]);
    assert!(
        !lines_at(&String::from_utf8_lossy(&debug.stderr), "DEBUG").is_empty(),
        "-vv: DEBUG lines"
    );
    assert!(
        dependency_info(&lab_serve(&[], &[("RUST_LOG", "info")])),
        "RUST_LOG=info: rmcp's INFO"
    );
    let only_errors = lab_serve(&["-v"], &[("RUST_LOG", "error")]);
    assert!(
        only_errors.stderr.is_empty(),
        "RUST_LOG takes precedence over -v: {}",
        String::from_utf8_lossy(&only_errors.stderr)
    );
}

#[test]
fn the_production_server_has_the_same_default_and_debug_asks_for_more() {
    let run = |env: &[(&str, &str)]| {
        let mut command = Command::new(server_binary());
        command.env_clear().envs(env.iter().copied());
        // Public mode (no credentials): a widgets tool answers without an account.
        session(command, "widgets-list-components")
    };
    let stderr = assert_no_dependency_chatter("modyo-mcp", &run(&[]));
    assert!(
        lines_at(&stderr, "INFO")
            .iter()
            .any(|l| l.contains("Tools: ")),
        "{stderr}"
    );
    let debug = run(&[("DEBUG", "true")]);
    assert!(
        !lines_at(&String::from_utf8_lossy(&debug.stderr), "DEBUG").is_empty(),
        "DEBUG=true: DEBUG lines"
    );
}

#[test]
fn record_prints_its_report_and_no_dependency_chatter() {
    let dir = tempfile::tempdir().expect("tempdir");
    Cassette::new(
        "content/quiet",
        Provenance::recorded("2026-12-01", "one space"),
    )
    .scenario(
        Scenario::new("by-id")
            .tool("content-spaces-get")
            .args(json!({"space": "636"})),
    )
    .interaction(
        Interaction::get("/api/admin/content/spaces/636")
            .respond(200, json!({"id": 636, "name": "Sucursales"})),
    )
    .save(dir.path())
    .expect("saves");
    let output = Command::new(lab_binary())
        .args(["record", "--mode", "none", "--scenario", "content/quiet"])
        .arg("--cassettes")
        .arg(dir.path())
        .args(["--", "content-spaces-get", r#"{"space": "636"}"#])
        .env_remove("RUST_LOG")
        .env("MODYO_TOKEN", "not-used-offline")
        .env("MODYO_URL", "http://127.0.0.1:9")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("1 replayed"), "{stdout}");
    assert_no_dependency_chatter("record", &output);
}

/// Every subcommand path of `binary` (the root first), from the `Commands:` lists of `--help`.
fn subcommands(binary: &Path) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut queue = vec![Vec::<String>::new()];
    while let Some(path) = queue.pop() {
        let help = help(binary, &path);
        let listed = help
            .split_once("\nCommands:\n")
            .map(|(_, rest)| rest.split("\n\n").next().unwrap_or_default())
            .unwrap_or_default();
        for name in listed.lines().filter_map(|l| l.split_whitespace().next()) {
            if name != "help" {
                queue.push(path.iter().cloned().chain([name.to_owned()]).collect());
            }
        }
        found.push(path);
    }
    found.sort();
    found
}

/// `binary <path...> --help`, run from an empty directory.
fn help(binary: &Path, path: &[String]) -> String {
    let cwd = tempfile::tempdir().expect("tempdir");
    let output = Command::new(binary)
        .args(path)
        .arg("--help")
        .current_dir(cwd.path())
        .output()
        .expect("runs");
    assert!(output.status.success(), "{path:?} --help: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn no_help_shows_a_path_of_the_build_machine() {
    let build_paths: Vec<PathBuf> = vec![workspace(), PathBuf::from(env!("CARGO_MANIFEST_DIR"))];
    let mut seen = 0;
    for binary in [lab_binary(), server_binary()] {
        for path in subcommands(&binary) {
            let text = help(&binary, &path);
            for build in &build_paths {
                assert!(
                    !text.contains(&*build.to_string_lossy()),
                    "{} {path:?} --help names {}:\n{text}",
                    binary.display(),
                    build.display()
                );
            }
            if text.contains("--cassettes") {
                assert!(
                    text.contains("workspace this binary stands in"),
                    "{path:?}: the default is explained:\n{text}"
                );
            }
            seen += 1;
        }
    }
    assert!(seen >= 10, "every subcommand's help was read ({seen})");
}

#[test]
fn a_moved_binary_looks_for_cassettes_where_it_runs() {
    // Arrange: the binary outside any checkout, run from an empty directory.
    let dir = tempfile::tempdir().expect("tempdir");
    let moved = dir.path().join("modyo-lab");
    if std::fs::hard_link(lab_binary(), &moved).is_err() {
        std::fs::copy(lab_binary(), &moved).expect("copies the binary");
    }
    let cwd = tempfile::tempdir().expect("tempdir");

    // Act
    let output = Command::new(&moved)
        .args(["cassettes", "check"])
        .current_dir(cwd.path())
        .env_remove("RUST_LOG")
        .output()
        .expect("runs");

    // Assert: it fails on ./cassettes, never on the build machine's.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("cassettes"), "{stderr}");
    assert!(
        !stderr.contains(&*workspace().to_string_lossy()),
        "{stderr}"
    );
}
