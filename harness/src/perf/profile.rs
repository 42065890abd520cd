//! `modyo-lab bench --profile DIR`: where the server's CPU goes during the projection.
//!
//! The server binary (`--server`; `make profile`: the `dist` build) runs under `perf record`
//! (sampling, with DWARF call graphs from the binary's unwind tables) against the replay server
//! while the projection call of the bench (100 entries x 31 fields, `fields` with 10 names) runs
//! `--reps` times at the default concurrency; then `perf report` writes two top-N tables to
//! `DIR/top.txt`: self time per function, and time including callees. `DIR/perf.data` stays for
//! `perf report -i` (or a flame graph tool). Needs `perf` on `PATH` (Debian: `linux-perf`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::measure::{self, Setup};
use super::{CURRENT_DEFAULT, PerfError};
use crate::probe::Probe;

/// Sampling frequency (Hz).
const FREQUENCY: &str = "997";

/// Rows of each table in `top.txt` (functions under this share of samples are left out).
const PERCENT_LIMIT: &str = "0.7";

/// Profiles the projection; returns the path of the written `top.txt`.
pub(super) async fn run(
    setup: &Setup,
    dir: &Path,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<PathBuf, PerfError> {
    let perf = find_on_path("perf").ok_or_else(|| {
        PerfError::Unexpected("`perf` is not on PATH (Debian: apt-get install linux-perf)".into())
    })?;
    std::fs::create_dir_all(dir)?;
    let data = std::path::absolute(dir.join("perf.data"))?;
    let (replay, _) = measure::replay_with(setup, crate::fixtures::pilot::PAGES_100).await?;
    let data_arg = data.display().to_string();
    let server = setup.server.display().to_string();
    let args = [
        "record",
        "-F",
        FREQUENCY,
        "--call-graph",
        "dwarf,16384",
        "-q",
        "-o",
        &data_arg,
        "--",
        &server,
    ];
    let mut probe =
        Probe::start_with_args(&perf, &args, &measure::server_env(&replay.uri())).await?;
    for _ in 0..setup.reps {
        measure::projection_call(&mut probe, CURRENT_DEFAULT).await?;
    }
    progress(&format!(
        "  {} projection calls at concurrency {CURRENT_DEFAULT} profiled; writing the report",
        setup.reps
    ));
    probe.close_within(Duration::from_secs(120)).await;
    measure::no_misses(&replay)?;
    let mut top = String::new();
    for (title, mode) in [
        (
            "Self time per function (where the samples were)",
            "--no-children",
        ),
        ("Time including callees", "--children"),
    ] {
        let output = tokio::process::Command::new(&perf)
            .args([
                "report",
                "-i",
                &data_arg,
                "--stdio",
                mode,
                "--sort",
                "dso,symbol",
            ])
            .args(["-g", "none", "--percent-limit", PERCENT_LIMIT])
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .await?;
        if !output.status.success() {
            return Err(PerfError::Unexpected(format!(
                "perf report failed ({})",
                output.status
            )));
        }
        top.push_str(&format!("## {title}\n\n"));
        // perf pads every line to the terminal's width with empty columns.
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            top.push_str(line.trim_end().trim_end_matches([' ', '-']));
            top.push('\n');
        }
        top.push('\n');
    }
    let path = dir.join("top.txt");
    std::fs::write(&path, top)?;
    Ok(path)
}

/// The first `name` on `PATH`.
fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}
