//! The contract lint (`modyo-lab lint`): reads `tools/list` from any stdio MCP server and checks
//! every `outputSchema`; over our own server it also replays every cassette scenario and checks
//! what the tools emit.
//!
//! Rules (see `server/CONTRACT.md`):
//! - **C1** the output schema is the envelope: `platform` and `data` are declared;
//! - **C5** `state` publishes the face(s) of the tool's class (coverage for reads, the
//!   post-condition for mutations, both for gated tools), the class decided as in C19;
//! - **C8** a replayed result failed its own output validation (`-32602`);
//! - **C9** no `anyOf`/`oneOf` with more than one structured branch, at any depth;
//! - **C10** `data` roots (the items, for arrays) are strict unless listed among the echoed
//!   roots (design; `ECHOED_ROOT_TOOLS` in the lint's output: for our server, what each tool's
//!   `data` type declares, [`modyo_mcp::echoed_roots`]) or in [`lists::OPAQUE_ROOT_TOOLS`]
//!   (debt);
//! - **C11** every `data` key a result emits (each item's, for arrays) is declared, unless the
//!   root is a listed echoed root (it declares the keys the server relies on; the rest travels
//!   under `additionalProperties`) or the tool is listed in [`lists::KNOWN_UNDERDECLARED`];
//! - **C12** where `data` is an object and `resource` is present, their `id`, `uuid` and `name`
//!   agree;
//! - **C13** no `message` property without a `code` sibling, at any depth (except `control`);
//! - **C19** `readOnlyHint: true` never sits on a tool with mutating actions.
//!
//! The lists can only shrink: an entry that no longer describes a violation fails as stale.
//! Each violation names the tool, the rule and a JSON pointer (into the output schema for
//! schema rules, into the result's `structuredContent` for C11 and C12).

pub mod lists;
mod results;
mod schema;
mod target;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use rmcp::model::{CallToolResult, Tool};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use schema::{COVERAGE_KEYS, POST_KEYS, actions, classify, mutating_actions};
pub use target::{LintError, LintOptions, PlannedCall, ServerCommand, replay_library, run};

use schema::Root;

/// A contract rule the lint checks.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
pub enum Rule {
    /// The output schema is the envelope (`platform`, `data`).
    C1,
    /// State faces match the class.
    C5,
    /// A result failed its own output validation.
    C8,
    /// No structural unions.
    C9,
    /// Strict own roots.
    C10,
    /// No undeclared emitted keys.
    C11,
    /// Own keys win over echoed ones.
    C12,
    /// No `message` without `code`.
    C13,
    /// Class consistency.
    C19,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// One violation: which tool, which rule, where, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Violation {
    /// The tool.
    pub tool: String,
    /// The rule.
    pub rule: Rule,
    /// A JSON pointer: into the output schema (schema rules) or into `structuredContent`
    /// (C11, C12); empty for a whole list entry.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl Violation {
    pub(crate) fn new(tool: &str, rule: Rule, pointer: String, message: String) -> Violation {
        Violation {
            tool: tool.to_owned(),
            rule,
            pointer,
            message,
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(list entry)"
        } else {
            &self.pointer
        };
        write!(
            f,
            "{} {} {}: {}",
            self.tool, self.rule, pointer, self.message
        )
    }
}

/// The three exemption lists, by tool, with the reason of each entry.
///
/// [`Lists::builtin`] holds ours (the echoed roots the tools declare, the debt lists of
/// [`lists`]); another server passes its own as a JSON file:
/// `{"echoed_root_tools": {"tool": "reason"}, "opaque_root_tools": {}, "known_underdeclared": {}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lists {
    /// C10 design decisions: loose roots that echo foreign objects.
    #[serde(default)]
    pub echoed_root_tools: BTreeMap<String, String>,
    /// C10 debt: roots the server cannot enumerate.
    #[serde(default)]
    pub opaque_root_tools: BTreeMap<String, String>,
    /// C11 debt: tools emitting undeclared keys.
    #[serde(default)]
    pub known_underdeclared: BTreeMap<String, String>,
}

impl Lists {
    /// Our server's lists: the echoed roots its tools declare ([`modyo_mcp::echoed_roots`]),
    /// and the debt lists of [`lists`].
    pub fn builtin() -> Lists {
        let map = |entries: &[lists::Entry]| {
            entries
                .iter()
                .map(|e| (e.tool.to_owned(), e.reason.to_owned()))
                .collect::<BTreeMap<String, String>>()
        };
        Lists {
            echoed_root_tools: modyo_mcp::echoed_roots()
                .into_iter()
                .map(|(tool, reason)| (tool.to_owned(), reason))
                .collect(),
            opaque_root_tools: map(lists::OPAQUE_ROOT_TOOLS),
            known_underdeclared: map(lists::KNOWN_UNDERDECLARED),
        }
    }
}

/// A violation a list entry exempted.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Exemption {
    /// The tool.
    pub tool: String,
    /// The rule it would break.
    pub rule: Rule,
    /// The list that exempts it.
    pub list: &'static str,
    /// The entry's reason.
    pub reason: String,
}

/// What a lint run found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// Tools in `tools/list`.
    pub tools: usize,
    /// Tools with an `outputSchema` (the others are legacy and not checked).
    pub checked: usize,
    /// Tool results checked (C8, C11, C12).
    pub calls: usize,
    /// The violations, sorted by tool, rule and pointer.
    pub violations: Vec<Violation>,
    /// What the lists exempted.
    pub exempted: Vec<Exemption>,
}

impl Report {
    /// No violation.
    pub fn is_clean(&self) -> bool {
        self.violations.is_empty()
    }

    /// One line per violation, then a summary line.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for v in &self.violations {
            out.push_str(&v.to_string());
            out.push('\n');
        }
        out.push_str(&format!(
            "modyo-lab lint: {} tools ({} with an outputSchema), {} results checked, {} exempted by the lists, {} violation(s)\n",
            self.tools,
            self.checked,
            self.calls,
            self.exempted.len(),
            self.violations.len()
        ));
        out
    }

    /// The report as pretty JSON (stable key order).
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
}

/// A lint in progress: the schema rules run at construction, results are added as they come,
/// and [`Lint::finish`] applies the lists.
#[derive(Debug)]
pub struct Lint {
    tools: Vec<Tool>,
    lists: Lists,
    raw: Vec<Violation>,
    roots: BTreeMap<String, (Root, String)>,
    calls: usize,
    results_checked: bool,
}

impl Lint {
    /// Checks the schema rules over `tools` (as `tools/list` returned them).
    pub fn new(tools: Vec<Tool>, lists: Lists) -> Lint {
        let mut raw = Vec::new();
        let mut roots = BTreeMap::new();
        for tool in &tools {
            let Some(output) = &tool.output_schema else {
                continue;
            };
            let output = schema::inline_refs(&Value::Object((**output).clone()));
            let name = tool.name.as_ref();
            let props = output.get("properties").and_then(Value::as_object);
            let missing: Vec<&str> = ["platform", "data"]
                .into_iter()
                .filter(|k| !props.is_some_and(|p| p.contains_key(*k)))
                .collect();
            if !missing.is_empty() {
                raw.push(Violation::new(
                    name,
                    Rule::C1,
                    "/properties".to_owned(),
                    format!(
                        "the outputSchema is not the envelope {{platform, data, resource?, state?, control?}}: no {}",
                        missing.join(", ")
                    ),
                ));
            }
            schema::c9(name, &output, &mut raw);
            schema::c13(name, &output, &mut raw);
            if let Some(data) = output.pointer("/properties/data") {
                roots.insert(
                    name.to_owned(),
                    schema::root(&output, data, "/properties/data".to_owned()),
                );
            }
            schema::c5(tool, classify(tool), &output, &mut raw);
            schema::c19(tool, &mut raw);
        }
        Lint {
            tools,
            lists,
            raw,
            roots,
            calls: 0,
            results_checked: false,
        }
    }

    /// The tools being linted.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Checks one result of `tool` (C11, C12); `origin` names the call in messages.
    pub fn result(&mut self, tool: &Tool, result: &CallToolResult, origin: &str) {
        self.calls += 1;
        self.results_checked = true;
        self.raw.extend(results::check(tool, result, origin));
    }

    /// Records a call that failed its own output validation (C8).
    pub fn output_invalid(&mut self, tool: &str, origin: &str, message: &str) {
        self.calls += 1;
        self.results_checked = true;
        self.raw.push(Violation::new(
            tool,
            Rule::C8,
            String::new(),
            format!("{origin}: {message}"),
        ));
    }

    /// Applies the lists (exemptions and stale entries) and sorts the violations.
    pub fn finish(self) -> Report {
        let Lint {
            tools,
            lists,
            raw,
            roots,
            calls,
            results_checked,
        } = self;
        let mut violations = Vec::new();
        let mut exempted = BTreeSet::new();
        let exempt = |list: &'static str, tool: &str, rule: Rule, reason: &String| Exemption {
            tool: tool.to_owned(),
            rule,
            list,
            reason: reason.clone(),
        };
        let mut underdeclared = BTreeSet::new();
        for v in raw {
            if v.rule == Rule::C11 {
                // An echoed root declares only the keys the server relies on or guarantees;
                // the others travel under `additionalProperties` (C8, C10).
                let echoed = lists.echoed_root_tools.contains_key(&v.tool)
                    && matches!(roots.get(&v.tool), Some((Root::Loose, _)));
                if echoed {
                    continue;
                }
                underdeclared.insert(v.tool.clone());
                if let Some(reason) = lists.known_underdeclared.get(&v.tool) {
                    exempted.insert(exempt("KNOWN_UNDERDECLARED", &v.tool, Rule::C11, reason));
                    continue;
                }
            }
            violations.push(v);
        }
        for (tool, (kind, pointer)) in &roots {
            let echoed = lists.echoed_root_tools.get(tool);
            let opaque = lists.opaque_root_tools.get(tool);
            let message = match (kind, echoed, opaque) {
                (Root::Strict, _, _) => continue,
                (_, _, Some(reason)) => {
                    exempted.insert(exempt("OPAQUE_ROOT_TOOLS", tool, Rule::C10, reason));
                    continue;
                }
                (Root::Loose, Some(reason), None) => {
                    exempted.insert(exempt("ECHOED_ROOT_TOOLS", tool, Rule::C10, reason));
                    continue;
                }
                (Root::Loose, None, None) => {
                    "loose data root (additional properties allowed): make it strict (additionalProperties: false) if the server writes it key by key; list it in ECHOED_ROOT_TOOLS only if it is a foreign object echoed whole"
                }
                (Root::Opaque, Some(_), None) => {
                    "listed in ECHOED_ROOT_TOOLS but the root declares no properties: declare the foreign object's known keys (C11)"
                }
                (Root::Opaque, None, None) => {
                    "opaque data root (no declared properties): declare its keys and make it strict"
                }
            };
            violations.push(Violation::new(
                tool,
                Rule::C10,
                pointer.clone(),
                message.to_owned(),
            ));
        }
        let present: BTreeMap<&str, &Tool> = tools.iter().map(|t| (t.name.as_ref(), t)).collect();
        let mut stale = |list: &str, rule: Rule, tool: &str, why: String| {
            violations.push(Violation::new(
                tool,
                rule,
                String::new(),
                format!("stale entry in {list}: {why}; remove it (the lists only shrink)"),
            ));
        };
        for (list, entries) in [
            ("ECHOED_ROOT_TOOLS", &lists.echoed_root_tools),
            ("OPAQUE_ROOT_TOOLS", &lists.opaque_root_tools),
        ] {
            for tool in entries.keys() {
                match (present.get(tool.as_str()), roots.get(tool)) {
                    (None, _) => stale(
                        list,
                        Rule::C10,
                        tool,
                        "the tool is not in tools/list".into(),
                    ),
                    (Some(_), None) => stale(
                        list,
                        Rule::C10,
                        tool,
                        "the tool has no outputSchema data root".into(),
                    ),
                    (Some(_), Some((Root::Strict, _))) => {
                        stale(list, Rule::C10, tool, "its data root is strict".into())
                    }
                    _ => {}
                }
            }
        }
        for tool in lists.echoed_root_tools.keys() {
            if lists.opaque_root_tools.contains_key(tool) {
                stale(
                    "ECHOED_ROOT_TOOLS",
                    Rule::C10,
                    tool,
                    "it is also in OPAQUE_ROOT_TOOLS; keep one".into(),
                );
            }
        }
        if results_checked {
            for tool in lists.known_underdeclared.keys() {
                if !present.contains_key(tool.as_str()) {
                    stale(
                        "KNOWN_UNDERDECLARED",
                        Rule::C11,
                        tool,
                        "the tool is not in tools/list".into(),
                    );
                } else if !underdeclared.contains(tool) {
                    stale(
                        "KNOWN_UNDERDECLARED",
                        Rule::C11,
                        tool,
                        format!("no result emitted an undeclared key ({calls} results checked)"),
                    );
                }
            }
        }
        violations.sort();
        violations.dedup();
        Report {
            tools: tools.len(),
            checked: tools.iter().filter(|t| t.output_schema.is_some()).count(),
            calls,
            violations,
            exempted: exempted.into_iter().collect(),
        }
    }
}
