//! One scenario's answer judged and priced: held to its expectation and the contract, its
//! text counted, its envelope's cost by slot, and its row of the report, before against after.

use serde_json::{Map, Value};

use crate::check::{self, Kind};
use crate::report::{Deltas, EnvelopeCost, Measured, ScenarioReport, Side};
use crate::tokens::{Count, Delta, round1};
use modyo_replay::cassette::{Outcome, Scenario};

use super::catalogue::{chars, compact, members};

use super::{MeasureError, Mode, Planned};

/// The sum of every text block of a result.
pub(super) fn text_count(result: &Value) -> Count {
    texts(result).into_iter().map(Count::of).sum()
}

pub(super) fn texts(result: &Value) -> Vec<&str> {
    result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect()
}

/// Checks a result against the scenario's expectation and the contract, and measures it.
pub(super) fn judge(
    tool: &Value,
    result: &Value,
    scenario: &Scenario,
    mode: Mode,
    http_requests: usize,
    contract: bool,
) -> Result<(Vec<String>, Measured), MeasureError> {
    let shape = |what: &str, e: serde_json::Error| MeasureError::Shape(format!("{what}: {e}"));
    let typed_tool: rmcp::model::Tool =
        serde_json::from_value(tool.clone()).map_err(|e| shape("tools/list entry", e))?;
    let typed: rmcp::model::CallToolResult =
        serde_json::from_value(result.clone()).map_err(|e| shape("tools/call result", e))?;
    let mut problems = if contract {
        check::problems(&typed_tool, &typed)
    } else {
        Vec::new()
    };
    let kind = check::kind(&typed);
    let expected = scenario.expect.outcome;
    let want = match expected {
        Outcome::Success => Kind::Success,
        Outcome::Error => Kind::Error,
        Outcome::Control => Kind::Control,
    };
    match mode {
        Mode::After => {
            if kind != want {
                problems.push(format!(
                    "expected {want:?}, got {kind:?}: {}",
                    check::text(&typed)
                        .unwrap_or("")
                        .chars()
                        .take(300)
                        .collect::<String>()
                ));
            }
        }
        Mode::Before => {
            // Legacy results have no control (a refusal was a plain success text) and no codes.
            let is_error = typed.is_error == Some(true);
            if is_error != (expected == Outcome::Error) {
                problems.push(format!(
                    "expected {expected:?}, the legacy result has isError={is_error}: {}",
                    check::text(&typed)
                        .unwrap_or("")
                        .chars()
                        .take(300)
                        .collect::<String>()
                ));
            }
        }
    }
    let code = match kind {
        Kind::Error => check::error(&typed)
            .and_then(|e| e.get("code").and_then(Value::as_str).map(str::to_owned)),
        Kind::Control => typed
            .structured_content
            .as_ref()
            .and_then(|s| s.pointer("/control/outcome"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        Kind::Success => None,
    };
    if mode == Mode::After
        && kind == want
        && let Some(want) = &scenario.expect.code
        && code.as_deref() != Some(want.as_str())
    {
        problems.push(format!("expected code {want}, got {code:?}"));
    }
    let text = text_count(result);
    let structured_value = result.get("structuredContent");
    let structured = structured_value.map(|s| Count::of(&compact(s)));
    let payload = match structured_value {
        Some(s) => Some(s.clone()),
        None if mode == Mode::After && kind == Kind::Error => texts(result)
            .first()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .filter(Value::is_object),
        None => None,
    };
    let outcome = match (mode, kind) {
        (_, Kind::Error) => "error",
        (Mode::After, Kind::Control) => "control",
        _ => "success",
    };
    Ok((
        problems,
        Measured {
            outcome: outcome.into(),
            code: if mode == Mode::After { code } else { None },
            http_requests: Some(http_requests),
            text: text.tokens_all(),
            structured: structured.map(|c| c.tokens_all()),
            both: (text + structured.unwrap_or_default()).tokens_all(),
            envelope: payload
                .as_ref()
                .and_then(Value::as_object)
                .map(envelope_cost),
        },
    ))
}

/// What each part of an envelope costs, in characters.
pub fn envelope_cost(payload: &Map<String, Value>) -> EnvelopeCost {
    let mut cost = EnvelopeCost {
        framing: 2,
        ..EnvelopeCost::default()
    };
    let mut total = 2;
    for (key, value, chars_of) in members(payload) {
        let c = chars_of as u64;
        total += c;
        match key {
            "platform" => cost.platform += c,
            "resource" => cost.resource += c,
            "state" => cost.state += c,
            "control" => cost.control += c,
            "data" | "error" => {
                let v = chars(value) as u64;
                cost.payload += v;
                cost.framing += c - v;
            }
            _ => cost.framing += c,
        }
    }
    cost.overhead = total - cost.payload;
    cost.overhead_tokens = round1(cost.overhead as f64 / crate::tokens::CHARS_PER_TOKEN);
    cost
}

pub(super) fn expect_label(scenario: &Scenario) -> String {
    let outcome = match scenario.expect.outcome {
        Outcome::Success => "success",
        Outcome::Error => "error",
        Outcome::Control => "control",
    };
    match &scenario.expect.code {
        Some(code) => format!("{outcome}:{code}"),
        None => outcome.to_owned(),
    }
}

/// After minus before for each view of a result, when both sides were measured.
pub(super) fn deltas(before: &Side, after: &Side) -> Option<Deltas> {
    let (b, a) = (before.measured()?, after.measured()?);
    let s = |m: &Measured| m.structured.map_or(Count::default(), |t| t.count());
    Some(Deltas {
        text: Delta::between(b.text.count(), a.text.count()),
        structured: Delta::between(s(b), s(a)),
        both: Delta::between(b.both.count(), a.both.count()),
    })
}

pub(super) fn scenario_report(planned: &Planned, before: Side, after: Side) -> ScenarioReport {
    let delta = deltas(&before, &after);
    ScenarioReport {
        id: planned.id(),
        cassette: planned.cassette.clone(),
        scenario: planned.scenario.name.clone(),
        tool: planned.scenario.tool.clone(),
        arguments: planned.scenario.arguments.clone(),
        env: planned.env().into_iter().collect(),
        expect: expect_label(&planned.scenario),
        before,
        after,
        delta,
    }
}
