//! The production binary `modyo-mcp`: configuration errors exit 1 with the documented text,
//! and without credentials it starts in public mode. (`make test` builds the binaries first.)

use std::io::Write;
use std::process::{Command, Stdio};

use crate::util::server_binary;

#[test]
fn an_invalid_module_exits_1_naming_the_bad_value_and_the_valid_ones() {
    let output = Command::new(server_binary())
        .env_clear()
        .env("MODYO_MCP_MODULES", "content,cms")
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Error: Invalid module(s) in MODYO_MCP_MODULES: 'cms'.")
            && stderr.contains("Valid values: core, content, channels, customers, widgets."),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "stdout is the MCP channel");
}

#[test]
fn without_credentials_the_server_answers_in_public_mode() {
    let mut child = Command::new(server_binary())
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    writeln!(stdin, "{init}").expect("writes");
    drop(stdin); // EOF: the server answers what it read, then exits
    let output = child.wait_with_output().expect("exits");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let first: serde_json::Value =
        serde_json::from_str(stdout.lines().next().expect("an answer")).expect("JSON-RPC");
    assert_eq!(first["result"]["serverInfo"]["name"], "modyo-mcp");
    assert!(
        first["result"]["instructions"]
            .as_str()
            .unwrap()
            .contains("Public mode"),
        "{first}"
    );
}
