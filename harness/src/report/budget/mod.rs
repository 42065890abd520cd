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
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::report::ModuleReport;
use crate::tokens::PRIMARY;

mod figures;
mod findings;

pub use figures::{Figure, Figures, Limits};
pub use findings::{Finding, Lowered, Lowering, Place, Usage};

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
mod tests;
