//! The cassette lifecycle check (`modyo-lab cassettes check`): what a reviewer needs to trust
//! the cassettes a pull request commits.
//!
//! Every cassette must
//!
//! - parse (format v1, strict) and resolve its includes;
//! - be redacted: no value under a secret-looking key (`token`, `password`, `Authorization`,
//!   `*_secret`, `X-Amz-Signature`... see [`crate::record::redact::keys`]) other than a
//!   placeholder, no secret in a URL query inside a string, and, when `MODYO_TOKEN` is set,
//!   not its value anywhere, in any URL spelling;
//! - say where it comes from (`provenance`, required by the format);
//! - be used: have scenarios, or be included (transitively) by a cassette that has some.
//!
//! With `--fail-on-unused` every scenario is also replayed in its own session (like the
//! scenario tests) and every interaction that no scenario played is a problem, VCR's
//! `allow_unused_http_interactions: false`; replay misses and outcomes that differ
//! from `expect` are reported too.
//!
//! With an API surface (`--spec`, on by default on the command line), every interaction is
//! also held to Modyo's published specification ([`modyo_spec::check`]): a contradiction not
//! on the shrink-only list, an `undocumented` mark no interaction uses or that covers a
//! documented endpoint, and a stale list entry are problems. The list applies to the
//! workspace's own cassettes; for any other directory every contradiction is a problem.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::check::{self, Kind};
use crate::record::Format;
use crate::record::redact::{PLACEHOLDER, Redactor, is_placeholder};
use crate::session::Session;
use modyo_replay::cassette::{self, Cassette, CassetteError, Outcome};
use modyo_replay::replay::ReplayOptions;
use modyo_spec::check::Conformance;
use modyo_spec::errata::{ERRATA, Erratum};
use modyo_spec::known::{KNOWN_CONTRADICTIONS, Known};
pub use modyo_spec::{Problem, ProblemKind};

/// What `modyo-lab cassettes check` checks; also its arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct CheckOptions {
    /// The cassettes directory.
    #[arg(long, default_value_os_t = cassette::default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::cassettes_help("The cassettes directory."))]
    pub cassettes: PathBuf,
    /// Replay every scenario and fail when an interaction was never played.
    #[arg(long)]
    pub fail_on_unused: bool,
    /// When replaying, keep answering the last response of an exhausted sequence.
    #[arg(long)]
    pub allow_repeats: bool,
    /// Another key whose values are secrets.
    #[arg(long = "redact-key", value_name = "KEY")]
    pub redact_keys: Vec<String>,
    /// The report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The API surface to hold every interaction to (default: the workspace's `harness/spec`).
    #[arg(long, value_name = "DIR")]
    pub spec: Option<PathBuf>,
    /// Do not hold the interactions to the API surface.
    #[arg(long, conflicts_with = "spec")]
    pub no_spec: bool,
    /// A literal secret that must appear nowhere (the value of `MODYO_TOKEN`).
    #[arg(skip)]
    pub token: Option<String>,
    /// The known contradictions (the shrink-only list); empty: every contradiction is a
    /// problem.
    #[arg(skip)]
    pub known: Vec<Known>,
    /// The corrections of the published specification applied to the surface (the
    /// workspace's own list when the surface is the workspace's).
    #[arg(skip)]
    pub errata: Vec<Erratum>,
}

impl CheckOptions {
    /// Checks the cassettes under `cassettes`, without replaying.
    pub fn new(cassettes: impl Into<PathBuf>) -> CheckOptions {
        CheckOptions {
            cassettes: cassettes.into(),
            fail_on_unused: false,
            allow_repeats: false,
            redact_keys: Vec::new(),
            format: Format::Text,
            spec: None,
            no_spec: false,
            token: None,
            known: Vec::new(),
            errata: Vec::new(),
        }
    }

    /// Holds every interaction to the surfaces in `dir`, with `known` as the list of known
    /// contradictions.
    pub fn spec(mut self, dir: impl Into<PathBuf>, known: &[Known]) -> CheckOptions {
        let dir = dir.into();
        self.errata = errata_for(&dir, &self.cassettes);
        self.spec = Some(dir);
        self.known = known.to_vec();
        self
    }

    /// The command line's defaults: the workspace's surface unless `--no-spec`, and the
    /// built-in list when the cassettes are the workspace's own.
    pub fn with_defaults(mut self) -> CheckOptions {
        if self.no_spec {
            self.spec = None;
            return self;
        }
        let spec = self.spec.get_or_insert_with(modyo_spec::default_dir);
        self.errata = errata_for(spec, &self.cassettes);
        let ours = |p: &std::path::Path| p.canonicalize().ok();
        if ours(&self.cassettes).is_some()
            && ours(&self.cassettes) == ours(&cassette::default_dir())
        {
            self.known = KNOWN_CONTRADICTIONS.to_vec();
        }
        self
    }

    /// Sets `--fail-on-unused`.
    pub fn fail_on_unused(mut self, on: bool) -> CheckOptions {
        self.fail_on_unused = on;
        self
    }

    /// A literal secret that must appear nowhere (empty: none).
    pub fn token(mut self, token: impl Into<String>) -> CheckOptions {
        let token = token.into();
        self.token = (!token.is_empty()).then_some(token);
        self
    }
}

/// The workspace's errata when `spec` is the workspace's surface directory and `cassettes`
/// its cassettes (an erratum no interaction needs is a problem only there), else none.
fn errata_for(spec: &std::path::Path, cassettes: &std::path::Path) -> Vec<Erratum> {
    let canonical = |p: &std::path::Path| p.canonicalize().ok();
    let ours = |p: &std::path::Path, default: PathBuf| {
        canonical(p).is_some() && canonical(p) == canonical(&default)
    };
    if ours(spec, modyo_spec::default_dir()) && ours(cassettes, cassette::default_dir()) {
        ERRATA.to_vec()
    } else {
        Vec::new()
    }
}

/// The result of a check.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct CheckReport {
    /// Cassette files found.
    pub cassettes: usize,
    /// Scenarios declared.
    pub scenarios: usize,
    /// Scenarios replayed (with `--fail-on-unused`).
    pub replayed: usize,
    /// Interactions in the cassettes that parsed.
    pub interactions: usize,
    /// Interactions played by some scenario (with `--fail-on-unused`).
    pub played: Option<usize>,
    /// The interactions held to the API surface (with `--spec`).
    pub conformance: Option<Conformance>,
    /// Every problem, sorted by cassette.
    pub problems: Vec<Problem>,
    /// No problem.
    pub ok: bool,
}

impl CheckReport {
    /// The report for people.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "checked {} cassette(s), {} scenario(s), {} interaction(s)",
            self.cassettes, self.scenarios, self.interactions
        );
        if let Some(played) = self.played {
            let _ = write!(
                out,
                "; replayed {} scenario(s), {played} of {} interaction(s) played",
                self.replayed, self.interactions
            );
        }
        out.push('\n');
        if let Some(conformance) = &self.conformance {
            out.push_str(&conformance.summary());
        }
        for p in &self.problems {
            let kind = serde_json::to_value(p.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {} [{kind}]: {}",
                p.cassette,
                p.detail.replace('\n', "\n      ")
            );
        }
        out.push_str(if self.ok { "ok\n" } else { "problems found\n" });
        out
    }

    /// The report for machines (pretty JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Runs the check. `Err` only when the directory cannot be listed.
pub async fn check(options: &CheckOptions) -> Result<CheckReport, CassetteError> {
    let root = options.cassettes.as_path();
    let names = cassette::names(root)?;
    let secret = options.token.as_deref().filter(|t| !t.is_empty());
    // The token is found, and scrubbed from messages, in any URL spelling (see `redact`).
    let redactor = options
        .redact_keys
        .iter()
        .fold(Redactor::new(), |r, k| r.key(k))
        .secret(secret.unwrap_or_default());
    let token_only = Redactor::default().secret(secret.unwrap_or_default());
    let scrub = |text: String| token_only.text(&text);
    let mut problems = Vec::new();
    let mut parsed: BTreeMap<String, Cassette> = BTreeMap::new();
    for name in &names {
        let path = cassette::path_of(root, name);
        let problem = |kind, detail| Problem {
            cassette: name.clone(),
            kind,
            detail,
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                problems.push(problem(ProblemKind::Invalid, format!("cannot read: {e}")));
                continue;
            }
        };
        if let Ok(json) = serde_json::from_str::<Value>(&text) {
            let mut found = Vec::new();
            scan(&json, "$", &redactor, &mut found);
            problems.extend(found.into_iter().map(|d| problem(ProblemKind::Secret, d)));
        } else if redactor.contains_secret(&text) {
            problems.push(problem(
                ProblemKind::Secret,
                "the MODYO_TOKEN value appears in the file".into(),
            ));
        }
        match Cassette::parse(name, &path, &text) {
            Ok(c) => {
                parsed.insert(name.clone(), c);
            }
            Err(e) => problems.push(problem(ProblemKind::Invalid, scrub(e.to_string()))),
        }
    }

    // Used: cassettes with scenarios and everything they include, transitively.
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut mount_sets: Vec<(String, Vec<Cassette>)> = Vec::new();
    for c in parsed.values().filter(|c| !c.scenarios.is_empty()) {
        match cassette::resolve(root, vec![c.clone()]) {
            Ok(set) => {
                used.extend(set.iter().map(|m| m.name().to_owned()));
                mount_sets.push((c.name().to_owned(), set));
            }
            Err(e) => problems.push(Problem {
                cassette: c.name().to_owned(),
                kind: ProblemKind::Invalid,
                detail: scrub(e.to_string()),
            }),
        }
    }
    for c in parsed.values().filter(|c| !used.contains(c.name())) {
        problems.push(Problem {
            cassette: c.name().to_owned(),
            kind: ProblemKind::UnusedCassette,
            detail: format!(
                "no scenario uses it ({} interaction(s)): give it scenarios or include it from a cassette that has some",
                c.interactions.len()
            ),
        });
    }

    let mut conformance = None;
    if let Some(dir) = &options.spec {
        match modyo_spec::Surfaces::load_with_errata(dir, &options.errata) {
            Ok(surfaces) => {
                let all: Vec<Cassette> = parsed.values().cloned().collect();
                let result = modyo_spec::check::run(&all, &surfaces, &options.known);
                problems.extend(result.problems.iter().map(|p| Problem {
                    detail: scrub(p.detail.clone()),
                    ..p.clone()
                }));
                conformance = Some(result);
            }
            Err(e) => problems.push(Problem {
                cassette: "(API surface)".into(),
                kind: ProblemKind::Invalid,
                detail: format!("cannot load the API surface: {e}"),
            }),
        }
    }

    let interactions = parsed.values().map(|c| c.interactions.len()).sum();
    let scenarios = parsed.values().map(|c| c.scenarios.len()).sum();
    let mut replayed = 0;
    let mut played_count = None;
    if options.fail_on_unused {
        let replay_options = ReplayOptions::default()
            .allow_repeats(options.allow_repeats)
            .ignore_latency(true);
        let mut played: BTreeSet<(String, usize)> = BTreeSet::new();
        let mut shadowed: BTreeMap<(String, usize), String> = BTreeMap::new();
        for (owner, mount) in &mount_sets {
            let Some(cassette) = parsed.get(owner) else {
                continue;
            };
            for scenario in &cassette.scenarios {
                let label = format!("scenario {}", scenario.name);
                let env: Vec<(String, String)> = scenario
                    .env
                    .iter()
                    .map(|(k, v)| (k.to_owned(), v.clone()))
                    .collect();
                let session = match Session::start_with(mount, &env, replay_options).await {
                    Ok(session) => session,
                    Err(e) => {
                        problems.push(Problem {
                            cassette: owner.clone(),
                            kind: ProblemKind::Invalid,
                            detail: format!("{label}: cannot start: {}", scrub(e.to_string())),
                        });
                        continue;
                    }
                };
                let result = session
                    .call(&scenario.tool, scenario.arguments.clone())
                    .await;
                replayed += 1;
                let unused: BTreeSet<(String, usize)> = session
                    .replay()
                    .unused()
                    .into_iter()
                    .map(|u| {
                        if let Some(by) = &u.shadowed_by {
                            shadowed.insert((u.cassette.clone(), u.index), by.clone());
                        }
                        (u.cassette, u.index)
                    })
                    .collect();
                for m in mount {
                    for index in 0..m.interactions.len() {
                        let key = (m.name().to_owned(), index);
                        if !unused.contains(&key) {
                            played.insert(key);
                        }
                    }
                }
                for miss in session.replay().misses() {
                    problems.push(Problem {
                        cassette: owner.clone(),
                        kind: ProblemKind::Miss,
                        detail: format!("{label}: {miss}"),
                    });
                }
                session.close().await;
                let expected = match scenario.expect.outcome {
                    Outcome::Success => Kind::Success,
                    Outcome::Error => Kind::Error,
                    Outcome::Control => Kind::Control,
                };
                let got = match &result {
                    Ok(result) => format!("{:?}", check::kind(result)),
                    Err(e) => format!("a JSON-RPC error ({e})"),
                };
                let same = result.as_ref().is_ok_and(|r| {
                    check::kind(r) == expected
                        && (expected != Kind::Error
                            || scenario.expect.code.is_none()
                            || check::error(r).and_then(|e| e["code"].as_str().map(str::to_owned))
                                == scenario.expect.code)
                });
                if !same {
                    problems.push(Problem {
                        cassette: owner.clone(),
                        kind: ProblemKind::Outcome,
                        detail: scrub(format!(
                            "{label}: expected {:?}{}, got {got}",
                            expected,
                            scenario
                                .expect
                                .code
                                .as_deref()
                                .map(|c| format!(" ({c})"))
                                .unwrap_or_default()
                        )),
                    });
                }
            }
        }
        for c in parsed.values().filter(|c| used.contains(c.name())) {
            for (index, interaction) in c.interactions.iter().enumerate() {
                let key = (c.name().to_owned(), index);
                if played.contains(&key) {
                    continue;
                }
                let why = match shadowed.get(&key) {
                    Some(by) => format!("shadowed by {by}"),
                    None => "never played by any scenario".to_owned(),
                };
                let request = modyo_replay::cassette::request_line(&interaction.request);
                problems.push(Problem {
                    cassette: c.name().to_owned(),
                    kind: ProblemKind::UnusedInteraction,
                    detail: scrub(format!("interactions[{index}] {request}: {why}")),
                });
            }
        }
        played_count = Some(played.len());
    }
    problems.sort();
    Ok(CheckReport {
        cassettes: names.len(),
        scenarios,
        replayed,
        interactions,
        played: played_count,
        conformance,
        ok: problems.is_empty(),
        problems,
    })
}

/// Finds secrets in a cassette's JSON: values under secret-looking keys, secrets in URL
/// queries inside strings, and the literal token (the redactor's secret, in any URL spelling).
/// Reports JSON paths only.
fn scan(value: &Value, at: &str, redactor: &Redactor, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let here = format!("{at}.{k}");
                if redactor.contains_secret(k) {
                    out.push(format!("at {at}: a key holds the MODYO_TOKEN value"));
                }
                if redactor.is_sensitive_key(k) && !is_placeholder(v) {
                    out.push(format!(
                        "at {here}: a value under a secret-looking key is stored (record with redaction, or write {PLACEHOLDER})"
                    ));
                } else {
                    scan(v, &here, redactor, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                scan(v, &format!("{at}[{i}]"), redactor, out);
            }
        }
        Value::String(s) => {
            if redactor.contains_secret(s) {
                out.push(format!("at {at}: the MODYO_TOKEN value"));
            } else if redactor.text(s) != *s {
                out.push(format!("at {at}: a secret in a URL query string"));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(value: Value, token: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        let redactor = Redactor::new().secret(token.unwrap_or_default());
        scan(&value, "$", &redactor, &mut out);
        out
    }

    #[test]
    fn the_scan_finds_keys_urls_and_the_token_and_says_only_where() {
        let out = found(
            json!({
                "interactions": [{"request": {"headers": {"Authorization": "Bearer abc"}, "query": {"token": "<redacted>"}},
                                   "response": {"body": {"url": "https://x/?api_key=zzz", "note": "tok-123456", "password": ""}}}]
            }),
            Some("tok-123456"),
        );
        assert_eq!(out.len(), 3, "{out:?}");
        assert!(out[0].starts_with(
            "at $.interactions[0].request.headers.Authorization: a value under a secret-looking key"
        ));
        assert_eq!(
            out[1],
            "at $.interactions[0].response.body.url: a secret in a URL query string"
        );
        assert_eq!(
            out[2],
            "at $.interactions[0].response.body.note: the MODYO_TOKEN value"
        );
        assert!(
            out.iter()
                .all(|o| !o.contains("abc") && !o.contains("zzz") && !o.contains("tok-123456"))
        );
        assert!(
            found(
                json!({"headers": {"Authorization": "Bearer <redacted>"}}),
                None
            )
            .is_empty()
        );
    }
}
