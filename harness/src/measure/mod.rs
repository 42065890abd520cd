//! `modyo-lab measure`: price the response contract per module, before and after, from real
//! probes (contract M1-M5).
//!
//! For each module that has cassette scenarios (the module is the tool name's prefix before
//! the first `-`), the built server runs as a child process twice: with the module in legacy
//! mode (`MODYO_MCP_LEGACY_MODULES=<module>`, "before") and migrated ("after"), same build
//! (C21), only that module registered. Scenarios with an `env` run in a process of their own
//! with that environment added. Between scenarios the replay server is reset and the
//! scenario's cassette set mounted, so the HTTP requests it received are counted per call.
//!
//! A scenario whose arguments use a parameter the legacy tool does not have (`fields`) has no
//! "before": that call was not possible; the projection section prices what it replaces.
//!
//! A probe failure (an outcome that differs from the cassette's `expect`, a contract problem,
//! a replay miss, a leak of the token or of the replay address, a JSON-RPC error) is collected
//! in [`Measurement::failures`]; a crash or a stale server binary aborts the run.
//!
//! The report itself (catalogue as context and as wire, per tool, profiles, break-even) is built
//! by `compare`, which [`foreign`] shares for any two stdio servers; `--check` holds a
//! measurement to the committed limits ([`crate::report::budget`]).

#[cfg(test)]
mod budget_tests;
pub mod catalogue;
mod command;
mod compare;
pub mod foreign;
mod projection;

pub use command::{MeasureArgs, command};

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use modyo_mcp::{Module, ModyoServer};
use serde_json::{Map, Value};

use crate::check::{self, Kind};
use crate::probe::{Probe, ProbeError, Response};
use crate::report::{Compared, Deltas, EnvelopeCost, Measured, ModuleReport, ScenarioReport, Side};
use crate::serve::{OFFLINE_PLATFORM_NAME, ServeError, offline_config};
use crate::session::{CANARY_TOKEN, Library};
use crate::tokens::{Count, Delta, round1};
use modyo_replay::cassette::{CassetteError, Outcome, Scenario};
use modyo_replay::replay::{ReplayError, ReplayOptions, ReplayServer};

use catalogue::{chars, compact, members};

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    /// The cassettes directory.
    pub cassettes: PathBuf,
    /// The server binary.
    pub server: PathBuf,
    /// Only this module.
    pub module: Option<String>,
    /// Only scenarios whose `cassette#scenario` contains this (and the projection only if it
    /// contains `projection`).
    pub scenario: Option<String>,
    /// Fail when the binary's `tools/list` differs from the server this lab links (a stale
    /// build); otherwise only warn.
    pub strict_binary: bool,
    /// Measure the migrated side only (what a budget check needs): no "before", no projection.
    pub after_only: bool,
    /// Hold every answer to this lab's contract checks ([`check::problems`]) as well as to
    /// its scenario's expected outcome. `modyo-lab diff` turns it off for the base build: an
    /// older revision answered under the contract of its day (the C16 error order changed
    /// once), and the verdict prices what it answered; the head is still held to the checks.
    pub contract: bool,
}

/// Why a run could not complete.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MeasureError {
    /// The cassettes did not load.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// The cassettes did not mount.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The server child failed.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The in-process reference server could not be built.
    #[error(transparent)]
    Serve(#[from] ServeError),
    /// `--module` named no module.
    #[error("unknown module '{0}'; valid: core, content, channels, customers, widgets")]
    UnknownModule(String),
    /// The binary is not the build this lab links.
    #[error(
        "{0}: its tools/list differs from the server modyo-lab was built with; rebuild it (cargo build -p modyo-mcp, or make measure)"
    )]
    StaleBinary(String),
    /// A result did not have the shape of an MCP result.
    #[error("{0}")]
    Shape(String),
    /// `--module` or `--scenario` selected nothing.
    #[error(
        "no scenario matches --module/--scenario (scenario filters match `cassette#scenario`; `projection` selects the projection)"
    )]
    NothingToMeasure,
    /// Some probes failed (listed on stderr); no report was written.
    #[error("{0} probe failure(s); no report written")]
    Failed(usize),
    /// The reports could not be written.
    #[error("writing reports: {0}")]
    Io(#[from] std::io::Error),
    /// The budget could not be read or written.
    #[error(transparent)]
    Budget(#[from] crate::report::budget::BudgetError),
    /// The measurement broke the budget (each finding listed on stderr).
    #[error("{0} budget finding(s): the measurement does not keep to the budget")]
    OverBudget(usize),
    /// The command line asks for something that cannot be done.
    #[error("{0}")]
    Usage(String),
    /// A calls file is unreadable or malformed.
    #[error(transparent)]
    Calls(#[from] crate::lint::LintError),
}

/// The outcome of a run.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// One report per module with scenarios, sorted by module name.
    pub reports: Vec<ModuleReport>,
    /// Every probe failure; a run with any is a failed run.
    pub failures: Vec<String>,
    /// Wall time per phase (not part of any report).
    pub phases: Vec<(String, Duration)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Before,
    After,
}

impl Mode {
    fn label(self) -> &'static str {
        match self {
            Mode::Before => "before (legacy)",
            Mode::After => "after (migrated)",
        }
    }
}

/// One scenario to run.
#[derive(Debug, Clone)]
struct Planned {
    cassette: String,
    scenario: Scenario,
}

impl Planned {
    fn id(&self) -> String {
        format!("{}#{}", self.cassette, self.scenario.name)
    }
    fn env(&self) -> Vec<(String, String)> {
        self.scenario
            .env
            .iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect()
    }
}

/// Runs the measurement. `progress` receives one line per phase (for stderr).
pub async fn run(
    options: &Options,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<Measurement, MeasureError> {
    let only = match &options.module {
        Some(name) => {
            Some(Module::parse(name).ok_or_else(|| MeasureError::UnknownModule(name.clone()))?)
        }
        None => None,
    };
    let library = Library::load(&options.cassettes)?;
    let mut failures = Vec::new();
    let mut plan: BTreeMap<&'static str, (Module, Vec<Planned>)> = BTreeMap::new();
    for (cassette, scenario) in library.scenarios() {
        // A rollout report prices a module's own scenarios, the cassettes under
        // `cassettes/<module>/`. The guard's cross-cutting cassettes (`faults/`, `drift/`) inject
        // failures the legacy server never detected (type drift passed through it), so they
        // belong to the guard's tests, not to a before/after price.
        if cassette
            .name()
            .split('/')
            .next()
            .and_then(Module::parse)
            .is_none()
        {
            continue;
        }
        let planned = Planned {
            cassette: cassette.name().to_owned(),
            scenario: scenario.clone(),
        };
        let Some(module) = crate::session::module_of(&scenario.tool) else {
            failures.push(format!(
                "{}: tool {} belongs to no module",
                planned.id(),
                scenario.tool
            ));
            continue;
        };
        if only.is_some_and(|m| m != module) {
            continue;
        }
        if let Some(filter) = &options.scenario
            && !planned.id().contains(filter.as_str())
        {
            continue;
        }
        plan.entry(module.as_str())
            .or_insert_with(|| (module, Vec::new()))
            .1
            .push(planned);
    }
    let with_projection = !options.after_only
        && options
            .scenario
            .as_deref()
            .is_none_or(|f| f.contains("projection"))
        && only.is_none_or(|m| m == Module::Content)
        && projection::available(&library);
    if with_projection {
        plan.entry(Module::Content.as_str())
            .or_insert_with(|| (Module::Content, Vec::new()));
    }
    if plan.is_empty() && (options.scenario.is_some() || only.is_some()) {
        return Err(MeasureError::NothingToMeasure);
    }
    let replay = ReplayServer::start(ReplayOptions::default().allow_repeats(true)).await;
    let mut reports = Vec::new();
    let mut phases = Vec::new();
    for (_, (module, planned)) in plan {
        let mut lab = Lab {
            options,
            library: &library,
            replay: &replay,
            failures: &mut failures,
            phases: &mut phases,
            progress: &mut *progress,
        };
        let projection = with_projection && module == Module::Content;
        reports.push(lab.module(module, &planned, projection).await?);
    }
    Ok(Measurement {
        reports,
        failures,
        phases,
    })
}

struct Lab<'a> {
    options: &'a Options,
    library: &'a Library,
    replay: &'a ReplayServer,
    failures: &'a mut Vec<String>,
    phases: &'a mut Vec<(String, Duration)>,
    progress: &'a mut (dyn FnMut(&str) + Send),
}

/// One call's response with what the replay server saw during it.
struct Probed {
    response: Response,
    http_requests: usize,
}

impl Lab<'_> {
    fn env(&self, module: Module, mode: Mode, extra: &[(String, String)]) -> Vec<(String, String)> {
        let mut env = vec![
            ("MODYO_URL".to_owned(), self.replay.uri()),
            ("MODYO_TOKEN".to_owned(), CANARY_TOKEN.to_owned()),
            (
                "MODYO_PLATFORM_NAME".to_owned(),
                OFFLINE_PLATFORM_NAME.to_owned(),
            ),
            ("MODYO_MCP_MODULES".to_owned(), module.as_str().to_owned()),
        ];
        if mode == Mode::Before {
            env.push((
                "MODYO_MCP_LEGACY_MODULES".to_owned(),
                module.as_str().to_owned(),
            ));
        }
        for (k, v) in extra {
            env.retain(|(key, _)| key != k);
            env.push((k.clone(), v.clone()));
        }
        env
    }

    /// Fails (or warns) when the child's tools differ from the linked server's for `env`.
    fn check_binary(
        &mut self,
        env: &[(String, String)],
        tools: &[Value],
    ) -> Result<(), MeasureError> {
        let config = offline_config(&self.replay.uri(), env, CANARY_TOKEN)?;
        let reference = ModyoServer::new(config).map_err(ServeError::from)?;
        let expected: Vec<Value> = reference
            .tools()
            .iter()
            .map(|t| serde_json::to_value(t).unwrap_or(Value::Null))
            .collect();
        if expected == tools {
            return Ok(());
        }
        let what = self.options.server.display().to_string();
        if self.options.strict_binary {
            return Err(MeasureError::StaleBinary(what));
        }
        (self.progress)(&format!(
            "warning: {what} lists other tools than the server modyo-lab links; measuring it anyway"
        ));
        Ok(())
    }

    /// Resets the replay server, mounts `cassette`'s set and calls `tool`.
    async fn call(
        &mut self,
        probe: &mut Probe,
        label: &str,
        mount: Option<&str>,
        tool: &str,
        arguments: &Value,
    ) -> Result<Probed, MeasureError> {
        if let Some(cassette) = mount {
            self.replay.reset().await;
            self.replay
                .mount(&self.library.mount_set(cassette)?)
                .await?;
        }
        let before = self.replay.received_count();
        let misses_before = self.replay.miss_count();
        let response = probe.call(tool, arguments).await?;
        let http_requests = self.replay.received_count() - before;
        for miss in &self.replay.misses_since(misses_before) {
            self.failures.push(format!("{label}: replay miss: {miss}"));
        }
        if response.line.contains(CANARY_TOKEN) {
            self.failures
                .push(format!("{label}: the token appears in the response"));
        }
        let address = self.replay.address().to_string();
        if response.line.contains(&address) {
            self.failures.push(format!(
                "{label}: the response contains the replay address {address} (a leak, and its size would depend on the port)"
            ));
        }
        if let Err((code, message)) = &response.result {
            self.failures
                .push(format!("{label}: JSON-RPC error {code}: {message}"));
        }
        Ok(Probed {
            response,
            http_requests,
        })
    }

    async fn module(
        &mut self,
        module: Module,
        planned: &[Planned],
        with_projection: bool,
    ) -> Result<ModuleReport, MeasureError> {
        // Processes: one per (mode, env); the default env always runs (the catalogue).
        let mut groups: BTreeMap<Vec<(String, String)>, Vec<usize>> = BTreeMap::new();
        groups.entry(Vec::new()).or_default();
        for (i, p) in planned.iter().enumerate() {
            let mut env = p.env();
            env.sort();
            groups.entry(env).or_default().push(i);
        }
        let mut sides: [Vec<Option<Side>>; 2] =
            [vec![None; planned.len()], vec![None; planned.len()]];
        let mut catalogues: [Vec<Value>; 2] = [Vec::new(), Vec::new()];
        let mut extras: [catalogue::Extras; 2] = Default::default();
        let mut before_projection = None;
        let mut after_projection = None;
        let modes: &[Mode] = if self.options.after_only {
            &[Mode::After]
        } else {
            &[Mode::Before, Mode::After]
        };
        for &mode in modes {
            let started = Instant::now();
            let slot = usize::from(mode == Mode::After);
            for (extra, indices) in &groups {
                let env = self.env(module, mode, extra);
                let mut probe = Probe::start(&self.options.server, &env).await?;
                let (tools, _) = probe.tools_list().await?;
                if extra.is_empty() {
                    self.check_binary(&env, &tools)?;
                    catalogues[slot] = tools.clone();
                    extras[slot] = catalogue::Extras::read(&mut probe).await;
                }
                (self.progress)(&format!(
                    "{module} {}: {} scenario(s){}",
                    mode.label(),
                    indices.len(),
                    if extra.is_empty() {
                        String::new()
                    } else {
                        format!(" with {extra:?}")
                    }
                ));
                for &i in indices {
                    sides[slot][i] =
                        Some(self.scenario(&mut probe, &planned[i], mode, &tools).await?);
                }
                if extra.is_empty() && with_projection {
                    (self.progress)(&format!("{module} {}: projection", mode.label()));
                    match mode {
                        Mode::Before => {
                            before_projection = Some(projection::before(self, &mut probe).await?)
                        }
                        Mode::After => {
                            after_projection = Some(projection::after(self, &mut probe).await?)
                        }
                    }
                }
                probe.close().await;
            }
            self.phases
                .push((format!("{module} {}", mode.label()), started.elapsed()));
        }
        let [before_sides, after_sides] = sides;
        let scenarios: Vec<ScenarioReport> = planned
            .iter()
            .zip(before_sides.into_iter().zip(after_sides))
            .map(|(p, (before, after))| {
                let skipped = || Side::Skipped {
                    skipped: if self.options.after_only {
                        "not measured: only the migrated side was measured".into()
                    } else {
                        "not run".into()
                    },
                };
                scenario_report(
                    p,
                    before.unwrap_or_else(skipped),
                    after.unwrap_or_else(skipped),
                )
            })
            .collect();
        let projection = match (before_projection, after_projection) {
            (Some(b), Some(a)) => Some(projection::report(b, a)),
            _ => None,
        };
        let [before_tools, after_tools] = catalogues;
        let [before_extras, after_extras] = extras;
        Ok(compare::report(compare::Input {
            module: module.as_str().to_owned(),
            compared: Compared {
                before: format!(
                    "the module in legacy mode (MODYO_MCP_LEGACY_MODULES={module}), only this module registered"
                ),
                after: "the module migrated, the same build (C21), only this module registered"
                    .into(),
                sizes: "exact: every response line is the compact serialization of its own parse, so every size is of bytes the server sent".into(),
            },
            before_tools: &before_tools,
            after_tools: &after_tools,
            scenarios,
            envelope: true,
            projection,
            before_extras,
            after_extras,
        }))
    }

    async fn scenario(
        &mut self,
        probe: &mut Probe,
        planned: &Planned,
        mode: Mode,
        tools: &[Value],
    ) -> Result<Side, MeasureError> {
        let scenario = &planned.scenario;
        let label = format!("{} {}", planned.id(), mode.label());
        let Some(tool) = tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(scenario.tool.as_str()))
        else {
            self.failures
                .push(format!("{label}: tool {} is not listed", scenario.tool));
            return Ok(Side::Skipped {
                skipped: format!("{} is not listed", scenario.tool),
            });
        };
        if mode == Mode::Before {
            let new = crate::check::undeclared(Some(tool), &scenario.arguments);
            if !new.is_empty() {
                return Ok(Side::Skipped {
                    skipped: format!(
                        "the legacy tool has no parameter {}: the call was not possible before",
                        new.join(", ")
                    ),
                });
            }
        }
        let probed = self
            .call(
                probe,
                &label,
                Some(&planned.cassette),
                &scenario.tool,
                &scenario.arguments,
            )
            .await?;
        let Ok(result) = &probed.response.result else {
            return Ok(Side::Skipped {
                skipped: "JSON-RPC error".into(),
            });
        };
        let (problems, measured) = judge(
            tool,
            result,
            scenario,
            mode,
            probed.http_requests,
            self.options.contract,
        )?;
        self.failures
            .extend(problems.into_iter().map(|p| format!("{label}: {p}")));
        Ok(Side::Measured(Box::new(measured)))
    }
}

/// The sum of every text block of a result.
fn text_count(result: &Value) -> Count {
    texts(result).into_iter().map(Count::of).sum()
}

fn texts(result: &Value) -> Vec<&str> {
    result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect()
}

/// Checks a result against the scenario's expectation and the contract, and measures it.
fn judge(
    tool: &Value,
    result: &Value,
    scenario: &Scenario,
    mode: Mode,
    http_requests: usize,
    contract: bool,
) -> Result<(Vec<String>, Measured), MeasureError> {
    let shape = |what: &str, e: serde_json::Error| MeasureError::Shape(format!("{what}: {e}"));
    let typed_tool: rmcp::model::Tool =
        serde_json::from_value(tool.clone()).map_err(|e| shape("tools/list entry", e))?;
    let typed: rmcp::model::CallToolResult =
        serde_json::from_value(result.clone()).map_err(|e| shape("tools/call result", e))?;
    let mut problems = if contract {
        check::problems(&typed_tool, &typed)
    } else {
        Vec::new()
    };
    let kind = check::kind(&typed);
    let expected = scenario.expect.outcome;
    let want = match expected {
        Outcome::Success => Kind::Success,
        Outcome::Error => Kind::Error,
        Outcome::Control => Kind::Control,
    };
    match mode {
        Mode::After => {
            if kind != want {
                problems.push(format!(
                    "expected {want:?}, got {kind:?}: {}",
                    check::text(&typed)
                        .unwrap_or("")
                        .chars()
                        .take(300)
                        .collect::<String>()
                ));
            }
        }
        Mode::Before => {
            // Legacy results have no control (a refusal was a plain success text) and no codes.
            let is_error = typed.is_error == Some(true);
            if is_error != (expected == Outcome::Error) {
                problems.push(format!(
                    "expected {expected:?}, the legacy result has isError={is_error}: {}",
                    check::text(&typed)
                        .unwrap_or("")
                        .chars()
                        .take(300)
                        .collect::<String>()
                ));
            }
        }
    }
    let code = match kind {
        Kind::Error => check::error(&typed)
            .and_then(|e| e.get("code").and_then(Value::as_str).map(str::to_owned)),
        Kind::Control => typed
            .structured_content
            .as_ref()
            .and_then(|s| s.pointer("/control/outcome"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        Kind::Success => None,
    };
    if mode == Mode::After
        && kind == want
        && let Some(want) = &scenario.expect.code
        && code.as_deref() != Some(want.as_str())
    {
        problems.push(format!("expected code {want}, got {code:?}"));
    }
    let text = text_count(result);
    let structured_value = result.get("structuredContent");
    let structured = structured_value.map(|s| Count::of(&compact(s)));
    let payload = match structured_value {
        Some(s) => Some(s.clone()),
        None if mode == Mode::After && kind == Kind::Error => texts(result)
            .first()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .filter(Value::is_object),
        None => None,
    };
    let outcome = match (mode, kind) {
        (_, Kind::Error) => "error",
        (Mode::After, Kind::Control) => "control",
        _ => "success",
    };
    Ok((
        problems,
        Measured {
            outcome: outcome.into(),
            code: if mode == Mode::After { code } else { None },
            http_requests: Some(http_requests),
            text: text.tokens_all(),
            structured: structured.map(|c| c.tokens_all()),
            both: (text + structured.unwrap_or_default()).tokens_all(),
            envelope: payload
                .as_ref()
                .and_then(Value::as_object)
                .map(envelope_cost),
        },
    ))
}

/// What each part of an envelope costs, in characters.
pub fn envelope_cost(payload: &Map<String, Value>) -> EnvelopeCost {
    let mut cost = EnvelopeCost {
        framing: 2,
        ..EnvelopeCost::default()
    };
    let mut total = 2;
    for (key, value, chars_of) in members(payload) {
        let c = chars_of as u64;
        total += c;
        match key {
            "platform" => cost.platform += c,
            "resource" => cost.resource += c,
            "state" => cost.state += c,
            "control" => cost.control += c,
            "data" | "error" => {
                let v = chars(value) as u64;
                cost.payload += v;
                cost.framing += c - v;
            }
            _ => cost.framing += c,
        }
    }
    cost.overhead = total - cost.payload;
    cost.overhead_tokens = round1(cost.overhead as f64 / crate::tokens::CHARS_PER_TOKEN);
    cost
}

fn expect_label(scenario: &Scenario) -> String {
    let outcome = match scenario.expect.outcome {
        Outcome::Success => "success",
        Outcome::Error => "error",
        Outcome::Control => "control",
    };
    match &scenario.expect.code {
        Some(code) => format!("{outcome}:{code}"),
        None => outcome.to_owned(),
    }
}

/// After minus before for each view of a result, when both sides were measured.
fn deltas(before: &Side, after: &Side) -> Option<Deltas> {
    let (b, a) = (before.measured()?, after.measured()?);
    let s = |m: &Measured| m.structured.map_or(Count::default(), |t| t.count());
    Some(Deltas {
        text: Delta::between(b.text.count(), a.text.count()),
        structured: Delta::between(s(b), s(a)),
        both: Delta::between(b.both.count(), a.both.count()),
    })
}

fn scenario_report(planned: &Planned, before: Side, after: Side) -> ScenarioReport {
    let delta = deltas(&before, &after);
    ScenarioReport {
        id: planned.id(),
        cassette: planned.cassette.clone(),
        scenario: planned.scenario.name.clone(),
        tool: planned.scenario.tool.clone(),
        arguments: planned.scenario.arguments.clone(),
        env: planned.env().into_iter().collect(),
        expect: expect_label(&planned.scenario),
        before,
        after,
        delta,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::BreakEven;
    use serde_json::json;

    #[test]
    fn envelope_parts_sum_to_the_payload() {
        let payload = json!({"platform": {"name": "a", "host": "b"}, "data": [1, 2], "resource": {"type": "space"}, "state": {"returned": 2}});
        let cost = envelope_cost(payload.as_object().unwrap());
        let total = compact(&payload).chars().count() as u64;
        assert_eq!(cost.payload, 5);
        assert_eq!(cost.overhead + cost.payload, total);
        assert_eq!(
            cost.platform + cost.resource + cost.state + cost.control + cost.framing,
            cost.overhead
        );
        assert_eq!(cost.framing, 2 + r#","data":"#.len() as u64);
    }

    #[test]
    fn break_even_is_the_first_call_count_that_pays_back() {
        let c = |chars| Count {
            chars,
            o200k_base: chars,
            cl100k_base: chars,
        };
        // +100 once, -30 per call on average over 3 calls: 4 calls pay back.
        let b = BreakEven::of(c(1000), c(1100), c(300), c(210), 3);
        assert_eq!(b.primary, Some(4));
        assert_eq!(
            BreakEven::of(c(1000), c(900), c(2), c(2), 1).primary,
            Some(0)
        );
        // A smaller catalogue does not pay back calls that cost more: cheaper only at first.
        assert_eq!(BreakEven::of(c(1000), c(900), c(1), c(2), 1).primary, None);
        assert_eq!(
            BreakEven::of(c(1000), c(1100), c(10), c(10), 1).primary,
            None
        );
    }

    #[test]
    fn billed_break_even_is_the_first_session_whose_summed_requests_cost_less() {
        use crate::report::billed_input;
        let c = |chars| Count {
            chars,
            o200k_base: chars,
            cl100k_base: chars,
        };
        // +100 once, -30 per call: the final context pays back at 4 calls, the bill at 7
        // (each request re-sends the extra catalogue, each saving is paid back only later).
        let b = BreakEven::billed(c(1000), c(1100), c(300), c(210), 3);
        assert_eq!(b.primary, Some(7));
        // Held against the bills themselves, for many sessions: from n on, after bills no more.
        for (cb, ca, sb, sa, calls) in [
            (1000_u64, 1100_u64, 300_u64, 210_u64, 3_usize),
            (10_689, 10_806, 1_572, 851, 1),
            (10_689, 21_818, 1_572, 851, 1),
            (500, 400, 50, 60, 1),
        ] {
            let be = BreakEven::billed(c(cb), c(ca), c(sb), c(sa), calls).primary;
            let per = |s: u64| s as f64 / calls as f64;
            let cheaper =
                |n: u64| billed_input(ca as f64, per(sa), n) <= billed_input(cb as f64, per(sb), n);
            match be {
                Some(n) => {
                    assert!((n..n + 500).all(cheaper), "{cb} {ca} {sb} {sa}: from {n}");
                    assert!(
                        n == 0 || !cheaper(n - 1),
                        "{cb} {ca} {sb} {sa}: {n} is the first"
                    );
                }
                None => assert!(!cheaper(10_000), "{cb} {ca} {sb} {sa}: never"),
            }
        }
        // The bill of a session: 3 requests of catalogue 10, results 5 and 5 + 5.
        assert_eq!(billed_input(10.0, 5.0, 2), 45.0);
    }
}
