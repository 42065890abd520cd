//! Claude Code (npm `@anthropic-ai/claude-code`): `claude -p` through the package's own
//! fallback launcher (`cli-wrapper.cjs`, for installs without install scripts), with our server
//! from `--mcp-config` and `--strict-mcp-config` (only it), `--no-session-persistence` and
//! `--allowedTools mcp__<server>` (our tools need no prompt; nothing else is allowed), the
//! Messages API at the capture endpoint. Claude Code defers MCP tools: the scripted model loads
//! them with `ToolSearch`.

use serde_json::{Value, json};
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools, last_json, tail};
use crate::clients::ClientsError;
use crate::clients::api::{Api, Loading};

/// Claude Code.
#[derive(Debug)]
pub(crate) struct ClaudeCode;

const FOLDER: &str = "claude-code";
const PACKAGE: &str = "@anthropic-ai/claude-code";

impl ClaudeCode {
    fn launcher(tools: &Tools) -> std::path::PathBuf {
        tools
            .node_modules(FOLDER)
            .join(PACKAGE)
            .join("cli-wrapper.cjs")
    }
}

/// The environment a Claude process gets (Claude Code and the Agent SDK's): its own config
/// directory in the session's home, the Messages API at the endpoint, a dummy key, no
/// nonessential traffic, no updater, telemetry or error reports.
pub(crate) fn claude_env(session: &Session<'_>) -> Vec<(&'static str, String)> {
    vec![
        (
            "CLAUDE_CONFIG_DIR",
            session.home.join(".claude").to_string_lossy().into_owned(),
        ),
        ("ANTHROPIC_BASE_URL", session.base_url.to_owned()),
        ("ANTHROPIC_API_KEY", "sk-ant-modyo-lab-dummy".to_owned()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
        ("DISABLE_AUTOUPDATER", "1".to_owned()),
        ("DISABLE_TELEMETRY", "1".to_owned()),
        ("DISABLE_ERROR_REPORTING", "1".to_owned()),
    ]
}

/// Claude's `result` message: its text when it is not an error.
pub(crate) fn result_text(value: &Value) -> Option<String> {
    if value.get("is_error").and_then(Value::as_bool) != Some(false) {
        return None;
    }
    value.get("result")?.as_str().map(str::to_owned)
}

impl Driver for ClaudeCode {
    fn registry(&self) -> Registry {
        Registry::Npm
    }
    fn package(&self) -> &'static str {
        PACKAGE
    }
    fn folder(&self) -> &'static str {
        FOLDER
    }
    fn api(&self) -> Api {
        Api::Anthropic
    }
    fn loading(&self) -> Loading {
        Loading::ClaudeSearch
    }
    fn method(&self) -> &'static str {
        "`claude -p` through the package's own fallback launcher (`cli-wrapper.cjs`; install scripts are off), \
a temporary `HOME` and `CLAUDE_CONFIG_DIR`, our server from `--mcp-config` with `--strict-mcp-config`, `--allowedTools mcp__modyo-offline`, \
`--no-session-persistence`; `ANTHROPIC_BASE_URL` at the capture endpoint (the Messages API, answered as server-sent events), a dummy \
`ANTHROPIC_API_KEY`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`. The scripted model loads the session's tools with `ToolSearch` \
(`select:<names>`), then calls them."
    }

    fn check_version(&self, tools: &Tools, version: &str) -> Result<(), ClientsError> {
        let output = std::process::Command::new(&tools.node)
            .arg(ClaudeCode::launcher(tools))
            .arg("--version")
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .map_err(|e| ClientsError::Setup(format!("Claude Code does not start: {e}")))?;
        let said = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || !said.starts_with(&format!("{version} ")) {
            return Err(ClientsError::Setup(format!(
                "Claude Code {version} is installed but `claude --version` says {:?} (stderr: {})",
                said.trim(),
                tail(&String::from_utf8_lossy(&output.stderr), 500).trim()
            )));
        }
        Ok(())
    }

    fn command(&self, tools: &Tools, session: &Session<'_>) -> Result<Command, ClientsError> {
        let config = session.home.join("mcp.json");
        let servers = json!({"mcpServers": {session.server_name: session.server.json()}});
        std::fs::write(&config, servers.to_string())?;
        let mut command = tools.node(&ClaudeCode::launcher(tools));
        command
            .arg("-p")
            .arg(super::PROMPT)
            .arg("--mcp-config")
            .arg(&config)
            .arg("--strict-mcp-config")
            .arg("--no-session-persistence")
            .arg("--allowedTools")
            .arg(format!("mcp__{}", session.server_name))
            .arg("--output-format")
            .arg("json")
            .envs(claude_env(session));
        Ok(command)
    }

    fn final_text(&self, stdout: &str) -> Option<String> {
        result_text(&last_json(stdout)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_ends_with_the_scripts_done() {
        let claude = r#"{"type":"result","is_error":false,"result":"done","num_turns":3}"#;
        assert_eq!(ClaudeCode.final_text(claude), Some("done".into()));
        let failed = r#"{"type":"result","is_error":true,"result":"API Error: 500"}"#;
        assert_eq!(ClaudeCode.final_text(failed), None);
    }
}
