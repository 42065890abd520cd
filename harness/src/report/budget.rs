//! The budget: limits people set on what a module's catalogue and calls may cost, per module and
//! per tool, and the check that holds a measurement to them (`modyo-lab measure --check`, and
//! the `measure` tests of `make test`).
//!
//! A budget is a committed file of limits, not a record of measurements: it changes when
//! someone decides a cost is acceptable, in the change that needs it. Four figures, each in
//! tokens at 2.902 characters per token: the catalogue as context (output schemas dropped), the
//! catalogue as wire (the `tools` array as sent), the mean `content[].text` per call over the
//! scenarios measured after, whatever their outcome, and the output schema per tool (a tool's
//! own; for a module, or all modules together, the mean over its listed tools).
//! [`Budget::from_reports`] writes a starting budget from a measurement with a stated headroom.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::report::ModuleReport;
use crate::tokens::{PRIMARY, grouped};

/// The format tag of a budget file.
pub const FORMAT: &str = "modyo-lab-budget/1";

/// The workspace's budget file (`budget.json` at the root).
pub fn default_path() -> PathBuf {
    crate::report::default_dir().with_file_name("budget.json")
}

/// Why a budget could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BudgetError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a budget.
    #[error("{}: not a budget: {reason}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// A budget file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// [`FORMAT`].
    pub format: String,
    /// The counter every limit is in: `chars/2.902`.
    pub counter: String,
    /// What the file is and how it was started (for people).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// The limits per module (or per measured server, by its `--name`).
    pub modules: BTreeMap<String, ModuleBudget>,
    /// The limits of every module together, checked on a full run only (every module measured):
    /// the mean output schema per tool over the whole catalogue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_modules: Option<Limits>,
}

/// One module's limits, and its tools'.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModuleBudget {
    /// The module as a whole: its `tools` array, and the mean over its scenarios.
    pub module: Limits,
    /// Every tool's limits; every listed tool needs an entry.
    pub tools: BTreeMap<String, Limits>,
}

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
    fn get(&self, figure: Figure) -> Option<f64> {
        match figure {
            Figure::CatalogueContext => self.catalogue_context,
            Figure::CatalogueWire => self.catalogue_wire,
            Figure::TextPerCall => self.text_per_call,
            Figure::OutputSchemaPerTool => self.output_schema_per_tool,
        }
    }

    fn slot(&mut self, figure: Figure) -> &mut Option<f64> {
        match figure {
            Figure::CatalogueContext => &mut self.catalogue_context,
            Figure::CatalogueWire => &mut self.catalogue_wire,
            Figure::TextPerCall => &mut self.text_per_call,
            Figure::OutputSchemaPerTool => &mut self.output_schema_per_tool,
        }
    }

    /// Lowers each limit to its figure plus `headroom` (rounded up) where that is lower;
    /// never raises one, never adds one.
    fn lower(&mut self, figures: &Figures, headroom: f64, place: &Place, out: &mut Lowering) {
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

    fn from_figures(figures: &Figures, headroom: f64) -> Limits {
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
fn with_headroom(value: f64, headroom: f64) -> f64 {
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
    fn get(&self, figure: Figure) -> Option<f64> {
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

/// What [`Budget::lower`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lowering {
    /// Every limit lowered, in the order module, its tools by name, then every module.
    pub lowered: Vec<Lowered>,
    /// How many limits were kept (their figure plus headroom is not lower).
    pub kept: usize,
    /// Measured figures without a limit, left so (only `--write-budget` adds limits).
    pub unbudgeted: Vec<(Place, Figure)>,
}

impl Lowering {
    /// Every figure measured at `place`, which has no limits.
    fn unbudgeted(&mut self, place: Place, figures: &Figures) {
        for figure in Figure::ALL {
            if figures.get(figure).is_some() {
                self.unbudgeted.push((place.clone(), figure));
            }
        }
    }
}

/// One limit lowered.
#[derive(Debug, Clone, PartialEq)]
pub struct Lowered {
    /// Where.
    pub place: Place,
    /// Which figure.
    pub figure: Figure,
    /// The limit before.
    pub from: f64,
    /// The limit now.
    pub to: f64,
}

impl fmt::Display for Lowered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} {} -> {}",
            self.place,
            self.figure.label(),
            tokens(self.from),
            tokens(self.to)
        )
    }
}

/// Where a finding is: a module, or one of its tools.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    /// The module.
    pub module: String,
    /// The tool, or `None` for the module as a whole.
    pub tool: Option<String>,
}

impl Place {
    /// A module (`tool` `None`) or one of its tools.
    pub fn new(module: &str, tool: Option<&str>) -> Place {
        Place {
            module: module.to_owned(),
            tool: tool.map(str::to_owned),
        }
    }

    /// Every module together.
    pub fn all_modules() -> Place {
        Place {
            module: String::new(),
            tool: None,
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.tool {
            Some(tool) => write!(f, "{tool}"),
            None if self.module.is_empty() => write!(f, "all modules"),
            None => write!(f, "module {}", self.module),
        }
    }
}

/// One figure against its limit.
#[derive(Debug, Clone, PartialEq)]
pub struct Usage {
    /// Where.
    pub place: Place,
    /// Which figure.
    pub figure: Figure,
    /// The measurement (chars/2.902).
    pub measured: f64,
    /// The limit (chars/2.902).
    pub limit: f64,
}

impl Usage {
    /// The measurement in percent of the limit.
    pub fn percent(&self) -> f64 {
        if self.limit > 0.0 {
            self.measured * 100.0 / self.limit
        } else if self.measured > 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    }
}

/// What the check found wrong.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Finding {
    /// A figure over its limit.
    Over(Usage),
    /// A measured module or tool with no limits in the budget.
    Unbudgeted(Place),
    /// A limit on a figure that was not measured (the tool is not listed, or none of its
    /// scenarios ran).
    Stale {
        /// Where.
        place: Place,
        /// Which figure (`None`: the whole entry).
        figure: Option<Figure>,
    },
}

/// A figure as messages print it: `2,300`, `2,412.3`.
fn tokens(x: f64) -> String {
    let x = crate::tokens::round1(x);
    grouped(x, if x.fract() == 0.0 { 0 } else { 1 })
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Over(u) if u.limit > 0.0 => write!(
                f,
                "{}: {} is {} tokens ({PRIMARY}), over its budget of {} by {} (+{:.1}%)",
                u.place,
                u.figure.label(),
                tokens(u.measured),
                tokens(u.limit),
                tokens(u.measured - u.limit),
                u.percent() - 100.0
            ),
            Finding::Over(u) => write!(
                f,
                "{}: {} is {} tokens ({PRIMARY}), over its budget of 0",
                u.place,
                u.figure.label(),
                tokens(u.measured),
            ),
            Finding::Unbudgeted(place) => write!(
                f,
                "{place}: measured but not in the budget (give it limits, or start them with `modyo-lab measure --write-budget`)"
            ),
            Finding::Stale {
                place,
                figure: None,
            } => write!(
                f,
                "{place}: in the budget but not measured (remove its entry)"
            ),
            Finding::Stale {
                place,
                figure: Some(figure),
            } => write!(
                f,
                "{place}: the budget limits its {} but nothing measured it (remove the limit, or add a scenario)",
                figure.label()
            ),
        }
    }
}

impl Budget {
    /// Reads a budget file.
    pub fn load(path: &Path) -> Result<Budget, BudgetError> {
        let text = std::fs::read_to_string(path).map_err(|source| BudgetError::Io {
            path: path.to_owned(),
            source,
        })?;
        let malformed = |reason: String| BudgetError::Malformed {
            path: path.to_owned(),
            reason,
        };
        let budget: Budget = serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        if budget.format != FORMAT {
            return Err(malformed(format!(
                "format {:?}, expected {FORMAT:?}",
                budget.format
            )));
        }
        if budget.counter != PRIMARY {
            return Err(malformed(format!(
                "counter {:?}, expected {PRIMARY:?}",
                budget.counter
            )));
        }
        Ok(budget)
    }

    /// Writes the budget (pretty JSON, sorted, with a final newline).
    pub fn save(&self, path: &Path) -> Result<(), BudgetError> {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        std::fs::write(path, text).map_err(|source| BudgetError::Io {
            path: path.to_owned(),
            source,
        })
    }

    /// A starting budget: every figure of `reports` plus `headroom` percent, rounded up to a
    /// whole token.
    pub fn from_reports(reports: &[ModuleReport], headroom: f64) -> Budget {
        let mut budget = Budget {
            format: FORMAT.into(),
            counter: PRIMARY.into(),
            note: format!(
                "Limits, not measurements: tokens ({PRIMARY}) that `modyo-lab measure --check` holds every measurement to \
(make test runs the same check). Started by `modyo-lab measure --write-budget --headroom {headroom}`: each figure measured then, plus {headroom}%, \
rounded up; `all_modules` (the mean output schema per tool over the whole catalogue, held on a full run) without headroom: \
the figure measured then, rounded up. Lower a limit when a change makes room; raise one only on purpose, in the change that needs it."
            ),
            modules: BTreeMap::new(),
            all_modules: None,
        };
        budget.set(reports, headroom);
        budget.set_all(reports);
        budget
    }

    /// Replaces the limits of every module together with the figures of `reports` (all the
    /// modules, a full run), rounded up to a whole token and without headroom: the mean output
    /// schema per tool is a level the catalogue keeps to, not a cost that may drift.
    pub fn set_all(&mut self, reports: &[ModuleReport]) {
        self.all_modules = Some(Limits::from_figures(&Figures::of_all(reports), 0.0));
    }

    /// Replaces the limits of the modules in `reports` with their figures plus `headroom`
    /// percent (the other modules keep theirs).
    pub fn set(&mut self, reports: &[ModuleReport], headroom: f64) {
        for report in reports {
            self.modules.insert(
                report.module.clone(),
                ModuleBudget {
                    module: Limits::from_figures(&Figures::of_module(report), headroom),
                    tools: Figures::of_tools(report)
                        .iter()
                        .map(|(tool, figures)| {
                            (tool.clone(), Limits::from_figures(figures, headroom))
                        })
                        .collect(),
                },
            );
        }
    }

    /// Tightens the budget to `reports` and never loosens it: every limit whose figure, plus
    /// `headroom` percent and rounded up, is lower than the limit becomes that; every other
    /// limit stays. With `every_module` (a full run) the limits of every module together are
    /// lowered the same way, without headroom (as [`Budget::set_all`] writes them). Modules not
    /// in `reports` are untouched; a figure without a limit gets none.
    pub fn lower(
        &mut self,
        reports: &[ModuleReport],
        headroom: f64,
        every_module: bool,
    ) -> Lowering {
        let mut out = Lowering::default();
        for report in reports {
            let place = |tool: Option<&str>| Place::new(&report.module, tool);
            let module = Figures::of_module(report);
            let Some(entry) = self.modules.get_mut(&report.module) else {
                out.unbudgeted(place(None), &module);
                continue;
            };
            entry
                .module
                .lower(&module, headroom, &place(None), &mut out);
            for (tool, figures) in Figures::of_tools(report) {
                match entry.tools.get_mut(&tool) {
                    Some(limits) => limits.lower(&figures, headroom, &place(Some(&tool)), &mut out),
                    None => out.unbudgeted(place(Some(&tool)), &figures),
                }
            }
        }
        if every_module && let Some(limits) = self.all_modules.as_mut() {
            limits.lower(
                &Figures::of_all(reports),
                0.0,
                &Place::all_modules(),
                &mut out,
            );
        }
        out
    }

    /// Every budgeted figure of `report` against its limit, module first, then tools by name.
    pub fn usage(&self, report: &ModuleReport) -> Vec<Usage> {
        let Some(entry) = self.modules.get(&report.module) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut push = |place: Place, limits: Limits, figures: Figures| {
            for figure in Figure::ALL {
                if let (Some(limit), Some(measured)) = (limits.get(figure), figures.get(figure)) {
                    out.push(Usage {
                        place: place.clone(),
                        figure,
                        measured,
                        limit,
                    });
                }
            }
        };
        let place = |tool: Option<&str>| Place::new(&report.module, tool);
        push(place(None), entry.module, Figures::of_module(report));
        for (tool, figures) in Figures::of_tools(report) {
            if let Some(limits) = entry.tools.get(&tool) {
                push(place(Some(&tool)), *limits, figures);
            }
        }
        out
    }

    /// Every budgeted figure of every module together (`reports` are all the modules).
    pub fn usage_all(&self, reports: &[ModuleReport]) -> Vec<Usage> {
        let (Some(limits), figures) = (self.all_modules, Figures::of_all(reports)) else {
            return Vec::new();
        };
        Figure::ALL
            .into_iter()
            .filter_map(|figure| {
                Some(Usage {
                    place: Place::all_modules(),
                    figure,
                    measured: figures.get(figure)?,
                    limit: limits.get(figure)?,
                })
            })
            .collect()
    }

    fn all_findings(&self, reports: &[ModuleReport]) -> Vec<Finding> {
        let Some(limits) = self.all_modules else {
            return Vec::new();
        };
        let figures = Figures::of_all(reports);
        let stale = Figure::ALL
            .into_iter()
            .filter(|f| limits.get(*f).is_some() && figures.get(*f).is_none())
            .map(|figure| Finding::Stale {
                place: Place::all_modules(),
                figure: Some(figure),
            });
        let over = self
            .usage_all(reports)
            .into_iter()
            .filter(|u| u.measured > u.limit)
            .map(Finding::Over);
        stale.chain(over).collect()
    }

    /// Holds `reports` to the budget. With `every_module`, a module in the budget that was not
    /// measured is stale too (a full run); otherwise only the measured modules are checked.
    pub fn check(&self, reports: &[ModuleReport], every_module: bool) -> Vec<Finding> {
        let mut findings = Vec::new();
        for report in reports {
            let place = |tool: Option<&str>| Place::new(&report.module, tool);
            let Some(entry) = self.modules.get(&report.module) else {
                findings.push(Finding::Unbudgeted(place(None)));
                continue;
            };
            let tools = Figures::of_tools(report);
            let stale_figures =
                |findings: &mut Vec<Finding>, place: Place, limits: Limits, figures: Figures| {
                    for figure in Figure::ALL {
                        if limits.get(figure).is_some() && figures.get(figure).is_none() {
                            findings.push(Finding::Stale {
                                place: place.clone(),
                                figure: Some(figure),
                            });
                        }
                    }
                };
            stale_figures(
                &mut findings,
                place(None),
                entry.module,
                Figures::of_module(report),
            );
            for (tool, limits) in &entry.tools {
                match tools.get(tool) {
                    Some(figures) => {
                        stale_figures(&mut findings, place(Some(tool)), *limits, *figures)
                    }
                    None => findings.push(Finding::Stale {
                        place: place(Some(tool)),
                        figure: None,
                    }),
                }
            }
            for tool in tools.keys() {
                if !entry.tools.contains_key(tool) {
                    findings.push(Finding::Unbudgeted(place(Some(tool))));
                }
            }
            findings.extend(
                self.usage(report)
                    .into_iter()
                    .filter(|u| u.measured > u.limit)
                    .map(Finding::Over),
            );
        }
        if every_module {
            findings.extend(self.all_findings(reports));
        }
        if every_module {
            for module in self.modules.keys() {
                if !reports.iter().any(|r| &r.module == module) {
                    findings.push(Finding::Stale {
                        place: Place {
                            module: module.clone(),
                            tool: None,
                        },
                        figure: None,
                    });
                }
            }
        }
        findings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headroom_rounds_up_to_a_whole_token_without_float_noise() {
        assert_eq!(with_headroom(100.0, 10.0), 110.0);
        assert_eq!(with_headroom(100.1, 10.0), 111.0);
        assert_eq!(with_headroom(0.0, 10.0), 0.0);
        assert_eq!(with_headroom(12.3, 0.0), 13.0);
    }

    #[test]
    fn an_overrun_names_the_tool_the_figure_the_budget_and_the_excess() {
        let finding = Finding::Over(Usage {
            place: Place {
                module: "content".into(),
                tool: Some("content-entries-list".into()),
            },
            figure: Figure::CatalogueWire,
            measured: 2412.3,
            limit: 2300.0,
        });
        assert_eq!(
            finding.to_string(),
            "content-entries-list: catalogue wire is 2,412.3 tokens (chars/2.902), over its budget of 2,300 by 112.3 (+4.9%)"
        );
    }

    #[test]
    fn a_budget_file_must_say_its_format_and_counter() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("budget.json");
        let budget = Budget {
            format: FORMAT.into(),
            counter: PRIMARY.into(),
            note: String::new(),
            modules: BTreeMap::new(),
            all_modules: None,
        };
        budget.save(&path).unwrap();
        assert_eq!(Budget::load(&path).unwrap(), budget);
        std::fs::write(
            &path,
            r#"{"format": "modyo-lab-budget/1", "counter": "o200k_base", "modules": {}}"#,
        )
        .unwrap();
        let err = Budget::load(&path).unwrap_err().to_string();
        assert!(err.contains("counter"), "{err}");
        std::fs::write(&path, r#"{"format": "modyo-lab-budget/1", "counter": "chars/2.902", "modules": {"m": {"tools": {"t": {"wire": 1}}}}}"#).unwrap();
        let err = Budget::load(&path).unwrap_err().to_string();
        assert!(err.contains("unknown field"), "{err}");
    }
}
