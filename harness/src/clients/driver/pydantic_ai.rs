//! pydantic-ai (PyPI `pydantic-ai-slim`), through `tests/clients/pydantic-ai/driver.py`: an
//! `MCPToolset` over a stdio transport on an `Agent` whose model is Chat Completions at the
//! capture endpoint.

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// The driver.
#[derive(Debug)]
pub(crate) struct PydanticAi;

impl Driver for PydanticAi {
    fn registry(&self) -> Registry {
        Registry::PyPi
    }
    fn package(&self) -> &'static str {
        "pydantic-ai-slim"
    }
    fn folder(&self) -> &'static str {
        "pydantic-ai"
    }
    fn api(&self) -> Api {
        Api::Chat
    }
    fn method(&self) -> &'static str {
        "`tests/clients/pydantic-ai/driver.py`: `MCPToolset(StdioTransport(...))` (defaults: no instructions, no return schema) on an `Agent` with `OpenAIChatModel(\"gpt-4.1\")` (`OpenAIProvider` with `base_url` at the capture endpoint, Chat Completions answered as JSON, a dummy key), `agent.run` with a request limit above the session's calls."
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
