//! A capture: what one client put in the model's context from our server, session by session,
//! as committed under `reports/clients/<client>.jsonl`.
//!
//! Only our server's parts are kept, as the client sent them: the deferred tool names, the
//! server's instructions, our tools' definitions and the results of our calls, each from the
//! last request of the session (the context the session ended with). Everything else the client
//! sent (its own prompt, its own tools, ids, dates, the working directory) is dropped, so the
//! file changes only when the client or our server changes what reaches the model. A short
//! shape of every request (how many names, definitions and results it carried) keeps the
//! order in which things arrived.
//!
//! The file is JSON Lines: a `capture` line, then per session a `session` line followed by its
//! `definition` and `result` lines, one value per line so a change reads as a small diff.
//!
//! A module has a `before` and an `after` session, and, for a client whose recommended
//! settings (C22, [`recommend`](super::recommend)) are not the defaults, a `recommended` one:
//! the migrated module under those settings, which its session line records (`settings`). A
//! capture without it (one written before the side existed, or of a client whose
//! recommendation is the defaults) reads as before.

use modyo_mcp::contract::ResultForm;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use modyo_replay::cassette::Outcome;

/// The format tag of a capture file.
pub const FORMAT: &str = "modyo-lab-capture/1";

/// Which side of the migration a session ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The module in legacy mode (`MODYO_MCP_LEGACY_MODULES=<module>`).
    Before,
    /// The module migrated, under the default settings.
    After,
    /// The module migrated, under the settings recommended for the client (the session's
    /// [`Session::settings`]).
    Recommended,
}

impl Side {
    /// The two sides of the migration, before first: what every module's sessions have.
    pub const BOTH: [Side; 2] = [Side::Before, Side::After];

    /// Every side, in file order; a module has a `recommended` session only for a client
    /// whose recommended settings are not the defaults.
    pub const ALL: [Side; 3] = [Side::Before, Side::After, Side::Recommended];

    /// `before`, `after` or `recommended`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Before => "before",
            Side::After => "after",
            Side::Recommended => "recommended",
        }
    }
}

/// The server settings (C22) a `recommended` session ran under, as the server reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Settings {
    /// `MODYO_RESULTS`.
    #[serde(with = "form_name")]
    pub results: ResultForm,
    /// `MODYO_OUTPUT_SCHEMA=off` (absent from the file when not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub output_schema_off: bool,
    /// `MODYO_ERRORS=text` (absent from the file when not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub errors_text: bool,
}

impl Settings {
    /// The server's defaults: `both`, output schemas listed.
    pub const DEFAULTS: Settings = Settings {
        results: ResultForm::Both,
        output_schema_off: false,
        errors_text: false,
    };

    /// Whether these are the server's defaults (a session under them is the `after` one).
    pub fn is_defaults(self) -> bool {
        self == Settings::DEFAULTS
    }

    /// The server environment that sets them (nothing for a default).
    pub fn env(self) -> Vec<(String, String)> {
        let mut env = Vec::new();
        if self.results != ResultForm::Both {
            env.push(("MODYO_RESULTS".to_owned(), self.results.as_str().to_owned()));
        }
        if self.output_schema_off {
            env.push(("MODYO_OUTPUT_SCHEMA".to_owned(), "off".to_owned()));
        }
        if self.errors_text {
            env.push(("MODYO_ERRORS".to_owned(), "text".to_owned()));
        }
        env
    }

    /// As an operator types them (`MODYO_RESULTS=text MODYO_OUTPUT_SCHEMA=off`), or
    /// `defaults (both)`.
    pub fn label(self) -> String {
        let env = self.env();
        if env.is_empty() {
            return format!("defaults ({})", ResultForm::Both.as_str());
        }
        env.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A [`ResultForm`] by its `MODYO_RESULTS` name.
mod form_name {
    use modyo_mcp::contract::ResultForm;
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    pub(super) fn serialize<S: Serializer>(form: &ResultForm, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(form.as_str())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ResultForm, D::Error> {
        let name = String::deserialize(d)?;
        ResultForm::parse(&name).ok_or_else(|| {
            D::Error::custom(format!(
                "results {name:?} is not a result form (both, structured, text)"
            ))
        })
    }
}

/// What a capture is of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// [`FORMAT`].
    pub format: String,
    /// The client's short id (`claude-code`, `genai`): the file's name.
    pub client: String,
    /// The client as people name it (`Claude Code`).
    pub name: String,
    /// The npm package it was installed from.
    pub package: String,
    /// The package version that ran.
    pub version: String,
    /// The day (UTC) this content was first captured; a rerun that captures the same content
    /// keeps it, so the file and the reports stay byte for byte the same.
    pub date: String,
    /// The name our server was registered under.
    pub server: String,
}

/// One call the scripted model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The cassette scenario it comes from (`content/spaces-list#first-page`).
    pub scenario: String,
    /// Our tool's name.
    pub tool: String,
    /// The scenario's arguments.
    pub arguments: Value,
    /// What the scenario expects, and both sides answered: a success, an error (`isError`) or
    /// a control (the migrated side's refusal, a plain success text on the legacy side).
    pub outcome: Outcome,
}

/// A scenario of the module the session did not call, and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LeftOut {
    /// `cassette#scenario`.
    pub scenario: String,
    /// Why.
    pub why: String,
}

/// What one request carried of ours (counts only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    /// Lines naming one of our tools.
    pub names: usize,
    /// Our tools' definitions.
    pub definitions: usize,
    /// Results of our calls.
    pub results: usize,
    /// Copies of our server's instructions (absent from the file when none, and in captures
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub instructions: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One of our tools' definitions as the client sent it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Definition {
    /// Our tool's name.
    pub tool: String,
    /// Which fields of the tool as our server listed it the definition carries, by value
    /// (`description`, `inputSchema`, `outputSchema`, `annotations`, `title`), in that order.
    pub carries: Vec<String>,
    /// The definition as sent.
    pub sent: Value,
}

/// How a forwarded result relates to what our server answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Forwarded {
    /// The text of `content[]`, nothing else.
    Text,
    /// The whole result object: `content[]`, and `structuredContent` when there is one.
    Result,
    /// Something else that still holds our answer (rewritten, prefixed, cut).
    Other,
    /// None of our answer: the client sent the model a text of its own instead (it refused
    /// the call's arguments before calling, or replaced an error with its own message).
    Replaced,
}

impl Forwarded {
    /// How reports name it.
    pub fn describe(self) -> &'static str {
        match self {
            Forwarded::Text => "our content[].text as is",
            Forwarded::Result => {
                "the whole result object (content[], and structuredContent when there is one)"
            }
            Forwarded::Other => "our answer in another form (rewritten, prefixed or cut)",
            Forwarded::Replaced => "a text of the client's own instead of our answer",
        }
    }
}

/// The result of one call as the client sent it to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Result {
    /// The call's index in [`Session::calls`].
    pub call: usize,
    /// Our tool's name.
    pub tool: String,
    /// What of our result it is.
    pub forwarded: Forwarded,
    /// The result as sent.
    pub sent: Value,
}

/// One session: one module on one side, the calls made and what the model got of ours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The module (the server ran with only this module).
    pub module: String,
    /// Legacy, migrated, or migrated under the recommended settings.
    pub side: Side,
    /// The settings of a [`Side::Recommended`] session; `None` on the other sides (the
    /// defaults), and only there.
    pub settings: Option<Settings>,
    /// How many tools our server listed.
    pub listed: usize,
    /// The calls, in order.
    pub calls: Vec<Call>,
    /// The module's scenarios the session did not call.
    pub left_out: Vec<LeftOut>,
    /// Every request of the session, in order.
    pub requests: Vec<Shape>,
    /// Lines naming one of our tools, as sent, in the last request.
    pub names: Vec<String>,
    /// Every copy of our server's instructions in the last request.
    pub instructions: Vec<String>,
    /// Our tools' definitions in the last request.
    pub definitions: Vec<Definition>,
    /// The results of our calls in the last request, in call order.
    pub results: Vec<Result>,
}

/// A whole capture file.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    /// What it is of.
    pub header: Header,
    /// Every session, sorted by module then side.
    pub sessions: Vec<Session>,
}

/// Why a capture file does not parse.
#[derive(Debug, thiserror::Error)]
#[error("capture line {line}: {message}")]
pub struct CaptureError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

#[derive(Serialize, Deserialize)]
struct SessionLine {
    module: String,
    side: Side,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    settings: Option<Settings>,
    listed: usize,
    calls: Vec<Call>,
    left_out: Vec<LeftOut>,
    requests: Vec<Shape>,
    names: Vec<String>,
    instructions: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct DefinitionLine {
    module: String,
    side: Side,
    #[serde(flatten)]
    definition: Definition,
}

#[derive(Serialize, Deserialize)]
struct ResultLine {
    module: String,
    side: Side,
    #[serde(flatten)]
    result: Result,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "line", rename_all = "snake_case")]
enum Line {
    Capture(Header),
    Session(SessionLine),
    Definition(DefinitionLine),
    Result(ResultLine),
}

impl Capture {
    /// The session of `module` on `side`.
    pub fn session(&self, module: &str, side: Side) -> Option<&Session> {
        self.sessions
            .iter()
            .find(|s| s.module == module && s.side == side)
    }

    /// The file's text: one JSON value per line, sessions sorted by module then side.
    pub fn to_jsonl(&self) -> String {
        let mut sessions: Vec<&Session> = self.sessions.iter().collect();
        sessions.sort_by(|a, b| (&a.module, a.side).cmp(&(&b.module, b.side)));
        let mut lines = vec![Line::Capture(self.header.clone())];
        for s in sessions {
            lines.push(Line::Session(SessionLine {
                module: s.module.clone(),
                side: s.side,
                settings: s.settings,
                listed: s.listed,
                calls: s.calls.clone(),
                left_out: s.left_out.clone(),
                requests: s.requests.clone(),
                names: s.names.clone(),
                instructions: s.instructions.clone(),
            }));
            lines.extend(s.definitions.iter().map(|d| {
                Line::Definition(DefinitionLine {
                    module: s.module.clone(),
                    side: s.side,
                    definition: d.clone(),
                })
            }));
            lines.extend(s.results.iter().map(|r| {
                Line::Result(ResultLine {
                    module: s.module.clone(),
                    side: s.side,
                    result: r.clone(),
                })
            }));
        }
        let mut text = String::new();
        for line in lines {
            // A tree of strings, numbers and maps always serializes.
            text.push_str(&serde_json::to_string(&line).unwrap_or_default());
            text.push('\n');
        }
        text
    }

    /// Parses a capture file: a `capture` line first, each `definition` and `result` line after
    /// the `session` line of its module and side.
    pub fn parse(text: &str) -> std::result::Result<Capture, CaptureError> {
        let mut header = None;
        let mut sessions: Vec<Session> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let error = |message: String| CaptureError {
                line: i + 1,
                message,
            };
            if raw.trim().is_empty() {
                continue;
            }
            let line: Line = serde_json::from_str(raw).map_err(|e| error(e.to_string()))?;
            let missing = |module: &str, side: Side| {
                error(format!(
                    "no session line for {module} {} before this line",
                    side.as_str()
                ))
            };
            match line {
                Line::Capture(h) => {
                    if header.is_some() || !sessions.is_empty() {
                        return Err(error("the capture line must come first, once".into()));
                    }
                    if h.format != FORMAT {
                        return Err(error(format!(
                            "format {:?}, this lab reads {FORMAT}",
                            h.format
                        )));
                    }
                    header = Some(h);
                }
                Line::Session(s) => {
                    if header.is_none() {
                        return Err(error("a session before the capture line".into()));
                    }
                    if (s.side == Side::Recommended) != s.settings.is_some() {
                        return Err(error(format!(
                            "a {} session {} settings: only a recommended session records them",
                            s.side.as_str(),
                            if s.settings.is_some() {
                                "with"
                            } else {
                                "without"
                            }
                        )));
                    }
                    sessions.push(Session {
                        module: s.module,
                        side: s.side,
                        settings: s.settings,
                        listed: s.listed,
                        calls: s.calls,
                        left_out: s.left_out,
                        requests: s.requests,
                        names: s.names,
                        instructions: s.instructions,
                        definitions: Vec::new(),
                        results: Vec::new(),
                    });
                }
                Line::Definition(d) => {
                    current(&mut sessions, &d.module, d.side)
                        .ok_or_else(|| missing(&d.module, d.side))?
                        .definitions
                        .push(d.definition);
                }
                Line::Result(r) => {
                    let s = current(&mut sessions, &r.module, r.side)
                        .ok_or_else(|| missing(&r.module, r.side))?;
                    if r.result.call >= s.calls.len() {
                        return Err(error(format!(
                            "result of call {} in a session of {} calls",
                            r.result.call,
                            s.calls.len()
                        )));
                    }
                    s.results.push(r.result);
                }
            }
        }
        let header = header.ok_or(CaptureError {
            line: 1,
            message: "empty capture: no capture line".into(),
        })?;
        Ok(Capture { header, sessions })
    }

    /// Keeps `previous`'s date when everything else is the same, so an unchanged capture
    /// rewrites the same bytes.
    pub fn keep_date_of(&mut self, previous: &Capture) {
        let mut same = previous.clone();
        same.header.date = self.header.date.clone();
        if same.to_jsonl() == self.to_jsonl() {
            self.header.date = previous.header.date.clone();
        }
    }
}

/// The session being read, if it is `module` on `side`.
fn current<'a>(sessions: &'a mut [Session], module: &str, side: Side) -> Option<&'a mut Session> {
    sessions
        .last_mut()
        .filter(|s| s.module == module && s.side == side)
}

#[cfg(test)]
#[path = "capture_tests.rs"]
mod tests;
