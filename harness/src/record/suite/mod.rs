//! `modyo-lab record --suite read-only --out DIR`: a live account turned into real cassettes
//! and a report of where ours are wrong, without any risk to its data.
//!
//! A suite ([`Suite`]; the shipped one is `harness/suites/read-only.json`) discovers what the
//! account has through the list tools and calls every read tool and every read action of the
//! `-manage` tools on a few of the things found. Each step is recorded by [`crate::record::run`]
//! (mode `all`, into `DIR/cassettes/<step>.json`) and replayed offline from the file it wrote.
//!
//! Nothing can write to the account, by three independent layers:
//!
//! 1. the suite is checked against the tools the server lists in read-only mode before
//!    anything runs: a mutation tool or a mutating action is refused ([`Suite::plan`]);
//! 2. every call's server runs with `MODYO_READ_ONLY=true`: mutation tools are not registered
//!    and the gated tools refuse their mutating actions before any request;
//! 3. every request goes through one shared [`Guard`] in the recording proxy: any method but
//!    `GET` is answered `405` locally and never sent.
//!
//! The same guard bounds the run: a request budget (retries count), a polite concurrency (at
//! most that many requests in flight, and that many steps at once), `Retry-After` honoured on
//! `429`/`503`. Everything written goes through the recorder's redaction, with the account
//! host replaced by default (`--keep-host` keeps it).
//!
//! Then [`compare`] holds the live answers to ours (the repository's cassettes) and to the API
//! surface, and [`SuiteReport`] is written as `DIR/report.md` and `DIR/report.json`, with no
//! value of the account in it. The run refuses to write into the repository's `cassettes/` and
//! into a directory that already holds cassettes.

mod compare;
mod plan;
mod report;
mod steps;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::StreamExt;
use rmcp::model::Tool;

pub use compare::{EndpointReport, Ours, SpecFinding, Verdict, clean_json_path, compare};
pub use plan::{FORMAT, Find, NotCalled, Plan, Row, SHIPPED, Step, Suite, SuiteLimits, find_rows};
pub use report::{REPORT_FORMAT, RunLimits, StepReport, SuiteReport, ToolReport, ToolVerdict};

use super::guard::{Guard, Limits};
use super::{Mode, RecordOptions};
use crate::session::Session;
use modyo_replay::cassette::{self, Cassette, CassetteError};
use modyo_spec::{SpecError, Surfaces};
use steps::{Job, Ran, collect_finds, job, run_step, step_reports, tool_reports};

/// The server setting every call of a suite runs with.
pub const READ_ONLY_ENV: (&str, &str) = ("MODYO_READ_ONLY", "true");

/// The most requests a suite may keep in flight at once.
pub const MAX_CONCURRENCY: usize = 8;

/// The options of `modyo-lab record --suite` (flattened beside [`RecordOptions`], whose
/// `--redact-key` and `--record-latency` it honours).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SuiteArgs {
    /// Run a suite instead of given calls: a shipped one by name (`read-only`) or a suite
    /// file. Reads only: the server runs with MODYO_READ_ONLY=true and the proxy refuses any
    /// request but GET.
    #[arg(
        long,
        value_name = "NAME|FILE",
        conflicts_with_all = [
            "scenario", "script", "raw_calls", "diff", "mode", "cassettes", "env", "tags",
            "description", "allow_repeats",
        ]
    )]
    pub suite: Option<String>,
    /// With --suite: where to write, a directory of yours: cassettes under DIR/cassettes
    /// (which must not exist or be empty), the report as DIR/report.md and DIR/report.json.
    #[arg(long, value_name = "DIR", requires = "suite")]
    pub out: Option<PathBuf>,
    /// With --suite: the most requests sent to the account, retries included (default: the
    /// suite's).
    #[arg(long, value_name = "REQUESTS", requires = "suite")]
    pub budget: Option<usize>,
    /// With --suite: requests in flight at once, 1 to 8 (default: the suite's).
    #[arg(long, value_name = "N", requires = "suite")]
    pub concurrency: Option<usize>,
    /// With --suite: how many of each thing found to read (default: the suite's).
    #[arg(long, value_name = "N", requires = "suite")]
    pub items: Option<usize>,
    /// With --suite: keep the account host in what is written (replaced by default).
    #[arg(long, requires = "suite")]
    pub keep_host: bool,
    /// With --suite: our cassettes, to compare with (default: the repository's cassettes/).
    #[arg(long, value_name = "DIR", requires = "suite")]
    pub ours: Option<PathBuf>,
    /// With --suite: the API surface (default: the repository's harness/spec/).
    #[arg(long, value_name = "DIR", requires = "suite")]
    pub spec: Option<PathBuf>,
}

impl SuiteArgs {
    /// Runs suite `suite` into `out`.
    pub fn new(suite: impl Into<String>, out: impl Into<PathBuf>) -> SuiteArgs {
        SuiteArgs {
            suite: Some(suite.into()),
            out: Some(out.into()),
            ..SuiteArgs::default()
        }
    }
}

/// Why a suite could not run (a run that found contradictions is a report, not an error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SuiteError {
    /// The command line is wrong, or a setting is missing.
    #[error("{0}")]
    Usage(String),
    /// The suite file is wrong: every problem.
    #[error("the suite is invalid:\n  - {}", .0.join("\n  - "))]
    Invalid(Vec<String>),
    /// A file or directory could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Our cassettes, or the recorded ones, did not load.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// The API surface did not load.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The in-process read-only server did not start.
    #[error("the read-only server: {0}")]
    Server(String),
}

/// What a suite run left: the report, and where it wrote.
#[derive(Debug, Clone)]
pub struct SuiteOutcome {
    /// The report.
    pub report: SuiteReport,
    /// `DIR/cassettes`.
    pub cassettes: PathBuf,
    /// `DIR/report.md`.
    pub markdown: PathBuf,
    /// `DIR/report.json`.
    pub json: PathBuf,
}

/// The tools the server lists in read-only mode.
pub async fn read_only_tools() -> Result<Vec<Tool>, SuiteError> {
    let env = [(READ_ONLY_ENV.0.to_owned(), READ_ONLY_ENV.1.to_owned())];
    let session = Session::start(&[], &env)
        .await
        .map_err(|e| SuiteError::Server(e.to_string()))?;
    let tools = session.tools().await;
    session.close().await;
    tools.map_err(|e| SuiteError::Server(e.to_string()))
}

/// Refuses a cassettes directory that is, holds or lies inside the repository's `cassettes/`
/// (`ours`), or that already holds files.
pub fn check_output(cassettes: &Path, ours: &Path) -> Result<(), SuiteError> {
    let resolved = resolve_path(cassettes);
    let ours_resolved = resolve_path(ours);
    if resolved.starts_with(&ours_resolved) || ours_resolved.starts_with(&resolved) {
        return Err(SuiteError::Usage(format!(
            "refusing to write into {}: it is (or overlaps) our cassettes, {}; choose a directory of your own with --out",
            cassettes.display(),
            ours.display()
        )));
    }
    match std::fs::read_dir(cassettes) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(SuiteError::Usage(format!(
                    "{} already holds files: choose a new --out, or remove it",
                    cassettes.display()
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(SuiteError::Io {
            path: cassettes.to_owned(),
            source,
        }),
    }
}

/// The absolute path with symbolic links of its existing part resolved.
fn resolve_path(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Runs the suite `args` names against the live account of `record` (see the module docs),
/// writing progress lines to `progress`.
pub async fn run(
    args: &SuiteArgs,
    record: &RecordOptions,
    progress: &mut dyn Write,
) -> Result<SuiteOutcome, SuiteError> {
    let started = tokio::time::Instant::now();
    let name = args
        .suite
        .as_deref()
        .ok_or_else(|| SuiteError::Usage("--suite NAME|FILE is required".into()))?;
    let suite = Suite::load(name)?;
    let live = record.live.clone().ok_or_else(|| {
        SuiteError::Usage("the suite reads the live account: set MODYO_URL and MODYO_TOKEN".into())
    })?;
    let out = args.out.clone().ok_or_else(|| {
        SuiteError::Usage(
            "--out DIR is required: a directory of yours for the cassettes and the report".into(),
        )
    })?;
    let ours_dir = args.ours.clone().unwrap_or_else(cassette::default_dir);
    let spec_dir = args.spec.clone().unwrap_or_else(modyo_spec::default_dir);
    let cassettes_dir = out.join("cassettes");
    check_output(&cassettes_dir, &ours_dir)?;
    let limits = run_limits(&suite.limits, args)?;

    // Everything that can fail offline fails before the account is touched.
    let ours_cassettes = Cassette::load_all(&ours_dir)?;
    // The surface corrected as `cassettes check` corrects it (an erratum that does not match
    // another surface, such as an account's own, is left out).
    let surfaces = Surfaces::load_with_errata(&spec_dir, modyo_spec::errata::ERRATA)?;
    let ours = Ours::new(&ours_cassettes, surfaces);
    drop(ours_cassettes);
    let tools = read_only_tools().await?;
    let plan = suite.plan(&tools)?;
    let guard = Guard::new(Limits {
        read_only: true,
        budget: Some(limits.requests),
        concurrency: limits.concurrency,
        retries: limits.retries,
        max_wait: Duration::from_secs(limits.max_wait_s),
        ..Limits::read_only()
    });
    let mut base = RecordOptions::new(&cassettes_dir, "", Vec::new())
        .mode(Mode::All)
        .live(live);
    base.env = vec![(READ_ONLY_ENV.0.to_owned(), READ_ONLY_ENV.1.to_owned())];
    base.redact_keys.clone_from(&record.redact_keys);
    base.redact_host = !args.keep_host;
    base.record_latency = record.record_latency;
    base.date.clone_from(&record.date);
    base.guard = Some(guard.clone());
    let redactor = base.redactor();

    let rounds = plan.depth() + 1;
    line(
        progress,
        &format!(
            "suite {}: {} steps in {rounds} rounds, read-only; at most {} requests, {} at a time; host {}; writing {}",
            suite.name,
            suite.steps.len(),
            limits.requests,
            limits.concurrency,
            if args.keep_host { "kept" } else { "redacted" },
            cassettes_dir.display()
        ),
    );
    let mut found: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    let mut ran: Vec<Ran> = Vec::new();
    for round in 0..rounds {
        let jobs: Vec<Job> = plan
            .at_level(round)
            .into_iter()
            .map(|index| job(&suite, &plan, index, &found))
            .collect();
        let calls: usize = jobs.iter().map(|j| j.calls.len()).sum();
        let mut results: Vec<Ran> = futures::stream::iter(jobs)
            .map(|job| run_step(&suite, &base, &guard, job))
            .buffer_unordered(limits.concurrency)
            .collect()
            .await;
        results.sort_by_key(|r| r.index);
        for result in &mut results {
            if let Some(note) = result
                .note
                .as_deref()
                .filter(|n| n.starts_with(report::FAILED))
            {
                line(
                    progress,
                    &format!(
                        "  {}: {}",
                        suite.steps[result.index].name,
                        redactor.text(note)
                    ),
                );
            }
            result.found = collect_finds(&suite, &limits, result, &mut found);
        }
        ran.extend(results);
        line(
            progress,
            &format!(
                "round {}/{rounds}: {} steps, {calls} calls; {} requests sent so far",
                round + 1,
                plan.at_level(round).len(),
                guard.stats().sent
            ),
        );
    }

    // The written cassettes are what the account answered (redacted).
    let mut live_interactions = Vec::new();
    for r in &ran {
        let step = &suite.steps[r.index];
        if r.report.as_ref().is_some_and(|report| report.written) {
            let cassette = Cassette::load(&cassettes_dir, &step.name)?;
            live_interactions.extend(
                cassette
                    .interactions
                    .into_iter()
                    .map(|i| (step.tool.clone(), i)),
            );
        }
    }
    let endpoints = compare(&ours, &live_interactions);
    let mut report = SuiteReport {
        format: REPORT_FORMAT,
        suite: suite.name.clone(),
        harness: env!("CARGO_PKG_VERSION"),
        date: record.date.clone().unwrap_or_else(super::today),
        host_redacted: !args.keep_host,
        limits,
        requests: guard.stats(),
        duration_s: (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        steps: step_reports(&suite, &plan, &ran),
        endpoints,
        tools: tool_reports(&suite, &tools, &ran),
        contradicted_endpoints: 0,
        contradicted_tools: 0,
        failed_steps: 0,
        ok: false,
    };
    report.finish();
    let markdown = out.join("report.md");
    let json = out.join("report.json");
    for (path, text) in [(&markdown, report.to_markdown()), (&json, report.to_json())] {
        // Built from templates, keys, types and counts; the redactor is a last guard.
        std::fs::write(path, redactor.text(&text)).map_err(|source| SuiteError::Io {
            path: path.clone(),
            source,
        })?;
    }
    let written = ran
        .iter()
        .filter(|r| r.report.as_ref().is_some_and(|report| report.written))
        .count();
    let stats = guard.stats();
    line(
        progress,
        &format!(
            "wrote {written} cassettes in {:.0} s: {} requests, {} retried, {} refused; report {}: {}",
            report.duration_s,
            stats.sent,
            stats.retries,
            stats.refused_methods + stats.refused_budget,
            markdown.display(),
            report.verdict()
        ),
    );
    Ok(SuiteOutcome {
        report,
        cassettes: cassettes_dir,
        markdown,
        json,
    })
}

fn line(progress: &mut dyn Write, text: &str) {
    let _ = writeln!(progress, "modyo-lab: {text}");
}

/// The suite's limits with the command line's over them.
fn run_limits(suite: &SuiteLimits, args: &SuiteArgs) -> Result<RunLimits, SuiteError> {
    let limits = RunLimits {
        requests: args.budget.unwrap_or(suite.requests),
        concurrency: args.concurrency.unwrap_or(suite.concurrency),
        items: args.items.unwrap_or(suite.items),
        retries: suite.retries,
        max_wait_s: suite.max_wait_s,
    };
    if limits.requests == 0 || limits.items == 0 {
        return Err(SuiteError::Usage(
            "the request budget and the items per find are at least 1".into(),
        ));
    }
    if !(1..=MAX_CONCURRENCY).contains(&limits.concurrency) {
        return Err(SuiteError::Usage(format!(
            "the concurrency is 1 to {MAX_CONCURRENCY} (asked: {})",
            limits.concurrency
        )));
    }
    Ok(limits)
}
