//! The clients the lab runs, by id, each with its [`Driver`].

use super::driver::{
    CLAUDE_AGENT_SDK, ClaudeCode, Codex, CodexMode, Driver, GENAI, GOOGLE_GENAI, GeminiCli,
    LANGCHAIN, LANGCHAIN_JS, MCP_USE, OPENAI_AGENTS, OPENAI_AGENTS_JS, PYDANTIC_AI, VERCEL_AI,
};

/// The clients the lab can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum Client {
    /// Claude Code, npm `@anthropic-ai/claude-code`.
    ClaudeCode,
    /// The `@google/genai` SDK's MCP adapter (`mcpToTool`), npm `@google/genai`.
    Genai,
    /// Gemini CLI, npm `@google/gemini-cli`.
    GeminiCli,
    /// Codex CLI with a model it does not know (plain `tools[]`), npm `@openai/codex`.
    Codex,
    /// Codex CLI with `gpt-5.5` (tool search).
    CodexSearch,
    /// Codex CLI with its default model (code mode; fingerprinted, not priced).
    CodexCode,
    /// The Claude Agent SDK, npm `@anthropic-ai/claude-agent-sdk`.
    ClaudeAgentSdk,
    /// The Vercel AI SDK, npm `ai` + `@ai-sdk/mcp` + `@ai-sdk/openai`.
    VercelAi,
    /// The OpenAI Agents SDK for Python, PyPI `openai-agents`.
    OpenaiAgents,
    /// The OpenAI Agents SDK for JavaScript, npm `@openai/agents`.
    OpenaiAgentsJs,
    /// LangChain's MCP adapters for Python, PyPI `langchain-mcp-adapters`.
    Langchain,
    /// LangChain's MCP adapters for JavaScript, npm `@langchain/mcp-adapters`.
    LangchainJs,
    /// The Google GenAI SDK for Python, PyPI `google-genai`.
    GoogleGenai,
    /// pydantic-ai, PyPI `pydantic-ai-slim`.
    PydanticAi,
    /// mcp-use, PyPI `mcp-use`.
    McpUse,
}

impl Client {
    /// Every client, in report order.
    pub const ALL: [Client; 15] = [
        Client::ClaudeCode,
        Client::ClaudeAgentSdk,
        Client::GeminiCli,
        Client::Genai,
        Client::GoogleGenai,
        Client::Codex,
        Client::CodexSearch,
        Client::CodexCode,
        Client::OpenaiAgents,
        Client::OpenaiAgentsJs,
        Client::VercelAi,
        Client::Langchain,
        Client::LangchainJs,
        Client::PydanticAi,
        Client::McpUse,
    ];

    /// The short id: the capture's file name.
    pub fn id(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Genai => "genai",
            Client::GeminiCli => "gemini-cli",
            Client::Codex => "codex",
            Client::CodexSearch => "codex-search",
            Client::CodexCode => "codex-code",
            Client::ClaudeAgentSdk => "claude-agent-sdk",
            Client::VercelAi => "vercel-ai",
            Client::OpenaiAgents => "openai-agents",
            Client::OpenaiAgentsJs => "openai-agents-js",
            Client::Langchain => "langchain",
            Client::LangchainJs => "langchain-js",
            Client::GoogleGenai => "google-genai",
            Client::PydanticAi => "pydantic-ai",
            Client::McpUse => "mcp-use",
        }
    }

    /// As people name it.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::Genai => "@google/genai (mcpToTool)",
            Client::GeminiCli => "Gemini CLI",
            Client::Codex => "Codex CLI (unknown model: tools[])",
            Client::CodexSearch => "Codex CLI (gpt-5.5: tool_search)",
            Client::CodexCode => "Codex CLI (default model: code mode)",
            Client::ClaudeAgentSdk => "Claude Agent SDK",
            Client::VercelAi => "Vercel AI SDK",
            Client::OpenaiAgents => "OpenAI Agents SDK (Python)",
            Client::OpenaiAgentsJs => "OpenAI Agents SDK (JS)",
            Client::Langchain => "LangChain MCP adapters (Python)",
            Client::LangchainJs => "LangChain MCP adapters (JS)",
            Client::GoogleGenai => "google-genai (Python, session as tool)",
            Client::PydanticAi => "pydantic-ai",
            Client::McpUse => "mcp-use",
        }
    }

    /// How the lab runs it.
    pub(crate) fn driver(self) -> &'static dyn Driver {
        match self {
            Client::ClaudeCode => &ClaudeCode,
            Client::Genai => &GENAI,
            Client::GeminiCli => &GeminiCli,
            Client::Codex => &Codex(CodexMode::Unknown),
            Client::CodexSearch => &Codex(CodexMode::Search),
            Client::CodexCode => &Codex(CodexMode::Code),
            Client::ClaudeAgentSdk => &CLAUDE_AGENT_SDK,
            Client::VercelAi => &VERCEL_AI,
            Client::OpenaiAgents => &OPENAI_AGENTS,
            Client::OpenaiAgentsJs => &OPENAI_AGENTS_JS,
            Client::Langchain => &LANGCHAIN,
            Client::LangchainJs => &LANGCHAIN_JS,
            Client::GoogleGenai => &GOOGLE_GENAI,
            Client::PydanticAi => &PYDANTIC_AI,
            Client::McpUse => &MCP_USE,
        }
    }

    /// The package whose version the capture records.
    pub fn package(self) -> &'static str {
        self.driver().package()
    }

    /// The registry it is installed from (`npm`, `PyPI`).
    pub fn registry(self) -> &'static str {
        self.driver().registry().name()
    }

    /// The API it speaks, as the reports name it.
    pub fn api(self) -> &'static str {
        self.driver().api().describe()
    }

    /// The client with this short id.
    pub fn from_id(id: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.id() == id)
    }

    /// How `modyo-lab clients` runs it, in a sentence (the reports print it).
    pub fn method(self) -> &'static str {
        self.driver().method()
    }

    /// Why its module sessions are not run (`None`: they are).
    pub fn not_priced(self) -> Option<&'static str> {
        self.driver().not_priced()
    }

    /// The capture file, relative to the reports directory.
    pub fn capture_file(self) -> String {
        format!("clients/{}.jsonl", self.id())
    }

    /// The fingerprint file, relative to the reports directory.
    pub fn fingerprint_file(self) -> String {
        format!("clients/{}.fingerprint.json", self.id())
    }

    /// The marker session's capture (the marker-bearing parts of its requests).
    pub fn marker_file(self) -> String {
        format!("clients/{}.marker.jsonl", self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_read_back() {
        let mut ids: Vec<&str> = Client::ALL.iter().map(|c| c.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Client::ALL.len());
        for c in Client::ALL {
            assert_eq!(Client::from_id(c.id()), Some(c));
            assert!(!c.method().is_empty() && !c.package().is_empty());
        }
        assert_eq!(Client::from_id("nope"), None);
        assert!(Client::CodexCode.not_priced().is_some());
        assert!(Client::ClaudeCode.not_priced().is_none());
    }
}
