//! Acceptance through a strict peer: the official Python `mcp` client (pinned in
//! `tests/python/requirements.txt`, installed into `.tools/venv` by `make python-client`)
//! drives `modyo-lab serve` over stdio through every cassette scenario and validates every
//! `structuredContent` against the tool's `outputSchema`.

use std::path::PathBuf;
use std::process::Command;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness lives in the workspace")
        .to_path_buf()
}

#[test]
fn the_python_mcp_client_accepts_every_scenario() {
    let root = workspace();
    let python = root.join(".tools/venv/bin/python");
    assert!(
        python.exists(),
        "the pinned Python MCP client is not installed: run `make python-client` (make test does it)"
    );
    let output = Command::new(&python)
        .arg(root.join("tests/python/acceptance.py"))
        .arg(env!("CARGO_BIN_EXE_modyo-lab"))
        .arg(root.join("cassettes"))
        .env("RUST_LOG", "error")
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the Python client rejected results:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("scenarios passed through the Python mcp client"),
        "{stdout}"
    );
}
