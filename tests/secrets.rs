//! The token never comes back, even when upstream echoes it: every error path that relays
//! upstream text (401/403/404/409/422/429/5xx bodies, malformed JSON, the list-root-key message),
//! a successful body that carries it, and the stderr logs of the production binary with
//! `DEBUG=true`. The token is a canary, bare and as `Bearer <token>`.

use std::io::Write as _;
use std::process::{Command, Stdio};

use modyo_lab::cassette::{Interaction, RecordedResponse};
use modyo_lab::session::{CANARY_TOKEN, Session};
use modyo_lab::{ReplayOptions, ReplayServer};
use serde_json::{Value, json};

use crate::util::{cassette, server_binary};

const SPACES: &str = "/api/admin/content/spaces";

fn spaces_list(response: RecordedResponse) -> Interaction {
    Interaction::get(SPACES)
        .query("page", "1")
        .query("per_page", "10")
        .respond_with(response)
}

/// Upstream answers that quote the token, each labelled.
fn echoing_answers() -> Vec<(&'static str, RecordedResponse)> {
    let bearer = format!("Bearer {CANARY_TOKEN}");
    vec![
        (
            "401 error string",
            RecordedResponse::json(401, json!({"error": format!("invalid token: {bearer}")})),
        ),
        (
            "403 errors list",
            RecordedResponse::json(403, json!({"errors": [format!("{CANARY_TOKEN} may not")]})),
        ),
        (
            "404 error object",
            RecordedResponse::json(404, json!({"error": {"token": bearer}})),
        ),
        (
            "409 rejected",
            RecordedResponse::json(409, json!({"errors": [format!("locked by {bearer}")]})),
        ),
        (
            "409 validation fields",
            RecordedResponse::json(
                409,
                json!({"errors": [{"field": CANARY_TOKEN, "messages": [format!("{bearer} is taken")]}]}),
            ),
        ),
        (
            "422",
            RecordedResponse::json(422, json!({"errors": [format!("bad {CANARY_TOKEN}")]})),
        ),
        (
            "429",
            RecordedResponse::json(429, json!({"errors": [format!("slow down, {bearer}")]}))
                .header("retry-after", "3"),
        ),
        (
            "500",
            RecordedResponse::json(500, json!({"errors": [format!("crash near {bearer}")]})),
        ),
        (
            "503 html page",
            RecordedResponse::text(503, format!("<html>{bearer}</html>"))
                .header("content-type", "text/html"),
        ),
        (
            "malformed JSON",
            RecordedResponse::text(200, format!(r#"{{"spaces": [{{"name": "{bearer}""#))
                .header("content-type", "application/json"),
        ),
        (
            "list root key message",
            RecordedResponse::json(200, json!({CANARY_TOKEN: [], bearer.clone(): []})),
        ),
        (
            "a successful body",
            RecordedResponse::json(
                200,
                json!({"spaces": [{"id": 1, "uid": "blog", "name": bearer}],
                       "meta": {"total_entries": 1, "per_page": 10, "current_page": 1, "total_pages": 1}}),
            ),
        ),
    ]
}

#[tokio::test]
async fn no_upstream_echo_of_the_token_reaches_a_tool_result() -> anyhow::Result<()> {
    let mut leaks = Vec::new();
    for (label, response) in echoing_answers() {
        let session = Session::start(
            &[cassette("secrets/echo", vec![spaces_list(response)])],
            &[],
        )
        .await?;
        let result = session.call("content-spaces-list", json!({})).await?;
        let text = serde_json::to_string(&result)?;
        if text.contains(CANARY_TOKEN) {
            leaks.push(format!("{label}: {text}"));
        }
        session.close().await;
    }
    assert!(
        leaks.is_empty(),
        "the token came back:\n{}",
        leaks.join("\n")
    );
    Ok(())
}

/// The production binary with `DEBUG=true` logs every request and response on stderr: none of
/// those lines (nor stdout) carries the token, though upstream echoed it in an error and in data.
#[tokio::test]
async fn debug_logs_on_stderr_never_carry_the_token() -> anyhow::Result<()> {
    let bearer = format!("Bearer {CANARY_TOKEN}");
    let replay = ReplayServer::start(ReplayOptions::default()).await;
    replay
        .mount(&[cassette(
            "secrets/logs",
            vec![
                spaces_list(RecordedResponse::json(
                    401,
                    json!({"error": format!("invalid token: {bearer}")}),
                )),
                Interaction::get(format!("{SPACES}/1")).respond(
                    200,
                    json!({"id": 1, "uid": "blog", "name": bearer, "description": CANARY_TOKEN}),
                ),
            ],
        )])
        .await?;
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "content-spaces-list", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "content-spaces-get", "arguments": {"space": "1"}}}),
    ];

    let mut child = Command::new(server_binary())
        .env_clear()
        .env("MODYO_URL", replay.uri())
        .env("MODYO_TOKEN", CANARY_TOKEN)
        .env("DEBUG", "true")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().expect("stdin");
    for line in &lines {
        writeln!(stdin, "{line}")?;
    }
    let output = tokio::task::spawn_blocking(move || {
        // Wait for both answers before closing stdin, so the calls are not cut short.
        let stdout = child.stdout.take().expect("stdout");
        let mut answers = Vec::new();
        let mut reader = std::io::BufReader::new(stdout);
        let mut line = String::new();
        while std::io::BufRead::read_line(&mut reader, &mut line).unwrap_or(0) > 0 {
            answers.push(line.clone());
            let done = answers
                .iter()
                .filter_map(|a| serde_json::from_str::<Value>(a).ok())
                .filter(|a| a["id"] == 2 || a["id"] == 3)
                .count();
            line.clear();
            if done == 2 {
                break;
            }
        }
        drop(stdin);
        let rest = child.wait_with_output().expect("the server exits");
        (
            answers.concat(),
            String::from_utf8_lossy(&rest.stderr).into_owned(),
        )
    })
    .await?;
    let (stdout, stderr) = output;

    assert!(stdout.contains("\"id\":3"), "both calls answered: {stdout}");
    assert!(
        stderr.contains("modyo request"),
        "DEBUG logs every request: {stderr}"
    );
    assert!(!stdout.contains(CANARY_TOKEN), "stdout: {stdout}");
    let leaked: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(CANARY_TOKEN))
        .collect();
    assert!(
        leaked.is_empty(),
        "stderr lines with the token:\n{}",
        leaked.join("\n")
    );
    Ok(())
}
