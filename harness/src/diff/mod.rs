//! `modyo-lab diff`: what a change costs, base against head, as a verdict a reviewer reads in
//! the pull request ([`verdict`]).
//!
//! Two ways to name the builds:
//!
//! - `--base REF` (ours): the head is this checkout, its `modyo-mcp` next to this lab and its
//!   `cassettes/`; the base is the git revision `REF`, checked out in a worktree under
//!   `target/diff/` and its server built there (`cargo build`, the profile this lab was built
//!   with, one shared target directory so later runs build only what changed). This lab
//!   measures both with its own counters and profiles, each build against its own cassettes,
//!   and each build's measured clients come from its own `reports/clients.json`.
//! - `--base-server CMD --head-server CMD --calls FILE` (any stdio MCP server): both measured
//!   like `modyo-lab measure --before --after`, the base as "before".
//!
//! The verdict goes to stdout, to `$GITHUB_STEP_SUMMARY` when that is set (GitHub Actions
//! shows it on the run's page), to `--markdown FILE` and `--json FILE` when asked; `--fail-on`
//! turns growth past a limit into a failing exit ([`limits`]).

pub mod limits;
pub mod verdict;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::lint::{PlannedCall, ServerCommand};
use crate::measure::foreign::{self, ForeignOptions, Server};
use crate::measure::{MeasureError, Options};
use crate::report::ModuleReport;

pub use verdict::{DEFAULT_THRESHOLD, Verdict};

/// The arguments of `modyo-lab diff`.
#[derive(Debug, Clone, clap::Args)]
pub struct DiffArgs {
    /// The base revision of this repository (`origin/main`, `HEAD~1`, a commit): built in a
    /// worktree under target/diff/ and measured against this checkout.
    #[arg(long, value_name = "REF", conflicts_with_all = ["base_server", "head_server"])]
    pub base: Option<String>,
    /// Another server's base build: a command line serving MCP on stdio.
    #[arg(long, value_name = "CMD", requires_all = ["head_server", "calls"], allow_hyphen_values = true)]
    pub base_server: Option<String>,
    /// Another server's head build.
    #[arg(
        long,
        value_name = "CMD",
        requires = "base_server",
        allow_hyphen_values = true
    )]
    pub head_server: Option<String>,
    /// The calls to make on each build of another server (the `measure --calls` file).
    #[arg(long, value_name = "FILE")]
    pub calls: Option<PathBuf>,
    /// The name of another server in the verdict.
    #[arg(long, default_value = "server")]
    pub name: String,
    /// A figure that moved by less than this many tokens is counted, not listed.
    #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
    pub threshold: f64,
    /// Fail (exit 1) when a figure grows past a limit: `per-call=5%,catalogue=+200` (keys:
    /// catalogue, wire, schema, per-call, successes, errors; N% of the base, or +N tokens).
    #[arg(long, value_name = "LIMITS")]
    pub fail_on: Option<String>,
    /// Also write the verdict's Markdown here.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write the verdict as JSON here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Seconds one request to another server may take.
    #[arg(long, value_name = "SECS", default_value_t = 120)]
    pub timeout: u64,
}

/// Why a diff could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiffError {
    /// Measuring a build failed.
    #[error(transparent)]
    Measure(#[from] MeasureError),
    /// Checking out or building the base failed.
    #[error("the base build: {0}")]
    Build(String),
    /// The command line asks for something that cannot be done.
    #[error("{0}")]
    Usage(String),
    /// The verdict breaks a `--fail-on` limit.
    #[error("the change breaks {} --fail-on limit(s):\n{}", .0.len(), .0.join("\n"))]
    Limits(Vec<String>),
    /// Writing the verdict failed.
    #[error("writing the verdict: {0}")]
    Io(#[from] std::io::Error),
}

/// `modyo-lab diff`.
pub async fn command(args: DiffArgs) -> Result<(), DiffError> {
    let limits = match &args.fail_on {
        Some(text) => limits::parse_limits(text).map_err(DiffError::Usage)?,
        None => Vec::new(),
    };
    let verdict = match (&args.base, &args.base_server, &args.head_server) {
        (Some(base), None, None) => ours(base, args.threshold).await?,
        (None, Some(base), Some(head)) => foreign_verdict(&args, base, head).await?,
        _ => {
            return Err(DiffError::Usage(
                "name the base: --base REF (this repository), or --base-server CMD --head-server CMD --calls FILE".into(),
            ));
        }
    };
    let markdown = verdict.markdown();
    {
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(markdown.as_bytes())?;
        stdout.flush()?;
    }
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(summary)?;
        file.write_all(markdown.as_bytes())?;
    }
    if let Some(path) = &args.markdown {
        std::fs::write(path, &markdown)?;
    }
    if let Some(path) = &args.json {
        std::fs::write(path, verdict.json())?;
    }
    let breaches = verdict.breaches(&limits);
    if !breaches.is_empty() {
        return Err(DiffError::Limits(breaches));
    }
    Ok(())
}

/// Two builds of another server, measured as one report.
async fn foreign_verdict(args: &DiffArgs, base: &str, head: &str) -> Result<Verdict, DiffError> {
    let split = |flag: &str, line: &str| {
        let words = shlex::split(line)
            .ok_or_else(|| DiffError::Usage(format!("{flag}: unbalanced quotes in {line:?}")))?;
        ServerCommand::new(words.into_iter().map(Into::into).collect())
            .ok_or_else(|| DiffError::Usage(format!("{flag}: an empty command")))
    };
    let Some(calls) = &args.calls else {
        return Err(DiffError::Usage(
            "--base-server/--head-server need --calls FILE".into(),
        ));
    };
    let options = ForeignOptions {
        name: args.name.clone(),
        before: Some(Server::Stdio(split("--base-server", base)?)),
        after: Server::Stdio(split("--head-server", head)?),
        calls: PlannedCall::load(calls).map_err(MeasureError::from)?,
        timeout: std::time::Duration::from_secs(args.timeout),
        counter: crate::tokens::Counter::O200k,
    };
    let outcome = foreign::run(&options, &mut |line: &str| eprintln!("diff: {line}")).await?;
    if !outcome.failures.is_empty() {
        for failure in &outcome.failures {
            eprintln!("diff: FAILED {failure}");
        }
        return Err(MeasureError::Failed(outcome.failures.len()).into());
    }
    Ok(verdict::of_report(
        base,
        head,
        &outcome.report,
        args.threshold,
    ))
}

/// Our server: the base revision built in a worktree, against this checkout.
async fn ours(base: &str, threshold: f64) -> Result<Verdict, DiffError> {
    let root = modyo_replay::workspace::root().ok_or_else(|| {
        DiffError::Usage("--base needs this repository's checkout (run it from inside one)".into())
    })?;
    let sha = git(
        &root,
        &["rev-parse", "--verify", &format!("{base}^{{commit}}")],
    )?;
    let short: String = sha.chars().take(12).collect();
    let head_label =
        git(&root, &["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|_| "HEAD".into());
    let dirty = !git(&root, &["status", "--porcelain", "--untracked-files=no"])
        .unwrap_or_default()
        .is_empty();
    let tree = root.join("target/diff").join(&short);
    if !tree.join("Cargo.toml").is_file() {
        eprintln!("diff: checking out {base} ({short}) in {}", tree.display());
        git(
            &root,
            &[
                "worktree",
                "add",
                "--force",
                "--detach",
                &tree.to_string_lossy(),
                &sha,
            ],
        )?;
    }
    let release = std::env::current_exe()
        .ok()
        .is_some_and(|exe| exe.components().any(|c| c.as_os_str() == "release"));
    let target = root.join("target/diff/target");
    eprintln!(
        "diff: building the base server ({})",
        if release { "release" } else { "debug" }
    );
    let mut build = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    build
        .current_dir(&tree)
        .args(["build", "--locked", "-p", "modyo-mcp"])
        .env("CARGO_TARGET_DIR", &target);
    if release {
        build.arg("--release");
    }
    let status = build
        .status()
        .map_err(|e| DiffError::Build(format!("cargo does not start: {e}")))?;
    if !status.success() {
        return Err(DiffError::Build(format!(
            "cargo build in {} failed ({status})",
            tree.display()
        )));
    }
    let server = target
        .join(if release { "release" } else { "debug" })
        .join(format!("modyo-mcp{}", std::env::consts::EXE_SUFFIX));
    let base_reports = measure_build(
        &server,
        &tree.join("cassettes"),
        &tree.join("reports"),
        "base",
        false,
    )
    .await?;
    let head_server = crate::probe::locate_server(None).map_err(MeasureError::from)?;
    let head_reports = measure_build(
        &head_server,
        &modyo_replay::cassette::default_dir(),
        &crate::report::default_dir(),
        "head",
        true,
    )
    .await?;
    let head = if dirty {
        format!("{head_label} with uncommitted changes")
    } else {
        head_label
    };
    Ok(verdict::of_builds(
        &format!("{base} ({short})"),
        &head,
        &base_reports,
        &head_reports,
        threshold,
    ))
}

/// Every module of one build, measured by this lab, with that build's measured clients;
/// `contract`: hold its answers to this lab's contract checks (the head), or only to its own
/// cassettes' expected outcomes (the base, built under the contract of its day).
async fn measure_build(
    server: &Path,
    cassettes: &Path,
    reports: &Path,
    label: &str,
    contract: bool,
) -> Result<Vec<ModuleReport>, DiffError> {
    let options = Options {
        cassettes: cassettes.to_path_buf(),
        server: server.to_path_buf(),
        module: None,
        scenario: None,
        strict_binary: false,
        after_only: false,
        contract,
    };
    let mut measurement = crate::measure::run(&options, &mut |line: &str| {
        eprintln!("diff: {label}: {line}")
    })
    .await?;
    if !measurement.failures.is_empty() {
        for failure in &measurement.failures {
            eprintln!("diff: {label}: FAILED {failure}");
        }
        return Err(MeasureError::Failed(measurement.failures.len()).into());
    }
    for report in &mut measurement.reports {
        let measured = crate::clients::measured_profiles(reports, &report.module);
        report.add_profiles(measured);
    }
    Ok(measurement.reports)
}

/// Runs git in `dir`; its trimmed stdout.
fn git(dir: &Path, args: &[&str]) -> Result<String, DiffError> {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .map_err(|e| DiffError::Build(format!("git does not start: {e}")))?;
    if !output.status.success() {
        return Err(DiffError::Build(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}
