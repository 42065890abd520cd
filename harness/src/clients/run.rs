//! Running a client for one session: a temporary home, our offline server registered through
//! a file of the session's own, the capture endpoint as the model API, a dummy key, and an
//! environment that holds nothing else of the caller's (no proxy, no credential, no setting of
//! ours the server would read).
//!
//! Claude Code runs through the package's own fallback launcher (`cli-wrapper.cjs`, for
//! installs without install scripts), with `-p` (headless), `--strict-mcp-config` (only our
//! server), `--no-session-persistence` and `--allowedTools mcp__<server>` (our tools need no
//! prompt; nothing else is allowed). The genai SDK runs through `tests/clients/genai.mjs`,
//! which connects the SDK's MCP client to the server and lets automatic function calling make
//! the calls.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::Command;

use super::endpoint::{Captured, Endpoint, Script};
use super::reference::{Plan, server_env};
use super::{Client, ClientsError, SERVER_NAME, Side};

/// The user prompt of every session (the scripted model ignores it).
const PROMPT: &str = "Run the modyo-lab scripted session.";

/// What a session runs with.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    /// The Node binary.
    pub(crate) node: PathBuf,
    /// The clients' `node_modules`.
    pub(crate) node_modules: PathBuf,
    /// `tests/clients/genai.mjs`.
    pub(crate) genai_script: PathBuf,
    /// `modyo-lab`, which the client starts as its MCP server (`serve`).
    pub(crate) lab: PathBuf,
    /// The cassettes the server replays.
    pub(crate) cassettes: PathBuf,
    /// How long one session may take.
    pub(crate) timeout: Duration,
}

impl Setup {
    fn claude_launcher(&self) -> PathBuf {
        self.node_modules
            .join("@anthropic-ai/claude-code/cli-wrapper.cjs")
    }

    /// The installed version of `client`'s package, checked against what the client itself
    /// reports when it can say.
    pub(crate) async fn version(&self, client: Client) -> Result<String, ClientsError> {
        if !self.node.is_file() {
            return Err(ClientsError::Setup(format!(
                "Node is not installed at {}; run make node-tools (make clients installs it), or pass --node",
                self.node.display()
            )));
        }
        let manifest = self
            .node_modules
            .join(client.package())
            .join("package.json");
        let text = std::fs::read_to_string(&manifest).map_err(|e| {
            ClientsError::Setup(format!(
                "{} is not installed ({}: {e}); run make clients, which installs it",
                client.package(),
                manifest.display()
            ))
        })?;
        let version = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v.get("version")?.as_str().map(str::to_owned))
            .ok_or_else(|| ClientsError::Setup(format!("{} has no version", manifest.display())))?;
        if client == Client::ClaudeCode {
            let output = self
                .command(&self.claude_launcher())
                .arg("--version")
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .output()
                .await
                .map_err(|e| ClientsError::Setup(format!("Claude Code does not start: {e}")))?;
            let said = String::from_utf8_lossy(&output.stdout);
            if !output.status.success() || !said.starts_with(&format!("{version} ")) {
                return Err(ClientsError::Setup(format!(
                    "Claude Code {version} is installed but `claude --version` says {:?} (stderr: {})",
                    said.trim(),
                    String::from_utf8_lossy(&output.stderr).trim()
                )));
            }
        }
        Ok(version)
    }

    fn command(&self, script: &Path) -> Command {
        let mut command = Command::new(&self.node);
        command
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// Our offline server as the client should start it, for `plan`'s module on `side`.
    fn server(&self, plan: &Plan, side: Side) -> Value {
        let mut env = serde_json::Map::new();
        env.insert("RUST_LOG".into(), json!("warn"));
        for (k, v) in server_env(plan.module, side) {
            env.insert(k, json!(v));
        }
        json!({
            "type": "stdio",
            "command": self.lab,
            "args": ["serve", "--ignore-latency", "--cassettes", self.cassettes],
            "env": env,
        })
    }

    /// Runs `client` for `plan`'s session on `side`; returns every request the model API got.
    pub(crate) async fn session(
        &self,
        client: Client,
        plan: &Plan,
        side: Side,
    ) -> Result<Vec<Captured>, ClientsError> {
        let script: Box<dyn Script> = match client {
            Client::ClaudeCode => {
                Box::new(super::anthropic::MessagesScript::new(plan, SERVER_NAME))
            }
            Client::Genai => Box::new(super::gemini::GenerateScript::new(plan)),
        };
        let endpoint = Endpoint::start(script).await;
        let home = tempfile::tempdir().map_err(ClientsError::Io)?;
        let work = home.path().join("work");
        std::fs::create_dir_all(&work).map_err(ClientsError::Io)?;
        let mut command = match client {
            Client::ClaudeCode => self.claude(home.path(), plan, side)?,
            Client::Genai => self.genai(home.path(), plan, side, &endpoint.uri())?,
        };
        command
            .current_dir(&work)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("TMPDIR", home.path())
            .env("NO_PROXY", "127.0.0.1,localhost");
        if client == Client::ClaudeCode {
            command
                .env("CLAUDE_CONFIG_DIR", home.path().join(".claude"))
                .env("ANTHROPIC_BASE_URL", endpoint.uri())
                .env("ANTHROPIC_API_KEY", "sk-ant-modyo-lab-dummy")
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .env("DISABLE_AUTOUPDATER", "1")
                .env("DISABLE_TELEMETRY", "1")
                .env("DISABLE_ERROR_REPORTING", "1");
        }
        let what = format!(
            "{} {} {}",
            client.name(),
            plan.module.as_str(),
            side.as_str()
        );
        let output = tokio::time::timeout(self.timeout, command.output()).await;
        let captured = endpoint.captured().await;
        let output = output
            .map_err(|_| {
                ClientsError::Client(format!(
                    "{what}: no end after {} s ({} requests captured)",
                    self.timeout.as_secs(),
                    captured.len()
                ))
            })?
            .map_err(|e| ClientsError::Client(format!("{what}: does not start: {e}")))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail = |s: &str| {
            let skip = s.chars().count().saturating_sub(2000);
            s.chars().skip(skip).collect::<String>()
        };
        if !output.status.success() {
            return Err(ClientsError::Client(format!(
                "{what}: exited with {} ({} requests captured)\nstdout: {}\nstderr: {}",
                output.status,
                captured.len(),
                tail(&stdout),
                tail(&stderr)
            )));
        }
        if captured.is_empty() {
            return Err(ClientsError::Client(format!(
                "{what}: the capture endpoint saw no request"
            )));
        }
        let said = final_text(client, &stdout);
        if said.as_deref() != Some("done") {
            return Err(ClientsError::Client(format!(
                "{what}: the session did not end with the script's \"done\" ({said:?}; {} requests captured)\nstderr: {}",
                captured.len(),
                tail(&stderr)
            )));
        }
        Ok(captured)
    }

    fn claude(&self, home: &Path, plan: &Plan, side: Side) -> Result<Command, ClientsError> {
        let config = home.join("mcp.json");
        let servers = json!({"mcpServers": {SERVER_NAME: self.server(plan, side)}});
        std::fs::write(&config, servers.to_string()).map_err(ClientsError::Io)?;
        let mut command = self.command(&self.claude_launcher());
        command
            .arg("-p")
            .arg(PROMPT)
            .arg("--mcp-config")
            .arg(&config)
            .arg("--strict-mcp-config")
            .arg("--no-session-persistence")
            .arg("--allowedTools")
            .arg(format!("mcp__{SERVER_NAME}"))
            .arg("--output-format")
            .arg("json");
        Ok(command)
    }

    fn genai(
        &self,
        home: &Path,
        plan: &Plan,
        side: Side,
        base_url: &str,
    ) -> Result<Command, ClientsError> {
        let config = home.join("session.json");
        let session = json!({
            "baseUrl": base_url,
            "model": "lab-model",
            "prompt": PROMPT,
            "maxCalls": plan.calls.len() + 1,
            "server": self.server(plan, side),
        });
        std::fs::write(&config, session.to_string()).map_err(ClientsError::Io)?;
        let mut command = self.command(&self.genai_script);
        command.arg(&config);
        Ok(command)
    }
}

/// The session's last model text as the client printed it: Claude Code's `--output-format
/// json` has it in `result`, the genai script in `text`.
fn final_text(client: Client, stdout: &str) -> Option<String> {
    let value: Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())?;
    let key = match client {
        Client::ClaudeCode => "result",
        Client::Genai => "text",
    };
    if client == Client::ClaudeCode && value.get("is_error").and_then(Value::as_bool) != Some(false)
    {
        return None;
    }
    value.get(key)?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_ends_with_the_scripts_done() {
        let claude = r#"{"type":"result","is_error":false,"result":"done","num_turns":3}"#;
        assert_eq!(final_text(Client::ClaudeCode, claude), Some("done".into()));
        let failed = r#"{"type":"result","is_error":true,"result":"API Error: 500"}"#;
        assert_eq!(final_text(Client::ClaudeCode, failed), None);
        assert_eq!(
            final_text(Client::Genai, "warning\n{\"text\":\"done\"}\n"),
            Some("done".into())
        );
        assert_eq!(final_text(Client::Genai, "not json"), None);
    }

    #[tokio::test]
    async fn a_missing_node_names_itself_and_the_command_that_installs_it() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let setup = Setup {
            node: dir.path().join("no-node"),
            node_modules: dir.path().join("node_modules"),
            genai_script: dir.path().join("genai.mjs"),
            lab: dir.path().join("modyo-lab"),
            cassettes: dir.path().join("cassettes"),
            timeout: Duration::from_secs(1),
        };
        let error = setup
            .version(Client::ClaudeCode)
            .await
            .expect_err("no Node, no version")
            .to_string();
        assert!(
            error.contains("no-node") && error.contains("make node-tools"),
            "{error}"
        );
    }
}
