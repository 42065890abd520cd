//! What the lint runs against: any MCP server spawned over stdio (its `tools/list`, and the
//! calls a `--calls` file asks for), and, for our own server, every cassette scenario replayed
//! in-process.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, Tool};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde::Deserialize;
use serde_json::Value;
use tokio::io::AsyncReadExt;

use super::{Lint, Lists, Report, Rule};
use crate::session::{Library, Session, SessionError};
use modyo_replay::cassette::CassetteError;

/// How long the lint waits for a server to start and answer `tools/list`, or a call.
const PATIENCE: Duration = Duration::from_secs(60);

/// Server environment the default target clears, so it lints the full, migrated catalogue
/// whatever the caller's shell says.
const CLEARED_ENV: [&str; 3] = [
    "MODYO_READ_ONLY",
    "MODYO_MCP_MODULES",
    "MODYO_MCP_LEGACY_MODULES",
];

/// Why the lint could not run (exit code 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LintError {
    /// The server command could not be started or did not speak MCP.
    #[error("cannot talk to the server `{command}`: {reason}{stderr}")]
    Server {
        /// The command line.
        command: String,
        /// What failed.
        reason: String,
        /// The end of the server's stderr, if it wrote any.
        stderr: String,
    },
    /// The cassettes could not be loaded.
    #[error(transparent)]
    Cassettes(#[from] CassetteError),
    /// An in-process replay session could not start.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A lists or calls file is unreadable or malformed.
    #[error("{path}: {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A planned call could not be made.
    #[error("call {index} ({tool}): {reason}")]
    Call {
        /// Its index in the calls file.
        index: usize,
        /// The tool.
        tool: String,
        /// What failed.
        reason: String,
    },
}

/// A command that serves MCP on stdio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerCommand {
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Environment variables removed from the child's environment.
    pub env_remove: Vec<String>,
    /// Environment variables set for the child (an `mcp.json` entry's `env`).
    pub env: Vec<(String, String)>,
}

impl ServerCommand {
    /// `argv[0] argv[1..]`, or `None` when `argv` is empty.
    pub fn new(argv: Vec<OsString>) -> Option<ServerCommand> {
        let mut argv = argv.into_iter();
        Some(ServerCommand {
            program: argv.next()?,
            args: argv.collect(),
            env_remove: Vec::new(),
            env: Vec::new(),
        })
    }

    /// Our offline server: `<modyo-lab> serve --cassettes <dir>`, with the module, legacy and
    /// read-only settings cleared so the whole migrated catalogue is linted.
    pub fn ours(modyo_lab: impl Into<OsString>, cassettes: impl Into<OsString>) -> ServerCommand {
        ServerCommand {
            program: modyo_lab.into(),
            args: vec!["serve".into(), "--cassettes".into(), cassettes.into()],
            env_remove: CLEARED_ENV.iter().map(|s| (*s).to_owned()).collect(),
            env: Vec::new(),
        }
    }

    /// The command line, its words joined by spaces.
    pub fn line(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One call a `--calls` file asks the lint to make, and whose result it checks (C8, C11, C12);
/// `modyo-lab measure --calls` reads the same file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedCall {
    /// A name for the call in reports (default: its index and tool).
    #[serde(default)]
    pub name: Option<String>,
    /// The tool.
    pub tool: String,
    /// Its arguments (an object; absent means none).
    #[serde(default)]
    pub arguments: Value,
}

impl PlannedCall {
    /// Reads a JSON array of `{tool, arguments}`.
    pub fn load(path: &std::path::Path) -> Result<Vec<PlannedCall>, LintError> {
        read_json(path)
    }
}

impl Lists {
    /// Reads a lists file (see [`Lists`]).
    pub fn load(path: &std::path::Path) -> Result<Lists, LintError> {
        read_json(path)
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &std::path::Path) -> Result<T, LintError> {
    let file = |reason: String| LintError::File {
        path: path.to_owned(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| file(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| file(e.to_string()))
}

/// What to lint and how.
#[derive(Debug, Clone)]
pub struct LintOptions {
    /// The server to spawn for `tools/list` (and the planned calls).
    pub command: ServerCommand,
    /// Replay every scenario of the cassettes under this directory through our server
    /// in-process (C8, C11, C12). Only meaningful when `command` is our server.
    pub replay: Option<PathBuf>,
    /// The exemption lists.
    pub lists: Lists,
    /// Calls to make on the spawned server, whose results are checked.
    pub calls: Vec<PlannedCall>,
    /// Report only these rules (all when empty).
    pub rules: Vec<Rule>,
}

/// Runs the lint: spawns the server, reads `tools/list`, makes the planned calls, replays the
/// cassettes if asked, applies the lists.
pub async fn run(options: &LintOptions) -> Result<Report, LintError> {
    let (client, stderr) = spawn(&options.command).await?;
    let server_error = |reason: String| LintError::Server {
        command: options.command.line(),
        reason,
        stderr: tail(&stderr),
    };
    let tools = match tokio::time::timeout(PATIENCE, client.list_all_tools()).await {
        Ok(Ok(tools)) => tools,
        Ok(Err(e)) => return Err(server_error(format!("tools/list failed: {e}"))),
        Err(_) => return Err(server_error("tools/list timed out".into())),
    };
    let mut lint = Lint::new(tools, options.lists.clone());
    let outcome = call_each(&mut lint, &client, &options.calls).await;
    let _ = client.cancel().await;
    outcome?;
    if let Some(dir) = &options.replay {
        replay_library(&mut lint, &Library::load(dir)?).await?;
    }
    let mut report = lint.finish();
    if !options.rules.is_empty() {
        report
            .violations
            .retain(|v| options.rules.contains(&v.rule));
        report.exempted.retain(|e| options.rules.contains(&e.rule));
    }
    Ok(report)
}

type Stderr = Arc<Mutex<Vec<u8>>>;

async fn spawn(
    command: &ServerCommand,
) -> Result<(RunningService<RoleClient, ()>, Stderr), LintError> {
    let mut child = tokio::process::Command::new(&command.program);
    child.args(&command.args);
    for key in &command.env_remove {
        child.env_remove(key);
    }
    if std::env::var_os("RUST_LOG").is_none() {
        child.env("RUST_LOG", "warn");
    }
    let error = |reason: String, stderr: &Stderr| LintError::Server {
        command: command.line(),
        reason,
        stderr: tail(stderr),
    };
    let buffer: Stderr = Arc::default();
    let (transport, pipe) = TokioChildProcess::builder(child)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| error(e.to_string(), &buffer))?;
    if let Some(mut pipe) = pipe {
        let sink = buffer.clone();
        tokio::spawn(async move {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut kept) = sink.lock() {
                    kept.extend_from_slice(&chunk[..n]);
                    let excess = kept.len().saturating_sub(16 * 1024);
                    kept.drain(..excess);
                }
            }
        });
    }
    match tokio::time::timeout(PATIENCE, ().serve(transport)).await {
        Ok(Ok(client)) => Ok((client, buffer)),
        Ok(Err(e)) => Err(error(format!("initialize failed: {e}"), &buffer)),
        Err(_) => Err(error("initialize timed out".into(), &buffer)),
    }
}

fn tail(stderr: &Stderr) -> String {
    let text = stderr
        .lock()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(10).collect();
    if lines.is_empty() {
        return String::new();
    }
    let lines: Vec<&str> = lines.into_iter().rev().collect();
    format!("\nserver stderr (last lines):\n{}", lines.join("\n"))
}

async fn call_each(
    lint: &mut Lint,
    client: &RunningService<RoleClient, ()>,
    calls: &[PlannedCall],
) -> Result<(), LintError> {
    for (index, call) in calls.iter().enumerate() {
        let error = |reason: String| LintError::Call {
            index,
            tool: call.tool.clone(),
            reason,
        };
        let Some(tool) = lint.tools().iter().find(|t| t.name == call.tool).cloned() else {
            return Err(error("not in tools/list".into()));
        };
        let mut params = CallToolRequestParams::new(call.tool.clone());
        match &call.arguments {
            Value::Object(map) => params.arguments = Some(map.clone()),
            Value::Null => {}
            _ => return Err(error("arguments must be an object".into())),
        }
        let origin = format!("call {index}");
        match tokio::time::timeout(PATIENCE, client.call_tool(params)).await {
            Ok(Ok(result)) => lint.result(&tool, &result, &origin),
            Ok(Err(e)) => record_failure(lint, &tool, &origin, e).map_err(error)?,
            Err(_) => return Err(error("timed out".into())),
        }
    }
    Ok(())
}

/// A JSON-RPC error: an output validation failure is a C8 violation; anything else means the
/// call could not be checked.
fn record_failure(
    lint: &mut Lint,
    tool: &Tool,
    origin: &str,
    e: ServiceError,
) -> Result<(), String> {
    let text = e.to_string();
    if text.contains("Output validation error") {
        lint.output_invalid(&tool.name, origin, &text);
        Ok(())
    } else {
        Err(text)
    }
}

/// Replays every scenario of `library` through our server in-process (one session per
/// scenario, with its environment) and checks each result (C8, C11, C12). Scenarios whose
/// tool is not registered, and calls refused as protocol errors (bad arguments on purpose),
/// are left to the scenario tests.
pub async fn replay_library(lint: &mut Lint, library: &Library) -> Result<(), LintError> {
    for (cassette, scenario) in library.scenarios() {
        let origin = format!("{}#{}", cassette.name(), scenario.name);
        let env: Vec<(String, String)> = scenario
            .env
            .iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect();
        let session = Session::start(&library.mount_set(cassette.name())?, &env).await?;
        let tools = session
            .tools()
            .await
            .map_err(|e| SessionError::Client(e.to_string()))?;
        if let Some(tool) = tools.iter().find(|t| t.name == scenario.tool) {
            match session
                .call(&scenario.tool, scenario.arguments.clone())
                .await
            {
                Ok(result) => lint.result(tool, &result, &origin),
                Err(e) => {
                    let _ = record_failure(lint, tool, &origin, e);
                }
            }
        }
        session.close().await;
    }
    Ok(())
}
