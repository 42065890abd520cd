//! The chart of a module report: a hand-written SVG, before and after per scenario (and per
//! projection case), in tokens at 2.902 characters per token, on a log scale (one scenario can
//! weigh 50 tokens and the next 50,000). Deterministic: fixed geometry, one decimal.

use std::fmt::Write;

use super::{ModuleReport, Side};

const LABEL_WIDTH: f64 = 450.0;
const PLOT_WIDTH: f64 = 520.0;
const VALUE_WIDTH: f64 = 80.0;
const BAR: f64 = 7.0;
const ROW: f64 = 3.0 * BAR + 9.0;
const TOP: f64 = 56.0;

const SERIES: [(&str, &str); 3] = [
    ("before: legacy text", "#9e9e9e"),
    ("after: text", "#1f77b4"),
    ("after: text + structured", "#ff7f0e"),
];

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One row: a label and up to three values (tokens, chars/2.902).
struct Row {
    label: String,
    values: [Option<f64>; 3],
}

fn rows(report: &ModuleReport) -> Vec<Row> {
    let mut rows: Vec<Row> = report
        .scenarios
        .iter()
        .map(|s| {
            let get = |side: &Side, f: fn(&super::Measured) -> f64| side.measured().map(f);
            Row {
                label: s.id.clone(),
                values: [
                    get(&s.before, |m| m.text.primary),
                    get(&s.after, |m| m.text.primary),
                    get(&s.after, |m| m.both.primary),
                ],
            }
        })
        .collect();
    if let Some(p) = &report.projection {
        rows.extend(p.cases.iter().map(|c| Row {
            label: format!("projection: {} (N+1 vs fields)", c.case),
            values: [
                Some(c.before.text.primary),
                Some(c.after.text.primary),
                Some(c.after.both.primary),
            ],
        }));
    }
    rows
}

/// The chart.
pub(super) fn chart(report: &ModuleReport) -> String {
    let rows = rows(report);
    let max = rows
        .iter()
        .flat_map(|r| r.values.iter().flatten().copied())
        .fold(1.0_f64, f64::max);
    // Decades from 1 to the first power of ten at or above the largest value.
    let decades = max.log10().ceil().max(1.0) as i32;
    let x = |v: f64| -> f64 {
        let v = v.max(1.0);
        LABEL_WIDTH + PLOT_WIDTH * v.log10() / f64::from(decades)
    };
    let width = LABEL_WIDTH + PLOT_WIDTH + VALUE_WIDTH;
    let height = TOP + ROW * rows.len() as f64 + 30.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        out,
        r#"<rect width="{width:.0}" height="{height:.0}" fill="white"/>"#
    );
    let _ = writeln!(
        out,
        r#"<text x="8" y="18" font-size="14" font-weight="bold">{}: tokens per call, before and after (chars/2.902, log scale)</text>"#,
        escape(&report.module)
    );
    for (i, (name, color)) in SERIES.iter().enumerate() {
        let lx = 8.0 + 200.0 * i as f64;
        let _ = writeln!(
            out,
            r#"<rect x="{lx:.1}" y="28" width="10" height="10" fill="{color}"/><text x="{:.1}" y="37">{}</text>"#,
            lx + 14.0,
            escape(name)
        );
    }
    let bottom = TOP + ROW * rows.len() as f64;
    for d in 0..=decades {
        let gx = LABEL_WIDTH + PLOT_WIDTH * f64::from(d) / f64::from(decades);
        let _ = writeln!(
            out,
            r##"<line x1="{gx:.1}" y1="{:.1}" x2="{gx:.1}" y2="{bottom:.1}" stroke="#e0e0e0"/><text x="{gx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            TOP - 4.0,
            bottom + 14.0,
            10_u64.pow(d as u32)
        );
    }
    for (i, row) in rows.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="10">{}</text>"#,
            LABEL_WIDTH - 6.0,
            y + 1.5 * BAR + 4.0,
            escape(&row.label)
        );
        for (j, value) in row.values.iter().enumerate() {
            let by = y + BAR * j as f64;
            match value {
                Some(v) => {
                    let w = x(*v) - LABEL_WIDTH;
                    let _ = writeln!(
                        out,
                        r#"<rect x="{LABEL_WIDTH:.1}" y="{by:.1}" width="{w:.1}" height="{:.1}" fill="{}"><title>{}: {v:.1}</title></rect><text x="{:.1}" y="{:.1}" font-size="8">{v:.1}</text>"#,
                        BAR - 1.0,
                        SERIES[j].1,
                        escape(SERIES[j].0),
                        LABEL_WIDTH + w + 3.0,
                        by + BAR - 1.0
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        r##"<text x="{:.1}" y="{:.1}" font-size="8" fill="#757575">not measured</text>"##,
                        LABEL_WIDTH + 3.0,
                        by + BAR - 1.0
                    );
                }
            }
        }
    }
    out.push_str("</svg>\n");
    out
}
