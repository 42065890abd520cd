//! The calls chart: what one call of each tool returns on average, before and after (text; text
//! and structured together), on a log scale with its decades labelled; the tools whose calls
//! cost most after come first. It replaces one bar group per scenario, which grew past 4,000
//! pixels for a module and said less than the per-scenario table.

use super::canvas::{Anchor, Label, Svg, short, whole};
use crate::report::{ModuleReport, ToolReport};
use crate::tokens::PerUnit;

const MAX_LABEL: f64 = 320.0;
const BAR: f64 = 9.0;
const ROW: f64 = 3.0 * BAR + 10.0;

const SERIES: [(&str, &str); 3] = [
    ("before: text", "#8c8c8c"),
    ("after: text", "#1f77b4"),
    ("after: text + structured", "#ff7f0e"),
];

fn values(t: &ToolReport) -> [Option<f64>; 3] {
    let p = |v: Option<PerUnit>| v.map(|p| p.primary);
    [
        p(t.text_per_call_before),
        p(t.text_per_call_after),
        p(t.both_per_call_after),
    ]
}

/// The chart, or `None` when no tool was called.
pub(super) fn chart(report: &ModuleReport) -> Option<String> {
    let mut tools: Vec<&ToolReport> = report
        .tools
        .iter()
        .filter(|t| t.calls_before + t.calls_after > 0)
        .collect();
    if tools.is_empty() {
        return None;
    }
    let key = |t: &ToolReport| {
        let [b, a, _] = values(t);
        a.or(b).unwrap_or(0.0)
    };
    tools.sort_by(|x, y| key(y).total_cmp(&key(x)).then_with(|| x.tool.cmp(&y.tool)));
    let width = 980.0;
    let names: Vec<Label> = tools
        .iter()
        .map(|t| {
            let calls = format!("{} ({}/{})", t.tool, t.calls_before, t.calls_after);
            Label::new(0.0, 0.0, calls).size(10.0).fit(MAX_LABEL)
        })
        .collect();
    let label_width = names.iter().map(Label::width).fold(0.0, f64::max);
    let max = tools
        .iter()
        .flat_map(|t| values(t))
        .flatten()
        .fold(1.0_f64, f64::max);
    let value_width = Label::new(0.0, 0.0, whole(max)).size(8.0).width();
    let plot_left = 10.0 + label_width + 10.0;
    let plot_right = width - 14.0 - value_width;
    // Decades from 1 to the first power of ten at or above the largest value.
    let decades = max.log10().ceil().max(1.0) as i32;
    let x = |v: f64| plot_left + (plot_right - plot_left) * v.max(1.0).log10() / f64::from(decades);
    let top = 78.0;
    let bottom = top + ROW * tools.len() as f64;
    let mut svg = Svg::new(width, bottom + 46.0);
    let title = format!(
        "{}: mean tokens per call of each tool, before and after (chars/2.902, log scale)",
        report.module
    );
    svg.heading(&title);
    svg.note(10.0, 38.0, "Means over every scenario of the tool measured on that side, whatever its outcome; (n/m): scenarios measured before/after.");
    let mut lx = 10.0;
    for (name, color) in SERIES {
        svg.rect(lx, 48.0, 12.0, 10.0, color, "");
        let label = Label::new(lx + 17.0, 57.0, name);
        lx += 17.0 + label.width() + 22.0;
        svg.text(label);
    }
    for d in 0..=decades {
        let gx = x(10_f64.powi(d));
        svg.line((gx, top - 6.0), (gx, bottom), "#e6e6e6", "");
        svg.text(
            Label::new(gx, bottom + 14.0, short(10_f64.powi(d)))
                .size(10.0)
                .anchor(Anchor::Middle),
        );
    }
    for (i, (tool, name)) in tools.iter().zip(names).enumerate() {
        let y = top + ROW * i as f64;
        svg.text(Label {
            x: plot_left - 8.0,
            y: y + 1.5 * BAR + 3.5,
            anchor: Anchor::End,
            ..name
        });
        for (j, value) in values(tool).into_iter().enumerate() {
            let by = y + BAR * j as f64;
            let (series, color) = SERIES[j];
            match value {
                Some(v) => {
                    svg.rect(
                        plot_left,
                        by,
                        x(v) - plot_left,
                        BAR - 1.0,
                        color,
                        &format!("{} {series}: {v:.1}", tool.tool),
                    );
                    svg.text(
                        Label::new(x(v) + 3.0, by + BAR - 1.0, whole(v))
                            .size(7.5)
                            .fill("#333"),
                    );
                }
                None => svg.text(
                    Label::new(plot_left + 3.0, by + BAR - 1.0, "not measured")
                        .size(7.5)
                        .fill("#757575"),
                ),
            }
        }
    }
    svg.note(10.0, bottom + 36.0, "Tokens per call (log scale).");
    Some(svg.finish(&title))
}
