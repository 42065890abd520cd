//! `modyo-lab clients`: what real MCP clients put in the model's context, measured by running
//! them.
//!
//! Each client runs headless and offline with its model API replaced by a capture endpoint on
//! a loopback port (`endpoint`) whose scripted model ([`api`]) loads the tools the way the
//! client requires, calls the plan's calls one per turn, then says `done`. A client is a
//! driver (`driver`: how it is installed-checked, started and read) speaking one [`api::Api`]
//! (Anthropic Messages, Gemini, OpenAI Responses, Chat Completions), whose requests the
//! extraction (`extract`) reads by content, whatever the API.
//!
//! Two kinds of session:
//!
//! - the **marker session**, against the lab's marker server ([`marker`], `modyo-lab marker`):
//!   every part of the server carries its own marker, so searching the requests says which
//!   parts reach the model, when and in which form: the client's [`fingerprint`], committed as
//!   `reports/clients/<client>.fingerprint.json` beside the marker-bearing parts of the
//!   requests it was derived from (`<client>.marker.jsonl`);
//! - the **module sessions**, against our offline server (`modyo-lab serve`, one module per
//!   session, legacy "before" and migrated "after", and, for a client whose fingerprint
//!   recommends settings other than the defaults ([`recommend`]), migrated under those settings,
//!   "recommended"), calling the module's cassette scenarios.
//!   The requests are compared with what our server listed and answered (the [`reference`](mod@reference),
//!   the same calls made in-process), and only our parts are kept: a [`capture`] per client,
//!   committed under `reports/clients/`. The [`report`] prices the captures with the lab's
//!   counters, per module, before and after (and recommended), with the break-even, and the
//!   module reports add the measured profiles ([`measured_profiles`]).
//!
//! `--report-only` rebuilds the report from the committed files without running a client;
//! `--check` also re-runs the reference, re-derives every fingerprint from its marker capture
//! and says what is stale (what CI runs, through the tests, without Node or the clients).
//! `--server CMD` runs the same clients against any stdio MCP server ([`foreign`]).

pub mod api;
mod args;
pub mod capture;
mod check;
mod client;
mod driver;
mod endpoint;
mod extract;
pub mod fingerprint;
#[cfg(test)]
mod fixtures;
pub mod foreign;
pub mod marker;
mod observe;
pub mod recommend;
pub mod reference;
pub mod report;
mod report_markdown;
mod report_recommended;
mod runs;
mod server;
mod summary;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use modyo_mcp::Module;

pub use args::ClientsArgs;
pub use capture::{Capture, CaptureError, Side};
pub use check::{fingerprints as stale_fingerprints, stale};
pub use client::Client;
pub use fingerprint::{Fingerprint, MarkerCapture, MarkerError};
pub use report::{ClientsReport, ModuleProfile, PriceError};

use crate::report::{CatalogueView, Profile};

use crate::serve::ServeError;
use modyo_replay::cassette::CassetteError;

/// The name our server is registered under in every client.
pub const SERVER_NAME: &str = "modyo-offline";

/// The report files, relative to the reports directory.
pub const REPORT_JSON: &str = "clients.json";
/// The Markdown report, relative to the reports directory.
pub const REPORT_MD: &str = "clients.md";
/// The chart of billed input against calls per client, relative to the reports directory.
pub const REPORT_CHART: &str = "clients-billed.svg";

/// Why a run could not complete.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientsError {
    /// A client or its runtime is missing or not the pinned one.
    #[error("setup: {0}")]
    Setup(String),
    /// A client session failed.
    #[error("{0}")]
    Client(String),
    /// A session's requests do not hold what the script made it do.
    #[error("the captured session is incomplete: {0}")]
    Incomplete(String),
    /// The plan's calls do not behave the same twice.
    #[error("plan: {0}")]
    Plan(String),
    /// The in-process reference server failed.
    #[error("reference server: {0}")]
    Reference(String),
    /// The offline server could not start.
    #[error(transparent)]
    Serve(#[from] ServeError),
    /// The cassettes did not load.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// A capture file does not parse.
    #[error("{file}: {source}")]
    Capture {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: CaptureError,
    },
    /// A marker capture does not parse.
    #[error("{file}: {source}")]
    Marker {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: MarkerError,
    },
    /// A capture cannot be priced.
    #[error(transparent)]
    Price(#[from] PriceError),
    /// `--module` named no module.
    #[error("unknown module '{0}'; valid: core, content, channels, customers, widgets")]
    UnknownModule(String),
    /// `--module` on a capture of another client version.
    #[error("{0}: the capture was made with another version; run every module (no --module)")]
    VersionMix(String),
    /// Captures that no longer match the server (`--check`).
    #[error("stale captures (run make clients):\n{}", .0.join("\n"))]
    Stale(Vec<String>),
    /// Clients that failed while the others ran.
    #[error("clients failed (the others' files were written):\n{}", .0.join("\n"))]
    Failed(Vec<String>),
    /// A usage error.
    #[error("{0}")]
    Usage(String),
    /// Reading or writing files.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// `modyo-lab clients`.
pub async fn command(args: ClientsArgs) -> Result<(), ClientsError> {
    if args.server.is_some() {
        return foreign::command(&args).await;
    }
    let dir = args
        .reports
        .clone()
        .unwrap_or_else(crate::report::default_dir);
    if args.check {
        let mut problems = stale(&dir, &args.cassettes).await?;
        problems.extend(stale_fingerprints(&dir)?);
        let files = regenerate(&dir)?;
        for (name, text) in &files {
            if std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(text.as_str()) {
                problems.push(format!("{name} differs from a rebuild from the captures"));
            }
        }
        if !problems.is_empty() {
            return Err(ClientsError::Stale(problems));
        }
        eprintln!("clients: captures, fingerprints and report are current");
        return Ok(());
    }
    let mut failures = Vec::new();
    if !args.report_only {
        run_all(&args, &dir, &mut failures).await?;
    }
    for (name, text) in regenerate(&dir)? {
        std::fs::write(dir.join(&name), text)?;
        eprintln!("clients: wrote {name}");
    }
    if dir == crate::report::default_dir() {
        readme_recommendations(&dir)?;
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(ClientsError::Failed(failures))
    }
}

/// The README's span of recommended settings per client ([`recommend::README`]), from the
/// fingerprints and captures in `dir`.
pub fn readme_recommendations(dir: &Path) -> Result<(), ClientsError> {
    let path = modyo_replay::workspace::dir("README.md");
    let Ok(readme) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let text = format!("\n{}", recommendations_table(dir)?);
    match recommend::README.rewrite(&readme, &text) {
        Some(new) if new != readme => {
            std::fs::write(&path, new)?;
            eprintln!(
                "clients: wrote the recommended settings into {}",
                path.display()
            );
        }
        Some(_) => {}
        None => eprintln!(
            "clients: {} lacks the markers {} ... {}: recommendations not carried",
            path.display(),
            recommend::README.start,
            recommend::README.end
        ),
    }
    Ok(())
}

/// The table of recommended settings per client, with the break-even under them, from the
/// fingerprints and captures in `dir` (what the README's span holds).
pub fn recommendations_table(dir: &Path) -> Result<String, ClientsError> {
    let fingerprints = load_fingerprints(dir)?;
    let report = report::build(&load_captures(dir)?, &fingerprints)?;
    Ok(recommend::markdown(&fingerprints, &report.clients))
}

/// The lab a run uses: the clients' tools, this binary, the cassettes.
fn lab(args: &ClientsArgs) -> Result<runs::Lab, ClientsError> {
    Ok(runs::Lab {
        tools: driver::Tools {
            node: args.node.clone(),
            installed: std::path::absolute(&args.tools)?,
            scripts: std::path::absolute(&args.scripts)?,
            timeout: Duration::from_secs(args.timeout),
            keep: args.keep_requests.clone(),
        },
        lab: std::env::current_exe()?,
        cassettes: std::path::absolute(&args.cassettes)?,
    })
}

/// Runs the clients (marker sessions, then module sessions) and writes their files; a client
/// that fails is named in `failures` and the others go on.
async fn run_all(
    args: &ClientsArgs,
    dir: &Path,
    failures: &mut Vec<String>,
) -> Result<(), ClientsError> {
    let only = match &args.module {
        Some(name) => {
            Some(Module::parse(name).ok_or_else(|| ClientsError::UnknownModule(name.clone()))?)
        }
        None => None,
    };
    let selected = if args.clients.is_empty() {
        Client::ALL.to_vec()
    } else {
        args.clients.clone()
    };
    let lab = lab(args)?;
    let mut versions = BTreeMap::new();
    for client in &selected {
        match client.driver().version(&lab.tools) {
            Ok(version) => {
                versions.insert(*client, version);
            }
            Err(e) => failures.push(format!("{}: {e}", client.id())),
        }
    }
    let clients: Vec<Client> = selected
        .into_iter()
        .filter(|c| versions.contains_key(c))
        .collect();
    if !args.no_fingerprints {
        for client in &clients {
            eprintln!("clients: {}: marker session", client.id());
            match runs::fingerprint(&lab, *client, &versions[client]).await {
                Ok((capture, _)) => {
                    runs::write_fingerprint(dir, *client, capture)?;
                    eprintln!("clients: wrote {}", client.fingerprint_file());
                }
                Err(e) => failures.push(format!("{} (marker session): {e}", client.id())),
            }
        }
    }
    if args.fingerprints_only {
        return Ok(());
    }
    let priced: Vec<Client> = clients
        .into_iter()
        .filter(|c| c.not_priced().is_none())
        .collect();
    let recommended = runs::recommended_settings(dir, &priced)?;
    let sessions = runs::module_sessions(&lab, &priced, &recommended, only, failures).await?;
    for (client, fresh) in sessions {
        runs::write_capture(dir, client, &versions[&client], fresh, only)?;
    }
    Ok(())
}

fn parse(path: &Path, text: &str) -> Result<Capture, ClientsError> {
    Capture::parse(text).map_err(|source| ClientsError::Capture {
        file: path.display().to_string(),
        source,
    })
}

/// The captures found in `dir` (`clients/<client>.jsonl`), with their relative paths.
pub fn load_captures(dir: &Path) -> Result<Vec<(String, Capture)>, ClientsError> {
    let mut out = Vec::new();
    for client in Client::ALL {
        let file = client.capture_file();
        let path = dir.join(&file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        out.push((file, parse(&path, &text)?));
    }
    Ok(out)
}

/// The marker captures found in `dir` (`clients/<client>.marker.jsonl`), in report order.
pub fn load_marker_captures(dir: &Path) -> Result<Vec<(Client, MarkerCapture)>, ClientsError> {
    let mut out = Vec::new();
    for client in Client::ALL {
        let path = dir.join(client.marker_file());
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let capture = MarkerCapture::parse(&text).map_err(|source| ClientsError::Marker {
            file: path.display().to_string(),
            source,
        })?;
        out.push((client, capture));
    }
    Ok(out)
}

/// The committed fingerprints in `dir` (`clients/<client>.fingerprint.json`), in report order;
/// a file that does not parse is an error.
pub fn load_fingerprints(dir: &Path) -> Result<Vec<Fingerprint>, ClientsError> {
    let mut out = Vec::new();
    for client in Client::ALL {
        let path = dir.join(client.fingerprint_file());
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let fingerprint = serde_json::from_str(&text).map_err(|e| {
            ClientsError::Usage(format!("{}: not a fingerprint: {e}", path.display()))
        })?;
        out.push(fingerprint);
    }
    Ok(out)
}

/// The report files (`clients.json`, `clients.md` and, when a client was priced,
/// `clients-billed.svg`) rebuilt from the captures and fingerprints in `dir`.
pub fn regenerate(dir: &Path) -> Result<BTreeMap<String, String>, ClientsError> {
    let captures = load_captures(dir)?;
    let fingerprints = load_fingerprints(dir)?;
    let report = report::build(&captures, &fingerprints)?;
    let not_run = summary::not_run(&captures, &fingerprints);
    let markdown = summary::markdown(&report, &fingerprints, &not_run);
    let json = summary::json(&report, &fingerprints);
    let mut files = BTreeMap::from([
        (REPORT_JSON.to_owned(), json),
        (REPORT_MD.to_owned(), markdown),
    ]);
    if let Some(svg) = report::billed_chart(&report) {
        files.insert(REPORT_CHART.to_owned(), svg);
    }
    Ok(files)
}

/// The profiles of `module` measured by running clients, from `dir`'s `clients.json` (none
/// when it is missing), in the shape of the lab's assumed profiles: the catalogue is what the
/// client was captured sending once per session ([`CatalogueView::Captured`]), the per-call
/// figure the results as it forwarded them, over that session's calls; a client whose session
/// under its recommended settings was captured has a second profile, named after them. The
/// whole profile is in `clients.json`.
pub fn measured_profiles(dir: &Path, module: &str) -> Vec<Profile> {
    let Ok(text) = std::fs::read_to_string(dir.join(REPORT_JSON)) else {
        return Vec::new();
    };
    let Ok(report) = serde_json::from_str::<ClientsReport>(&text) else {
        tracing::warn!("{REPORT_JSON} does not parse: the module reports show no measured profile");
        return Vec::new();
    };
    report
        .clients
        .iter()
        .flat_map(|c| {
            c.modules
                .iter()
                .filter(|m| m.module == module)
                .flat_map(|m| {
                    let recommended = report_recommended::measured_profile(c, m);
                    std::iter::once(Profile {
                        profile: c.client.clone(),
                        behaviour: format!(
                            "once: {}; per call: {} ({} calls of {} tools)",
                            c.once, c.per_call, m.calls, m.tools_used
                        ),
                        catalogue: CatalogueView::Captured,
                        evidence: c.evidence(),
                        catalogue_before: m.before.once,
                        catalogue_after: m.after.once,
                        calls: m.calls,
                        per_call_before: Some(m.per_call_before),
                        per_call_after: Some(m.per_call_after),
                        per_call_percent: m.per_call_percent,
                        break_even_calls: m.break_even_calls,
                        billed_break_even_calls: m.billed_break_even_calls,
                    })
                    .chain(recommended)
                })
        })
        .collect()
}
