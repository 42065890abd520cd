//! Malformed input on stdio: every line gets an answer a client can match. Invalid JSON,
//! invalid UTF-8, nesting deeper than 128 and a line over 16 MiB are JSON-RPC parse errors
//! (`-32700`, `id: null`); a well-formed message that is not a valid request is `-32600` with
//! its `id` when one can be read; the server keeps serving afterwards. Both binaries, as child
//! processes.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::util::{lab_binary, server_binary, workspace};

/// 16 MiB, the longest line the servers read.
const MAX_LINE: usize = 16 * 1024 * 1024;

/// Writes `input` to the command's stdin, closes it, and returns every JSON line of stdout.
fn answers(mut command: Command, input: Vec<u8>) -> Vec<Value> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout)
        .expect("stdout is UTF-8");
    writer.join().expect("the writer thread");
    let _ = child.wait();
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("stdout line {l:?}: {e}")))
        .collect()
}

/// The malformed lines, between an `initialize` and a final `ping` (id 99).
fn malformed_session() -> Vec<u8> {
    let mut input = Vec::new();
    let mut line = |bytes: &[u8]| {
        input.extend_from_slice(bytes);
        input.push(b'\n');
    };
    line(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}).to_string().as_bytes());
    line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    // -32700, id null
    line(b"this is not JSON");
    line(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}");
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    line(deep.as_bytes());
    let mut long = br#"{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":""#.to_vec();
    long.extend(std::iter::repeat_n(b'a', MAX_LINE));
    long.extend_from_slice(br#""}}"#);
    line(&long);
    // -32600 with the id that can be read
    line(br#"{"jsonrpc":"2.0","id":7,"method":42}"#);
    line(br#"{"jsonrpc":"2.0","id":"eight","params":{}}"#);
    // a notification is never answered, even a broken one
    line(br#"{"jsonrpc":"2.0","method":17}"#);
    line(br#"{"jsonrpc":"2.0","id":99,"method":"ping"}"#);
    input
}

fn check(answers: &[Value]) {
    let with_id = |id: Value| answers.iter().filter(move |a| a["id"] == id);
    let parse_errors: Vec<&Value> = answers
        .iter()
        .filter(|a| a["error"]["code"] == -32700)
        .collect();
    assert_eq!(
        parse_errors.len(),
        4,
        "one -32700 per unparsable line (text, bad UTF-8, too deep, too long): {answers:#?}"
    );
    for error in &parse_errors {
        assert_eq!(
            error.get("id"),
            Some(&Value::Null),
            "a parse error has id null: {error}"
        );
        assert_eq!(error["jsonrpc"], "2.0");
        assert!(error["error"]["message"].is_string(), "{error}");
    }
    let too_long = parse_errors
        .iter()
        .filter(|e| {
            e["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("16 MiB")
        })
        .count();
    assert_eq!(
        too_long, 1,
        "the long line is named as such: {parse_errors:#?}"
    );
    for id in [json!(7), json!("eight")] {
        let invalid: Vec<&Value> = with_id(id.clone()).collect();
        assert_eq!(invalid.len(), 1, "id {id}: {answers:#?}");
        assert_eq!(invalid[0]["error"]["code"], -32600, "{}", invalid[0]);
    }
    assert_eq!(
        with_id(json!(99)).next().map(|a| a["result"].clone()),
        Some(json!({})),
        "the server still answers after all that: {answers:#?}"
    );
    assert!(
        with_id(json!(4)).next().is_none() && with_id(json!(6)).next().is_none(),
        "unparsable lines are not half-read: {answers:#?}"
    );
    assert_eq!(
        answers.len(),
        1 + 4 + 2 + 1,
        "nothing else is answered: {answers:#?}"
    );
}

#[test]
fn the_server_answers_malformed_stdio_lines() {
    let mut command = Command::new(server_binary());
    command.env_clear();
    check(&answers(command, malformed_session()));
}

#[test]
fn the_offline_server_answers_malformed_stdio_lines() {
    let mut command = Command::new(lab_binary());
    command
        .args(["serve", "--cassettes"])
        .arg(Path::new(&workspace()).join("cassettes"))
        .env("RUST_LOG", "error");
    check(&answers(command, malformed_session()));
}
