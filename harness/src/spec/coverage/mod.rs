//! `modyo-lab spec coverage`: which endpoints each tool calls, and where each stands against
//! Modyo's published specification; written to `reports/api-coverage.md` and `.json`.
//!
//! Which interactions a tool uses is found by replaying: every scenario of every cassette runs
//! through the real server in its own session, exactly as the scenario tests run it, and the
//! interactions it played (the mounted ones its session did not leave unused) are its own.
//! Each interaction's standing comes from the conformance check ([`modyo_spec::check`]):
//! documented (and in agreement), undocumented (with the cassette's evidence), or contradicted.
//! An endpoint is contradicted for a tool when any interaction of it the tool played is; a
//! scenario runs on documented endpoints only when every interaction it played is documented.
//!
//! The report has no date and no timing: the same cassettes, surfaces and server give the same
//! bytes, which a test checks against the committed files.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::session::{Library, Session};
use modyo_replay::cassette::{Cassette, CassetteError};
use modyo_replay::replay::ReplayOptions;
use modyo_spec::check::{self, Standing, tool_module};
use modyo_spec::conform::{Class, Surfaces};
use modyo_spec::contested::CONTESTED;
use modyo_spec::errata::ERRATA;
use modyo_spec::known::KNOWN_CONTRADICTIONS;
use modyo_spec::moved::{CHANGES, DOCS_PLATFORM, PLATFORM_EVIDENCE, SURFACE_PLATFORM};

mod markdown;

/// The report's file stem under `reports/`.
pub const REPORT_STEM: &str = "api-coverage";

/// Why the report could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoverageError {
    /// The cassettes did not load.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// The surfaces did not load.
    #[error(transparent)]
    Spec(#[from] modyo_spec::SpecError),
    /// A scenario's session did not start.
    #[error("{scenario}: {reason}")]
    Session {
        /// `cassette#scenario`.
        scenario: String,
        /// Why.
        reason: String,
    },
    /// A report file could not be written or read.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// One endpoint as one tool uses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EndpointUse {
    /// `METHOD /template`.
    pub endpoint: String,
    /// Its standing for this tool.
    pub standing: Standing,
    /// For an undocumented endpoint: the evidence, and the cassette's note.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    /// For a contradicted endpoint: `kind subject` of each contradiction.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contradictions: Vec<String>,
}

/// One tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCoverage {
    /// The tool name.
    pub tool: String,
    /// Its scenarios.
    pub scenarios: usize,
    /// Those that made no HTTP request.
    pub without_requests: usize,
    /// Those whose every interaction is documented.
    pub documented_only: usize,
    /// The endpoints it calls, sorted.
    pub endpoints: Vec<EndpointUse>,
    /// What its endpoints were checked against (see [`modyo_spec::moved::checked_against`]).
    pub checked_against: Vec<String>,
    /// The platform changes since the published specification that touch its endpoints.
    pub may_have_moved: Vec<String>,
}

impl ToolCoverage {
    /// Whether any endpoint it calls is undocumented with no public evidence.
    pub fn unconfirmed(&self) -> bool {
        self.endpoints.iter().any(|e| {
            e.standing == Standing::Undocumented && e.evidence.iter().any(|v| unsourced(v))
        })
    }
}

/// Whether an endpoint's evidence, as the report writes it (`none`, or `none (note)` when the
/// mark has a note), names no public source.
fn unsourced(evidence: &str) -> bool {
    evidence == "none" || evidence.starts_with("none (")
}

/// One module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModuleCoverage {
    /// `content`, `channels`...
    pub module: String,
    /// Scenarios of its tools.
    pub scenarios: usize,
    /// Those that made no HTTP request.
    pub without_requests: usize,
    /// Those on documented endpoints only.
    pub documented_only: usize,
    /// Distinct endpoints its tools call, by standing (an endpoint contradicted for one tool
    /// counts as contradicted).
    pub endpoints: BTreeMap<Standing, usize>,
    /// Known contradictions on the shrink-only list for its tools.
    pub known_contradictions: usize,
    /// Its tools.
    pub tools: Vec<ToolCoverage>,
}

/// One surface, as the report names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SurfaceLine {
    /// The API.
    pub api: String,
    /// Its operations.
    pub operations: usize,
    /// The source.
    pub source: String,
    /// The ref.
    pub git_ref: String,
    /// The commit.
    pub commit: String,
    /// The date.
    pub date: String,
    /// The document's SHA-256.
    pub sha256: String,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// The surfaces held to.
    pub surfaces: Vec<SurfaceLine>,
    /// Interactions over every cassette, by standing.
    pub interactions: BTreeMap<Standing, usize>,
    /// Warnings over every cassette.
    pub warnings: usize,
    /// Distinct contradictions (all on the shrink-only list when the check passes).
    pub contradictions: usize,
    /// Scenarios replayed.
    pub scenarios: usize,
    /// Those on documented endpoints only.
    pub documented_only: usize,
    /// Those that made no HTTP request.
    pub without_requests: usize,
    /// The corrections of the published specification applied, with their evidence.
    pub errata: Vec<ErratumLine>,
    /// The calls a public source contradicts, and what was done about each.
    pub contested: Vec<ContestedLine>,
    /// What the published specification and the documentation describe.
    pub platforms: PlatformLine,
    /// The platform changes since the published specification, with the tools they touch.
    pub changes: Vec<ChangeLine>,
    /// Per module.
    pub modules: Vec<ModuleCoverage>,
}

/// One erratum as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErratumLine {
    /// Its name.
    pub name: String,
    /// What the published document gets wrong.
    pub subject: String,
    /// Every place of the surface it corrects.
    pub places: Vec<String>,
    /// What the surface declares there.
    pub declared: String,
    /// The correction.
    pub corrected: String,
    /// The evidence.
    pub evidence: Vec<String>,
    /// Why the evidence proves it.
    pub reason: String,
    /// Contradictions of the published text it resolves in the cassettes (per interaction).
    pub resolved: usize,
}

/// One contested call as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContestedLine {
    /// Its name.
    pub name: String,
    /// The tools that make it.
    pub tools: Vec<String>,
    /// What the server sends (or sent).
    pub call: String,
    /// The evidence, each with what it shows.
    pub evidence: Vec<String>,
    /// What was done.
    pub resolution: modyo_spec::contested::Resolution,
    /// The change, or why it is kept or refused.
    pub why: String,
    /// What may go wrong on a real account.
    pub risk: String,
}

/// The platform versions the sources describe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlatformLine {
    /// The published specification.
    pub surface: String,
    /// The documentation's master branch.
    pub docs: String,
    /// What shows both.
    pub evidence: Vec<String>,
}

/// One platform change since the published specification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeLine {
    /// Its name.
    pub name: String,
    /// What changed, and when.
    pub what: String,
    /// What shows it.
    pub evidence: Vec<String>,
    /// The tools that call an endpoint it touches.
    pub tools: Vec<String>,
}

/// What one scenario played.
struct Run {
    tool: String,
    played: Vec<(String, usize)>,
}

/// Replays every scenario of the cassettes under `cassettes` and builds the report against
/// the surfaces in `spec`. `concurrency` sessions run at once.
pub async fn build(
    cassettes: &Path,
    spec: &Path,
    concurrency: usize,
) -> Result<Coverage, CoverageError> {
    let library = Library::load(cassettes)?;
    let surfaces = Surfaces::load_with_errata(spec, ERRATA)?;
    let all: Vec<Cassette> = library.cassettes().cloned().collect();
    let conformance = check::run(&all, &surfaces, KNOWN_CONTRADICTIONS);
    let verdicts: BTreeMap<(String, usize), &check::Verdict> = conformance
        .verdicts
        .iter()
        .map(|v| ((v.cassette.clone(), v.index), v))
        .collect();

    let jobs: Vec<(String, modyo_replay::cassette::Scenario, Vec<Cassette>)> = library
        .scenarios()
        .into_iter()
        .map(|(c, s)| Ok((c.name().to_owned(), s.clone(), library.mount_set(c.name())?)))
        .collect::<Result<_, CassetteError>>()?;
    // Each scenario in its own task, `concurrency` at a time; results in scenario order.
    let permits = std::sync::Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    for (order, (cassette, scenario, mount)) in jobs.into_iter().enumerate() {
        let permit = permits.clone().acquire_owned().await;
        tasks.spawn(async move {
            let _permit = permit;
            (order, replay(&cassette, &scenario, &mount).await)
        });
    }
    let mut runs: Vec<(usize, Result<Run, CoverageError>)> = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        runs.push(joined.map_err(|e| CoverageError::Session {
            scenario: "a replay task".into(),
            reason: e.to_string(),
        })?);
    }
    runs.sort_by_key(|(order, _)| *order);
    let runs: Vec<Result<Run, CoverageError>> = runs.into_iter().map(|(_, run)| run).collect();
    let runs = runs.into_iter().collect::<Result<Vec<_>, _>>()?;

    // Per tool: its scenarios' runs.
    let mut by_tool: BTreeMap<String, Vec<&Run>> = BTreeMap::new();
    for run in &runs {
        by_tool.entry(run.tool.clone()).or_default().push(run);
    }
    let marks: BTreeMap<&str, &Cassette> = all.iter().map(|c| (c.name(), c)).collect();
    let mut tools: Vec<ToolCoverage> = Vec::new();
    for (tool, runs) in &by_tool {
        let mut endpoints: BTreeMap<String, EndpointUse> = BTreeMap::new();
        let mut documented_only = 0;
        let mut without_requests = 0;
        for run in runs {
            if run.played.is_empty() {
                without_requests += 1;
                continue;
            }
            let mut clean = true;
            for key in &run.played {
                let Some(verdict) = verdicts.get(key) else {
                    continue;
                };
                let standing = verdict.standing();
                clean &= standing == Standing::Documented;
                let entry = endpoints
                    .entry(verdict.judgement.endpoint.clone())
                    .or_insert_with(|| EndpointUse {
                        endpoint: verdict.judgement.endpoint.clone(),
                        standing,
                        evidence: Vec::new(),
                        contradictions: Vec::new(),
                    });
                entry.standing = entry.standing.max(standing);
                if let Class::Undocumented { mark } = verdict.judgement.class
                    && let Some(mark) = marks
                        .get(verdict.cassette.as_str())
                        .and_then(|c| c.undocumented.get(mark))
                {
                    let mut evidence = mark.evidence.to_string();
                    if let Some(note) = &mark.note {
                        let _ = write!(evidence, " ({note})");
                    }
                    if !entry.evidence.contains(&evidence) {
                        entry.evidence.push(evidence);
                    }
                }
                for finding in &verdict.judgement.contradictions {
                    let text = if finding.subject.is_empty() {
                        finding.kind.to_string()
                    } else {
                        format!("{} {}", finding.kind, finding.subject)
                    };
                    if !entry.contradictions.contains(&text) {
                        entry.contradictions.push(text);
                    }
                }
            }
            if clean {
                documented_only += 1;
            }
        }
        let mut endpoints: Vec<EndpointUse> = endpoints.into_values().collect();
        for e in &mut endpoints {
            e.evidence.sort();
            e.contradictions.sort();
            if e.standing == Standing::Contradicted {
                e.evidence.clear();
            }
        }
        let checked_against = modyo_spec::moved::checked_against(
            endpoints
                .iter()
                .map(|e| (e.standing != Standing::Undocumented, e.evidence.as_slice())),
        );
        let may_have_moved = CHANGES
            .iter()
            .filter(|c| endpoints.iter().any(|e| c.touches(&e.endpoint)))
            .map(|c| c.name.to_owned())
            .collect();
        tools.push(ToolCoverage {
            tool: tool.clone(),
            scenarios: runs.len(),
            without_requests,
            documented_only,
            endpoints,
            checked_against,
            may_have_moved,
        });
    }

    let known: BTreeMap<&str, usize> =
        KNOWN_CONTRADICTIONS
            .iter()
            .fold(BTreeMap::new(), |mut m, k| {
                *m.entry(tool_module(k.tool)).or_default() += 1;
                m
            });
    let mut modules: BTreeMap<String, ModuleCoverage> = BTreeMap::new();
    for tool in tools {
        let module = tool_module(&tool.tool).to_owned();
        let entry = modules
            .entry(module.clone())
            .or_insert_with(|| ModuleCoverage {
                known_contradictions: known.get(module.as_str()).copied().unwrap_or(0),
                module,
                scenarios: 0,
                without_requests: 0,
                documented_only: 0,
                endpoints: BTreeMap::new(),
                tools: Vec::new(),
            });
        entry.scenarios += tool.scenarios;
        entry.without_requests += tool.without_requests;
        entry.documented_only += tool.documented_only;
        entry.tools.push(tool);
    }
    for module in modules.values_mut() {
        let mut standing: BTreeMap<&str, Standing> = BTreeMap::new();
        for e in module.tools.iter().flat_map(|t| &t.endpoints) {
            let s = standing.entry(e.endpoint.as_str()).or_insert(e.standing);
            *s = (*s).max(e.standing);
        }
        module.endpoints = modyo_spec::conform::count(standing.into_values());
    }
    let modules: Vec<ModuleCoverage> = modules.into_values().collect();
    Ok(Coverage {
        surfaces: surfaces
            .surfaces()
            .iter()
            .map(|s| SurfaceLine {
                api: s.api.clone(),
                operations: s.operations.len(),
                source: s.provenance.source.clone(),
                git_ref: s.provenance.git_ref.clone().unwrap_or_default(),
                commit: s.provenance.commit.clone().unwrap_or_default(),
                date: s.provenance.date.clone().unwrap_or_default(),
                sha256: s.provenance.sha256.clone(),
            })
            .collect(),
        interactions: modyo_spec::conform::count(
            conformance.verdicts.iter().map(check::Verdict::standing),
        ),
        warnings: conformance.totals.warnings,
        contradictions: conformance.contradictions.len(),
        scenarios: modules.iter().map(|m| m.scenarios).sum(),
        documented_only: modules.iter().map(|m| m.documented_only).sum(),
        without_requests: modules.iter().map(|m| m.without_requests).sum(),
        errata: surfaces
            .errata()
            .iter()
            .map(|e| ErratumLine {
                name: e.name.to_owned(),
                subject: e.subject.to_owned(),
                places: e.places.iter().map(ToString::to_string).collect(),
                declared: e.declared.unwrap_or("(absent)").to_owned(),
                corrected: e.corrected.to_owned(),
                evidence: e.evidence.iter().map(ToString::to_string).collect(),
                reason: e.reason.to_owned(),
                resolved: conformance
                    .errata
                    .iter()
                    .find(|u| u.name == e.name)
                    .map_or(0, |u| u.resolved),
            })
            .collect(),
        contested: CONTESTED
            .iter()
            .map(|c| ContestedLine {
                name: c.name.to_owned(),
                tools: c.tools.iter().map(|t| (*t).to_owned()).collect(),
                call: c.call.to_owned(),
                evidence: c.evidence.iter().map(ToString::to_string).collect(),
                resolution: c.resolution,
                why: c.why.to_owned(),
                risk: c.risk.to_owned(),
            })
            .collect(),
        platforms: PlatformLine {
            surface: SURFACE_PLATFORM.to_owned(),
            docs: DOCS_PLATFORM.to_owned(),
            evidence: PLATFORM_EVIDENCE.iter().map(ToString::to_string).collect(),
        },
        changes: CHANGES
            .iter()
            .map(|c| ChangeLine {
                name: c.name.to_owned(),
                what: c.what.to_owned(),
                evidence: c.evidence.iter().map(ToString::to_string).collect(),
                tools: modules
                    .iter()
                    .flat_map(|m| &m.tools)
                    .filter(|t| t.may_have_moved.iter().any(|n| n == c.name))
                    .map(|t| t.tool.clone())
                    .collect(),
            })
            .collect(),
        modules,
    })
}

/// The server's client timeout variable, which coverage runs leave at its default.
const TIMEOUT_ENV: &str = "MODYO_TIMEOUT_MS";

/// Runs one scenario in its own session and returns the interactions it played.
async fn replay(
    cassette: &str,
    scenario: &modyo_replay::cassette::Scenario,
    mount: &[Cassette],
) -> Result<Run, CoverageError> {
    let label = format!("{cassette}#{}", scenario.name);
    tracing::debug!(scenario = %label, "replaying");
    // Latency is ignored here, so a scenario's client timeout only decides whether a loaded
    // machine gets its request out in time: coverage would change with the load. What a call
    // plays does not depend on timing, so the timeout is left at its default.
    let env: Vec<(String, String)> = scenario
        .env
        .iter()
        .filter(|(k, _)| *k != TIMEOUT_ENV)
        .map(|(k, v)| (k.to_owned(), v.clone()))
        .collect();
    let options = ReplayOptions::default().ignore_latency(true);
    let session = Session::start_with(mount, &env, options)
        .await
        .map_err(|e| CoverageError::Session {
            scenario: label.clone(),
            reason: e.to_string(),
        })?;
    // The outcome does not matter here (the scenario tests hold it); what was played does.
    let _ = session
        .call(&scenario.tool, scenario.arguments.clone())
        .await;
    let unused: BTreeSet<(String, usize)> = session
        .replay()
        .unused()
        .into_iter()
        .map(|u| (u.cassette, u.index))
        .collect();
    session.close().await;
    let played = mount
        .iter()
        .flat_map(|c| (0..c.interactions.len()).map(move |i| (c.name().to_owned(), i)))
        .filter(|key| !unused.contains(key))
        .collect();
    Ok(Run {
        tool: scenario.tool.clone(),
        played,
    })
}

/// Writes `reports/api-coverage.md` and `.json` into `dir`; returns the paths.
pub fn write(coverage: &Coverage, dir: &Path) -> Result<Vec<PathBuf>, CoverageError> {
    files(coverage, dir)
        .into_iter()
        .map(|(path, text)| {
            std::fs::write(&path, text).map_err(|source| CoverageError::Io {
                path: path.clone(),
                source,
            })?;
            Ok(path)
        })
        .collect()
}

/// The report files in `dir` that differ from `coverage` (missing ones included).
pub fn stale(coverage: &Coverage, dir: &Path) -> Vec<PathBuf> {
    files(coverage, dir)
        .into_iter()
        .filter(|(path, text)| std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()))
        .map(|(path, _)| path)
        .collect()
}

fn files(coverage: &Coverage, dir: &Path) -> Vec<(PathBuf, String)> {
    vec![
        (dir.join(format!("{REPORT_STEM}.md")), coverage.markdown()),
        (dir.join(format!("{REPORT_STEM}.json")), coverage.json()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_does_not_hide_a_mark_without_a_source() {
        assert!(unsourced("none"));
        assert!(unsourced(
            "none (the specification documents realm templates only)"
        ));
        assert!(!unsourced(
            "modyo-docs:docs/en/platform/core/api.md (names it)"
        ));
        assert!(!unsourced("nonesuch"));
    }
}
