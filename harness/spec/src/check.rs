//! Every interaction of a set of cassettes held to the surfaces, with the shrink-only list of
//! known contradictions applied: the part of `modyo-lab cassettes check` that compares the
//! cassettes with Modyo's published specification.
//!
//! A contradiction is identified by its endpoint, its kind and its subject (`GET
//! /api/admin/content/spaces/{space_id}/entries`, `query_name`, `type_uid`), wherever it
//! occurs: one fix of the server's request clears it from every cassette. Each is either on the
//! list ([`super::known::KNOWN_CONTRADICTIONS`]) or a problem; a list entry that matches
//! nothing is stale, and a problem too. So is an `undocumented` mark no interaction uses, and
//! a mark on an endpoint the specification documents.
//!
//! Tools are attributed to interactions without replaying: an interaction belongs to the tools
//! of its cassette's scenarios and of every cassette that includes it, transitively.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::conform::{Class, Judgement, Kind, ResponseHeld, Surfaces, WarningKind, count};
use super::known::Known;
use crate::{Problem, ProblemKind};
use modyo_replay::cassette::Cassette;

/// One interaction and its judgement.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The cassette.
    pub cassette: String,
    /// The interaction's index in it.
    pub index: usize,
    /// `GET /api/admin/content/spaces?page=1` as recorded.
    pub request: String,
    /// The judgement.
    #[serde(flatten)]
    pub judgement: Judgement,
}

impl Verdict {
    /// Documented (and contradiction-free), undocumented, or contradicted.
    pub fn standing(&self) -> Standing {
        if !self.judgement.contradictions.is_empty() {
            Standing::Contradicted
        } else if matches!(self.judgement.class, Class::Undocumented { .. }) {
            Standing::Undocumented
        } else {
            Standing::Documented
        }
    }
}

/// Where an interaction stands against the specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// On a documented operation, in agreement with it (warnings aside).
    Documented,
    /// On an endpoint its cassette marks undocumented.
    Undocumented,
    /// With at least one contradiction.
    Contradicted,
}

/// One distinct contradiction and where it occurs.
#[derive(Debug, Clone, Serialize)]
pub struct Contradiction {
    /// `METHOD /template`.
    pub endpoint: String,
    /// Its kind.
    pub kind: Kind,
    /// The parameter, key path or status (empty when the endpoint is the subject).
    pub subject: String,
    /// What the specification says (from the first occurrence).
    pub detail: String,
    /// Every `(cassette, index)` it occurs in.
    pub occurrences: Vec<(String, usize)>,
    /// The tools those interactions belong to.
    pub tools: BTreeSet<String>,
    /// The list entry's reason, when it is a known contradiction.
    pub known: Option<&'static str>,
}

impl Contradiction {
    /// `GET /x query_name type_uid`.
    pub fn key(&self) -> String {
        key(&self.endpoint, self.kind, &self.subject)
    }
}

fn key(endpoint: &str, kind: Kind, subject: &str) -> String {
    if subject.is_empty() {
        format!("{endpoint} {kind}")
    } else {
        format!("{endpoint} {kind} {subject}")
    }
}

/// Counts for one cassette directory (`content`, `faults`...).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Interactions.
    pub interactions: usize,
    /// Documented and in agreement.
    pub documented: usize,
    /// Marked undocumented.
    pub undocumented: usize,
    /// With a contradiction.
    pub contradicted: usize,
    /// Warnings.
    pub warnings: usize,
}

/// The whole result.
#[derive(Debug, Clone, Serialize)]
pub struct Conformance {
    /// Operations per API.
    pub operations: BTreeMap<String, usize>,
    /// Counts over every interaction.
    pub totals: Counts,
    /// Counts per cassette directory.
    pub modules: BTreeMap<String, Counts>,
    /// How responses were held.
    pub responses: BTreeMap<ResponseHeld, usize>,
    /// Warnings by kind.
    pub warnings: BTreeMap<WarningKind, usize>,
    /// Distinct contradictions, sorted by key.
    pub contradictions: Vec<Contradiction>,
    /// Known (listed) contradictions per module of the entry's tool.
    pub known_per_module: BTreeMap<String, usize>,
    /// Every applied erratum and how many contradictions it resolves.
    pub errata: Vec<ErratumUse>,
    /// Every interaction's verdict, sorted by cassette and index (not in the JSON report).
    #[serde(skip)]
    pub verdicts: Vec<Verdict>,
    /// Problems: unlisted contradictions, bad marks, stale list entries.
    pub problems: Vec<Problem>,
}

/// What one applied erratum does to the cassettes.
#[derive(Debug, Clone, Serialize)]
pub struct ErratumUse {
    /// The erratum's name.
    pub name: &'static str,
    /// Contradictions the published text would give that the correction resolves, counted
    /// per interaction.
    pub resolved: usize,
    /// Interactions with at least one of those.
    pub interactions: usize,
}

/// The module of a tool (`content-entries-list` is in `content`).
pub fn tool_module(tool: &str) -> &str {
    tool.split('-').next().unwrap_or(tool)
}

/// The module of a cassette (`content/entries` is in `content`).
pub fn cassette_module(cassette: &str) -> &str {
    cassette.split('/').next().unwrap_or(cassette)
}

/// The tools each cassette's interactions belong to: its scenarios' tools and those of every
/// cassette that includes it, transitively.
pub fn attribution(cassettes: &[Cassette]) -> BTreeMap<String, BTreeSet<String>> {
    let mut tools: BTreeMap<String, BTreeSet<String>> = cassettes
        .iter()
        .map(|c| {
            (
                c.name().to_owned(),
                c.scenarios.iter().map(|s| s.tool.clone()).collect(),
            )
        })
        .collect();
    // Push tools down the include edges until nothing changes (the graph is acyclic).
    loop {
        let mut changed = false;
        for c in cassettes {
            let mine = tools.get(c.name()).cloned().unwrap_or_default();
            for include in &c.include {
                let theirs = tools.entry(include.clone()).or_default();
                let before = theirs.len();
                theirs.extend(mine.iter().cloned());
                changed |= theirs.len() != before;
            }
        }
        if !changed {
            return tools;
        }
    }
}

/// `; used by a, b, c and 4 more` (empty for no tool).
fn used_by(tools: &BTreeSet<String>) -> String {
    const SHOWN: usize = 3;
    if tools.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = tools.iter().take(SHOWN).map(String::as_str).collect();
    let more = tools.len().saturating_sub(SHOWN);
    if more == 0 {
        format!("; used by {}", names.join(", "))
    } else {
        format!("; used by {} and {more} more", names.join(", "))
    }
}

/// Holds every interaction of `cassettes` to `surfaces` and applies `known`.
pub fn run(cassettes: &[Cassette], surfaces: &Surfaces, known: &[Known]) -> Conformance {
    let tools = attribution(cassettes);
    let mut verdicts = Vec::new();
    let mut problems = Vec::new();
    for cassette in cassettes {
        let fault = cassette.has_tag("fault");
        let mut used = vec![false; cassette.undocumented.len()];
        for (index, interaction) in cassette.interactions.iter().enumerate() {
            let judgement = surfaces.judge(interaction, &cassette.undocumented, fault);
            if let Class::Undocumented { mark } = judgement.class {
                used[mark] = true;
            }
            verdicts.push(Verdict {
                cassette: cassette.name().to_owned(),
                index,
                request: modyo_replay::cassette::request_line(&interaction.request),
                judgement,
            });
        }
        for (mark, used) in cassette.undocumented.iter().zip(used) {
            let line = format!("{} {}", mark.method, mark.path);
            if let Some(documented) = surfaces.documents_mark(mark) {
                problems.push(Problem {
                    cassette: cassette.name().to_owned(),
                    kind: ProblemKind::UndocumentedMark,
                    detail: format!(
                        "undocumented {line}: the specification documents {documented}; hold the requests to it instead of marking them"
                    ),
                });
            } else if !used {
                problems.push(Problem {
                    cassette: cassette.name().to_owned(),
                    kind: ProblemKind::UndocumentedMark,
                    detail: format!(
                        "undocumented {line}: no interaction of this cassette uses it; remove the mark"
                    ),
                });
            }
        }
    }

    // Group the contradictions by key.
    let mut grouped: BTreeMap<String, Contradiction> = BTreeMap::new();
    for verdict in &verdicts {
        for finding in &verdict.judgement.contradictions {
            let k = key(&verdict.judgement.endpoint, finding.kind, &finding.subject);
            let entry = grouped.entry(k).or_insert_with(|| Contradiction {
                endpoint: verdict.judgement.endpoint.clone(),
                kind: finding.kind,
                subject: finding.subject.clone(),
                detail: finding.detail.clone(),
                occurrences: Vec::new(),
                tools: BTreeSet::new(),
                known: None,
            });
            entry
                .occurrences
                .push((verdict.cassette.clone(), verdict.index));
            entry
                .tools
                .extend(tools.get(&verdict.cassette).into_iter().flatten().cloned());
        }
    }
    let list = super::known::LIST_FILE;
    let mut known_per_module: BTreeMap<String, usize> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for entry in known {
        let k = key(entry.endpoint, entry.kind, entry.subject);
        if !seen.insert(k.clone()) {
            problems.push(Problem {
                cassette: list.into(),
                kind: ProblemKind::KnownList,
                detail: format!("{k}: listed twice"),
            });
            continue;
        }
        match grouped.get_mut(&k) {
            None => problems.push(Problem {
                cassette: list.into(),
                kind: ProblemKind::KnownList,
                detail: format!(
                    "stale entry ({}): {k} no longer occurs; remove it (the list only shrinks)",
                    entry.tool
                ),
            }),
            Some(found) if !found.tools.contains(entry.tool) => problems.push(Problem {
                cassette: list.into(),
                kind: ProblemKind::KnownList,
                detail: format!(
                    "{k}: the entry names {}, but the interactions belong to {}",
                    entry.tool,
                    found.tools.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            }),
            Some(found) => {
                found.known = Some(entry.reason);
                *known_per_module
                    .entry(tool_module(entry.tool).to_owned())
                    .or_default() += 1;
            }
        }
    }
    for found in grouped.values().filter(|c| c.known.is_none()) {
        let (cassette, index) = &found.occurrences[0];
        let more = found.occurrences.len() - 1;
        problems.push(Problem {
            cassette: cassette.clone(),
            kind: ProblemKind::Contradiction,
            detail: format!(
                "interactions[{index}] {}: {}{}{}",
                found.key(),
                found.detail,
                if more > 0 {
                    format!(" (and {more} more interaction(s))")
                } else {
                    String::new()
                },
                used_by(&found.tools)
            ),
        });
    }
    let errata = errata_use(cassettes, surfaces, &verdicts, &mut problems);
    problems.sort();

    let mut totals = Counts::default();
    let mut modules: BTreeMap<String, Counts> = BTreeMap::new();
    for verdict in &verdicts {
        for counts in [
            &mut totals,
            modules
                .entry(cassette_module(&verdict.cassette).to_owned())
                .or_default(),
        ] {
            counts.interactions += 1;
            counts.warnings += verdict.judgement.warnings.len();
            match verdict.standing() {
                Standing::Documented => counts.documented += 1,
                Standing::Undocumented => counts.undocumented += 1,
                Standing::Contradicted => counts.contradicted += 1,
            }
        }
    }
    Conformance {
        operations: surfaces
            .surfaces()
            .iter()
            .map(|s| (s.api.clone(), s.operations.len()))
            .collect(),
        totals,
        modules,
        responses: count(verdicts.iter().map(|v| v.judgement.response)),
        warnings: count(
            verdicts
                .iter()
                .flat_map(|v| v.judgement.warnings.iter().map(|w| w.kind)),
        ),
        contradictions: grouped.into_values().collect(),
        known_per_module,
        errata,
        verdicts,
        problems,
    }
}

/// What each applied erratum resolves: every interaction on one of its places' endpoints
/// judged again without it. An erratum that resolves nothing is unused, and one the surfaces
/// refused is stale: both are problems.
fn errata_use(
    cassettes: &[Cassette],
    surfaces: &Surfaces,
    verdicts: &[Verdict],
    problems: &mut Vec<Problem>,
) -> Vec<ErratumUse> {
    let list = super::errata::LIST_FILE;
    for (erratum, why) in surfaces.refused() {
        problems.push(Problem {
            cassette: list.into(),
            kind: ProblemKind::Erratum,
            detail: format!(
                "stale or invalid erratum {}: {why}; correct or remove it",
                erratum.name
            ),
        });
    }
    let interactions: Vec<(&Cassette, &modyo_replay::cassette::Interaction)> = cassettes
        .iter()
        .flat_map(|c| c.interactions.iter().map(move |i| (c, i)))
        .collect();
    let mut uses = Vec::new();
    for (index, erratum) in surfaces.errata().iter().enumerate() {
        let endpoints: BTreeSet<String> = erratum
            .places
            .iter()
            .filter_map(|p| surfaces.endpoint_of(p))
            .collect();
        let without = match surfaces.without_erratum(index) {
            Ok(without) => without,
            Err(e) => {
                problems.push(Problem {
                    cassette: list.into(),
                    kind: ProblemKind::Erratum,
                    detail: format!("erratum {}: {e}", erratum.name),
                });
                continue;
            }
        };
        let mut used = ErratumUse {
            name: erratum.name,
            resolved: 0,
            interactions: 0,
        };
        for ((cassette, interaction), verdict) in interactions.iter().zip(verdicts) {
            if !endpoints.contains(&verdict.judgement.endpoint) {
                continue;
            }
            let again = without.judge(
                interaction,
                &cassette.undocumented,
                cassette.has_tag("fault"),
            );
            let resolved = again
                .contradictions
                .iter()
                .filter(|f| !verdict.judgement.contradictions.contains(f))
                .count();
            used.resolved += resolved;
            used.interactions += usize::from(resolved > 0);
        }
        if used.resolved == 0 {
            problems.push(Problem {
                cassette: list.into(),
                kind: ProblemKind::Erratum,
                detail: format!(
                    "unused erratum {}: no interaction contradicts the published text it corrects; remove it",
                    erratum.name
                ),
            });
        }
        uses.push(used);
    }
    uses
}

impl Conformance {
    /// A few lines for the `cassettes check` report.
    pub fn summary(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let operations: Vec<String> = self
            .operations
            .iter()
            .map(|(api, n)| format!("{api} {n}"))
            .collect();
        let _ = writeln!(
            out,
            "API surface: {} operation(s) ({})",
            self.operations.values().sum::<usize>(),
            operations.join(", ")
        );
        let t = &self.totals;
        let _ = writeln!(
            out,
            "interactions: {} documented, {} undocumented, {} contradicted, of {}; {} warning(s)",
            t.documented, t.undocumented, t.contradicted, t.interactions, t.warnings
        );
        for (module, c) in &self.modules {
            let _ = writeln!(
                out,
                "  {module}: {} documented, {} undocumented, {} contradicted, of {}; {} warning(s)",
                c.documented, c.undocumented, c.contradicted, c.interactions, c.warnings
            );
        }
        let warnings: Vec<String> = self
            .warnings
            .iter()
            .map(|(k, n)| format!("{} {n}", k.as_str()))
            .collect();
        if !warnings.is_empty() {
            let _ = writeln!(out, "warnings: {}", warnings.join(", "));
        }
        let held: Vec<String> = self
            .responses
            .iter()
            .map(|(k, n)| {
                let name = serde_json::to_value(k)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                format!("{name} {n}")
            })
            .collect();
        let _ = writeln!(out, "responses: {}", held.join(", "));
        let known = self
            .contradictions
            .iter()
            .filter(|c| c.known.is_some())
            .count();
        let per_module: Vec<String> = self
            .known_per_module
            .iter()
            .map(|(m, n)| format!("{m} {n}"))
            .collect();
        let _ = writeln!(
            out,
            "contradictions: {} distinct, {known} on the shrink-only list ({}), {} new",
            self.contradictions.len(),
            per_module.join(", "),
            self.contradictions.len() - known
        );
        out
    }
}
