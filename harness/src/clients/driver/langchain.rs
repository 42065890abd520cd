//! LangChain's MCP adapters for Python (PyPI `langchain-mcp-adapters`), through
//! `tests/clients/langchain/driver.py`: `MultiServerMCPClient` tools in `create_agent` with
//! `ChatOpenAI` at the capture endpoint (Chat Completions).

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// The driver.
#[derive(Debug)]
pub(crate) struct Langchain;

impl Driver for Langchain {
    fn registry(&self) -> Registry {
        Registry::PyPi
    }
    fn package(&self) -> &'static str {
        "langchain-mcp-adapters"
    }
    fn folder(&self) -> &'static str {
        "langchain"
    }
    fn api(&self) -> Api {
        Api::Chat
    }
    fn method(&self) -> &'static str {
        "`tests/clients/langchain/driver.py`: `MultiServerMCPClient` (stdio; it starts the server anew for each call) and `get_tools()` in LangChain's `create_agent` with `ChatOpenAI(model=\"gpt-4.1\")` (`langchain-openai`, `base_url` at the capture endpoint, Chat Completions answered as JSON, a dummy key) and a `recursion_limit` above the session's calls."
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
