//! Record mode and the cassette lifecycle, end to end and offline: recordings are made
//! against a local fake upstream (a replay server playing the pilot's Modyo API that answers
//! `401 {}` unless `Authorization` is `Bearer <canary>`), then replayed from the written file.
//!
//! Covered: every mode (once, new_episodes, none, all), redaction (the canary appears zero
//! times in cassettes, reports, logs and tool responses; the live answer is not altered),
//! ordered repeats, `cassettes check` (secrets, unused cassettes, `--fail-on-unused`), the
//! near-miss report through the CLI, the drift check, recorded latency.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use modyo_lab::lifecycle::{self, CheckOptions, ProblemKind};
use modyo_lab::record::{
    self, Call, Live, Mode, Origin, Policy, ProxyConfig, RecordOptions, RecordReport,
    RecordingProxy, Redactor,
};
use modyo_lab::session::{CANARY_TOKEN, Library, Session};
use modyo_replay::cassette::{Outcome, ResponseBody, Source};
use modyo_replay::{
    Cassette, Interaction, Provenance, RecordedResponse, ReplayOptions, ReplayServer,
};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// Helpers

/// Everything every test in this binary logged (a global subscriber, installed once), so a
/// leak from any thread, wiremock's included, is caught.
fn logs() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let writer = buffer.clone();
        let installed = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(
                "info,modyo_lab=debug,modyo_mcp=debug",
            ))
            .with_ansi(false)
            .with_writer(move || Capture(writer.clone()))
            .try_init();
        assert!(
            installed.is_ok(),
            "another global tracing subscriber is installed: logs cannot be captured"
        );
        buffer
    })
}

struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn captured_logs() -> String {
    String::from_utf8_lossy(
        &logs()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    )
    .into_owned()
}

/// The pilot's base cassette: four spaces, Sucursales and its content type.
fn pilot_base() -> Cassette {
    crate::util::library()
        .get("content/sucursales/base")
        .expect("the pilot base cassette exists")
        .clone()
}

/// A fake Modyo account: `cassettes` replayed (repeats allowed, like a real API), and
/// `401 {}` unless the request carries the canary token.
async fn upstream(cassettes: &[Cassette]) -> ReplayServer {
    logs();
    let server = ReplayServer::start(ReplayOptions::default().allow_repeats(true)).await;
    server
        .mount(cassettes)
        .await
        .expect("upstream cassettes mount");
    server
        .require_authorization(&format!("Bearer {CANARY_TOKEN}"))
        .await;
    server
}

fn live(upstream: &ReplayServer) -> Live {
    Live::new(url::Url::parse(&upstream.uri()).expect("uri"), CANARY_TOKEN)
}

fn spaces_calls() -> Vec<Call> {
    vec![
        Call::new("content-spaces-list", json!({})).named("list"),
        Call::new("content-spaces-get", json!({"space": "sucursales"})).named("by-uid"),
        Call::new("content-types-get", json!({"space": "636", "type": "4021"})).named("type"),
        Call::new("content-spaces-get", json!({"space": "noticias"})).named("not-found"),
    ]
}

async fn record_with(options: RecordOptions) -> RecordReport {
    let report = record::run(&options).await.expect("record runs");
    assert_no_canary("the text report", &report.to_text());
    assert_no_canary("the JSON report", &report.to_json());
    report
}

fn assert_no_canary(what: &str, text: &str) {
    assert_eq!(
        text.matches(CANARY_TOKEN).count(),
        0,
        "the canary token leaked into {what}"
    );
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(modyo_replay::cassette::path_of(dir, name)).expect("cassette written")
}

/// Replays every scenario of `name` offline (each in its own session, like the scenario
/// tests) and returns the results by scenario name; no miss allowed.
async fn replay_scenarios(dir: &Path, name: &str) -> Vec<(String, Value)> {
    let library = Library::load(dir).expect("written cassettes load");
    let cassette = library.get(name).expect("cassette exists");
    let mut out = Vec::new();
    for scenario in &cassette.scenarios {
        let session = Session::start(&library.mount_set(name).expect("mount set"), &[])
            .await
            .expect("session");
        let result = session
            .call(&scenario.tool, scenario.arguments.clone())
            .await
            .expect("tool answers");
        assert!(
            session.replay().misses().is_empty(),
            "{}: {:?}",
            scenario.name,
            session.replay().misses()
        );
        let value = serde_json::to_value(&result).expect("serializes");
        assert_no_canary("a replayed tool response", &value.to_string());
        out.push((scenario.name.clone(), value));
        session.close().await;
    }
    out
}

fn recorded_results(report: &RecordReport) -> Vec<(String, Value)> {
    report
        .calls
        .iter()
        .map(|c| (c.scenario.clone(), c.result.clone().expect("a result")))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Recording and the modes

#[tokio::test]
async fn once_records_a_missing_cassette_that_replays_offline_with_the_same_results() {
    let upstream = upstream(&[pilot_base()]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let options = RecordOptions::new(dir.path(), "spaces", spaces_calls()).live(live(&upstream));
    let report = record_with(options.clone()).await;
    assert!(report.ok, "{}", report.to_text());
    assert!(report.written);
    assert_eq!(report.cassette, "content/spaces");
    assert_eq!(report.verified, 4, "{}", report.to_text());
    let live_requests: usize = report.calls.iter().map(|c| c.live).sum();
    assert!(report.calls.iter().all(|c| c.live > 0 && c.replayed == 0));
    assert_eq!(upstream.received().len(), live_requests);
    assert!(upstream.misses().is_empty(), "{:?}", upstream.misses());

    // The file: recorded today, one scenario per call with the observed outcome, no secret.
    let text = read(dir.path(), "content/spaces");
    assert_no_canary("the cassette", &text);
    assert!(
        !text.to_ascii_lowercase().contains("authorization"),
        "{text}"
    );
    let cassette = Cassette::load(dir.path(), "content/spaces").expect("loads");
    assert_eq!(cassette.provenance.source, Source::Recorded);
    assert_eq!(cassette.provenance.date, record::today());
    let expects: Vec<(&str, Outcome, Option<&str>)> = cassette
        .scenarios
        .iter()
        .map(|s| (s.name.as_str(), s.expect.outcome, s.expect.code.as_deref()))
        .collect();
    assert_eq!(
        expects,
        [
            ("list", Outcome::Success, None),
            ("by-uid", Outcome::Success, None),
            ("type", Outcome::Success, None),
            ("not-found", Outcome::Error, Some("not_found")),
        ]
    );
    // `list` and `by-uid`/`not-found` ask for pages of spaces: identical answers are stored
    // once, not once per call.
    let lines: Vec<String> = cassette
        .interactions
        .iter()
        .map(|i| format!("{} {:?}", i.request.path, i.request.query))
        .collect();
    let mut unique = lines.clone();
    unique.dedup();
    assert_eq!(lines.len(), unique.len(), "{lines:#?}");

    // Offline, from the file alone: the same tool results (structuredContent and all).
    let replayed = replay_scenarios(dir.path(), "content/spaces").await;
    assert_eq!(replayed, recorded_results(&report));
    assert!(
        replayed[0].1["structuredContent"]["data"].is_array()
            || replayed[0].1["structuredContent"]["data"].is_object(),
        "{}",
        replayed[0].1
    );

    // once again: the cassette exists, so it replays; nothing goes live, nothing is written.
    let before = upstream.received().len();
    let again = record_with(options).await;
    assert!(again.ok, "{}", again.to_text());
    assert!(!again.written);
    assert!(again.calls.iter().all(|c| c.live == 0 && c.replayed > 0));
    assert_eq!(upstream.received().len(), before);
    assert_eq!(read(dir.path(), "content/spaces"), text);
    assert_eq!(recorded_results(&again), recorded_results(&report));
    let logs = captured_logs();
    assert!(logs.contains("record proxy"), "the capture works");
    assert_no_canary("the logs", &logs);
}

#[tokio::test]
async fn new_episodes_replays_what_matches_and_appends_the_rest() {
    let upstream = upstream(&[pilot_base()]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let first = vec![Call::new("content-spaces-get", json!({"space": "636"})).named("by-id")];
    let report = record_with(
        RecordOptions::new(dir.path(), "content/episodes", first.clone()).live(live(&upstream)),
    )
    .await;
    assert!(report.ok, "{}", report.to_text());
    let recorded_once = Cassette::load(dir.path(), "content/episodes").expect("loads");
    let before = upstream.received().len();

    let more = vec![
        first[0].clone(),
        Call::new("content-types-get", json!({"space": "636", "type": "4021"})).named("type"),
    ];
    let report = record_with(
        RecordOptions::new(dir.path(), "content/episodes", more.clone())
            .mode(Mode::NewEpisodes)
            .live(live(&upstream)),
    )
    .await;
    assert!(report.ok, "{}", report.to_text());
    assert!(report.written);
    assert_eq!((report.calls[0].live, report.calls[0].replayed), (0, 1));
    assert!(report.calls[1].live > 0);
    assert_eq!(upstream.received().len() - before, report.calls[1].live);

    let appended = Cassette::load(dir.path(), "content/episodes").expect("loads");
    assert_eq!(
        appended.interactions[..recorded_once.interactions.len()],
        recorded_once.interactions[..],
        "recorded interactions are kept, in order"
    );
    assert_eq!(
        appended.interactions.len(),
        recorded_once.interactions.len() + report.calls[1].live
    );
    let names: Vec<&str> = appended.scenarios.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["by-id", "type"]);
    let replayed = replay_scenarios(dir.path(), "content/episodes").await;
    assert_eq!(replayed, recorded_results(&report));

    // Everything matches now: nothing goes live, the file is left as it is.
    let text = read(dir.path(), "content/episodes");
    let before = upstream.received().len();
    let again = record_with(
        RecordOptions::new(dir.path(), "content/episodes", more)
            .mode(Mode::NewEpisodes)
            .live(live(&upstream)),
    )
    .await;
    assert!(again.ok && !again.written, "{}", again.to_text());
    assert!(again.calls.iter().all(|c| c.live == 0));
    assert_eq!(upstream.received().len(), before);
    assert_eq!(read(dir.path(), "content/episodes"), text);
}

#[tokio::test]
async fn none_replays_only_and_reports_the_near_misses() {
    let upstream = upstream(&[pilot_base()]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let by_id = Call::new("content-spaces-get", json!({"space": "636"})).named("by-id");
    let err = record::run(
        &RecordOptions::new(dir.path(), "content/only", vec![by_id.clone()]).mode(Mode::None),
    )
    .await
    .expect_err("nothing to replay");
    assert!(
        err.to_string().contains("--mode none only replays"),
        "{err}"
    );

    record_with(
        RecordOptions::new(dir.path(), "content/only", vec![by_id.clone()]).live(live(&upstream)),
    )
    .await;
    let text = read(dir.path(), "content/only");
    let before = upstream.received().len();

    // The same call replays without the live account; another one misses, loudly.
    let report = record_with(
        RecordOptions::new(
            dir.path(),
            "content/only",
            vec![
                by_id,
                Call::new("content-spaces-get", json!({"space": "512"})).named("blog"),
            ],
        )
        .mode(Mode::None),
    )
    .await;
    assert!(!report.ok);
    assert!(!report.written);
    assert_eq!(
        (report.calls[0].replayed, report.calls[0].missed.len()),
        (1, 0)
    );
    let miss = &report.calls[1].missed[0];
    assert!(
        miss.starts_with("GET /api/admin/content/spaces/512 (no body) matches no recorded interaction")
            && miss.contains("content/only interactions[0] GET /api/admin/content/spaces/636: path segment 5: recorded \"636\", received \"512\""),
        "{miss}"
    );
    assert!(
        report
            .to_text()
            .contains("miss: GET /api/admin/content/spaces/512")
    );
    assert_eq!(upstream.received().len(), before, "none never calls live");
    assert_eq!(read(dir.path(), "content/only"), text);
}

#[tokio::test]
async fn all_re_records_everything_from_the_live_account() {
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = vec![Call::new("content-spaces-get", json!({"space": "636"})).named("by-id")];
    let old = upstream(&[pilot_base()]).await;
    record_with(RecordOptions::new(dir.path(), "content/again", calls.clone()).live(live(&old)))
        .await;
    assert!(read(dir.path(), "content/again").contains("\"Sucursales\""));

    // The account changed: the space was renamed.
    let mut renamed = pilot_base();
    for i in &mut renamed.interactions {
        if let ResponseBody::Json(body) = &mut i.response.body {
            let text = body
                .to_string()
                .replace("\"Sucursales\"", "\"Sucursales Chile\"");
            *body = serde_json::from_str(&text).expect("json");
        }
    }
    let new = upstream(&[renamed]).await;
    let report = record_with(
        RecordOptions::new(dir.path(), "content/again", calls.clone())
            .mode(Mode::All)
            .live(live(&new)),
    )
    .await;
    assert!(report.ok, "{}", report.to_text());
    assert!(report.written && report.calls[0].live > 0 && report.calls[0].replayed == 0);
    assert_eq!(new.received().len(), report.calls[0].live);
    let text = read(dir.path(), "content/again");
    assert!(text.contains("\"Sucursales Chile\"") && !text.contains("\"Sucursales\""));
    let replayed = replay_scenarios(dir.path(), "content/again").await;
    assert_eq!(replayed, recorded_results(&report));
    assert_eq!(
        replayed[0].1["structuredContent"]["data"]["name"],
        "Sucursales Chile"
    );
}

// ---------------------------------------------------------------------------------------
// Secrets

#[tokio::test]
async fn redaction_stores_no_secret_and_leaves_the_live_answer_alone() {
    logs();
    // The fake account echoes secrets back: a delivery token, the admin token in a URL and in
    // plain text, and its own host.
    let server = ReplayServer::start(ReplayOptions::default().allow_repeats(true)).await;
    let host = server.uri();
    let space = json!({
        "id": 636, "name": "Sucursales", "uid": "sucursales",
        "delivery_token": "dlv-9f8e7d6c5b4a",
        "preview_url": format!("{host}/preview?token={CANARY_TOKEN}&page=1"),
        "notes": format!("owner token {CANARY_TOKEN}"),
    });
    let mut base = pilot_base();
    base.interactions
        .retain(|i| i.request.path != "/api/admin/content/spaces/636");
    let secret_space = Cassette::new(
        "fake/secret",
        Provenance::synthetic("2026-11-29", "secrets"),
    )
    .interaction(Interaction::get("/api/admin/content/spaces/636").respond(200, space.clone()));
    server.mount(&[secret_space, base]).await.expect("mounts");
    server
        .require_authorization(&format!("Bearer {CANARY_TOKEN}"))
        .await;

    let dir = tempfile::tempdir().expect("tempdir");
    let mut options = RecordOptions::new(
        dir.path(),
        "content/secrets",
        vec![Call::new("content-spaces-get", json!({"space": "636"})).named("by-id")],
    )
    .live(live(&server));
    options.redact_host = true;
    let redactor = options.redactor();
    let report = record_with(options).await;
    assert!(report.ok, "{}", report.to_text());

    let text = read(dir.path(), "content/secrets");
    assert_no_canary("the cassette", &text);
    for secret in ["dlv-9f8e7d6c5b4a", host.as_str(), "127.0.0.1"] {
        assert!(!text.contains(secret), "{secret} stored:\n{text}");
    }
    assert!(
        text.contains("\"delivery_token\": \"<redacted>\""),
        "{text}"
    );
    assert!(
        text.contains(
            "\"preview_url\": \"https://account.example/preview?token=<redacted>&page=1\""
        ),
        "{text}"
    );
    assert!(
        text.contains("\"notes\": \"owner token <redacted>\""),
        "{text}"
    );
    // Replayed offline, the tool sees the placeholders, never a secret, and answers what it
    // answered live, up to redaction (host redaction also rewrites the offline platform
    // host, 127.0.0.1 here like the fake account).
    let replayed: Vec<(String, Value)> = replay_scenarios(dir.path(), "content/secrets")
        .await
        .into_iter()
        .map(|(name, value)| (name, redactor.json(&value)))
        .collect();
    assert_eq!(replayed, recorded_results(&report));
    assert_eq!(
        replayed[0].1["structuredContent"]["data"]["delivery_token"],
        "<redacted>"
    );
    let lint = lifecycle::check(&CheckOptions::new(dir.path()).token(CANARY_TOKEN))
        .await
        .expect("checks");
    assert!(lint.ok, "{}", lint.to_text());
    assert_no_canary("the logs", &captured_logs());
}

#[tokio::test]
async fn the_proxy_forwards_the_live_answer_unchanged_and_keeps_a_redacted_copy() {
    logs();
    let body = json!({"spaces": [{"id": 1, "api_key": "k-1", "echo": CANARY_TOKEN}]});
    let upstream_cassette = Cassette::new("fake/raw", Provenance::synthetic("2026-11-29", "raw"))
        .interaction(
            Interaction::post("/api/admin/things")
                .query("access_token", CANARY_TOKEN)
                .query("page", "1")
                .body(json!({"name": "x", "password": "p4ss"}))
                .respond_with(
                    RecordedResponse::json(201, body.clone())
                        .header("set-cookie", format!("s={CANARY_TOKEN}"))
                        .header("x-request-id", "r-1"),
                ),
        );
    let upstream = upstream(&[upstream_cassette]).await;
    let proxy = RecordingProxy::start(ProxyConfig {
        upstream: Some(url::Url::parse(&upstream.uri()).expect("uri")),
        replay: None,
        policy: Policy::Forward,
        redactor: Redactor::new().secret(CANARY_TOKEN),
        record_latency: false,
        guard: None,
    })
    .await
    .expect("proxy starts");
    let response = reqwest::Client::new()
        .post(format!(
            "{}/api/admin/things?access_token={CANARY_TOKEN}&page=1",
            proxy.uri()
        ))
        .bearer_auth(CANARY_TOKEN)
        .json(&json!({"name": "x", "password": "p4ss"}))
        .send()
        .await
        .expect("proxy answers");
    assert_eq!(response.status().as_u16(), 201);
    assert_eq!(
        response.headers()["set-cookie"].to_str().ok(),
        Some(format!("s={CANARY_TOKEN}").as_str())
    );
    let received: Value = response.json().await.expect("json");
    assert_eq!(received, body, "the server sees the live answer as it was");

    let exchanges = proxy.take();
    assert_eq!(exchanges.len(), 1);
    assert_eq!(exchanges[0].origin, Origin::Live);
    let stored = serde_json::to_string(&exchanges[0].interaction).expect("serializes");
    assert_no_canary("the stored exchange", &stored);
    assert!(
        !stored.contains("p4ss") && !stored.contains("k-1") && !stored.contains("r-1"),
        "{stored}"
    );
    let request = &exchanges[0].interaction.request;
    assert!(request.headers.is_empty());
    assert_eq!(
        serde_json::to_value(&request.query).expect("query"),
        json!({"access_token": "<redacted>", "page": "1"})
    );
    assert_eq!(
        request.body,
        Some(json!({"name": "x", "password": "<redacted>"}))
    );
    assert_eq!(
        exchanges[0].interaction.response.body,
        ResponseBody::Json(
            json!({"spaces": [{"id": 1, "api_key": "<redacted>", "echo": "<redacted>"}]})
        )
    );
    // The fake account saw the real request.
    assert!(upstream.misses().is_empty(), "{:?}", upstream.misses());
}

// ---------------------------------------------------------------------------------------
// Ordered repeats and latency

#[tokio::test]
async fn repeated_requests_are_recorded_and_replayed_in_order() {
    logs();
    // A job polled twice: running, then done (a plain wiremock plays the live account).
    let live = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::path("/api/admin/jobs/7"))
        .respond_with(
            wiremock::ResponseTemplate::new(200).set_body_json(json!({"status": "running"})),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&live)
        .await;
    wiremock::Mock::given(wiremock::matchers::path("/api/admin/jobs/7"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({"status": "done"})))
        .mount(&live)
        .await;
    let proxy = RecordingProxy::start(ProxyConfig {
        upstream: Some(url::Url::parse(&live.uri()).expect("uri")),
        replay: None,
        policy: Policy::Forward,
        redactor: Redactor::new(),
        record_latency: false,
        guard: None,
    })
    .await
    .expect("proxy");
    let http = reqwest::Client::new();
    for _ in 0..2 {
        http.get(format!("{}/api/admin/jobs/7", proxy.uri()))
            .send()
            .await
            .expect("answers");
    }
    let cassette = Cassette::new("jobs/poll", Provenance::recorded("2026-11-29", "polling"))
        .interactions(proxy.take().into_iter().map(|e| e.interaction));
    assert_eq!(cassette.interactions.len(), 2);

    let poll = |server: &ReplayServer| {
        let url = format!("{}/api/admin/jobs/7", server.uri());
        let http = http.clone();
        async move {
            let response = http.get(url).send().await.expect("answers");
            (
                response.status().as_u16(),
                response.text().await.expect("body"),
            )
        }
    };
    let strict = ReplayServer::start(ReplayOptions::default()).await;
    strict
        .mount(std::slice::from_ref(&cassette))
        .await
        .expect("mounts");
    assert_eq!(poll(&strict).await.1, r#"{"status":"running"}"#);
    assert_eq!(poll(&strict).await.1, r#"{"status":"done"}"#);
    let (status, third) = poll(&strict).await;
    assert_eq!(status, 501);
    assert!(
        third.contains("already played 2 of 2 recorded times"),
        "{third}"
    );

    let repeating = ReplayServer::start(ReplayOptions::default().allow_repeats(true)).await;
    repeating.mount(&[cassette]).await.expect("mounts");
    for expected in ["running", "done", "done"] {
        assert_eq!(
            poll(&repeating).await.1,
            format!(r#"{{"status":"{expected}"}}"#)
        );
    }
}

#[tokio::test]
async fn recorded_latency_is_replayed_unless_ignored() {
    let slow = Cassette::new("fake/slow", Provenance::synthetic("2026-11-29", "slow")).interaction(
        Interaction::get("/api/admin/content/spaces/636")
            .respond_with(RecordedResponse::json(200, json!({"id": 636})).delay_ms(40)),
    );
    let upstream = upstream(&[slow]).await;
    let proxy = RecordingProxy::start(ProxyConfig {
        upstream: Some(url::Url::parse(&upstream.uri()).expect("uri")),
        replay: None,
        policy: Policy::Forward,
        redactor: Redactor::new(),
        record_latency: true,
        guard: None,
    })
    .await
    .expect("proxy");
    reqwest::Client::new()
        .get(format!("{}/api/admin/content/spaces/636", proxy.uri()))
        .bearer_auth(CANARY_TOKEN)
        .send()
        .await
        .expect("answers");
    let recorded = proxy.take().remove(0).interaction;
    let delay = recorded.response.delay_ms.expect("latency recorded");
    assert!(delay >= 40, "{delay}");

    // Honoured by default; ignored on request (a 60 s delay answers at once).
    let cassette = Cassette::new("fake/timed", Provenance::recorded("2026-11-29", "timed"))
        .interaction(recorded.clone());
    let honouring = ReplayServer::start(ReplayOptions::default()).await;
    honouring.mount(&[cassette]).await.expect("mounts");
    let started = Instant::now();
    reqwest::get(format!("{}/api/admin/content/spaces/636", honouring.uri()))
        .await
        .expect("answers");
    assert!(started.elapsed() >= Duration::from_millis(delay));

    let mut very_slow = recorded;
    very_slow.response.delay_ms = Some(60_000);
    let cassette = Cassette::new("fake/timed", Provenance::recorded("2026-11-29", "timed"))
        .interaction(very_slow);
    let ignoring = ReplayServer::start(ReplayOptions::default().ignore_latency(true)).await;
    ignoring.mount(&[cassette]).await.expect("mounts");
    let answer = tokio::time::timeout(
        Duration::from_secs(20),
        reqwest::get(format!("{}/api/admin/content/spaces/636", ignoring.uri())),
    )
    .await
    .expect("ignore_latency answers without the recorded delay")
    .expect("answers");
    assert_eq!(answer.status().as_u16(), 200);
}

// ---------------------------------------------------------------------------------------
// The lifecycle check

#[tokio::test]
async fn cassettes_check_finds_secrets_orphans_and_unused_interactions() {
    let upstream = upstream(&[pilot_base()]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = vec![Call::new("content-spaces-get", json!({"space": "636"})).named("by-id")];
    record_with(RecordOptions::new(dir.path(), "content/used", calls).live(live(&upstream))).await;

    let clean = lifecycle::check(&CheckOptions::new(dir.path()).fail_on_unused(true))
        .await
        .expect("checks");
    assert!(clean.ok, "{}", clean.to_text());
    assert_eq!(
        (clean.replayed, clean.played),
        (1, Some(clean.interactions))
    );

    // An interaction no scenario plays, a cassette nothing uses, a stored password, the token.
    let mut used = Cassette::load(dir.path(), "content/used").expect("loads");
    used.interactions
        .push(Interaction::get("/api/admin/content/spaces/999").respond(200, json!({"id": 999})));
    used.save(dir.path()).expect("saves");
    Cassette::new(
        "content/orphan",
        Provenance::synthetic("2026-11-29", "nobody uses this"),
    )
    .interaction(
        Interaction::post("/api/admin/users")
            .body(json!({"name": "ana", "password": "hunter2"}))
            .respond(201, json!({"id": 1, "note": CANARY_TOKEN})),
    )
    .save(dir.path())
    .expect("saves");

    let without_replay = lifecycle::check(&CheckOptions::new(dir.path()).token(CANARY_TOKEN))
        .await
        .expect("checks");
    let kinds: Vec<(&str, ProblemKind)> = without_replay
        .problems
        .iter()
        .map(|p| (p.cassette.as_str(), p.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("content/orphan", ProblemKind::Secret),
            ("content/orphan", ProblemKind::Secret),
            ("content/orphan", ProblemKind::UnusedCassette),
        ],
        "{}",
        without_replay.to_text()
    );
    let text = without_replay.to_text();
    assert!(
        text.contains(
            "at $.interactions[0].request.body.password: a value under a secret-looking key"
        ),
        "{text}"
    );
    assert!(
        text.contains("at $.interactions[0].response.body.note: the MODYO_TOKEN value"),
        "{text}"
    );
    assert_no_canary("the check report", &text);
    assert_no_canary("the check report", &without_replay.to_json());

    let with_replay = lifecycle::check(&CheckOptions::new(dir.path()).fail_on_unused(true))
        .await
        .expect("checks");
    assert!(!with_replay.ok);
    let unused: Vec<&str> = with_replay
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::UnusedInteraction)
        .map(|p| p.detail.as_str())
        .collect();
    let last = used.interactions.len() - 1;
    assert_eq!(
        unused,
        [format!(
            "interactions[{last}] GET /api/admin/content/spaces/999: never played by any scenario"
        )
        .as_str()]
    );
}

#[tokio::test]
async fn the_workspace_cassettes_pass_the_check() {
    let report = lifecycle::check(&CheckOptions::new(modyo_replay::cassette::default_dir()))
        .await
        .expect("checks");
    assert!(report.ok, "{}", report.to_text());
    assert!(report.cassettes > 0 && report.scenarios > 0);
}

// ---------------------------------------------------------------------------------------
// Drift

#[tokio::test]
async fn the_drift_check_reports_structural_changes_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = vec![Call::new("content-spaces-list", json!({})).named("list")];
    let same = upstream(&[pilot_base()]).await;
    record_with(RecordOptions::new(dir.path(), "content/drift", calls.clone()).live(live(&same)))
        .await;
    let text = read(dir.path(), "content/drift");

    let mut diff = RecordOptions::new(dir.path(), "content/drift", calls.clone())
        .mode(Mode::None)
        .live(live(&same));
    diff.diff = true;
    let report = record_with(diff.clone()).await;
    assert!(report.ok, "{}", report.to_text());
    assert!(report.calls[0].live > 0 && report.calls[0].drift.is_empty());

    // The API changed shape: `uid` gone, `region` new, `id` now a string.
    let mut changed = pilot_base();
    for i in &mut changed.interactions {
        if let ResponseBody::Json(Value::Object(body)) = &mut i.response.body
            && let Some(Value::Array(spaces)) = body.get_mut("spaces")
        {
            for space in spaces.iter_mut().filter_map(Value::as_object_mut) {
                space.remove("uid");
                space.insert("region".into(), json!("cl"));
                let id = space["id"].to_string();
                space.insert("id".into(), json!(id));
            }
        }
    }
    let drifted = upstream(&[changed]).await;
    diff.live = Some(live(&drifted));
    let report = record_with(diff.clone()).await;
    assert!(!report.ok);
    assert!(!report.written);
    assert_eq!(read(dir.path(), "content/drift"), text);
    let drift = &report.calls[0].drift[0];
    assert_eq!(
        drift.request,
        "GET /api/admin/content/spaces?page=1&per_page=10"
    );
    let lines: Vec<String> = drift.differences.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "$.spaces[].id: type changed from number to string",
            "$.spaces[].region: added (string)",
            "$.spaces[].uid: removed (was string)",
        ]
    );
    assert!(
        report
            .to_text()
            .contains("       $.spaces[].uid: removed (was string)")
    );
    let json: Value = serde_json::from_str(&report.to_json()).expect("json report");
    assert_eq!(
        json["calls"][0]["drift"][0]["differences"][2],
        json!({"change": "removed", "path": "$.spaces[].uid", "recorded": "string"})
    );
    assert_eq!(
        drifted.received().len(),
        report.calls[0].live,
        "every request went live"
    );
}

// ---------------------------------------------------------------------------------------
// Through the binary

#[test]
fn the_cli_reports_near_misses_and_fails_without_leaking_the_token() {
    let dir = tempfile::tempdir().expect("tempdir");
    Cassette::new(
        "content/cli",
        Provenance::recorded("2026-11-29", "one space"),
    )
    .scenario(
        modyo_replay::Scenario::new("by-id")
            .tool("content-spaces-get")
            .args(json!({"space": "636"})),
    )
    .interaction(Interaction::get("/api/admin/content/spaces/636").respond(
        200,
        json!({"id": 636, "name": "Sucursales", "uid": "sucursales"}),
    ))
    .save(dir.path())
    .expect("saves");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_modyo-lab"))
            .args(args)
            .env_clear()
            .env("MODYO_TOKEN", CANARY_TOKEN)
            .env("MODYO_URL", "http://127.0.0.1:9")
            .env("RUST_LOG", "debug")
            .output()
            .expect("runs")
    };
    let cassettes = dir.path().to_str().expect("utf-8 path");
    let output = run(&[
        "record",
        "--mode",
        "none",
        "--cassettes",
        cassettes,
        "--scenario",
        "content/cli",
        "--",
        "content-spaces-get",
        r#"{"space": "636"}"#,
        "content-spaces-get",
        r#"{"space": "512"}"#,
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "1. content-spaces-get [content-spaces-get] -> success; 0 live, 1 replayed, 0 missed"
        ) && stdout.contains(
            "miss: GET /api/admin/content/spaces/512 (no body) matches no recorded interaction"
        ) && stdout.contains("path segment 5: recorded \"636\", received \"512\""),
        "{stdout}"
    );
    assert_no_canary("stdout", &stdout);
    assert_no_canary("stderr (debug logs)", &stderr);

    let output = run(&[
        "cassettes",
        "check",
        "--cassettes",
        cassettes,
        "--fail-on-unused",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("replayed 1 scenario(s), 1 of 1 interaction(s) played"),
        "{stdout}"
    );
    assert_no_canary("stdout", &stdout);
    assert_no_canary("stderr", &String::from_utf8_lossy(&output.stderr));
}
