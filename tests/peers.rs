//! Strict peers as separate programs: the official Python `mcp` client, the TypeScript SDK
//! client, the MCP Inspector CLI and the MCP conformance suite, all pinned (tests/python,
//! tests/node) and installed by `make python-client` / `make node-tools` (which `make test`
//! runs). The Python and TypeScript SDK clients walk every cassette scenario through `modyo-lab
//! serve` over stdio and over streamable HTTP; the Inspector walks every scenario over HTTP
//! (`tools/list` as a program, the calls through the CLI's entry point in one Node process, a
//! Node start-up per call being most of the gate's time otherwise), and the first scenario of
//! every module and expected outcome over stdio as a program, where each call also starts a
//! server (tests/node/inspector.mjs). Each also walks every scenario in each result form
//! (C22: `MODYO_RESULTS=structured`, `text`, and `MODYO_OUTPUT_SCHEMA=off`; the Python client
//! over stdio, the other two over HTTP), checking each answer's shape against its form, and
//! the conformance suite runs in each. Each is also shown to reject a tool whose output breaks
//! its `outputSchema` (the harness-only fault of `modyo_lab::corrupt`; the Python client in the
//! structured form too), so a green run means something.
//!
//! A bare `cargo test` without the peers installed skips these tests, saying on stderr which
//! one and how to run it (`make test`); with `CI=true` a missing peer fails instead.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use modyo_replay::cassette::Outcome;

use crate::util::http::Spawned;
use crate::util::{lab_binary, workspace};

/// The pinned Python client's interpreter, when `make python-client` installed it.
pub(crate) fn python() -> Option<PathBuf> {
    installed(
        ".tools/venv",
        "bin/python",
        "the pinned Python MCP client",
        "make python-client",
    )
}

/// The Node 22 build installed from the npm registry with the pinned Node peers (.tools/node),
/// when `make node-tools` installed them.
fn node() -> Option<PathBuf> {
    installed(
        ".tools/node",
        "node_modules/.bin/node",
        "the pinned Node peers",
        "make node-tools",
    )
}

/// A peer's program (`program` in the folder `dir` under the workspace), or `None` after saying
/// which test is skipped and how to run it. A peer counts as installed once its make target
/// finished (`dir/.installed`, which it touches last), so a half-done install is not run. A
/// bare `cargo test` runs without the peers; `make test` installs them first, and with
/// `CI=true` a missing peer fails the test instead of skipping it.
fn installed(dir: &str, program: &str, peer: &str, install: &str) -> Option<PathBuf> {
    let dir = workspace().join(dir);
    let path = dir.join(program);
    if dir.join(".installed").exists() && path.exists() {
        return Some(path);
    }
    let path = path
        .strip_prefix(workspace())
        .unwrap_or(&path)
        .display()
        .to_string();
    let message = format!(
        "{peer}: not installed at {path}; run `{install}`, or `make test`, which installs every peer and runs everything"
    );
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true: {message}"
    );
    // The test harness names each test's thread after the test.
    let test = std::thread::current()
        .name()
        .unwrap_or("a peer test")
        .to_owned();
    // Straight to stderr, past the harness's capture, so a passing run still shows the skip.
    let _ = writeln!(std::io::stderr(), "skipped {test}: {message}");
    None
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
    let Some(python) = python() else {
        return;
    };
    let output = run(&python, "tests/python/acceptance.py", "stdio", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the Python mcp client (stdio)",
    );
}

#[test]
fn the_python_client_accepts_every_scenario_over_http() {
    let Some(python) = python() else {
        return;
    };
    let output = run(&python, "tests/python/acceptance.py", "http", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the Python mcp client (http)",
    );
}

#[test]
fn the_typescript_sdk_client_accepts_every_scenario_over_stdio() {
    let Some(node) = node() else {
        return;
    };
    let output = run(&node, "tests/node/acceptance.mjs", "stdio", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the TypeScript SDK client (stdio)",
    );
}

#[test]
fn the_typescript_sdk_client_accepts_every_scenario_over_http() {
    let Some(node) = node() else {
        return;
    };
    let output = run(&node, "tests/node/acceptance.mjs", "http", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the TypeScript SDK client (http)",
    );
}

#[test]
fn the_inspector_cli_accepts_every_scenario_over_http() {
    let Some(node) = node() else {
        return;
    };
    let output = run(&node, "tests/node/inspector.mjs", "http", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the MCP Inspector CLI (http)",
    );
}

#[test]
fn the_inspector_cli_accepts_every_module_and_outcome_over_stdio() {
    let Some(node) = node() else {
        return;
    };
    let output = run(&node, "tests/node/inspector.mjs", "stdio", &[]);
    assert_accepted(
        &output,
        "scenarios passed through the MCP Inspector CLI (stdio)",
    );
}

/// The server configurations besides the default (C22): the `structured` and `text` result
/// forms, `both` without the output schemas listed, and `text` with plain-text errors. The peer scripts read them from their
/// environment (the server they start inherits it) and check each answer's shape against
/// them.
const FORMS: [&[(&str, &str)]; 4] = [
    &[("MODYO_RESULTS", "structured")],
    &[("MODYO_RESULTS", "text")],
    &[("MODYO_OUTPUT_SCHEMA", "off")],
    &[("MODYO_RESULTS", "text"), ("MODYO_ERRORS", "text")],
];

/// Runs `script` over `transport` in every configuration of [`FORMS`] and asserts the peer
/// accepted every scenario in each.
fn assert_accepted_in_every_form(program: &Path, script: &str, transport: &str, summary: &str) {
    for env in FORMS {
        let output = run(program, script, transport, env);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains(summary),
            "{script} ({transport}) with {env:?} rejected results:\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn the_python_client_accepts_every_scenario_in_every_result_form() {
    let Some(python) = python() else {
        return;
    };
    assert_accepted_in_every_form(
        &python,
        "tests/python/acceptance.py",
        "stdio",
        "scenarios passed through the Python mcp client (stdio)",
    );
}

#[test]
fn the_typescript_sdk_client_accepts_every_scenario_in_every_result_form() {
    let Some(node) = node() else {
        return;
    };
    assert_accepted_in_every_form(
        &node,
        "tests/node/acceptance.mjs",
        "http",
        "scenarios passed through the TypeScript SDK client (http)",
    );
}

#[test]
fn the_inspector_cli_accepts_every_scenario_in_every_result_form() {
    let Some(node) = node() else {
        return;
    };
    assert_accepted_in_every_form(
        &node,
        "tests/node/inspector.mjs",
        "http",
        "scenarios passed through the MCP Inspector CLI (http)",
    );
}

/// The tool the fault targets: among tools with a scenario that expects a structured answer
/// (success or control), the one with the fewest scenarios (then by name), so the corrupted
/// runs stay short whatever the catalogue holds. Returns it and the labels of its scenarios
/// that must now be rejected.
fn corruption_target() -> (String, BTreeSet<String>) {
    let library = crate::util::library();
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
    assert_rejects_invalid_output_with(program, script, transport, marker, &[]);
}

/// [`assert_rejects_invalid_output`] with the server's environment extended by `env`.
fn assert_rejects_invalid_output_with(
    program: &Path,
    script: &str,
    transport: &str,
    marker: &str,
    env: &[(&str, &str)],
) {
    let (tool, expected) = corruption_target();
    let mut env = env.to_vec();
    env.extend([
        ("MODYO_LAB_CORRUPT_OUTPUT", tool.as_str()),
        ("MODYO_ACCEPTANCE_TOOL", tool.as_str()),
    ]);
    let output = run(program, script, transport, &env);
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
    let Some(python) = python() else {
        return;
    };
    for transport in ["stdio", "http"] {
        assert_rejects_invalid_output(
            &python,
            "tests/python/acceptance.py",
            transport,
            "Invalid structured content returned by tool",
        );
    }
}

/// In the structured form (C22) the schema is all a client checks an answer against: the
/// peers still reject one that breaks it.
#[test]
fn the_python_client_rejects_a_structured_form_output_that_breaks_its_schema() {
    let Some(python) = python() else {
        return;
    };
    assert_rejects_invalid_output_with(
        &python,
        "tests/python/acceptance.py",
        "stdio",
        "Invalid structured content returned by tool",
        &[("MODYO_RESULTS", "structured")],
    );
}

#[test]
fn the_typescript_sdk_client_rejects_an_output_that_breaks_its_schema() {
    let Some(node) = node() else {
        return;
    };
    for transport in ["stdio", "http"] {
        assert_rejects_invalid_output(
            &node,
            "tests/node/acceptance.mjs",
            transport,
            "Structured content does not match the tool's output schema",
        );
    }
}

#[test]
fn the_inspector_cli_rejects_an_output_that_breaks_its_schema() {
    let Some(node) = node() else {
        return;
    };
    // Ajv's message names the violated property and the keyword: `platform` is declared as
    // the one value the server writes (C2), so the corrupted string breaks its `const`.
    assert_rejects_invalid_output(
        &node,
        "tests/node/inspector.mjs",
        "http",
        "platform must be equal to constant",
    );
}

#[test]
fn the_conformance_suite_passes_the_scenarios_that_apply_to_a_real_server() {
    let Some(node) = node() else {
        return;
    };
    assert_conformance(&node, &[]);
}

#[test]
fn the_conformance_suite_passes_in_every_result_form() {
    let Some(node) = node() else {
        return;
    };
    for env in FORMS {
        assert_conformance(&node, env);
    }
}

/// Runs the conformance suite against the offline server started with `env`.
fn assert_conformance(node: &Path, env: &[(&str, &str)]) {
    // Arrange: the offline server over HTTP; the suite's fixture-tool scenarios are listed in
    // the expected-failures file (the suite fails on a new failure AND on a stale entry).
    let root = workspace();
    let mut command = Command::new(lab_binary());
    command
        .args(["serve", "--http", "127.0.0.1:0", "--cassettes"])
        .arg(root.join("cassettes"))
        .env("RUST_LOG", "error")
        .envs(env.iter().copied());
    let spawned = Spawned::start(command);
    let results = tempfile::tempdir().expect("tempdir");

    // Act
    let output = Command::new(node)
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
        "conformance with {env:?}:\n{stdout}\n{}",
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
