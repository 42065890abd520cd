//! The charts of a report, hand-written SVG, deterministic (fixed geometry, one decimal):
//!
//! - `session`: the session cost against the number of calls, before and after, per client
//!   profile (the lines cross at the break-even);
//! - `catalogue`: `tools/list` by slot, before and after, context and wire;
//! - `tools`: every tool's definition by slot, before and after, worst first;
//! - `calls`: the mean cost of one call of each tool, before and after.
//!
//! Every label is laid out with the font metrics of [`canvas`], and [`problems`] checks a
//! finished chart against them: no text clipped by the canvas, no two texts overlapping.

mod calls;
mod canvas;
mod catalogue;
pub(crate) mod session;
mod tools;

pub use canvas::{problems, text_width};
pub(crate) use session::panels as session_panels;

use super::ModuleReport;

/// Every chart of a report that has something to show, by kind (see [`super::CHARTS`]).
pub(super) fn all(report: &ModuleReport) -> Vec<(&'static str, String)> {
    [
        ("session", session::chart(report)),
        ("catalogue", Some(catalogue::chart(report))),
        ("tools", tools::chart(report)),
        ("calls", calls::chart(report)),
    ]
    .into_iter()
    .filter_map(|(kind, svg)| Some((kind, svg?)))
    .collect()
}
