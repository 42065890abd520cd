//! The suite's report, `report.md` and `report.json`: per endpoint the live answers against ours
//! and against the API surface, per tool its live outcomes and whether its recorded calls replay
//! offline, per step what it ran on; the verdict.
//!
//! The report is built from counts, statuses, error codes, endpoint templates, JSON key paths
//! and types ([`super::compare`]): no value of the account (no id, name, text, host, token)
//! reaches it, so it can be sent back as it is.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;

use super::compare::{EndpointReport, likely_renames};
use crate::record::GuardStats;
use crate::report::table::{Align::Left, Table};

/// The format tag of `report.json`.
pub const REPORT_FORMAT: &str = "modyo-suite-report/1";

/// Error codes that say the account or the token stood in the way, not that ours are wrong.
const ENVIRONMENT_CODES: [&str; 5] = [
    "unauthorized",
    "forbidden",
    "rate_limited",
    "upstream_unavailable",
    "ambiguous",
];

/// The limits the run used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RunLimits {
    /// The request budget.
    pub requests: usize,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Items kept per find.
    pub items: usize,
    /// Retries after a `429`/`503`.
    pub retries: u32,
    /// The longest `Retry-After` waited for, in seconds.
    pub max_wait_s: u64,
}

/// One step.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// The step (and cassette) name.
    pub name: String,
    /// Its tool.
    pub tool: String,
    /// Its round (0: runs on nothing found).
    pub round: usize,
    /// Calls made.
    pub calls: usize,
    /// Why it made none, or why its recording stopped.
    pub note: Option<String>,
    /// Rows found, per variable.
    pub found: BTreeMap<String, usize>,
}

/// How a tool's live calls stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolVerdict {
    /// At least one success, nothing that contradicts ours.
    Agrees,
    /// An outcome, a contract check or an offline replay says ours are wrong.
    Contradicts,
    /// Only the account or the token stood in the way (401, 403, 429, 5xx, refusals).
    Inconclusive,
    /// Never called (nothing found to call it on, or the budget spent).
    NotRun,
}

/// One tool.
#[derive(Debug, Clone, Serialize)]
pub struct ToolReport {
    /// The tool.
    pub tool: String,
    /// Calls made.
    pub calls: usize,
    /// `success`, `control`, `error: <code>`, `call failed`: how many of each.
    pub outcomes: BTreeMap<String, usize>,
    /// Contract problems of the live results (C1, C2, C8, C16-C18: `modyo-lab lint` names them).
    pub contract_problems: usize,
    /// Calls the guard cut short (read-only refusal, budget).
    pub refused: usize,
    /// Calls recorded as scenarios.
    pub recorded: usize,
    /// Of those, the ones that replayed offline from the written cassette with the same result.
    pub replayed: usize,
    /// The verdict.
    pub verdict: ToolVerdict,
}

impl ToolReport {
    /// An empty report for `tool`.
    pub(super) fn new(tool: &str) -> ToolReport {
        ToolReport {
            tool: tool.to_owned(),
            calls: 0,
            outcomes: BTreeMap::new(),
            contract_problems: 0,
            refused: 0,
            recorded: 0,
            replayed: 0,
            verdict: ToolVerdict::NotRun,
        }
    }

    /// Sets the verdict from the counts.
    pub(super) fn judge(&mut self) {
        let contradicting = self.outcomes.keys().any(|outcome| {
            outcome == "control"
                || outcome == "call failed"
                || outcome
                    .strip_prefix("error: ")
                    .is_some_and(|code| !ENVIRONMENT_CODES.contains(&code))
        });
        self.verdict = if self.calls == 0 {
            ToolVerdict::NotRun
        } else if contradicting || self.contract_problems > 0 || self.replayed < self.recorded {
            ToolVerdict::Contradicts
        } else if self.outcomes.contains_key("success") {
            ToolVerdict::Agrees
        } else {
            ToolVerdict::Inconclusive
        };
    }
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteReport {
    /// [`REPORT_FORMAT`].
    pub format: &'static str,
    /// The suite.
    pub suite: String,
    /// The harness version.
    pub harness: &'static str,
    /// The day it ran.
    pub date: String,
    /// Whether the account host was replaced in everything written.
    pub host_redacted: bool,
    /// The limits.
    pub limits: RunLimits,
    /// What the guard let through and held back.
    pub requests: GuardStats,
    /// Seconds the run took.
    pub duration_s: f64,
    /// Per step.
    pub steps: Vec<StepReport>,
    /// Per endpoint.
    pub endpoints: Vec<EndpointReport>,
    /// Per tool.
    pub tools: Vec<ToolReport>,
    /// Endpoints whose live answers contradict ours.
    pub contradicted_endpoints: usize,
    /// Tools whose live calls contradict ours.
    pub contradicted_tools: usize,
    /// Steps whose recording could not run.
    pub failed_steps: usize,
    /// Whether nothing contradicts ours (the exit status is 0 exactly then).
    pub ok: bool,
}

impl SuiteReport {
    /// Counts the contradictions and sets [`SuiteReport::ok`].
    pub(super) fn finish(&mut self) {
        self.contradicted_endpoints = self.endpoints.iter().filter(|e| e.contradicts()).count();
        self.contradicted_tools = self
            .tools
            .iter()
            .filter(|t| t.verdict == ToolVerdict::Contradicts)
            .count();
        self.failed_steps = self
            .steps
            .iter()
            .filter(|s| s.note.as_deref().is_some_and(|n| n.starts_with(FAILED)))
            .count();
        self.ok = self.contradicted_endpoints == 0
            && self.contradicted_tools == 0
            && self.failed_steps == 0;
    }

    /// One line: the verdict.
    pub fn verdict(&self) -> String {
        if self.ok {
            "nothing contradicts ours".to_owned()
        } else {
            format!(
                "contradicts ours: {} endpoint(s), {} tool(s), {} step(s) not recorded",
                self.contradicted_endpoints, self.contradicted_tools, self.failed_steps
            )
        }
    }

    /// `report.json`.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// `report.md`.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Suite `{}`: the live account against ours\n",
            self.suite
        );
        let _ = writeln!(
            out,
            "Recorded {} with modyo-lab {}, read-only. This report carries no value from the \
             account: endpoint templates, JSON key paths and types, HTTP statuses, error codes \
             and counts only. The cassettes beside it hold the account's data: keep them.\n",
            self.date, self.harness
        );
        let _ = writeln!(out, "**Verdict: {}.**\n", self.verdict());
        self.summary(&mut out);
        self.endpoints_section(&mut out);
        self.spec_section(&mut out);
        self.tools_section(&mut out);
        self.steps_section(&mut out);
        out
    }

    fn summary(&self, out: &mut String) {
        let ran = self.steps.iter().filter(|s| s.calls > 0).count();
        let calls: usize = self.steps.iter().map(|s| s.calls).sum();
        let r = &self.requests;
        let mut table = Table::new(&[("", Left), ("", Left)]);
        let rows = [
            ("steps run", format!("{ran} of {}", self.steps.len())),
            ("tool calls", calls.to_string()),
            (
                "requests sent",
                format!(
                    "{} (budget {}, {} at a time)",
                    r.sent, self.limits.requests, self.limits.concurrency
                ),
            ),
            (
                "refused by the proxy",
                format!(
                    "{} non-GET, {} over budget",
                    r.refused_methods, r.refused_budget
                ),
            ),
            ("retries after 429/503", r.retries.to_string()),
            (
                "endpoints",
                format!(
                    "{} ({} contradict ours)",
                    self.endpoints.len(),
                    self.contradicted_endpoints
                ),
            ),
            (
                "tools",
                format!(
                    "{} called ({} contradict ours)",
                    self.tools.iter().filter(|t| t.calls > 0).count(),
                    self.contradicted_tools
                ),
            ),
            (
                "host",
                if self.host_redacted {
                    "redacted"
                } else {
                    "kept (--keep-host)"
                }
                .to_owned(),
            ),
            ("duration", format!("{:.1} s", self.duration_s)),
        ];
        for (what, value) in rows {
            table.row([what.into(), value.into()]);
        }
        out.push_str(&table.into_text());
        out.push('\n');
    }

    fn endpoints_section(&self, out: &mut String) {
        let _ = writeln!(out, "## Endpoints: the live answers against ours\n");
        let _ = writeln!(
            out,
            "Each live answer is held to the answer of ours on the same endpoint most like it \
             (most keys in common, then fewest differences); structure only (keys added, \
             removed, types), values ignored.\n"
        );
        let mut table = Table::new(&[
            ("endpoint", Left),
            ("standing", Left),
            ("live", Left),
            ("ours", Left),
            ("verdict", Left),
            ("tools", Left),
        ]);
        for e in &self.endpoints {
            table.row([
                format!("`{}`", e.endpoint).into(),
                e.standing.to_string().into(),
                statuses(&e.live).into(),
                statuses(&e.ours).into(),
                if e.contradicts() {
                    format!("**{}**", verdict_text(e))
                } else {
                    verdict_text(e)
                }
                .into(),
                e.tools
                    .iter()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
                    .into(),
            ]);
        }
        out.push_str(&table.into_text());
        let differing: Vec<&EndpointReport> = self
            .endpoints
            .iter()
            .filter(|e| !e.differences.is_empty())
            .collect();
        if !differing.is_empty() {
            let _ = writeln!(out, "\n### Differences\n");
        }
        for e in differing {
            let _ = writeln!(out, "`{}`:\n", e.endpoint);
            for d in &e.differences {
                let _ = writeln!(out, "- `{d}`");
            }
            for (from, to) in likely_renames(&e.differences) {
                let _ = writeln!(out, "- likely renamed: `{from}` -> `{to}`");
            }
            out.push('\n');
        }
        out.push('\n');
    }

    fn spec_section(&self, out: &mut String) {
        let _ = writeln!(out, "## The live answers against the API surface\n");
        let findings: Vec<&EndpointReport> = self
            .endpoints
            .iter()
            .filter(|e| !e.spec.is_empty() || !e.unlisted_keys.is_empty())
            .collect();
        if findings.is_empty() {
            let _ = writeln!(
                out,
                "Every live answer on a documented endpoint agrees with the published \
                 specification (statuses and types).\n"
            );
            return;
        }
        let _ = writeln!(
            out,
            "Statuses and body types held to `harness/spec/`, as `modyo-lab cassettes check` \
             holds ours; a finding ours share is marked *ours too*.\n"
        );
        for e in findings {
            let _ = writeln!(out, "`{}`:\n", e.endpoint);
            for f in &e.spec {
                let _ = writeln!(
                    out,
                    "- {} `{}`: {}{}",
                    f.kind,
                    f.subject,
                    f.detail,
                    if f.ours_too { " (ours too)" } else { "" }
                );
            }
            if !e.unlisted_keys.is_empty() {
                let keys: Vec<String> = e.unlisted_keys.iter().map(|k| format!("`{k}`")).collect();
                let _ = writeln!(
                    out,
                    "- keys the specification does not list: {}",
                    keys.join(", ")
                );
            }
            out.push('\n');
        }
    }

    fn tools_section(&self, out: &mut String) {
        let _ = writeln!(out, "## Tools\n");
        let _ = writeln!(
            out,
            "Live outcomes, the contract check of each live result, and whether each recorded \
             call replays offline from the written cassettes with the same result.\n"
        );
        let mut table = Table::new(&[
            ("tool", Left),
            ("calls", Left),
            ("outcomes", Left),
            ("contract problems", Left),
            ("replays offline", Left),
            ("verdict", Left),
        ]);
        for t in &self.tools {
            let outcomes: Vec<String> = t
                .outcomes
                .iter()
                .map(|(o, n)| format!("{o} x{n}"))
                .collect();
            let verdict = match t.verdict {
                ToolVerdict::Agrees => "agrees",
                ToolVerdict::Contradicts => "**contradicts**",
                ToolVerdict::Inconclusive => "inconclusive",
                ToolVerdict::NotRun => "not run",
            };
            table.row([
                format!("`{}`", t.tool).into(),
                t.calls.to_string().into(),
                outcomes.join(", ").into(),
                t.contract_problems.to_string().into(),
                format!("{} of {}", t.replayed, t.recorded).into(),
                verdict.into(),
            ]);
        }
        out.push_str(&table.into_text());
        out.push('\n');
    }

    fn steps_section(&self, out: &mut String) {
        let _ = writeln!(out, "## Steps\n");
        let mut table = Table::new(&[
            ("step", Left),
            ("tool", Left),
            ("round", Left),
            ("calls", Left),
            ("found", Left),
            ("note", Left),
        ]);
        for s in &self.steps {
            let found: Vec<String> = s.found.iter().map(|(v, n)| format!("{v} x{n}")).collect();
            table.row([
                format!("`{}`", s.name).into(),
                format!("`{}`", s.tool).into(),
                (s.round + 1).to_string().into(),
                s.calls.to_string().into(),
                found.join(", ").into(),
                s.note.as_deref().unwrap_or("").into(),
            ]);
        }
        out.push_str(&table.into_text());
    }
}

/// How a step note that says its recording failed starts.
pub(super) const FAILED: &str = "the recording failed";

fn statuses(counts: &BTreeMap<u16, usize>) -> String {
    if counts.is_empty() {
        return "none".to_owned();
    }
    counts
        .iter()
        .map(|(status, n)| format!("{status} x{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn verdict_text(e: &EndpointReport) -> String {
    let mut text = e.verdict.describe().to_owned();
    let new: BTreeSet<&str> = e
        .spec
        .iter()
        .filter(|f| !f.ours_too)
        .map(|f| f.kind.as_str())
        .collect();
    if !new.is_empty() {
        let _ = write!(
            text,
            "; against the specification where ours agree ({})",
            new.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_contradicts_on_a_wrong_outcome_a_broken_contract_or_a_failed_replay() {
        let tool =
            |outcomes: &[(&str, usize)], contract: usize, recorded: usize, replayed: usize| {
                let mut t = ToolReport::new("x");
                t.calls = outcomes.iter().map(|(_, n)| n).sum();
                t.outcomes = outcomes
                    .iter()
                    .map(|(o, n)| ((*o).to_owned(), *n))
                    .collect();
                t.contract_problems = contract;
                t.recorded = recorded;
                t.replayed = replayed;
                t.judge();
                t.verdict
            };
        assert_eq!(tool(&[("success", 2)], 0, 2, 2), ToolVerdict::Agrees);
        assert_eq!(
            tool(&[("success", 1), ("error: forbidden", 1)], 0, 2, 2),
            ToolVerdict::Agrees
        );
        assert_eq!(
            tool(&[("error: upstream_unavailable", 2)], 0, 2, 2),
            ToolVerdict::Inconclusive
        );
        assert_eq!(
            tool(
                &[("success", 1), ("error: invalid_upstream_response", 1)],
                0,
                2,
                2
            ),
            ToolVerdict::Contradicts
        );
        assert_eq!(
            tool(&[("error: not_found", 1)], 0, 1, 1),
            ToolVerdict::Contradicts
        );
        assert_eq!(tool(&[("control", 1)], 0, 1, 1), ToolVerdict::Contradicts);
        assert_eq!(tool(&[("success", 1)], 1, 1, 1), ToolVerdict::Contradicts);
        assert_eq!(tool(&[("success", 2)], 0, 2, 1), ToolVerdict::Contradicts);
        assert_eq!(tool(&[], 0, 0, 0), ToolVerdict::NotRun);
    }
}
