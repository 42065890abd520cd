//! Strict peers as separate programs: the official Python `mcp` client, the TypeScript SDK
//! client, the MCP Inspector CLI and the MCP conformance suite, all pinned (tests/python,
//! tests/node) and installed by `make python-client` / `make node-tools` (which `make test`
//! runs). The Python and TypeScript SDK clients walk every cassette scenario through `modyo-lab
//! serve` over stdio and over streamable HTTP; the Inspector, which starts a process per call,
//! walks every scenario over HTTP, and the first scenario of every module and expected outcome
//! over stdio, where each call also starts a server (tests/node/inspector.mjs). Each is also
//! shown to reject
//! a tool whose output breaks its `outputSchema` (the harness-only fault of
//! `modyo_lab::corrupt`), so a green run means something.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use modyo_lab::cassette::Outcome;
use modyo_lab::session::Library;

use crate::util::http::Spawned;
use crate::util::{lab_binary, workspace};

/// The pinned Python client's interpreter.
pub(crate) fn python() -> PathBuf {
    let python = workspace().join(".tools/venv/bin/python");
    assert!(
        python.exists(),
        "the pinned Python MCP client is not installed: run `make python-client` (make test does it)"
    );
    python
}

/// The Node 22 build installed from the npm registry with the pinned Node peers (.tools/node).
fn node() -> PathBuf {
    let node = workspace().join(".tools/node/node_modules/.bin/node");
    assert!(
        node.exists(),
        "the pinned Node peers are not installed: run `make node-tools` (make test does it)"
    );
    node
}

/// A peer run: `program script <modyo-lab> <cassettes> <transport>` with `env`.
fn run(program: &Path, script: &str, transport: &str, env: &[(&str, &str)]) -> Output {
    let root = workspace();
    let mut command = Command::new(program);
    command
        .arg(root.join(script))
        .arg(lab_binary())
        .arg(root.join("cassettes"))
        .arg(transport)
        .env("RUST_LOG", "error");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("the peer runs")
}

/// Asserts the peer accepted every scenario and printed its summary line.
fn assert_accepted(output: &Output, summary: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the peer rejected results:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(summary), "{stdout}");
}

#[test]
fn the_python_client_accepts_every_scenario_over_stdio() {
    let output = run(&python(), "tests/python/acceptance.py", "stdio", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the Python mcp client (stdio)",
    );
}

#[test]
fn the_python_client_accepts_every_scenario_over_http() {
    let output = run(&python(), "tests/python/acceptance.py", "http", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the Python mcp client (http)",
    );
}

#[test]
fn the_typescript_sdk_client_accepts_every_scenario_over_stdio() {
    let output = run(&node(), "tests/node/acceptance.mjs", "stdio", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the TypeScript SDK client (stdio)",
    );
}

#[test]
fn the_typescript_sdk_client_accepts_every_scenario_over_http() {
    let output = run(&node(), "tests/node/acceptance.mjs", "http", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the TypeScript SDK client (http)",
    );
}

#[test]
fn the_inspector_cli_accepts_every_scenario_over_http() {
    let output = run(&node(), "tests/node/inspector.mjs", "http", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the MCP Inspector CLI (http)",
    );
}

#[test]
fn the_inspector_cli_accepts_every_module_and_outcome_over_stdio() {
    let output = run(&node(), "tests/node/inspector.mjs", "stdio", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the MCP Inspector CLI (stdio)",
    );
}

/// The tool the fault targets: among tools with a scenario that expects a structured answer
/// (success or control), the one with the fewest scenarios (then by name), so the corrupted
/// runs stay short whatever the catalogue holds. Returns it and the labels of its scenarios
/// that must now be rejected.
fn corruption_target() -> (String, BTreeSet<String>) {
    let library = Library::workspace().expect("the cassettes load");
    let scenarios: Vec<_> = library
        .scenarios()
        .into_iter()
        .filter(|(c, _)| !c.has_tag("fault"))
        .collect();
    let structured = |outcome: Outcome| outcome != Outcome::Error;
    let candidates: BTreeSet<&str> = scenarios
        .iter()
        .filter(|(_, s)| structured(s.expect.outcome) && s.env.is_empty())
        .map(|(_, s)| s.tool.as_str())
        .collect();
    let count = |tool: &str| scenarios.iter().filter(|(_, s)| s.tool == tool).count();
    let tool = candidates
        .into_iter()
        .min_by_key(|t| (count(t), *t))
        .expect("some scenario expects a structured answer")
        .to_owned();
    let rejected = scenarios
        .iter()
        .filter(|(_, s)| s.tool == tool && structured(s.expect.outcome))
        .map(|(c, s)| format!("{}#{}", c.name(), s.name))
        .collect();
    (tool, rejected)
}

/// Runs a peer against a server whose `tool` answers break its outputSchema (only that
/// tool's scenarios), and asserts the peer itself rejected exactly the expected ones, with
/// its own schema-validation message.
fn assert_rejects_invalid_output(program: &Path, script: &str, transport: &str, marker: &str) {
    let (tool, expected) = corruption_target();
    let output = run(
        program,
        script,
        transport,
        &[
            ("MODYO_LAB_CORRUPT_OUTPUT", &tool),
            ("MODYO_ACCEPTANCE_TOOL", &tool),
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !output.status.success(),
        "{script} ({transport}) accepted invalid output of {tool}:\n{stdout}"
    );
    let mut rejected = BTreeSet::new();
    for line in stdout.lines().filter_map(|l| l.strip_prefix("FAIL ")) {
        let (label, reason) = line.split_once(": ").unwrap_or((line, ""));
        assert!(
            reason.starts_with("client rejected the result:") && reason.contains(marker),
            "{script} ({transport}) failed {label} for another reason than the schema: {reason}"
        );
        rejected.insert(label.to_owned());
    }
    assert_eq!(
        rejected, expected,
        "{script} ({transport}): the rejected scenarios of {tool}\n{stdout}"
    );
}

#[test]
fn the_python_client_rejects_an_output_that_breaks_its_schema() {
    for transport in ["stdio", "http"] {
        assert_rejects_invalid_output(
            &python(),
            "tests/python/acceptance.py",
            transport,
            "Invalid structured content returned by tool",
        );
    }
}

#[test]
fn the_typescript_sdk_client_rejects_an_output_that_breaks_its_schema() {
    for transport in ["stdio", "http"] {
        assert_rejects_invalid_output(
            &node(),
            "tests/node/acceptance.mjs",
            transport,
            "Structured content does not match the tool's output schema",
        );
    }
}

#[test]
fn the_inspector_cli_rejects_an_output_that_breaks_its_schema() {
    // Ajv's message names the violated property: `data/platform must be object`.
    assert_rejects_invalid_output(
        &node(),
        "tests/node/inspector.mjs",
        "http",
        "platform must be object",
    );
}

#[test]
fn the_conformance_suite_passes_the_scenarios_that_apply_to_a_real_server() {
    // Arrange: the offline server over HTTP; the suite's fixture-tool scenarios are listed in
    // the expected-failures file (the suite fails on a new failure AND on a stale entry).
    let root = workspace();
    let mut command = Command::new(lab_binary());
    command
        .args(["serve", "--http", "127.0.0.1:0", "--cassettes"])
        .arg(root.join("cassettes"))
        .env("RUST_LOG", "error");
    let spawned = Spawned::start(command);
    let results = tempfile::tempdir().expect("tempdir");

    // Act
    let output = Command::new(node())
        .arg(root.join(".tools/node/node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args(["server", "--url", &spawned.url, "--expected-failures"])
        .arg(root.join("tests/node/conformance-expected-failures.yml"))
        .arg("--output-dir")
        .arg(results.path())
        .output()
        .expect("the conformance suite runs");
    let status = spawned.terminate();

    // Assert: the suite's own verdict, and the scenarios we claim, each passed.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "conformance:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for scenario in [
        "server-initialize",
        "ping",
        "tools-list",
        "dns-rebinding-protection",
    ] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&format!("✓ {scenario}:")) && l.contains(" 0 failed")),
            "{scenario} did not pass:\n{stdout}"
        );
    }
    assert!(status.success());
}
