//! Any stdio MCP server: `modyo-lab measure --before CMD --after CMD --calls FILE`.
//!
//! Each command is started once, with the caller's environment, and spoken to in raw JSON-RPC
//! like our own server ([`Probe::start_command`]): `tools/list`, then every planned call in
//! order. The report is the one our modules get (catalogue as context and as wire, by slot and
//! by tool; per call text, structured and both; the profiles and their break-even), without
//! what only our server has (cassette expectations, HTTP requests, the envelope, projection).
//! A call the server answers with a JSON-RPC error, or a tool neither server lists, is a
//! failure: nothing is written. A tool only one server lists is measured on that side.

use serde_json::{Map, Value};

use super::catalogue::compact;
use super::{MeasureError, compare, deltas, text_count};
use crate::lint::{PlannedCall, ServerCommand};
use crate::probe::Probe;
use crate::report::{Compared, Measured, ModuleReport, ScenarioReport, Side};
use crate::tokens::Count;

/// What to measure.
#[derive(Debug, Clone)]
pub struct ForeignOptions {
    /// The report's name.
    pub name: String,
    /// The "before" server (`None`: measure "after" only, for a budget).
    pub before: Option<ServerCommand>,
    /// The "after" server.
    pub after: ServerCommand,
    /// The calls to make on each side, in order.
    pub calls: Vec<PlannedCall>,
}

/// The outcome of a run.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The report.
    pub report: ModuleReport,
    /// Every failure (a JSON-RPC error, a tool not listed); a run with any is a failed run.
    pub failures: Vec<String>,
}

/// One side: the catalogue, a measurement per call, and how many response lines were not
/// canonical JSON.
struct SideRun {
    tools: Vec<Value>,
    sides: Vec<Side>,
    non_canonical: (usize, usize),
}

/// What a call costs, as any client sees it: `isError` is the only outcome there is.
fn measure(result: &Value) -> Measured {
    let text = text_count(result);
    let structured = result
        .get("structuredContent")
        .map(|s| Count::of(&compact(s)));
    let error = result.get("isError").and_then(Value::as_bool) == Some(true);
    Measured {
        outcome: if error { "error" } else { "success" }.into(),
        code: None,
        http_requests: None,
        text: text.tokens_all(),
        structured: structured.map(|c| c.tokens_all()),
        both: (text + structured.unwrap_or_default()).tokens_all(),
        envelope: None,
    }
}

fn lists(tools: &[Value], name: &str) -> bool {
    tools
        .iter()
        .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
}

fn call_id(index: usize, call: &PlannedCall) -> String {
    call.name
        .clone()
        .unwrap_or_else(|| format!("{:02} {}", index + 1, call.tool))
}

async fn side(
    label: &str,
    command: &ServerCommand,
    calls: &[PlannedCall],
    failures: &mut Vec<String>,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<SideRun, MeasureError> {
    progress(&format!(
        "{label}: {} ({} call(s))",
        command.line(),
        calls.len()
    ));
    let mut probe = Probe::start_command(command).await?;
    let (tools, _) = probe.tools_list().await?;
    let mut sides = Vec::with_capacity(calls.len());
    for (index, call) in calls.iter().enumerate() {
        let id = format!("{label} {}", call_id(index, call));
        let listed = lists(&tools, &call.tool);
        let arguments = match &call.arguments {
            Value::Null => Some(Value::Object(Map::new())),
            Value::Object(_) => Some(call.arguments.clone()),
            _ => None,
        };
        let side = match (listed, arguments) {
            // A tool one build adds or removes is measured on the side that lists it; `run`
            // fails a call no side lists.
            (false, _) => Side::Skipped {
                skipped: format!("{} is not listed by this server", call.tool),
            },
            (true, None) => {
                failures.push(format!("{id}: the arguments must be a JSON object"));
                Side::Skipped {
                    skipped: "arguments not an object".into(),
                }
            }
            (true, Some(arguments)) => match probe.call(&call.tool, &arguments).await?.result {
                Ok(result) => Side::Measured(Box::new(measure(&result))),
                Err((code, message)) => {
                    failures.push(format!("{id}: JSON-RPC error {code}: {message}"));
                    Side::Skipped {
                        skipped: format!("JSON-RPC error {code}"),
                    }
                }
            },
        };
        sides.push(side);
    }
    let non_canonical = probe.non_canonical();
    probe.close().await;
    Ok(SideRun {
        tools,
        sides,
        non_canonical,
    })
}

/// Measures both servers (or "after" alone) and builds the report.
pub async fn run(
    options: &ForeignOptions,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<Outcome, MeasureError> {
    let mut failures = Vec::new();
    let calls = &options.calls;
    let before = match &options.before {
        Some(command) => Some(side("before", command, calls, &mut failures, progress).await?),
        None => None,
    };
    let after = side("after", &options.after, calls, &mut failures, progress).await?;
    for (index, call) in calls.iter().enumerate() {
        let listed_before = before.as_ref().is_some_and(|b| lists(&b.tools, &call.tool));
        if !listed_before && !lists(&after.tools, &call.tool) {
            failures.push(format!(
                "{}: no server lists {}",
                call_id(index, call),
                call.tool
            ));
        }
    }
    let skipped = || Side::Skipped {
        skipped: "not measured: no --before".into(),
    };
    let before_sides = before
        .as_ref()
        .map_or_else(|| vec![skipped(); calls.len()], |b| b.sides.clone());
    let scenarios = calls
        .iter()
        .enumerate()
        .zip(before_sides.into_iter().zip(after.sides.iter().cloned()))
        .map(|((index, call), (before, after))| ScenarioReport {
            id: call_id(index, call),
            cassette: String::new(),
            scenario: call_id(index, call),
            tool: call.tool.clone(),
            arguments: call.arguments.clone(),
            env: Default::default(),
            expect: String::new(),
            delta: deltas(&before, &after),
            before,
            after,
        })
        .collect();
    let (odd, lines) = [
        before.as_ref().map(|b| b.non_canonical),
        Some(after.non_canonical),
    ]
    .into_iter()
    .flatten()
    .fold((0, 0), |(o, l), (odd, lines)| (o + odd, l + lines));
    let sizes = if odd == 0 {
        format!(
            "exact: all {lines} response lines were the compact serialization of their own parse, so every size is of bytes the servers sent"
        )
    } else {
        format!(
            "of the compact re-serialization of each response (key order kept): {odd} of {lines} response lines were written otherwise (spaces, escapes), so their sizes on the wire differ"
        )
    };
    let report = compare::report(compare::Input {
        module: options.name.clone(),
        compared: Compared {
            before: options
                .before
                .as_ref()
                .map_or("not measured (no --before)".into(), ServerCommand::line),
            after: options.after.line(),
            sizes,
        },
        before_tools: before.as_ref().map_or(&[], |b| &b.tools),
        after_tools: &after.tools,
        scenarios,
        envelope: false,
        projection: None,
    });
    Ok(Outcome { report, failures })
}
