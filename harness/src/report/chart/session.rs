//! The session chart: what a session costs against the number of calls, before and after, one
//! panel per client profile. Each line starts at the catalogue the profile puts in context and
//! rises by its mean cost per call; where the lines cross is the break-even.

use super::canvas::{Anchor, Label, Svg, short, ticks, whole, whole_ticks};
use crate::report::{ModuleReport, Profile};

const PANEL_WIDTH: f64 = 450.0;
const PANEL_HEIGHT: f64 = 280.0;
const COLUMNS: usize = 2;
const HEADER: f64 = 58.0;
const BEFORE: &str = "#8c8c8c";
const AFTER: &str = "#1f77b4";

/// How far the x axis of a panel reaches without a crossing to show: a long session.
const SESSION: f64 = 100.0;

/// How far the x axis of a panel reaches: past the break-even when there is one.
fn reach(profile: &Profile) -> f64 {
    match profile.break_even_calls.primary {
        Some(n) if n > 0 => (n as f64 * 1.6).max(10.0),
        _ => SESSION,
    }
}

fn break_even_text(profile: &Profile) -> String {
    let (Some(before), Some(after)) = (profile.per_call_before, profile.per_call_after) else {
        return "no call measured on both sides".into();
    };
    match profile.break_even_calls.primary {
        Some(0) => "after is cheaper from the first call".into(),
        Some(1) => "break-even: 1 call".into(),
        Some(n) => format!("break-even: {} calls", whole(n as f64)),
        None => {
            // Dearer per call; a smaller catalogue keeps it cheaper for the first calls only.
            let saved = profile.catalogue_before.primary - profile.catalogue_after.primary;
            let extra = after.primary - before.primary;
            let first = if extra > 0.0 {
                (saved / extra).ceil() - 1.0
            } else {
                0.0
            };
            if saved > 0.0 && first >= 1.0 {
                format!(
                    "never breaks even: after is cheaper for the first {} call(s) only",
                    whole(first)
                )
            } else {
                "never breaks even".into()
            }
        }
    }
}

fn panel(svg: &mut Svg, profile: &Profile, left: f64, top: f64) {
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
        Label::new(left + 8.0, top + 43.0, break_even_text(profile))
            .fill("#b01f1f")
            .fit(room),
    );
    let (Some(before), Some(after)) = (profile.per_call_before, profile.per_call_after) else {
        return;
    };
    let (cb, ca) = (
        profile.catalogue_before.primary,
        profile.catalogue_after.primary,
    );
    let x_ticks = whole_ticks(reach(profile), 5);
    let x_max = x_ticks.last().copied().unwrap_or(1.0);
    let cost = |catalogue: f64, per_call: f64, n: f64| catalogue + per_call * n;
    let top_value = [
        cost(cb, before.primary, x_max),
        cost(ca, after.primary, x_max),
        cb,
        ca,
    ]
    .into_iter()
    .fold(1.0_f64, f64::max);
    let y_ticks = ticks(top_value, 5);
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
    for (catalogue, per_call, color, width) in [
        (cb, before.primary, BEFORE, "2"),
        (ca, after.primary, AFTER, "2.5"),
    ] {
        svg.line(
            (x(0.0), y(catalogue)),
            (x(x_max), y(cost(catalogue, per_call, x_max))),
            color,
            &format!(r#" stroke-width="{width}""#),
        );
    }
    if let Some(n) = profile.break_even_calls.primary.filter(|n| *n > 0) {
        let n = n as f64;
        let at = (x(n), y(cost(ca, after.primary, n)));
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
                "{}: {} tokens at {} calls",
                profile.profile,
                whole(cost(ca, after.primary, n)),
                whole(n)
            ),
        );
    }
}

/// The chart, or `None` when the report has no profiles.
pub(super) fn chart(report: &ModuleReport) -> Option<String> {
    let profiles = &report.profiles;
    if profiles.is_empty() {
        return None;
    }
    let rows = profiles.len().div_ceil(COLUMNS);
    let width = PANEL_WIDTH * COLUMNS as f64 + 20.0;
    let height = HEADER + PANEL_HEIGHT * rows as f64 + 10.0;
    let mut svg = Svg::new(width, height);
    let title = format!(
        "{}: session cost against calls, per client profile (tokens, chars/2.902)",
        report.module
    );
    svg.heading(&title);
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
    let note = "Each line starts at the catalogue the profile puts in context.";
    svg.note(lx, 38.0, note);
    for (i, profile) in profiles.iter().enumerate() {
        let left = 10.0 + PANEL_WIDTH * (i % COLUMNS) as f64;
        let top = HEADER + PANEL_HEIGHT * (i / COLUMNS) as f64;
        panel(&mut svg, profile, left, top);
    }
    Some(svg.finish(&title))
}
