//! The clients report: each capture priced with the lab's counters, per module, before and
//! after, with the break-even; rendered as `reports/clients.json` and `reports/clients.md`.
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

use super::capture::{Capture, Forwarded, LeftOut, Session, Side};
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
    /// What reached the model, in words, derived from the capture.
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
fn priced(sent: &Value) -> Count {
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

struct Priced {
    once: Count,
    results: Count,
    cost: SessionCost,
}

fn price(session: &Session) -> Priced {
    let names = Count::of(&session.names.join("\n"));
    let instructions: Count = session.instructions.iter().map(|i| Count::of(i)).sum();
    let definitions: Vec<Count> = session
        .definitions
        .iter()
        .map(|d| Count::of(&d.sent.to_string()))
        .collect();
    let results: Vec<Count> = session.results.iter().map(|r| priced(&r.sent)).collect();
    let once = names + instructions + definitions.iter().copied().sum::<Count>();
    let all_results: Count = results.iter().copied().sum();
    let billed = billed(session, names, instructions, &definitions, &results);
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
/// names, definitions (the first ones, in arrival order) and results (the first ones) it
/// held; our instructions are counted in every request of a session that carried them.
fn billed(
    session: &Session,
    names: Count,
    instructions: Count,
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
    let (defs, res) = (prefix(definitions), prefix(results));
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
                + instructions
                + defs[shape.definitions.min(definitions.len())]
                + res[shape.results.min(results.len())]
        })
        .sum()
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

/// Prices one capture (found at `capture` relative to the reports directory).
pub fn client_report(capture: &Capture, path: &str) -> Result<ClientReport, PriceError> {
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
        observed: observe(capture),
        once: once_phrase(capture),
        per_call: per_call_phrase(capture),
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

/// What a session pays per call, in a phrase (for the module reports).
fn per_call_phrase(capture: &Capture) -> String {
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

/// What reached the model, in sentences, from the capture alone.
fn observe(capture: &Capture) -> Vec<String> {
    let sessions = &capture.sessions;
    let mut out = Vec::new();
    let firsts: Vec<_> = sessions.iter().filter_map(|s| s.requests.first()).collect();
    let requests: usize = sessions.iter().map(|s| s.requests.len()).sum();
    out.push(format!(
        "{} sessions ({} modules, before and after), {requests} requests to the model.",
        sessions.len(),
        sessions.len() / 2
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
    for side in Side::BOTH {
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
    // Results.
    let mut kinds: BTreeMap<(Side, Forwarded), usize> = BTreeMap::new();
    for s in sessions {
        for r in &s.results {
            *kinds.entry((s.side, r.forwarded)).or_default() += 1;
        }
    }
    for side in Side::BOTH {
        let of_side: Vec<String> = kinds
            .iter()
            .filter(|((s, _), _)| *s == side)
            .map(|((_, kind), n)| format!("{} for {n} calls", kind.describe()))
            .collect();
        out.push(format!(
            "Results forwarded, {}: {}.",
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
/// sorted by client id.
pub fn build(captures: &[(String, Capture)]) -> Result<ClientsReport, PriceError> {
    let mut clients = captures
        .iter()
        .map(|(path, c)| client_report(c, path))
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

fn calls(n: Option<u64>) -> String {
    n.map_or("never".into(), |n| n.to_string())
}

fn arrow(before: &Tokens, after: &Tokens) -> String {
    format!("{} → {}", tok(before), tok(after))
}

/// `clients.md`; `not_run` lists clients that could not be run, with why.
pub fn markdown(report: &ClientsReport, not_run: &[(String, String)]) -> String {
    let mut out = String::from("# What real clients put in the model's context\n\n");
    out.push_str(
        "Generated by `make clients` (`modyo-lab clients`) from the captures under `clients/`; do not edit by hand. \
Each client ran headless and offline, with our offline server (`modyo-lab serve`, one module at a time, legacy \"before\" and migrated \"after\") \
and a model API replaced by the lab's capture endpoint on a loopback port, whose scripted model loads the tools the way the client requires, \
calls every scenario of the module's cassettes that succeeds on both sides with the scenario's arguments, one call per turn, then stops. \
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
            "## {}\n\nnpm `{}` {}, captured {} ([capture]({})). How it ran: {}\n\nWhat reached the model from our server:\n",
            client.label(),
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
                format!(
                    "**{}** / {} / {}",
                    calls(m.billed_break_even_calls.primary),
                    calls(m.billed_break_even_calls.o200k_base),
                    calls(m.billed_break_even_calls.cl100k_base)
                )
                .into(),
                format!(
                    "{} / {} / {}",
                    calls(m.break_even_calls.primary),
                    calls(m.break_even_calls.o200k_base),
                    calls(m.break_even_calls.cl100k_base)
                )
                .into(),
            ]);
        }
        out.push('\n');
        out.push_str(&table.into_text());
        out.push('\n');
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
mod tests {
    use super::*;
    use crate::clients::capture::{Call, Definition, Header, Result as Sent, Shape};
    use serde_json::json;

    fn session(side: Side, definition: &str, results: &[&str]) -> Session {
        Session {
            module: "widgets".into(),
            side,
            listed: 2,
            left_out: vec![LeftOut {
                scenario: "widgets/x#y".into(),
                why: "because".into(),
            }],
            calls: results
                .iter()
                .enumerate()
                .map(|(i, _)| Call {
                    scenario: format!("widgets/p#{i}"),
                    tool: "widgets-list-patterns".into(),
                    arguments: json!({}),
                })
                .collect(),
            requests: vec![Shape {
                names: 2,
                definitions: 0,
                results: 0,
            }],
            names: vec!["mcp__s__a".into(), "mcp__s__b".into()],
            instructions: vec!["Hi.".into()],
            definitions: vec![Definition {
                tool: "widgets-list-patterns".into(),
                carries: vec!["description".into()],
                sent: json!({"description": definition}),
            }],
            results: results
                .iter()
                .enumerate()
                .map(|(i, r)| Sent {
                    call: i,
                    tool: "widgets-list-patterns".into(),
                    forwarded: Forwarded::Text,
                    sent: json!(r),
                })
                .collect(),
        }
    }

    fn capture(before: Session, after: Session) -> Capture {
        Capture {
            header: Header {
                format: crate::clients::capture::FORMAT.into(),
                client: "claude-code".into(),
                name: "Claude Code".into(),
                package: "p".into(),
                version: "1".into(),
                date: "2026-12-01".into(),
                server: "s".into(),
            },
            sessions: vec![before, after],
        }
    }

    #[test]
    fn a_session_is_priced_once_for_names_instructions_definitions_and_per_call_for_results() {
        let before = session(Side::Before, "d", &["0123456789", "0123456789"]);
        let after = session(Side::After, "longer description", &["01234", "01234"]);
        let report = client_report(&capture(before, after), "clients/x.jsonl").expect("prices");
        let m = &report.modules[0];
        // names: "mcp__s__a\nmcp__s__b" = 19; instructions 3; definition {"description":"d"} = 19.
        assert_eq!(m.before.names.chars, 19);
        assert_eq!(m.before.instructions.chars, 3);
        assert_eq!(m.before.definitions.chars, 19);
        assert_eq!(m.before.once.chars, 41);
        assert_eq!(m.after.definitions.chars, 36);
        assert_eq!((m.before.results.chars, m.after.results.chars), (20, 10));
        assert_eq!(m.per_call_after.chars, 5.0);
        // +17 once, -5 per call: 4 calls pay it back.
        assert_eq!(m.break_even_calls.primary, Some(4));
        assert_eq!(m.delta.chars, 7);
        assert_eq!(m.left_out.len(), 1);
        // One request in the capture (names, instructions, nothing loaded): billed 19 + 3.
        assert_eq!(m.before.billed.chars, 22);
        // +17 once, -5 per call: the bill pays it back at 7 calls (each request re-sends it).
        assert_eq!(m.billed_break_even_calls.primary, Some(7));
    }

    #[test]
    fn the_bill_sums_what_every_request_carried() {
        let mut s = session(Side::Before, "d", &["0123456789", "01234"]);
        // Request 1: names only; 2: the definition loaded; 3: one result; 4: both results.
        s.requests = vec![
            Shape {
                names: 2,
                definitions: 0,
                results: 0,
            },
            Shape {
                names: 2,
                definitions: 1,
                results: 0,
            },
            Shape {
                names: 2,
                definitions: 1,
                results: 1,
            },
            Shape {
                names: 2,
                definitions: 1,
                results: 2,
            },
        ];
        let priced = price(&s).cost;
        // names 19 + instructions 3 in each of 4 requests; the definition (19) in 3; the first
        // result (10) in 2; the second (5) in 1.
        assert_eq!(priced.billed.chars, 4 * 22 + 3 * 19 + 2 * 10 + 5);
        // The last request is the final context; the rest the previous requests already sent.
        assert_eq!(priced.total.chars, 22 + 19 + 15);
        assert_eq!(
            priced.repeated.chars,
            priced.billed.chars - priced.total.chars
        );
    }

    #[test]
    fn text_blocks_are_priced_as_text_and_objects_as_compact_json() {
        assert_eq!(priced(&json!("abc")).chars, 3);
        assert_eq!(
            priced(&json!([{"type": "text", "text": "ab"}, {"type": "text", "text": "c"}])).chars,
            3
        );
        assert_eq!(priced(&json!({"a": 1})).chars, 7);
    }

    #[test]
    fn sessions_that_made_different_calls_are_not_compared() {
        let before = session(Side::Before, "d", &["a"]);
        let after = session(Side::After, "d", &["a", "b"]);
        assert!(matches!(
            client_report(&capture(before.clone(), after), "x"),
            Err(PriceError::DifferentCalls { .. })
        ));
        let mut lonely = capture(before.clone(), before);
        lonely.sessions.pop();
        assert!(matches!(
            client_report(&lonely, "x"),
            Err(PriceError::MissingSide { side: "after", .. })
        ));
    }

    #[test]
    fn the_observations_and_the_markdown_come_from_the_capture() {
        let report = build(&[(
            "clients/claude-code.jsonl".into(),
            capture(
                session(Side::Before, "d", &["abc"]),
                session(Side::After, "e", &["ab"]),
            ),
        )])
        .expect("builds");
        let md = markdown(&report, &[("Other".into(), "could not run.".into())]);
        assert!(md.contains("## Claude Code 1\n"), "{md}");
        assert!(md.contains("every one of our tools by name"), "{md}");
        assert!(md.contains("content[].text only for 1 calls"), "{md}");
        assert!(md.contains("once per session"), "{md}");
        assert!(md.contains("- widgets `widgets/x#y`: because"), "{md}");
        assert!(
            md.contains("## Other: not measured\n\ncould not run."),
            "{md}"
        );
        let back: ClientsReport = serde_json::from_str(&json(&report)).expect("reads back");
        assert_eq!(back.clients[0].modules[0].calls, 1);
    }
}
