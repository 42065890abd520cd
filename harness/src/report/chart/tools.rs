//! The tools chart: every tool's definition before and after, stacked by slot, worst first (the
//! order of the report's per-tool table), with the output schema last so its share stands out.

use super::canvas::{Anchor, Label, Svg, short, ticks, whole};
use super::catalogue::{SLOTS, legend, legend_bottom};
use crate::report::ModuleReport;
use crate::report::slots::Definition;
use crate::tokens::Counter;

/// The widest a tool name may be before it is cut (the full name is in each bar's tooltip).
const MAX_LABEL: f64 = 320.0;
const BAR: f64 = 10.0;
const ROW: f64 = 2.0 * BAR + 10.0;

fn values(k: Counter, definition: &Definition) -> [f64; 4] {
    [
        k.tokens(&definition.description),
        k.tokens(&definition.input_schema),
        k.tokens(&definition.other),
        definition.output_schema.map_or(0.0, |t| k.tokens(&t)),
    ]
}

fn total_text(k: Counter, definition: Option<&Definition>) -> String {
    match definition {
        None => "not listed".into(),
        Some(d) => match d.output_schema {
            Some(schema) => format!(
                "{} (output schema {})",
                whole(k.tokens(&d.wire)),
                whole(k.tokens(&schema))
            ),
            None => whole(k.tokens(&d.wire)),
        },
    }
}

/// The chart, or `None` without tools.
pub(super) fn chart(report: &ModuleReport) -> Option<String> {
    let tools = &report.tools;
    if tools.is_empty() {
        return None;
    }
    let k = report.counters.headline;
    let width = 980.0;
    let names: Vec<Label> = tools
        .iter()
        .map(|t| Label::new(0.0, 0.0, &t.tool).size(10.0).fit(MAX_LABEL))
        .collect();
    let label_width = names.iter().map(Label::width).fold(0.0, f64::max);
    let totals: Vec<[String; 2]> = tools
        .iter()
        .map(|t| {
            [
                total_text(k, t.before.as_ref()),
                total_text(k, t.after.as_ref()),
            ]
        })
        .collect();
    let total_width = totals
        .iter()
        .flatten()
        .map(|t| Label::new(0.0, 0.0, t).size(8.0).width())
        .fold(0.0, f64::max);
    let plot_left = 10.0 + label_width + 10.0;
    let plot_right = width - 14.0 - total_width;
    let max = tools
        .iter()
        .flat_map(|t| [t.before, t.after])
        .flatten()
        .map(|d| k.tokens(&d.wire))
        .fold(1.0, f64::max);
    let grid = ticks(max, 6);
    let x_max = grid.last().copied().unwrap_or(1.0);
    let x = |v: f64| plot_left + (plot_right - plot_left) * v / x_max;
    let top = legend_bottom(10.0, 60.0, width - 20.0) + 18.0;
    let bottom = top + ROW * tools.len() as f64;
    let height = bottom + 44.0;
    let mut svg = Svg::new(width, height);
    let title = format!(
        "{}: each tool's definition, before (upper bar) and after, worst first (tokens, {})",
        report.module,
        k.name()
    );
    svg.heading(&title);
    svg.note(10.0, 38.0, "Ranked by the definition on the wire after; the figure at the end of a bar is its total, the output schema's share in brackets.");
    legend(&mut svg, 10.0, 60.0, width - 20.0);
    for value in &grid {
        svg.line((x(*value), top - 6.0), (x(*value), bottom), "#e6e6e6", "");
        for y in [top - 10.0, bottom + 14.0] {
            svg.text(
                Label::new(x(*value), y, short(*value))
                    .size(10.0)
                    .anchor(Anchor::Middle),
            );
        }
    }
    for (i, ((tool, name), total)) in tools.iter().zip(names).zip(&totals).enumerate() {
        let y = top + ROW * i as f64;
        svg.text(Label {
            x: plot_left - 8.0,
            y: y + BAR + 3.5,
            anchor: Anchor::End,
            ..name
        });
        for (j, (definition, fade)) in [(tool.before, true), (tool.after, false)]
            .into_iter()
            .enumerate()
        {
            let by = y + BAR * j as f64;
            if let Some(d) = definition {
                let mut at = 0.0;
                for (value, (slot, color)) in values(k, &d).iter().zip(SLOTS) {
                    let side = if fade { "before" } else { "after" };
                    svg.rect(
                        x(at),
                        by,
                        x(at + value) - x(at),
                        BAR - 1.0,
                        if fade { faded(color) } else { color },
                        &format!("{} {side}: {slot} {}", tool.tool, whole(*value)),
                    );
                    at += value;
                }
            }
            let end = definition.map_or(plot_left, |d| x(k.tokens(&d.wire)));
            svg.text(
                Label::new(end + 4.0, by + BAR - 1.5, total[j].clone())
                    .size(8.0)
                    .fill("#333"),
            );
        }
    }
    svg.note(10.0, bottom + 34.0, "Upper bar: before; lower bar: after.");
    Some(svg.finish(&title))
}

/// The lighter shade of a slot colour, for the "before" bars.
fn faded(color: &str) -> &'static str {
    match color {
        "#4c78a8" => "#a9bfd9",
        "#72b7b2" => "#b9dcd9",
        "#bab0ac" => "#ddd8d6",
        _ => "#fac28c",
    }
}
