//! The offline server (`modyo-lab serve`): the real `modyo-mcp` server answering from
//! cassettes instead of a Modyo account.
//!
//! Every cassette under the directory (or the one file `--cassettes` names) is loaded except
//! those carrying an excluded tag (`fault` by default: they record failures on purpose), with
//! their includes, in mount order (a cassette before what it includes). They are mounted with
//! `allow_repeats`, so an agent can repeat a call, and the server is pointed at the replay URI
//! with a placeholder token. The replay keeps the last [`KEPT_REQUESTS`] requests it received
//! (and counts the rest), so memory stays flat however long it serves. Logs go to stderr only:
//! stdout is the MCP channel.
//!
//! [`Offline::start`] and [`Offline::serve`] take the transport as a parameter, so tests run
//! the same wiring in-process over `tokio::io::duplex`; [`Offline::serve_http`] serves the same
//! server over streamable HTTP (`modyo-lab serve --http ADDR`).
//!
//! `--corrupt-output TOOL` (test-only, see [`crate::corrupt`]) makes one tool's results break
//! their `outputSchema` after the server validated them, to prove strict clients catch it.

use std::collections::BTreeSet;
use std::path::PathBuf;

use modyo_mcp::contract::ResultForm;
use modyo_mcp::{Config, ConfigError, HttpListener, ModyoServer, ServerError, Token};
use rmcp::transport::IntoTransport;
use rmcp::{RoleServer, ServiceExt};

use crate::corrupt::Corrupting;
use modyo_replay::cassette::{self, Cassette, CassetteError};
use modyo_replay::replay::{ReplayError, ReplayOptions, ReplayServer};

/// Tags whose cassettes the offline server leaves out unless asked for.
pub const DEFAULT_EXCLUDED_TAGS: [&str; 1] = ["fault"];

/// The token the server sends to the replay server (never a real credential).
pub const OFFLINE_TOKEN: &str = "offline-replay";

/// The platform name reported when `MODYO_PLATFORM_NAME` is not set.
pub const OFFLINE_PLATFORM_NAME: &str = "modyo-offline";

/// How many received requests (and misses) the offline server keeps for inspection: the most
/// recent ones, so a server that runs for days holds a bounded ledger (counters keep the
/// totals).
pub const KEPT_REQUESTS: usize = 1_000;

/// What to serve, and the environment the server reads its other settings from. Also the
/// arguments of `modyo-lab serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeOptions {
    /// The cassettes directory, or one cassette file (served with what it includes).
    #[arg(long, default_value_os_t = cassette::default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::cassettes_help(
            "The cassettes directory, or one cassette file (served with what it includes)."))]
    pub cassettes: PathBuf,
    /// Also serve cassettes with this tag (left out by default: fault).
    #[arg(long = "include-tag", value_name = "TAG")]
    pub include_tags: Vec<String>,
    /// Test-only fault: make this tool's successful results violate its outputSchema after the
    /// server validated them, to prove strict clients reject them (see `corrupt`).
    #[arg(
        long,
        value_name = "TOOL",
        env = "MODYO_LAB_CORRUPT_OUTPUT",
        hide = true
    )]
    pub corrupt_output: Option<String>,
    /// Answer at once, ignoring the latency recorded as `delay_ms`.
    #[arg(long)]
    pub ignore_latency: bool,
    /// What an answer carries: both (the default), structured or text (see the server's
    /// `--results`). Overrides MODYO_RESULTS.
    #[arg(long, value_name = "FORM")]
    pub results: Option<ResultForm>,
    /// Server environment (`MODYO_READ_ONLY`, `MODYO_MCP_MODULES`...). `MODYO_URL` and
    /// `MODYO_TOKEN` are ignored: the offline server sets both.
    #[arg(skip)]
    pub env: Vec<(String, String)>,
}

impl ServeOptions {
    /// Serves the cassettes under `cassettes` with an empty environment.
    pub fn new(cassettes: impl Into<PathBuf>) -> ServeOptions {
        ServeOptions {
            cassettes: cassettes.into(),
            include_tags: Vec::new(),
            corrupt_output: None,
            ignore_latency: false,
            results: None,
            env: Vec::new(),
        }
    }

    /// Test-only: corrupts the successful results of `tool` (see [`crate::corrupt`]).
    pub fn corrupt_output(mut self, tool: impl Into<String>) -> ServeOptions {
        self.corrupt_output = Some(tool.into());
        self
    }

    /// Also serves cassettes tagged `tag`.
    pub fn include_tag(mut self, tag: impl Into<String>) -> ServeOptions {
        self.include_tags.push(tag.into());
        self
    }

    /// Sets the server environment.
    pub fn env<K: Into<String>, V: Into<String>>(
        mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> ServeOptions {
        self.env = vars
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        self
    }

    fn excluded_tags(&self) -> BTreeSet<&str> {
        DEFAULT_EXCLUDED_TAGS
            .into_iter()
            .filter(|t| !self.include_tags.iter().any(|i| i == t))
            .collect()
    }
}

/// Why the offline server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A cassette could not be loaded or resolved.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// The cassettes could not be mounted.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The server environment is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The replay URI is not a URL (a bug).
    #[error("replay URI {uri} is not a URL: {source}")]
    ReplayUri {
        /// The URI.
        uri: String,
        /// Why it does not parse.
        #[source]
        source: url::ParseError,
    },
    /// The MCP server failed to start or to serve.
    #[error(transparent)]
    Server(#[from] ServerError),
}

/// A replay server with every selected cassette mounted, and the MCP server pointed at it.
#[derive(Debug)]
pub struct Offline {
    replay: ReplayServer,
    server: ModyoServer,
    corrupt_output: Option<String>,
}

impl Offline {
    /// Loads and mounts the cassettes and builds the server (does not serve yet).
    pub async fn start(options: &ServeOptions) -> Result<Offline, ServeError> {
        let (root, all) = cassette::load_path(&options.cassettes)?;
        let cassettes = select(all, &root, options)?;
        let replay = ReplayServer::start(
            ReplayOptions::default()
                .allow_repeats(true)
                .ignore_latency(options.ignore_latency)
                .keep_received(KEPT_REQUESTS),
        )
        .await;
        let count = cassettes.len();
        // One at a time, in mount order (the same result as all at once: loading validated
        // them), so each parsed cassette is freed once its responses are mounted: the peak is
        // one copy of the cassettes, not the parsed trees plus the mounted bodies.
        for cassette in cassettes {
            replay.mount(std::slice::from_ref(&cassette)).await?;
        }
        tracing::info!(
            cassettes = count,
            dir = %options.cassettes.display(),
            uri = %replay.uri(),
            "replaying cassettes"
        );
        let mut config = offline_config(&replay.uri(), &options.env, OFFLINE_TOKEN)?;
        if let Some(form) = options.results {
            config.results = form;
        }
        let server = ModyoServer::new(config)?;
        server.log_registry();
        tracing::info!("{}", server.results_line());
        if let Some(tool) = &options.corrupt_output {
            tracing::warn!(
                tool,
                "test fault on: this tool's results will break its outputSchema"
            );
        }
        Ok(Offline {
            replay,
            server,
            corrupt_output: options.corrupt_output.clone(),
        })
    }

    /// The replay server (received requests, misses, unused interactions).
    pub fn replay(&self) -> &ReplayServer {
        &self.replay
    }

    /// The MCP server.
    pub fn server(&self) -> &ModyoServer {
        &self.server
    }

    /// Serves MCP over `transport` until the peer closes it; the replay server lives as long.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<(), ServeError>
    where
        T: IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let Offline {
            replay,
            server,
            corrupt_output,
        } = self;
        let result = match corrupt_output {
            None => server.serve(transport).await,
            Some(tool) => serve_transport(Corrupting::new(server, tool), transport).await,
        };
        warn_misses(&replay);
        Ok(result?)
    }

    /// Serves MCP over streamable HTTP on `listener` until `shutdown` completes; the replay
    /// server lives as long.
    pub async fn serve_http(
        self,
        listener: HttpListener,
        shutdown: impl std::future::Future<Output = ()> + Send,
    ) -> Result<(), ServeError> {
        let Offline {
            replay,
            server,
            corrupt_output,
        } = self;
        let result = match corrupt_output {
            None => server.serve_http(listener, shutdown).await,
            Some(tool) => {
                listener
                    .serve(Corrupting::new(server, tool), shutdown)
                    .await
            }
        };
        warn_misses(&replay);
        Ok(result?)
    }
}

fn warn_misses(replay: &ReplayServer) {
    let misses = replay.miss_count();
    if misses > 0 {
        tracing::warn!("{misses} request(s) missed the cassettes during this session");
    }
}

/// [`ModyoServer::serve`] for any handler (the corrupting wrapper).
async fn serve_transport<H, T, E, A>(handler: H, transport: T) -> Result<(), ServerError>
where
    H: rmcp::ServerHandler,
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let running = ServiceExt::serve(handler, transport)
        .await
        .map_err(|e| ServerError::Transport(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| ServerError::Transport(e.to_string()))?;
    Ok(())
}

/// The server configuration for a replay server at `uri`: the given environment (minus
/// `MODYO_URL` and `MODYO_TOKEN`, which point at the replay), `token` as the token, and the
/// offline platform name unless `MODYO_PLATFORM_NAME` is set.
pub fn offline_config(
    uri: &str,
    env: &[(String, String)],
    token: &str,
) -> Result<Config, ServeError> {
    let mut config = Config::from_vars(
        env.iter()
            .filter(|(k, _)| k != "MODYO_URL" && k != "MODYO_TOKEN")
            .map(|(k, v)| (k.as_str(), v.clone())),
    )?;
    config.url = Some(
        url::Url::parse(uri).map_err(|source| ServeError::ReplayUri {
            uri: uri.to_owned(),
            source,
        })?,
    );
    config.token = Some(Token::new(token));
    if config.platform_name.is_none() {
        config.platform_name = Some(OFFLINE_PLATFORM_NAME.into());
    }
    Ok(config)
}

/// Starts the offline server and serves MCP over `transport`.
pub async fn run<T, E, A>(options: ServeOptions, transport: T) -> Result<(), ServeError>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    Offline::start(&options).await?.serve(transport).await
}

/// Starts the offline server and serves MCP over this process's stdin and stdout (the same
/// stdio transport as `modyo-mcp`: every malformed line is answered).
pub async fn run_stdio(options: ServeOptions) -> Result<(), ServeError> {
    run(options, modyo_mcp::stdio::stdio()).await
}

/// Drops cassettes with an excluded tag, then adds includes (from `root`), in mount order.
fn select(
    all: Vec<Cassette>,
    root: &std::path::Path,
    options: &ServeOptions,
) -> Result<Vec<Cassette>, CassetteError> {
    let excluded = options.excluded_tags();
    let (kept, dropped): (Vec<Cassette>, Vec<Cassette>) = all
        .into_iter()
        .partition(|c| !c.tags.iter().any(|t| excluded.contains(t.as_str())));
    for c in &dropped {
        tracing::debug!(cassette = c.name(), "left out (excluded tag)");
    }
    cassette::resolve(root, kept)
}
