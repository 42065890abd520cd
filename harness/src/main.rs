//! `modyo-lab`: the harness command line. Thin: parse, set up stderr logging, call the library.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use modyo_lab::fixtures::{self, FixtureSet};
use modyo_lab::serve::{self, Offline, ServeOptions};
use modyo_mcp::{HttpArgs, HttpListener};

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
    // stdout is the MCP channel: logs go to stderr.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_ansi(false)
        .init();
    let result = match Cli::parse().command {
        Command::Serve { options, http } => serve(options.env(std::env::vars()), &http).await,
        Command::Generate {
            set,
            cassettes,
            check,
        } => generate(set, &cassettes, check),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
