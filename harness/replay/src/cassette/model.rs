//! The values of format v1 (`modyo-cassette/1`) around the HTTP exchanges (the cassette, its
//! provenance, scenarios and `undocumented` marks; the exchanges are in `interaction`), and the
//! builders that make them in code.
//!
//! The serde shape is the file shape: field order here is key order on disk, optional parts are
//! skipped when absent, and objects the format owns reject unknown keys. JSON bodies are kept as
//! [`serde_json::Value`] with their key order (the workspace enables `preserve_order`), so a
//! cassette written by [`Cassette::to_json`] reads back to the same bytes.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::interaction::{Interaction, OrderedMap};

/// The value of the `format` key of every v1 cassette.
pub const FORMAT_V1: &str = "modyo-cassette/1";

/// One cassette: the HTTP interactions a set of scenarios needs, and where they came from.
///
/// Its [`name`](Cassette::name) is its path under `cassettes/` without `.json`
/// (`content/spaces-list`); the name is not stored in the file.
///
/// ```
/// use modyo_replay::cassette::{Cassette, Interaction, Provenance, Scenario};
/// use serde_json::json;
///
/// let cassette = Cassette::new("content/spaces-list", Provenance::synthetic("2026-11-29", "an empty account"))
///     .scenario(Scenario::new("spaces-list").tool("content-spaces-list").args(json!({"per_page": 10})))
///     .interaction(
///         Interaction::get("/api/admin/content/spaces")
///             .query("page", "1")
///             .query("per_page", "10")
///             .respond(200, json!({"spaces": []})),
///     );
/// assert!(cassette.to_json().unwrap().starts_with("{\n  \"format\": \"modyo-cassette/1\""));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cassette {
    #[serde(skip)]
    pub(crate) name: String,
    format: FormatV1,
    /// Where the interactions come from.
    pub provenance: Provenance,
    /// Free labels; `fault` cassettes are left out of the offline server unless asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Other cassettes whose interactions this one also needs; this one shadows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<String>,
    /// The tool calls this cassette is meant to answer (none for a cassette that is only
    /// included by others).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scenarios: Vec<Scenario>,
    /// Endpoints this cassette's interactions use that Modyo's published specification does
    /// not document, each with its evidence (see [`Undocumented`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undocumented: Vec<Undocumented>,
    /// The recorded HTTP exchanges, in recorded order.
    pub interactions: Vec<Interaction>,
}

impl Cassette {
    /// An empty cassette named `name` (its path under `cassettes/` without `.json`).
    pub fn new(name: impl Into<String>, provenance: Provenance) -> Cassette {
        Cassette {
            name: name.into(),
            format: FormatV1,
            provenance,
            tags: Vec::new(),
            include: Vec::new(),
            scenarios: Vec::new(),
            undocumented: Vec::new(),
            interactions: Vec::new(),
        }
    }

    /// The cassette's name, e.g. `content/spaces-list`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the cassette carries `tag`.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }

    /// Adds a tag.
    pub fn tag(mut self, tag: impl Into<String>) -> Cassette {
        self.tags.push(tag.into());
        self
    }

    /// Adds an include (a cassette name).
    pub fn include(mut self, name: impl Into<String>) -> Cassette {
        self.include.push(name.into());
        self
    }

    /// Adds a scenario.
    pub fn scenario(mut self, scenario: Scenario) -> Cassette {
        self.scenarios.push(scenario);
        self
    }

    /// Declares an endpoint the published specification lacks, with its evidence.
    pub fn undocumented(mut self, endpoint: Undocumented) -> Cassette {
        self.undocumented.push(endpoint);
        self
    }

    /// Appends an interaction (recorded order is append order).
    pub fn interaction(mut self, interaction: Interaction) -> Cassette {
        self.interactions.push(interaction);
        self
    }

    /// Appends several interactions.
    pub fn interactions(mut self, interactions: impl IntoIterator<Item = Interaction>) -> Cassette {
        self.interactions.extend(interactions);
        self
    }
}

/// The `format` key: only `modyo-cassette/1` parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FormatV1;

impl Serialize for FormatV1 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(FORMAT_V1)
    }
}

impl<'de> Deserialize<'de> for FormatV1 {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let found = String::deserialize(deserializer)?;
        if found == FORMAT_V1 {
            Ok(FormatV1)
        } else {
            Err(de::Error::custom(format!(
                "unsupported format '{found}', expected '{FORMAT_V1}'"
            )))
        }
    }
}

/// Where a cassette's interactions come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// Written by hand or by a generator, or recorded against a live account.
    pub source: Source,
    /// The day it was made, `YYYY-MM-DD`.
    pub date: String,
    /// What this records, for a reviewer.
    pub description: String,
    /// The command that generated it, when generated (`modyo-lab generate pilot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
    /// Whether the endpoint paths are assumed rather than documented (catalogue `[synthetic]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synthetic_paths: Option<bool>,
}

impl Provenance {
    /// A synthetic provenance (written by hand or generated).
    pub fn synthetic(date: impl Into<String>, description: impl Into<String>) -> Provenance {
        Provenance::new(Source::Synthetic, date, description)
    }

    /// A provenance for interactions recorded against a live account.
    pub fn recorded(date: impl Into<String>, description: impl Into<String>) -> Provenance {
        Provenance::new(Source::Recorded, date, description)
    }

    fn new(source: Source, date: impl Into<String>, description: impl Into<String>) -> Provenance {
        Provenance {
            source,
            date: date.into(),
            description: description.into(),
            generator: None,
            synthetic_paths: None,
        }
    }

    /// Names the generator command.
    pub fn generator(mut self, generator: impl Into<String>) -> Provenance {
        self.generator = Some(generator.into());
        self
    }

    /// Marks the endpoint paths as assumed (or documented).
    pub fn synthetic_paths(mut self, synthetic: bool) -> Provenance {
        self.synthetic_paths = Some(synthetic);
        self
    }
}

/// How a cassette was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Written by hand or by a generator.
    Synthetic,
    /// Recorded against a live account (and scrubbed).
    Recorded,
}

/// An endpoint the cassette uses that Modyo's published specification does not document.
///
/// `cassettes check` holds every interaction to the API surface under `harness/spec/`; an
/// interaction whose method and path no documented operation matches must be covered by one of
/// these marks, or the check fails. The mark names the endpoint by its method and path template
/// (with the base path: `/api/admin/groups/{group_id}`) and says what public source, if any,
/// confirms that the endpoint exists.
///
/// A mark is not the fix for a wrong path: when the specification documents the same resource
/// or action elsewhere (`/sites/{site_id}/layout_pages`, not `/pages`), the interaction
/// contradicts it and stays a contradiction until the server is fixed.
///
/// ```
/// use modyo_replay::cassette::{Evidence, Undocumented};
///
/// let mark = Undocumented::new("GET", "/api/admin/groups", Evidence::docs("docs/en/platform/core/api.md"))
///     .note("named among the collections that take `only`");
/// assert_eq!(serde_json::to_value(&mark).unwrap()["evidence"], "modyo-docs:docs/en/platform/core/api.md");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Undocumented {
    /// Upper-case HTTP method.
    pub method: String,
    /// The path template, base path included; `{name}` stands for one path segment.
    pub path: String,
    /// The public source that confirms the endpoint, or `none`.
    pub evidence: Evidence,
    /// What the evidence says, in our words, when the source alone does not make it plain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Undocumented {
    /// A mark for `method path`.
    pub fn new(method: impl Into<String>, path: impl Into<String>, evidence: Evidence) -> Self {
        Undocumented {
            method: method.into(),
            path: path.into(),
            evidence,
            note: None,
        }
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Undocumented {
        self.note = Some(note.into());
        self
    }
}

/// What public source confirms an undocumented endpoint.
///
/// Written as one string: `none`, `modyo-docs:<page>` (a page of the `modyo/modyo-docs`
/// repository's master branch, `docs/....md`), `modyo-docs#<pull request>:<file>` (a file as
/// an unmerged pull request of that repository has it, `docs/...`: what Modyo's documentation
/// team wrote, not yet published), or `<npm package>@<version>:<file>` for a published Modyo
/// package (`@modyo/cli@3.6.2:lib/push/publish-widget.js`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Evidence {
    /// No public source confirms the endpoint.
    None,
    /// A page of the Modyo documentation (`docs/en/platform/core/api.md`).
    Docs(String),
    /// A file of an unmerged pull request of the Modyo documentation.
    DocsPull {
        /// The pull request's number (`1080`).
        number: u32,
        /// The file in it (`docs/en/platform/core/activity-logs.md`).
        file: String,
    },
    /// A file of a published Modyo npm package.
    Package {
        /// The package name (`@modyo/cli`).
        name: String,
        /// Its version (`3.6.2`).
        version: String,
        /// The file inside the package (`lib/push/publish-widget.js`).
        file: String,
    },
}

impl Evidence {
    /// A documentation page.
    pub fn docs(page: impl Into<String>) -> Evidence {
        Evidence::Docs(page.into())
    }

    /// Whether a public source confirms the endpoint.
    pub fn is_none(&self) -> bool {
        matches!(self, Evidence::None)
    }

    /// Parses the written form; the error says what is expected.
    pub fn parse(text: &str) -> Result<Evidence, String> {
        let expected = "expected `none`, `modyo-docs:docs/<page>.md`, `modyo-docs#<pull request>:docs/<file>` or `@modyo/<package>@<version>:<file>`";
        if text == "none" {
            return Ok(Evidence::None);
        }
        if let Some(rest) = text.strip_prefix("modyo-docs#")
            && let Some((number, file)) = rest.split_once(':')
        {
            let number = number
                .parse::<u32>()
                .ok()
                .filter(|n| *n > 0 && !number.starts_with('0'));
            let clean = file.starts_with("docs/")
                && file
                    .split('/')
                    .all(|s| !s.is_empty() && s != "." && s != "..");
            return match number {
                Some(number) if clean => Ok(Evidence::DocsPull {
                    number,
                    file: file.to_owned(),
                }),
                _ => Err(format!(
                    "'{text}': a pull request's file is `modyo-docs#<number>:docs/<path>`; {expected}"
                )),
            };
        }
        if let Some(page) = text.strip_prefix("modyo-docs:") {
            let clean = page.starts_with("docs/")
                && page.ends_with(".md")
                && page
                    .split('/')
                    .all(|s| !s.is_empty() && s != "." && s != "..");
            return if clean {
                Ok(Evidence::Docs(page.to_owned()))
            } else {
                Err(format!(
                    "'{text}': a docs page is a path under docs/ ending in .md; {expected}"
                ))
            };
        }
        if let Some(rest) = text.strip_prefix("@modyo/")
            && let Some((package, file)) = rest.split_once(':')
            && let Some((name, version)) = package.split_once('@')
            && !name.is_empty()
            && version.chars().next().is_some_and(|c| c.is_ascii_digit())
            && !file.is_empty()
            && file
                .split('/')
                .all(|s| !s.is_empty() && s != "." && s != "..")
        {
            return Ok(Evidence::Package {
                name: format!("@modyo/{name}"),
                version: version.to_owned(),
                file: file.to_owned(),
            });
        }
        Err(format!("'{text}': {expected}"))
    }
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Evidence::None => f.write_str("none"),
            Evidence::Docs(page) => write!(f, "modyo-docs:{page}"),
            Evidence::DocsPull { number, file } => write!(f, "modyo-docs#{number}:{file}"),
            Evidence::Package {
                name,
                version,
                file,
            } => write!(f, "{name}@{version}:{file}"),
        }
    }
}

impl Serialize for Evidence {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Evidence {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Evidence::parse(&text).map_err(de::Error::custom)
    }
}

/// One tool call the cassette is meant to answer, and what it should produce.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Unique within the cassette.
    pub name: String,
    /// The MCP tool to call.
    pub tool: String,
    /// The call's arguments (a JSON object).
    pub arguments: Value,
    /// What the call must produce.
    pub expect: Expect,
    /// Extra server environment for this scenario (`MODYO_READ_ONLY`...).
    #[serde(default, skip_serializing_if = "OrderedMap::is_empty")]
    pub env: OrderedMap<String>,
}

impl Scenario {
    /// A scenario named `name`, expecting success, with no tool and no arguments yet.
    pub fn new(name: impl Into<String>) -> Scenario {
        Scenario {
            name: name.into(),
            tool: String::new(),
            arguments: Value::Object(serde_json::Map::new()),
            expect: Expect {
                outcome: Outcome::Success,
                code: None,
            },
            env: OrderedMap::new(),
        }
    }

    /// The tool to call.
    pub fn tool(mut self, tool: impl Into<String>) -> Scenario {
        self.tool = tool.into();
        self
    }

    /// The call's arguments; must be a JSON object.
    pub fn args(mut self, arguments: Value) -> Scenario {
        self.arguments = arguments;
        self
    }

    /// Expects an error result with the given C16 `code`.
    pub fn expect_error(mut self, code: impl Into<String>) -> Scenario {
        self.expect = Expect {
            outcome: Outcome::Error,
            code: Some(code.into()),
        };
        self
    }

    /// Expects the call not to run (`control`, C18).
    pub fn expect_control(mut self) -> Scenario {
        self.expect = Expect {
            outcome: Outcome::Control,
            code: None,
        };
        self
    }

    /// Sets one server environment variable for this scenario.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Scenario {
        self.env.insert(key, value.into());
        self
    }
}

/// The expected result of a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Success, error or control.
    pub outcome: Outcome,
    /// The expected error `code` (`not_found`) or control outcome, when it matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// The kind of result a scenario expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A normal result with `structuredContent`.
    Success,
    /// `isError: true` with a C16 error.
    Error,
    /// The call did not run (C18).
    Control,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn evidence_is_none_a_docs_page_a_pull_request_s_file_or_a_package_file() {
        for good in [
            "none",
            "modyo-docs:docs/en/platform/core/api.md",
            "@modyo/cli@3.6.2:lib/push/publish-widget.js",
            "modyo-docs#1080:docs/en/platform/core/activity-logs.md",
            "modyo-docs#604:docs/.vuepress/public/swagger/json/admin-swagger.json",
        ] {
            let evidence = Evidence::parse(good).expect(good);
            assert_eq!(evidence.to_string(), good);
        }
        assert_eq!(
            Evidence::parse("@modyo/cli@3.6.2:lib/x.js"),
            Ok(Evidence::Package {
                name: "@modyo/cli".into(),
                version: "3.6.2".into(),
                file: "lib/x.js".into()
            })
        );
        for bad in [
            "",
            "None",
            "docs/en/platform/core/api.md",
            "modyo-docs:en/api.md",
            "modyo-docs:docs/../x.md",
            "modyo-docs:docs/en/api.html",
            "@modyo/cli:lib/x.js",
            "@modyo/cli@latest:lib/x.js",
            "@other/cli@1.0.0:lib/x.js",
            "@modyo/cli@3.6.2:",
            "modyo-docs#:docs/en/x.md",
            "modyo-docs#0:docs/en/x.md",
            "modyo-docs#012:docs/en/x.md",
            "modyo-docs#pr:docs/en/x.md",
            "modyo-docs#1080:en/x.md",
            "modyo-docs#1080:docs/../x.md",
        ] {
            assert!(Evidence::parse(bad).is_err(), "{bad:?} accepted");
        }
        let err = serde_json::from_value::<Undocumented>(
            json!({"method": "GET", "path": "/x", "evidence": ""}),
        )
        .expect_err("empty evidence");
        assert!(err.to_string().contains("expected `none`"), "{err}");
    }
}
