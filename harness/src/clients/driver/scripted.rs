//! The clients that are libraries, each run through a driver script of ours
//! (`tests/clients/<folder>/driver.{mjs,py}`, which reads the session file and prints the
//! model's last text): one row per client in a table of constants, all run the same way by
//! [`super::script`]. What sets one apart is data: its registry, package, folder, model API,
//! how the scripted model loads tools, the model name the script passes on, and the sentence
//! the reports print.

use serde_json::json;
use tokio::process::Command;

use super::{Driver, Loading, Registry, Session, Tools};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// A client run through its driver script.
#[derive(Debug)]
pub(crate) struct Scripted {
    registry: Registry,
    package: &'static str,
    folder: &'static str,
    api: Api,
    loading: Loading,
    /// The model name the script passes to the client, when it needs one.
    model: Option<&'static str>,
    method: &'static str,
}

impl Driver for Scripted {
    fn registry(&self) -> Registry {
        self.registry
    }
    fn package(&self) -> &'static str {
        self.package
    }
    fn folder(&self) -> &'static str {
        self.folder
    }
    fn api(&self) -> Api {
        self.api
    }
    fn loading(&self) -> Loading {
        self.loading
    }
    fn method(&self) -> &'static str {
        self.method
    }
    fn command(&self, tools: &Tools, session: &Session<'_>) -> Result<Command, ClientsError> {
        let options = match self.model {
            Some(model) => json!({"model": model}),
            None => json!({}),
        };
        super::script(tools, session, self.registry, self.folder, options)
    }
}

/// The Claude Agent SDK (npm `@anthropic-ai/claude-agent-sdk`), through
/// `tests/clients/claude-agent-sdk/driver.mjs`: `query()` spawns the native `claude` binary of
/// the SDK's platform package with our server as its only MCP server, only our tools allowed, no
/// settings files read and no session kept, the Messages API at the capture endpoint. Like
/// Claude Code it defers MCP tools: the scripted model loads them with `ToolSearch`.
pub(crate) const CLAUDE_AGENT_SDK: Scripted = Scripted {
    registry: Registry::Npm,
    package: "@anthropic-ai/claude-agent-sdk",
    folder: "claude-agent-sdk",
    api: Api::Anthropic,
    loading: Loading::ClaudeSearch,
    model: None,
    method: "`tests/clients/claude-agent-sdk/driver.mjs`: `query()` with `mcpServers` holding only our server, `strictMcpConfig`, `allowedTools: [\"mcp__<server>\"]`, `settingSources: []`, `persistSession: false` and an `env` of its own (the SDK replaces the child's environment with it): a temporary `HOME` and `CLAUDE_CONFIG_DIR`, `ANTHROPIC_BASE_URL` at the capture endpoint (the Messages API, answered as server-sent events), a dummy key, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`. The SDK runs the native `claude` binary of its platform package. The scripted model loads the session's tools with `ToolSearch`, then calls them.",
};

/// The `@google/genai` SDK's MCP adapter (npm `@google/genai`), through
/// `tests/clients/genai/driver.mjs`: the MCP TypeScript SDK's client starts the server over
/// stdio and `mcpToTool(client)` hands its tools to `ai.models.generateContent` with automatic
/// function calling, the Gemini API at the capture endpoint.
pub(crate) const GENAI: Scripted = Scripted {
    registry: Registry::Npm,
    package: "@google/genai",
    folder: "genai",
    api: Api::Gemini,
    loading: Loading::Declared,
    model: None,
    method: "`tests/clients/genai/driver.mjs`: the MCP TypeScript SDK's client starts our server over stdio and `mcpToTool(client)` hands \
its tools to `ai.models.generateContent` with automatic function calling; `httpOptions.baseUrl` at the capture endpoint (Gemini's \
`generateContent`, answered as JSON), a dummy key.",
};

/// The Google GenAI SDK for Python (PyPI `google-genai`), through
/// `tests/clients/google-genai/driver.py`: an MCP `ClientSession` passed as a tool to
/// `generate_content`, whose automatic function calling makes the calls; the Gemini API at the
/// capture endpoint. The driver patches one function of the SDK so that a boolean subschema
/// (`additionalProperties: false`, `items: true`) does not crash its schema conversion (see the
/// driver script).
pub(crate) const GOOGLE_GENAI: Scripted = Scripted {
    registry: Registry::PyPi,
    package: "google-genai",
    folder: "google-genai",
    api: Api::Gemini,
    loading: Loading::Declared,
    model: Some("gemini-2.5-flash"),
    method: "`tests/clients/google-genai/driver.py`: the `mcp` SDK's `ClientSession` over stdio, passed in `config.tools` (a dict: a `GenerateContentConfig` holding a session fails to copy) to `client.aio.models.generate_content(model=\"gemini-2.5-flash\")` with automatic function calling up to the session's calls; `http_options.base_url` at the capture endpoint (Gemini's `generateContent`, answered as JSON), a dummy key. One patch: 3.6.1 converts each MCP tool's input schema with `_mcp_utils._filter_to_supported_schema`, which raises `AttributeError` on a boolean subschema (`\"additionalProperties\": false`, which our input schemas use) before any request, so unpatched it cannot use our server at all; the driver makes that function return `false` unchanged and `true` as `{}` (the schema accepting the same: the SDK's `JSONSchema` also refuses the legacy customers tools' `\"items\": true`). The marker server has no boolean subschema, so the fingerprint is the unpatched client's.",
};

/// LangChain's MCP adapters for Python (PyPI `langchain-mcp-adapters`), through
/// `tests/clients/langchain/driver.py`: `MultiServerMCPClient` tools in `create_agent` with
/// `ChatOpenAI` at the capture endpoint (Chat Completions).
pub(crate) const LANGCHAIN: Scripted = Scripted {
    registry: Registry::PyPi,
    package: "langchain-mcp-adapters",
    folder: "langchain",
    api: Api::Chat,
    loading: Loading::Declared,
    model: Some("gpt-4.1"),
    method: "`tests/clients/langchain/driver.py`: `MultiServerMCPClient` (stdio; it starts the server anew for each call) and `get_tools()` in LangChain's `create_agent` with `ChatOpenAI(model=\"gpt-4.1\")` (`langchain-openai`, `base_url` at the capture endpoint, Chat Completions answered as JSON, a dummy key) and a `recursion_limit` above the session's calls.",
};

/// LangChain's MCP adapters for JavaScript (npm `@langchain/mcp-adapters`), through
/// `tests/clients/langchain-js/driver.mjs`: `MultiServerMCPClient` tools in `createAgent` with
/// `ChatOpenAI` at the capture endpoint (Chat Completions).
pub(crate) const LANGCHAIN_JS: Scripted = Scripted {
    registry: Registry::Npm,
    package: "@langchain/mcp-adapters",
    folder: "langchain-js",
    api: Api::Chat,
    loading: Loading::Declared,
    model: Some("gpt-4.1"),
    method: "`tests/clients/langchain-js/driver.mjs` on Node 22: `MultiServerMCPClient` (stdio) and `getTools()` in `createAgent` (`langchain`) with `ChatOpenAI({model: \"gpt-4.1\"})` (`@langchain/openai`, `baseURL` at the capture endpoint, Chat Completions answered as JSON, a dummy key) and a `recursionLimit` above the session's calls.",
};

/// mcp-use (PyPI `mcp-use`), through `tests/clients/mcp-use/driver.py`: `MCPClient` and
/// `MCPAgent` with LangChain's `ChatOpenAI` at the capture endpoint (Chat Completions).
pub(crate) const MCP_USE: Scripted = Scripted {
    registry: Registry::PyPi,
    package: "mcp-use",
    folder: "mcp-use",
    api: Api::Chat,
    loading: Loading::Declared,
    model: Some("gpt-4.1"),
    method: "`tests/clients/mcp-use/driver.py`: `MCPClient.from_dict` with our server and `MCPAgent` (`max_steps` above the session's calls) over `ChatOpenAI(model=\"gpt-4.1\")` (`langchain-openai`, `base_url` at the capture endpoint, Chat Completions answered as JSON, a dummy key); telemetry off (`MCP_USE_ANONYMIZED_TELEMETRY=false`).",
};

/// The OpenAI Agents SDK for Python (PyPI `openai-agents`), through
/// `tests/clients/openai-agents/driver.py`: `MCPServerStdio` on an `Agent` whose model is the
/// Responses API at the capture endpoint.
pub(crate) const OPENAI_AGENTS: Scripted = Scripted {
    registry: Registry::PyPi,
    package: "openai-agents",
    folder: "openai-agents",
    api: Api::Responses,
    loading: Loading::Declared,
    model: Some("gpt-4.1"),
    method: "`tests/clients/openai-agents/driver.py`: `MCPServerStdio` (stdio) on an `Agent` with `OpenAIResponsesModel(\"gpt-4.1\")` over an `AsyncOpenAI` client whose `base_url` is the capture endpoint (answered as JSON, a dummy key), tracing off, `Runner.run` with `max_turns` above the session's calls.",
};

/// The OpenAI Agents SDK for JavaScript (npm `@openai/agents`), through
/// `tests/clients/openai-agents-js/driver.mjs`: `MCPServerStdio` on an `Agent`, the default
/// OpenAI client at the capture endpoint, the Responses API.
pub(crate) const OPENAI_AGENTS_JS: Scripted = Scripted {
    registry: Registry::Npm,
    package: "@openai/agents",
    folder: "openai-agents-js",
    api: Api::Responses,
    loading: Loading::Declared,
    model: Some("gpt-4.1"),
    method: "`tests/clients/openai-agents-js/driver.mjs` on Node 22: `MCPServerStdio` on an `Agent` (model `gpt-4.1`), `setDefaultOpenAIClient` with `baseURL` at the capture endpoint (the Responses API, answered as JSON, a dummy key), tracing off, `run` with `maxTurns` above the session's calls.",
};

/// pydantic-ai (PyPI `pydantic-ai-slim`), through `tests/clients/pydantic-ai/driver.py`: an
/// `MCPToolset` over a stdio transport on an `Agent` whose model is Chat Completions at the
/// capture endpoint.
pub(crate) const PYDANTIC_AI: Scripted = Scripted {
    registry: Registry::PyPi,
    package: "pydantic-ai-slim",
    folder: "pydantic-ai",
    api: Api::Chat,
    loading: Loading::Declared,
    model: Some("gpt-4.1"),
    method: "`tests/clients/pydantic-ai/driver.py`: `MCPToolset(StdioTransport(...))` (defaults: no instructions, no return schema) on an `Agent` with `OpenAIChatModel(\"gpt-4.1\")` (`OpenAIProvider` with `base_url` at the capture endpoint, Chat Completions answered as JSON, a dummy key), `agent.run` with a request limit above the session's calls.",
};

/// The Vercel AI SDK (npm `ai`, `@ai-sdk/mcp`, `@ai-sdk/openai`), through
/// `tests/clients/vercel-ai/driver.mjs`: `createMCPClient` over stdio, `client.tools()`
/// handed to `generateText` with an OpenAI Responses model at the capture endpoint.
pub(crate) const VERCEL_AI: Scripted = Scripted {
    registry: Registry::Npm,
    package: "ai",
    folder: "vercel-ai",
    api: Api::Responses,
    loading: Loading::Declared,
    model: Some("gpt-4.1"),
    method: "`tests/clients/vercel-ai/driver.mjs` on Node 22: `createMCPClient` (`@ai-sdk/mcp`, stdio transport) starts our server, `client.tools()` goes to `generateText` with `openai.responses(\"gpt-4.1\")` (`@ai-sdk/openai`, `baseURL` at the capture endpoint, answered as JSON, a dummy key) and `stopWhen: stepCountIs(calls + 2)`.",
};
