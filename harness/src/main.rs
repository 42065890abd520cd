//! `modyo-lab`: the harness command line. Thin: parse, set up stderr logging, call the library.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use modyo_lab::serve::{self, ServeOptions};

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
        Command::Serve(options) => serve::run_stdio(options.env(std::env::vars())).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
