//! The catalogue chart: the `tools` array before and after, stacked by slot (description,
//! input schema, the rest of the context, output schema), with what reaches the model in
//! context and what only travels on the wire.

use super::canvas::{Anchor, Label, Svg, short, ticks, whole};
use crate::report::{ModuleReport, SlotTotals};
use crate::tokens::Counter;

/// The slots in stacking order (context first, the output schema last) and their colours.
pub(super) const SLOTS: [(&str, &str); 4] = [
    ("description", "#4c78a8"),
    ("input schema", "#72b7b2"),
    ("name, title, annotations, rest", "#bab0ac"),
    ("output schema (wire only)", "#f58518"),
];

/// A definition's slots in [`SLOTS`] order, in tokens under `k`.
pub(super) fn values(k: Counter, totals: &SlotTotals) -> [f64; 4] {
    [
        k.tokens(&totals.description),
        k.tokens(&totals.input_schema),
        k.tokens(&totals.other),
        k.tokens(&totals.output_schema),
    ]
}

/// Where each entry of the legend of [`SLOTS`] goes (baseline at `y`, wrapping within
/// `width`), and the y below the legend.
fn legend_layout(left: f64, y: f64, width: f64) -> (Vec<(f64, f64)>, f64) {
    let (mut x, mut y) = (left, y);
    let mut at = Vec::new();
    for (name, _) in SLOTS {
        let w = 17.0 + Label::new(0.0, 0.0, name).width() + 18.0;
        if x + w > left + width && x > left {
            x = left;
            y += 18.0;
        }
        at.push((x, y));
        x += w;
    }
    (at, y + 14.0)
}

/// The y below the legend drawn by [`legend`] with the same arguments.
pub(super) fn legend_bottom(left: f64, y: f64, width: f64) -> f64 {
    legend_layout(left, y, width).1
}

/// Draws the legend of [`SLOTS`] (baseline at `y`, wrapping within `width`); returns the y
/// below it.
pub(super) fn legend(svg: &mut Svg, left: f64, y: f64, width: f64) -> f64 {
    let (at, bottom) = legend_layout(left, y, width);
    for ((x, y), (name, color)) in at.into_iter().zip(SLOTS) {
        svg.rect(x, y - 9.0, 12.0, 10.0, color, "");
        svg.text(Label::new(x + 17.0, y, name));
    }
    bottom
}

/// The chart.
pub(super) fn chart(report: &ModuleReport) -> String {
    let c = &report.catalogue;
    let k = report.counters.headline;
    let width = 900.0;
    let bars = [
        (
            format!("before ({} tools)", c.tools_before),
            values(k, &c.by_slot_before),
            k.tokens(&c.context_before),
            k.tokens(&c.wire_before),
        ),
        (
            format!("after ({} tools)", c.tools_after),
            values(k, &c.by_slot_after),
            k.tokens(&c.context_after),
            k.tokens(&c.wire_after),
        ),
    ];
    let label_width = bars
        .iter()
        .map(|b| Label::new(0.0, 0.0, &b.0).width())
        .fold(0.0, f64::max);
    let totals: Vec<String> = bars
        .iter()
        .map(|(_, _, context, wire)| format!("context {} · wire {}", whole(*context), whole(*wire)))
        .collect();
    let total_width = totals
        .iter()
        .map(|t| Label::new(0.0, 0.0, t).size(10.0).width())
        .fold(0.0, f64::max);
    let plot_left = 10.0 + label_width + 10.0;
    let plot_right = width - 16.0 - total_width;
    let max = bars.iter().map(|b| b.3).fold(1.0, f64::max);
    let grid = ticks(max, 6);
    let x_max = grid.last().copied().unwrap_or(1.0);
    let x = |v: f64| plot_left + (plot_right - plot_left) * v / x_max;
    let mut svg = Svg::new(width, 190.0);
    let title = format!(
        "{}: tools/list by slot, before and after (tokens, {})",
        report.module,
        k.name()
    );
    svg.heading(&title);
    let top = legend(&mut svg, 10.0, 42.0, width - 20.0) + 6.0;
    let bar_height = 26.0;
    let bottom = top + 2.0 * (bar_height + 14.0);
    for value in &grid {
        svg.line((x(*value), top - 4.0), (x(*value), bottom), "#e6e6e6", "");
        svg.text(
            Label::new(x(*value), bottom + 14.0, short(*value))
                .size(10.0)
                .anchor(Anchor::Middle),
        );
    }
    for (i, ((label, values, _, wire), total)) in bars.iter().zip(&totals).enumerate() {
        let y = top + i as f64 * (bar_height + 14.0);
        svg.text(
            Label::new(plot_left - 8.0, y + bar_height / 2.0 + 4.0, label).anchor(Anchor::End),
        );
        let mut at = 0.0;
        for (value, (name, color)) in values.iter().zip(SLOTS) {
            let (x0, x1) = (x(at), x(at + value));
            svg.rect(
                x0,
                y,
                x1 - x0,
                bar_height,
                color,
                &format!("{label}: {name} {}", whole(*value)),
            );
            let text = Label::new((x0 + x1) / 2.0, y + bar_height / 2.0 + 4.0, whole(*value))
                .size(10.0)
                .anchor(Anchor::Middle)
                .fill("#111");
            if text.width() + 6.0 < x1 - x0 {
                svg.text(text);
            }
            at += value;
        }
        svg.text(
            Label::new(x(*wire) + 6.0, y + bar_height / 2.0 + 4.0, total)
                .size(10.0)
                .fill("#333"),
        );
    }
    svg.note(10.0, bottom + 34.0, "Context is what a client that drops the output schema puts before the model; wire is every byte of the tools array.");
    svg.finish(&title)
}
