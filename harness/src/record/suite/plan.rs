//! The suite file (format `modyo-suite/1`) and the plan it makes: which tool to call, on what,
//! in which order.
//!
//! A suite is a list of steps. A step calls one tool, once, or once per row of what an earlier
//! step found (`each`); its `arguments` name found values as `{variable}`. A step may find
//! things in its results: `find` walks the tool's `structuredContent` to an array (`at`,
//! `data.sites[]`), and binds, for each item, variables to keys of the item (`bind`,
//! `{"site": "id"}`), keeping the first few items per row it ran on (`limit`, else the suite's
//! `items`). A row carries everything bound on its way (a type found in a space knows its
//! space), so a later step can use any of them.
//!
//! ```json
//! {"name": "content/types-list", "tool": "content-types-list", "each": "space",
//!  "arguments": {"space": "{space}"}, "find": [{"at": "data[]", "bind": {"type": "id"}}]}
//! ```
//!
//! A suite is checked against the tools the server lists in read-only mode before anything is
//! called ([`Suite::plan`]): every step's tool must be listed there (mutation tools are not),
//! a gated tool must name a read action (`list`, `get`, `search`, `find`), a read tool none;
//! every variable must be found by an earlier step and be on the row's way; and every read
//! tool and every read action of every gated tool must be called by some step, or listed in
//! `not_called` with the reason. A server that gains a read tool fails the shipped suite until
//! the suite says what to do with it.
//!
//! A found value fills an argument as the tool's input schema wants it: an integer where the
//! property is an integer, else text.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use modyo_mcp::contract::ToolClass;
use rmcp::model::Tool;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::SuiteError;
use crate::lint;
use modyo_replay::cassette::{Cassette, Provenance};

/// The format tag of a suite file.
pub const FORMAT: &str = "modyo-suite/1";

/// The suites shipped with the harness (`harness/suites/`), by name.
pub const SHIPPED: [(&str, &str); 1] =
    [("read-only", include_str!("../../../suites/read-only.json"))];

/// A suite file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// [`FORMAT`].
    pub format: String,
    /// Its name (`read-only`).
    pub name: String,
    /// What it does, for people.
    pub description: String,
    /// Its default limits.
    #[serde(default)]
    pub limits: SuiteLimits,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Read tools and read actions it does not call, and why.
    #[serde(default)]
    pub not_called: Vec<NotCalled>,
}

/// The limits a suite runs with unless the command line says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SuiteLimits {
    /// Requests that may leave for the account, retries included.
    pub requests: usize,
    /// Requests in flight at once (and steps run at once).
    pub concurrency: usize,
    /// Items kept per find and per row, unless the find says.
    pub items: usize,
    /// Retries of one request after a `429` or `503`.
    pub retries: u32,
    /// The longest `Retry-After` waited for, in seconds.
    pub max_wait_s: u64,
}

impl Default for SuiteLimits {
    fn default() -> SuiteLimits {
        SuiteLimits {
            requests: 800,
            concurrency: 2,
            items: 2,
            retries: 3,
            max_wait_s: 120,
        }
    }
}

/// One step: a tool called once, or once per found row.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Its name, also the name of the cassette it writes (`content/spaces-list`).
    pub name: String,
    /// The tool.
    pub tool: String,
    /// The arguments; strings may name found values as `{variable}`.
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// Run once per row of this variable (else once).
    #[serde(default)]
    pub each: Option<String>,
    /// What to find in its results.
    #[serde(default)]
    pub find: Vec<Find>,
}

/// Values to find in a step's results.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Find {
    /// Where the items are, from `structuredContent`: keys separated by `.`, `[]` after a key
    /// for each element of its array (`data[]`, `data.sites[]`).
    pub at: String,
    /// Variable -> key of the item (dotted for a nested key): `{"site": "id"}`.
    pub bind: BTreeMap<String, String>,
    /// Items kept per row the step ran on (default: the suite's `items`).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A read tool or read action the suite does not call.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotCalled {
    /// The tool.
    pub tool: String,
    /// The read action, for a gated tool.
    #[serde(default)]
    pub action: Option<String>,
    /// Why.
    pub reason: String,
}

/// Found values: what a step's call was made on, plus what it found.
pub type Row = BTreeMap<String, Value>;

impl Suite {
    /// A shipped suite by name, or a suite file by path.
    pub fn load(name_or_path: &str) -> Result<Suite, SuiteError> {
        if let Some((_, text)) = SHIPPED.iter().find(|(name, _)| *name == name_or_path) {
            return Suite::parse(name_or_path, text);
        }
        let path = Path::new(name_or_path);
        if !path.is_file() {
            let names: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
            return Err(SuiteError::Usage(format!(
                "no suite named '{name_or_path}' (shipped: {}) and no such file",
                names.join(", ")
            )));
        }
        let text = std::fs::read_to_string(path).map_err(|source| SuiteError::Io {
            path: path.to_owned(),
            source,
        })?;
        Suite::parse(&path.display().to_string(), &text)
    }

    /// Parses a suite file's text (`origin` names it in errors).
    pub fn parse(origin: &str, text: &str) -> Result<Suite, SuiteError> {
        let suite: Suite = serde_json::from_str(text)
            .map_err(|e| SuiteError::Invalid(vec![format!("{origin}: {e}")]))?;
        if suite.format != FORMAT {
            return Err(SuiteError::Invalid(vec![format!(
                "{origin}: format is '{}', expected '{FORMAT}'",
                suite.format
            )]));
        }
        Ok(suite)
    }

    /// Checks the suite against the tools the read-only server lists (see the module docs)
    /// and orders its steps; every problem is listed.
    pub fn plan(&self, tools: &[Tool]) -> Result<Plan, SuiteError> {
        let mut problems = Vec::new();
        let by_name: BTreeMap<&str, &Tool> = tools.iter().map(|t| (t.name.as_ref(), t)).collect();
        // variable -> index of the step that finds it
        let mut found_by: BTreeMap<&str, usize> = BTreeMap::new();
        let mut names = BTreeSet::new();
        let mut levels: Vec<usize> = Vec::new();
        for (index, step) in self.steps.iter().enumerate() {
            let at = format!("step {}", step.name);
            if !names.insert(step.name.as_str()) {
                problems.push(format!("{at}: a step of that name comes earlier"));
            }
            let valid_name =
                Cassette::new(step.name.clone(), Provenance::recorded("2000-01-01", "x"))
                    .validate();
            if let Err(e) = valid_name {
                problems.push(format!("{at}: its name is not a cassette name: {e}"));
            }
            if let Some(tool) = by_name.get(step.tool.as_str()) {
                check_action(&at, tool, &step.arguments, &mut problems);
            } else {
                problems.push(format!(
                    "{at}: {} is not a tool the server lists in read-only mode (mutation tools are not)",
                    step.tool
                ));
            }
            let way = match &step.each {
                Some(each) => match found_by.get(each.as_str()) {
                    Some(finder) => {
                        levels.push(levels[*finder] + 1);
                        way_to(self, each, &found_by)
                    }
                    None => {
                        problems.push(format!("{at}: each '{each}': no earlier step finds it"));
                        levels.push(0);
                        BTreeSet::new()
                    }
                },
                None => {
                    levels.push(0);
                    BTreeSet::new()
                }
            };
            for variable in placeholders(&Value::Object(step.arguments.clone())) {
                if !way.contains(variable.as_str()) {
                    problems.push(format!(
                        "{at}: '{{{variable}}}' is not on the way of its rows (each: {})",
                        step.each.as_deref().unwrap_or("none")
                    ));
                }
            }
            for find in &step.find {
                if let Err(e) = parse_path(&find.at) {
                    problems.push(format!("{at}: find at '{}': {e}", find.at));
                }
                if find.bind.is_empty() {
                    problems.push(format!("{at}: find at '{}' binds nothing", find.at));
                }
                for variable in find.bind.keys() {
                    if !is_variable(variable) {
                        problems.push(format!(
                            "{at}: '{variable}' is not a variable name (lower-case letters and '_')"
                        ));
                    }
                    if found_by.contains_key(variable.as_str()) {
                        problems.push(format!("{at}: '{variable}' is found by an earlier step"));
                    } else {
                        found_by.insert(variable, index);
                    }
                }
            }
        }
        for skipped in &self.not_called {
            if skipped.reason.trim().is_empty() {
                problems.push(format!("not_called {}: give the reason", skipped.tool));
            }
            if !by_name.contains_key(skipped.tool.as_str()) {
                problems.push(format!(
                    "not_called {}: not a tool the server lists in read-only mode",
                    skipped.tool
                ));
            }
        }
        problems.extend(uncovered(self, tools));
        if !problems.is_empty() {
            return Err(SuiteError::Invalid(problems));
        }
        let integers = self
            .steps
            .iter()
            .map(|step| integer_properties(by_name[step.tool.as_str()]))
            .collect();
        Ok(Plan { levels, integers })
    }
}

/// The order of a checked suite: a step runs after the step that finds its `each`.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The level of each step: 0 without `each`, else one more than its finder's.
    pub levels: Vec<usize>,
    /// Per step: the tool's properties that take an integer.
    integers: Vec<BTreeSet<String>>,
}

impl Plan {
    /// The deepest level.
    pub fn depth(&self) -> usize {
        self.levels.iter().copied().max().unwrap_or(0)
    }

    /// The steps of `level`, in file order.
    pub fn at_level(&self, level: usize) -> Vec<usize> {
        (0..self.levels.len())
            .filter(|i| self.levels[*i] == level)
            .collect()
    }

    /// The arguments of step `index` for one row.
    pub fn arguments(&self, step: &Step, index: usize, row: &Row) -> Map<String, Value> {
        step.arguments
            .iter()
            .map(|(key, value)| {
                let integer = self.integers[index].contains(key);
                (key.clone(), fill(value, row, integer))
            })
            .collect()
    }
}

/// The read actions of a gated tool, and no action for a read tool.
fn check_action(at: &str, tool: &Tool, arguments: &Map<String, Value>, problems: &mut Vec<String>) {
    let action = arguments.get("action");
    match lint::classify(tool) {
        ToolClass::Read => {
            if action.is_some() && !lint::actions(tool).is_empty() {
                problems.push(format!(
                    "{at}: {} is a read tool; give no action",
                    tool.name
                ));
            }
        }
        ToolClass::Gated => match action.and_then(Value::as_str) {
            Some(action) if read_actions(tool).iter().any(|a| a == action) => {}
            Some(action) => problems.push(format!(
                "{at}: '{action}' is not a read action of {} (read actions: {})",
                tool.name,
                read_actions(tool).join(", ")
            )),
            None => problems.push(format!(
                "{at}: {} is gated: name its read action",
                tool.name
            )),
        },
        ToolClass::Mutation => problems.push(format!(
            "{at}: {} is a mutation tool; the suite only reads",
            tool.name
        )),
    }
}

/// The read actions of a gated tool: its `action` options that are read actions.
fn read_actions(tool: &Tool) -> Vec<String> {
    lint::actions(tool)
        .into_iter()
        .filter(|a| modyo_mcp::contract::class::is_read_action(a))
        .collect()
}

/// Every read tool and read action of a gated tool that no step calls and `not_called` does
/// not list.
fn uncovered(suite: &Suite, tools: &[Tool]) -> Vec<String> {
    let called: BTreeSet<(&str, Option<&str>)> = suite
        .steps
        .iter()
        .map(|s| {
            (
                s.tool.as_str(),
                s.arguments.get("action").and_then(Value::as_str),
            )
        })
        .chain(
            suite
                .not_called
                .iter()
                .map(|n| (n.tool.as_str(), n.action.as_deref())),
        )
        .collect();
    let mut out = Vec::new();
    for tool in tools {
        let name = tool.name.as_ref();
        match lint::classify(tool) {
            ToolClass::Read => {
                if !called.iter().any(|(t, _)| *t == name) {
                    out.push(format!(
                        "read tool {name}: no step calls it and not_called does not list it"
                    ));
                }
            }
            ToolClass::Gated => {
                for action in read_actions(tool) {
                    if !called.contains(&(name, Some(action.as_str()))) {
                        out.push(format!(
                            "read action {name} {action}: no step calls it and not_called does not list it"
                        ));
                    }
                }
            }
            ToolClass::Mutation => {}
        }
    }
    out
}

/// The variables a row of `variable` carries: those bound with it, and those of the row its
/// finder ran on, and so on up.
fn way_to<'a>(
    suite: &'a Suite,
    variable: &'a str,
    found_by: &BTreeMap<&'a str, usize>,
) -> BTreeSet<&'a str> {
    let mut way = BTreeSet::new();
    let mut wanted = Some((variable, usize::MAX));
    while let Some((variable, below)) = wanted {
        let Some(index) = found_by.get(variable).copied().filter(|i| *i < below) else {
            break;
        };
        let step = &suite.steps[index];
        if let Some(find) = step.find.iter().find(|f| f.bind.contains_key(variable)) {
            way.extend(find.bind.keys().map(String::as_str));
        }
        wanted = step.each.as_deref().map(|each| (each, index));
    }
    way
}

fn is_variable(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
}

/// The `{variable}` names in the strings of a value.
fn placeholders(value: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut visit = vec![value];
    while let Some(value) = visit.pop() {
        match value {
            Value::String(s) => out.extend(names_in(s)),
            Value::Array(items) => visit.extend(items),
            Value::Object(map) => visit.extend(map.values()),
            _ => {}
        }
    }
    out
}

/// `{name}` spans of a string whose name is a variable name.
fn names_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(close) = rest.find('}') {
            let name = &rest[..close];
            if is_variable(name) {
                out.push(name.to_owned());
            }
        }
    }
    out
}

/// A found value as text.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A template value filled from a row: a string that is exactly `{variable}` becomes the value
/// (an integer where `integer`, else text); other strings get the values' text in place.
fn fill(template: &Value, row: &Row, integer: bool) -> Value {
    match template {
        Value::String(s) => {
            let whole = s
                .strip_prefix('{')
                .and_then(|r| r.strip_suffix('}'))
                .filter(|name| is_variable(name))
                .and_then(|name| row.get(name));
            if let Some(value) = whole {
                let text = text_of(value);
                if integer && let Ok(n) = text.parse::<i64>() {
                    return Value::from(n);
                }
                return Value::String(text);
            }
            let mut out = s.clone();
            for name in names_in(s) {
                if let Some(value) = row.get(&name) {
                    out = out.replace(&format!("{{{name}}}"), &text_of(value));
                }
            }
            Value::String(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| fill(v, row, false)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), fill(v, row, false)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The input properties of a tool that take an integer and not text.
fn integer_properties(tool: &Tool) -> BTreeSet<String> {
    let Some(Value::Object(properties)) = tool.input_schema.get("properties") else {
        return BTreeSet::new();
    };
    properties
        .iter()
        .filter(|(_, schema)| {
            let types: Vec<&str> = match schema.get("type") {
                Some(Value::String(t)) => vec![t.as_str()],
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            types.contains(&"integer") && !types.contains(&"string")
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// One segment of a find path: a key, and whether to step into each element of its array.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Segment {
    key: String,
    each: bool,
}

fn parse_path(path: &str) -> Result<Vec<Segment>, String> {
    let segments: Vec<Segment> = path
        .split('.')
        .map(|part| {
            let (key, each) = match part.strip_suffix("[]") {
                Some(key) => (key, true),
                None => (part, false),
            };
            if key.is_empty() || key.contains('[') || key.contains(']') {
                Err(format!("'{part}' is not a key (optionally followed by [])"))
            } else {
                Ok(Segment {
                    key: key.to_owned(),
                    each,
                })
            }
        })
        .collect::<Result<_, _>>()?;
    if !segments.last().is_some_and(|s| s.each) {
        return Err("the path must end at the elements of an array (`...[]`)".into());
    }
    Ok(segments)
}

/// The items a find path reaches in a value.
fn items<'a>(value: &'a Value, path: &[Segment]) -> Vec<&'a Value> {
    let mut current = vec![value];
    for segment in path {
        let mut next = Vec::new();
        for value in current {
            match value.get(&segment.key) {
                Some(Value::Array(elements)) if segment.each => next.extend(elements),
                Some(inner) if !segment.each => next.push(inner),
                _ => {}
            }
        }
        current = next;
    }
    current
}

/// A dotted key of an item: a string or a number, non-empty.
fn key_of<'a>(item: &'a Value, key: &str) -> Option<&'a Value> {
    let value = key.split('.').try_fold(item, |v, k| v.get(k))?;
    match value {
        Value::String(s) if !s.is_empty() => Some(value),
        Value::Number(_) => Some(value),
        _ => None,
    }
}

/// The rows a find yields from one result (`structuredContent`) of a call made on `parent`:
/// the first `limit` items that have every bound key, each once.
pub fn find_rows(structured: &Value, find: &Find, parent: &Row, limit: usize) -> Vec<Row> {
    let Ok(path) = parse_path(&find.at) else {
        return Vec::new();
    };
    let mut rows: Vec<Row> = Vec::new();
    for item in items(structured, &path) {
        if rows.len() >= limit {
            break;
        }
        let bound: Option<Row> = find
            .bind
            .iter()
            .map(|(variable, key)| key_of(item, key).map(|v| (variable.clone(), v.clone())))
            .collect();
        let Some(bound) = bound else { continue };
        let mut row = parent.clone();
        row.extend(bound);
        if !rows.contains(&row) {
            rows.push(row);
        }
    }
    rows
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
