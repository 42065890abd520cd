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
mod judge;
mod projection;

pub use command::{MeasureArgs, command};

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use modyo_mcp::{Module, ModyoServer};
use serde_json::Value;

use crate::probe::{Probe, ProbeError, Response};
use crate::report::{Compared, ModuleReport, ScenarioReport, Side};
use crate::serve::{OFFLINE_PLATFORM_NAME, ServeError, offline_config};
use crate::session::{CANARY_TOKEN, Library};
use modyo_replay::cassette::{CassetteError, Scenario};
use modyo_replay::replay::{ReplayError, ReplayOptions, ReplayServer};

use catalogue::compact;
pub use judge::envelope_cost;
use judge::{deltas, judge, scenario_report, text_count, texts};

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
    /// Hold every answer to this lab's contract checks ([`crate::check::problems`]) as well as to
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

#[cfg(test)]
mod tests;
