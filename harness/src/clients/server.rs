//! The MCP server a client session registers: our offline server for one module on one side
//! (`modyo-lab serve`), the lab's marker server (`modyo-lab marker`), or any stdio command
//! (`modyo-lab clients --server CMD`). Every client is given the same command line, arguments
//! and environment, each in its own configuration format.

use std::ffi::OsString;
use std::path::Path;

use modyo_mcp::Module;
use serde_json::{Map, Value, json};

use super::capture::{Settings, Side};
use super::reference::server_env;

/// A stdio MCP server as a client starts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct McpServer {
    /// The program.
    pub(crate) command: String,
    /// Its arguments.
    pub(crate) args: Vec<String>,
    /// Variables the client sets for it (on top of what the client passes of its own).
    pub(crate) env: Vec<(String, String)>,
}

impl McpServer {
    /// Our offline server with every cassette of `cassettes`, `module` only, legacy on the
    /// `before` side, under `settings` on the `recommended` one (`None`: the defaults).
    pub(crate) fn offline(
        lab: &Path,
        cassettes: &Path,
        module: Module,
        side: Side,
        settings: Option<Settings>,
    ) -> McpServer {
        let mut env = vec![("RUST_LOG".to_owned(), "warn".to_owned())];
        env.extend(server_env(module, side, settings));
        McpServer {
            command: lab.to_string_lossy().into_owned(),
            args: vec![
                "serve".into(),
                "--ignore-latency".into(),
                "--cassettes".into(),
                cassettes.to_string_lossy().into_owned(),
            ],
            env,
        }
    }

    /// The marker server (`modyo-lab marker`).
    pub(crate) fn marker(lab: &Path) -> McpServer {
        McpServer {
            command: lab.to_string_lossy().into_owned(),
            args: vec!["marker".into()],
            env: Vec::new(),
        }
    }

    /// Any stdio server: `argv[0] argv[1..]` (`None` when empty).
    pub(crate) fn command(argv: &[OsString]) -> Option<McpServer> {
        let (program, args) = argv.split_first()?;
        Some(McpServer {
            command: program.to_string_lossy().into_owned(),
            args: args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            env: Vec::new(),
        })
    }

    /// The environment as a JSON object.
    pub(crate) fn env_json(&self) -> Value {
        Value::Object(
            self.env
                .iter()
                .map(|(k, v)| (k.clone(), json!(v)))
                .collect::<Map<String, Value>>(),
        )
    }

    /// `{"type": "stdio", "command", "args", "env"}`: an `mcpServers` entry (Claude Code, the
    /// Claude Agent SDK, Gemini CLI) and what the driver scripts read.
    pub(crate) fn json(&self) -> Value {
        json!({
            "type": "stdio",
            "command": self.command,
            "args": self.args,
            "env": self.env_json(),
        })
    }

    /// The server as a TOML table body (Codex's `[mcp_servers.<name>]`).
    pub(crate) fn toml(&self) -> String {
        let quote = |s: &str| Value::from(s).to_string();
        let args: Vec<String> = self.args.iter().map(|a| quote(a)).collect();
        let env: Vec<String> = self
            .env
            .iter()
            .map(|(k, v)| format!("{} = {}", quote(k), quote(v)))
            .collect();
        format!(
            "command = {}\nargs = [{}]\nenv = {{ {} }}\n",
            quote(&self.command),
            args.join(", "),
            env.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offline_server_runs_one_module_legacy_before() {
        let before = McpServer::offline(
            Path::new("/lab"),
            Path::new("/c"),
            Module::Widgets,
            Side::Before,
            None,
        );
        assert_eq!(
            before.args,
            ["serve", "--ignore-latency", "--cassettes", "/c"]
        );
        let env = before.json()["env"].clone();
        assert_eq!(env["MODYO_MCP_MODULES"], "widgets");
        assert_eq!(env["MODYO_MCP_LEGACY_MODULES"], "widgets");
        assert_eq!(env["RUST_LOG"], "warn");
        let after = McpServer::offline(
            Path::new("/lab"),
            Path::new("/c"),
            Module::Widgets,
            Side::After,
            None,
        );
        assert!(
            after.json()["env"]
                .get("MODYO_MCP_LEGACY_MODULES")
                .is_none()
        );
        assert!(after.json()["env"].get("MODYO_RESULTS").is_none());
        let recommended = McpServer::offline(
            Path::new("/lab"),
            Path::new("/c"),
            Module::Widgets,
            Side::Recommended,
            Some(Settings {
                results: modyo_mcp::contract::ResultForm::Text,
                output_schema_off: true,
                errors_text: true,
            }),
        );
        let env = recommended.json()["env"].clone();
        assert_eq!(env["MODYO_RESULTS"], "text");
        assert_eq!(env["MODYO_OUTPUT_SCHEMA"], "off");
        assert_eq!(env["MODYO_ERRORS"], "text");
        assert!(env.get("MODYO_MCP_LEGACY_MODULES").is_none());
    }

    #[test]
    fn toml_quotes_every_string() {
        let mut server = McpServer::marker(Path::new("/a \"b\"/modyo-lab"));
        server.env.push(("K".into(), "v\\w".into()));
        assert_eq!(
            server.toml(),
            "command = \"/a \\\"b\\\"/modyo-lab\"\nargs = [\"marker\"]\nenv = { \"K\" = \"v\\\\w\" }\n"
        );
        assert!(McpServer::command(&[]).is_none());
        let any = McpServer::command(&["python3".into(), "s.py".into()]).expect("a command");
        assert_eq!((any.command.as_str(), any.args.len()), ("python3", 1));
    }
}
