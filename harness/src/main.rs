//! `modyo-lab`: the harness command line. Thin: parse, set up stderr logging, call the library.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use modyo_lab::fixtures::{self, FixtureSet};
use modyo_lab::lifecycle::{self, CheckOptions};
use modyo_lab::lint::{self, LintOptions, Lists, PlannedCall, Rule, ServerCommand};
use modyo_lab::record::{self, Format, RecordOptions};
use modyo_lab::serve::{self, Offline, ServeOptions};
use modyo_lab::spec::command::SpecCommand;
use modyo_mcp::{HttpArgs, HttpListener};

/// Prints a report on stdout; an unsuccessful report makes the command fail.
fn print_report(text: &str, ok: bool, what: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        stdout.write_all(b"\n")?;
    }
    stdout.flush()?;
    anyhow::ensure!(ok, "{what}: problems found (see the report)");
    Ok(())
}

async fn record(options: RecordOptions) -> anyhow::Result<()> {
    let options = options.live_from_env(std::env::vars())?;
    let report = record::run(&options).await?;
    let text = match options.format {
        Format::Text => report.to_text(),
        Format::Json => report.to_json(),
    };
    print_report(&text, report.ok, "record")
}

async fn check_cassettes(options: CheckOptions) -> anyhow::Result<()> {
    let mut options = options.with_defaults();
    options.token = std::env::var("MODYO_TOKEN").ok().filter(|t| !t.is_empty());
    let report = lifecycle::check(&options).await?;
    let text = match options.format {
        Format::Text => report.to_text(),
        Format::Json => report.to_json(),
    };
    print_report(&text, report.ok, "cassettes check")
}

fn generate(set: FixtureSet, root: &std::path::Path, check: bool) -> anyhow::Result<()> {
    if check {
        let stale = fixtures::stale(set, root)?;
        anyhow::ensure!(
            stale.is_empty(),
            "stale generated cassettes (run make generate): {stale:?}"
        );
        return Ok(());
    }
    let written = fixtures::write(set, root)?;
    tracing::info!("wrote {} cassettes under {}", written.len(), root.display());
    Ok(())
}

/// The arguments of `modyo-lab lint`.
#[derive(Debug, clap::Args)]
struct LintArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Cassettes for our own server (served, and every scenario replayed for C8/C11/C12).
    #[arg(long, default_value_os_t = modyo_lab::cassette::default_dir())]
    cassettes: std::path::PathBuf,
    /// Exemption lists as JSON (default: ours for our server, none for another server).
    #[arg(long)]
    lists: Option<std::path::PathBuf>,
    /// Calls to make on the server, whose results are checked: JSON `[{tool, arguments}]`.
    #[arg(long)]
    calls: Option<std::path::PathBuf>,
    /// Report only this rule (repeatable).
    #[arg(long = "rule", value_enum, ignore_case = true)]
    rules: Vec<Rule>,
    /// The MCP server to lint, spoken to over stdio (default: our offline server).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<std::ffi::OsString>,
}

/// Runs the lint; exit 0 clean, 1 violations, 2 could not run.
async fn lint(args: LintArgs) -> ExitCode {
    let options = match lint_options(args.command, &args.cassettes, args.lists, args.calls) {
        Ok(mut options) => {
            options.rules = args.rules;
            options
        }
        Err(e) => {
            tracing::error!("{e}");
            return ExitCode::from(2);
        }
    };
    match lint::run(&options).await {
        Ok(report) => {
            let text = match args.format {
                Format::Text => report.text(),
                Format::Json => report.json(),
            };
            let mut stdout = std::io::stdout().lock();
            if std::io::Write::write_all(&mut stdout, text.as_bytes()).is_err() {
                return ExitCode::from(2);
            }
            if report.is_clean() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            tracing::error!("lint could not run: {e}");
            ExitCode::from(2)
        }
    }
}

fn lint_options(
    command: Vec<std::ffi::OsString>,
    cassettes: &std::path::Path,
    lists: Option<std::path::PathBuf>,
    calls: Option<std::path::PathBuf>,
) -> anyhow::Result<LintOptions> {
    let calls = match calls {
        Some(path) => PlannedCall::load(&path)?,
        None => Vec::new(),
    };
    let (command, replay, default_lists) = match ServerCommand::new(command) {
        Some(command) => (command, None, Lists::default()),
        None => (
            ServerCommand::ours(std::env::current_exe()?, cassettes),
            Some(cassettes.to_owned()),
            Lists::builtin(),
        ),
    };
    let lists = match lists {
        Some(path) => Lists::load(&path)?,
        None => default_lists,
    };
    Ok(LintOptions {
        command,
        replay,
        lists,
        calls,
        rules: Vec::new(),
    })
}

/// `modyo-lab serve`: stdio, or streamable HTTP with the URL announced on stderr.
async fn serve(options: ServeOptions, http: &HttpArgs) -> anyhow::Result<()> {
    let Some(http) = http.options()? else {
        return Ok(serve::run_stdio(options).await?);
    };
    let listener = HttpListener::bind(http).await?;
    let offline = Offline::start(&options).await?;
    eprintln!("modyo-lab: MCP over streamable HTTP at {}", listener.url());
    offline
        .serve_http(listener, modyo_mcp::http::termination())
        .await?;
    Ok(())
}

#[derive(Parser)]
#[command(
    version,
    about = "Record/replay harness and measurement lab for modyo-mcp"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve MCP on stdio (or streamable HTTP with --http), answering from cassettes instead of
    /// a Modyo account.
    Serve {
        #[command(flatten)]
        options: ServeOptions,
        #[command(flatten)]
        http: HttpArgs,
    },
    /// Measure every module before and after (legacy vs migrated) and write the reports.
    Measure(modyo_lab::measure::MeasureArgs),
    /// Write a deterministic fixture set into the cassettes directory (`--check`: only compare).
    Generate {
        /// The fixture set.
        set: FixtureSet,
        /// The cassettes directory.
        #[arg(long, default_value_os_t = modyo_lab::cassette::default_dir())]
        cassettes: std::path::PathBuf,
        /// Fail if the files on disk differ from what the generator writes; write nothing.
        #[arg(long)]
        check: bool,
    },
    /// Check the response contract of an MCP server's tools (C1, C5, C8-C13, C19).
    ///
    /// Without a command, lints our offline server and replays every cassette scenario.
    /// With `-- <command> [args...]`, lints that stdio server's tools/list (and --calls).
    /// Exit: 0 clean, 1 violations, 2 could not run.
    Lint(LintArgs),
    /// Benchmark against the physical floor and mcp-recorder; write reports/performance.md.
    Bench(modyo_lab::perf::BenchArgs),
    /// Run real MCP clients (Claude Code, the genai SDK) headless against the offline server
    /// and a scripted model; write reports/clients/*.jsonl, clients.md and clients.json.
    Clients(modyo_lab::clients::ClientsArgs),
    /// Record tool calls against the live account (MODYO_URL, MODYO_TOKEN) into a cassette,
    /// redacted; or, with `--mode none --diff`, report how the live API drifted from it.
    Record(Box<RecordOptions>),
    /// Cassette lifecycle commands.
    #[command(subcommand)]
    Cassettes(CassettesCommand),
    /// Modyo's published API specification: import, pull, check, coverage report.
    #[command(subcommand)]
    Spec(SpecCommand),
}

#[derive(Subcommand)]
enum CassettesCommand {
    /// Every cassette parses, is redacted, has provenance, is used by some scenario, and every
    /// interaction agrees with the API surface or is marked undocumented with its evidence
    /// (`--fail-on-unused`: and every interaction is played by some scenario).
    Check(CheckOptions),
}

async fn spec(command: SpecCommand) -> anyhow::Result<()> {
    let outcome = modyo_lab::spec::command::run(command, std::env::vars()).await?;
    print_report(&outcome.text, outcome.ok, "spec")
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    // stdout is the MCP channel (serve) or the report (lint): logs go to stderr. The lint is
    // quiet by default: its report is the output; `measure` prints its own progress.
    let default = match cli.command {
        Command::Lint(_) | Command::Clients(_) => "error",
        Command::Measure(_) | Command::Bench(_) | Command::Spec(_) => "warn",
        _ => "info",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_ansi(false)
        .init();
    let result = match cli.command {
        Command::Lint(args) => return lint(args).await,
        Command::Serve { options, http } => serve(options.env(std::env::vars()), &http).await,
        Command::Generate {
            set,
            cassettes,
            check,
        } => generate(set, &cassettes, check),
        Command::Measure(args) => modyo_lab::measure::command(args).await.map_err(Into::into),
        Command::Bench(args) => modyo_lab::perf::command(args).await.map_err(Into::into),
        Command::Clients(args) => modyo_lab::clients::command(args).await.map_err(Into::into),
        Command::Record(options) => record(*options).await,
        Command::Cassettes(CassettesCommand::Check(options)) => check_cassettes(options).await,
        Command::Spec(command) => spec(command).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
