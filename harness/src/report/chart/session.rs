//! The session chart: what a session bills against the number of calls, before and after, one
//! panel per client profile, every panel on the same axes so they compare at a glance. A
//! session of n calls sends n + 1 requests, each with the catalogue the profile puts in context
//! and every result so far, so each curve starts at one catalogue and bends upwards; where the
//! curves cross is the break-even by billed input.

use super::canvas::{Anchor, Label, Svg, short, ticks, whole, whole_ticks};
use crate::report::{ModuleReport, Profile, billed_input};
use crate::tokens::Counter;

const PANEL_WIDTH: f64 = 450.0;
const PANEL_HEIGHT: f64 = 280.0;
const COLUMNS: usize = 2;
const HEADER: f64 = 58.0;
const BEFORE: &str = "#8c8c8c";
const AFTER: &str = "#1f77b4";

/// How far the x axis of a panel reaches without a crossing to show: a long session.
const SESSION: f64 = 100.0;

/// How far the x axis must reach for a profile: past its break-even when there is one.
fn reach(k: Counter, profile: &Profile) -> f64 {
    match profile.billed_break_even_calls.under(k) {
        Some(n) if n > 0 => (n as f64 * 1.6).max(10.0),
        _ => SESSION,
    }
}

/// What a profile's session bills after `n` calls, before or after.
fn bill(k: Counter, profile: &Profile, after: bool, n: f64) -> Option<f64> {
    let (catalogue, per_call) = if after {
        (
            k.tokens(&profile.catalogue_after),
            k.per(&profile.per_call_after?),
        )
    } else {
        (
            k.tokens(&profile.catalogue_before),
            k.per(&profile.per_call_before?),
        )
    };
    Some(billed_input(catalogue, per_call, n.round() as u64))
}

/// The axes every panel shares: calls up to the furthest break-even worth showing, tokens up
/// to the largest bill at that many calls.
struct Axes {
    k: Counter,
    x_max: f64,
    y_max: f64,
}

fn break_even_text(k: Counter, profile: &Profile) -> String {
    let (Some(before), Some(after)) = (profile.per_call_before, profile.per_call_after) else {
        return "no call measured on both sides".into();
    };
    match profile.billed_break_even_calls.under(k) {
        Some(0) => "after bills less from the first call".into(),
        Some(1) => "break-even by billed input: 1 call".into(),
        Some(n) => format!("break-even by billed input: {} calls", whole(n as f64)),
        None => {
            // Dearer per call; a smaller catalogue keeps it cheaper for the first calls only:
            // the bills differ by (m + 1) * (saved - extra * m / 2).
            let saved = k.tokens(&profile.catalogue_before) - k.tokens(&profile.catalogue_after);
            let extra = k.per(&after) - k.per(&before);
            let first = if extra > 0.0 {
                (2.0 * saved / extra).ceil() - 1.0
            } else {
                0.0
            };
            if saved > 0.0 && first >= 1.0 {
                format!(
                    "never breaks even: after bills less for the first {} call(s) only",
                    whole(first)
                )
            } else {
                "never breaks even".into()
            }
        }
    }
}

fn panel(svg: &mut Svg, profile: &Profile, axes: &Axes, left: f64, top: f64) {
    let k = axes.k;
    let room = PANEL_WIDTH - 24.0;
    let title = format!(
        "{}: {} catalogue",
        profile.profile,
        profile.catalogue.label()
    );
    svg.text(Label::new(left + 8.0, top + 14.0, title).bold().fit(room));
    svg.text(
        Label::new(left + 8.0, top + 28.0, profile.evidence.label())
            .size(10.0)
            .fill("#444")
            .fit(room),
    );
    svg.text(
        Label::new(left + 8.0, top + 43.0, break_even_text(k, profile))
            .fill("#b01f1f")
            .fit(room),
    );
    let (Some(before), Some(after)) = (profile.per_call_before, profile.per_call_after) else {
        return;
    };
    let _ = (before, after);
    let x_ticks = whole_ticks(axes.x_max, 5);
    let x_max = x_ticks.last().copied().unwrap_or(1.0);
    let y_ticks = ticks(axes.y_max, 5);
    let y_max = y_ticks.last().copied().unwrap_or(1.0);
    let y_labels: Vec<String> = y_ticks.iter().map(|v| short(*v)).collect();
    let label_width = y_labels
        .iter()
        .map(|l| Label::new(0.0, 0.0, l).size(10.0).width())
        .fold(0.0, f64::max);
    let plot_left = left + 14.0 + label_width;
    let plot_right = left + PANEL_WIDTH - 18.0;
    let plot_top = top + 56.0;
    let plot_bottom = top + PANEL_HEIGHT - 40.0;
    let x = |n: f64| plot_left + (plot_right - plot_left) * n / x_max;
    let y = |v: f64| plot_bottom - (plot_bottom - plot_top) * v / y_max;
    for (value, text) in y_ticks.iter().zip(&y_labels) {
        svg.line(
            (plot_left, y(*value)),
            (plot_right, y(*value)),
            "#e6e6e6",
            "",
        );
        svg.text(
            Label::new(plot_left - 5.0, y(*value) + 3.5, text)
                .size(10.0)
                .anchor(Anchor::End),
        );
    }
    for value in &x_ticks {
        svg.line(
            (x(*value), plot_bottom),
            (x(*value), plot_bottom + 4.0),
            "#999",
            "",
        );
        svg.text(
            Label::new(x(*value), plot_bottom + 15.0, short(*value))
                .size(10.0)
                .anchor(Anchor::Middle),
        );
    }
    svg.line(
        (plot_left, plot_bottom),
        (plot_right, plot_bottom),
        "#999",
        "",
    );
    svg.line((plot_left, plot_top), (plot_left, plot_bottom), "#999", "");
    svg.text(
        Label::new(
            (plot_left + plot_right) / 2.0,
            plot_bottom + 30.0,
            "calls in the session",
        )
        .size(10.0)
        .anchor(Anchor::Middle)
        .fill("#444"),
    );
    // Each curve as a polyline of one point per call step (a bill is quadratic in calls).
    let steps = 40;
    for (after, color, width) in [(false, BEFORE, "2"), (true, AFTER, "2.5")] {
        let mut last: Option<(f64, f64)> = None;
        for i in 0..=steps {
            let n = (x_max * i as f64 / steps as f64).round();
            let Some(v) = bill(k, profile, after, n) else {
                break;
            };
            let point = (x(n), y(v.min(y_max)));
            if let Some(from) = last {
                svg.line(from, point, color, &format!(r#" stroke-width="{width}""#));
            }
            last = Some(point);
        }
    }
    if let Some(n) = profile.billed_break_even_calls.under(k).filter(|n| *n > 0) {
        let n = n as f64;
        if let Some(v) = bill(k, profile, true, n).filter(|_| n <= x_max) {
            let at = (x(n), y(v.min(y_max)));
            svg.line(
                (at.0, at.1),
                (at.0, plot_bottom),
                "#d62728",
                r#" stroke-dasharray="3,3""#,
            );
            svg.circle(
                at,
                4.0,
                "#d62728",
                &format!(
                    "{}: {} tokens billed at {} calls",
                    profile.profile,
                    whole(v),
                    whole(n)
                ),
            );
        }
    }
}

/// The chart, or `None` when the report has no profiles.
pub(super) fn chart(report: &ModuleReport) -> Option<String> {
    let k = report.counters.headline;
    let title = format!(
        "{}: input billed against calls in a session, per client profile (tokens, {})",
        report.module,
        k.name()
    );
    panels(&title, k, &report.profiles)
}

/// Panels of `profiles` on shared axes under `title` (also the clients report's chart, one
/// panel per client), or `None` without profiles.
pub(crate) fn panels(title: &str, k: Counter, profiles: &[Profile]) -> Option<String> {
    if profiles.is_empty() {
        return None;
    }
    let rows = profiles.len().div_ceil(COLUMNS);
    let width = PANEL_WIDTH * COLUMNS as f64 + 20.0;
    let height = HEADER + PANEL_HEIGHT * rows as f64 + 10.0;
    let mut svg = Svg::new(width, height);
    let x_max = profiles
        .iter()
        .map(|p| reach(k, p))
        .fold(10.0_f64, f64::max);
    let y_max = profiles
        .iter()
        .flat_map(|p| [bill(k, p, false, x_max), bill(k, p, true, x_max)])
        .flatten()
        .fold(1.0_f64, f64::max);
    let axes = Axes { k, x_max, y_max };
    svg.heading(title);
    let mut lx = 10.0;
    for (name, color) in [
        ("before", BEFORE),
        ("after", AFTER),
        ("break-even", "#d62728"),
    ] {
        svg.rect(lx, 32.0, 14.0, 4.0, color, "");
        let label = Label::new(lx + 20.0, 38.0, name);
        let w = label.width();
        svg.text(label);
        lx += 20.0 + w + 22.0;
    }
    let note =
        "Every request re-sends the catalogue and the results so far; all panels share their axes.";
    svg.note(lx, 38.0, note);
    for (i, profile) in profiles.iter().enumerate() {
        let left = 10.0 + PANEL_WIDTH * (i % COLUMNS) as f64;
        let top = HEADER + PANEL_HEIGHT * (i / COLUMNS) as f64;
        panel(&mut svg, profile, &axes, left, top);
    }
    Some(svg.finish(title))
}
