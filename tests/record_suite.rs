//! `modyo-lab record --suite read-only` end to end against a local fake account: a replay of
//! our own cassettes (faults left out) behind the recording proxy, answering `401 {}` unless
//! the request carries the canary token, with three endpoints planted to answer differently
//! (a key renamed, a key of another type than ours and the specification say, an endpoint
//! gone). Our cassettes are not one consistent account, so some requests of the suite miss
//! (`501`): an account answering `5xx` is unavailable there, not a contradiction.
//!
//! Shown: no request but `GET` reaches the account, the token and the account's host are in
//! no written file (nor in the progress lines), the request budget holds (a generous one and
//! a tight one), the report names each planted difference and exits non-zero for them, and
//! the recorded cassettes replay offline. Through the binary: a budget of 7 is 7 requests, the
//! exit status is the report's verdict, our cassettes and a used directory are refused (exit
//! 2). The proxy's guard itself, on the proxy alone: `POST`/`PUT`/`DELETE` refused and never
//! sent, a budget held, a `429` and a `503` retried after the wait their `Retry-After` asks.
//! The shipped suite covers every read tool and read action of the read-only server, and a
//! suite that names a mutating action, a mutation tool or an unbound variable is refused.

use std::path::Path;

use modyo_lab::lifecycle::{self, CheckOptions, ProblemKind};
use modyo_lab::record::suite::{self, EndpointReport, Suite, SuiteArgs, SuiteOutcome, Verdict};
use modyo_lab::record::{Guard, Limits, Live, Policy, ProxyConfig, RecordOptions, RecordingProxy};
use modyo_lab::record::{Origin, Redactor};
use modyo_lab::session::{CANARY_TOKEN, Library};
use modyo_replay::cassette::ResponseBody;
use modyo_replay::{
    Cassette, Interaction, Provenance, RecordedResponse, ReplayOptions, ReplayServer,
};
use serde_json::{Value, json};

/// The groups list: `admin_users_count` renamed to `members_count` in every group.
const RENAMED: &str = "/api/admin/groups";
/// The menus of site 12: `name` a number (ours and the specification: a string).
const RETYPED: &str = "/api/admin/sites/12/menus";
/// The variables list: gone (`404`).
const GONE: &str = "/api/admin/variables";

/// Our cassettes with the three planted differences.
fn planted_account() -> Vec<Cassette> {
    let library = Library::workspace().expect("workspace cassettes load");
    let mut cassettes: Vec<Cassette> = library
        .cassettes()
        .filter(|c| !c.has_tag("fault"))
        .cloned()
        .collect();
    let mut planted = [0_usize; 3];
    for interaction in cassettes.iter_mut().flat_map(|c| &mut c.interactions) {
        let request = &interaction.request;
        let response = &mut interaction.response;
        if request.method != "GET" || !(200..300).contains(&response.status) {
            continue;
        }
        let ResponseBody::Json(body) = &mut response.body else {
            continue;
        };
        match request.path.as_str() {
            RENAMED => {
                for group in items(body, "groups") {
                    let count = group
                        .remove("admin_users_count")
                        .expect("groups have admin_users_count");
                    group.insert("members_count".into(), count);
                }
                planted[0] += 1;
            }
            RETYPED => {
                for (n, menu) in items(body, "menus").enumerate() {
                    menu.insert("name".into(), json!(n));
                }
                planted[1] += 1;
            }
            GONE => {
                response.status = 404;
                *body = json!({"error": "Not Found"});
                planted[2] += 1;
            }
            _ => {}
        }
    }
    assert!(
        planted.iter().all(|n| *n > 0),
        "every planted endpoint is in our cassettes: {planted:?}"
    );
    cassettes
}

fn items<'a>(
    body: &'a mut Value,
    key: &str,
) -> impl Iterator<Item = &'a mut serde_json::Map<String, Value>> {
    body[key]
        .as_array_mut()
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}

/// The fake account: the planted cassettes replayed (repeats allowed, like a real API),
/// `401 {}` without the canary token.
async fn fake_account() -> ReplayServer {
    let server = ReplayServer::start(
        ReplayOptions::default()
            .allow_repeats(true)
            .ignore_latency(true),
    )
    .await;
    server
        .mount(&planted_account())
        .await
        .expect("the fake account mounts");
    server
        .require_authorization(&format!("Bearer {CANARY_TOKEN}"))
        .await;
    server
}

fn record_options(account: &ReplayServer) -> RecordOptions {
    let url = url::Url::parse(&account.uri()).expect("uri");
    RecordOptions::new("unused", "unused", Vec::new()).live(Live::new(url, CANARY_TOKEN))
}

async fn run_suite(account: &ReplayServer, args: SuiteArgs) -> (SuiteOutcome, String) {
    let mut progress = Vec::new();
    let outcome = suite::run(&args, &record_options(account), &mut progress)
        .await
        .expect("the suite runs");
    (outcome, String::from_utf8(progress).expect("utf-8"))
}

/// Every file under `dir`, with its text.
fn written_files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("reads the output") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let text = std::fs::read_to_string(&path).expect("a text file");
                out.push((path.display().to_string(), text));
            }
        }
    }
    out.sort();
    out
}

fn differences(endpoint: &EndpointReport) -> Vec<String> {
    endpoint
        .differences
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn assert_no_secret(what: &str, text: &str, host: &str) {
    assert!(!text.contains(CANARY_TOKEN), "the token leaked into {what}");
    assert!(
        !text.contains(host),
        "the account host {host} leaked into {what}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_read_only_suite_records_the_fake_account_and_names_every_planted_difference() {
    let account = fake_account().await;
    let host = account.address().to_string();
    let out = tempfile::tempdir().expect("tempdir");
    let mut args = SuiteArgs::new("read-only", out.path());
    args.budget = Some(400);
    // One of each thing found: every step still runs, in half the calls.
    args.items = Some(1);
    let (outcome, progress) = run_suite(&account, args).await;
    let report = &outcome.report;
    let received = account.received();

    // Read-only: nothing but GET reached the account, and the server never asked for more.
    let methods: Vec<&str> = received
        .iter()
        .map(|r| r.method.as_str())
        .filter(|m| *m != "GET")
        .collect();
    assert!(methods.is_empty(), "non-GET requests left: {methods:?}");
    assert_eq!(report.requests.refused_methods, 0);
    // The budget holds, and the counter is what the account saw.
    assert!(!received.is_empty());
    assert!(received.len() <= 400, "{} requests", received.len());
    assert_eq!(report.requests.sent, received.len());

    // Nothing written carries the token or the host.
    let files = written_files(out.path());
    assert!(files.len() > 20, "{} files", files.len());
    for (path, text) in &files {
        assert_no_secret(path, text, &host);
    }
    assert_no_secret("the progress lines", &progress, &host);
    assert_no_secret("the JSON report", &report.to_json(), &host);

    // The report names every planted difference, and only contradictions fail the run.
    let endpoint = |path: &str| {
        report
            .endpoints
            .iter()
            .find(|e| e.endpoint == path)
            .unwrap_or_else(|| panic!("no endpoint {path} in the report: {:#?}", report.endpoints))
    };
    let groups = endpoint("GET /api/admin/groups");
    assert_eq!(groups.verdict, Verdict::Differs, "{groups:#?}");
    assert_eq!(
        differences(groups),
        [
            "$.groups[].admin_users_count: removed (was number)",
            "$.groups[].members_count: added (number)"
        ]
    );
    let menus = endpoint("GET /api/admin/sites/{site_id}/menus");
    assert_eq!(menus.verdict, Verdict::Differs, "{menus:#?}");
    assert_eq!(
        differences(menus),
        ["$.menus[].name: type changed from string to number"]
    );
    let against_spec: Vec<(String, bool)> = menus
        .spec
        .iter()
        .map(|f| (f.subject.clone(), f.ours_too))
        .collect();
    assert_eq!(against_spec, [("$.menus[].name".to_owned(), false)]);
    let variables = endpoint("GET /api/admin/variables");
    assert_eq!(variables.verdict, Verdict::Missing, "{variables:#?}");
    let contradicted: Vec<&str> = report
        .endpoints
        .iter()
        .filter(|e| e.verdict.contradicts())
        .map(|e| e.endpoint.as_str())
        .collect();
    assert_eq!(
        contradicted.len(),
        3,
        "only the planted endpoints: {contradicted:?}"
    );
    assert!(!report.ok);
    let markdown = std::fs::read_to_string(&outcome.markdown).expect("report.md");
    for needle in [
        "likely renamed: `$.groups[].admin_users_count` -> `$.groups[].members_count`",
        "`$.menus[].name: type changed from string to number`",
        "response_type `$.menus[].name`: declared string, answered integer\n",
        "| `GET /api/admin/variables` | undocumented | 404 x1 | 200 x1 | **missing live** |",
    ] {
        assert!(
            markdown.contains(needle),
            "report.md lacks {needle}:\n{markdown}"
        );
    }

    // The recorded cassettes replay offline.
    let check = lifecycle::check(
        &CheckOptions::new(&outcome.cassettes)
            .fail_on_unused(true)
            .token(CANARY_TOKEN),
    )
    .await
    .expect("the check runs");
    let serious: Vec<_> = check
        .problems
        .iter()
        .filter(|p| p.kind != ProblemKind::UnusedInteraction)
        .collect();
    assert!(serious.is_empty(), "{}", check.to_text());
    assert!(check.replayed > 50, "{}", check.to_text());
}

/// Runs `modyo-lab ARGS` against `account` (the binary, as a user would).
async fn modyo_lab(account: &ReplayServer, args: &[&str]) -> std::process::Output {
    let url = account.uri();
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_modyo-lab"))
            .args(&args)
            .env_clear()
            .env("MODYO_URL", url)
            .env("MODYO_TOKEN", CANARY_TOKEN)
            .output()
            .expect("modyo-lab runs")
    })
    .await
    .expect("joins")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_the_binary_a_tight_budget_holds_and_ours_are_never_written_over() {
    let account = fake_account().await;
    let host = account.address().to_string();
    let out = tempfile::tempdir().expect("tempdir");
    let dir = out.path().to_str().expect("utf-8");
    let output = modyo_lab(
        &account,
        &[
            "record",
            "--suite",
            "read-only",
            "--out",
            dir,
            "--budget",
            "7",
        ],
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_no_secret("stdout", &stdout, &host);
    assert_no_secret("stderr", &stderr, &host);
    assert_eq!(account.received().len(), 7, "{stderr}");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("report.json")).expect("report.json"),
    )
    .expect("JSON");
    assert_eq!(report["requests"]["sent"], 7);
    assert!(
        report["steps"]
            .as_array()
            .expect("steps")
            .iter()
            .any(|s| s["note"] == "not run: the request budget was spent"),
        "{report:#}"
    );
    // The exit status is the report's verdict.
    let ok = report["ok"].as_bool().expect("ok");
    assert_eq!(
        output.status.code(),
        Some(if ok { 0 } else { 1 }),
        "{stdout}"
    );
    assert!(
        stdout.contains("report: ") && stdout.contains("report.md"),
        "{stdout}"
    );

    // Into our cassettes, or into a directory that holds some: refused before any request.
    let workspace = modyo_replay::cassette::default_dir()
        .parent()
        .expect("the workspace")
        .to_owned();
    for (dir, why) in [
        (workspace, "overlaps) our cassettes"),
        (out.path().to_owned(), "already holds files"),
    ] {
        let fresh = fake_account().await;
        let output = modyo_lab(
            &fresh,
            &[
                "record",
                "--suite",
                "read-only",
                "--out",
                dir.to_str().expect("utf-8"),
            ],
        )
        .await;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(why), "{stderr}");
        assert!(fresh.received().is_empty(), "{stderr}");
    }
}

#[tokio::test]
async fn the_guard_refuses_every_method_but_get_and_holds_its_budget() {
    let account = fake_account().await;
    let proxy = RecordingProxy::start(ProxyConfig {
        upstream: Some(url::Url::parse(&account.uri()).expect("uri")),
        replay: None,
        policy: Policy::Forward,
        redactor: Redactor::new().secret(CANARY_TOKEN),
        record_latency: false,
        guard: Some(Guard::new(Limits::read_only().budget(2))),
    })
    .await
    .expect("proxy");
    let http = reqwest::Client::new();
    let auth = format!("Bearer {CANARY_TOKEN}");
    for method in [
        reqwest::Method::POST,
        reqwest::Method::PUT,
        reqwest::Method::DELETE,
    ] {
        let answer = http
            .request(
                method.clone(),
                format!("{}/api/admin/content/spaces", proxy.uri()),
            )
            .header("authorization", &auth)
            .json(&json!({"name": "x"}))
            .send()
            .await
            .expect("the proxy answers");
        assert_eq!(answer.status().as_u16(), 405, "{method}");
    }
    for _ in 0..3 {
        http.get(format!(
            "{}/api/admin/roles?page=1&per_page=100",
            proxy.uri()
        ))
        .header("authorization", &auth)
        .send()
        .await
        .expect("the proxy answers");
    }
    let received = account.received();
    assert_eq!(
        received.len(),
        2,
        "two GETs within the budget, nothing else"
    );
    assert!(received.iter().all(|r| r.method == "GET"));
    let origins: Vec<Origin> = proxy.take().into_iter().map(|e| e.origin).collect();
    assert_eq!(
        origins
            .iter()
            .filter(|o| matches!(o, Origin::Refused(_)))
            .count(),
        4,
        "{origins:?}"
    );
}

#[tokio::test]
async fn the_guard_waits_as_retry_after_asks_and_retries() {
    let account = ReplayServer::start(ReplayOptions::default()).await;
    let throttled = Cassette::new(
        "fake/throttled",
        Provenance::synthetic("2026-12-01", "a rate limit, then the answer"),
    )
    .interaction(
        Interaction::get("/api/admin/sites")
            .respond_with(RecordedResponse::json(429, json!({})).header("retry-after", "0")),
    )
    .interaction(
        Interaction::get("/api/admin/sites")
            .respond_with(RecordedResponse::json(503, json!({})).header("retry-after", "1")),
    )
    .interaction(Interaction::get("/api/admin/sites").respond(200, json!({"sites": []})));
    account.mount(&[throttled]).await.expect("mounts");
    let guard = Guard::new(Limits::read_only().budget(10));
    let proxy = RecordingProxy::start(ProxyConfig {
        upstream: Some(url::Url::parse(&account.uri()).expect("uri")),
        replay: None,
        policy: Policy::Forward,
        redactor: Redactor::new(),
        record_latency: false,
        guard: Some(guard.clone()),
    })
    .await
    .expect("proxy");
    let started = std::time::Instant::now();
    let answer = reqwest::get(format!("{}/api/admin/sites", proxy.uri()))
        .await
        .expect("the proxy answers");
    assert_eq!(answer.status().as_u16(), 200);
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(1),
        "the second answer asked for a second"
    );
    assert_eq!(account.received().len(), 3);
    assert_eq!(guard.stats().retries, 2);
    assert_eq!(guard.stats().sent, 3);
}

#[tokio::test]
async fn the_shipped_suite_reads_everything_and_a_suite_that_could_write_is_refused() {
    let tools = suite::read_only_tools()
        .await
        .expect("the read-only server lists");
    let shipped = Suite::load("read-only").expect("shipped");
    let plan = shipped
        .plan(&tools)
        .expect("every read tool and read action is called or explained");
    assert!(plan.depth() >= 2, "discovery goes at least two levels deep");

    let mut json: Value = serde_json::from_str(suite::SHIPPED[0].1).expect("JSON");
    let steps = json["steps"].as_array_mut().expect("steps");
    steps.retain(|s| s["tool"] != "widgets-list-patterns");
    steps.push(
        json!({"name": "x/delete", "tool": "content-entries-manage", "each": "entry",
        "arguments": {"action": "delete", "space": "{space}", "entry": "{entry}"}}),
    );
    steps.push(json!({"name": "x/copy", "tool": "content-spaces-copy"}));
    steps.push(json!({"name": "x/unbound", "tool": "content-spaces-get",
        "arguments": {"space": "{nowhere}"}}));
    let invalid = Suite::parse("edited", &json.to_string())
        .expect("parses")
        .plan(&tools)
        .expect_err("refused")
        .to_string();
    for needle in [
        "step x/delete: 'delete' is not a read action of content-entries-manage",
        "step x/copy: content-spaces-copy is not a tool the server lists in read-only mode",
        "step x/unbound: '{nowhere}' is not on the way of its rows",
        "read tool widgets-list-patterns: no step calls it and not_called does not list it",
    ] {
        assert!(invalid.contains(needle), "{needle}\n{invalid}");
    }
}
