//! The clients the lab runs, by id, each with its [`Driver`].

use super::driver::{ClaudeCode, Codex, CodexMode, Driver, GeminiCli, Genai};

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
}

impl Client {
    /// Every client, in report order.
    pub const ALL: [Client; 6] = [
        Client::ClaudeCode,
        Client::GeminiCli,
        Client::Genai,
        Client::Codex,
        Client::CodexSearch,
        Client::CodexCode,
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
        }
    }

    /// How the lab runs it.
    pub(crate) fn driver(self) -> &'static dyn Driver {
        match self {
            Client::ClaudeCode => &ClaudeCode,
            Client::Genai => &Genai,
            Client::GeminiCli => &GeminiCli,
            Client::Codex => &Codex(CodexMode::Unknown),
            Client::CodexSearch => &Codex(CodexMode::Search),
            Client::CodexCode => &Codex(CodexMode::Code),
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
