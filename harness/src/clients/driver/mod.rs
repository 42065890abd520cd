//! Client drivers: how the lab installs-checks, starts and reads each client, and one session's
//! run.
//!
//! A [`Driver`] says where the client is installed (a folder of `tests/clients/`, installed by
//! `make client-tools` into `.tools/clients/<folder>/`: an npm tree or a Python venv), which
//! package's version it reports, which model API it speaks and how the scripted model must load
//! tools, the command that runs one headless session (with the configuration files it writes
//! into the session's temporary home), and how to read the model's last text from what the
//! client printed. Clients that are libraries run through a driver script of ours
//! (`tests/clients/<folder>/driver.{mjs,py}`), which reads a session file
//! ([`Session::file`]: the endpoint's URL, the server to start, how many calls to allow) and
//! prints `{"text": <the model's last text>}`.
//!
//! [`run`] runs one session: the capture endpoint with the scripted model, a temporary home,
//! an environment holding nothing of the caller's (no proxy, no credential, no setting of ours
//! the server would read) besides `PATH`, the client's command; it fails when the client does
//! not exit cleanly, the endpoint saw no request, or the model's last text is not the script's
//! `done`.

mod claude_code;
mod codex;
mod gemini_cli;
mod scripted;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::Command;

use super::ClientsError;
use super::api::{Api, Loading, Script};
use super::endpoint::{Captured, Endpoint};
use super::server::McpServer;

pub(crate) use claude_code::ClaudeCode;
pub(crate) use codex::{Codex, CodexMode};
pub(crate) use gemini_cli::GeminiCli;
pub(crate) use scripted::{
    CLAUDE_AGENT_SDK, GENAI, GOOGLE_GENAI, LANGCHAIN, LANGCHAIN_JS, MCP_USE, OPENAI_AGENTS,
    OPENAI_AGENTS_JS, PYDANTIC_AI, VERCEL_AI,
};

/// The user prompt of every session (the scripted model ignores it).
pub(crate) const PROMPT: &str = "Run the modyo-lab scripted session.";

/// Where a client's package comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Registry {
    /// npm (`package.json` + `package-lock.json`).
    Npm,
    /// PyPI (`requirements.txt`).
    PyPi,
}

impl Registry {
    /// As the reports name it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Registry::Npm => "npm",
            Registry::PyPi => "PyPI",
        }
    }
}

/// Where the clients and their runtimes are.
#[derive(Debug, Clone)]
pub(crate) struct Tools {
    /// The Node binary that runs the npm clients (Node 22, `make node-tools`).
    pub(crate) node: PathBuf,
    /// `.tools/clients`: one installed folder per client.
    pub(crate) installed: PathBuf,
    /// `tests/clients`: one folder per client (pins, driver script).
    pub(crate) scripts: PathBuf,
    /// How long one session may take.
    pub(crate) timeout: Duration,
    /// Where to keep every session's requests, if anywhere (`--keep-requests`).
    pub(crate) keep: Option<PathBuf>,
}

impl Tools {
    /// `.tools/clients/<folder>/node_modules`.
    pub(crate) fn node_modules(&self, folder: &str) -> PathBuf {
        self.installed.join(folder).join("node_modules")
    }

    /// `.tools/clients/<folder>/venv/bin/python`.
    pub(crate) fn python(&self, folder: &str) -> PathBuf {
        self.installed.join(folder).join("venv/bin/python")
    }

    /// `tests/clients/<folder>/<file>`.
    pub(crate) fn script(&self, folder: &str, file: &str) -> PathBuf {
        self.scripts.join(folder).join(file)
    }

    /// A command with piped output, nothing on stdin and a cleared environment: only what
    /// [`run`] and the driver set reach the client.
    pub(crate) fn command(program: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// Node running `script`.
    pub(crate) fn node(&self, script: &Path) -> Command {
        let mut command = Tools::command(&self.node);
        command.arg(script);
        command
    }
}

/// One session as a driver sees it.
#[derive(Debug)]
pub(crate) struct Session<'a> {
    /// The temporary home.
    pub(crate) home: &'a Path,
    /// The server to register.
    pub(crate) server: &'a McpServer,
    /// The name to register it under.
    pub(crate) server_name: &'a str,
    /// The capture endpoint (`http://127.0.0.1:<port>`).
    pub(crate) base_url: &'a str,
    /// How many calls the script makes.
    pub(crate) calls: usize,
}

impl Session<'_> {
    /// Writes the session file a driver script reads, `extra` merged in, and returns its path.
    pub(crate) fn file(&self, extra: Value) -> Result<PathBuf, ClientsError> {
        let mut session = json!({
            "baseUrl": self.base_url,
            "model": "lab-model",
            "prompt": PROMPT,
            "maxCalls": self.calls + 1,
            "serverName": self.server_name,
            "server": self.server.json(),
        });
        if let (Some(session), Value::Object(extra)) = (session.as_object_mut(), extra) {
            session.extend(extra);
        }
        let path = self.home.join("session.json");
        std::fs::write(&path, session.to_string())?;
        Ok(path)
    }
}

/// How the lab runs one client.
pub(crate) trait Driver: Sync + std::fmt::Debug {
    /// Where its package comes from.
    fn registry(&self) -> Registry;
    /// The package whose version the capture records.
    fn package(&self) -> &'static str;
    /// Its folder under `tests/clients/` and `.tools/clients/`.
    fn folder(&self) -> &'static str;
    /// The API it speaks.
    fn api(&self) -> Api;
    /// How the scripted model loads tools.
    fn loading(&self) -> Loading {
        Loading::Declared
    }
    /// How it ran, in a sentence for the reports.
    fn method(&self) -> &'static str;
    /// Why the module sessions are not run for it (`None`: they are).
    fn not_priced(&self) -> Option<&'static str> {
        None
    }
    /// Checks what the client itself says of its version, when it can say.
    fn check_version(&self, _tools: &Tools, _version: &str) -> Result<(), ClientsError> {
        Ok(())
    }
    /// The command of one session (files it needs are written into `session.home`).
    fn command(&self, tools: &Tools, session: &Session<'_>) -> Result<Command, ClientsError>;
    /// The model's last text, from what the client printed.
    fn final_text(&self, stdout: &str) -> Option<String> {
        last_json(stdout)?.get("text")?.as_str().map(str::to_owned)
    }

    /// The installed version, checked.
    fn version(&self, tools: &Tools) -> Result<String, ClientsError> {
        let version = match self.registry() {
            Registry::Npm => npm_version(tools, self.folder(), self.package())?,
            Registry::PyPi => pypi_version(tools, self.folder(), self.package())?,
        };
        self.check_version(tools, &version)?;
        Ok(version)
    }
}

/// The command of a driver script of ours (`tests/clients/<folder>/driver.mjs` on Node, or
/// `driver.py` in the client's venv) reading the session file with `extra` merged in.
pub(crate) fn script(
    tools: &Tools,
    session: &Session<'_>,
    registry: Registry,
    folder: &str,
    extra: Value,
) -> Result<Command, ClientsError> {
    let file = session.file(extra)?;
    let mut command = match registry {
        Registry::Npm => tools.node(&tools.script(folder, "driver.mjs")),
        Registry::PyPi => {
            let mut command = Tools::command(&tools.python(folder));
            command.arg(tools.script(folder, "driver.py"));
            command
        }
    };
    command.arg(file);
    Ok(command)
}

/// The last line of `stdout` that is JSON.
pub(crate) fn last_json(stdout: &str) -> Option<Value> {
    stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l.trim()).ok())
}

/// The version of npm `package` installed in `folder`.
fn npm_version(tools: &Tools, folder: &str, package: &str) -> Result<String, ClientsError> {
    if !tools.node.is_file() {
        return Err(ClientsError::Setup(format!(
            "Node is not installed at {}; run make node-tools (make clients installs it), or pass --node",
            tools.node.display()
        )));
    }
    let manifest = tools
        .node_modules(folder)
        .join(package)
        .join("package.json");
    let text = std::fs::read_to_string(&manifest).map_err(|e| {
        ClientsError::Setup(format!(
            "{package} is not installed ({}: {e}); run make clients, which installs it",
            manifest.display()
        ))
    })?;
    serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.get("version")?.as_str().map(str::to_owned))
        .ok_or_else(|| ClientsError::Setup(format!("{} has no version", manifest.display())))
}

/// The version of PyPI `package` installed in `folder`'s venv.
fn pypi_version(tools: &Tools, folder: &str, package: &str) -> Result<String, ClientsError> {
    let python = tools.python(folder);
    let output = std::process::Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata, sys; print(importlib.metadata.version(sys.argv[1]))",
            package,
        ])
        .env_clear()
        .output()
        .map_err(|e| {
            ClientsError::Setup(format!(
                "{package} is not installed ({}: {e}); run make clients, which installs it",
                python.display()
            ))
        })?;
    let said = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || said.is_empty() {
        return Err(ClientsError::Setup(format!(
            "{package} is not installed in {}: {}",
            python.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(said)
}

/// Writes `captured` as `dir/<what, as a file name>.jsonl`.
fn keep(dir: &Path, what: &str, captured: &[Captured]) -> Result<(), ClientsError> {
    std::fs::create_dir_all(dir)?;
    let name: String = what
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let text: String = captured
        .iter()
        .map(|c| format!("{}\n", json!({"path": c.path, "body": c.body})))
        .collect();
    std::fs::write(dir.join(format!("{name}.jsonl")), text)?;
    Ok(())
}

/// The last `n` characters of `s`.
pub(crate) fn tail(s: &str, n: usize) -> String {
    let skip = s.chars().count().saturating_sub(n);
    s.chars().skip(skip).collect()
}

/// What one session left.
#[derive(Debug)]
pub(crate) struct Ran {
    /// Every request the endpoint got, in arrival order.
    pub(crate) captured: Vec<Captured>,
    /// The session's temporary home (gone now; strings that name it are scrubbed).
    pub(crate) home: String,
    /// The endpoint's base URL (idem).
    pub(crate) base_url: String,
}

/// Runs one session of `driver` with `server` registered as `server_name` and `script` as the
/// model; returns every request the endpoint got.
pub(crate) async fn run(
    driver: &dyn Driver,
    tools: &Tools,
    server: &McpServer,
    server_name: &str,
    script: Script,
    what: &str,
) -> Result<Ran, ClientsError> {
    let calls = script.steps.len();
    let endpoint = Endpoint::start(Box::new(script)).await;
    let home = tempfile::tempdir()?;
    let work = home.path().join("work");
    std::fs::create_dir_all(&work)?;
    let base_url = endpoint.uri();
    let session = Session {
        home: home.path(),
        server,
        server_name,
        base_url: &base_url,
        calls,
    };
    let mut command = driver.command(tools, &session)?;
    command
        .current_dir(&work)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("TMPDIR", home.path())
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost");
    let output = tokio::time::timeout(tools.timeout, command.output()).await;
    let captured = endpoint.captured().await;
    if let Some(dir) = &tools.keep {
        keep(dir, what, &captured)?;
    }
    let output = output
        .map_err(|_| {
            ClientsError::Client(format!(
                "{what}: no end after {} s ({} requests captured)",
                tools.timeout.as_secs(),
                captured.len()
            ))
        })?
        .map_err(|e| ClientsError::Client(format!("{what}: does not start: {e}")))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(ClientsError::Client(format!(
            "{what}: exited with {} ({} requests captured)\nstdout: {}\nstderr: {}",
            output.status,
            captured.len(),
            tail(&stdout, 2000),
            tail(&stderr, 2000)
        )));
    }
    if captured.is_empty() {
        return Err(ClientsError::Client(format!(
            "{what}: the capture endpoint saw no request"
        )));
    }
    let said = driver.final_text(&stdout);
    if said.as_deref() != Some("done") {
        return Err(ClientsError::Client(format!(
            "{what}: the session did not end with the script's \"done\" ({said:?}; {} requests captured)\nstdout: {}\nstderr: {}",
            captured.len(),
            tail(&stdout, 1000),
            tail(&stderr, 2000)
        )));
    }
    Ok(Ran {
        captured,
        home: home.path().to_string_lossy().into_owned(),
        base_url,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_json_line_is_read_past_logs() {
        assert_eq!(
            last_json("warning\n{\"text\":\"done\"}\nbye\n")
                .and_then(|v| v["text"].as_str().map(str::to_owned)),
            Some("done".into())
        );
        assert_eq!(last_json("not json"), None);
        assert_eq!(tail("abcdef", 2), "ef");
    }

    #[test]
    fn a_missing_node_names_itself_and_the_command_that_installs_it() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let tools = Tools {
            node: dir.path().join("no-node"),
            installed: dir.path().join("installed"),
            scripts: dir.path().join("scripts"),
            timeout: Duration::from_secs(1),
            keep: None,
        };
        let error = npm_version(&tools, "claude-code", "@anthropic-ai/claude-code")
            .expect_err("no Node, no version")
            .to_string();
        assert!(
            error.contains("no-node") && error.contains("make node-tools"),
            "{error}"
        );
        let error = pypi_version(&tools, "pydantic-ai", "pydantic-ai-slim")
            .expect_err("no venv")
            .to_string();
        assert!(error.contains("make clients"), "{error}");
    }

    #[test]
    fn the_session_file_holds_the_endpoint_the_server_and_the_call_budget() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let server = McpServer::marker(Path::new("/lab"));
        let session = Session {
            home: dir.path(),
            server: &server,
            server_name: "marker",
            base_url: "http://127.0.0.1:9",
            calls: 3,
        };
        let path = session.file(json!({"api": "chat"})).expect("written");
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json");
        assert_eq!(v["maxCalls"], 4);
        assert_eq!(v["api"], "chat");
        assert_eq!(v["server"]["args"], json!(["marker"]));
    }
}
