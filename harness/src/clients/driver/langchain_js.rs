//! LangChain's MCP adapters for JavaScript (npm `@langchain/mcp-adapters`), through
//! `tests/clients/langchain-js/driver.mjs`: `MultiServerMCPClient` tools in `createAgent` with
//! `ChatOpenAI` at the capture endpoint (Chat Completions).

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// The driver.
#[derive(Debug)]
pub(crate) struct LangchainJs;

impl Driver for LangchainJs {
    fn registry(&self) -> Registry {
        Registry::Npm
    }
    fn package(&self) -> &'static str {
        "@langchain/mcp-adapters"
    }
    fn folder(&self) -> &'static str {
        "langchain-js"
    }
    fn api(&self) -> Api {
        Api::Chat
    }
    fn method(&self) -> &'static str {
        "`tests/clients/langchain-js/driver.mjs` on Node 22: `MultiServerMCPClient` (stdio) and `getTools()` in `createAgent` (`langchain`) with `ChatOpenAI({model: \"gpt-4.1\"})` (`@langchain/openai`, `baseURL` at the capture endpoint, Chat Completions answered as JSON, a dummy key) and a `recursionLimit` above the session's calls."
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
