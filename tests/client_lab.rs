//! The pieces of `modyo-lab clients` that need no client: the marker server over stdio, the
//! reference of a foreign server (`clients --server`) taken from the marker server, and
//! `clients --server` through the binary when no client is installed (each named, the report
//! still written). No Node, no Python client: CI runs these.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use modyo_lab::clients::foreign;
use modyo_lab::clients::marker;
use modyo_lab::lint::{PlannedCall, ServerCommand};
use serde_json::{Value, json};

fn lab() -> &'static str {
    env!("CARGO_BIN_EXE_modyo-lab")
}

#[test]
fn the_marker_server_answers_over_stdio_and_sends_discovery_back_to_initialize() {
    let mut child = Command::new(lab())
        .arg("marker")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("modyo-lab marker starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut ask = |line: &str| -> Value {
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
        let mut answer = String::new();
        stdout.read_line(&mut answer).expect("read");
        serde_json::from_str(&answer).expect("a JSON line")
    };
    let discover = ask(r#"{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}"#);
    assert_eq!(discover["error"]["code"], -32601);
    let init = ask(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["result"]["instructions"], marker::INSTRUCTIONS);
    let tools = ask(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    assert_eq!(tools["result"]["tools"], marker::tools());
    let error = ask(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mk_err","arguments":{"q":"b"}}}"#,
    );
    assert_eq!(error["result"]["isError"], true);
    assert_eq!(error["id"], 3);
    drop(stdin);
    let status = child.wait().expect("exits");
    assert!(
        status.success(),
        "the server ends cleanly when stdin closes"
    );
}

fn marker_command() -> ServerCommand {
    ServerCommand::new(vec![lab().into(), "marker".into()]).expect("a command")
}

#[test]
fn a_foreign_servers_reference_is_what_it_lists_says_and_answers() {
    let planned: Vec<PlannedCall> = serde_json::from_value(json!([
        {"tool": "mk_ok", "arguments": {"q": "a"}},
        {"name": "fails", "tool": "mk_err", "arguments": {"q": "b"}},
        {"tool": "mk_txt"}
    ]))
    .expect("calls");
    let calls = foreign::calls(&planned);
    assert_eq!(calls[1].scenario, "fails");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let reference = runtime
        .block_on(foreign::reference(&marker_command(), &calls))
        .expect("the marker server answers");
    assert_eq!(reference.instructions, marker::INSTRUCTIONS);
    assert_eq!(reference.tool_names(), marker::TOOLS);
    for (call, result) in calls.iter().zip(&reference.results) {
        assert_eq!(
            Some(result),
            marker::result(&call.tool).as_ref(),
            "{}",
            call.tool
        );
    }
}

#[test]
fn clients_on_a_foreign_server_name_each_missing_client_and_still_write_the_report() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let calls = dir.path().join("calls.json");
    std::fs::write(&calls, r#"[{"tool": "mk_ok", "arguments": {"q": "a"}}]"#).expect("write");
    let reports = dir.path().join("out");
    let output = Command::new(lab())
        .args(["clients", "--server"])
        .arg(format!("{} marker", lab()))
        .arg("--calls")
        .arg(&calls)
        .arg("--reports")
        .arg(&reports)
        .arg("--tools")
        .arg(dir.path().join("no-tools"))
        .arg("--node")
        .arg(dir.path().join("no-node"))
        .args([
            "--client",
            "pydantic-ai",
            "--client",
            "vercel-ai",
            "--name",
            "shelf",
        ])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("pydantic-ai: setup: pydantic-ai-slim is not installed")
            && stderr.contains("vercel-ai: setup: Node is not installed"),
        "{stderr}"
    );
    let report = std::fs::read_to_string(reports.join("clients.md")).expect("the report");
    assert!(
        report.starts_with("# What real clients put in the model's context from `shelf`"),
        "{report}"
    );
    let bad = Command::new(lab())
        .args(["clients", "--server", "'unbalanced", "--reports"])
        .arg(&reports)
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unbalanced quotes"));
}
