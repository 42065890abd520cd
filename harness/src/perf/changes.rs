//! What each change bought: the projection of several builds of the server against the floor,
//! all in one run (`modyo-lab bench --variant LABEL=PATH ...`).
//!
//! A build is a `modyo-mcp` binary and a label that says what it is (`make bench-changes`
//! builds one per commit or feature set and names them). Every build runs as its own child
//! against the same replay server; each repetition runs the floor and every build once per
//! concurrency, in an order that rotates between repetitions, so the builds share the
//! machine's drift. Each build's ratio is the median of its per-repetition ratios to the floor
//! of the same repetition. Before timing, every build must give the same answer as the first
//! (a change that bought time by answering differently is refused).

use std::path::PathBuf;

use serde_json::Value;

use super::PerfError;
use super::measure::{self, PROJECTION_TOOL, Setup};
use super::stats::{self, Summary, ms};
use crate::probe::Probe;

/// The concurrencies the builds are compared at.
pub const CONCURRENCIES: [usize; 3] = [1, 8, 16];

/// One build to compare: `LABEL=PATH`.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// What the build is (the commit and what changed), as given.
    pub label: String,
    /// Its `modyo-mcp`.
    pub server: PathBuf,
}

impl std::str::FromStr for Variant {
    type Err = String;
    fn from_str(text: &str) -> Result<Variant, String> {
        match text.rsplit_once('=') {
            Some((label, path)) if !label.trim().is_empty() && !path.is_empty() => Ok(Variant {
                label: label.trim().to_owned(),
                server: PathBuf::from(path),
            }),
            _ => Err(format!("expected LABEL=PATH, got '{text}'")),
        }
    }
}

/// One build at one concurrency.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeCell {
    /// The concurrency.
    pub concurrency: usize,
    /// Wall time per call (milliseconds).
    pub server: Summary,
    /// The paired ratio to the floor of the same repetitions.
    pub ratio: f64,
    /// CPU per call of the server side (this process and the build's child), median, ms.
    pub cpu: Option<f64>,
    /// CPU per call of the build's child alone, median, ms.
    pub child_cpu: Option<f64>,
}

/// One build's row.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeRow {
    /// The build's label.
    pub label: String,
    /// One cell per [`CONCURRENCIES`].
    pub cells: Vec<ChangeCell>,
}

/// The floor at one concurrency, as the builds were compared with it.
#[derive(Debug, Clone, PartialEq)]
pub struct FloorCell {
    /// The concurrency.
    pub concurrency: usize,
    /// Wall time per call (milliseconds).
    pub floor: Summary,
    /// CPU per call of the floor side (this process, the idle server children), median, ms.
    pub cpu: Option<f64>,
}

/// The section.
#[derive(Debug, Clone, PartialEq)]
pub struct Changes {
    /// Repetitions.
    pub reps: usize,
    /// The load average when the section started.
    pub load: String,
    /// The floor, per concurrency.
    pub floor: Vec<FloorCell>,
    /// The builds, in the order given.
    pub rows: Vec<ChangeRow>,
}

/// Runs the comparison of `variants` (at least one).
pub(super) async fn run(
    setup: &Setup,
    variants: &[Variant],
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Changes, PerfError> {
    let load = super::Machine::detect().load;
    let (replay, _) = measure::replay_with(setup, crate::fixtures::pilot::PAGES_100).await?;
    let env = measure::server_env(&replay.uri());
    let mut probes = Vec::with_capacity(variants.len());
    for variant in variants {
        probes.push(Probe::start(&variant.server, &env).await?);
    }
    let http = reqwest::Client::new();
    let Some(first) = probes.first_mut() else {
        return Err(PerfError::Unexpected("no build to compare".into()));
    };
    let plan = measure::learn_projection(first, &replay).await?;
    // The same answer from every build, or no comparison.
    let mut answer: Option<Value> = None;
    for (probe, variant) in probes.iter_mut().zip(variants) {
        let response = probe
            .call(PROJECTION_TOOL, &measure::projection_args(1, None))
            .await?;
        let result = response.result.map_err(|e| {
            PerfError::Unexpected(format!("{} failed the projection: {e:?}", variant.label))
        })?;
        match &answer {
            None => answer = Some(result),
            Some(expected) if *expected == result => {}
            Some(_) => {
                return Err(PerfError::Unexpected(format!(
                    "{} answers the projection differently from {}",
                    variant.label, variants[0].label
                )));
            }
        }
    }
    let sides = variants.len() + 1;
    let self_pid = std::process::id();
    let child_pids: Vec<Option<u32>> = probes.iter().map(Probe::pid).collect();
    for &c in &CONCURRENCIES {
        for probe in &mut probes {
            measure::projection_call(probe, c).await?;
        }
        measure::floor(&http, &plan, c).await?;
    }
    // [concurrency][side] -> samples; side 0 is the floor.
    let blank = || vec![vec![Vec::new(); sides]; CONCURRENCIES.len()];
    let (mut wall, mut cpu, mut child_cpu) = (blank(), blank(), blank());
    for rep in 0..setup.reps {
        for (ci, &c) in CONCURRENCIES.iter().enumerate() {
            for k in 0..sides {
                let side = (rep + ci + k) % sides;
                let pids: Vec<u32> = match side {
                    0 => std::iter::once(self_pid)
                        .chain(child_pids.iter().flatten().copied())
                        .collect(),
                    s => std::iter::once(self_pid).chain(child_pids[s - 1]).collect(),
                };
                let child = side.checked_sub(1).and_then(|s| child_pids[s]);
                let before = (cpu_of(&pids), child.and_then(super::machine::cpu_ns));
                let args = measure::projection_args(1, Some(c));
                let (elapsed, answered) = match side {
                    0 => (measure::floor(&http, &plan, c).await?, None),
                    s => {
                        let answered = probes[s - 1].send_call(PROJECTION_TOOL, &args).await?;
                        (ms(answered.elapsed), Some(answered))
                    }
                };
                wall[ci][side].push(elapsed);
                if let (Some(b), Some(a)) = (before.0, cpu_of(&pids)) {
                    cpu[ci][side].push(a.saturating_sub(b) as f64 / 1e6);
                }
                if let (Some(b), Some(a)) = (before.1, child.and_then(super::machine::cpu_ns)) {
                    child_cpu[ci][side].push(a.saturating_sub(b) as f64 / 1e6);
                }
                // The answer is checked once the side is metered (as in the projection section).
                if let Some(answered) = answered {
                    measure::succeeded(&mut probes[side - 1], PROJECTION_TOOL, answered)?;
                }
            }
        }
        if (rep + 1) % 5 == 0 {
            progress(&format!("  changes rep {}/{}", rep + 1, setup.reps));
        }
    }
    for probe in probes {
        probe.close().await;
    }
    measure::no_misses(&replay)?;
    let missing = || PerfError::Unexpected("no timings".into());
    let mut floor = Vec::new();
    for (ci, &concurrency) in CONCURRENCIES.iter().enumerate() {
        floor.push(FloorCell {
            concurrency,
            floor: Summary::of(&wall[ci][0]).ok_or_else(missing)?,
            cpu: stats::median(&cpu[ci][0]),
        });
    }
    let mut rows = Vec::new();
    for (v, variant) in variants.iter().enumerate() {
        let side = v + 1;
        let mut cells = Vec::new();
        for (ci, &concurrency) in CONCURRENCIES.iter().enumerate() {
            cells.push(ChangeCell {
                concurrency,
                server: Summary::of(&wall[ci][side]).ok_or_else(missing)?,
                ratio: stats::paired_ratio(&wall[ci][side], &wall[ci][0]).ok_or_else(missing)?,
                cpu: stats::median(&cpu[ci][side]),
                child_cpu: stats::median(&child_cpu[ci][side]),
            });
        }
        rows.push(ChangeRow {
            label: variant.label.clone(),
            cells,
        });
    }
    Ok(Changes {
        reps: setup.reps,
        load,
        floor,
        rows,
    })
}

/// CPU time so far of these processes, nanoseconds.
fn cpu_of(pids: &[u32]) -> Option<u64> {
    pids.iter().map(|&pid| super::machine::cpu_ns(pid)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_is_a_label_and_a_path() {
        let v: Variant = "main (c2e31a9)=target/x/modyo-mcp".parse().unwrap();
        assert_eq!(v.label, "main (c2e31a9)");
        assert_eq!(v.server, PathBuf::from("target/x/modyo-mcp"));
        assert!("no-path=".parse::<Variant>().is_err());
        assert!("=path".parse::<Variant>().is_err());
        assert!("nothing".parse::<Variant>().is_err());
    }
}
