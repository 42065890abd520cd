//! The OpenAI Agents SDK for JavaScript (npm `@openai/agents`), through
//! `tests/clients/openai-agents-js/driver.mjs`: `MCPServerStdio` on an `Agent`, the default
//! OpenAI client at the capture endpoint, the Responses API.

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// The driver.
#[derive(Debug)]
pub(crate) struct OpenaiAgentsJs;

impl Driver for OpenaiAgentsJs {
    fn registry(&self) -> Registry {
        Registry::Npm
    }
    fn package(&self) -> &'static str {
        "@openai/agents"
    }
    fn folder(&self) -> &'static str {
        "openai-agents-js"
    }
    fn api(&self) -> Api {
        Api::Responses
    }
    fn method(&self) -> &'static str {
        "`tests/clients/openai-agents-js/driver.mjs` on Node 22: `MCPServerStdio` on an `Agent` (model `gpt-4.1`), `setDefaultOpenAIClient` with `baseURL` at the capture endpoint (the Responses API, answered as JSON, a dummy key), tracing off, `run` with `maxTurns` above the session's calls."
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
