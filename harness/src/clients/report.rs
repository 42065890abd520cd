//! The clients report: each capture priced with the lab's counters, per module, before and
//! after, with the break-even (and under the client's recommended settings:
//! `report_recommended`); rendered as `reports/clients.json` and
//! `reports/clients.md`.
//!
//! A session's cost is what it left in the model's context from our server: paid once (the
//! lines naming our tools, our instructions, our tools' definitions) and per call (each result
//! as the client forwarded it). Definitions are priced as the client sent them (compact JSON),
//! results as their text when the client sent text, else as compact JSON. Everything is a
//! function of the captures, so the report regenerates byte for byte.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capture::{Capture, Forwarded, LeftOut, Outcome, Session, Side};
use super::fingerprint::{Fingerprint, ResultForm};
pub use super::report_recommended::{RecommendedFigures, RecommendedProfile, RecommendedSession};
use crate::report::markdown::{delta, signed, tok};
use crate::report::table::{
    Align::{Left, Right},
    Table,
};
use crate::report::{BreakEven, CatalogueView, Counters, Evidence, Profile};
use crate::tokens::{Count, Delta, PerUnit, Tokens, grouped as num};

/// The format tag of `clients.json`.
pub const FORMAT: &str = "modyo-lab-clients/1";

/// The whole report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClientsReport {
    /// [`FORMAT`].
    pub format: String,
    /// Which counters the numbers use.
    #[serde(skip_deserializing)]
    pub counters: Counters,
    /// One entry per measured client.
    pub clients: Vec<ClientReport>,
}

/// One client, measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClientReport {
    /// Short id (`claude-code`).
    pub client: String,
    /// As people name it.
    pub name: String,
    /// The npm package.
    pub package: String,
    /// The version that ran.
    pub version: String,
    /// When the capture's content was first seen.
    pub date: String,
    /// The capture file, relative to the reports directory.
    pub capture: String,
    /// How the lab ran it.
    pub method: String,
    /// The client's fingerprint file, relative to the reports directory, when it has one:
    /// what it forwards of a result is read there, not guessed from our results, whose text is
    /// the compact JSON of their structured content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// What reached the model, in words, derived from the capture and the fingerprint.
    pub observed: Vec<String>,
    /// What a session pays once, in a phrase.
    pub once: String,
    /// What it pays per call, in a phrase.
    pub per_call: String,
    /// Per module.
    pub modules: Vec<ModuleProfile>,
}

impl ClientReport {
    /// `Claude Code 2.1.332`.
    pub fn label(&self) -> String {
        format!("{} {}", self.name, self.version)
    }
}

/// What one module's session cost in one client, before and after.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModuleProfile {
    /// The module.
    pub module: String,
    /// Calls in each session.
    pub calls: usize,
    /// Distinct tools the calls used.
    pub tools_used: usize,
    /// Scenarios of the module the session did not call, with why.
    pub left_out: Vec<LeftOut>,
    /// The legacy session.
    pub before: SessionCost,
    /// The migrated session.
    pub after: SessionCost,
    /// After minus before, the whole session.
    pub delta: SessionDelta,
    /// Mean result per call before.
    pub per_call_before: PerUnit,
    /// Mean result per call after.
    pub per_call_after: PerUnit,
    /// Change per call in percent (chars/2.902).
    pub per_call_percent: Option<f64>,
    /// Calls after which the migrated session ends with less in the model's context (`null`:
    /// never; 0: from the first).
    pub break_even_calls: BreakEven,
    /// Calls after which the migrated session has billed less input, summed over its
    /// requests, with the session's once-paid parts in every request (`null`: never).
    pub billed_break_even_calls: BreakEven,
    /// The calls by the outcome they expect (successes, errors, controls), each priced per
    /// call: what the all-calls figures above average.
    #[serde(default)]
    pub outcomes: Vec<OutcomeCost>,
    /// The session under the settings recommended for the client, against the legacy one
    /// (`null`: no fingerprint says what they are, and no session was run under them).
    #[serde(default)]
    pub recommended: Option<RecommendedProfile>,
}

/// The calls of one outcome in a module's sessions, priced per call as forwarded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutcomeCost {
    /// `success`, `error` or `control`.
    pub outcome: String,
    /// How many of the session's calls expect it.
    pub calls: usize,
    /// Mean result per call before.
    pub per_call_before: PerUnit,
    /// Mean result per call after.
    pub per_call_after: PerUnit,
    /// Change per call in percent (chars/2.902).
    pub per_call_percent: Option<f64>,
}

/// After minus before, as [`Delta`] (which only serializes).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct SessionDelta {
    /// Characters.
    pub chars: i64,
    /// Characters / 2.902, one decimal.
    #[serde(rename = "chars/2.902")]
    pub primary: f64,
    /// `o200k_base` tokens.
    pub o200k_base: i64,
    /// `cl100k_base` tokens.
    pub cl100k_base: i64,
    /// Percent change under the primary counter.
    pub percent: Option<f64>,
}

impl From<Delta> for SessionDelta {
    fn from(d: Delta) -> SessionDelta {
        SessionDelta {
            chars: d.chars,
            primary: d.primary,
            o200k_base: d.o200k_base,
            cl100k_base: d.cl100k_base,
            percent: d.percent.map(|p| p.primary),
        }
    }
}

/// What one session left in the model's context from our server.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct SessionCost {
    /// Lines naming our tools.
    pub names: Tokens,
    /// Copies of our instructions.
    pub instructions: Tokens,
    /// Our tools' definitions.
    pub definitions: Tokens,
    /// Paid once per session: names, instructions and definitions.
    pub once: Tokens,
    /// Every call's result.
    pub results: Tokens,
    /// The whole session: what the model's context ends with.
    pub total: Tokens,
    /// What the session billed of ours, summed over its requests (each request re-sends
    /// what it carries: names, instructions, the definitions loaded so far, every result so
    /// far), from the shape of every request.
    pub billed: Tokens,
    /// Of `billed`, what the previous request already sent (a prefix a client that marks
    /// prompt-cache breakpoints has billed at the cache-read rate): `billed - total`.
    pub repeated: Tokens,
}

/// What a forwarded value costs: its text when it is text, else its compact JSON.
pub(crate) fn priced(sent: &Value) -> Count {
    match sent {
        Value::String(s) => Count::of(s),
        Value::Array(blocks)
            if blocks
                .iter()
                .all(|b| b.get("type").and_then(Value::as_str) == Some("text")) =>
        {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .map(Count::of)
                .sum()
        }
        other => Count::of(&other.to_string()),
    }
}

/// A session priced: what it pays once, for its results, and its whole cost.
pub(super) struct Priced {
    pub(super) once: Count,
    pub(super) results: Count,
    pub(super) cost: SessionCost,
}

/// Prices one session.
pub(super) fn price(session: &Session) -> Priced {
    let names = Count::of(&session.names.join("\n"));
    let copies: Vec<Count> = session.instructions.iter().map(|i| Count::of(i)).collect();
    let instructions: Count = copies.iter().copied().sum();
    let definitions: Vec<Count> = session
        .definitions
        .iter()
        .map(|d| Count::of(&d.sent.to_string()))
        .collect();
    let results: Vec<Count> = session.results.iter().map(|r| priced(&r.sent)).collect();
    let once = names + instructions + definitions.iter().copied().sum::<Count>();
    let all_results: Count = results.iter().copied().sum();
    let billed = billed(session, names, &copies, &definitions, &results);
    let total = once + all_results;
    Priced {
        once,
        results: all_results,
        cost: SessionCost {
            names: names.tokens_all(),
            instructions: instructions.tokens_all(),
            definitions: definitions.iter().copied().sum::<Count>().tokens_all(),
            once: once.tokens_all(),
            results: all_results.tokens_all(),
            total: total.tokens_all(),
            billed: billed.tokens_all(),
            repeated: billed.saturating_sub(total).tokens_all(),
        },
    }
}

/// What the session's requests carried of ours, summed: each request's [`Shape`] says how many
/// names, copies of our instructions, definitions (the first ones, in arrival order) and
/// results (the first ones) it held.
fn billed(
    session: &Session,
    names: Count,
    instructions: &[Count],
    definitions: &[Count],
    results: &[Count],
) -> Count {
    let prefix = |counts: &[Count]| {
        let mut sums = vec![Count::default()];
        for c in counts {
            let last = *sums.last().unwrap_or(&Count::default());
            sums.push(last + *c);
        }
        sums
    };
    let (copies, defs, res) = (prefix(instructions), prefix(definitions), prefix(results));
    session
        .requests
        .iter()
        .map(|shape| {
            let named = if shape.names > 0 {
                names
            } else {
                Count::default()
            };
            named
                + copies[shape.instructions.min(instructions.len())]
                + defs[shape.definitions.min(definitions.len())]
                + res[shape.results.min(results.len())]
        })
        .sum()
}

/// The calls of `before` and `after` (the same calls) grouped by the outcome they expect, in
/// the order success, error, control; an outcome no call expects has no row.
fn outcomes(before: &Session, after: &Session) -> Vec<OutcomeCost> {
    let sum = |session: &Session, outcome: Outcome| -> Count {
        session
            .results
            .iter()
            .filter(|r| session.calls.get(r.call).map(|c| c.outcome) == Some(outcome))
            .map(|r| priced(&r.sent))
            .sum()
    };
    [Outcome::Success, Outcome::Error, Outcome::Control]
        .into_iter()
        .filter_map(|outcome| {
            let calls = after.calls.iter().filter(|c| c.outcome == outcome).count();
            if calls == 0 {
                return None;
            }
            let (b, a) = (sum(before, outcome), sum(after, outcome));
            Some(OutcomeCost {
                outcome: super::reference::label(outcome).to_owned(),
                calls,
                per_call_before: b.per(calls as u64),
                per_call_after: a.per(calls as u64),
                per_call_percent: Delta::between(b, a).percent.map(|p| p.primary),
            })
        })
        .collect()
}

/// Why a capture cannot be priced.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PriceError {
    /// A module has a session on one side only.
    #[error("{client}: {module} has no {side} session")]
    MissingSide {
        /// The client.
        client: String,
        /// The module.
        module: String,
        /// The missing side.
        side: &'static str,
    },
    /// The two sides did not make the same calls.
    #[error("{client}: {module}'s sessions made different calls before and after")]
    DifferentCalls {
        /// The client.
        client: String,
        /// The module.
        module: String,
    },
}

/// Prices one capture (found at `capture` relative to the reports directory), with the
/// client's fingerprint when it has one.
pub fn client_report(
    capture: &Capture,
    path: &str,
    fingerprint: Option<&Fingerprint>,
) -> Result<ClientReport, PriceError> {
    let h = &capture.header;
    let modules: BTreeSet<&str> = capture.sessions.iter().map(|s| s.module.as_str()).collect();
    let mut profiles = Vec::new();
    for module in modules {
        let side = |side: Side| {
            capture
                .session(module, side)
                .ok_or_else(|| PriceError::MissingSide {
                    client: h.client.clone(),
                    module: module.to_owned(),
                    side: side.as_str(),
                })
        };
        let (before, after) = (side(Side::Before)?, side(Side::After)?);
        if before.calls != after.calls {
            return Err(PriceError::DifferentCalls {
                client: h.client.clone(),
                module: module.to_owned(),
            });
        }
        let recommended =
            super::report_recommended::profile(capture, module, before, after, fingerprint)?;
        let (b, a) = (price(before), price(after));
        let calls = after.calls.len();
        let tools: BTreeSet<&str> = after.calls.iter().map(|c| c.tool.as_str()).collect();
        let mut left_out = after.left_out.clone();
        left_out.sort();
        profiles.push(ModuleProfile {
            module: module.to_owned(),
            calls,
            tools_used: tools.len(),
            left_out,
            before: b.cost,
            after: a.cost,
            delta: Delta::between(b.once + b.results, a.once + a.results).into(),
            per_call_before: b.results.per(calls as u64),
            per_call_after: a.results.per(calls as u64),
            per_call_percent: Delta::between(b.results, a.results)
                .percent
                .map(|p| p.primary),
            break_even_calls: BreakEven::of(b.once, a.once, b.results, a.results, calls),
            billed_break_even_calls: BreakEven::billed(b.once, a.once, b.results, a.results, calls),
            outcomes: outcomes(before, after),
            recommended,
        });
    }
    Ok(ClientReport {
        client: h.client.clone(),
        name: h.name.clone(),
        package: h.package.clone(),
        version: h.version.clone(),
        date: h.date.clone(),
        capture: path.to_owned(),
        method: super::Client::from_id(&h.client)
            .map_or("", super::Client::method)
            .to_owned(),
        fingerprint: fingerprint
            .and_then(|_| super::Client::from_id(&h.client).map(super::Client::fingerprint_file)),
        observed: observe(capture, fingerprint),
        once: once_phrase(capture),
        per_call: per_call_phrase(capture, fingerprint),
        modules: profiles,
    })
}

/// The chart of `clients-billed.svg`: per client, what a session on the whole server bills
/// against its calls, before and after (every module registered: the once-paid parts of the
/// five sessions summed, the calls' mean over all of them), panels on shared axes.
pub fn billed_chart(report: &ClientsReport) -> Option<String> {
    let profiles: Vec<Profile> = report
        .clients
        .iter()
        .filter(|c| !c.modules.is_empty())
        .map(|c| {
            let sum = |f: &dyn Fn(&ModuleProfile) -> Count| c.modules.iter().map(f).sum::<Count>();
            let once_before = sum(&|m| m.before.once.count());
            let once_after = sum(&|m| m.after.once.count());
            let results_before = sum(&|m| m.before.results.count());
            let results_after = sum(&|m| m.after.results.count());
            let calls: usize = c.modules.iter().map(|m| m.calls).sum();
            Profile {
                profile: c.label(),
                behaviour: String::new(),
                catalogue: CatalogueView::Captured,
                evidence: Evidence::Measured {
                    client: c.name.clone(),
                    version: c.version.clone(),
                    date: c.date.clone(),
                    fingerprint: c.fingerprint.clone(),
                },
                catalogue_before: once_before.tokens_all(),
                catalogue_after: once_after.tokens_all(),
                calls,
                per_call_before: (calls > 0).then(|| results_before.per(calls as u64)),
                per_call_after: (calls > 0).then(|| results_after.per(calls as u64)),
                per_call_percent: Delta::between(results_before, results_after)
                    .percent
                    .map(|p| p.primary),
                break_even_calls: BreakEven::of(
                    once_before,
                    once_after,
                    results_before,
                    results_after,
                    calls,
                ),
                billed_break_even_calls: BreakEven::billed(
                    once_before,
                    once_after,
                    results_before,
                    results_after,
                    calls,
                ),
            }
        })
        .collect();
    crate::report::chart::session_panels(
        "Input billed against calls, the whole server in each client (tokens, chars/2.902)",
        crate::tokens::Counter::Chars,
        &profiles,
    )
}

/// `a, b and c`.
fn list(items: &[String]) -> String {
    match items {
        [] => "nothing".into(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn quoted(items: impl IntoIterator<Item = impl AsRef<str>>) -> Vec<String> {
    items
        .into_iter()
        .map(|i| format!("`{}`", i.as_ref()))
        .collect()
}

/// The sides the report describes: before and after, and recommended when a session ran it.
fn sides(capture: &Capture) -> Vec<Side> {
    Side::ALL
        .into_iter()
        .filter(|side| {
            *side != Side::Recommended || capture.sessions.iter().any(|s| s.side == *side)
        })
        .collect()
}

/// Every session's definitions are exactly of the tools it called.
fn definitions_of_used_tools(capture: &Capture) -> bool {
    capture.sessions.iter().all(|s| {
        let defined: BTreeSet<&str> = s.definitions.iter().map(|d| d.tool.as_str()).collect();
        let used: BTreeSet<&str> = s.calls.iter().map(|c| c.tool.as_str()).collect();
        defined == used
    })
}

/// Every request of every session defines every listed tool.
fn definitions_of_every_tool(capture: &Capture) -> bool {
    capture.sessions.iter().all(|s| {
        s.definitions.len() == s.listed && s.requests.iter().all(|r| r.definitions == s.listed)
    })
}

/// What a session pays once, in a phrase (for the module reports).
fn once_phrase(capture: &Capture) -> String {
    let sessions = &capture.sessions;
    let mut parts = Vec::new();
    if sessions.iter().all(|s| !s.names.is_empty()) {
        parts.push("tool names".to_owned());
    }
    if sessions.iter().all(|s| !s.instructions.is_empty()) {
        parts.push("instructions".to_owned());
    }
    let schema = sessions
        .iter()
        .filter(|s| s.side == Side::After)
        .flat_map(|s| &s.definitions)
        .any(|d| d.carries.iter().any(|c| c == "outputSchema"));
    let schema = if schema { "with" } else { "without" };
    if definitions_of_used_tools(capture) && !definitions_of_every_tool(capture) {
        parts.push(format!(
            "definitions of the tools used ({schema} outputSchema)"
        ));
    } else {
        parts.push(format!("every tool's definition ({schema} outputSchema)"));
    }
    list(&parts)
}

/// What a session pays per call, in a phrase (for the module reports): what the fingerprint
/// says the client forwards of a result, else what the capture shows.
fn per_call_phrase(capture: &Capture, fingerprint: Option<&Fingerprint>) -> String {
    if let Some(f) = fingerprint {
        return match f.result {
            ResultForm::Text => "content[].text".into(),
            ResultForm::StructuredElseText => {
                "structuredContent as compact JSON (content[].text when a result has none)".into()
            }
            ResultForm::WholeResult => "the whole result".into(),
            ResultForm::Other => {
                "the result, in a form of the client's own (see clients.md)".into()
            }
        };
    }
    let kinds: BTreeSet<Forwarded> = capture
        .sessions
        .iter()
        .flat_map(|s| s.results.iter().map(|r| r.forwarded))
        .collect();
    match kinds.iter().copied().collect::<Vec<_>>().as_slice() {
        [Forwarded::Text] => "content[].text".into(),
        [Forwarded::Result] => "the whole result".into(),
        _ => "the result, in several forms (see clients.md)".into(),
    }
}

/// What reached the model, in sentences, from the capture and the client's fingerprint.
fn observe(capture: &Capture, fingerprint: Option<&Fingerprint>) -> Vec<String> {
    let sessions = &capture.sessions;
    let mut out = Vec::new();
    let firsts: Vec<_> = sessions.iter().filter_map(|s| s.requests.first()).collect();
    let requests: usize = sessions.iter().map(|s| s.requests.len()).sum();
    let modules: BTreeSet<&str> = sessions.iter().map(|s| s.module.as_str()).collect();
    let recommended = sessions
        .iter()
        .filter(|s| s.side == Side::Recommended)
        .count();
    out.push(format!(
        "{} sessions ({} modules, before and after{}), {requests} requests to the model.",
        sessions.len(),
        modules.len(),
        if recommended > 0 {
            format!(", {recommended} under the recommended settings")
        } else {
            String::new()
        }
    ));
    // Names.
    if firsts.iter().all(|f| f.names > 0) {
        let example = sessions
            .iter()
            .find_map(|s| s.names.first())
            .cloned()
            .unwrap_or_default();
        let all_listed = sessions.iter().all(|s| s.names.len() == s.listed);
        out.push(format!(
            "Tool names: from the first request of every session, {} of our tools by name, one line each (`{example}`), in a message of the client's own; the name list is paid once.",
            if all_listed { "every one" } else { "some" },
        ));
    } else if sessions.iter().all(|s| s.names.is_empty()) {
        out.push("Tool names: no separate list; the names are part of the definitions.".into());
    }
    // Definitions.
    let used_only = definitions_of_used_tools(capture);
    let every_listed = definitions_of_every_tool(capture);
    let none_first = firsts.iter().all(|f| f.definitions == 0);
    let kept = sessions.iter().all(|s| {
        s.requests
            .windows(2)
            .all(|w| w[0].definitions <= w[1].definitions)
    });
    if none_first && used_only && kept {
        out.push("Definitions: none in the first request; a tool's definition arrives when the session loads it and stays, so the session ends with the definitions of the tools it used, each once.".into());
    } else if every_listed {
        out.push("Definitions: every tool the server lists, in every request.".into());
    } else {
        out.push("Definitions: some of our tools, varying by request (see the capture).".into());
    }
    let keys: BTreeSet<&str> = sessions
        .iter()
        .flat_map(|s| &s.definitions)
        .filter_map(|d| d.sent.as_object())
        .flat_map(|o| o.keys().map(String::as_str))
        .collect();
    for side in sides(capture) {
        let carried: BTreeSet<&str> = sessions
            .iter()
            .filter(|s| s.side == side)
            .flat_map(|s| &s.definitions)
            .flat_map(|d| d.carries.iter().map(String::as_str))
            .collect();
        let ordered: Vec<&str> = super::extract::TOOL_FIELDS
            .into_iter()
            .filter(|f| carried.contains(f))
            .collect();
        let with_schema: usize = sessions
            .iter()
            .filter(|s| s.side == side)
            .flat_map(|s| &s.definitions)
            .filter(|d| d.carries.iter().any(|c| c == "outputSchema"))
            .count();
        let definitions: usize = sessions
            .iter()
            .filter(|s| s.side == side)
            .map(|s| s.definitions.len())
            .sum();
        out.push(format!(
            "Fields of our tools the definitions carry, {}: {} (outputSchema in {with_schema} of {definitions} definitions).",
            side.as_str(),
            list(&quoted(ordered)),
        ));
    }
    out.push(format!(
        "Definition keys as the client sends them: {}.",
        list(&quoted(keys))
    ));
    // Results: which part the client reads is the fingerprint's to say; ours cannot tell text
    // from structuredContent, whose compact JSON our migrated text is.
    if let Some(f) = fingerprint {
        let file = super::Client::from_id(&capture.header.client)
            .map(super::Client::fingerprint_file)
            .unwrap_or_default();
        out.push(format!(
            "What of a result with both text and structuredContent reaches the model, from the fingerprint ([{file}]({file})): {}{}.",
            match f.result {
                ResultForm::Text => "content[].text",
                ResultForm::StructuredElseText =>
                    "the compact JSON of structuredContent, without the text (content[].text only when a result has no structuredContent)",
                ResultForm::WholeResult => "the whole result, text and structuredContent",
                ResultForm::Other => "neither as such (see the matrix)",
            },
            if f.error_flag {
                "; an `isError` result in a form of its own"
            } else {
                "; an `isError` result in the shape of a success"
            }
        ));
        out.push(if f.cache_marks.any() {
            format!(
                "Prompt-cache breakpoints, from the fingerprint: marked (`cache_control` on {}), so what the previous request already sent is billed at the cache-read rate: the bill lies between the final context and the billed input.",
                list(&quoted(&f.cache_marks.paths))
            )
        } else {
            "Prompt-cache breakpoints, from the fingerprint: none marked; the billed input is the bill unless the provider caches on its own.".to_owned()
        });
    }
    let mut kinds: BTreeMap<(Side, Forwarded), usize> = BTreeMap::new();
    for s in sessions {
        for r in &s.results {
            *kinds.entry((s.side, r.forwarded)).or_default() += 1;
        }
    }
    for side in sides(capture) {
        let of_side: Vec<String> = kinds
            .iter()
            .filter(|((s, _), _)| *s == side)
            .map(|((_, kind), n)| format!("{} for {n} calls", kind.describe()))
            .collect();
        out.push(format!(
            "Results as sent, {}: {}.",
            side.as_str(),
            list(&of_side)
        ));
    }
    // Instructions.
    let copies: BTreeSet<usize> = sessions.iter().map(|s| s.instructions.len()).collect();
    out.push(
        match copies.iter().copied().collect::<Vec<_>>().as_slice() {
            [0] => "Our server's instructions: not forwarded.".into(),
            [1] => {
                "Our server's instructions: once per session, in the client's own prompt.".into()
            }
            other => format!("Our server's instructions: {other:?} copies per session."),
        },
    );
    out
}

/// The report over every capture given (`(path relative to the reports directory, capture)`),
/// each with its client's fingerprint among `fingerprints` when there is one, sorted by client
/// id.
pub fn build(
    captures: &[(String, Capture)],
    fingerprints: &[Fingerprint],
) -> Result<ClientsReport, PriceError> {
    let mut clients = captures
        .iter()
        .map(|(path, c)| {
            // A fingerprint of another version says nothing of this one.
            let fingerprint = fingerprints.iter().find(|f| {
                f.subject.client == c.header.client && f.subject.version == c.header.version
            });
            client_report(c, path, fingerprint)
        })
        .collect::<Result<Vec<_>, _>>()?;
    clients.sort_by(|a, b| a.client.cmp(&b.client));
    Ok(ClientsReport {
        format: FORMAT.into(),
        counters: Counters::default(),
        clients,
    })
}

/// `clients.json`.
pub fn json(report: &ClientsReport) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

/// A break-even as the reports print it in the three counters: chars/2.902 (in bold when
/// `bold`, the headline), o200k_base, cl100k_base.
pub(crate) fn by_counter(b: &BreakEven, bold: bool) -> String {
    let primary = calls(b.primary);
    let primary = if bold {
        format!("**{primary}**")
    } else {
        primary
    };
    format!(
        "{primary} / {} / {}",
        calls(b.o200k_base),
        calls(b.cl100k_base)
    )
}

/// A number of calls, or `never`.
pub(crate) fn calls(n: Option<u64>) -> String {
    n.map_or("never".into(), |n| n.to_string())
}

/// `before → after`, in tokens.
pub(crate) fn arrow(before: &Tokens, after: &Tokens) -> String {
    format!("{} → {}", tok(before), tok(after))
}

/// A client's per-call figures by expected outcome, the rows its all-calls column averages.
fn by_outcome(client: &ClientReport) -> String {
    const OUTCOMES: [(&str, &str); 3] = [
        ("success", "successes"),
        ("error", "errors"),
        ("control", "controls (refusals)"),
    ];
    if client.modules.iter().all(|m| m.outcomes.is_empty()) {
        return String::new();
    }
    let mut columns = vec![("module", Left)];
    columns.extend(OUTCOMES.iter().map(|(_, name)| (*name, Right)));
    let mut table = Table::new(&columns);
    for m in &client.modules {
        let mut row = vec![m.module.clone()];
        row.extend(OUTCOMES.iter().map(|(outcome, _)| {
            m.outcomes
                .iter()
                .find(|o| o.outcome == *outcome)
                .map_or("—".to_owned(), |o| {
                    format!(
                        "{}: {} → {} ({})",
                        o.calls,
                        num(o.per_call_before.primary, 1),
                        num(o.per_call_after.primary, 1),
                        o.per_call_percent
                            .map_or("n/a".into(), |p| format!("{}%", signed(p, 1)))
                    )
                })
        }));
        table.row(row.into_iter().map(Into::into));
    }
    format!(
        "Per call by the outcome the call expects (calls: mean result before → after, chars/2.902), the rows the per-call column above averages:\n\n{}\n",
        table.into_text()
    )
}

/// `clients.md`; `not_run` lists clients that could not be run, with why.
pub fn markdown(report: &ClientsReport, not_run: &[(String, String)]) -> String {
    let mut out = String::from("# What real clients put in the model's context\n\n");
    out.push_str(
        "Generated by `make clients` (`modyo-lab clients`) from the captures under `clients/`; do not edit by hand. \
Each client ran headless and offline, with our offline server (`modyo-lab serve`, one module at a time, legacy \"before\" and migrated \"after\") \
and a model API replaced by the lab's capture endpoint on a loopback port, whose scripted model loads the tools the way the client requires, \
calls every scenario of the module's cassettes that gets the answer it expects on both sides (successes, errors and refusals alike: they are turns too) with the scenario's arguments, one call per turn, then stops. \
From the last request of each session (the context it ended with) only our server's parts are kept: the lines naming our tools, our instructions, \
our tools' definitions and the results of our calls, as the client sent them; the rest is the client's own prompt. \
Figures are tokens at 2.902 characters per token (`chars/2.902`, the primary counter) unless named otherwise; `clients.json` also gives `o200k_base` and `cl100k_base`.\n\n\
Once per session: names, instructions and definitions; per call: the result as forwarded. Text is priced as text, anything else as the compact JSON the client sent. \
**Billed input** is what the client sent of ours summed over the session's requests (each request re-sends the names, instructions and definitions it carries and every result so far), \
counted from the shape of every captured request; **final context** is what the last request carried. Of the billed input, the part the previous request already sent is a repeated prefix: \
a client that marks prompt-cache breakpoints (Anthropic's `cache_control`) is billed it at the cache-read rate, so its bill lies between the final context (everything cached) and the billed input (nothing cached). \
Break-even is the number of calls after which the migrated session costs less than the legacy one (0: from the first call; never: the migrated calls are not cheaper), \
by billed input (the headline; the once-paid parts counted in every request) and by final context.\n\n",
    );
    for client in &report.clients {
        let _ = writeln!(
            out,
            "## {}\n\n{} `{}` {}, captured {} ([capture]({})). How it ran: {}\n\nWhat reached the model from our server:\n",
            client.label(),
            super::Client::from_id(&client.client).map_or("npm", super::Client::registry),
            client.package,
            client.version,
            client.date,
            client.capture,
            client.method
        );
        for line in &client.observed {
            let _ = writeln!(out, "- {line}");
        }
        let mut table = Table::new(&[
            ("module", Left),
            ("calls (tools)", Right),
            ("names", Right),
            ("instructions", Right),
            ("definitions before → after", Right),
            ("once before → after", Right),
            ("per call before → after", Right),
            ("change per call", Right),
            ("final context before → after", Right),
            ("billed input before → after (repeated prefix after)", Right),
            (
                "break-even by billed input (chars/2.902 / o200k_base / cl100k_base)",
                Right,
            ),
            ("by final context", Right),
        ]);
        for m in &client.modules {
            table.row([
                m.module.as_str().into(),
                format!("{} ({})", m.calls, m.tools_used).into(),
                arrow(&m.before.names, &m.after.names).into(),
                arrow(&m.before.instructions, &m.after.instructions).into(),
                arrow(&m.before.definitions, &m.after.definitions).into(),
                arrow(&m.before.once, &m.after.once).into(),
                format!(
                    "{} → {}",
                    num(m.per_call_before.primary, 1),
                    num(m.per_call_after.primary, 1)
                )
                .into(),
                m.per_call_percent
                    .map_or("n/a".into(), |p| format!("{}%", signed(p, 1)))
                    .into(),
                format!(
                    "{} ({})",
                    arrow(&m.before.total, &m.after.total),
                    session_delta(&m.delta)
                )
                .into(),
                format!(
                    "{} ({})",
                    arrow(&m.before.billed, &m.after.billed),
                    tok(&m.after.repeated)
                )
                .into(),
                by_counter(&m.billed_break_even_calls, true).into(),
                by_counter(&m.break_even_calls, false).into(),
            ]);
        }
        out.push('\n');
        out.push_str(&table.into_text());
        out.push('\n');
        out.push_str(&super::report_recommended::section(client));
        out.push_str(&by_outcome(client));
    }
    if report.clients.iter().any(|c| !c.modules.is_empty()) {
        out.push_str(
            "## Billed input against calls, per client\n\nEach panel is one client with every module registered (the once-paid parts of the five sessions summed, \
the mean call over all of them): what a session bills of ours as it grows, before and after, on axes all panels share.\n\n![billed input against calls, per client](clients-billed.svg)\n\n",
        );
    }
    for (client, why) in not_run {
        let _ = writeln!(out, "## {client}: not measured\n\n{why}\n");
    }
    let left_out: BTreeSet<(&str, &LeftOut)> = report
        .clients
        .iter()
        .flat_map(|c| &c.modules)
        .flat_map(|m| m.left_out.iter().map(move |l| (m.module.as_str(), l)))
        .collect();
    if !left_out.is_empty() {
        out.push_str(
            "## Scenarios the sessions did not call

",
        );
        for (module, l) in left_out {
            let _ = writeln!(out, "- {module} `{}`: {}", l.scenario, l.why);
        }
    }
    out
}

fn session_delta(d: &SessionDelta) -> String {
    let percent = d.percent.map(|p| format!(", {}%", signed(p, 1)));
    let base = Delta {
        chars: d.chars,
        primary: d.primary,
        o200k_base: d.o200k_base,
        cl100k_base: d.cl100k_base,
        percent: None,
    };
    format!("{}{}", delta(&base), percent.unwrap_or_default())
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
