//! The `@google/genai` SDK's MCP adapter (npm `@google/genai`), through
//! `tests/clients/genai/driver.mjs`: the MCP TypeScript SDK's client starts the server over
//! stdio and `mcpToTool(client)` hands its tools to `ai.models.generateContent` with automatic
//! function calling, the Gemini API at the capture endpoint.

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// `@google/genai` with `mcpToTool`.
#[derive(Debug)]
pub(crate) struct Genai;

const FOLDER: &str = "genai";

impl Driver for Genai {
    fn registry(&self) -> Registry {
        Registry::Npm
    }
    fn package(&self) -> &'static str {
        "@google/genai"
    }
    fn folder(&self) -> &'static str {
        FOLDER
    }
    fn api(&self) -> Api {
        Api::Gemini
    }
    fn method(&self) -> &'static str {
        "`tests/clients/genai/driver.mjs`: the MCP TypeScript SDK's client starts our server over stdio and `mcpToTool(client)` hands \
its tools to `ai.models.generateContent` with automatic function calling; `httpOptions.baseUrl` at the capture endpoint (Gemini's \
`generateContent`, answered as JSON), a dummy key."
    }
    fn command(&self, tools: &Tools, session: &Session<'_>) -> Result<Command, ClientsError> {
        super::script(tools, session, Registry::Npm, FOLDER, json!({}))
    }
}
