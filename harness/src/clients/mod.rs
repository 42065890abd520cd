//! `modyo-lab clients`: what real MCP clients put in the model's context, measured by running
//! them.
//!
//! Each client runs headless and offline against our offline server (`modyo-lab serve`, one
//! module per session, legacy "before" and migrated "after") with its model API replaced by a
//! capture endpoint on a loopback port (`endpoint`) whose scripted model loads and calls the
//! module's tools with the cassette scenarios' arguments, one call per turn, then stops. The
//! requests the client sent are compared with what our server listed and answered (the
//! `reference`, the same calls made in-process), and only our parts are kept: a
//! [`capture`] per client, committed under `reports/clients/`. The [`report`] prices the
//! captures with the lab's counters, per module, before and after, with the break-even, and
//! the module reports add the measured profiles ([`measured_profiles`]).
//!
//! - `anthropic`: Claude Code (npm `@anthropic-ai/claude-code`), behind a stand-in Messages
//!   API answered as server-sent events;
//! - `gemini`: the `@google/genai` SDK's MCP adapter, behind a stand-in Gemini API;
//! - `run`: a session's process: temporary home, our server registered by a file of its own,
//!   a dummy key, nothing of the caller's environment.
//!
//! `--report-only` rebuilds the report from the committed captures without running a client;
//! `--check` also re-runs the reference and says which captures are stale (what CI runs,
//! through the tests, without Node or the clients).

mod anthropic;
pub mod capture;
mod endpoint;
mod extract;
mod gemini;
mod reference;
pub mod report;
mod run;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use modyo_mcp::Module;

pub use capture::{Capture, CaptureError, Side};
pub use report::{ClientsReport, ModuleProfile, PriceError};

use crate::report::{CatalogueView, Evidence, Profile};

use crate::cassette::CassetteError;
use crate::serve::ServeError;
use crate::session::Library;

/// The name our server is registered under in every client.
pub const SERVER_NAME: &str = "modyo-offline";

/// The report files, relative to the reports directory.
pub const REPORT_JSON: &str = "clients.json";
/// The Markdown report, relative to the reports directory.
pub const REPORT_MD: &str = "clients.md";
/// The chart of billed input against calls per client, relative to the reports directory.
pub const REPORT_CHART: &str = "clients-billed.svg";

/// Why a run could not complete.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientsError {
    /// A client or its runtime is missing or not the pinned one.
    #[error("setup: {0}")]
    Setup(String),
    /// A client session failed.
    #[error("{0}")]
    Client(String),
    /// A session's requests do not hold what the script made it do.
    #[error("the captured session is incomplete: {0}")]
    Incomplete(String),
    /// The plan's calls do not behave the same twice.
    #[error("plan: {0}")]
    Plan(String),
    /// The in-process reference server failed.
    #[error("reference server: {0}")]
    Reference(String),
    /// The offline server could not start.
    #[error(transparent)]
    Serve(#[from] ServeError),
    /// The cassettes did not load.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// A capture file does not parse.
    #[error("{file}: {source}")]
    Capture {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: CaptureError,
    },
    /// A capture cannot be priced.
    #[error(transparent)]
    Price(#[from] PriceError),
    /// `--module` named no module.
    #[error("unknown module '{0}'; valid: core, content, channels, customers, widgets")]
    UnknownModule(String),
    /// `--module` on a capture of another client version.
    #[error("{0}: the capture was made with another version; run every module (no --module)")]
    VersionMix(String),
    /// Captures that no longer match the server (`--check`).
    #[error("stale captures (run make clients):\n{}", .0.join("\n"))]
    Stale(Vec<String>),
    /// Reading or writing files.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The clients the lab can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Client {
    /// Claude Code, npm `@anthropic-ai/claude-code`.
    ClaudeCode,
    /// The `@google/genai` SDK's MCP adapter (`mcpToTool`), npm `@google/genai`.
    Genai,
}

impl Client {
    /// Every client, in report order.
    pub const ALL: [Client; 2] = [Client::ClaudeCode, Client::Genai];

    /// The short id: the capture's file name.
    pub fn id(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Genai => "genai",
        }
    }

    /// As people name it.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::Genai => "@google/genai (mcpToTool)",
        }
    }

    /// The npm package.
    pub fn package(self) -> &'static str {
        match self {
            Client::ClaudeCode => "@anthropic-ai/claude-code",
            Client::Genai => "@google/genai",
        }
    }

    /// The client with this short id.
    pub fn from_id(id: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.id() == id)
    }

    /// How `modyo-lab clients` runs it, in a sentence (the reports print it).
    pub fn method(self) -> &'static str {
        match self {
            Client::ClaudeCode => {
                "`claude -p` through the package's own fallback launcher (`cli-wrapper.cjs`; install scripts are off), \
a temporary `HOME` and `CLAUDE_CONFIG_DIR`, our server from `--mcp-config` with `--strict-mcp-config`, `--allowedTools mcp__modyo-offline`, \
`--no-session-persistence`; `ANTHROPIC_BASE_URL` at the capture endpoint (the Messages API, answered as server-sent events), a dummy \
`ANTHROPIC_API_KEY`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`. The scripted model loads the session's tools with `ToolSearch` \
(`select:<names>`), then calls them."
            }
            Client::Genai => {
                "`tests/clients/genai.mjs`: the MCP TypeScript SDK's client starts our server over stdio and `mcpToTool(client)` hands \
its tools to `ai.models.generateContent` with automatic function calling; `httpOptions.baseUrl` at the capture endpoint (Gemini's \
`generateContent`, answered as JSON), a dummy key."
            }
        }
    }

    /// The capture file, relative to the reports directory.
    pub fn capture_file(self) -> String {
        format!("clients/{}.jsonl", self.id())
    }
}

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
    /// Run no client: rebuild the report from the captures.
    #[arg(long, conflicts_with = "check")]
    pub report_only: bool,
    /// Run no client: fail if a capture no longer matches what the server answers, or the
    /// report differs from a rebuild.
    #[arg(long)]
    pub check: bool,
    /// The Node binary that runs the clients.
    #[arg(long, default_value_os_t = crate::workspace::dir(".tools/node/node_modules/.bin/node"), hide_default_value = true,
        help = path_help("The Node binary that runs the clients.", ".tools/node/node_modules/.bin/node"))]
    pub node: PathBuf,
    /// The clients' installed packages (`make clients` installs them).
    #[arg(long, default_value_os_t = crate::workspace::dir(".tools/clients/node_modules"), hide_default_value = true,
        help = path_help("The clients' installed packages (`make clients` installs them).", ".tools/clients/node_modules"))]
    pub node_modules: PathBuf,
    /// The genai session script.
    #[arg(long, default_value_os_t = crate::workspace::dir("tests/clients/genai.mjs"), hide_default_value = true,
        help = path_help("The genai session script.", "tests/clients/genai.mjs"))]
    pub genai_script: PathBuf,
    /// Where the reports and captures are (default: the workspace's reports/).
    #[arg(long)]
    pub reports: Option<PathBuf>,
    /// The cassettes directory.
    #[arg(long, default_value_os_t = crate::cassette::default_dir(), hide_default_value = true,
        help = crate::workspace::cassettes_help("The cassettes directory."))]
    pub cassettes: PathBuf,
    /// Seconds one session may take.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
}

/// `modyo-lab clients`.
pub async fn command(args: ClientsArgs) -> Result<(), ClientsError> {
    let dir = args
        .reports
        .clone()
        .unwrap_or_else(crate::report::default_dir);
    if args.check {
        let mut problems = stale(&dir, &args.cassettes).await?;
        let files = regenerate(&dir)?;
        for (name, text) in &files {
            if std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(text.as_str()) {
                problems.push(format!("{name} differs from a rebuild from the captures"));
            }
        }
        if !problems.is_empty() {
            return Err(ClientsError::Stale(problems));
        }
        eprintln!("clients: captures and report are current");
        return Ok(());
    }
    if !args.report_only {
        capture_all(&args, &dir).await?;
    }
    for (name, text) in regenerate(&dir)? {
        std::fs::write(dir.join(&name), text)?;
        eprintln!("clients: wrote {name}");
    }
    Ok(())
}

/// Runs the clients and writes their captures.
async fn capture_all(args: &ClientsArgs, dir: &Path) -> Result<(), ClientsError> {
    let only = match &args.module {
        Some(name) => {
            Some(Module::parse(name).ok_or_else(|| ClientsError::UnknownModule(name.clone()))?)
        }
        None => None,
    };
    let clients = if args.clients.is_empty() {
        Client::ALL.to_vec()
    } else {
        args.clients.clone()
    };
    let setup = run::Setup {
        node: args.node.clone(),
        node_modules: args.node_modules.clone(),
        genai_script: args.genai_script.clone(),
        lab: std::env::current_exe()?,
        cassettes: std::path::absolute(&args.cassettes)?,
        timeout: Duration::from_secs(args.timeout),
    };
    let mut versions = BTreeMap::new();
    for client in &clients {
        versions.insert(*client, setup.version(*client).await?);
    }
    let library = Library::load(&args.cassettes)?;
    let mut sessions: BTreeMap<Client, Vec<capture::Session>> = BTreeMap::new();
    for module in Module::ALL {
        if only.is_some_and(|m| m != module) {
            continue;
        }
        eprintln!("clients: {}: planning", module.as_str());
        let plan = reference::plan(&library, &args.cassettes, module).await?;
        if plan.calls.is_empty() {
            eprintln!("clients: {}: no scenario to call", module.as_str());
            continue;
        }
        for client in &clients {
            for side in Side::BOTH {
                eprintln!(
                    "clients: {} {} {}: {} calls",
                    client.id(),
                    module.as_str(),
                    side.as_str(),
                    plan.calls.len()
                );
                let captured = setup.session(*client, &plan, side).await?;
                let session = match client {
                    Client::ClaudeCode => anthropic::extract(&captured, &plan, side, SERVER_NAME)?,
                    Client::Genai => gemini::extract(&captured, &plan, side)?,
                };
                sessions.entry(*client).or_default().push(session);
            }
        }
    }
    std::fs::create_dir_all(dir.join("clients"))?;
    for client in clients {
        let path = dir.join(client.capture_file());
        let previous = match std::fs::read_to_string(&path) {
            Ok(text) => Some(parse(&path, &text)?),
            Err(_) => None,
        };
        let version = versions[&client].clone();
        let mut fresh = sessions.remove(&client).unwrap_or_default();
        if let (Some(_), Some(previous)) = (only, &previous) {
            if previous.header.version != version {
                return Err(ClientsError::VersionMix(path.display().to_string()));
            }
            let kept: Vec<capture::Session> = previous
                .sessions
                .iter()
                .filter(|s| !fresh.iter().any(|f| f.module == s.module))
                .cloned()
                .collect();
            fresh.extend(kept);
        }
        let mut capture = Capture {
            header: capture::Header {
                format: capture::FORMAT.into(),
                client: client.id().into(),
                name: client.name().into(),
                package: client.package().into(),
                version,
                date: crate::record::today(),
                server: SERVER_NAME.into(),
            },
            sessions: fresh,
        };
        if let Some(previous) = &previous {
            capture.keep_date_of(previous);
        }
        std::fs::write(&path, capture.to_jsonl())?;
        eprintln!("clients: wrote {}", client.capture_file());
    }
    Ok(())
}

fn parse(path: &Path, text: &str) -> Result<Capture, ClientsError> {
    Capture::parse(text).map_err(|source| ClientsError::Capture {
        file: path.display().to_string(),
        source,
    })
}

/// The captures found in `dir` (`clients/<client>.jsonl`), with their relative paths.
pub fn load_captures(dir: &Path) -> Result<Vec<(String, Capture)>, ClientsError> {
    let mut out = Vec::new();
    for client in Client::ALL {
        let file = client.capture_file();
        let path = dir.join(&file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        out.push((file, parse(&path, &text)?));
    }
    Ok(out)
}

/// The report files (`clients.json`, `clients.md`) rebuilt from the captures in `dir`.
pub fn regenerate(dir: &Path) -> Result<BTreeMap<String, String>, ClientsError> {
    let captures = load_captures(dir)?;
    let report = report::build(&captures)?;
    let not_run: Vec<(String, String)> = Client::ALL
        .into_iter()
        .filter(|c| !captures.iter().any(|(_, cap)| cap.header.client == c.id()))
        .map(|c| {
            (
                c.name().to_owned(),
                format!(
                    "No capture yet (`{}`): run `make clients`.",
                    c.capture_file()
                ),
            )
        })
        .collect();
    let mut files = BTreeMap::from([
        (REPORT_JSON.to_owned(), report::json(&report)),
        (REPORT_MD.to_owned(), report::markdown(&report, &not_run)),
    ]);
    if let Some(svg) = report::billed_chart(&report) {
        files.insert(REPORT_CHART.to_owned(), svg);
    }
    Ok(files)
}

/// What no longer matches between the captures in `dir` and our server as built now, served
/// from `cassettes`: the calls a session would make, the tools listed, the instructions, and
/// what each definition and result is of ours. Empty when every capture is current.
pub async fn stale(dir: &Path, cassettes: &Path) -> Result<Vec<String>, ClientsError> {
    let captures = load_captures(dir)?;
    let library = Library::load(cassettes)?;
    let mut plans = BTreeMap::new();
    let mut problems = Vec::new();
    for (file, capture) in &captures {
        for session in &capture.sessions {
            let label = format!("{file}: {} {}", session.module, session.side.as_str());
            let Some(module) = Module::parse(&session.module) else {
                problems.push(format!("{label}: no such module"));
                continue;
            };
            let plan = match plans.entry(module) {
                std::collections::btree_map::Entry::Occupied(plan) => plan.into_mut(),
                std::collections::btree_map::Entry::Vacant(slot) => {
                    slot.insert(reference::plan(&library, cassettes, module).await?)
                }
            };
            problems.extend(
                session_drift(session, plan)
                    .into_iter()
                    .map(|p| format!("{label}: {p}")),
            );
        }
    }
    Ok(problems)
}

/// How a captured session differs from what the plan's reference would give it now.
fn session_drift(session: &capture::Session, plan: &reference::Plan) -> Vec<String> {
    let reference = plan.reference(session.side);
    let mut problems = Vec::new();
    if session.calls != plan.calls || session.left_out != plan.left_out {
        problems.push("the module's scenarios changed (calls or left-out list)".to_owned());
        return problems;
    }
    if session.listed != reference.tools.len() {
        problems.push(format!(
            "{} tools listed, the server lists {}",
            session.listed,
            reference.tools.len()
        ));
    }
    if session
        .instructions
        .iter()
        .any(|i| *i != reference.instructions)
    {
        problems.push("the server's instructions changed".to_owned());
    }
    for d in &session.definitions {
        let now = reference
            .tool(&d.tool)
            .map(|t| extract::carries(t, &d.sent))
            .unwrap_or_default();
        if now != d.carries {
            problems.push(format!("{}'s definition changed", d.tool));
        }
    }
    for r in &session.results {
        let now = reference
            .results
            .get(r.call)
            .map_or(capture::Forwarded::Other, |result| {
                extract::forwarded(result, &r.sent)
            });
        if now != r.forwarded {
            problems.push(format!(
                "the result of {} changed",
                session.calls[r.call].scenario
            ));
        }
    }
    problems
}

/// The profiles of `module` measured by running clients, from `dir`'s `clients.json` (none
/// when it is missing), in the shape of the lab's assumed profiles: the catalogue is what the
/// client was captured sending once per session ([`CatalogueView::Captured`]), the per-call
/// figure the results as it forwarded them, over that session's calls. The whole profile is in
/// `clients.json`.
pub fn measured_profiles(dir: &Path, module: &str) -> Vec<Profile> {
    let Ok(text) = std::fs::read_to_string(dir.join(REPORT_JSON)) else {
        return Vec::new();
    };
    let Ok(report) = serde_json::from_str::<ClientsReport>(&text) else {
        tracing::warn!("{REPORT_JSON} does not parse: the module reports show no measured profile");
        return Vec::new();
    };
    report
        .clients
        .iter()
        .flat_map(|c| {
            c.modules
                .iter()
                .filter(|m| m.module == module)
                .map(|m| Profile {
                    profile: c.client.clone(),
                    behaviour: format!(
                        "once: {}; per call: {} ({} calls of {} tools)",
                        c.once, c.per_call, m.calls, m.tools_used
                    ),
                    catalogue: CatalogueView::Captured,
                    evidence: Evidence::Measured {
                        client: c.name.clone(),
                        version: c.version.clone(),
                        date: c.date.clone(),
                    },
                    catalogue_before: m.before.once,
                    catalogue_after: m.after.once,
                    calls: m.calls,
                    per_call_before: Some(m.per_call_before),
                    per_call_after: Some(m.per_call_after),
                    per_call_percent: m.per_call_percent,
                    break_even_calls: m.break_even_calls,
                    billed_break_even_calls: m.billed_break_even_calls,
                })
        })
        .collect()
}
