//! The Vercel AI SDK (npm `ai`, `@ai-sdk/mcp`, `@ai-sdk/openai`), through
//! `tests/clients/vercel-ai/driver.mjs`: `createMCPClient` over stdio, `client.tools()`
//! handed to `generateText` with an OpenAI Responses model at the capture endpoint.

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// The driver.
#[derive(Debug)]
pub(crate) struct VercelAi;

impl Driver for VercelAi {
    fn registry(&self) -> Registry {
        Registry::Npm
    }
    fn package(&self) -> &'static str {
        "ai"
    }
    fn folder(&self) -> &'static str {
        "vercel-ai"
    }
    fn api(&self) -> Api {
        Api::Responses
    }
    fn method(&self) -> &'static str {
        "`tests/clients/vercel-ai/driver.mjs` on Node 22: `createMCPClient` (`@ai-sdk/mcp`, stdio transport) starts our server, `client.tools()` goes to `generateText` with `openai.responses(\"gpt-4.1\")` (`@ai-sdk/openai`, `baseURL` at the capture endpoint, answered as JSON, a dummy key) and `stopWhen: stepCountIs(calls + 2)`."
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
