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

use super::catalogue::{Extras, compact};
use super::{MeasureError, compare, deltas, text_count};
use crate::lint::{PlannedCall, ServerCommand};
use crate::probe::Probe;
use crate::report::{Compared, Measured, ModuleReport, ScenarioReport, Side};
use std::time::Duration;

use crate::tokens::{Count, Counter};

/// A server to measure: a command serving MCP on stdio, or a streamable HTTP endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Server {
    /// A command started once (with the caller's environment).
    Stdio(ServerCommand),
    /// An endpoint already running (`http://127.0.0.1:8808/mcp`).
    Http(String),
}

impl Server {
    /// How reports name it: the command line, or the URL.
    pub fn line(&self) -> String {
        match self {
            Server::Stdio(command) => command.line(),
            Server::Http(url) => url.clone(),
        }
    }

    /// The entry `name` of an `mcp.json`-style file: `{"mcpServers": {name: {"command",
    /// "args"?, "env"?} | {"type": "http" | "streamable-http", "url"}}}`.
    pub fn from_mcp_config(path: &std::path::Path, name: &str) -> Result<Server, MeasureError> {
        let bad = |why: String| MeasureError::Usage(format!("{}: {why}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read: {e}")))?;
        let config: Value =
            serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let servers = config
            .get("mcpServers")
            .or_else(|| config.get("servers"))
            .and_then(Value::as_object)
            .ok_or_else(|| bad("no mcpServers object".into()))?;
        let entry = servers.get(name).ok_or_else(|| {
            let names: Vec<&String> = servers.keys().collect();
            bad(format!("no server named {name:?} (it has {names:?})"))
        })?;
        if let Some(url) = entry.get("url").and_then(Value::as_str) {
            return Ok(Server::Http(url.to_owned()));
        }
        let program = entry
            .get("command")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("{name}: neither command nor url")))?;
        let args = entry
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(Into::into);
        let mut command = ServerCommand::new(std::iter::once(program.into()).chain(args).collect())
            .ok_or_else(|| bad(format!("{name}: an empty command")))?;
        command.env = entry
            .get("env")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
            .collect();
        Ok(Server::Stdio(command))
    }

    async fn probe(&self, timeout: Duration) -> Result<Probe, MeasureError> {
        Ok(match self {
            Server::Stdio(command) => Probe::start_command_within(command, timeout).await?,
            Server::Http(url) => Probe::connect_http(url, timeout).await?,
        })
    }
}

/// What to measure.
#[derive(Debug, Clone)]
pub struct ForeignOptions {
    /// The report's name.
    pub name: String,
    /// The "before" server (`None`: measure "after" only, for a budget).
    pub before: Option<Server>,
    /// The "after" server.
    pub after: Server,
    /// The calls to make on each side, in order.
    pub calls: Vec<PlannedCall>,
    /// How long one request may take.
    pub timeout: Duration,
    /// The counter the report's tables and charts read (`o200k_base` unless asked).
    pub counter: Counter,
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
    extras: Extras,
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
    server: &Server,
    options: &ForeignOptions,
    failures: &mut Vec<String>,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<SideRun, MeasureError> {
    let calls = &options.calls;
    progress(&format!(
        "{label}: {} ({} call(s))",
        server.line(),
        calls.len()
    ));
    let mut probe = server.probe(options.timeout).await?;
    let (tools, _) = probe.tools_list().await?;
    let extras = Extras::read(&mut probe).await;
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
        extras,
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
        Some(server) => Some(side("before", server, options, &mut failures, progress).await?),
        None => None,
    };
    let after = side("after", &options.after, options, &mut failures, progress).await?;
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
                .map_or("not measured (no --before)".into(), Server::line),
            after: options.after.line(),
            sizes,
        },
        before_tools: before.as_ref().map_or(&[], |b| &b.tools),
        after_tools: &after.tools,
        scenarios,
        envelope: false,
        projection: None,
        before_extras: before
            .as_ref()
            .map(|b| b.extras.clone())
            .unwrap_or_default(),
        after_extras: after.extras.clone(),
    });
    let mut report = report;
    report.counters.headline = options.counter;
    Ok(Outcome { report, failures })
}
