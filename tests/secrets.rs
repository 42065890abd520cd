//! The token never comes back, even when upstream echoes it: every error path that relays
//! upstream text (401/403/404/409/422/429/5xx bodies, malformed JSON, the list-root-key message),
//! a successful body that carries it, in every result form, and the stderr logs of the
//! production binary with `DEBUG=true`. The token is a canary, bare and as `Bearer <token>`.

use std::io::Write as _;
use std::process::{Command, Stdio};

use modyo_lab::cassette::{Interaction, RecordedResponse};
use modyo_lab::session::{CANARY_TOKEN, Session};
use modyo_lab::{ReplayOptions, ReplayServer};
use modyo_mcp::contract::ResultForm;
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

/// In every result form (C22).
#[tokio::test]
async fn no_upstream_echo_of_the_token_reaches_a_tool_result() -> anyhow::Result<()> {
    let mut leaks = Vec::new();
    for form in ResultForm::ALL {
        let env = [("MODYO_RESULTS".to_owned(), form.as_str().to_owned())];
        for (label, response) in echoing_answers() {
            let session = Session::start(
                &[cassette("secrets/echo", vec![spaces_list(response)])],
                &env,
            )
            .await?;
            let result = session.call("content-spaces-list", json!({})).await?;
            let text = serde_json::to_string(&result)?;
            if text.contains(CANARY_TOKEN) {
                leaks.push(format!("{label} ({form}): {text}"));
            }
            session.close().await;
        }
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

    let (stdout, stderr) = run_binary(
        &[
            ("MODYO_URL", replay.uri()),
            ("MODYO_TOKEN", CANARY_TOKEN.to_owned()),
            ("DEBUG", "true".to_owned()),
        ],
        &lines,
        &[2, 3],
    )
    .await?;

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

/// Runs the production binary on stdio with `env` (nothing else of ours), writes `lines`, waits
/// for the answers with the ids in `wait`, and returns stdout and stderr.
async fn run_binary(
    env: &[(&str, String)],
    lines: &[Value],
    wait: &[u64],
) -> anyhow::Result<(String, String)> {
    let mut command = Command::new(server_binary());
    command.env_clear();
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        writeln!(stdin, "{line}")?;
    }
    let wait = wait.to_vec();
    let output = tokio::task::spawn_blocking(move || {
        // Wait for the answers before closing stdin, so the calls are not cut short.
        let stdout = child.stdout.take().expect("stdout");
        let mut answers = Vec::new();
        let mut reader = std::io::BufReader::new(stdout);
        let mut line = String::new();
        while std::io::BufRead::read_line(&mut reader, &mut line).unwrap_or(0) > 0 {
            answers.push(line.clone());
            let done = answers
                .iter()
                .filter_map(|a| serde_json::from_str::<Value>(a).ok())
                .filter(|a| wait.iter().any(|id| a["id"] == *id))
                .count();
            line.clear();
            if done == wait.len() {
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
    Ok(output)
}

/// Every 16-character piece of `token` (as is, JSON-escaped once and twice, lowercased) that
/// `text` holds: a prefix kept by a shortened message is a leak too.
fn fragments_in(text: &str, token: &str) -> Vec<String> {
    let json = serde_json::to_string(token).unwrap_or_default();
    let twice = serde_json::to_string(&json).unwrap_or_default();
    let lowered = text.to_ascii_lowercase();
    let mut found = Vec::new();
    for form in [token.to_owned(), json, twice] {
        let chars: Vec<char> = form.chars().collect();
        for window in chars.windows(16) {
            let piece: String = window.iter().collect();
            if text.contains(&piece) || lowered.contains(&piece.to_ascii_lowercase()) {
                found.push(piece);
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

fn initialize() -> [Value; 2] {
    [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

/// A 150-character token ending in `"` and `\`, echoed by upstream at the start and at the end of
/// long values, in an answer that breaks the tool's output schema (its message quotes the value
/// shortened to 80 characters, and the default WARN log repeats it) and in a 422. Before the
/// token was scrubbed from upstream bytes as they arrive, the schema message kept a
/// 79-character prefix of it (shortened first, scrubbed after: too late), and the escaped
/// forms survived whole in the error's detail.
#[tokio::test]
async fn no_piece_of_a_long_token_survives_shortening_or_escaping() -> anyhow::Result<()> {
    let token = format!(
        "{}Zq\"\\",
        "Kx7Pq2Lm9Rt4Vw8Ys3Bn6Hd1Fg5Jc0Qa"
            .chars()
            .cycle()
            .take(146)
            .collect::<String>()
    );
    assert_eq!(token.chars().count(), 150);
    let long = "Sucursal central de Banco Andino, horario extendido ".repeat(4);
    let replay = ReplayServer::start(ReplayOptions::default()).await;
    replay
        .mount(&[cassette(
            "secrets/long-token",
            vec![
                // `name` must be a string: an object here breaks the output schema, and the
                // violation message quotes the value.
                spaces_list(RecordedResponse::json(
                    200,
                    json!({"spaces": [
                        {"id": 1, "uid": "a", "name": {"v": format!("{token} {long}")}},
                        {"id": 2, "uid": "b", "name": {"v": format!("{long}{token}")}}
                    ], "meta": {"total_entries": 2, "per_page": 10, "current_page": 1, "total_pages": 1}}),
                )),
                Interaction::get(format!("{SPACES}/1")).respond(
                    422,
                    json!({"errors": [format!("{token} {long}"), format!("{long}{token}")]}),
                ),
            ],
        )])
        .await?;
    let [init, initialized] = initialize();
    let lines = [
        init,
        initialized,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "content-spaces-list", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "content-spaces-get", "arguments": {"space": "1"}}}),
    ];
    let (stdout, stderr) = run_binary(
        &[("MODYO_URL", replay.uri()), ("MODYO_TOKEN", token.clone())],
        &lines,
        &[2, 3],
    )
    .await?;
    assert!(
        stdout.contains("output schema"),
        "the schema message is there to test: {stdout}"
    );
    assert!(
        stderr.contains("output schema"),
        "and the WARN log: {stderr}"
    );
    assert_eq!(
        fragments_in(&stdout, &token),
        Vec::<String>::new(),
        "{stdout}"
    );
    assert_eq!(
        fragments_in(&stderr, &token),
        Vec::<String>::new(),
        "{stderr}"
    );
    Ok(())
}

/// A redirect to a host made of the token: the URL parser lowercases the host, and the refusal
/// named it lowercased, where the exact-case scrub did not see it.
#[tokio::test]
async fn a_refused_redirect_never_names_the_token_lowercased() -> anyhow::Result<()> {
    let token = "CanaryHost7F3A9C51ModyoToken";
    let replay = ReplayServer::start(ReplayOptions::default()).await;
    replay
        .mount(&[cassette(
            "secrets/redirect",
            vec![spaces_list(RecordedResponse::text(302, "").header(
                "location",
                format!("http://{token}.example.test/steal"),
            ))],
        )])
        .await?;
    let [init, initialized] = initialize();
    let lines = [
        init,
        initialized,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "content-spaces-list", "arguments": {}}}),
    ];
    let (stdout, stderr) = run_binary(
        &[
            ("MODYO_URL", replay.uri()),
            ("MODYO_TOKEN", token.to_owned()),
        ],
        &lines,
        &[2],
    )
    .await?;
    assert!(
        stdout.contains("example.test"),
        "the refusal names the host: {stdout}"
    );
    assert_eq!(
        fragments_in(&stdout, token),
        Vec::<String>::new(),
        "{stdout}"
    );
    assert_eq!(
        fragments_in(&stderr, token),
        Vec::<String>::new(),
        "{stderr}"
    );
    Ok(())
}
