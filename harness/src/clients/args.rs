//! The arguments of `modyo-lab clients`.

use std::path::PathBuf;

use super::Client;

/// The help of an option whose default is `path` under the workspace.
fn path_help(what: &str, path: &str) -> String {
    format!(
        "{what} [default: {path} of the workspace this binary stands in, else of the workspace \
         around the current directory, else ./{path}]"
    )
}

/// The arguments of `modyo-lab clients`.
#[derive(Debug, Clone, clap::Args)]
pub struct ClientsArgs {
    /// Only this client (repeatable; default: every client).
    #[arg(long = "client", value_enum)]
    pub clients: Vec<Client>,
    /// Only this module's sessions (the capture keeps the other modules' sessions).
    #[arg(long)]
    pub module: Option<String>,
    /// Run no client: rebuild the report from the captures and fingerprints.
    #[arg(long, conflicts_with = "check")]
    pub report_only: bool,
    /// Run no client: fail if a capture no longer matches what the server answers, a
    /// fingerprint is not what its marker capture shows, or the report differs from a rebuild.
    #[arg(long)]
    pub check: bool,
    /// Run only the marker sessions (the fingerprints), no module session.
    #[arg(long, conflicts_with = "no_fingerprints")]
    pub fingerprints_only: bool,
    /// Run no marker session (keep the committed fingerprints).
    #[arg(long)]
    pub no_fingerprints: bool,
    /// Run the clients against this stdio MCP server instead of ours (one command line, split
    /// like a shell would): each client's session is priced as one catalogue and the calls of
    /// --calls; needs --reports.
    #[arg(long, value_name = "CMD", requires = "reports")]
    pub server: Option<String>,
    /// With --server: a JSON array of `{"name"?, "tool", "arguments"?}` to call, one per turn
    /// (without it, only the catalogue is priced).
    #[arg(long, requires = "server")]
    pub calls: Option<PathBuf>,
    /// With --server: the name the server is registered under in every client.
    #[arg(long, default_value = "server", requires = "server")]
    pub name: String,
    /// The Node binary that runs the npm clients.
    #[arg(long, default_value_os_t = modyo_replay::workspace::dir(".tools/node/node_modules/.bin/node"), hide_default_value = true,
        help = path_help("The Node binary that runs the npm clients.", ".tools/node/node_modules/.bin/node"))]
    pub node: PathBuf,
    /// The installed clients, one folder each (`make clients` installs them).
    #[arg(long, default_value_os_t = modyo_replay::workspace::dir(".tools/clients"), hide_default_value = true,
        help = path_help("The installed clients, one folder each (`make clients` installs them).", ".tools/clients"))]
    pub tools: PathBuf,
    /// The clients' pins and driver scripts, one folder each.
    #[arg(long, default_value_os_t = modyo_replay::workspace::dir("tests/clients"), hide_default_value = true,
        help = path_help("The clients' pins and driver scripts, one folder each.", "tests/clients"))]
    pub scripts: PathBuf,
    /// Where the reports and captures are (default: the workspace's reports/).
    #[arg(long)]
    pub reports: Option<PathBuf>,
    /// The cassettes directory.
    #[arg(long, default_value_os_t = modyo_replay::cassette::default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::cassettes_help("The cassettes directory."))]
    pub cassettes: PathBuf,
    /// Keep every session's model requests, whole, as `DIR/<client>-<session>.jsonl` (to see
    /// why a session failed; never committed: they hold the clients' own prompts).
    #[arg(long, value_name = "DIR")]
    pub keep_requests: Option<PathBuf>,
    /// Seconds one session may take.
    #[arg(long, default_value_t = 900)]
    pub timeout: u64,
}
