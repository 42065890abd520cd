//! What the cassette check finds: one [`Problem`] with one cassette, of a [`ProblemKind`]. The
//! surface check ([`crate::check`]) gives some kinds; `modyo-lab cassettes check` the others.

use serde::Serialize;

/// The kind of a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// The file does not parse, or an include does not resolve.
    Invalid,
    /// A secret is stored.
    Secret,
    /// No scenario uses the cassette.
    UnusedCassette,
    /// No scenario played the interaction.
    UnusedInteraction,
    /// A scenario's request matched nothing.
    Miss,
    /// A scenario's outcome is not its `expect`.
    Outcome,
    /// An interaction contradicts the API surface, and the contradiction is not on the list.
    Contradiction,
    /// An `undocumented` mark is unused, or covers a documented endpoint.
    UndocumentedMark,
    /// An entry of the known-contradictions list is stale or names the wrong tool.
    KnownList,
    /// An erratum no longer matches the specification, lacks evidence, or corrects nothing
    /// an interaction needs.
    Erratum,
}

/// One problem with one cassette.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Problem {
    /// The cassette name.
    pub cassette: String,
    /// What kind of problem.
    pub kind: ProblemKind,
    /// What and where (never a secret value).
    pub detail: String,
}
