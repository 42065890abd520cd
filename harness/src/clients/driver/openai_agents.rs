//! The OpenAI Agents SDK for Python (PyPI `openai-agents`), through
//! `tests/clients/openai-agents/driver.py`: `MCPServerStdio` on an `Agent` whose model is the
//! Responses API at the capture endpoint.

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// The driver.
#[derive(Debug)]
pub(crate) struct OpenaiAgents;

impl Driver for OpenaiAgents {
    fn registry(&self) -> Registry {
        Registry::PyPi
    }
    fn package(&self) -> &'static str {
        "openai-agents"
    }
    fn folder(&self) -> &'static str {
        "openai-agents"
    }
    fn api(&self) -> Api {
        Api::Responses
    }
    fn method(&self) -> &'static str {
        "`tests/clients/openai-agents/driver.py`: `MCPServerStdio` (stdio) on an `Agent` with `OpenAIResponsesModel(\"gpt-4.1\")` over an `AsyncOpenAI` client whose `base_url` is the capture endpoint (answered as JSON, a dummy key), tracing off, `Runner.run` with `max_turns` above the session's calls."
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
