//! The timed sections: projection against the floor (with the sweep), per-call overhead,
//! peak RSS, token throughput and the wall time of `modyo-lab measure`.
//!
//! The server runs as a child process (`--server`; `make bench`: the `dist` build of
//! `modyo-mcp`, driven by [`Probe`]) pointed at a replay server in this process, so the bench
//! sees every HTTP request the call caused and can issue exactly those requests itself, with a
//! bare reqwest client, against the same replay server: the floor. Replay ignores recorded
//! latency here (`delay_ms`), so what is compared is the work of the two clients, not sleeps.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt, stream};
use serde_json::{Value, json};

use super::machine::{cpu_ns, peak_rss_kb};
use super::stats::{self, Summary, SweepPoint, ms};
use super::{CURRENT_DEFAULT, NOISE, PerCall, PerfError, ProjectionBench, ProjectionRow, Rss};
use super::{SWEEP, Throughput};
use crate::fixtures::pilot::{BASE, PAGES_100, projected_fields};
use crate::fixtures::sucursales::{ENTRIES, SPACE_ID};
use crate::probe::{Answered, Probe};
use crate::serve::OFFLINE_PLATFORM_NAME;
use crate::session::{CANARY_TOKEN, Library};
use modyo_replay::replay::{ReceivedRequest, ReplayOptions, ReplayServer};

/// Fields per entry of the Sucursales type.
pub(super) const FIELDS: usize = 31;

/// What every section needs.
#[derive(Debug, Clone)]
pub(super) struct Setup {
    /// The `modyo-mcp` binary measured (`--server`).
    pub(super) server: PathBuf,
    /// This `modyo-lab` executable (for `serve` and `measure`).
    pub(super) lab: PathBuf,
    /// The cassettes directory (absolute).
    pub(super) cassettes: PathBuf,
    /// Repetitions of the paired comparisons.
    pub(super) reps: usize,
    /// Repetitions of the per-call comparison.
    pub(super) call_reps: usize,
}

/// The environment of a `modyo-mcp` child pointed at `uri`.
pub(super) fn server_env(uri: &str) -> Vec<(String, String)> {
    vec![
        ("MODYO_URL".to_owned(), uri.to_owned()),
        ("MODYO_TOKEN".to_owned(), CANARY_TOKEN.to_owned()),
        (
            "MODYO_PLATFORM_NAME".to_owned(),
            OFFLINE_PLATFORM_NAME.to_owned(),
        ),
    ]
}

/// A replay server (repeats allowed, latency ignored) with `set` mounted.
pub(super) async fn replay_with(
    setup: &Setup,
    set: &str,
) -> Result<(ReplayServer, Library), PerfError> {
    let library = Library::load(&setup.cassettes)?;
    let replay = ReplayServer::start(
        ReplayOptions::default()
            .allow_repeats(true)
            .ignore_latency(true),
    )
    .await;
    replay.mount(&library.mount_set(set)?).await?;
    Ok((replay, library))
}

/// The `content-entries-list` arguments of the projection: one page of 100 with `fields`.
pub(super) fn projection_args(page: u64, concurrency: Option<usize>) -> Value {
    let mut args = json!({
        "space": SPACE_ID.to_string(),
        "per_page": 100,
        "page": page,
        "fields": projected_fields(),
    });
    if let Some(c) = concurrency {
        args["concurrency"] = json!(c);
    }
    args
}

/// The tool the projection sections call.
pub(super) const PROJECTION_TOOL: &str = "content-entries-list";

/// The small read of the per-call section.
pub(super) fn small_read() -> (&'static str, Value) {
    ("content-spaces-get", json!({"space": SPACE_ID.to_string()}))
}

/// One tools/call, timed; fails on a JSON-RPC error or an `isError` result.
async fn timed_call(probe: &mut Probe, tool: &str, args: &Value) -> Result<f64, PerfError> {
    let answered = probe.send_call(tool, args).await?;
    let elapsed = ms(answered.elapsed);
    succeeded(probe, tool, answered)?;
    Ok(elapsed)
}

/// Fails on a JSON-RPC error or an `isError` result of an answered call. Every timing stops
/// at [`Probe::send_call`] (the answer's line read and matched by `id`): these checks of the
/// answer (parsing it whole, holding it to its compact form) are not the server's time, as the
/// floor's client does not parse the bodies it reads either, so they come after.
pub(super) fn succeeded(
    probe: &mut Probe,
    tool: &str,
    answered: Answered,
) -> Result<(), PerfError> {
    let response = probe.response(answered)?;
    match &response.result {
        Ok(result) if result.get("isError") != Some(&Value::Bool(true)) => Ok(()),
        _ => Err(PerfError::Unexpected(format!(
            "{tool} did not succeed: {}",
            response.line.chars().take(300).collect::<String>()
        ))),
    }
}

/// The requests a call caused, as URLs to issue again: those before the fan-out in order,
/// and the fan-out (`<list path>/<id>` reads) apart.
#[derive(Debug, Clone, Default)]
pub(super) struct Plan {
    sequential: Vec<String>,
    fanout: Vec<String>,
}

impl Plan {
    fn len(&self) -> usize {
        self.sequential.len() + self.fanout.len()
    }

    fn of(base: &str, received: &[ReceivedRequest], fanout_prefix: Option<&str>) -> Plan {
        let mut plan = Plan::default();
        for r in received {
            let mut url = format!("{base}{}", r.path);
            if !r.query.is_empty() {
                let query = url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(&r.query)
                    .finish();
                url.push('?');
                url.push_str(&query);
            }
            match fanout_prefix {
                Some(prefix) if r.path.starts_with(prefix) => plan.fanout.push(url),
                _ => plan.sequential.push(url),
            }
        }
        plan
    }
}

/// Issues one request and reads the whole body.
async fn fetch(http: &reqwest::Client, url: &str) -> Result<(), PerfError> {
    let response = http
        .get(url)
        .bearer_auth(CANARY_TOKEN)
        .send()
        .await?
        .error_for_status()?;
    response.bytes().await?;
    Ok(())
}

/// The floor: the plan's requests by a bare client, the fan-out at `concurrency`, timed.
pub(super) async fn floor(
    http: &reqwest::Client,
    plan: &Plan,
    concurrency: usize,
) -> Result<f64, PerfError> {
    let started = Instant::now();
    for url in &plan.sequential {
        fetch(http, url).await?;
    }
    stream::iter(plan.fanout.iter().map(|url| fetch(http, url)))
        .buffered(concurrency.max(1))
        .try_collect::<Vec<()>>()
        .await?;
    Ok(ms(started.elapsed()))
}

/// CPU time of the two processes of a comparison: this one (the replay server, the floor's
/// client, the probe) and the server child. Both sides of a comparison are metered alike, so
/// the replay's work for each side is counted on that side.
struct CpuMeter {
    pids: [u32; 2],
}

impl CpuMeter {
    fn of(probe: &Probe) -> Option<CpuMeter> {
        Some(CpuMeter {
            pids: [std::process::id(), probe.pid()?],
        })
    }

    fn now(&self) -> Option<u64> {
        self.pids.iter().map(|&pid| cpu_ns(pid)).sum()
    }
}

/// Runs `side`, appends its wall time to `wall` and the CPU time it cost to `cpu`, and
/// returns what else it gave (to be checked after the metering).
async fn metered<F, T>(
    meter: Option<&CpuMeter>,
    wall: &mut Vec<f64>,
    cpu: &mut Vec<f64>,
    side: F,
) -> Result<T, PerfError>
where
    F: std::future::Future<Output = Result<(f64, T), PerfError>>,
{
    let before = meter.and_then(CpuMeter::now);
    let (elapsed, rest) = side.await?;
    wall.push(elapsed);
    if let (Some(before), Some(after)) = (before, meter.and_then(CpuMeter::now)) {
        cpu.push(after.saturating_sub(before) as f64 / 1e6);
    }
    Ok(rest)
}

/// Runs one call and returns what the replay server received during it.
async fn learn(
    probe: &mut Probe,
    replay: &ReplayServer,
    tool: &str,
    args: &Value,
) -> Result<Vec<ReceivedRequest>, PerfError> {
    let before = replay.received_count();
    timed_call(probe, tool, args).await?;
    Ok(replay.received_since(before))
}

pub(super) fn no_misses(replay: &ReplayServer) -> Result<(), PerfError> {
    let misses = replay.misses();
    match misses.first() {
        None => Ok(()),
        Some(miss) => Err(PerfError::Unexpected(format!(
            "{} replay miss(es), first: {miss}",
            misses.len()
        ))),
    }
}

/// Runs the projection once and returns its requests as the floor's plan (the 100 entry
/// reads as the fan-out).
pub(super) async fn learn_projection(
    probe: &mut Probe,
    replay: &ReplayServer,
) -> Result<Plan, PerfError> {
    let received = learn(probe, replay, PROJECTION_TOOL, &projection_args(1, None)).await?;
    let prefix = format!("/api/admin/content/spaces/{SPACE_ID}/entries/");
    let plan = Plan::of(&replay.uri(), &received, Some(&prefix));
    if plan.fanout.len() != 100 {
        return Err(PerfError::Unexpected(format!(
            "expected 100 entry reads under {prefix}, saw {} (requests: {:?})",
            plan.fanout.len(),
            received
                .iter()
                .map(ReceivedRequest::line)
                .collect::<Vec<_>>()
        )));
    }
    Ok(plan)
}

/// One projection call at `concurrency`, timed (milliseconds).
pub(super) async fn projection_call(
    probe: &mut Probe,
    concurrency: usize,
) -> Result<f64, PerfError> {
    timed_call(
        probe,
        PROJECTION_TOOL,
        &projection_args(1, Some(concurrency)),
    )
    .await
}

/// Projection: `content-entries-list` with `fields` over 100 entries against the floor, at
/// every concurrency of the sweep, interleaved.
pub(super) async fn projection(
    setup: &Setup,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<ProjectionBench, PerfError> {
    let (replay, _) = replay_with(setup, PAGES_100).await?;
    let mut probe = Probe::start(&setup.server, &server_env(&replay.uri())).await?;
    let http = reqwest::Client::new();
    let plan = learn_projection(&mut probe, &replay).await?;
    // Warm-up: connections, caches, the first-call costs of both sides.
    for &c in &SWEEP {
        timed_call(&mut probe, PROJECTION_TOOL, &projection_args(1, Some(c))).await?;
        floor(&http, &plan, c).await?;
    }
    let meter = CpuMeter::of(&probe);
    let meter = meter.as_ref();
    let mut server: Vec<Vec<f64>> = vec![Vec::new(); SWEEP.len()];
    let mut base: Vec<Vec<f64>> = vec![Vec::new(); SWEEP.len()];
    let mut server_cpu: Vec<Vec<f64>> = vec![Vec::new(); SWEEP.len()];
    let mut base_cpu: Vec<Vec<f64>> = vec![Vec::new(); SWEEP.len()];
    for rep in 0..setup.reps {
        for (i, &c) in SWEEP.iter().enumerate() {
            let args = projection_args(1, Some(c));
            for side in [(rep + i) % 2, (rep + i + 1) % 2] {
                if side == 0 {
                    let call = async {
                        let answered = probe.send_call(PROJECTION_TOOL, &args).await?;
                        Ok((ms(answered.elapsed), answered))
                    };
                    let answered = metered(meter, &mut server[i], &mut server_cpu[i], call).await?;
                    succeeded(&mut probe, PROJECTION_TOOL, answered)?;
                } else {
                    let call = async { Ok((floor(&http, &plan, c).await?, ())) };
                    metered(meter, &mut base[i], &mut base_cpu[i], call).await?;
                }
            }
        }
        if (rep + 1) % 5 == 0 {
            progress(&format!("  projection rep {}/{}", rep + 1, setup.reps));
        }
    }
    probe.close().await;
    no_misses(&replay)?;
    let mut rows = Vec::new();
    for (i, &concurrency) in SWEEP.iter().enumerate() {
        let (Some(s), Some(f), Some(ratio)) = (
            Summary::of(&server[i]),
            Summary::of(&base[i]),
            stats::paired_ratio(&server[i], &base[i]),
        ) else {
            continue;
        };
        rows.push(ProjectionRow {
            concurrency,
            server: s,
            floor: f,
            ratio,
            ratio_spread: stats::paired_ratio_spread(&server[i], &base[i]),
            server_cpu: Summary::of(&server_cpu[i]).map(|s| s.p50),
            floor_cpu: Summary::of(&base_cpu[i]).map(|s| s.p50),
        });
    }
    let points: Vec<SweepPoint> = rows
        .iter()
        .map(|r| SweepPoint {
            concurrency: r.concurrency,
            server_p50: r.server.p50,
            ratio: r.ratio,
        })
        .collect();
    Ok(ProjectionBench {
        entries: plan.fanout.len(),
        fields: FIELDS,
        call: format!("content-entries-list {}", projection_args(1, None)),
        http_requests: plan.len(),
        choice: stats::pick_default(CURRENT_DEFAULT, &points, NOISE),
        rows,
    })
}

/// Per call: a small read through the server against the raw HTTP round trip it causes.
pub(super) async fn per_call(setup: &Setup) -> Result<PerCall, PerfError> {
    let (replay, _) = replay_with(setup, BASE).await?;
    let mut probe = Probe::start(&setup.server, &server_env(&replay.uri())).await?;
    let http = reqwest::Client::new();
    let (tool, args) = small_read();
    let received = learn(&mut probe, &replay, tool, &args).await?;
    let plan = Plan::of(&replay.uri(), &received, None);
    for _ in 0..20 {
        timed_call(&mut probe, tool, &args).await?;
        floor(&http, &plan, 1).await?;
    }
    let mut server = Vec::with_capacity(setup.call_reps);
    let mut raw = Vec::with_capacity(setup.call_reps);
    for rep in 0..setup.call_reps {
        if rep % 2 == 0 {
            server.push(timed_call(&mut probe, tool, &args).await?);
            raw.push(floor(&http, &plan, 1).await?);
        } else {
            raw.push(floor(&http, &plan, 1).await?);
            server.push(timed_call(&mut probe, tool, &args).await?);
        }
    }
    probe.close().await;
    no_misses(&replay)?;
    let missing = || PerfError::Unexpected("no timings".into());
    Ok(PerCall {
        call: format!("{tool} {args}"),
        http_requests: plan.len(),
        server: Summary::of(&server).ok_or_else(missing)?,
        raw: Summary::of(&raw).ok_or_else(missing)?,
        overhead_p50: stats::paired_difference(&server, &raw).ok_or_else(missing)?,
    })
}

/// Every page of the 314 x 31 case with `fields` through a started child.
async fn walk_all(probe: &mut Probe) -> Result<(), PerfError> {
    for page in 1..=(ENTRIES as u64).div_ceil(100) {
        timed_call(probe, PROJECTION_TOOL, &projection_args(page, None)).await?;
    }
    Ok(())
}

/// The arguments of `modyo-lab serve` for the bench (every cassette, no recorded latency).
pub(super) fn serve_args(setup: &Setup) -> Vec<String> {
    vec![
        "serve".to_owned(),
        "--cassettes".to_owned(),
        setup.cassettes.display().to_string(),
        "--ignore-latency".to_owned(),
    ]
}

/// Peak RSS through the 314 x 31 case: of `modyo-mcp` alone (replay in this process), and of
/// the offline server (`modyo-lab serve`: the server plus the replay of every cassette).
pub(super) async fn rss(setup: &Setup) -> Result<Vec<Rss>, PerfError> {
    let mut rows = Vec::new();
    let (replay, _) = replay_with(setup, PAGES_100).await?;
    let mut probe = Probe::start(&setup.server, &server_env(&replay.uri())).await?;
    walk_all(&mut probe).await?;
    let server_kb = probe.pid().and_then(peak_rss_kb);
    probe.close().await;
    no_misses(&replay)?;
    let args = serve_args(setup);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut offline = Probe::start_with_args(&setup.lab, &args, &[]).await?;
    walk_all(&mut offline).await?;
    let offline_kb = offline.pid().and_then(peak_rss_kb);
    offline.close().await;
    let unreadable = || PerfError::Unexpected("VmHWM unreadable (not Linux?)".into());
    rows.push(Rss {
        process: "offline server (`modyo-lab serve`: server + replay of every cassette)".into(),
        peak_kb: offline_kb.ok_or_else(unreadable)?,
        target: true,
    });
    rows.push(Rss {
        process: "`modyo-mcp` alone (replay in the bench process)".into(),
        peak_kb: server_kb.ok_or_else(unreadable)?,
        target: false,
    });
    Ok(rows)
}

/// Token counting throughput over the 314 x 31 responses (the exact lines the server sent).
pub(super) async fn tokens(setup: &Setup) -> Result<Vec<Throughput>, PerfError> {
    let (replay, _) = replay_with(setup, PAGES_100).await?;
    let mut probe = Probe::start(&setup.server, &server_env(&replay.uri())).await?;
    let mut text = String::new();
    for page in 1..=(ENTRIES as u64).div_ceil(100) {
        let response = probe
            .call(PROJECTION_TOOL, &projection_args(page, None))
            .await?;
        text.push_str(&response.line);
        text.push('\n');
    }
    probe.close().await;
    type Counter = fn(&str) -> u64;
    let encoders: [(&'static str, Counter); 2] = [
        ("o200k_base", crate::tokens::o200k_base),
        ("cl100k_base", crate::tokens::cl100k_base),
    ];
    let mut rows = Vec::new();
    for (encoder, count) in encoders {
        count("warm up the encoder");
        let mut rates = Vec::new();
        for _ in 0..5 {
            let started = Instant::now();
            std::hint::black_box(count(std::hint::black_box(&text)));
            rates.push(stats::mb_per_s(text.len(), started.elapsed()));
        }
        rows.push(Throughput {
            encoder,
            bytes: text.len(),
            mb_per_s: stats::median(&rates).unwrap_or(0.0),
        });
    }
    Ok(rows)
}

/// The wall time of `modyo-lab measure` over the whole catalogue, written to a scratch
/// directory (the committed reports are not touched).
pub(super) async fn measure_wall(setup: &Setup) -> Result<f64, String> {
    let scratch = std::env::temp_dir().join(format!("modyo-bench-measure-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let status = tokio::process::Command::new(&setup.lab)
        .arg("measure")
        .arg("--cassettes")
        .arg(&setup.cassettes)
        .arg("--reports")
        .arg(&scratch)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .await;
    let elapsed = started.elapsed();
    let _ = std::fs::remove_dir_all(&scratch);
    match status {
        Ok(s) if s.success() => Ok(round(elapsed)),
        Ok(s) => Err(format!("modyo-lab measure failed ({s})")),
        Err(e) => Err(format!("cannot run modyo-lab measure: {e}")),
    }
}

fn round(d: Duration) -> f64 {
    (d.as_secs_f64() * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use modyo_replay::replay::ReceivedBody;

    fn get(path: &str, query: &[(&str, &str)]) -> ReceivedRequest {
        let mut request = ReceivedRequest::unanswered("GET", path, query, ReceivedBody::Empty);
        request.replayed = true;
        request
    }

    #[test]
    fn the_floor_plan_reissues_every_request_with_the_fan_out_apart() {
        let received = [
            get("/api/admin/content/spaces/636", &[]),
            get(
                "/api/admin/content/spaces/636/entries",
                &[("page", "1"), ("per_page", "100"), ("tags[]", "a b")],
            ),
            get("/api/admin/content/spaces/636/types/4021", &[]),
            get("/api/admin/content/spaces/636/entries/1000001", &[]),
            get("/api/admin/content/spaces/636/entries/1000002", &[]),
        ];
        let plan = Plan::of(
            "http://127.0.0.1:9",
            &received,
            Some("/api/admin/content/spaces/636/entries/"),
        );
        assert_eq!(plan.len(), 5);
        assert_eq!(
            plan.sequential,
            [
                "http://127.0.0.1:9/api/admin/content/spaces/636",
                "http://127.0.0.1:9/api/admin/content/spaces/636/entries?page=1&per_page=100&tags%5B%5D=a+b",
                "http://127.0.0.1:9/api/admin/content/spaces/636/types/4021",
            ]
        );
        assert_eq!(plan.fanout.len(), 2);
        let all = Plan::of("http://h", &received, None);
        assert_eq!((all.sequential.len(), all.fanout.len()), (5, 0));
    }

    #[test]
    fn the_projection_arguments_name_the_concurrency_only_when_given() {
        let args = projection_args(2, Some(16));
        assert_eq!(args["page"], 2);
        assert_eq!(args["per_page"], 100);
        assert_eq!(args["concurrency"], 16);
        assert!(projection_args(1, None).get("concurrency").is_none());
    }
}
