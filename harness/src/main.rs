//! `modyo-lab`: the harness command line. Thin: parse, set up stderr logging, call the library.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use modyo_lab::fixtures::{self, FixtureSet};
use modyo_lab::serve::{self, ServeOptions};

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
    /// Serve MCP on stdio, answering from cassettes instead of a Modyo account.
    Serve(ServeOptions),
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
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    // stdout is the MCP channel: logs go to stderr. `measure` prints its own progress.
    let default = match cli.command {
        Command::Measure(_) => "warn",
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
        Command::Serve(options) => serve::run_stdio(options.env(std::env::vars()))
            .await
            .map_err(Into::into),
        Command::Generate {
            set,
            cassettes,
            check,
        } => generate(set, &cassettes, check),
        Command::Measure(args) => modyo_lab::measure::command(args).await.map_err(Into::into),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
