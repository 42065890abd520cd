//! Faults: every kind under `cassettes/faults/` (the catalogue's error table, a timeout,
//! malformed and truncated bodies, a missing list root, HTML pages), plus a refused connection,
//! injected into a successful scenario of every tool class present (read, gated with a read and
//! with a mutating action, mutation). Each must come back as a C16 error with the kind's code
//! and `platform`: never a panic, never a protocol error, never a success. The one exception is
//! a fan-out bulk tool (probed with `MODYO_GUARD_ALL_TOOLS=1`), which attempts every item: a
//! fault at one item's request fails that item alone, with the kind's code, in a `partial` or
//! `failed` answer.
//!
//! Generic: fault kinds are data (each fault cassette's response, its scenario's expected code
//! and environment; tag `list-only` for faults that only make sense where a list is read), and
//! the calls they are injected into are the library's own successful scenarios. A fault is
//! injected at the scenario's first request and at its first write, by shadowing that one
//! request. By default one scenario per kind of probe in each module that talks to the API (so
//! a new module is covered as soon as its cassettes land); `MODYO_GUARD_ALL_TOOLS=1` probes
//! the first scenario of every tool. Tools of a local module (widgets) make no request, so no
//! upstream fault can reach them: they are left out.

use std::collections::{BTreeMap, BTreeSet};

use modyo_lab::check::{self, Kind};
use modyo_lab::serve::offline_config;
use modyo_lab::session::{CANARY_TOKEN, Library, Session};
use modyo_mcp::Module;
use modyo_replay::{
    Cassette, Provenance, ReceivedRequest, RecordedResponse, ReplayOptions, ReplayServer,
};
use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::util::probes::{self, Probe, ProbeKind, env_of, json_body, list_root};

/// One fault kind, read from its cassette.
struct Fault {
    name: String,
    /// `None`: a refused connection (no response at all).
    response: Option<RecordedResponse>,
    code: String,
    env: Vec<(String, String)>,
    list_only: bool,
}

fn faults(library: &Library) -> anyhow::Result<Vec<Fault>> {
    let mut out = Vec::new();
    for cassette in library
        .cassettes()
        .filter(|c| c.name().starts_with("faults/"))
    {
        anyhow::ensure!(
            cassette.has_tag("fault"),
            "{} is not tagged fault",
            cassette.name()
        );
        let (Some(interaction), Some(scenario)) =
            (cassette.interactions.first(), cassette.scenarios.first())
        else {
            anyhow::bail!("{} needs one interaction and one scenario", cassette.name());
        };
        let Some(code) = scenario.expect.code.clone() else {
            anyhow::bail!(
                "{} does not say which error code it expects",
                cassette.name()
            );
        };
        out.push(Fault {
            name: cassette.name().to_owned(),
            response: Some(interaction.response.clone()),
            code,
            env: env_of(scenario),
            list_only: cassette.has_tag("list-only"),
        });
    }
    out.push(Fault {
        name: "connection-refused".into(),
        response: None,
        code: "upstream_unavailable".into(),
        env: Vec::new(),
        list_only: false,
    });
    Ok(out)
}

/// Whether a tool talks to the Modyo API (its module, the prefix of its name, does).
fn reaches_the_api(tool: &str) -> bool {
    tool.split('-')
        .next()
        .and_then(Module::parse)
        .is_some_and(Module::needs_api)
}

/// The probes faults are injected into, with their baselines: the first successful scenario
/// of each kind in each module (or of each tool, with `MODYO_GUARD_ALL_TOOLS=1`) whose call
/// reaches the API. Fails when a class of a module with API tools has none. Local tools (the widgets module) make no
/// request, so no upstream fault can reach them.
async fn chosen_probes(library: &Library) -> anyhow::Result<Vec<(Probe, probes::Baseline)>> {
    let all_tools = std::env::var("MODYO_GUARD_ALL_TOOLS").is_ok_and(|v| v == "1");
    let mut seen = BTreeSet::new();
    let mut chosen = Vec::new();
    for probe in probes::probes(library).await? {
        if !reaches_the_api(&probe.tool.name) {
            continue;
        }
        let module = probe.tool.name.split('-').next().unwrap_or_default();
        let key = if all_tools {
            (probe.kind, probe.tool.name.to_string())
        } else {
            (probe.kind, module.to_owned())
        };
        if seen.contains(&key) {
            continue;
        }
        let baseline = probes::baseline(&probe).await?;
        if baseline.requests.is_empty() {
            continue;
        }
        seen.insert(key);
        chosen.push((probe, baseline));
    }
    let kinds: BTreeSet<(ProbeKind, &str)> = chosen
        .iter()
        .map(|(p, _)| (p.kind, p.tool.name.split('-').next().unwrap_or_default()))
        .collect();
    let mut missing = Vec::new();
    for tool in probes::tools(&[]).await? {
        if !reaches_the_api(&tool.name) {
            continue;
        }
        let module = tool.name.split('-').next().unwrap_or_default();
        for kind in ProbeKind::of_class(modyo_lab::lint::classify(&tool)) {
            if !kinds.contains(&(*kind, module)) {
                missing.push(format!("{kind:?} (for {})", tool.name));
            }
        }
    }
    anyhow::ensure!(
        missing.is_empty(),
        "no successful cassette scenario that reaches the API to inject faults into for: {}",
        missing.join(", ")
    );
    Ok(chosen)
}

/// Where a fault goes: the first request, and the first write when it is another one.
fn injection_points(
    baseline: &probes::Baseline,
) -> Vec<&(ReceivedRequest, Option<RecordedResponse>)> {
    let mut points: Vec<&(ReceivedRequest, Option<RecordedResponse>)> = Vec::new();
    points.extend(baseline.requests.first());
    if let Some(write) = baseline.requests.iter().find(|(r, _)| r.method != "GET")
        && !points.iter().any(|(p, _)| p == &write.0)
    {
        points.push(write);
    }
    points
}

/// The error of the item a fault reached in a fan-out bulk answer (`server/CONTRACT.md`, "Bulk
/// and async"): every item is attempted, so a fault at one item's request fails that item
/// alone, and the call answers `partial`, or `failed` when nothing succeeded. `None` unless
/// the answer is one such, with a failed item of the fault's code.
fn item_error(result: &CallToolResult, code: &str) -> Option<Value> {
    let answer = result.structured_content.as_ref()?;
    if !matches!(
        answer["state"]["status"].as_str(),
        Some("partial" | "failed")
    ) {
        return None;
    }
    answer["data"]["failed"]
        .as_array()?
        .iter()
        .map(|item| &item["error"])
        .find(|error| error["code"] == code)
        .cloned()
}

/// Everything wrong with `result` as the answer to `fault`: a C16 error with the fault's
/// code, or a fan-out bulk answer whose faulted item failed with it.
fn judge(fault: &Fault, probe: &Probe, result: &CallToolResult) -> Vec<String> {
    let mut problems = check::problems(&probe.tool, result);
    let (error, item) = match check::kind(result) {
        Kind::Error => (check::error(result).unwrap_or_default(), false),
        kind => match item_error(result, &fault.code) {
            Some(error) => (error, true),
            None => {
                problems.push(format!(
                    "not an error ({kind:?}): {}",
                    check::text(result).unwrap_or_default()
                ));
                return problems;
            }
        },
    };
    let got = error["code"].as_str().unwrap_or_default();
    if got != fault.code {
        problems.push(format!(
            "code {got}, expected {}: {}",
            fault.code, error["message"]
        ));
    }
    // `retryable: true` where retrying may help and the code does not say so already
    // (`rate_limited` does), absent otherwise (never `false`). An item's error has no code
    // that says it: `true` there for a 429 too, `false` or absent otherwise.
    let retryable = fault.code == "upstream_unavailable" || (item && fault.code == "rate_limited");
    let said = error.get("retryable");
    let wrong = if item {
        said.and_then(Value::as_bool).unwrap_or(false) != retryable
    } else {
        said != retryable.then_some(&Value::Bool(true))
    };
    if wrong {
        problems.push(format!("retryable should be {retryable}: {error}"));
    }
    if let Some(response) = &fault.response {
        if !(200..300).contains(&response.status)
            && crate::core_customers::upstream_status(&error) != u64::from(response.status)
        {
            problems.push(format!("status should be {}: {error}", response.status));
        }
        if let Some(wait) = response
            .headers
            .get_ignore_case("retry-after")
            .and_then(|v| v.parse::<u64>().ok())
            && error.get("retry_after_s").and_then(Value::as_u64) != Some(wait)
            && !error["message"]
                .as_str()
                .is_some_and(|m| m.contains(&format!("retry after {wait}s")))
        {
            problems.push(format!("retry_after_s should be {wait}: {error}"));
        }
    }
    if check::text(result).is_some_and(|t| t.contains(CANARY_TOKEN)) {
        problems.push("the token appears in the error".into());
    }
    problems
}

#[tokio::test]
async fn every_fault_is_a_c16_error_with_its_code_for_every_tool_class() -> anyhow::Result<()> {
    let library = crate::util::library();
    let faults = faults(library)?;
    assert!(
        faults.len() >= 17,
        "the error table, the transport faults and the bad bodies"
    );
    let probes = chosen_probes(library).await?;
    for (probe, _) in &probes {
        eprintln!("faults: probe {:?} {}", probe.kind, probe.label);
    }
    let mut failures = Vec::new();
    let mut exercised: BTreeMap<&str, BTreeSet<ProbeKind>> = BTreeMap::new();
    let mut cases = 0;
    for (probe, baseline) in &probes {
        for fault in &faults {
            let Some(response) = &fault.response else {
                // Connection refused: the whole API is unreachable.
                let closed = crate::util::closed_port();
                let config = offline_config(&closed.uri, &probe.env, CANARY_TOKEN)?;
                let replay = ReplayServer::start(ReplayOptions::default()).await;
                let session = Session::connect(replay, config).await?;
                let result = session
                    .call(&probe.tool.name, probe.arguments.clone())
                    .await;
                cases += 1;
                match result {
                    Ok(result) => failures.extend(
                        judge(fault, probe, &result)
                            .into_iter()
                            .map(|p| format!("{} <- {}: {p}", probe.label, fault.name)),
                    ),
                    Err(e) => failures.push(format!(
                        "{} <- {}: JSON-RPC error {e}",
                        probe.label, fault.name
                    )),
                }
                exercised.entry(&fault.name).or_default().insert(probe.kind);
                session.close().await;
                continue;
            };
            for (request, recorded) in injection_points(baseline) {
                let is_list = recorded
                    .as_ref()
                    .and_then(json_body)
                    .and_then(list_root)
                    .is_some();
                if fault.list_only && !is_list {
                    continue;
                }
                let Some(key) = request.to_recorded() else {
                    continue;
                };
                let injected = Cassette::new(
                    "faults/injected",
                    Provenance::synthetic("2026-11-29", "a fault injected at one request"),
                )
                .interaction(key.respond_with(response.clone()));
                let mounts = vec![injected, baseline.without(request)];
                let mut env = probe.env.clone();
                env.extend(fault.env.iter().cloned());
                let session = Session::start_with(
                    &mounts,
                    &env,
                    ReplayOptions::default().allow_repeats(true),
                )
                .await?;
                let label = format!("{} <- {} at {}", probe.label, fault.name, request.line());
                cases += 1;
                match session
                    .call(&probe.tool.name, probe.arguments.clone())
                    .await
                {
                    Ok(result) => failures.extend(
                        judge(fault, probe, &result)
                            .into_iter()
                            .map(|p| format!("{label}: {p}")),
                    ),
                    Err(e) => failures.push(format!("{label}: JSON-RPC error {e}")),
                }
                let received = session.replay().received();
                if !received.iter().any(|r| r.line() == request.line()) {
                    failures.push(format!("{label}: the faulty request was never made"));
                }
                for miss in session.replay().misses() {
                    failures.push(format!("{label}: went on after the fault: {miss}"));
                }
                exercised.entry(&fault.name).or_default().insert(probe.kind);
                session.close().await;
            }
        }
    }
    // Every fault reached every kind of probe (list-only faults: at least one list read).
    let kinds: BTreeSet<ProbeKind> = probes.iter().map(|(p, _)| p.kind).collect();
    for fault in &faults {
        let reached = exercised
            .get(fault.name.as_str())
            .cloned()
            .unwrap_or_default();
        if fault.list_only {
            if reached.is_empty() {
                failures.push(format!("{}: no probe reads a list", fault.name));
            }
        } else if reached != kinds {
            failures.push(format!(
                "{}: reached {reached:?}, not {kinds:?}",
                fault.name
            ));
        }
    }
    eprintln!(
        "faults: {cases} injected calls over {} probes",
        probes.len()
    );
    assert!(
        failures.is_empty(),
        "{} fault case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    Ok(())
}

#[test]
fn fault_cassettes_are_in_the_writers_canonical_form() -> anyhow::Result<()> {
    let library = crate::util::library();
    for cassette in library.cassettes().filter(|c| {
        c.name().starts_with("faults/")
            || c.name().starts_with("drift/")
            || c.name() == "content/spaces-manage"
    }) {
        let on_disk = std::fs::read_to_string(modyo_replay::cassette::path_of(
            library.root(),
            cassette.name(),
        ))?;
        assert_eq!(
            on_disk,
            cassette.to_json()?,
            "{} is not in canonical form",
            cassette.name()
        );
    }
    Ok(())
}
