//! Codex CLI (npm `@openai/codex`): the native binary of its platform package
//! (`@openai/codex-linux-x64`), run directly as `codex exec --json`, with a `CODEX_HOME` of the
//! session's own whose `config.toml` names a model provider at the capture endpoint (the
//! Responses API, a dummy key from `LAB_API_KEY`), never asks for approval, runs without a
//! sandbox, turns off the plugin sync (it reaches github.com and chatgpt.com at start) and
//! registers our server.
//!
//! What reaches the model depends on the model's entry in Codex's own catalogue, so the lab
//! runs three modes: a model Codex does not know (`-m lab-model`: every MCP tool in `tools[]`,
//! inside a namespace whose description is the server's instructions), a catalogued model with
//! tool search (`-m gpt-5.5`: nothing of ours until the model calls `tool_search`), and the
//! default model (code mode: the model writes JavaScript that calls the tools; what reaches it
//! is what that JavaScript prints, so this mode is fingerprinted, not priced).

use serde_json::Value;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::{Api, Loading};

/// Which of Codex's tool modes a session runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CodexMode {
    /// A model Codex does not know: plain `tools[]`.
    Unknown,
    /// `gpt-5.5`: tools loaded by `tool_search`.
    Search,
    /// Codex's default model: code mode.
    Code,
}

/// Codex CLI in one mode.
#[derive(Debug)]
pub(crate) struct Codex(pub(crate) CodexMode);

const FOLDER: &str = "codex";

impl Codex {
    fn binary(tools: &Tools) -> std::path::PathBuf {
        tools
            .node_modules(FOLDER)
            .join("@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")
    }
}

/// `config.toml` of a session.
fn config(session: &Session<'_>) -> String {
    let name = Value::from(session.server_name).to_string();
    format!(
        "model_provider = \"lab\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n\
[features]\nplugins = false\n\n\
[model_providers.lab]\nname = \"lab\"\nbase_url = {}\nenv_key = \"LAB_API_KEY\"\nwire_api = \"responses\"\n\n\
[mcp_servers.{name}]\n{}",
        Value::from(format!("{}/v1", session.base_url)),
        session.server.toml()
    )
}

impl Driver for Codex {
    fn registry(&self) -> Registry {
        Registry::Npm
    }
    fn package(&self) -> &'static str {
        "@openai/codex"
    }
    fn folder(&self) -> &'static str {
        FOLDER
    }
    fn api(&self) -> Api {
        Api::Responses
    }
    fn loading(&self) -> Loading {
        match self.0 {
            CodexMode::Unknown => Loading::Declared,
            CodexMode::Search => Loading::CodexSearch,
            CodexMode::Code => Loading::CodexCode,
        }
    }
    fn method(&self) -> &'static str {
        match self.0 {
            CodexMode::Unknown => {
                "`codex exec --json -m lab-model` (the native binary of `@openai/codex-linux-x64`), a `CODEX_HOME` of the session's own whose \
`config.toml` sets a model provider at the capture endpoint (`wire_api = \"responses\"`, answered as server-sent events, a dummy key), \
`approval_policy = \"never\"`, no sandbox, `features.plugins = false` (no plugin sync) and registers our server. `lab-model` is not in \
Codex's catalogue, so every MCP tool is in `tools[]`, inside a namespace `mcp__<server>` whose description is the server's instructions; \
the scripted model calls them."
            }
            CodexMode::Search => {
                "As Codex with an unknown model, but `-m gpt-5.5`, a catalogued model with tool search: the first request names the server \
(its instructions in a developer message) and declares `tool_search`; the scripted model calls `tool_search` with the names of the \
session's tools (executed by Codex, BM25 over names and descriptions), whose output (the namespace and the tools found, \
`defer_loading: true`) stays in the input of every later request, then calls them."
            }
            CodexMode::Code => {
                "As Codex with an unknown model, but no `-m`: Codex's default model runs in code mode, where the only tools are `exec` \
(JavaScript) and `wait`, and MCP tools are reached from the script (`tools[\"mcp__<server>__<tool>\"](args)`). The scripted model \
prints `ALL_TOOLS` for our server, then calls each tool and prints `JSON.stringify(result)`: what reaches the model is what the \
script printed, so this mode is fingerprinted and not priced."
            }
        }
    }
    fn not_priced(&self) -> Option<&'static str> {
        (self.0 == CodexMode::Code).then_some(
            "in code mode what reaches the model is what the model's own JavaScript prints of a result, not a form the client chooses",
        )
    }
    fn command(&self, tools: &Tools, session: &Session<'_>) -> Result<Command, ClientsError> {
        let home = session.home.join("codex");
        std::fs::create_dir_all(&home)?;
        std::fs::write(home.join("config.toml"), config(session))?;
        let mut command = Tools::command(&Codex::binary(tools));
        command.args(["exec", "--skip-git-repo-check", "--json"]);
        match self.0 {
            CodexMode::Unknown => {
                command.args(["-m", "lab-model"]);
            }
            CodexMode::Search => {
                command.args(["-m", "gpt-5.5"]);
            }
            CodexMode::Code => {}
        }
        command
            .arg(super::PROMPT)
            .env("CODEX_HOME", &home)
            .env("LAB_API_KEY", "modyo-lab-dummy-key")
            .env("RUST_LOG", "warn");
        Ok(command)
    }
    fn final_text(&self, stdout: &str) -> Option<String> {
        stdout
            .lines()
            .rev()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e.get("type").and_then(Value::as_str) == Some("item.completed"))
            .filter_map(|e| e.get("item").cloned())
            .find(|i| i.get("type").and_then(Value::as_str) == Some("agent_message"))?
            .get("text")?
            .as_str()
            .map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::server::McpServer;

    #[test]
    fn the_config_points_the_provider_at_the_endpoint_and_registers_the_server() {
        let server = McpServer::marker(std::path::Path::new("/lab"));
        let session = Session {
            home: std::path::Path::new("/h"),
            server: &server,
            server_name: "modyo-offline",
            base_url: "http://127.0.0.1:7",
            calls: 1,
        };
        let text = config(&session);
        assert!(
            text.contains("base_url = \"http://127.0.0.1:7/v1\""),
            "{text}"
        );
        assert!(
            text.contains("[mcp_servers.\"modyo-offline\"]\ncommand = \"/lab\""),
            "{text}"
        );
        let stream = "{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"ok\"}}\n\
{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"done\"}}\n{\"type\":\"turn.completed\"}\n";
        assert_eq!(
            Codex(CodexMode::Unknown).final_text(stream),
            Some("done".into())
        );
    }
}
