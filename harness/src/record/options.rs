//! What `modyo-lab record` is asked: VCR's [`Mode`], the [`Call`]s (from the command line or a
//! script), the [`Live`] account and every [`RecordOptions`] flag.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

use super::Format;
use super::guard::Guard;
use super::redact::Redactor;
use super::run::RecordError;
use modyo_replay::cassette;

/// VCR's record modes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Record when the cassette is missing, else replay only.
    #[default]
    Once,
    /// Replay what matches, record and append the rest.
    #[value(name = "new_episodes", alias = "new-episodes")]
    NewEpisodes,
    /// Replay only; unmatched requests fail.
    None,
    /// Re-record everything.
    All,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Once => "once",
            Mode::NewEpisodes => "new_episodes",
            Mode::None => "none",
            Mode::All => "all",
        })
    }
}

/// One tool call to record.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The scenario name (default: derived from the tool).
    #[serde(default)]
    pub name: Option<String>,
    /// The MCP tool.
    pub tool: String,
    /// Its arguments (a JSON object).
    #[serde(default = "empty_object")]
    pub arguments: Value,
    /// Extra server environment for this call, stored with its scenario.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

impl Call {
    /// A call of `tool` with `arguments`.
    pub fn new(tool: impl Into<String>, arguments: Value) -> Call {
        Call {
            name: None,
            tool: tool.into(),
            arguments,
            env: BTreeMap::new(),
        }
    }

    /// Names its scenario.
    pub fn named(mut self, name: impl Into<String>) -> Call {
        self.name = Some(name.into());
        self
    }
}

/// The live account: `MODYO_URL` and `MODYO_TOKEN`. Its `Debug` never shows the token.
#[derive(Clone)]
pub struct Live {
    /// The account's base URL.
    pub url: Url,
    pub(super) token: String,
}

impl Live {
    /// The account at `url` with `token`.
    pub fn new(url: Url, token: impl Into<String>) -> Live {
        Live {
            url,
            token: token.into(),
        }
    }
}

impl fmt::Debug for Live {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Live")
            .field("url", &self.url.as_str())
            .field("token", &"[redacted]")
            .finish()
    }
}

/// What `modyo-lab record` does; also its arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct RecordOptions {
    /// The cassette: `module/name`, or a bare name filed under the first tool's module.
    #[arg(long, required_unless_present = "suite")]
    pub scenario: Option<String>,
    /// VCR's record mode.
    #[arg(long, value_enum, default_value_t = Mode::Once)]
    pub mode: Mode,
    /// The cassettes directory.
    #[arg(long, default_value_os_t = cassette::default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::cassettes_help("The cassettes directory."))]
    pub cassettes: PathBuf,
    /// A JSON array or JSON-lines file of `{"name"?, "tool", "arguments"?, "env"?}` calls.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// The provenance description (default: kept, or generated from the tools).
    #[arg(long)]
    pub description: Option<String>,
    /// A tag for the cassette (`fault` keeps it out of `modyo-lab serve`).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// A server setting for every call, stored with the scenarios (`MODYO_READ_ONLY=true`).
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// Another key whose values are secrets (added to token, password, api_key...).
    #[arg(long = "redact-key", value_name = "KEY")]
    pub redact_keys: Vec<String>,
    /// Replace the account host with `account.example` in everything stored.
    #[arg(long)]
    pub redact_host: bool,
    /// Store each live response's latency as `delay_ms` (replayed unless ignored).
    #[arg(long)]
    pub record_latency: bool,
    /// When replaying, keep answering the last response of an exhausted sequence.
    #[arg(long)]
    pub allow_repeats: bool,
    /// With `--mode none`: call live, replay nothing, report structural drift.
    #[arg(long)]
    pub diff: bool,
    /// The report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The calls, after `--`: `<tool> ['<json arguments>'] [<tool> ['<json>'] ...]`.
    #[arg(last = true, value_name = "CALLS")]
    pub raw_calls: Vec<String>,
    /// Calls given in code (added after the raw and scripted ones).
    #[arg(skip)]
    pub calls: Vec<Call>,
    /// The live account (from `MODYO_URL` and `MODYO_TOKEN`).
    #[arg(skip)]
    pub live: Option<Live>,
    /// The provenance date (default: today).
    #[arg(skip)]
    pub date: Option<String>,
    /// What may leave for the live account (read-only, budget, concurrency, `Retry-After`);
    /// shared by every run given the same guard.
    #[arg(skip)]
    pub guard: Option<Guard>,
}

fn parse_env(value: &str) -> Result<(String, String), String> {
    match value.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.to_owned())),
        _ => Err(format!("expected KEY=VALUE, got '{value}'")),
    }
}

impl RecordOptions {
    /// Records `calls` into cassette `scenario` under `cassettes`, mode `once`.
    pub fn new(
        cassettes: impl Into<PathBuf>,
        scenario: impl Into<String>,
        calls: Vec<Call>,
    ) -> RecordOptions {
        RecordOptions {
            scenario: Some(scenario.into()),
            mode: Mode::Once,
            cassettes: cassettes.into(),
            script: None,
            description: None,
            tags: Vec::new(),
            env: Vec::new(),
            redact_keys: Vec::new(),
            redact_host: false,
            record_latency: false,
            allow_repeats: false,
            diff: false,
            format: Format::Text,
            raw_calls: Vec::new(),
            calls,
            live: None,
            date: None,
            guard: None,
        }
    }

    /// Sets the mode.
    pub fn mode(mut self, mode: Mode) -> RecordOptions {
        self.mode = mode;
        self
    }

    /// Sets the live account.
    pub fn live(mut self, live: Live) -> RecordOptions {
        self.live = Some(live);
        self
    }

    /// Reads the live account from `MODYO_URL` and `MODYO_TOKEN` in `vars` (both needed).
    pub fn live_from_env(
        mut self,
        vars: impl IntoIterator<Item = (String, String)>,
    ) -> Result<RecordOptions, RecordError> {
        let vars: BTreeMap<String, String> = vars.into_iter().collect();
        let url = vars
            .get("MODYO_URL")
            .map(|u| u.trim())
            .filter(|u| !u.is_empty());
        let token = vars.get("MODYO_TOKEN").filter(|t| !t.is_empty());
        if let (Some(url), Some(token)) = (url, token) {
            let url = Url::parse(url)
                .map_err(|e| RecordError::Usage(format!("MODYO_URL is not a URL: {e}")))?;
            self.live = Some(Live::new(url, token.clone()));
        }
        Ok(self)
    }

    /// The redactor every stored byte goes through.
    pub fn redactor(&self) -> Redactor {
        let mut redactor = self
            .redact_keys
            .iter()
            .fold(Redactor::new(), |r, k| r.key(k));
        if let Some(live) = &self.live {
            redactor = redactor.secret(&live.token);
            if self.redact_host {
                redactor = redactor.host(&live.url);
            }
        }
        redactor
    }

    /// Every call: the ones after `--`, then the script's, then those given in code.
    pub fn all_calls(&self) -> Result<Vec<Call>, RecordError> {
        let mut calls = parse_raw_calls(&self.raw_calls)?;
        if let Some(script) = &self.script {
            calls.extend(parse_script(script)?);
        }
        calls.extend(self.calls.iter().cloned());
        for call in &calls {
            if !call.arguments.is_object() {
                return Err(RecordError::Usage(format!(
                    "the arguments of {} must be a JSON object",
                    call.tool
                )));
            }
        }
        Ok(calls)
    }
}

/// `<tool> ['<json>'] ...`: a token that starts with `{` is the previous tool's arguments.
pub(super) fn parse_raw_calls(raw: &[String]) -> Result<Vec<Call>, RecordError> {
    let mut calls: Vec<Call> = Vec::new();
    let mut iter = raw.iter().peekable();
    while let Some(tool) = iter.next() {
        if tool.trim_start().starts_with('{') {
            return Err(RecordError::Usage(format!(
                "expected a tool name before the arguments {tool}"
            )));
        }
        let arguments = match iter.next_if(|next| next.trim_start().starts_with('{')) {
            Some(json) => serde_json::from_str(json).map_err(|e| {
                RecordError::Usage(format!("the arguments of {tool} are not JSON: {e}"))
            })?,
            None => empty_object(),
        };
        calls.push(Call::new(tool.clone(), arguments));
    }
    Ok(calls)
}

/// A JSON array of calls, or one call per line (JSON lines; blank lines skipped).
pub(super) fn parse_script(path: &Path) -> Result<Vec<Call>, RecordError> {
    let text = std::fs::read_to_string(path).map_err(|source| RecordError::Io {
        path: path.to_owned(),
        source,
    })?;
    let bad = |line: usize, e: serde_json::Error| {
        RecordError::Usage(format!("{}:{line}: not a call: {e}", path.display()))
    };
    if text.trim_start().starts_with('[') {
        return serde_json::from_str(&text).map_err(|e| bad(e.line(), e));
    }
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| serde_json::from_str(line).map_err(|e| bad(i + 1, e)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn raw_calls_take_optional_json_arguments() {
        let calls = parse_raw_calls(&raw(&[
            "content-spaces-list",
            "content-spaces-get",
            r#"{"space": "blog"}"#,
        ]))
        .expect("parses");
        assert_eq!(
            calls,
            [
                Call::new("content-spaces-list", json!({})),
                Call::new("content-spaces-get", json!({"space": "blog"}))
            ]
        );
        assert!(parse_raw_calls(&raw(&["{}"])).is_err());
        assert!(parse_raw_calls(&raw(&["t", "{nope"])).is_err());
    }

    #[test]
    fn scripts_are_json_arrays_or_json_lines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lines = dir.path().join("calls.jsonl");
        std::fs::write(
            &lines,
            "{\"tool\": \"a-b\"}\n\n{\"name\": \"x\", \"tool\": \"a-c\", \"arguments\": {\"q\": 1}, \"env\": {\"MODYO_READ_ONLY\": \"true\"}}\n",
        )
        .expect("writes");
        let calls = parse_script(&lines).expect("parses");
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[1].name.as_deref(), Some("x"));
        assert_eq!(calls[1].env["MODYO_READ_ONLY"], "true");
        let array = dir.path().join("calls.json");
        std::fs::write(&array, r#"[{"tool": "a-b", "arguments": {}}]"#).expect("writes");
        assert_eq!(parse_script(&array).expect("parses").len(), 1);
        std::fs::write(&array, r#"[{"tool": "a-b", "args": {}}]"#).expect("writes");
        let err = parse_script(&array).expect_err("unknown key");
        assert!(err.to_string().contains("args"), "{err}");
    }
}
