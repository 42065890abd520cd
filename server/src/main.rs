//! The production server: read the environment and the transport flags, log to stderr (the
//! token scrubbed from every line), serve MCP on stdio (default) or over streamable HTTP
//! (`--http [ADDR]`).

use std::process::ExitCode;

use clap::Parser;
use modyo_mcp::contract::ResultForm;
use modyo_mcp::logging::{self, LogArgs, Quiet};
use modyo_mcp::scrub::Scrubber;
use modyo_mcp::{Config, HttpArgs, HttpListener, ModyoServer};

/// mimalloc as the global allocator, opt-in (feature `mimalloc`): the read path makes many small
/// allocations; `make bench-changes` measures it against the system allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// MCP server for the Modyo platform API. Configuration comes from the environment
/// (MODYO_URL, MODYO_TOKEN, MODYO_READ_ONLY, MODYO_MCP_MODULES, MODYO_RESULTS...; see the
/// README).
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(flatten)]
    http: HttpArgs,
    /// What an answer carries, for the client the server is wired into: both
    /// (structuredContent and the same JSON as text; the default), structured
    /// (structuredContent only) or text (the JSON as text, no structuredContent and no
    /// outputSchema). Overrides MODYO_RESULTS.
    #[arg(long, value_name = "FORM")]
    results: Option<ResultForm>,
    #[command(flatten)]
    log: LogArgs,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let http = match cli.http.options() {
        Ok(http) => http,
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::from(1);
        }
    };
    let mut config = match Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::from(1);
        }
    };
    if let Some(form) = cli.results {
        config.results = form;
    }
    // stdout is the MCP channel on stdio: logs go to stderr, warnings and our progress lines
    // unless -v, DEBUG (as -vv) or RUST_LOG asks for more; every line scrubbed of the token
    // (upstream may echo it).
    let debug = matches!(std::env::var("DEBUG").as_deref(), Ok("true" | "1"));
    let verbose = if debug {
        cli.log.verbose.max(2)
    } else {
        cli.log.verbose
    };
    logging::init(
        verbose,
        Quiet::Progress,
        Scrubber::for_token(config.token.as_ref()),
    );
    eprintln!("modyo-mcp: {}", config.mode_line());
    eprintln!("modyo-mcp: {}", config.results_line());
    if config.has_api() && !config.read_only {
        eprintln!("modyo-mcp: {}", config.upload_roots.describe());
    }

    let server = match ModyoServer::new(config) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::from(2);
        }
    };
    server.log_registry();
    let result = match http {
        None => server.serve_stdio().await,
        Some(options) => match HttpListener::bind(options).await {
            Ok(listener) => {
                eprintln!("modyo-mcp: MCP over streamable HTTP at {}", listener.url());
                server
                    .serve_http(listener, modyo_mcp::http::termination())
                    .await
            }
            Err(e) => {
                eprintln!("Error: {e}");
                return ExitCode::from(1);
            }
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::from(2)
        }
    }
}
