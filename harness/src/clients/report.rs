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

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capture::{Capture, LeftOut, Outcome, Session, Side};
use super::fingerprint::Fingerprint;
use super::observe::{observe, once_phrase, per_call_phrase};
pub use super::report_markdown::markdown;
pub(crate) use super::report_markdown::{arrow, by_counter, calls};
pub use super::report_recommended::{RecommendedFigures, RecommendedProfile, RecommendedSession};
use crate::report::{BreakEven, CatalogueView, Counters, Evidence, Profile};
use crate::tokens::{Count, Delta, PerUnit, Tokens};

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

    /// The evidence behind a profile priced from this client's capture.
    pub fn evidence(&self) -> Evidence {
        Evidence::Measured {
            client: self.name.clone(),
            version: self.version.clone(),
            date: self.date.clone(),
            fingerprint: self.fingerprint.clone(),
        }
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
/// five sessions summed, the calls' mean over all of them), panels on shared axes. A client
/// recommended other settings than the defaults, with a session under them in every module,
/// has a second panel right after its own: the same legacy session against the migrated one
/// under those settings.
pub fn billed_chart(report: &ClientsReport) -> Option<String> {
    let profiles: Vec<Profile> = report
        .clients
        .iter()
        .filter(|c| !c.modules.is_empty())
        .flat_map(|c| {
            let sum = |f: &dyn Fn(&ModuleProfile) -> Count| c.modules.iter().map(f).sum::<Count>();
            let before = (
                sum(&|m| m.before.once.count()),
                sum(&|m| m.before.results.count()),
            );
            let after = (
                sum(&|m| m.after.once.count()),
                sum(&|m| m.after.results.count()),
            );
            let both = whole_server(c, c.label(), before, after);
            let recommended = recommended_sums(c).map(|(settings, under)| {
                whole_server(
                    c,
                    format!("{} (recommended: {settings})", c.label()),
                    before,
                    under,
                )
            });
            std::iter::once(both).chain(recommended)
        })
        .collect();
    crate::report::chart::session_panels(
        "Input billed against calls, the whole server in each client (tokens, chars/2.902)",
        crate::tokens::Counter::Chars,
        &profiles,
    )
}

/// The settings recommended for `client` and, summed over its modules, what the migrated
/// sessions under them paid once and in results; `None` unless every module has its own
/// session under the same settings (a recommendation of the defaults is the client's own
/// panel already; sessions under different settings do not add up to one).
fn recommended_sums(client: &ClientReport) -> Option<(String, (Count, Count))> {
    let mut settings: Option<&str> = None;
    let (mut once, mut results) = (Count::default(), Count::default());
    for m in &client.modules {
        let r = m.recommended.as_ref()?;
        let f = r.figures.as_ref()?;
        if r.session != RecommendedSession::Recommended
            || *settings.get_or_insert(&r.settings) != r.settings
        {
            return None;
        }
        once += f.once_after.count();
        results += f.results_after.count();
    }
    Some((settings?.to_owned(), (once, results)))
}

/// One panel of the billed chart: the whole server in `client`, the legacy side's and a
/// migrated side's once-paid parts and results, each summed over the modules.
fn whole_server(
    client: &ClientReport,
    profile: String,
    before: (Count, Count),
    after: (Count, Count),
) -> Profile {
    let calls: usize = client.modules.iter().map(|m| m.calls).sum();
    Profile::priced(
        profile,
        String::new(),
        CatalogueView::Captured,
        client.evidence(),
        before,
        after,
        calls,
    )
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

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
