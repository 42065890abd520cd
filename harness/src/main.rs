//! `modyo-lab`: the harness command line. Thin: parse, set up stderr logging, call the library.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use modyo_lab::fixtures::{self, FixtureSet};
use modyo_lab::lifecycle::{self, CheckOptions};
use modyo_lab::lint::{self, LintOptions, Lists, PlannedCall, Rule, ServerCommand};
use modyo_lab::record::suite::SuiteArgs;
use modyo_lab::record::{self, Format, RecordOptions};
use modyo_lab::serve::{self, Offline, ServeOptions};
use modyo_lab::spec::command::SpecCommand;
use modyo_mcp::config::Token;
use modyo_mcp::logging::{self, LogArgs, Quiet};
use modyo_mcp::scrub::Scrubber;
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

/// The arguments of `modyo-lab record`: given calls, or a suite.
#[derive(Debug, clap::Args)]
struct RecordArgs {
    #[command(flatten)]
    suite: SuiteArgs,
    #[command(flatten)]
    options: RecordOptions,
}

/// Runs a suite; exit 0 when nothing contradicts ours, 1 when something does, 2 when it could
/// not run. Progress on stderr; the verdict (or the JSON report) on stdout.
async fn suite(args: RecordArgs) -> ExitCode {
    let run = async {
        let options = args.options.live_from_env(std::env::vars())?;
        let outcome = record::suite::run(&args.suite, &options, &mut std::io::stderr()).await?;
        let text = match options.format {
            Format::Text => format!(
                "{}\nreport: {} and {}\ncassettes: {} (modyo-lab serve --cassettes {})\n",
                outcome.report.verdict(),
                outcome.markdown.display(),
                outcome.json.display(),
                outcome.cassettes.display(),
                outcome.cassettes.display()
            ),
            Format::Json => outcome.report.to_json(),
        };
        std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes())?;
        anyhow::Ok(outcome.report.ok)
    };
    match run.await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::from(2)
        }
    }
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
    #[arg(long, default_value_os_t = modyo_replay::cassette::default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::cassettes_help("Cassettes for our own server (served, and every scenario replayed for C8/C11/C12)."))]
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
    #[command(flatten)]
    log: LogArgs,
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
    /// What a change costs, base against head: a short verdict for a pull request.
    Diff(modyo_lab::diff::DiffArgs),
    /// Write a deterministic fixture set into the cassettes directory (`--check`: only compare).
    Generate {
        /// The fixture set.
        set: FixtureSet,
        /// The cassettes directory.
        #[arg(long, default_value_os_t = modyo_replay::cassette::default_dir(), hide_default_value = true,
            help = modyo_replay::workspace::cassettes_help("The cassettes directory."))]
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
    /// Run real MCP clients headless against the marker server (fingerprints) and the offline
    /// server (per module, before and after) with a scripted model; write reports/clients/
    /// (captures, fingerprints), clients.md and clients.json. `--server CMD`: against any
    /// stdio MCP server.
    Clients(modyo_lab::clients::ClientsArgs),
    /// The marker MCP server on stdio: every part a client could forward to a model carries a
    /// marker of its own (what `clients` fingerprints the clients with).
    Marker,
    /// Record tool calls against the live account (MODYO_URL, MODYO_TOKEN) into a cassette,
    /// redacted; or, with `--mode none --diff`, report how the live API drifted from it.
    ///
    /// `--suite read-only --out DIR` reads the whole account instead (read-only: nothing is
    /// ever written to it), records real cassettes under DIR/cassettes and writes a report of
    /// where ours are wrong, with no value of the account in it, to DIR/report.md and .json.
    /// Exit: 0 nothing contradicts ours, 1 something does, 2 could not run.
    Record(Box<RecordArgs>),
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
    // stdout is the MCP channel (serve) or the report (lint): logs go to stderr, warnings and
    // our own progress unless -v or RUST_LOG asks for more. Commands whose output is a report
    // and whose server runs in-process as the subject (lint, spec, cassettes, clients) are quieter: the
    // server's per-call lines (an expected `not_found` in a coverage scenario) are not progress.
    // A live token (`record`) is scrubbed from every line, as in the server.
    let quiet = match cli.command {
        Command::Lint(_) | Command::Spec(_) | Command::Cassettes(_) | Command::Clients(_) => {
            Quiet::Errors
        }
        _ => Quiet::Progress,
    };
    let token = std::env::var("MODYO_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
        .map(Token::new);
    logging::init(cli.log.verbose, quiet, Scrubber::for_token(token.as_ref()));
    let result = match cli.command {
        Command::Lint(args) => return lint(args).await,
        Command::Serve { options, http } => serve(options.env(std::env::vars()), &http).await,
        Command::Generate {
            set,
            cassettes,
            check,
        } => generate(set, &cassettes, check),
        Command::Measure(args) => modyo_lab::measure::command(args).await.map_err(Into::into),
        Command::Diff(args) => modyo_lab::diff::command(args).await.map_err(Into::into),
        Command::Bench(args) => modyo_lab::perf::command(args).await.map_err(Into::into),
        Command::Clients(args) => modyo_lab::clients::command(args).await.map_err(Into::into),
        Command::Marker => {
            modyo_lab::clients::marker::serve(std::io::stdin().lock(), std::io::stdout().lock())
                .map_err(Into::into)
        }
        Command::Record(args) if args.suite.suite.is_some() => return suite(*args).await,
        Command::Record(args) => record(args.options).await,
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
