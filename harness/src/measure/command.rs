//! `modyo-lab measure` as a command: our modules or two stdio servers, then the reports, the
//! budget check (`--check`), a starting budget (`--write-budget`) or a tighter one
//! (`--write-budget --lower-only`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::foreign::{self, ForeignOptions, Server};
use super::{MeasureError, Options, run};
use crate::lint::{PlannedCall, ServerCommand};
use crate::report::budget::{self, Budget};
use crate::report::{self, ModuleReport, Summary};

/// The arguments of `modyo-lab measure`.
#[derive(Debug, Clone, clap::Args)]
pub struct MeasureArgs {
    /// Only this module (content, core, channels, customers, widgets).
    #[arg(long)]
    pub module: Option<String>,
    /// Only scenarios whose `cassette#scenario` contains this; the reports then go to stdout
    /// unless --reports is given.
    #[arg(long)]
    pub scenario: Option<String>,
    /// Where to write the reports (default: the workspace's reports/; for --before/--after,
    /// stdout).
    #[arg(long)]
    pub reports: Option<PathBuf>,
    /// The server binary (default: modyo-mcp next to this executable).
    #[arg(long)]
    pub server: Option<PathBuf>,
    /// The cassettes directory.
    #[arg(long, default_value_os_t = modyo_replay::cassette::default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::cassettes_help("The cassettes directory."))]
    pub cassettes: PathBuf,
    /// Hold the figures to the budget instead of writing reports: exit 1 naming every tool and
    /// figure over its limit. Measures the "after" side only.
    #[arg(long, conflicts_with_all = ["write_budget", "scenario"])]
    pub check: bool,
    /// Write the budget from the figures measured (each plus --headroom percent, rounded up)
    /// instead of reports; with --module, only that module's limits are replaced. Measures the
    /// "after" side only.
    #[arg(long, conflicts_with = "scenario")]
    pub write_budget: bool,
    /// With --write-budget: only tighten the budget file. A limit becomes its figure plus
    /// --headroom (rounded up) where that is lower; no limit is raised, none is added, the
    /// modules not measured keep theirs.
    #[arg(long, requires = "write_budget")]
    pub lower_only: bool,
    /// The headroom --write-budget adds to every figure, in percent.
    #[arg(long, default_value_t = 10.0, requires = "write_budget")]
    pub headroom: f64,
    /// The budget file (default: budget.json at the workspace root; for --after, required by
    /// --check and --write-budget).
    #[arg(long)]
    pub budget: Option<PathBuf>,
    /// Measure another MCP server: the "before" command line, one argument split like a shell
    /// would (`--before "python3 -m server_v1"`).
    #[arg(
        long,
        value_name = "CMD",
        allow_hyphen_values = true,
        requires = "after"
    )]
    pub before: Option<String>,
    /// The "after" command line of another MCP server (alone: only with --check or
    /// --write-budget).
    #[arg(long, value_name = "CMD", allow_hyphen_values = true, conflicts_with_all = ["module", "scenario", "server"])]
    pub after: Option<String>,
    /// The "before" server over streamable HTTP (`http://127.0.0.1:8808/mcp`), instead of
    /// --before.
    #[arg(long, value_name = "URL", conflicts_with = "before")]
    pub before_url: Option<String>,
    /// The "after" server over streamable HTTP, instead of --after.
    #[arg(long, value_name = "URL", conflicts_with_all = ["after", "module", "scenario", "server"])]
    pub after_url: Option<String>,
    /// An `mcp.json`-style file (`{"mcpServers": {NAME: {command, args, env} | {type: "http",
    /// url}}}`) whose entries --before-entry and --after-entry name.
    #[arg(long, value_name = "FILE")]
    pub mcp_config: Option<PathBuf>,
    /// The "before" server: this entry of --mcp-config.
    #[arg(long, value_name = "NAME", requires = "mcp_config", conflicts_with_all = ["before", "before_url"])]
    pub before_entry: Option<String>,
    /// The "after" server: this entry of --mcp-config.
    #[arg(long, value_name = "NAME", requires = "mcp_config", conflicts_with_all = ["after", "after_url", "module", "scenario", "server"])]
    pub after_entry: Option<String>,
    /// Seconds one request to a --before/--after server may take before the run fails.
    #[arg(long, value_name = "SECS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// The counter the tables and charts of a --before/--after report read (every figure
    /// carries all three) [default: o200k_base; our modules: chars/2.902].
    #[arg(long, value_enum)]
    pub counter: Option<crate::tokens::Counter>,
    /// The calls to make on each side of --before/--after: a JSON array of
    /// `{"name"?, "tool", "arguments"?}`.
    #[arg(long, requires = "after")]
    pub calls: Option<PathBuf>,
    /// The report's name for --before/--after (its files are `<name>.md`, `<name>.json`...).
    #[arg(long, default_value = "server")]
    pub name: String,
}

/// A command line split like a POSIX shell would (quotes and backslashes; no expansion).
fn split_command(flag: &str, line: &str) -> Result<ServerCommand, MeasureError> {
    let words = shlex::split(line)
        .ok_or_else(|| MeasureError::Usage(format!("{flag}: unbalanced quotes in {line:?}")))?;
    ServerCommand::new(words.into_iter().map(Into::into).collect())
        .ok_or_else(|| MeasureError::Usage(format!("{flag}: an empty command")))
}

/// `modyo-lab measure`: runs the probes, prints progress, failures and the wall time on
/// stderr, then writes the reports (and `last-run.md`), checks the budget or writes one.
/// Nothing is written when a probe failed.
pub async fn command(args: MeasureArgs) -> Result<(), MeasureError> {
    if args.after.is_some() || args.after_url.is_some() || args.after_entry.is_some() {
        return servers(&args).await;
    }
    let server = crate::probe::locate_server(args.server.as_deref())?;
    let options = Options {
        cassettes: args.cassettes.clone(),
        server,
        module: args.module.clone(),
        scenario: args.scenario.clone(),
        strict_binary: args.server.is_none(),
        after_only: args.check || args.write_budget,
        contract: true,
    };
    let started = Instant::now();
    let mut measurement = run(&options, &mut |line: &str| eprintln!("measure: {line}")).await?;
    let elapsed = started.elapsed();
    eprintln!(
        "measure: {} module(s) measured in {:.2} s",
        measurement.reports.len(),
        elapsed.as_secs_f64()
    );
    failed(&measurement.failures)?;
    let budget_path = args.budget.clone().unwrap_or_else(budget::default_path);
    let full = args.module.is_none() && args.scenario.is_none();
    if args.check {
        return check(&measurement.reports, &budget_path, full);
    }
    if args.write_budget {
        let how = BudgetWrite::of(&args, !full);
        return write_budget(&measurement.reports, &budget_path, args.headroom, how);
    }
    let budget = existing_budget(&budget_path)?;
    let measured: Vec<String> = measurement
        .reports
        .iter()
        .map(|r| r.module.clone())
        .collect();
    let dir = args.reports.clone().unwrap_or_else(report::default_dir);
    // The profiles measured by running clients (`modyo-lab clients`) join the assumed ones.
    for report in &mut measurement.reports {
        let measured = crate::clients::measured_profiles(&dir, &report.module);
        report.add_profiles(measured);
    }
    let mut all: Vec<Summary> = measurement
        .reports
        .iter()
        .map(|r| r.summary.clone())
        .collect();
    if !full {
        all.extend(report::existing_summaries(&dir, &measured));
    }
    let files = report::render(&measurement.reports, &all, budget.as_ref());
    if args.scenario.is_some() && args.reports.is_none() {
        let mut stdout = std::io::stdout().lock();
        for report in &measurement.reports {
            if let Some(text) = files.get(&format!("{}.md", report.module)) {
                stdout.write_all(text.as_bytes())?;
            }
        }
        return Ok(());
    }
    let written = report::write(&dir, &files, full)?;
    std::fs::write(
        dir.join(report::LAST_RUN),
        report::last_run(elapsed, &measurement.phases),
    )?;
    announce(&written);
    Ok(())
}

/// One side's server from the flags: a command line, a URL, or an `mcp.json` entry.
fn side_server(
    args: &MeasureArgs,
    side: &str,
    line: Option<&String>,
    url: Option<&String>,
    entry: Option<&String>,
) -> Result<Option<Server>, MeasureError> {
    match (line, url, entry) {
        (Some(line), _, _) => Ok(Some(Server::Stdio(split_command(
            &format!("--{side}"),
            line,
        )?))),
        (None, Some(url), _) => Ok(Some(Server::Http(url.clone()))),
        (None, None, Some(name)) => {
            let path = args.mcp_config.as_deref().unwrap_or(Path::new("mcp.json"));
            Ok(Some(Server::from_mcp_config(path, name)?))
        }
        (None, None, None) => Ok(None),
    }
}

/// `--before CMD --after CMD --calls FILE` (or `--*-url`, `--*-entry`): two servers.
async fn servers(args: &MeasureArgs) -> Result<(), MeasureError> {
    let gate = args.check || args.write_budget;
    let before = side_server(
        args,
        "before",
        args.before.as_ref(),
        args.before_url.as_ref(),
        args.before_entry.as_ref(),
    )?;
    let Some(after) = side_server(
        args,
        "after",
        args.after.as_ref(),
        args.after_url.as_ref(),
        args.after_entry.as_ref(),
    )?
    else {
        return Err(MeasureError::Usage(
            "name the after server: --after CMD, --after-url URL or --after-entry NAME".into(),
        ));
    };
    if before.is_none() && !gate {
        return Err(MeasureError::Usage(
            "--after needs --before (only --check and --write-budget measure one side)".into(),
        ));
    }
    let Some(calls) = &args.calls else {
        return Err(MeasureError::Usage("--after needs --calls FILE".into()));
    };
    if gate && args.budget.is_none() {
        return Err(MeasureError::Usage(
            "--check and --write-budget with --after need --budget FILE".into(),
        ));
    }
    let options = ForeignOptions {
        name: args.name.clone(),
        before,
        after,
        calls: PlannedCall::load(calls)?,
        timeout: std::time::Duration::from_secs(args.timeout),
        counter: args.counter.unwrap_or(crate::tokens::Counter::O200k),
    };
    let started = Instant::now();
    let outcome = foreign::run(&options, &mut |line: &str| eprintln!("measure: {line}")).await?;
    eprintln!(
        "measure: measured in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    failed(&outcome.failures)?;
    let reports = std::slice::from_ref(&outcome.report);
    if let Some(path) = args.budget.as_deref().filter(|_| gate) {
        return if args.check {
            check(reports, path, false)
        } else {
            write_budget(reports, path, args.headroom, BudgetWrite::of(args, true))
        };
    }
    let budget = match &args.budget {
        Some(path) => Some(Budget::load(path)?),
        None => None,
    };
    let files = report::render_module(&outcome.report, budget.as_ref());
    match &args.reports {
        Some(dir) => announce(&report::write(dir, &files, false)?),
        None => {
            let text = files
                .get(&format!("{}.md", outcome.report.module))
                .cloned()
                .unwrap_or_default();
            std::io::stdout().lock().write_all(text.as_bytes())?;
        }
    }
    Ok(())
}

fn failed(failures: &[String]) -> Result<(), MeasureError> {
    if failures.is_empty() {
        return Ok(());
    }
    for failure in failures {
        eprintln!("measure: FAILED {failure}");
    }
    Err(MeasureError::Failed(failures.len()))
}

fn announce(written: &[PathBuf]) {
    for path in written {
        eprintln!(
            "measure: wrote {}",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
    }
}

/// The budget at `path`, if there is a file there.
fn existing_budget(path: &Path) -> Result<Option<Budget>, MeasureError> {
    if path.is_file() {
        Ok(Some(Budget::load(path)?))
    } else {
        Ok(None)
    }
}

/// `--write-budget --lower-only`: the budget at `path` tightened to the figures plus
/// `headroom`; every limit lowered is named on stderr, and every measured figure left without
/// a limit.
fn lower_budget(
    reports: &[ModuleReport],
    path: &Path,
    headroom: f64,
    full: bool,
) -> Result<(), MeasureError> {
    let Some(mut budget) = existing_budget(path)? else {
        return Err(MeasureError::Usage(format!(
            "--lower-only: no budget at {} to lower; start one with --write-budget",
            path.display()
        )));
    };
    let lowering = budget.lower(reports, headroom, full);
    for lowered in &lowering.lowered {
        eprintln!("measure: lowered {lowered}");
    }
    for (place, figure) in &lowering.unbudgeted {
        eprintln!(
            "measure: {place}: {} has no limit; --lower-only adds none (give it one with --write-budget)",
            figure.label()
        );
    }
    if !lowering.lowered.is_empty() {
        budget.save(path)?;
    }
    eprintln!(
        "measure: {} limit(s) lowered, {} kept, in {} (headroom {headroom}%)",
        lowering.lowered.len(),
        lowering.kept,
        path.display()
    );
    Ok(())
}

/// `--check`: every finding on stderr, an error when there is any.
fn check(reports: &[ModuleReport], path: &Path, every_module: bool) -> Result<(), MeasureError> {
    let budget = Budget::load(path)?;
    let findings = budget.check(reports, every_module);
    for finding in &findings {
        eprintln!("measure: budget: {finding}");
    }
    if !findings.is_empty() {
        return Err(MeasureError::OverBudget(findings.len()));
    }
    let mut usage: Vec<_> = reports.iter().flat_map(|r| budget.usage(r)).collect();
    if every_module {
        usage.extend(budget.usage_all(reports));
    }
    let closest = usage
        .iter()
        .max_by(|a, b| a.percent().total_cmp(&b.percent()));
    eprintln!(
        "measure: within budget ({}): {} figure(s) checked{}",
        path.display(),
        usage.len(),
        closest.map_or(String::new(), |u| format!(
            "; closest to its limit: {} {} at {:.1}%",
            u.place,
            u.figure.label(),
            u.percent()
        ))
    );
    Ok(())
}

/// How `--write-budget` treats the limits already in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BudgetWrite {
    /// Every module's limits replaced by the figures measured.
    Replace,
    /// The measured modules' limits replaced; the others kept.
    Merge,
    /// `--lower-only`: limits only lowered, never raised or added.
    LowerOnly {
        /// Every module was measured (the limits of all modules together are lowered too).
        full: bool,
    },
}

impl BudgetWrite {
    fn of(args: &MeasureArgs, merge: bool) -> BudgetWrite {
        match (args.lower_only, merge) {
            (true, merge) => BudgetWrite::LowerOnly { full: !merge },
            (false, true) => BudgetWrite::Merge,
            (false, false) => BudgetWrite::Replace,
        }
    }
}

/// `--write-budget`: the figures plus `headroom`, into `path` (see [`BudgetWrite`]).
fn write_budget(
    reports: &[ModuleReport],
    path: &Path,
    headroom: f64,
    how: BudgetWrite,
) -> Result<(), MeasureError> {
    if !(0.0..=1000.0).contains(&headroom) {
        return Err(MeasureError::Usage(format!(
            "--headroom {headroom}: give a percentage between 0 and 1000"
        )));
    }
    let merge = match how {
        BudgetWrite::LowerOnly { full } => return lower_budget(reports, path, headroom, full),
        BudgetWrite::Merge => true,
        BudgetWrite::Replace => false,
    };
    let existing = if merge { existing_budget(path)? } else { None };
    let budget = match existing {
        Some(mut budget) => {
            budget.set(reports, headroom);
            budget
        }
        None => {
            let mut budget = Budget::from_reports(reports, headroom);
            if merge {
                // Not every module measured: nothing to say of them all.
                budget.all_modules = None;
            }
            budget
        }
    };
    budget.save(path)?;
    eprintln!(
        "measure: wrote {} ({} module(s), headroom {headroom}%)",
        path.display(),
        budget.modules.len()
    );
    Ok(())
}
