//! What a budget limits: the [`Limits`] of a module or a tool, each [`Figure`] they name, and
//! the measured [`Figures`] of a report they are held to.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::findings::{Lowered, Lowering, Place};
use crate::report::ModuleReport;

/// The limits of a module or of one tool (a tool's catalogue is its definition).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// The catalogue as context.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_if_integral"
    )]
    pub catalogue_context: Option<f64>,
    /// The catalogue as sent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_if_integral"
    )]
    pub catalogue_wire: Option<f64>,
    /// Mean `content[].text` per call over the scenarios measured after.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_if_integral"
    )]
    pub text_per_call: Option<f64>,
    /// The output schema per tool: a tool's own, or the mean over the listed tools.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_if_integral"
    )]
    pub output_schema_per_tool: Option<f64>,
}

/// A budgeted figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Figure {
    /// The catalogue as context.
    CatalogueContext,
    /// The catalogue as wire.
    CatalogueWire,
    /// Mean text per call.
    TextPerCall,
    /// The output schema per tool.
    OutputSchemaPerTool,
}

impl Figure {
    /// Every figure, in report order.
    pub const ALL: [Figure; 4] = [
        Figure::CatalogueContext,
        Figure::CatalogueWire,
        Figure::TextPerCall,
        Figure::OutputSchemaPerTool,
    ];

    /// How messages and reports name it.
    pub fn label(self) -> &'static str {
        match self {
            Figure::CatalogueContext => "catalogue context",
            Figure::CatalogueWire => "catalogue wire",
            Figure::TextPerCall => "mean text per call",
            Figure::OutputSchemaPerTool => "output schema per tool",
        }
    }

    /// Its key in the budget file.
    pub fn key(self) -> &'static str {
        match self {
            Figure::CatalogueContext => "catalogue_context",
            Figure::CatalogueWire => "catalogue_wire",
            Figure::TextPerCall => "text_per_call",
            Figure::OutputSchemaPerTool => "output_schema_per_tool",
        }
    }
}

impl Limits {
    pub(super) fn get(&self, figure: Figure) -> Option<f64> {
        match figure {
            Figure::CatalogueContext => self.catalogue_context,
            Figure::CatalogueWire => self.catalogue_wire,
            Figure::TextPerCall => self.text_per_call,
            Figure::OutputSchemaPerTool => self.output_schema_per_tool,
        }
    }

    pub(super) fn slot(&mut self, figure: Figure) -> &mut Option<f64> {
        match figure {
            Figure::CatalogueContext => &mut self.catalogue_context,
            Figure::CatalogueWire => &mut self.catalogue_wire,
            Figure::TextPerCall => &mut self.text_per_call,
            Figure::OutputSchemaPerTool => &mut self.output_schema_per_tool,
        }
    }

    /// Lowers each limit to its figure plus `headroom` (rounded up) where that is lower;
    /// never raises one, never adds one.
    pub(super) fn lower(
        &mut self,
        figures: &Figures,
        headroom: f64,
        place: &Place,
        out: &mut Lowering,
    ) {
        for figure in Figure::ALL {
            let Some(measured) = figures.get(figure) else {
                continue;
            };
            let slot = self.slot(figure);
            match *slot {
                Some(limit) => {
                    let tighter = with_headroom(measured, headroom);
                    if tighter < limit {
                        *slot = Some(tighter);
                        out.lowered.push(Lowered {
                            place: place.clone(),
                            figure,
                            from: limit,
                            to: tighter,
                        });
                    } else {
                        out.kept += 1;
                    }
                }
                None => out.unbudgeted.push((place.clone(), figure)),
            }
        }
    }

    pub(super) fn from_figures(figures: &Figures, headroom: f64) -> Limits {
        let limit = |f: Option<f64>| f.map(|v| with_headroom(v, headroom));
        Limits {
            catalogue_context: limit(figures.catalogue_context),
            catalogue_wire: limit(figures.catalogue_wire),
            text_per_call: limit(figures.text_per_call),
            output_schema_per_tool: limit(figures.output_schema_per_tool),
        }
    }
}

/// A limit as people write it: `1200`, not `1200.0`.
fn whole_if_integral<S: serde::Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) if v.fract() == 0.0 && (0.0..9.0e15).contains(v) => s.serialize_some(&(*v as u64)),
        other => other.serialize(s),
    }
}

/// `value` plus `headroom` percent, rounded up to a whole token.
pub(super) fn with_headroom(value: f64, headroom: f64) -> f64 {
    // Round the product to a tenth first, so 100.0 * 1.1 does not become 111.
    (((value * (1.0 + headroom / 100.0)) * 10.0).round() / 10.0).ceil()
}

/// The measured figures of a module or a tool (chars/2.902); `None`: not measured.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    /// The catalogue as context.
    pub catalogue_context: Option<f64>,
    /// The catalogue as wire.
    pub catalogue_wire: Option<f64>,
    /// Mean text per call.
    pub text_per_call: Option<f64>,
    /// The output schema per tool.
    pub output_schema_per_tool: Option<f64>,
}

impl Figures {
    pub(super) fn get(&self, figure: Figure) -> Option<f64> {
        match figure {
            Figure::CatalogueContext => self.catalogue_context,
            Figure::CatalogueWire => self.catalogue_wire,
            Figure::TextPerCall => self.text_per_call,
            Figure::OutputSchemaPerTool => self.output_schema_per_tool,
        }
    }

    /// A module's figures.
    pub fn of_module(report: &ModuleReport) -> Figures {
        let s = &report.summary;
        Figures {
            catalogue_context: Some(s.catalogue_context_after.primary),
            catalogue_wire: Some(s.catalogue_wire_after.primary),
            text_per_call: s.text_per_call_measured_after.map(|p| p.primary),
            output_schema_per_tool: s.output_schema_per_tool_after.map(|p| p.primary),
        }
    }

    /// Every module together: the mean output schema per tool over all their listed tools
    /// (the other figures are the modules' own).
    pub fn of_all(reports: &[ModuleReport]) -> Figures {
        let tools: usize = reports.iter().map(|r| r.summary.tools).sum();
        let chars: f64 = reports
            .iter()
            .filter_map(|r| {
                Some(r.summary.output_schema_per_tool_after?.chars * r.summary.tools as f64)
            })
            .sum();
        Figures {
            output_schema_per_tool: (tools > 0)
                .then(|| chars / tools as f64 / crate::tokens::CHARS_PER_TOKEN),
            ..Figures::default()
        }
    }

    /// Every tool listed after, by name.
    pub fn of_tools(report: &ModuleReport) -> BTreeMap<String, Figures> {
        report
            .tools
            .iter()
            .filter_map(|t| {
                let after = t.after?;
                Some((
                    t.tool.clone(),
                    Figures {
                        catalogue_context: Some(after.context.primary),
                        catalogue_wire: Some(after.wire.primary),
                        text_per_call: t.text_per_call_after.map(|p| p.primary),
                        output_schema_per_tool: after.output_schema.map(|o| o.primary),
                    },
                ))
            })
            .collect()
    }
}
