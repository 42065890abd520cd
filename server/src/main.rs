//! The production stdio server: read the environment, log to stderr, serve MCP on stdio.

use std::process::ExitCode;

use modyo_mcp::{Config, ModyoServer};

#[tokio::main]
async fn main() -> ExitCode {
    // stdout is the MCP channel: logs go to stderr, and only when asked (DEBUG or RUST_LOG).
    let debug = matches!(std::env::var("DEBUG").as_deref(), Ok("true" | "1"));
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new(if debug { "debug" } else { "warn" })
    });
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_ansi(false)
        .init();

    let config = match Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::from(1);
        }
    };
    let result = match ModyoServer::new(config) {
        Ok(server) => server.serve_stdio().await,
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::from(2)
        }
    }
}
