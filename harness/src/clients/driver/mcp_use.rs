//! mcp-use (PyPI `mcp-use`), through `tests/clients/mcp-use/driver.py`: `MCPClient` and
//! `MCPAgent` with LangChain's `ChatOpenAI` at the capture endpoint (Chat Completions).

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// The driver.
#[derive(Debug)]
pub(crate) struct McpUse;

impl Driver for McpUse {
    fn registry(&self) -> Registry {
        Registry::PyPi
    }
    fn package(&self) -> &'static str {
        "mcp-use"
    }
    fn folder(&self) -> &'static str {
        "mcp-use"
    }
    fn api(&self) -> Api {
        Api::Chat
    }
    fn method(&self) -> &'static str {
        "`tests/clients/mcp-use/driver.py`: `MCPClient.from_dict` with our server and `MCPAgent` (`max_steps` above the session's calls) over `ChatOpenAI(model=\"gpt-4.1\")` (`langchain-openai`, `base_url` at the capture endpoint, Chat Completions answered as JSON, a dummy key); telemetry off (`MCP_USE_ANONYMIZED_TELEMETRY=false`)."
    }
    fn command(&self, tools: &Tools, session: &Session<'_>) -> Result<Command, ClientsError> {
        super::script(
            tools,
            session,
            self.registry(),
            self.folder(),
            json!({"model": "gpt-4.1"}),
        )
    }
}
