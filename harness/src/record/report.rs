//! What `modyo-lab record` reports: per call, where each answer came from, the near misses,
//! the drift; then what was written and whether it replays. Built only from redacted data.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::Mode;
use super::drift::Difference;

/// The report of one `record` run.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct RecordReport {
    /// The cassette name.
    pub cassette: String,
    /// Its file.
    pub path: PathBuf,
    /// The mode asked for.
    pub mode: Mode,
    /// Whether this was a drift check.
    pub diff: bool,
    /// Whether the cassette file was written.
    pub written: bool,
    /// One entry per call, in order.
    pub calls: Vec<CallReport>,
    /// Requests that answered differently in two calls of this run.
    pub conflicts: Vec<String>,
    /// How many recorded calls replayed offline with the same result.
    pub verified: usize,
    /// Everything that makes the run fail (misses, failures, drift, verification).
    pub problems: Vec<String>,
    /// Whether the run succeeded (no problems).
    pub ok: bool,
}

/// One call of a `record` run.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct CallReport {
    /// The scenario name.
    pub scenario: String,
    /// The tool.
    pub tool: String,
    /// `success`, `error` or `control` (absent when the call itself failed).
    pub outcome: Option<String>,
    /// The error code of an error outcome.
    pub code: Option<String>,
    /// Requests answered live.
    pub live: usize,
    /// Requests answered from the cassette.
    pub replayed: usize,
    /// Near-miss diagnostics of requests nothing answered.
    pub missed: Vec<String>,
    /// Requests the live account did not answer.
    pub failed: Vec<String>,
    /// Live requests that cannot be stored, and why.
    pub not_stored: Vec<String>,
    /// Requests the proxy's guard did not let leave (read-only, budget), and why; a call with
    /// any is not stored as a scenario.
    pub refused: Vec<String>,
    /// Drift check: requests whose live answer differs in shape from the recording.
    pub drift: Vec<DriftReport>,
    /// Whether the recorded call, replayed offline from the written cassette, gave the same
    /// result with no miss (absent when it was not replayed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// The tool result, redacted (not printed: for callers that compare results).
    #[serde(skip)]
    pub result: Option<Value>,
}

/// Drift of one request.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct DriftReport {
    /// `GET /path?query` (redacted).
    pub request: String,
    /// Set when the cassette has no answer for this request (the near-miss diagnostic).
    pub unrecorded: Option<String>,
    /// The structural differences.
    pub differences: Vec<Difference>,
}

impl CallReport {
    pub(super) fn new(scenario: &str, tool: &str) -> CallReport {
        CallReport {
            scenario: scenario.to_owned(),
            tool: tool.to_owned(),
            outcome: None,
            code: None,
            live: 0,
            replayed: 0,
            missed: Vec::new(),
            failed: Vec::new(),
            not_stored: Vec::new(),
            refused: Vec::new(),
            drift: Vec::new(),
            verified: None,
            result: None,
        }
    }
}

impl RecordReport {
    pub(super) fn new(cassette: &str, path: &Path, mode: Mode, diff: bool) -> RecordReport {
        RecordReport {
            cassette: cassette.to_owned(),
            path: path.to_owned(),
            mode,
            diff,
            written: false,
            calls: Vec::new(),
            conflicts: Vec::new(),
            verified: 0,
            problems: Vec::new(),
            ok: false,
        }
    }

    /// Collects the per-call problems and sets [`RecordReport::ok`].
    pub(super) fn finish(&mut self) {
        let mut problems = Vec::new();
        for call in &self.calls {
            let name = &call.scenario;
            for miss in &call.missed {
                problems.push(format!("{name}: replay miss: {miss}"));
            }
            for failure in &call.failed {
                problems.push(format!("{name}: live request failed: {failure}"));
            }
            for note in &call.not_stored {
                problems.push(format!("{name}: not stored: {note}"));
            }
            for refusal in &call.refused {
                problems.push(format!("{name}: refused, not sent: {refusal}"));
            }
            for drift in &call.drift {
                problems.push(format!("{name}: drift in {}", drift.request));
            }
        }
        problems.append(&mut self.problems);
        self.problems = problems;
        self.ok = self.problems.is_empty();
    }

    /// The report for people.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let kind = if self.diff { "drift check" } else { "record" };
        let _ = writeln!(
            out,
            "{kind} {} (mode {}): {}",
            self.cassette,
            self.mode,
            self.path.display()
        );
        for (i, call) in self.calls.iter().enumerate() {
            let outcome = match (&call.outcome, &call.code) {
                (Some(o), Some(code)) => format!("{o} ({code})"),
                (Some(o), None) => o.clone(),
                (None, _) => "call failed".to_owned(),
            };
            let _ = writeln!(
                out,
                "  {}. {} [{}] -> {outcome}; {} live, {} replayed, {} missed",
                i + 1,
                call.scenario,
                call.tool,
                call.live,
                call.replayed,
                call.missed.len()
            );
            for miss in &call.missed {
                let _ = writeln!(out, "     miss: {}", indent(miss));
            }
            for failure in &call.failed {
                let _ = writeln!(out, "     live request failed: {failure}");
            }
            for note in &call.not_stored {
                let _ = writeln!(out, "     not stored: {note}");
            }
            for refusal in &call.refused {
                let _ = writeln!(out, "     refused, not sent: {refusal}");
            }
            for drift in &call.drift {
                match &drift.unrecorded {
                    Some(diagnostic) => {
                        let _ = writeln!(
                            out,
                            "     drift: not in the cassette: {}",
                            indent(diagnostic)
                        );
                    }
                    None => {
                        let _ = writeln!(out, "     drift in {}:", drift.request);
                        for d in &drift.differences {
                            let _ = writeln!(out, "       {d}");
                        }
                    }
                }
            }
        }
        for conflict in &self.conflicts {
            let _ = writeln!(out, "  conflict: {conflict}");
        }
        if self.written {
            let _ = writeln!(
                out,
                "  wrote {}; {} of {} recorded call(s) replay offline with the same result",
                self.path.display(),
                self.verified,
                self.calls.iter().filter(|c| c.outcome.is_some()).count()
            );
        } else {
            let _ = writeln!(out, "  nothing written");
        }
        if self.ok {
            let _ = writeln!(out, "ok");
        } else {
            let _ = writeln!(out, "{} problem(s):", self.problems.len());
            for p in &self.problems {
                let _ = writeln!(out, "  - {}", indent(p));
            }
        }
        out
    }

    /// The report for machines (pretty JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

fn indent(text: &str) -> String {
    text.replace('\n', "\n       ")
}
