//! A report from two catalogues and the calls measured on each side: the catalogue as context
//! and as wire, by slot and by tool, the per-call means, the client profiles and their
//! break-even. Shared by our modules (legacy against migrated) and by any two stdio servers.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::catalogue::{self, Extras, breakdown, context_text, tools_text};
use crate::probe::PROTOCOL_VERSION;
use crate::report::slots::Definition;
use crate::report::{
    Catalogue, CatalogueView, Compared, Counters, EnvelopeCost, EnvelopeSlot, EnvelopeSummary,
    Evidence, ExtrasCost, FORMAT, Measured, ModuleReport, OutcomeMean, Profile, ProfileBreakEven,
    Projection, ScenarioReport, SlotTotals, Summary, ToolReport,
};
use crate::tokens::{Count, Delta, PerUnit, round1};

/// What a report is built from.
pub(super) struct Input<'a> {
    /// The module, or the server's name.
    pub(super) module: String,
    /// What before and after are.
    pub(super) compared: Compared,
    /// `tools/list` before, as listed.
    pub(super) before_tools: &'a [Value],
    /// `tools/list` after.
    pub(super) after_tools: &'a [Value],
    /// Every scenario or planned call.
    pub(super) scenarios: Vec<ScenarioReport>,
    /// Whether responses are envelopes worth pricing slot by slot (our server).
    pub(super) envelope: bool,
    /// The projection section (content).
    pub(super) projection: Option<Projection>,
    /// Instructions, prompts and resources before.
    pub(super) before_extras: Extras,
    /// The same after.
    pub(super) after_extras: Extras,
}

fn extras_cost(extras: &Extras) -> ExtrasCost {
    let cost = |text: &Option<String>| text.as_deref().map(|t| Count::of(t).tokens_all());
    ExtrasCost {
        instructions: cost(&extras.instructions),
        prompts: cost(&extras.prompts),
        resources: cost(&extras.resources),
    }
}

/// How a client profile prices one call, and what it adds per call after.
struct Behaviour {
    profile: &'static str,
    behaviour: &'static str,
    catalogue: CatalogueView,
    modelled_on: &'static str,
    cost: fn(&Measured) -> Count,
    schema_per_call: bool,
}

fn structured_or_text(m: &Measured) -> Count {
    m.structured.map_or(m.text.count(), |s| s.count())
}

/// The profiles, all assumed: what each client puts in context, and which catalogue.
const BEHAVIOURS: [Behaviour; 5] = [
    Behaviour {
        profile: "text",
        behaviour: "forwards content[].text only",
        catalogue: CatalogueView::Context,
        modelled_on: "a client that forwards the text of each result and no output schema; which clients do is measured by their fingerprints",
        cost: |m| m.text.count(),
        schema_per_call: false,
    },
    Behaviour {
        profile: "structured",
        behaviour: "forwards structuredContent only (the text when there is none: legacy results, errors)",
        catalogue: CatalogueView::Context,
        modelled_on: "a client that forwards structuredContent when a result has one, else its text, and no output schema; which clients do is measured by their fingerprints",
        cost: structured_or_text,
        schema_per_call: false,
    },
    Behaviour {
        profile: "both",
        behaviour: "forwards content[].text and structuredContent (pays twice)",
        catalogue: CatalogueView::Context,
        modelled_on: "a client that forwards the whole result, text and structuredContent; which clients do is measured by their fingerprints",
        cost: |m| m.both.count(),
        schema_per_call: false,
    },
    Behaviour {
        profile: "text-wire",
        behaviour: "forwards content[].text only, and puts the whole tools array, output schemas included, in context",
        catalogue: CatalogueView::Wire,
        modelled_on: "the worst case for the catalogue (every definition as sent, output schemas included, in every request), and how reports of format 1 priced every profile",
        cost: |m| m.text.count(),
        schema_per_call: false,
    },
    Behaviour {
        profile: "schema-per-call",
        behaviour: "forwards structuredContent and maps the called tool's outputSchema into the request on every call",
        catalogue: CatalogueView::Wire,
        modelled_on: "a client that maps each output schema into every request (the JavaScript @google/genai SDK was measured to)",
        cost: structured_or_text,
        schema_per_call: true,
    },
];

fn name_of(tool: &Value) -> Option<&str> {
    tool.get("name").and_then(Value::as_str)
}

fn definitions(tools: &[Value]) -> BTreeMap<String, Definition> {
    tools
        .iter()
        .filter_map(|t| Some((name_of(t)?.to_owned(), catalogue::definition(t))))
        .collect()
}

fn mean<'a>(
    measured: impl Iterator<Item = &'a Measured>,
    f: impl Fn(&Measured) -> Count,
) -> (usize, Option<PerUnit>) {
    let (n, sum) = measured.fold((0_u64, Count::default()), |(n, sum), m| (n + 1, sum + f(m)));
    (n as usize, (n > 0).then(|| sum.per(n)))
}

fn structured(m: &Measured) -> Count {
    m.structured.map_or(Count::default(), |s| s.count())
}

/// Every tool listed on either side, worst first: the largest definition on the wire after
/// (before, for a tool that is gone), then by name.
fn tool_reports(
    before_tools: &[Value],
    after_tools: &[Value],
    scenarios: &[ScenarioReport],
) -> Vec<ToolReport> {
    let (before, after) = (definitions(before_tools), definitions(after_tools));
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    let mut rows: Vec<ToolReport> = names
        .into_iter()
        .map(|name| {
            let own = || scenarios.iter().filter(move |s| &s.tool == name);
            let (b, a) = (before.get(name).copied(), after.get(name).copied());
            let delta = |view: fn(&Definition) -> Count| match (&b, &a) {
                (Some(b), Some(a)) => Some(Delta::between(view(b), view(a))),
                _ => None,
            };
            let (calls_before, text_per_call_before) =
                mean(own().filter_map(|s| s.before.measured()), |m| {
                    m.text.count()
                });
            let after_measured = || own().filter_map(|s| s.after.measured());
            let (calls_after, text_per_call_after) = mean(after_measured(), |m| m.text.count());
            ToolReport {
                tool: name.clone(),
                before: b,
                after: a,
                wire_delta: delta(|d| d.wire.count()),
                context_delta: delta(|d| d.context.count()),
                calls_before,
                calls_after,
                text_per_call_before,
                text_per_call_after,
                structured_per_call_after: mean(after_measured(), structured).1,
                both_per_call_after: mean(after_measured(), |m| m.both.count()).1,
                same_scenarios: own()
                    .filter(|s| s.before.measured().is_some())
                    .map(|s| &s.id)
                    .eq(own()
                        .filter(|s| s.after.measured().is_some())
                        .map(|s| &s.id)),
            }
        })
        .collect();
    let weight = |t: &ToolReport| t.after.or(t.before).map_or(0, |d| d.wire.chars);
    rows.sort_by(|x, y| weight(y).cmp(&weight(x)).then_with(|| x.tool.cmp(&y.tool)));
    rows
}

/// The report.
pub(super) fn report(input: Input<'_>) -> ModuleReport {
    let Input {
        module,
        compared,
        before_tools,
        after_tools,
        scenarios,
        envelope,
        projection,
        before_extras,
        after_extras,
    } = input;
    let wire_before = Count::of(&tools_text(before_tools));
    let wire_after = Count::of(&tools_text(after_tools));
    let context_before = Count::of(&context_text(before_tools));
    let context_after = Count::of(&context_text(after_tools));
    // An assumed profile prices the context or the wire; only a captured client session
    // (`modyo-lab clients`) has a catalogue of its own, and no behaviour here names it.
    let view = |view: CatalogueView, after: bool| match (view, after) {
        (CatalogueView::Wire, false) => wire_before,
        (CatalogueView::Wire, true) => wire_after,
        (_, false) => context_before,
        (_, true) => context_after,
    };
    let rows = breakdown(before_tools, after_tools);
    let slot_sum_chars = rows.iter().map(|r| r.chars).sum();
    let (defs_before, defs_after) = (definitions(before_tools), definitions(after_tools));
    let by_slot_after = SlotTotals::of(defs_after.values());
    let catalogue = Catalogue {
        wire_measured: "the tools array of tools/list, compact JSON as sent",
        context_measured: "each tool with only name, title, description, inputSchema and annotations (what a client that drops the output schema puts in context), compact JSON",
        tools_before: before_tools.len(),
        tools_after: after_tools.len(),
        wire_before: wire_before.tokens_all(),
        wire_after: wire_after.tokens_all(),
        wire_delta: Delta::between(wire_before, wire_after),
        context_before: context_before.tokens_all(),
        context_after: context_after.tokens_all(),
        context_delta: Delta::between(context_before, context_after),
        by_slot_before: SlotTotals::of(defs_before.values()),
        by_slot_after,
        slots: rows.into_iter().filter(|r| r.chars != 0).collect(),
        slot_sum_chars,
        difference_chars: wire_after.chars as i64 - wire_before.chars as i64,
        extras_before: extras_cost(&before_extras),
        extras_after: extras_cost(&after_extras),
    };
    let schema_cost: BTreeMap<&str, Count> = after_tools
        .iter()
        .filter_map(|t| Some((name_of(t)?, Count::of(&catalogue::output_schema_text(t)?))))
        .collect();
    // Every call measured on both sides, whatever its outcome: errors and refusals are turns
    // the model reads too. The profiles price these; the summary also shows them by outcome.
    let both_sides: Vec<(&ScenarioReport, &Measured, &Measured)> = scenarios
        .iter()
        .filter_map(|s| Some((s, s.before.measured()?, s.after.measured()?)))
        .collect();
    let comparable: Vec<(&ScenarioReport, &Measured, &Measured)> = both_sides
        .iter()
        .copied()
        .filter(|(s, b, a)| {
            (s.expect.is_empty() || s.expect == "success")
                && b.outcome == "success"
                && a.outcome == "success"
        })
        .collect();
    let n = both_sides.len();
    let profiles: Vec<Profile> = BEHAVIOURS
        .iter()
        .map(|b| {
            let sum_before: Count = both_sides.iter().map(|(_, m, _)| (b.cost)(m)).sum();
            let sum_after: Count = both_sides
                .iter()
                .map(|(s, _, m)| {
                    let schema = if b.schema_per_call {
                        schema_cost
                            .get(s.tool.as_str())
                            .copied()
                            .unwrap_or_default()
                    } else {
                        Count::default()
                    };
                    (b.cost)(m) + schema
                })
                .sum();
            let (catalogue_before, catalogue_after) =
                (view(b.catalogue, false), view(b.catalogue, true));
            Profile::priced(
                b.profile.into(),
                b.behaviour.into(),
                b.catalogue,
                Evidence::Assumed {
                    modelled_on: b.modelled_on.into(),
                },
                (catalogue_before, sum_before),
                (catalogue_after, sum_after),
                n,
            )
        })
        .collect();
    let by_outcome = outcome_rows(&both_sides);
    let n = comparable.len();
    let per = |f: fn(&Measured) -> Count, after: bool| {
        let sum: Count = comparable
            .iter()
            .map(|(_, b, a)| f(if after { a } else { b }))
            .sum();
        (n > 0).then(|| sum.per(n as u64))
    };
    let (measured_after, text_per_call_measured_after) =
        mean(scenarios.iter().filter_map(|s| s.after.measured()), |m| {
            m.text.count()
        });
    let summary = Summary {
        module: module.clone(),
        tools: after_tools.len(),
        scenarios: scenarios.len(),
        catalogue_context_before: context_before.tokens_all(),
        catalogue_context_after: context_after.tokens_all(),
        catalogue_wire_before: wire_before.tokens_all(),
        catalogue_wire_after: wire_after.tokens_all(),
        output_schema_per_tool_after: by_slot_after.output_schema_per_tool,
        comparable_calls: n,
        text_per_call_before: per(|m| m.text.count(), false),
        text_per_call_after: per(|m| m.text.count(), true),
        both_per_call_after: per(|m| m.both.count(), true),
        measured_after,
        text_per_call_measured_after,
        break_even: profiles.iter().map(ProfileBreakEven::of).collect(),
        by_outcome,
    };
    ModuleReport {
        format: FORMAT,
        module,
        compared,
        protocol_version: PROTOCOL_VERSION,
        counters: Counters::default(),
        summary,
        catalogue,
        tools: tool_reports(before_tools, after_tools, &scenarios),
        envelope: envelope.then(|| envelope_summary(&scenarios)),
        scenarios,
        projection,
        profiles,
    }
}

/// The outcome a call is counted under: the scenario's expectation when it has one (the same on
/// both sides), else what the call after answered.
fn outcome_of(scenario: &ScenarioReport, after: &Measured) -> &'static str {
    let said = if scenario.expect.is_empty() {
        after.outcome.as_str()
    } else {
        scenario.expect.as_str()
    };
    match said.split(':').next().unwrap_or(said) {
        "error" => "error",
        "control" => "control",
        _ => "success",
    }
}

/// Mean `content[].text` per call of the calls measured on both sides, by outcome, then all.
fn outcome_rows(both_sides: &[(&ScenarioReport, &Measured, &Measured)]) -> Vec<OutcomeMean> {
    let row = |outcome: &str, calls: Vec<&(&ScenarioReport, &Measured, &Measured)>| {
        let n = calls.len() as u64;
        let before: Count = calls.iter().map(|(_, b, _)| b.text.count()).sum();
        let after: Count = calls.iter().map(|(_, _, a)| a.text.count()).sum();
        OutcomeMean {
            outcome: outcome.into(),
            calls: calls.len(),
            text_before: (n > 0).then(|| before.per(n)),
            text_after: (n > 0).then(|| after.per(n)),
        }
    };
    let mut rows: Vec<OutcomeMean> = ["success", "error", "control"]
        .into_iter()
        .map(|outcome| {
            row(
                outcome,
                both_sides
                    .iter()
                    .filter(|(s, _, a)| outcome_of(s, a) == outcome)
                    .collect(),
            )
        })
        .filter(|r| r.calls > 0)
        .collect();
    rows.push(row("all", both_sides.iter().collect()));
    rows
}

fn envelope_summary(scenarios: &[ScenarioReport]) -> EnvelopeSummary {
    let costs: Vec<EnvelopeCost> = scenarios
        .iter()
        .filter_map(|s| s.after.measured().and_then(|m| m.envelope))
        .collect();
    let slot = |name: &'static str, get: fn(&EnvelopeCost) -> u64| {
        let values: Vec<u64> = costs.iter().map(get).filter(|v| *v > 0).collect();
        EnvelopeSlot {
            slot: name,
            responses: values.len(),
            mean_chars: round1(values.iter().sum::<u64>() as f64 / values.len().max(1) as f64),
            min_chars: values.iter().copied().min().unwrap_or(0),
            max_chars: values.iter().copied().max().unwrap_or(0),
        }
    };
    let overhead: u64 = costs.iter().map(|c| c.overhead).sum();
    let payload: u64 = costs.iter().map(|c| c.payload + c.overhead).sum();
    EnvelopeSummary {
        responses: costs.len(),
        slots: vec![
            slot(catalogue::ENVELOPE_SLOTS[0], |c| c.platform),
            slot(catalogue::ENVELOPE_SLOTS[1], |c| c.resource),
            slot(catalogue::ENVELOPE_SLOTS[2], |c| c.state),
            slot(catalogue::ENVELOPE_SLOTS[3], |c| c.control),
            slot("framing", |c| c.framing),
        ],
        mean_overhead_chars: (!costs.is_empty())
            .then(|| round1(overhead as f64 / costs.len() as f64)),
        mean_overhead_tokens: (!costs.is_empty())
            .then(|| round1(overhead as f64 / costs.len() as f64 / crate::tokens::CHARS_PER_TOKEN)),
        overhead_percent: (payload > 0).then(|| round1(overhead as f64 * 100.0 / payload as f64)),
    }
}

/// A small report for unit tests: tools `a` (an output schema after, two calls) and `b` (listed,
/// never called), module `m`.
#[cfg(test)]
pub(super) fn sample() -> ModuleReport {
    use serde_json::json;
    let before = vec![
        json!({"name": "a", "description": "A.", "inputSchema": {"type": "object"}}),
        json!({"name": "b", "description": "B.", "inputSchema": {"type": "object"}}),
    ];
    let mut after = before.clone();
    after[0]["outputSchema"] = json!({"type": "object", "properties": {"x": {"type": "string"}}});
    report(Input {
        module: "m".into(),
        compared: Compared {
            before: "b".into(),
            after: "a".into(),
            sizes: "exact".into(),
        },
        before_tools: &before,
        after_tools: &after,
        scenarios: vec![
            tests::call(
                "a",
                tests::measured(300, None),
                tests::measured(100, Some(150)),
            ),
            tests::call(
                "a",
                tests::measured(50, None),
                tests::measured(60, Some(60)),
            ),
        ],
        envelope: false,
        projection: None,
        before_extras: Extras::default(),
        after_extras: Extras::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Side;
    use crate::tokens::Tokens;
    use serde_json::json;

    pub(super) fn tokens(chars: u64) -> Tokens {
        Count {
            chars,
            o200k_base: chars / 3,
            cl100k_base: chars / 3,
        }
        .tokens_all()
    }

    pub(super) fn measured(text: u64, structured: Option<u64>) -> Side {
        let both = text + structured.unwrap_or(0);
        Side::Measured(Box::new(Measured {
            outcome: "success".into(),
            code: None,
            http_requests: None,
            text: tokens(text),
            structured: structured.map(tokens),
            both: tokens(both),
            envelope: None,
        }))
    }

    pub(super) fn call(tool: &str, before: Side, after: Side) -> ScenarioReport {
        ScenarioReport {
            id: tool.into(),
            cassette: String::new(),
            scenario: tool.into(),
            tool: tool.into(),
            arguments: json!({}),
            env: BTreeMap::new(),
            expect: String::new(),
            before,
            after,
            delta: None,
        }
    }

    #[test]
    fn context_drops_the_output_schema_and_profiles_say_which_catalogue_they_price() {
        let before = vec![
            json!({"name": "a", "description": "A.", "inputSchema": {"type": "object"}}),
            json!({"name": "b", "description": "B.", "inputSchema": {"type": "object"}}),
        ];
        let mut after = before.clone();
        after[0]["outputSchema"] = json!({"type": "object", "properties": {"x": {"type": "string", "description": "a long description of x"}}});
        let scenarios = vec![
            call("a", measured(300, None), measured(100, Some(150))),
            call("b", measured(50, None), measured(50, Some(60))),
        ];
        let report = report(Input {
            module: "m".into(),
            compared: Compared {
                before: "b".into(),
                after: "a".into(),
                sizes: "exact".into(),
            },
            before_tools: &before,
            after_tools: &after,
            scenarios,
            envelope: false,
            projection: None,
            before_extras: Extras::default(),
            after_extras: Extras::default(),
        });
        let c = &report.catalogue;
        assert_eq!(c.context_before, c.context_after, "only outputSchema grew");
        assert!(c.wire_after.chars > c.wire_before.chars);
        assert_eq!(c.context_before, c.wire_before, "nothing wire-only before");
        let profile = |name: &str| report.profiles.iter().find(|p| p.profile == name).unwrap();
        // Context: the catalogue did not grow, so the session after is cheaper from call 0.
        assert_eq!(profile("text").catalogue, CatalogueView::Context);
        assert_eq!(profile("text").break_even_calls.primary, Some(0));
        // Wire: the schema has to be paid back by the 100 characters saved per call on average.
        let grew = c.wire_after.chars - c.wire_before.chars;
        assert_eq!(
            profile("text-wire").break_even_calls.primary,
            Some((grew * 2).div_ceil(200))
        );
        assert_eq!(report.summary.break_even.len(), BEHAVIOURS.len());
        assert!(
            BEHAVIOURS
                .iter()
                .all(|b| b.catalogue != CatalogueView::Captured),
            "an assumed profile prices the context or the wire"
        );
        // Worst first: `a` carries the schema.
        assert_eq!(report.tools[0].tool, "a");
        let a = report.tools[0].after.unwrap();
        assert_eq!(
            a.description.chars
                + a.input_schema.chars
                + a.other.chars
                + a.output_schema.unwrap().chars,
            a.wire.chars
        );
        assert_eq!(
            a.wire.chars - a.context.chars,
            a.output_schema.unwrap().chars
        );
        assert_eq!(report.tools[0].text_per_call_after.unwrap().chars, 100.0);
        assert_eq!(
            report.summary.text_per_call_measured_after.unwrap().chars,
            75.0
        );
        assert_eq!(
            report
                .catalogue
                .by_slot_after
                .output_schema_per_tool
                .unwrap()
                .chars,
            a.output_schema.unwrap().chars as f64 / 2.0
        );
    }
}
