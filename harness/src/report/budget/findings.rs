//! What holding a report to a budget gives: each figure's [`Usage`] of its limit at a
//! [`Place`], the [`Finding`]s of the check, and the limits [`Lowering`] tightened.

use std::fmt;

use super::figures::{Figure, Figures};
use crate::tokens::{PRIMARY, grouped};

/// What [`super::Budget::lower`] did.
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
    pub(super) fn unbudgeted(&mut self, place: Place, figures: &Figures) {
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
