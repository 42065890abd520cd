//! One step of a suite run: its job (the calls on the rows found so far), running it under the
//! guard, the rows it finds for later steps, and the step and tool reports of what ran.

use std::collections::BTreeMap;

use rmcp::model::{CallToolResult, Tool};
use serde_json::Value;

use super::report::{self, RunLimits, StepReport, ToolReport};
use super::{Plan, Row, Suite, find_rows};
use crate::record::RecordReport;
use crate::record::guard::Guard;
use crate::record::{Call, RecordError, RecordOptions};

/// One step ready to run: its calls and the rows they were made on.
pub(super) struct Job {
    pub(super) index: usize,
    pub(super) rows: Vec<Row>,
    pub(super) calls: Vec<Call>,
}

/// What one step left.
pub(super) struct Ran {
    pub(super) index: usize,
    pub(super) rows: Vec<Row>,
    pub(super) report: Option<RecordReport>,
    pub(super) note: Option<String>,
    /// Rows found, per variable.
    pub(super) found: BTreeMap<String, usize>,
}

/// The calls of step `index`: once, or once per row of its `each`.
pub(super) fn job(
    suite: &Suite,
    plan: &Plan,
    index: usize,
    found: &BTreeMap<String, Vec<Row>>,
) -> Job {
    let step = &suite.steps[index];
    let rows: Vec<Row> = match &step.each {
        None => vec![Row::new()],
        Some(each) => found.get(each).cloned().unwrap_or_default(),
    };
    let last = step.name.rsplit('/').next().unwrap_or(&step.name);
    let calls = rows
        .iter()
        .enumerate()
        .map(|(n, row)| {
            let name = if rows.len() == 1 {
                last.to_owned()
            } else {
                format!("{last}-{}", n + 1)
            };
            Call::new(
                step.tool.clone(),
                Value::Object(plan.arguments(step, index, row)),
            )
            .named(name)
        })
        .collect();
    Job { index, rows, calls }
}

pub(super) async fn run_step(suite: &Suite, base: &RecordOptions, guard: &Guard, job: Job) -> Ran {
    let step = &suite.steps[job.index];
    let not_run = |note: String| Ran {
        index: job.index,
        rows: Vec::new(),
        report: None,
        note: Some(note),
        found: BTreeMap::new(),
    };
    if job.calls.is_empty() {
        return not_run(format!(
            "nothing found to call it on ({})",
            step.each.as_deref().unwrap_or("")
        ));
    }
    if guard.spent() {
        return not_run("not run: the request budget was spent".into());
    }
    let mut options = base.clone();
    options.scenario = Some(step.name.clone());
    options.calls = job.calls;
    options.description = Some(format!(
        "Recorded from a live account by modyo-lab record --suite {} (step {}, {}), read-only.",
        suite.name, step.name, step.tool
    ));
    match crate::record::run(&options).await {
        Ok(report) => Ran {
            index: job.index,
            rows: job.rows,
            report: Some(report),
            note: None,
            found: BTreeMap::new(),
        },
        Err(e) => not_run(format!("{}: {}", report::FAILED, error_kind(&e))),
    }
}

/// What went wrong, in words that carry no value.
pub(super) fn error_kind(error: &RecordError) -> String {
    match error {
        RecordError::Cassette(e) => format!("the cassette could not be written or read ({e})"),
        other => other.to_string(),
    }
}

/// Adds what a step's calls found to `found`; how many rows, per variable.
pub(super) fn collect_finds(
    suite: &Suite,
    limits: &RunLimits,
    ran: &Ran,
    found: &mut BTreeMap<String, Vec<Row>>,
) -> BTreeMap<String, usize> {
    let step = &suite.steps[ran.index];
    let mut counts: BTreeMap<String, usize> = step
        .find
        .iter()
        .flat_map(|f| f.bind.keys().map(|v| (v.clone(), 0)))
        .collect();
    let Some(report) = &ran.report else {
        return counts;
    };
    for (call, row) in report.calls.iter().zip(&ran.rows) {
        let Some(structured) = call
            .result
            .as_ref()
            .and_then(|r| r.get("structuredContent"))
        else {
            continue;
        };
        for find in &step.find {
            let limit = find.limit.unwrap_or(limits.items);
            for new in find_rows(structured, find, row, limit) {
                for variable in find.bind.keys() {
                    *counts.entry(variable.clone()).or_default() += 1;
                    found.entry(variable.clone()).or_default().push(new.clone());
                }
            }
        }
    }
    counts
}

pub(super) fn step_reports(suite: &Suite, plan: &Plan, ran: &[Ran]) -> Vec<StepReport> {
    let mut reports: Vec<StepReport> = suite
        .steps
        .iter()
        .enumerate()
        .map(|(index, step)| StepReport {
            name: step.name.clone(),
            tool: step.tool.clone(),
            round: plan.levels[index],
            calls: 0,
            note: None,
            found: BTreeMap::new(),
        })
        .collect();
    for r in ran {
        let out = &mut reports[r.index];
        out.note.clone_from(&r.note);
        out.found.clone_from(&r.found);
        if let Some(report) = &r.report {
            out.calls = report.calls.len();
            let refused = report
                .calls
                .iter()
                .filter(|c| !c.refused.is_empty())
                .count();
            if refused > 0 {
                out.note = Some(format!("{refused} call(s) cut short by the proxy's guard"));
            }
        }
    }
    reports
}

pub(super) fn tool_reports(suite: &Suite, tools: &[Tool], ran: &[Ran]) -> Vec<ToolReport> {
    let mut reports: BTreeMap<&str, ToolReport> = BTreeMap::new();
    for step in &suite.steps {
        reports
            .entry(step.tool.as_str())
            .or_insert_with(|| ToolReport::new(&step.tool));
    }
    for r in ran {
        let step = &suite.steps[r.index];
        let Some(report) = &r.report else { continue };
        let tool = tools.iter().find(|t| t.name == step.tool);
        let out = reports
            .entry(step.tool.as_str())
            .or_insert_with(|| ToolReport::new(&step.tool));
        for call in &report.calls {
            out.calls += 1;
            let outcome = match (&call.outcome, &call.code) {
                (Some(o), Some(code)) => format!("{o}: {code}"),
                (Some(o), None) => o.clone(),
                (None, _) => "call failed".to_owned(),
            };
            *out.outcomes.entry(outcome).or_default() += 1;
            if !call.refused.is_empty() {
                out.refused += 1;
                continue;
            }
            if call.outcome.is_some() {
                out.recorded += 1;
            }
            if call.verified == Some(true) {
                out.replayed += 1;
            }
            let result = call
                .result
                .clone()
                .and_then(|r| serde_json::from_value::<CallToolResult>(r).ok());
            if let (Some(tool), Some(result)) = (tool, result) {
                out.contract_problems += crate::check::problems(tool, &result).len();
            }
        }
    }
    let mut reports: Vec<ToolReport> = reports.into_values().collect();
    for r in &mut reports {
        r.judge();
    }
    reports
}
