//! Gemini CLI (npm `@google/gemini-cli`): the bundle run with Node, headless (`-p`, `--yolo`: no
//! approval prompts, `-m gemini-2.5-flash`: one model, no routing request), our server in
//! `$HOME/.gemini/settings.json` (trusted), the Gemini API at the capture endpoint
//! (`GOOGLE_GEMINI_BASE_URL`, a dummy `GEMINI_API_KEY`), the workspace trusted, no usage
//! statistics, telemetry or update checks, and loop detection off (a scripted session calls
//! one tool many times in a row, which Gemini CLI would stop as a loop).

use serde_json::{Value, json};
use tokio::process::Command;

use super::{Driver, Registry, Session, Tools, last_json};
use crate::clients::ClientsError;
use crate::clients::api::Api;

/// Gemini CLI.
#[derive(Debug)]
pub(crate) struct GeminiCli;

const FOLDER: &str = "gemini-cli";
const PACKAGE: &str = "@google/gemini-cli";

/// The settings file of a session.
fn settings(session: &Session<'_>) -> Value {
    json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
        "model": {"disableLoopDetection": true},
        "mcpServers": {session.server_name: {
            "command": session.server.command,
            "args": session.server.args,
            "env": session.server.env_json(),
            "trust": true
        }}
    })
}

impl Driver for GeminiCli {
    fn registry(&self) -> Registry {
        Registry::Npm
    }
    fn package(&self) -> &'static str {
        PACKAGE
    }
    fn folder(&self) -> &'static str {
        FOLDER
    }
    fn api(&self) -> Api {
        Api::Gemini
    }
    fn method(&self) -> &'static str {
        "`gemini -p` (the package's `bundle/gemini.js` on Node 22) with `--yolo`, `-m gemini-2.5-flash` and `--output-format json`, \
a temporary `HOME` whose `.gemini/settings.json` registers our server (`trust: true`), selects API-key auth and turns off usage \
statistics, telemetry, update checks and loop detection (`model.disableLoopDetection`: the scripted session repeats calls); \
`GOOGLE_GEMINI_BASE_URL` at the capture endpoint (`streamGenerateContent`, answered as server-sent events), a dummy \
`GEMINI_API_KEY`, `GEMINI_CLI_TRUST_WORKSPACE=true`. Every tool is declared in every request; the scripted model calls them."
    }
    fn command(&self, tools: &Tools, session: &Session<'_>) -> Result<Command, ClientsError> {
        let dir = session.home.join(".gemini");
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("settings.json"), settings(session).to_string())?;
        let bundle = tools
            .node_modules(FOLDER)
            .join(PACKAGE)
            .join("bundle/gemini.js");
        let mut command = tools.node(&bundle);
        command
            .args(["-p", super::PROMPT, "--yolo", "-m", "gemini-2.5-flash"])
            .args(["--output-format", "json"])
            .env("GOOGLE_GEMINI_BASE_URL", session.base_url)
            .env("GEMINI_API_KEY", "modyo-lab-dummy-key")
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
        Ok(command)
    }
    fn final_text(&self, stdout: &str) -> Option<String> {
        let start = stdout.find('{')?;
        let value: Value = serde_json::from_str(stdout[start..].trim())
            .ok()
            .or_else(|| last_json(stdout))?;
        value.get("response")?.as_str().map(|s| s.trim().to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::server::McpServer;

    #[test]
    fn the_settings_register_the_server_trusted_and_the_answer_is_read_from_json() {
        let server = McpServer::marker(std::path::Path::new("/lab"));
        let session = Session {
            home: std::path::Path::new("/h"),
            server: &server,
            server_name: "marker",
            base_url: "http://127.0.0.1:1",
            calls: 3,
        };
        let s = settings(&session);
        assert_eq!(s["mcpServers"]["marker"]["trust"], true);
        assert_eq!(s["model"]["disableLoopDetection"], true);
        let printed =
            "{\n  \"session_id\": \"x\",\n  \"response\": \"done\",\n  \"stats\": {}\n}\n";
        assert_eq!(GeminiCli.final_text(printed), Some("done".into()));
        assert_eq!(GeminiCli.final_text("no json"), None);
    }
}
