//! `modyo-lab record`: the run that ties proxy, replay, server and cassette together (its options
//! and calls are `options`).

use std::path::{Path, PathBuf};

use modyo_mcp::{Config, ModyoServer};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio::task::JoinHandle;

use super::options::{Call, Mode, RecordOptions};
use super::proxy::{Drift, Exchange, Origin, Policy, ProxyConfig, ProxyError, RecordingProxy};
use super::report::{CallReport, DriftReport, RecordReport};
use crate::check::{self, Kind};
use crate::serve::{OFFLINE_TOKEN, ServeError, offline_config};
use crate::session::Session;
use modyo_replay::cassette::{
    self, Cassette, CassetteError, Expect, Interaction, Outcome, Provenance, RecordedResponse,
    Scenario,
};
use modyo_replay::replay::{ReplayError, ReplayOptions, ReplayServer, RequestKey};

/// Why recording could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The command line or the script is wrong.
    #[error("{0}")]
    Usage(String),
    /// A cassette could not be loaded or written.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// A cassette could not be mounted.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The server configuration is invalid.
    #[error(transparent)]
    Serve(#[from] ServeError),
    /// The proxy could not start.
    #[error(transparent)]
    Proxy(#[from] ProxyError),
    /// The MCP client could not connect to the in-process server.
    #[error("MCP client: {0}")]
    Client(String),
    /// A file could not be read.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// What a mode does with the cassette it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Record everything into a fresh cassette.
    Record,
    /// Replay what matches, record the rest into the existing (or a fresh) cassette.
    Append,
    /// Replay only; write nothing.
    Replay,
    /// Live and replay both; write nothing; report drift.
    Compare,
}

fn plan(mode: Mode, exists: bool, diff: bool, name: &str) -> Result<Plan, RecordError> {
    if diff {
        if mode != Mode::None {
            return Err(RecordError::Usage(
                "--diff goes with --mode none (it replays nothing and writes nothing)".into(),
            ));
        }
        if !exists {
            return Err(RecordError::Usage(format!(
                "cassette '{name}' does not exist: nothing to compare with"
            )));
        }
        return Ok(Plan::Compare);
    }
    Ok(match (mode, exists) {
        (Mode::Once, false) | (Mode::All, _) => Plan::Record,
        (Mode::Once, true) | (Mode::None, true) => Plan::Replay,
        (Mode::NewEpisodes, _) => Plan::Append,
        (Mode::None, false) => {
            return Err(RecordError::Usage(format!(
                "cassette '{name}' does not exist and --mode none only replays"
            )));
        }
    })
}

/// The cassette name: `--scenario` itself when it has a `/`, else under the first tool's
/// module (`content-spaces-list` files under `content/`).
fn cassette_name(scenario: &str, calls: &[Call]) -> Result<String, RecordError> {
    let name = if scenario.contains('/') {
        scenario.to_owned()
    } else {
        let module = calls
            .first()
            .and_then(|c| c.tool.split('-').next())
            .filter(|m| !m.is_empty())
            .ok_or_else(|| RecordError::Usage("no tool calls to record".into()))?;
        format!("{module}/{scenario}")
    };
    // Validates the name (and nothing else: the cassette is empty).
    Cassette::new(
        name.clone(),
        Provenance::recorded("2000-01-01", "name check"),
    )
    .validate()?;
    Ok(name)
}

/// Scenario names: given ones, else the cassette's last segment for a single call, else the
/// tool name (with `-2`, `-3`... on repeats).
fn scenario_names(cassette: &str, calls: &[Call]) -> Vec<String> {
    let last = cassette.rsplit('/').next().unwrap_or(cassette);
    let mut taken: Vec<String> = Vec::new();
    for call in calls {
        let base = match &call.name {
            Some(name) => name.clone(),
            None if calls.len() == 1 => last.to_owned(),
            None => call.tool.clone(),
        };
        let mut name = base.clone();
        let mut n = 2;
        while taken.contains(&name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        taken.push(name);
    }
    taken
}

/// An MCP client connected to an in-process server.
struct Mcp {
    client: RunningService<RoleClient, ()>,
    serving: JoinHandle<()>,
}

impl Mcp {
    async fn connect(config: Config) -> Result<Mcp, RecordError> {
        let server = ModyoServer::new(config).map_err(ServeError::from)?;
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        let serving = tokio::spawn(async move {
            if let Err(e) = server.serve(server_io).await {
                tracing::debug!("recording server stopped: {e}");
            }
        });
        let client = ().serve(client_io).await.map_err(|e| RecordError::Client(e.to_string()))?;
        Ok(Mcp { client, serving })
    }

    async fn call(&self, tool: &str, arguments: &Value) -> Result<CallToolResult, String> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = arguments {
            params.arguments = Some(map.clone());
        }
        self.client
            .call_tool(params)
            .await
            .map_err(|e| e.to_string())
    }

    async fn close(self) {
        let _ = self.client.cancel().await;
        let _ = self.serving.await;
    }
}

/// The outcome name and error code of a result.
fn outcome(result: &CallToolResult) -> (&'static str, Option<String>) {
    match check::kind(result) {
        Kind::Success => ("success", None),
        Kind::Control => ("control", None),
        Kind::Error => (
            "error",
            check::error(result).and_then(|e| e["code"].as_str().map(str::to_owned)),
        ),
    }
}

fn responses_equal(a: &RecordedResponse, b: &RecordedResponse) -> bool {
    a.status == b.status && a.headers == b.headers && a.body == b.body
}

/// Where two JSON values first differ (`$.data.items[3].name`), if they do.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, &format!("{at}.{k}")) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{at}.{k}")),
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{at}.{k}"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| first_difference(v, w, &format!("{at}[{i}]"))),
        _ if a == b => None,
        _ => Some(at.to_owned()),
    }
}

/// One recorded call, before it is reported.
struct Recorded {
    scenario: Scenario,
    env: Vec<(String, String)>,
    result: Value,
}

/// Runs `modyo-lab record`: see the module docs. The report says what happened; it is an
/// `Err` only when the run could not happen at all (bad usage, unreadable cassette...).
pub async fn run(options: &RecordOptions) -> Result<RecordReport, RecordError> {
    let calls = options.all_calls()?;
    if calls.is_empty() {
        return Err(RecordError::Usage(
            "no tool calls: give them after `--` (`-- content-spaces-list '{}'`) or with --script"
                .into(),
        ));
    }
    let root = options.cassettes.as_path();
    let scenario = options.scenario.as_deref().ok_or_else(|| {
        RecordError::Usage("--scenario is required: the cassette to write".into())
    })?;
    let name = cassette_name(scenario, &calls)?;
    let path = cassette::path_of(root, &name);
    let existing = if path.exists() {
        Some(Cassette::load(root, &name)?)
    } else {
        None
    };
    let plan = plan(options.mode, existing.is_some(), options.diff, &name)?;
    let policy = match plan {
        Plan::Record => Policy::Forward,
        Plan::Append => Policy::ReplayElseForward,
        Plan::Replay => Policy::ReplayOnly,
        Plan::Compare => Policy::Compare,
    };
    if policy != Policy::ReplayOnly && options.live.is_none() {
        return Err(RecordError::Usage(format!(
            "--mode {} {}needs the live account: set MODYO_URL and MODYO_TOKEN",
            options.mode,
            if options.diff { "--diff " } else { "" }
        )));
    }
    let redactor = options.redactor();
    let date = options.date.clone().unwrap_or_else(super::today);
    let fresh = || {
        Cassette::new(
            name.clone(),
            Provenance::recorded(date.clone(), "being recorded"),
        )
    };
    let mut working = match (plan, &existing) {
        // `all` starts over but keeps the labels.
        (Plan::Record, Some(existing)) => {
            let mut c = fresh();
            c.tags.clone_from(&existing.tags);
            c
        }
        (Plan::Record, None) | (_, None) => fresh(),
        (_, Some(existing)) => existing.clone(),
    };
    let recorded_before = working.interactions.len();
    let replay = if policy == Policy::Forward {
        None
    } else {
        Some(
            ReplayServer::start(
                ReplayOptions::default()
                    .allow_repeats(options.allow_repeats)
                    .ignore_latency(true),
            )
            .await,
        )
    };
    let proxy = RecordingProxy::start(ProxyConfig {
        upstream: options.live.as_ref().map(|l| l.url.clone()),
        replay: replay.as_ref().map(ReplayServer::uri),
        policy,
        redactor: redactor.clone(),
        record_latency: options.record_latency,
        guard: options.guard.clone(),
    })
    .await?;
    let token = options
        .live
        .as_ref()
        .map_or(OFFLINE_TOKEN, |l| l.token.as_str());

    let names = scenario_names(&name, &calls);
    let mut report = RecordReport::new(&name, &path, options.mode, options.diff);
    let mut recorded: Vec<Recorded> = Vec::new();
    for (call, scenario_name) in calls.iter().zip(&names) {
        if let Some(replay) = &replay {
            // Each call replays from the start of every sequence, like a scenario alone.
            replay.reset().await;
            replay
                .mount(&cassette::resolve(root, vec![working.clone()])?)
                .await?;
        }
        let env: Vec<(String, String)> = options
            .env
            .iter()
            .cloned()
            .chain(call.env.iter().map(|(k, v)| (k.clone(), v.clone())))
            .collect();
        let mcp = Mcp::connect(offline_config(&proxy.uri(), &env, token)?).await?;
        let result = mcp.call(&call.tool, &call.arguments).await;
        mcp.close().await;
        let exchanges = proxy.take();

        let mut call_report = CallReport::new(scenario_name, &call.tool);
        summarize(&exchanges, &mut call_report);
        if matches!(plan, Plan::Record | Plan::Append) {
            merge(
                &mut working,
                &exchanges,
                scenario_name,
                &mut report.conflicts,
            );
        }
        match result {
            Ok(result) => {
                let (kind, code) = outcome(&result);
                call_report.outcome = Some(kind.to_owned());
                call_report.code.clone_from(&code);
                let value = redactor.json(&serde_json::to_value(&result).unwrap_or_default());
                call_report.result = Some(value.clone());
                let mut scenario = Scenario::new(scenario_name.clone())
                    .tool(call.tool.clone())
                    .args(redactor.json(&call.arguments));
                scenario.expect = Expect {
                    outcome: match kind {
                        "error" => Outcome::Error,
                        "control" => Outcome::Control,
                        _ => Outcome::Success,
                    },
                    code,
                };
                for (k, v) in &env {
                    scenario.env.insert(k.clone(), redactor.text(v));
                }
                // A call the guard cut short answered from refusals, not from the account:
                // it is reported, never stored as a scenario.
                if call_report.refused.is_empty() {
                    recorded.push(Recorded {
                        scenario,
                        env: env.clone(),
                        result: value,
                    });
                }
            }
            Err(e) => report.problems.push(format!(
                "{scenario_name}: the call {} failed: {}",
                call.tool,
                redactor.text(&e)
            )),
        }
        report.calls.push(call_report);
    }
    drop(proxy);
    drop(replay);

    if matches!(plan, Plan::Record | Plan::Append) {
        for r in &recorded {
            match working
                .scenarios
                .iter_mut()
                .find(|s| s.name == r.scenario.name)
            {
                Some(existing) => *existing = r.scenario.clone(),
                None => working.scenarios.push(r.scenario.clone()),
            }
        }
        let description = options
            .description
            .clone()
            .or_else(|| existing.as_ref().map(|c| c.provenance.description.clone()))
            .unwrap_or_else(|| {
                let mut tools: Vec<&str> = calls.iter().map(|c| c.tool.as_str()).collect();
                tools.dedup();
                format!(
                    "Recorded from a live account with modyo-lab record: {}.",
                    tools.join(", ")
                )
            });
        // Provenance says `recorded` (today) once something live is in the file; scenarios
        // added from replay alone leave an existing provenance as it was.
        let went_live = plan == Plan::Record
            || existing.is_none()
            || working.interactions.len() > recorded_before;
        if went_live || options.description.is_some() {
            let previous = working.provenance.clone();
            working.provenance = if went_live {
                Provenance::recorded(date.clone(), description)
            } else {
                Provenance {
                    description,
                    ..previous.clone()
                }
            };
            working.provenance.synthetic_paths = previous.synthetic_paths;
        }
        for tag in &options.tags {
            if !working.has_tag(tag) {
                working.tags.push(tag.clone());
            }
        }
        if existing.as_ref() != Some(&working) {
            working.save(root)?;
            report.written = true;
            verify(options, root, &working, &recorded, &mut report).await?;
        }
    }
    report.finish();
    Ok(report)
}

/// Counts the exchanges of one call by origin, and keeps misses, failures and drift.
fn summarize(exchanges: &[Exchange], report: &mut CallReport) {
    for exchange in exchanges {
        let line = modyo_replay::cassette::request_line(&exchange.interaction.request);
        match &exchange.origin {
            Origin::Live => report.live += 1,
            Origin::Unstorable(reason) => {
                report.live += 1;
                report.not_stored.push(format!("{line}: {reason}"));
            }
            Origin::Replayed => report.replayed += 1,
            Origin::Missed(diagnostic) => report.missed.push(diagnostic.clone()),
            Origin::Failed(error) => report.failed.push(format!("{line}: {error}")),
            Origin::Refused(reason) => report.refused.push(format!("{line}: {reason}")),
        }
        match &exchange.drift {
            Some(Drift::Unrecorded(diagnostic)) => report.drift.push(DriftReport {
                request: line,
                unrecorded: Some(diagnostic.clone()),
                differences: Vec::new(),
            }),
            Some(Drift::Shape(differences)) if !differences.is_empty() => {
                report.drift.push(DriftReport {
                    request: line,
                    unrecorded: None,
                    differences: differences.clone(),
                })
            }
            _ => {}
        }
    }
}

/// Adds one call's live exchanges to the cassette. The call's n-th request with a given key
/// is the cassette's n-th interaction with that key when replayed alone, so an identical
/// answer already in that slot is not stored twice; a different one is appended and reported
/// (replayed alone, this call would get the earlier answer).
fn merge(
    working: &mut Cassette,
    exchanges: &[Exchange],
    scenario: &str,
    conflicts: &mut Vec<String>,
) {
    let mut seen: Vec<RequestKey> = Vec::new();
    for exchange in exchanges {
        let key = RequestKey::of(&exchange.interaction.request);
        let nth = seen.iter().filter(|k| **k == key).count();
        seen.push(key.clone());
        if exchange.origin != Origin::Live {
            continue;
        }
        let slot = working
            .interactions
            .iter()
            .filter(|i| RequestKey::of(&i.request) == key)
            .nth(nth);
        if let Some(earlier) = slot {
            if responses_equal(&earlier.response, &exchange.interaction.response) {
                continue;
            }
            conflicts.push(format!(
                "{scenario}: {} answered differently than when it was first recorded; \
                 replayed alone, this scenario gets the first answer",
                key.line()
            ));
        }
        let interaction: Interaction = exchange.interaction.clone();
        working.interactions.push(interaction);
    }
}

/// Replays every recorded call offline from the written cassette and compares results.
async fn verify(
    options: &RecordOptions,
    root: &Path,
    cassette: &Cassette,
    recorded: &[Recorded],
    report: &mut RecordReport,
) -> Result<(), RecordError> {
    let mount = cassette::resolve(root, vec![cassette.clone()])?;
    let redactor = options.redactor();
    for r in recorded {
        let session = Session::start_with(
            &mount,
            &r.env,
            ReplayOptions::default().ignore_latency(true),
        )
        .await
        .map_err(|e| RecordError::Client(e.to_string()))?;
        let replayed = session
            .call(&r.scenario.tool, r.scenario.arguments.clone())
            .await;
        let misses = session.replay().misses();
        session.close().await;
        let name = &r.scenario.name;
        let mut same = misses.is_empty();
        for miss in misses {
            report.problems.push(format!(
                "{name}: replayed offline, a request missed: {miss}"
            ));
        }
        match replayed {
            Ok(result) => {
                // Both sides redacted: host redaction may also rewrite what the server
                // derives locally (the platform host).
                let value = redactor.json(&serde_json::to_value(&result).unwrap_or_default());
                match first_difference(&r.result, &value, "$") {
                    None => report.verified += 1,
                    Some(at) => {
                        same = false;
                        report.problems.push(format!(
                            "{name}: replayed offline, the result differs from the recording at {at}"
                        ));
                    }
                }
            }
            Err(e) => {
                same = false;
                report
                    .problems
                    .push(format!("{name}: replayed offline, the call failed: {e}"));
            }
        }
        if let Some(call) = report.calls.iter_mut().find(|c| c.scenario == *name) {
            call.verified = Some(same);
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
