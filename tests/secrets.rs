//! The token never comes back, even when upstream echoes it: every error path that relays
//! upstream text (401/403/404/409/422/429/5xx bodies, malformed JSON, the list-root-key message),
//! a successful body that carries it, in every result form, and the stderr logs of the
//! production binary with `DEBUG=true`. The token is a canary, bare and as `Bearer <token>`.
//!
//! And the recorder stores none of the secrets an exchange carried: values under secret-looking
//! keys in JSON bodies (nested, in arrays) and query strings, signatures of presigned URLs in
//! query strings and in URLs inside text, and the token in every percent-encoded spelling
//! (`+` or `%20` for a space, upper- or lower-case hex); the redacted exchange still replays.

use std::io::Write as _;
use std::process::{Command, Stdio};

use modyo_lab::lifecycle::{self, CheckOptions, ProblemKind};
use modyo_lab::record::{Origin, Policy, ProxyConfig, RecordingProxy, Redactor};
use modyo_lab::session::{CANARY_TOKEN, Session};
use modyo_mcp::contract::ResultForm;
use modyo_replay::cassette::{Interaction, RecordedResponse};
use modyo_replay::{Cassette, Provenance, ReplayOptions, ReplayServer};
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

/// A token with characters that every encoding spells differently (space, `/`, `+`, `=`).
const ODD_TOKEN: &str = "Tok en/7f3a+9c51=modyo";

/// [`ODD_TOKEN`] as it may appear in a URL or a body: `%20` or `+` for the space, upper- or
/// lower-case hex.
const ODD_TOKEN_FORMS: [&str; 4] = [
    "Tok+en%2F7f3a%2B9c51%3Dmodyo",
    "Tok+en%2f7f3a%2b9c51%3dmodyo",
    "Tok%20en%2F7f3a%2B9c51%3Dmodyo",
    "Tok%20en%2f7f3a%2b9c51%3dmodyo",
];

/// Every secret value the exchanges below carry, by where it sits.
const CARRIED: [(&str, &str); 15] = [
    ("query signature", "sig-q-4d1e"),
    ("query X-Amz-Signature", "amz-q-9b7c"),
    ("webhook_secret", "whs-51aa"),
    ("api_token", "apt-62bb"),
    ("auth_token", "aut-73cc"),
    ("secret_key", "sk-84dd"),
    ("session_id", "sid-95ee"),
    ("jwt", "eyJ.jwt-a6ff"),
    ("private_token", "prt-b700"),
    ("x-api-key", "xak-c811"),
    ("X-Amz-Signature in a URL", "amz-r-1a2b"),
    ("signature in a URL in text", "sig-r-3c4d"),
    ("X-Amz-Signature in an HTML body", "amz-h-5e6f"),
    ("nested api_token in an array", "apt-arr-77"),
    ("the token", ODD_TOKEN),
];

fn hook_request_body() -> Value {
    json!({
        "name": "hook",
        "webhook_secret": "whs-51aa",
        "config": {"api_token": "apt-62bb", "auth_token": "aut-73cc", "secret_key": "sk-84dd",
                   "session_id": "sid-95ee", "jwt": "eyJ.jwt-a6ff", "private_token": "prt-b700",
                   "x-api-key": "xak-c811"},
    })
}

/// A fake account whose answers carry every secret of [`CARRIED`], next to keys that only
/// look like secrets (`token_type`, `tokens_count`, `token_endpoint`, `secret_santa`).
fn secret_carrying_account() -> Cassette {
    let [form, form_lower, pct, pct_lower] = ODD_TOKEN_FORMS;
    let hook = json!({"hook": {
        "id": 7,
        "token_type": "Bearer",
        "tokens_count": 2,
        "token_endpoint": "https://idp.example/oauth/token",
        "secret_santa": "ana",
        "webhook_secret": "whs-51aa",
        "settings": {"session_id": "sid-95ee", "secret_key": "sk-84dd", "jwt": "eyJ.jwt-a6ff",
                     "private_token": "prt-b700", "auth_token": "aut-73cc", "x-api-key": "xak-c811"},
        "clients": [{"name": "a", "api_token": "apt-arr-77"}],
        "download_url": "https://bucket.s3.example/f.zip?X-Amz-Credential=AK%2F20261129&X-Amz-Signature=amz-r-1a2b&X-Amz-Expires=300",
        "note": "fetch https://cdn.example/a.png?w=10&signature=sig-r-3c4d once",
        "callback": format!("https://hooks.example/in?k={pct}&v=1"),
        "echoes": [form, form_lower, pct_lower, format!("at /api/{pct_lower}/x")],
    }});
    let html = format!(
        "<a href=\"https://cdn.example/a?x=1&amp;X-Amz-Signature=amz-h-5e6f\">dl</a> {pct_lower} {form_lower}"
    );
    Cassette::new(
        "fake/secrets",
        Provenance::synthetic("2026-11-29", "secrets"),
    )
    .interaction(
        Interaction::post("/api/admin/hooks")
            .query("page", "1")
            .query("signature", "sig-q-4d1e")
            .query("X-Amz-Signature", "amz-q-9b7c")
            .body(hook_request_body())
            .respond(201, hook),
    )
    .interaction(
        Interaction::get("/api/admin/hooks/7/page")
            .respond_with(RecordedResponse::text(200, html).header("content-type", "text/html")),
    )
}

async fn send_both(proxy: &RecordingProxy) -> anyhow::Result<Vec<u16>> {
    let http = reqwest::Client::new();
    let posted = http
        .post(format!(
            "{}/api/admin/hooks?page=1&signature=sig-q-4d1e&X-Amz-Signature=amz-q-9b7c",
            proxy.uri()
        ))
        .json(&hook_request_body())
        .send()
        .await?;
    let page = http
        .get(format!("{}/api/admin/hooks/7/page", proxy.uri()))
        .send()
        .await?;
    Ok(vec![posted.status().as_u16(), page.status().as_u16()])
}

#[tokio::test]
async fn the_recorder_stores_none_of_the_secrets_an_exchange_carried() -> anyhow::Result<()> {
    let upstream = ReplayServer::start(ReplayOptions::default()).await;
    upstream.mount(&[secret_carrying_account()]).await?;
    let redactor = Redactor::new().secret(ODD_TOKEN);
    let proxy = RecordingProxy::start(ProxyConfig {
        upstream: Some(url::Url::parse(&upstream.uri())?),
        replay: None,
        policy: Policy::Forward,
        redactor: redactor.clone(),
        record_latency: false,
        guard: None,
    })
    .await?;
    assert_eq!(send_both(&proxy).await?, [201, 200]);
    let exchanges = proxy.take();
    assert_eq!(exchanges.len(), 2);
    assert!(exchanges.iter().all(|e| e.origin == Origin::Live));

    let stored =
        serde_json::to_string(&exchanges.iter().map(|e| &e.interaction).collect::<Vec<_>>())?;
    let mut leaks: Vec<String> = CARRIED
        .iter()
        .filter(|(_, secret)| stored.contains(secret))
        .map(|(what, _)| (*what).to_owned())
        .collect();
    leaks.extend(
        ODD_TOKEN_FORMS
            .iter()
            .filter(|form| stored.contains(*form))
            .map(|form| format!("the token as {form}")),
    );
    assert!(leaks.is_empty(), "stored in clear: {leaks:?}\n{stored}");
    // What only looks like a secret stays readable, and so does the rest of each URL.
    for kept in [
        "\"token_type\":\"Bearer\"",
        "\"tokens_count\":2",
        "\"token_endpoint\":\"https://idp.example/oauth/token\"",
        "\"secret_santa\":\"ana\"",
        "X-Amz-Expires=300",
        "a.png?w=10&signature=<redacted> once",
        "\"page\":\"1\"",
    ] {
        assert!(stored.contains(kept), "{kept} missing:\n{stored}");
    }

    // The redacted exchanges replay: the same requests, redacted the same way, match them.
    let cassette = exchanges.into_iter().fold(
        Cassette::new(
            "fake/recorded",
            Provenance::synthetic("2026-11-29", "recorded"),
        ),
        |c, e| c.interaction(e.interaction),
    );
    let dir = tempfile::tempdir()?;
    cassette.save(dir.path())?;
    let check = lifecycle::check(&CheckOptions::new(dir.path()).token(ODD_TOKEN)).await?;
    assert!(
        check.problems.iter().all(|p| p.kind != ProblemKind::Secret),
        "{}",
        check.to_text()
    );
    let replay = ReplayServer::start(ReplayOptions::default()).await;
    replay.mount(&[cassette]).await?;
    let offline = RecordingProxy::start(ProxyConfig {
        upstream: None,
        replay: Some(replay.uri()),
        policy: Policy::ReplayOnly,
        redactor,
        record_latency: false,
        guard: None,
    })
    .await?;
    assert_eq!(send_both(&offline).await?, [201, 200]);
    let origins: Vec<Origin> = offline.take().into_iter().map(|e| e.origin).collect();
    assert_eq!(origins, [Origin::Replayed, Origin::Replayed]);
    Ok(())
}

#[tokio::test]
async fn cassettes_check_finds_the_token_in_every_encoding() -> anyhow::Result<()> {
    for form in ODD_TOKEN_FORMS {
        let cassette = Cassette::new("fake/leak", Provenance::synthetic("2026-11-29", "leak"))
            .interaction(
                Interaction::get("/api/admin/x").respond(200, json!({"note": format!("k={form}")})),
            );
        let dir = tempfile::tempdir()?;
        cassette.save(dir.path())?;
        let check = lifecycle::check(&CheckOptions::new(dir.path()).token(ODD_TOKEN)).await?;
        let text = check.to_text();
        assert!(text.contains("the MODYO_TOKEN value"), "{form}: {text}");
        assert!(!text.contains(form) && !text.contains(ODD_TOKEN), "{text}");
    }
    Ok(())
}
