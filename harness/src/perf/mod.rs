//! `modyo-lab bench`: the performance report (`reports/performance.md`), against the physical
//! floor and against the alternative (issue 10).
//!
//! Every comparison is a ratio measured side by side in one run: the two sides are interleaved
//! (their order alternates between repetitions), repeated, and the report gives medians and
//! the median of the per-repetition ratios (see [`stats`]). The machines are small and shared,
//! so absolute figures move between runs; the ratios are what the targets are about, and the
//! report opens with them and with the machine it ran on.
//!
//! Sections ([`Report`]): projection against the floor with a concurrency sweep, per-call
//! overhead, mcp-recorder, `make measure` wall time, token counting throughput, peak RSS, and
//! the criterion benches of the hot pieces (read from criterion's own output, when
//! `cargo bench` ran before, as `make bench` does). A section that could not be measured says
//! why instead of a figure. Nothing here is asserted in tests: only the arithmetic and the
//! rendering are ([`stats`], [`render`]).

pub mod binary;
pub mod changes;
pub mod criterion;
pub mod machine;
mod measure;
mod profile;
mod recorder;
pub mod render;
pub mod stats;

use std::path::PathBuf;
use std::time::Instant;

pub use machine::Machine;
pub use stats::{DefaultChoice, Summary, SweepPoint};

use crate::probe::ProbeError;
use modyo_replay::cassette::CassetteError;
use modyo_replay::replay::ReplayError;

/// The file `make bench` writes under `reports/`.
pub const REPORT_FILE: &str = "performance.md";

/// The concurrencies of the projection sweep.
pub const SWEEP: [usize; 4] = [1, 4, 8, 16];

/// The server's current default hydration concurrency for `fields`
/// (`server/src/tools/content/entries.rs`); the sweep decides whether it stays.
pub const CURRENT_DEFAULT: usize = 8;

/// A sweep point slower than the fastest by at most this fraction is "within noise".
pub const NOISE: f64 = 0.10;

/// Targets of issue 10.
pub mod targets {
    /// Projection: server time / floor time at most this (at the default concurrency).
    pub const PROJECTION_RATIO: f64 = 1.3;
    /// Projection at concurrency 1: server time / floor time under this.
    pub const PROJECTION_RATIO_SEQUENTIAL: f64 = 1.6;
    /// Per call: the server adds less than this many milliseconds at p50.
    pub const OVERHEAD_MS: f64 = 1.0;
    /// Against mcp-recorder: ours / theirs at p50 at most this.
    pub const RECORDER_RATIO: f64 = 1.0;
    /// Peak RSS of the offline server through the 314 x 31 case, in megabytes.
    pub const RSS_MB: f64 = 100.0;
}

/// Why a bench run could not complete.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PerfError {
    /// The cassettes did not load.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// The cassettes did not mount.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// A server child failed.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// An HTTP request of the floor failed.
    #[error("floor request: {0}")]
    Http(#[from] reqwest::Error),
    /// A call did not answer what the bench expects.
    #[error("{0}")]
    Unexpected(String),
    /// Reading or writing files, or starting a process.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The arguments of `modyo-lab bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Repetitions of each timed comparison (projection, mcp-recorder).
    #[arg(long, default_value_t = 30)]
    pub reps: usize,
    /// Repetitions of the per-call comparison.
    #[arg(long, default_value_t = 500)]
    pub call_reps: usize,
    /// Where to write the report (default: reports/performance.md of the workspace); `-` for
    /// stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The server binary (default: modyo-mcp next to this executable).
    #[arg(long)]
    pub server: Option<PathBuf>,
    /// The cassettes directory.
    #[arg(long, default_value_os_t = modyo_replay::cassette::default_dir(), hide_default_value = true,
        help = modyo_replay::workspace::cassettes_help("The cassettes directory."))]
    pub cassettes: PathBuf,
    /// The mcp-recorder executable (default: .tools/bench-venv/bin/mcp-recorder of the
    /// workspace, installed by `make bench-venv`).
    #[arg(long)]
    pub recorder: Option<PathBuf>,
    /// Skip timing `modyo-lab measure` over the whole catalogue (the slowest section).
    #[arg(long)]
    pub skip_measure: bool,
    /// criterion's output directory (default: `criterion/` of this executable's target dir).
    #[arg(long)]
    pub criterion: Option<PathBuf>,
    /// Another build of the server to compare on the projection, as `LABEL=PATH` (repeatable;
    /// `make bench-changes` builds them): the section "What each change bought".
    #[arg(long = "variant", value_name = "LABEL=PATH")]
    pub variants: Vec<changes::Variant>,
    /// Only the projection sections (against the floor, and the builds of `--variant`).
    #[arg(long)]
    pub projection_only: bool,
    /// Instead of the report: profile the server (`perf record`) through `--reps` projection
    /// calls and write a top-N table to DIR/top.txt (`make profile`).
    #[arg(long, value_name = "DIR")]
    pub profile: Option<PathBuf>,
}

/// One concurrency of the projection sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectionRow {
    /// The concurrency (the tool's `concurrency` argument, and the floor's).
    pub concurrency: usize,
    /// The server's wall time per call (tools/call over stdio, milliseconds).
    pub server: Summary,
    /// The floor's wall time (the same HTTP requests by a bare client, milliseconds).
    pub floor: Summary,
    /// The paired ratio server / floor.
    pub ratio: f64,
    /// The middle half of the per-repetition ratios (25th and 75th percentiles).
    pub ratio_spread: Option<(f64, f64)>,
    /// CPU time per call of the server side, median, milliseconds: the server child and this
    /// process (the replay server, the probe reading the answer). `None` off Linux.
    pub server_cpu: Option<f64>,
    /// CPU time per call of the floor side, median, milliseconds: this process (the replay
    /// server and the bare client) and the idle server child.
    pub floor_cpu: Option<f64>,
}

/// The projection section.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectionBench {
    /// Entries on the page.
    pub entries: usize,
    /// Fields per entry in the fixture.
    pub fields: usize,
    /// The call at the default concurrency, as `tool arguments` (the mcp-recorder section's
    /// fan-out call).
    pub call: String,
    /// HTTP requests one call causes.
    pub http_requests: usize,
    /// The sweep, in [`SWEEP`] order.
    pub rows: Vec<ProjectionRow>,
    /// The default the data supports.
    pub choice: Option<DefaultChoice>,
}

/// The per-call section.
#[derive(Debug, Clone, PartialEq)]
pub struct PerCall {
    /// The tool and its arguments.
    pub call: String,
    /// HTTP requests the call causes.
    pub http_requests: usize,
    /// tools/call wall time (milliseconds).
    pub server: Summary,
    /// The raw HTTP round trip(s) it causes (milliseconds).
    pub raw: Summary,
    /// The paired median of server - raw, milliseconds.
    pub overhead_p50: f64,
}

/// One call of the mcp-recorder comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct RecorderRow {
    /// The tool and its arguments.
    pub call: String,
    /// Ours: `modyo-lab serve` over stdio (milliseconds).
    pub ours: Summary,
    /// mcp-recorder's replay over HTTP (milliseconds).
    pub theirs: Summary,
    /// The paired ratio ours / theirs.
    pub ratio: f64,
    /// Whether both answered the same result.
    pub same_result: bool,
}

/// The mcp-recorder section.
#[derive(Debug, Clone, PartialEq)]
pub enum Recorder {
    /// Measured.
    Measured {
        /// Its version.
        version: String,
        /// One row per call.
        rows: Vec<RecorderRow>,
    },
    /// Not measured, and why.
    Blocked {
        /// What went wrong.
        reason: String,
    },
}

/// Token counting throughput of one encoder.
#[derive(Debug, Clone, PartialEq)]
pub struct Throughput {
    /// The encoder.
    pub encoder: &'static str,
    /// Bytes counted per run.
    pub bytes: usize,
    /// Median megabytes per second.
    pub mb_per_s: f64,
}

/// Peak RSS of one process.
#[derive(Debug, Clone, PartialEq)]
pub struct Rss {
    /// Which process.
    pub process: String,
    /// Peak resident set (`VmHWM`), kilobytes.
    pub peak_kb: u64,
    /// Whether the target applies to this row.
    pub target: bool,
}

/// One criterion benchmark, as criterion estimated it.
#[derive(Debug, Clone, PartialEq)]
pub struct CriterionRow {
    /// `group/bench[/input]`.
    pub id: String,
    /// Median time per iteration, nanoseconds.
    pub median_ns: f64,
}

/// Everything `make bench` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The machine.
    pub machine: Machine,
    /// Repetitions of the paired comparisons.
    pub reps: usize,
    /// Projection against the floor (or why not).
    pub projection: Result<ProjectionBench, String>,
    /// Per-call overhead (or why not).
    pub per_call: Result<PerCall, String>,
    /// mcp-recorder.
    pub recorder: Recorder,
    /// `modyo-lab measure` over the whole catalogue, seconds (or why not).
    pub measure_wall: Result<f64, String>,
    /// Token counting throughput (or why not).
    pub tokens: Result<Vec<Throughput>, String>,
    /// Peak RSS through the 314 x 31 case (or why not).
    pub rss: Result<Vec<Rss>, String>,
    /// The size of the server binary the bench ran (or why not).
    pub binary: Result<binary::Binary, String>,
    /// criterion's estimates (empty when `cargo bench` did not run).
    pub criterion: Vec<CriterionRow>,
    /// The builds compared on the projection (`None` when no `--variant` was given).
    pub changes: Option<Result<changes::Changes, String>>,
    /// The whole run, seconds.
    pub wall: f64,
}

/// `modyo-lab bench`: runs every section, prints progress on stderr, writes the report.
pub async fn command(args: BenchArgs) -> Result<(), PerfError> {
    let started = Instant::now();
    let machine = Machine::detect();
    let progress = |line: &str| eprintln!("bench: {line}");
    progress(&format!(
        "{} ({} cores), load {}",
        machine.cpu, machine.cores, machine.load
    ));
    let server = crate::probe::locate_server(args.server.as_deref())?;
    let workspace = modyo_replay::workspace::root().unwrap_or_default();
    let binary = binary::Binary::measure(&server, &workspace).map_err(|e| e.to_string());
    let lab = std::env::current_exe()?;
    let setup = measure::Setup {
        server,
        lab,
        cassettes: std::path::absolute(&args.cassettes)?,
        reps: args.reps.max(1),
        call_reps: args.call_reps.max(1),
    };
    if let Some(dir) = &args.profile {
        progress("profiling the projection");
        let top = profile::run(&setup, dir, &progress).await?;
        progress(&format!("wrote {}", top.display()));
        return Ok(());
    }
    progress("projection sweep against the floor");
    let projection = measure::projection(&setup, &progress)
        .await
        .map_err(|e| e.to_string());
    let changes = if args.variants.is_empty() {
        None
    } else {
        progress("the builds of --variant against the floor");
        Some(
            changes::run(&setup, &args.variants, &progress)
                .await
                .map_err(|e| e.to_string()),
        )
    };
    let (per_call, rss, tokens, recorder, measure_wall) = if args.projection_only {
        let skipped = "skipped (--projection-only)".to_owned();
        let recorder = Recorder::Blocked {
            reason: skipped.clone(),
        };
        (
            Err(skipped.clone()),
            Err(skipped.clone()),
            Err(skipped.clone()),
            recorder,
            Err(skipped),
        )
    } else {
        progress("per-call overhead");
        let per_call = measure::per_call(&setup).await.map_err(|e| e.to_string());
        progress("peak RSS through 314 x 31");
        let rss = measure::rss(&setup).await.map_err(|e| e.to_string());
        progress("token counting throughput");
        let tokens = measure::tokens(&setup).await.map_err(|e| e.to_string());
        progress("mcp-recorder");
        let recorder_bin = args.recorder.clone().unwrap_or_else(|| {
            modyo_replay::cassette::default_dir()
                .parent()
                .map(|p| p.join(".tools/bench-venv/bin/mcp-recorder"))
                .unwrap_or_default()
        });
        let recorder = recorder::run(&setup, &recorder_bin, &progress).await;
        let measure_wall = if args.skip_measure {
            Err("skipped (--skip-measure)".to_owned())
        } else {
            progress("modyo-lab measure over the whole catalogue");
            measure::measure_wall(&setup).await
        };
        (per_call, rss, tokens, recorder, measure_wall)
    };
    let criterion_dir = args.criterion.clone().or_else(|| {
        let exe = std::env::current_exe().ok()?;
        Some(exe.parent()?.parent()?.join("criterion"))
    });
    let criterion = criterion_dir
        .map(|d| criterion::criterion_estimates(&d))
        .unwrap_or_default();
    let report = Report {
        machine,
        reps: setup.reps,
        projection,
        per_call,
        recorder,
        measure_wall,
        tokens,
        rss,
        binary,
        criterion,
        changes,
        wall: started.elapsed().as_secs_f64(),
    };
    let text = render::markdown(&report);
    match args.out.as_deref() {
        Some(path) if path.as_os_str() == "-" => {
            use std::io::Write as _;
            std::io::stdout().lock().write_all(text.as_bytes())?;
        }
        out => {
            let path = out
                .map(PathBuf::from)
                .unwrap_or_else(|| crate::report::default_dir().join(REPORT_FILE));
            std::fs::write(&path, text)?;
            progress(&format!("wrote {}", path.display()));
            if out.is_none() {
                readme_binary_size(&report.binary, &progress)?;
            }
        }
    }
    Ok(())
}

/// Carries the measured binary size into the README's install section (the span between
/// [`binary::README_START`] and [`binary::README_END`]), when the report went to its default
/// place: the README and `reports/performance.md` then say the same.
fn readme_binary_size(
    measured: &Result<binary::Binary, String>,
    progress: &dyn Fn(&str),
) -> Result<(), PerfError> {
    let Ok(measured) = measured else {
        return Ok(());
    };
    let path = modyo_replay::workspace::dir("README.md");
    let Ok(readme) = std::fs::read_to_string(&path) else {
        progress(&format!("no {}: binary size not carried", path.display()));
        return Ok(());
    };
    match binary::rewrite_readme(&readme, &measured.readme_text()) {
        Some(new) if new != readme => {
            std::fs::write(&path, new)?;
            progress(&format!("wrote the binary size into {}", path.display()));
        }
        Some(_) => {}
        None => progress(&format!(
            "{} lacks the markers {} ... {}: binary size not carried",
            path.display(),
            binary::README_START,
            binary::README_END
        )),
    }
    Ok(())
}
