//! The Claude Agent SDK (npm `@anthropic-ai/claude-agent-sdk`), through
//! `tests/clients/claude-agent-sdk/driver.mjs`: `query()` spawns the native `claude` binary of
//! the SDK's platform package with our server as its only MCP server, only our tools allowed, no
//! settings files read and no session kept, the Messages API at the capture endpoint. Like
//! Claude Code it defers MCP tools: the scripted model loads them with `ToolSearch`.

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::{Api, Loading};

/// The driver.
#[derive(Debug)]
pub(crate) struct ClaudeAgentSdk;

impl Driver for ClaudeAgentSdk {
    fn registry(&self) -> Registry {
        Registry::Npm
    }
    fn package(&self) -> &'static str {
        "@anthropic-ai/claude-agent-sdk"
    }
    fn folder(&self) -> &'static str {
        "claude-agent-sdk"
    }
    fn api(&self) -> Api {
        Api::Anthropic
    }
    fn loading(&self) -> Loading {
        Loading::ClaudeSearch
    }
    fn method(&self) -> &'static str {
        "`tests/clients/claude-agent-sdk/driver.mjs`: `query()` with `mcpServers` holding only our server, `strictMcpConfig`, `allowedTools: [\"mcp__<server>\"]`, `settingSources: []`, `persistSession: false` and an `env` of its own (the SDK replaces the child's environment with it): a temporary `HOME` and `CLAUDE_CONFIG_DIR`, `ANTHROPIC_BASE_URL` at the capture endpoint (the Messages API, answered as server-sent events), a dummy key, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`. The SDK runs the native `claude` binary of its platform package. The scripted model loads the session's tools with `ToolSearch`, then calls them."
    }
    fn command(&self, tools: &Tools, session: &Session<'_>) -> Result<Command, ClientsError> {
        super::script(tools, session, self.registry(), self.folder(), json!({}))
    }
}
