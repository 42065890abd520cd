//! The Google GenAI SDK for Python (PyPI `google-genai`), through
//! `tests/clients/google-genai/driver.py`: an MCP `ClientSession` passed as a tool to
//! `generate_content`, whose automatic function calling makes the calls; the Gemini API at the
//! capture endpoint. The driver patches one function of the SDK so that a boolean subschema
//! (`additionalProperties: false`, `items: true`) does not crash its schema conversion (see the
//! driver script).

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// The driver.
#[derive(Debug)]
pub(crate) struct GoogleGenai;

impl Driver for GoogleGenai {
    fn registry(&self) -> Registry {
        Registry::PyPi
    }
    fn package(&self) -> &'static str {
        "google-genai"
    }
    fn folder(&self) -> &'static str {
        "google-genai"
    }
    fn api(&self) -> Api {
        Api::Gemini
    }
    fn method(&self) -> &'static str {
        "`tests/clients/google-genai/driver.py`: the `mcp` SDK's `ClientSession` over stdio, passed in `config.tools` (a dict: a `GenerateContentConfig` holding a session fails to copy) to `client.aio.models.generate_content(model=\"gemini-2.5-flash\")` with automatic function calling up to the session's calls; `http_options.base_url` at the capture endpoint (Gemini's `generateContent`, answered as JSON), a dummy key. One patch: 3.6.1 converts each MCP tool's input schema with `_mcp_utils._filter_to_supported_schema`, which raises `AttributeError` on a boolean subschema (`\"additionalProperties\": false`, which our input schemas use) before any request, so unpatched it cannot use our server at all; the driver makes that function return `false` unchanged and `true` as `{}` (the schema accepting the same: the SDK's `JSONSchema` also refuses the legacy customers tools' `\"items\": true`). The marker server has no boolean subschema, so the fingerprint is the unpatched client's."
    }
    fn command(&self, tools: &Tools, session: &Session<'_>) -> Result<Command, ClientsError> {
        super::script(
            tools,
            session,
            self.registry(),
            self.folder(),
            json!({"model": "gemini-2.5-flash"}),
        )
    }
}
