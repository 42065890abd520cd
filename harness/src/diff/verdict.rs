//! The token verdict of a change: a short table a reviewer reads in a pull request, from the
//! reports of the base and the head (what `modyo-lab measure` writes for each), then the tools
//! that moved most, worst first, then what did not move.
//!
//! Every figure is of the migrated side (what the server answers now): the catalogue in
//! context and on the wire, the output schema per tool, the mean `content[].text` per call by
//! outcome, and for each client profile the break-even by billed input of each module, base
//! against head. For two foreign builds measured as one report (base "before", head "after"),
//! the same rows come from the report's two sides, and the break-even rows are the head's
//! against the base's.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::limits::{Amount, Limit};
use crate::report::ModuleReport;
use crate::tokens::{Counter, grouped};

/// A figure that moved by less than this many tokens is counted, not listed, by default.
pub const DEFAULT_THRESHOLD: f64 = 0.5;

/// The verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// What the base is (a revision, a command).
    pub base: String,
    /// What the head is.
    pub head: String,
    /// The counter the figures are in.
    pub counter: Counter,
    /// A move smaller than this (tokens) is not listed.
    pub threshold: f64,
    /// The headline rows, in order.
    pub rows: Vec<Row>,
    /// The tools that moved most, worst first.
    pub tools: Vec<ToolMove>,
    /// How many tools moved at all (`tools` lists the first few).
    pub tools_moved: usize,
    /// Figures that moved by less than the threshold.
    pub small_moves: usize,
}

/// One headline figure, base and head.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// What it is.
    pub figure: String,
    /// A key for `--fail-on` (`catalogue`, `wire`, `schema`, `per-call`, `successes`,
    /// `errors`; empty for rows it cannot name).
    pub key: &'static str,
    /// At the base.
    pub base: Option<f64>,
    /// At the head.
    pub head: Option<f64>,
    /// The text shown for base and head when they are not tokens (break-even calls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown: Option<(String, String)>,
    /// Context for the rows that moved (shown with them, never a move itself): the
    /// break-even of a foreign head against its base.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub context: bool,
}

impl Row {
    /// Head minus base, when both exist.
    pub fn change(&self) -> Option<f64> {
        Some(self.head? - self.base?)
    }

    /// The change in percent of the base.
    pub fn percent(&self) -> Option<f64> {
        let base = self.base?;
        (base > 0.0).then(|| self.change().unwrap_or(0.0) * 100.0 / base)
    }

    fn moved(&self, threshold: f64) -> bool {
        if self.context {
            return false;
        }
        match (&self.shown, self.change()) {
            (Some((b, h)), _) => b != h,
            (None, Some(c)) => c.abs() >= threshold,
            (None, None) => self.base.is_some() != self.head.is_some(),
        }
    }
}

/// One tool, base and head.
#[derive(Debug, Clone, Serialize)]
pub struct ToolMove {
    /// The tool.
    pub tool: String,
    /// Its definition on the wire (none: not listed).
    pub wire: (Option<f64>, Option<f64>),
    /// Its mean `content[].text` per call over its scenarios (none: not called).
    pub per_call: (Option<f64>, Option<f64>),
}

impl ToolMove {
    fn weight(&self) -> f64 {
        self.change().abs()
    }

    /// The larger of its two changes (definition on the wire, text per call), with its sign:
    /// positive when the tool grew.
    fn change(&self) -> f64 {
        let d = |(b, h): (Option<f64>, Option<f64>)| h.unwrap_or(0.0) - b.unwrap_or(0.0);
        let (wire, call) = (d(self.wire), d(self.per_call));
        if wire.abs() >= call.abs() { wire } else { call }
    }
}

/// One side as the verdict reads it: per tool, and the headline figures.
#[derive(Debug, Default)]
struct Figures {
    context: f64,
    wire: f64,
    schema_per_tool: Option<f64>,
    by_outcome: BTreeMap<String, (usize, f64)>,
    break_even: BTreeMap<String, BTreeMap<String, Option<u64>>>,
    tools: BTreeMap<String, (Option<f64>, Option<f64>)>,
}

/// The migrated side of our module reports (one per module).
fn ours(k: Counter, reports: &[ModuleReport]) -> Figures {
    let mut f = Figures::default();
    let mut schema = (0.0, 0usize);
    for r in reports {
        let c = &r.catalogue;
        f.context += k.tokens(&c.context_after);
        f.wire += k.tokens(&c.wire_after);
        if let Some(p) = c.by_slot_after.output_schema_per_tool {
            schema.0 += k.per(&p) * c.tools_after as f64;
            schema.1 += c.tools_after;
        }
        for row in &r.summary.by_outcome {
            if let Some(after) = row.text_after {
                let e = f.by_outcome.entry(row.outcome.clone()).or_default();
                e.0 += row.calls;
                e.1 += k.per(&after) * row.calls as f64;
            }
        }
        for p in &r.profiles {
            f.break_even
                .entry(p.profile.clone())
                .or_default()
                .insert(r.module.clone(), p.billed_break_even_calls.under(k));
        }
        for t in &r.tools {
            f.tools.insert(
                t.tool.clone(),
                (
                    t.after.map(|d| k.tokens(&d.wire)),
                    t.text_per_call_after.map(|p| k.per(&p)),
                ),
            );
        }
    }
    f.schema_per_tool = (schema.1 > 0).then(|| schema.0 / schema.1 as f64);
    f
}

/// The verdict of our server: `base` and `head` are each build's module reports.
pub fn of_builds(
    base_label: &str,
    head_label: &str,
    base: &[ModuleReport],
    head: &[ModuleReport],
    threshold: f64,
) -> Verdict {
    let k = Counter::Chars;
    let (b, h) = (ours(k, base), ours(k, head));
    let mut rows = headline(&b, &h);
    let profiles: Vec<&String> = {
        let mut names: Vec<&String> = b.break_even.keys().chain(h.break_even.keys()).collect();
        names.sort();
        names.dedup();
        names
    };
    for profile in profiles {
        let shown = |side: &Figures| {
            side.break_even.get(profile).map_or("—".to_owned(), |by| {
                by.iter()
                    .map(|(m, n)| format!("{m} {}", n.map_or("never".into(), |n| n.to_string())))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
        };
        rows.push(Row {
            figure: format!("break-even by billed input, `{profile}` (calls, per module)"),
            key: "",
            base: None,
            head: None,
            shown: Some((shown(&b), shown(&h))),
            context: false,
        });
    }
    finish(
        base_label, head_label, k, rows, &b.tools, &h.tools, threshold,
    )
}

/// The verdict of two foreign builds measured as one report (base before, head after).
pub fn of_report(
    base_label: &str,
    head_label: &str,
    report: &ModuleReport,
    threshold: f64,
) -> Verdict {
    let k = report.counters.headline;
    let c = &report.catalogue;
    let side = |after: bool| {
        let mut f = Figures {
            context: k.tokens(if after {
                &c.context_after
            } else {
                &c.context_before
            }),
            wire: k.tokens(if after { &c.wire_after } else { &c.wire_before }),
            schema_per_tool: if after {
                c.by_slot_after.output_schema_per_tool
            } else {
                c.by_slot_before.output_schema_per_tool
            }
            .map(|p| k.per(&p)),
            ..Figures::default()
        };
        for row in &report.summary.by_outcome {
            let mean = if after {
                row.text_after
            } else {
                row.text_before
            };
            if let Some(mean) = mean {
                f.by_outcome.insert(
                    row.outcome.clone(),
                    (row.calls, k.per(&mean) * row.calls as f64),
                );
            }
        }
        for t in &report.tools {
            let (def, call) = if after {
                (t.after, t.text_per_call_after)
            } else {
                (t.before, t.text_per_call_before)
            };
            f.tools.insert(
                t.tool.clone(),
                (def.map(|d| k.tokens(&d.wire)), call.map(|p| k.per(&p))),
            );
        }
        f
    };
    let (b, h) = (side(false), side(true));
    let mut rows = headline(&b, &h);
    let shown = report
        .profiles
        .iter()
        .map(|p| {
            format!(
                "{} {}",
                p.profile,
                p.billed_break_even_calls
                    .under(k)
                    .map_or("never".into(), |n| n.to_string())
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    rows.push(Row {
        figure: "break-even of the head against the base, by billed input (calls, per profile)"
            .into(),
        key: "",
        base: None,
        head: None,
        shown: Some(("—".into(), shown)),
        context: true,
    });
    finish(
        base_label, head_label, k, rows, &b.tools, &h.tools, threshold,
    )
}

fn headline(b: &Figures, h: &Figures) -> Vec<Row> {
    let mut rows = vec![
        Row {
            figure: "catalogue in context".into(),
            key: "catalogue",
            base: Some(b.context),
            head: Some(h.context),
            shown: None,
            context: false,
        },
        Row {
            figure: "catalogue on the wire".into(),
            key: "wire",
            base: Some(b.wire),
            head: Some(h.wire),
            shown: None,
            context: false,
        },
        Row {
            figure: "output schema per tool".into(),
            key: "schema",
            base: b.schema_per_tool,
            head: h.schema_per_tool,
            shown: None,
            context: false,
        },
    ];
    for (outcome, key, what) in [
        ("success", "successes", "per call, successes"),
        ("error", "errors", "per call, errors"),
        ("control", "", "per call, refusals"),
        ("all", "per-call", "per call, all calls"),
    ] {
        let mean = |f: &Figures| {
            f.by_outcome
                .get(outcome)
                .filter(|(n, _)| *n > 0)
                .map(|(n, sum)| (*n, sum / *n as f64))
        };
        let (mb, mh) = (mean(b), mean(h));
        if mb.is_none() && mh.is_none() {
            continue;
        }
        let calls = |m: Option<(usize, f64)>| m.map_or(0, |m| m.0);
        rows.push(Row {
            figure: if calls(mb) == calls(mh) {
                format!(
                    "{what} ({} call{})",
                    calls(mh),
                    if calls(mh) == 1 { "" } else { "s" }
                )
            } else {
                format!("{what} ({} → {} calls)", calls(mb), calls(mh))
            },
            key,
            base: mb.map(|m| m.1),
            head: mh.map(|m| m.1),
            shown: None,
            context: false,
        });
    }
    rows
}

fn finish(
    base: &str,
    head: &str,
    counter: Counter,
    rows: Vec<Row>,
    base_tools: &BTreeMap<String, (Option<f64>, Option<f64>)>,
    head_tools: &BTreeMap<String, (Option<f64>, Option<f64>)>,
    threshold: f64,
) -> Verdict {
    let mut names: Vec<&String> = base_tools.keys().chain(head_tools.keys()).collect();
    names.sort();
    names.dedup();
    let mut tools: Vec<ToolMove> = names
        .into_iter()
        .map(|name| {
            let (bw, bc) = base_tools.get(name).copied().unwrap_or_default();
            let (hw, hc) = head_tools.get(name).copied().unwrap_or_default();
            ToolMove {
                tool: name.clone(),
                wire: (bw, hw),
                per_call: (bc, hc),
            }
        })
        .filter(|t| t.weight() >= threshold || t.wire.0.is_some() != t.wire.1.is_some())
        .collect();
    // Worst first: the tools that grew, largest growth first, then those that shrank, largest
    // saving first.
    tools.sort_by(|a, b| {
        let grew = |t: &ToolMove| t.change() > 0.0;
        grew(b)
            .cmp(&grew(a))
            .then(b.weight().total_cmp(&a.weight()))
            .then(a.tool.cmp(&b.tool))
    });
    let tools_moved = tools.len();
    tools.truncate(TOOLS_SHOWN);
    let small_moves = rows
        .iter()
        .filter(|r| r.change().is_some_and(|c| c != 0.0) && !r.moved(threshold))
        .count();
    Verdict {
        base: base.into(),
        head: head.into(),
        counter,
        threshold,
        rows,
        tools,
        tools_moved,
        small_moves,
    }
}

/// The most tools a verdict lists.
const TOOLS_SHOWN: usize = 5;

fn tokens(x: Option<f64>) -> String {
    x.map_or("—".into(), |x| grouped(x, 1))
}

fn change(row: &Row) -> String {
    match (row.change(), row.percent()) {
        (Some(c), Some(p)) => format!("{} ({}%)", signed(c), signed(p)),
        (Some(c), None) => signed(c),
        _ => "—".into(),
    }
}

fn signed(x: f64) -> String {
    let x = crate::tokens::round1(x);
    if x > 0.0 {
        format!("+{}", grouped(x, 1))
    } else {
        grouped(x, 1)
    }
}

impl Verdict {
    /// Whether anything moved by at least the threshold.
    pub fn moved(&self) -> bool {
        self.tools_moved > 0 || self.rows.iter().any(|r| r.moved(self.threshold))
    }

    /// The Markdown a reviewer reads (about twenty lines).
    pub fn markdown(&self) -> String {
        let mut out = format!("### Token verdict: {} against {}\n\n", self.head, self.base);
        if !self.moved() {
            let _ = writeln!(
                out,
                "Nothing moved: every figure is within {} token(s) of the base ({}).",
                grouped(self.threshold, 1),
                self.counter.name()
            );
            return out;
        }
        let _ = writeln!(
            out,
            "| figure ({}) | base | head | change |\n|---|---:|---:|---:|",
            self.counter.name()
        );
        for row in self
            .rows
            .iter()
            .filter(|r| r.moved(self.threshold) || r.context)
        {
            match &row.shown {
                Some((b, h)) => {
                    let _ = writeln!(out, "| {} | {b} | {h} | |", row.figure);
                }
                None => {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {} |",
                        row.figure,
                        tokens(row.base),
                        tokens(row.head),
                        change(row)
                    );
                }
            }
        }
        if !self.tools.is_empty() {
            let _ = writeln!(
                out,
                "\nTools that moved most ({} of {}), worst first (growth, then savings, each largest first):\n\n| tool | wire base → head | per call base → head |\n|---|---:|---:|",
                self.tools.len(),
                self.tools_moved
            );
            for t in &self.tools {
                let _ = writeln!(
                    out,
                    "| `{}` | {} → {} | {} → {} |",
                    t.tool,
                    tokens(t.wire.0),
                    tokens(t.wire.1),
                    tokens(t.per_call.0),
                    tokens(t.per_call.1)
                );
            }
        }
        let unmoved = self
            .rows
            .iter()
            .filter(|r| !r.context && !r.moved(self.threshold))
            .count();
        out.push('\n');
        if self.small_moves == 0 {
            let _ = writeln!(out, "Nothing else changed ({unmoved} other figures).");
        } else {
            let _ = writeln!(
                out,
                "{} other figure(s) moved by less than {} token(s); {} did not move.",
                self.small_moves,
                grouped(self.threshold, 1),
                unmoved - self.small_moves
            );
        }
        out
    }

    /// The same as JSON.
    pub fn json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The `--fail-on` limits this verdict breaks, each in words.
    pub fn breaches(&self, limits: &[Limit]) -> Vec<String> {
        let mut out = Vec::new();
        for limit in limits {
            let Some(row) = self.rows.iter().find(|r| r.key == limit.key) else {
                continue;
            };
            let over = match limit.amount {
                Amount::Percent(p) => row.percent().is_some_and(|x| x > p),
                Amount::Tokens(t) => row.change().is_some_and(|x| x > t),
            };
            if over {
                out.push(format!(
                    "{}: {} → {} ({}), over the limit {}",
                    row.figure,
                    tokens(row.base),
                    tokens(row.head),
                    change(row),
                    limit.text
                ));
            }
        }
        out
    }
}

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;
