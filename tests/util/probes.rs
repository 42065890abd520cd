//! Generic helpers over whatever tools and cassettes exist: the tools a configuration
//! registers, the successful scenarios that exercise each class of tool, the recorded response
//! a request was answered with, and arguments that satisfy a tool's input schema.

use std::collections::BTreeMap;

use modyo_lab::check::{self, Kind};
use modyo_lab::lint;
use modyo_lab::session::{Library, Session};
use modyo_mcp::contract::ToolClass;
use modyo_mcp::contract::class::is_read_action;
use modyo_replay::cassette::Outcome;
use modyo_replay::{Cassette, Provenance, ReceivedRequest, RecordedResponse};
use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value, json};

/// A scenario's environment as pairs.
pub(crate) fn env_of(scenario: &modyo_replay::Scenario) -> Vec<(String, String)> {
    scenario
        .env
        .iter()
        .map(|(k, v)| (k.to_owned(), v.clone()))
        .collect()
}

/// The tools the server registers with `env` (no cassettes needed: listing makes no request).
pub(crate) async fn tools(env: &[(String, String)]) -> anyhow::Result<Vec<Tool>> {
    let session = Session::start(&[], env).await?;
    let tools = session.tools().await?;
    session.close().await;
    Ok(tools)
}

/// What a successful scenario exercises, by the class of its tool (and, for gated tools, by
/// whether its action reads or writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ProbeKind {
    /// A read tool.
    Read,
    /// A gated tool, with a read action (or none: `get`).
    GatedRead,
    /// A gated tool, with a mutating action.
    GatedWrite,
    /// A mutation tool.
    Mutation,
}

impl ProbeKind {
    /// The kinds a class needs covered.
    pub(crate) fn of_class(class: ToolClass) -> &'static [ProbeKind] {
        match class {
            ToolClass::Read => &[ProbeKind::Read],
            ToolClass::Gated => &[ProbeKind::GatedRead, ProbeKind::GatedWrite],
            ToolClass::Mutation => &[ProbeKind::Mutation],
        }
    }
}

/// A successful cassette scenario, ready to replay with changes.
#[derive(Debug, Clone)]
pub(crate) struct Probe {
    /// `cassette#scenario`.
    pub(crate) label: String,
    /// What it exercises.
    pub(crate) kind: ProbeKind,
    /// The tool, as listed with the scenario's environment.
    pub(crate) tool: Tool,
    /// The call's arguments.
    pub(crate) arguments: Value,
    /// The scenario's environment.
    pub(crate) env: Vec<(String, String)>,
    /// The cassettes it mounts, in mount order.
    pub(crate) mounts: Vec<Cassette>,
}

/// Every scenario of the library that expects success, as a probe, in library order.
pub(crate) async fn probes(library: &Library) -> anyhow::Result<Vec<Probe>> {
    let mut listed: BTreeMap<Vec<(String, String)>, Vec<Tool>> = BTreeMap::new();
    let mut out = Vec::new();
    for (cassette, scenario) in library.scenarios() {
        if scenario.expect.outcome != Outcome::Success {
            continue;
        }
        let env = env_of(scenario);
        if !listed.contains_key(&env) {
            listed.insert(env.clone(), tools(&env).await?);
        }
        let Some(tool) = listed[&env].iter().find(|t| t.name == scenario.tool) else {
            continue;
        };
        let kind = match lint::classify(tool) {
            ToolClass::Read => ProbeKind::Read,
            ToolClass::Mutation => ProbeKind::Mutation,
            ToolClass::Gated => match scenario.arguments.get("action").and_then(Value::as_str) {
                Some(action) if !is_read_action(action) => ProbeKind::GatedWrite,
                _ => ProbeKind::GatedRead,
            },
        };
        out.push(Probe {
            label: format!("{}#{}", cassette.name(), scenario.name),
            kind,
            tool: tool.clone(),
            arguments: scenario.arguments.clone(),
            env,
            mounts: library.mount_set(cassette.name())?,
        });
    }
    Ok(out)
}

/// A replayed probe: its result and the requests it made, each with the recorded response
/// that answered it.
#[derive(Debug)]
pub(crate) struct Baseline {
    /// The requests, in arrival order, with their recorded responses.
    pub(crate) requests: Vec<(ReceivedRequest, Option<RecordedResponse>)>,
    /// What the call answered.
    pub(crate) result: CallToolResult,
}

impl Baseline {
    /// The responses of every request of the call except `left_out` (the same line and body:
    /// a bulk tool sends one request per item to the same line), as one cassette: what a
    /// variation of the call mounts (a few mocks instead of the scenario's whole mount set).
    pub(crate) fn without(&self, left_out: &ReceivedRequest) -> Cassette {
        let mut rest = Cassette::new(
            "probes/rest",
            Provenance::synthetic("2026-11-29", "the other responses of a replayed call"),
        );
        for (request, response) in &self.requests {
            if request.line() == left_out.line() && request.body == left_out.body {
                continue;
            }
            if let (Some(key), Some(response)) = (request.to_recorded(), response)
                && !rest
                    .interactions
                    .iter()
                    .any(|i| request.matches(&i.request))
            {
                rest = rest.interaction(key.respond_with(response.clone()));
            }
        }
        rest
    }
}

/// Replays a probe unchanged; it must succeed and keep the contract.
pub(crate) async fn baseline(probe: &Probe) -> anyhow::Result<Baseline> {
    let session = Session::start(&probe.mounts, &probe.env).await?;
    let result = session
        .call(&probe.tool.name, probe.arguments.clone())
        .await?;
    let problems = check::problems(&probe.tool, &result);
    anyhow::ensure!(
        check::kind(&result) == Kind::Success && problems.is_empty(),
        "{}: the baseline does not succeed cleanly: {problems:?} {:?}",
        probe.label,
        check::text(&result)
    );
    let requests = session
        .replay()
        .received()
        .into_iter()
        .map(|r| {
            let response = response_for(&probe.mounts, &r).cloned();
            (r, response)
        })
        .collect();
    session.close().await;
    Ok(Baseline { requests, result })
}

/// The response replay answers `request` with: the first mounted cassette that recorded it.
pub(crate) fn response_for<'a>(
    mounts: &'a [Cassette],
    request: &ReceivedRequest,
) -> Option<&'a RecordedResponse> {
    mounts
        .iter()
        .flat_map(|c| &c.interactions)
        .find(|i| request.matches(&i.request))
        .map(|i| &i.response)
}

/// The root key of a list body `{"<root>": [...], "meta": {...}}` (exactly one array beside
/// `meta`), if the body is one.
pub(crate) fn list_root(body: &Value) -> Option<String> {
    let map = body.as_object()?;
    // A paged list carries `meta`; a list Modyo documents without it (the site-wide templates
    // list) is an object whose one key is the array.
    if !map.get("meta").is_some_and(Value::is_object) && map.len() != 1 {
        return None;
    }
    let arrays: Vec<&String> = map
        .iter()
        .filter(|(k, v)| *k != "meta" && v.is_array())
        .map(|(k, _)| k)
        .collect();
    match arrays.as_slice() {
        [root] => Some((*root).clone()),
        _ => None,
    }
}

/// The JSON body of a recorded response, if it has one.
pub(crate) fn json_body(response: &RecordedResponse) -> Option<&Value> {
    match &response.body {
        modyo_replay::cassette::ResponseBody::Json(v) => Some(v),
        _ => None,
    }
}

/// Arguments that satisfy `tool`'s input schema: every required property gets a plain value
/// (`"1"` for strings, so ids parse; the minimum for numbers), then `extra` is laid over.
pub(crate) fn sample_arguments(tool: &Tool, extra: Value) -> Value {
    let schema = Value::Object((*tool.input_schema).clone());
    let mut out = Map::new();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for name in required {
            if let Some(property) = props.get(name) {
                out.insert(name.to_owned(), sample(property, 0));
            }
        }
    }
    if let Value::Object(extra) = extra {
        out.extend(extra);
    }
    Value::Object(out)
}

fn sample(schema: &Value, depth: usize) -> Value {
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|values| values.iter().find(|v| !v.is_null()))
    {
        return first.clone();
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(branch) = schema
            .get(keyword)
            .and_then(Value::as_array)
            .and_then(|b| b.iter().find(|b| b.get("type") != Some(&json!("null"))))
        {
            return sample(branch, depth + 1);
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string")
            .to_owned(),
        _ => "string".to_owned(),
    };
    let min = |key: &str| schema.get(key).and_then(Value::as_u64).unwrap_or(0);
    match kind.as_str() {
        "integer" | "number" => json!(min("minimum").max(1)),
        "boolean" => json!(true),
        "array" if depth < 4 => {
            let item = schema
                .get("items")
                .map_or(json!("1"), |i| sample(i, depth + 1));
            Value::Array(vec![item; min("minItems").max(1) as usize])
        }
        "object" if depth < 4 => {
            let mut map = Map::new();
            let props = schema.get("properties").and_then(Value::as_object);
            for name in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if let Some(p) = props.and_then(|p| p.get(name)) {
                    map.insert(name.to_owned(), sample(p, depth + 1));
                }
            }
            Value::Object(map)
        }
        _ => {
            let len = min("minLength").max(1) as usize;
            json!("1".repeat(len))
        }
    }
}
