//! The calls chart: how much one call of each tool changed, in percent of before, as a bar
//! that leaves a zero line to the left (cheaper after) or to the right (dearer after); the
//! successes first, then the errors and refusals apart, since they cost differently and a mean
//! over both hides either. A tool is compared over the scenarios measured on both sides only,
//! so a change is always like for like; the biggest rises come first.

use std::collections::BTreeMap;

use super::canvas::{Anchor, Label, Svg, whole};
use crate::report::{ModuleReport, ScenarioReport};
use crate::tokens::Count;

const MAX_LABEL: f64 = 320.0;
const ROW: f64 = 16.0;
const CHEAPER: &str = "#2ca02c";
const DEARER: &str = "#d62728";
/// A change past this many percent is drawn at the edge, its figure still exact.
const CLIP: f64 = 300.0;

/// One bar: a tool's mean text per call before and after over `calls` scenarios.
struct Bar {
    tool: String,
    calls: usize,
    before: f64,
    after: f64,
}

impl Bar {
    fn percent(&self) -> f64 {
        if self.before > 0.0 {
            (self.after - self.before) * 100.0 / self.before
        } else {
            0.0
        }
    }
}

/// Whether a scenario is an error or a refusal (by its expectation, else what it answered
/// after).
fn failing(s: &ScenarioReport) -> bool {
    let said = if s.expect.is_empty() {
        s.after.measured().map_or("", |m| m.outcome.as_str())
    } else {
        s.expect.as_str()
    };
    said.starts_with("error") || said.starts_with("control")
}

/// The bars of the scenarios `keep` selects, biggest rise first.
fn bars(report: &ModuleReport, keep: impl Fn(&ScenarioReport) -> bool) -> Vec<Bar> {
    let k = report.counters.headline;
    let mut by_tool: BTreeMap<&str, (usize, Count, Count)> = BTreeMap::new();
    for s in report.scenarios.iter().filter(|s| keep(s)) {
        let (Some(b), Some(a)) = (s.before.measured(), s.after.measured()) else {
            continue;
        };
        let entry = by_tool.entry(s.tool.as_str()).or_default();
        entry.0 += 1;
        entry.1 += b.text.count();
        entry.2 += a.text.count();
    }
    let mut bars: Vec<Bar> = by_tool
        .into_iter()
        .map(|(tool, (calls, b, a))| Bar {
            tool: tool.to_owned(),
            calls,
            before: k.count(&b) / calls as f64,
            after: k.count(&a) / calls as f64,
        })
        .collect();
    bars.sort_by(|x, y| {
        y.percent()
            .total_cmp(&x.percent())
            .then_with(|| x.tool.cmp(&y.tool))
    });
    bars
}

/// The chart, or `None` when no tool was called on both sides.
pub(super) fn chart(report: &ModuleReport) -> Option<String> {
    let sections = [
        ("successes", bars(report, |s| !failing(s))),
        ("errors and refusals", bars(report, failing)),
    ];
    if sections.iter().all(|(_, b)| b.is_empty()) {
        return None;
    }
    let width = 980.0;
    let labels: Vec<Vec<Label>> = sections
        .iter()
        .map(|(_, bars)| {
            bars.iter()
                .map(|b| {
                    Label::new(0.0, 0.0, format!("{} ({})", b.tool, b.calls))
                        .size(10.0)
                        .fit(MAX_LABEL)
                })
                .collect()
        })
        .collect();
    let label_width = labels
        .iter()
        .flatten()
        .map(Label::width)
        .fold(0.0, f64::max);
    let reach = sections
        .iter()
        .flat_map(|(_, b)| b.iter().map(|b| b.percent().abs()))
        .fold(10.0_f64, f64::max)
        .min(CLIP);
    let plot_left = 10.0 + label_width + 10.0;
    let plot_right = width - 10.0;
    let zero = (plot_left + plot_right) / 2.0;
    // Room for a bar's figure at either end.
    let half = (zero - plot_left).min(plot_right - zero) - 56.0;
    let x = |pct: f64| zero + half * pct.clamp(-reach, reach) / reach;
    let rows: usize = sections.iter().map(|(_, b)| b.len() + 3).sum();
    let top = 64.0;
    let height = top + ROW * rows as f64 + 40.0;
    let mut svg = Svg::new(width, height);
    let title = format!(
        "{}: change per call of each tool, after against before (text, {})",
        report.module,
        report.counters.headline.name()
    );
    svg.heading(&title);
    svg.note(
        10.0,
        38.0,
        "Scenarios measured on both sides only, (n) of them; left of zero: cheaper after, right: dearer. Errors and refusals apart.",
    );
    let mut y = top;
    for ((name, bars), labels) in sections.iter().zip(labels) {
        if bars.is_empty() {
            continue;
        }
        svg.text(Label::new(10.0, y + 10.0, *name).bold());
        y += ROW;
        svg.line(
            (zero, y - 4.0),
            (zero, y + ROW * bars.len() as f64),
            "#999",
            "",
        );
        for (bar, label) in bars.iter().zip(labels) {
            svg.text(Label {
                x: plot_left - 8.0,
                y: y + ROW / 2.0 + 3.5,
                anchor: Anchor::End,
                ..label
            });
            let pct = bar.percent();
            let (from, to) = if pct < 0.0 {
                (x(pct), zero)
            } else {
                (zero, x(pct))
            };
            let color = if pct < 0.0 { CHEAPER } else { DEARER };
            svg.rect(
                from,
                y + 2.0,
                (to - from).max(1.0),
                ROW - 5.0,
                color,
                &format!(
                    "{}: {} -> {} tokens per call ({:+.1}%)",
                    bar.tool,
                    whole(bar.before),
                    whole(bar.after),
                    pct
                ),
            );
            let text = format!("{pct:+.1}%");
            let at = if pct < 0.0 {
                Label::new(from - 4.0, y + ROW / 2.0 + 3.5, text).anchor(Anchor::End)
            } else {
                Label::new(to + 4.0, y + ROW / 2.0 + 3.5, text)
            };
            svg.text(at.size(9.0).fill("#333"));
            y += ROW;
        }
        // The scale under each section: zero and the reach each way.
        for pct in [-reach, -reach / 2.0, 0.0, reach / 2.0, reach] {
            svg.line((x(pct), y - 2.0), (x(pct), y + 2.0), "#999", "");
            let text = if pct == 0.0 {
                "0%".to_owned()
            } else {
                format!("{}{}%", if pct > 0.0 { "+" } else { "−" }, whole(pct.abs()))
            };
            svg.text(
                Label::new(x(pct), y + 13.0, text)
                    .size(9.0)
                    .anchor(Anchor::Middle),
            );
        }
        y += 2.0 * ROW;
    }
    let scale = if reach >= CLIP {
        format!("bars past {}% end at the edge", whole(CLIP))
    } else {
        format!("the scale reaches {}% each way", whole(reach))
    };
    svg.note(
        10.0,
        height - 14.0,
        &format!("Change per call in percent of before; {scale}."),
    );
    Some(svg.finish(&title))
}
