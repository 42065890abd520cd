//! Against the alternative: mcp-recorder (PyPI, pinned in `harness/bench/requirements.txt`,
//! installed by `make bench-venv` into `.tools/bench-venv`).
//!
//! The same session is recorded at the MCP layer with mcp-recorder's own `record-scenarios`
//! (a scenarios file whose stdio target is `modyo-lab serve`), then served by its `replay`
//! (a Streamable HTTP mock, the only replay transport it has) and called over loopback HTTP,
//! interleaved with the same calls to `modyo-lab serve` over stdio. Its default matcher
//! consumes each recorded interaction once, so the session records every repetition.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::measure::{Setup, projection_args, serve_args, small_read};
use super::stats::{self, Summary, ms};
use super::{PerfError, Recorder, RecorderRow};
use crate::probe::Probe;

/// The last `n` characters of a text (a traceback ends with its reason).
fn tail(text: &str, n: usize) -> String {
    let chars: Vec<char> = text.trim_end().chars().collect();
    chars[chars.len().saturating_sub(n)..].iter().collect()
}

/// The calls compared: the small read, a list, and the projection page.
fn calls() -> Vec<(&'static str, Value)> {
    let (tool, args) = small_read();
    vec![
        (tool, args),
        ("content-spaces-list", json!({})),
        ("content-entries-list", projection_args(1, None)),
    ]
}

/// Runs the comparison; any failure becomes [`Recorder::Blocked`] with what was tried.
pub(super) async fn run(
    setup: &Setup,
    recorder: &Path,
    progress: &(dyn Fn(&str) + Sync),
) -> Recorder {
    if !recorder.is_file() {
        return Recorder::Blocked {
            reason: format!(
                "mcp-recorder is not installed at {} (run `make bench-venv`: it installs the pinned version from the package registry)",
                recorder.display()
            ),
        };
    }
    let scratch = std::env::temp_dir().join(format!("modyo-bench-recorder-{}", std::process::id()));
    let result = compare(setup, recorder, &scratch, progress).await;
    let _ = std::fs::remove_dir_all(&scratch);
    match result {
        Ok(recorder) => recorder,
        Err(e) => Recorder::Blocked {
            reason: e.to_string(),
        },
    }
}

/// The scenarios file: every call repeated `reps` times, in the order they will be replayed.
pub(crate) fn scenarios(
    lab: &Path,
    serve_args: &[String],
    calls: &[(&str, Value)],
    reps: usize,
) -> Value {
    let mut actions = vec![json!("list_tools")];
    for _ in 0..reps {
        for (tool, args) in calls {
            actions.push(json!({"call_tool": {"name": tool, "arguments": args}}));
        }
    }
    // JSON is YAML: the file is written as JSON.
    json!({
        "schema_version": "1.0",
        "target": {"command": lab.display().to_string(), "args": serve_args},
        "scenarios": {"session": {"description": "modyo-lab bench", "actions": actions}}
    })
}

async fn version(recorder: &Path) -> String {
    let out = tokio::process::Command::new(recorder)
        .arg("--version")
        .output()
        .await;
    match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        Err(_) => "unknown".into(),
    }
}

/// A free loopback port (bound, then released for the child).
fn free_port() -> Result<u16, PerfError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

async fn wait_for_port(port: u16, child: &mut tokio::process::Child) -> Result<(), PerfError> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(PerfError::Unexpected(format!(
                "mcp-recorder replay exited before listening ({status})"
            )));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(PerfError::Unexpected(
        "mcp-recorder replay did not listen within 30 s".into(),
    ))
}

/// One JSON-RPC POST to the replay, timed; returns the `result`.
async fn post(
    http: &reqwest::Client,
    url: &str,
    id: u64,
    method: &str,
    params: Value,
) -> Result<(f64, Value), PerfError> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let started = Instant::now();
    let response = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .send()
        .await?
        .error_for_status()?;
    let bytes = response.bytes().await?;
    let elapsed = ms(started.elapsed());
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        PerfError::Unexpected(format!(
            "mcp-recorder answered {method} with non-JSON ({e}): {}",
            String::from_utf8_lossy(&bytes)
                .chars()
                .take(200)
                .collect::<String>()
        ))
    })?;
    match value.get("result") {
        Some(result) => Ok((elapsed, result.clone())),
        None => Err(PerfError::Unexpected(format!(
            "mcp-recorder answered {method} without a result: {}",
            value.to_string().chars().take(300).collect::<String>()
        ))),
    }
}

async fn compare(
    setup: &Setup,
    recorder: &Path,
    scratch: &Path,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Recorder, PerfError> {
    std::fs::create_dir_all(scratch)?;
    let calls = calls();
    let reps = setup.reps;
    let file = scratch.join("scenarios.yml");
    let serve = serve_args(setup);
    std::fs::write(
        &file,
        serde_json::to_string_pretty(&scenarios(&setup.lab, &serve, &calls, reps + 1))
            .unwrap_or_default(),
    )?;
    let out_dir = scratch.join("cassettes");
    progress(&format!(
        "  recording {} calls with mcp-recorder record-scenarios",
        calls.len() * (reps + 1)
    ));
    let recorded = tokio::process::Command::new(recorder)
        .arg("record-scenarios")
        .arg(&file)
        .arg("--output-dir")
        .arg(&out_dir)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .await?;
    let cassette: PathBuf = out_dir.join("session.json");
    if !recorded.status.success() || !cassette.is_file() {
        return Err(PerfError::Unexpected(format!(
            "mcp-recorder record-scenarios failed ({}): {}",
            recorded.status,
            tail(&String::from_utf8_lossy(&recorded.stderr), 600)
        )));
    }
    let port = free_port()?;
    let mut replay = tokio::process::Command::new(recorder)
        .arg("replay")
        .arg("--cassette")
        .arg(&cassette)
        .arg("--port")
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let outcome = async {
        wait_for_port(port, &mut replay).await?;
        let url = format!("http://127.0.0.1:{port}/mcp");
        let http = reqwest::Client::new();
        let args = serve.iter().map(String::as_str).collect::<Vec<_>>();
        let mut ours = Probe::start_with_args(&setup.lab, &args, &[]).await?;
        let mut id = 1;
        post(&http, &url, id, "tools/list", json!({})).await?;
        let mut mine: Vec<Vec<f64>> = vec![Vec::new(); calls.len()];
        let mut theirs: Vec<Vec<f64>> = vec![Vec::new(); calls.len()];
        let mut same = vec![true; calls.len()];
        // Repetition 0 warms both up and is not counted.
        for rep in 0..=reps {
            for (i, (tool, args)) in calls.iter().enumerate() {
                id += 1;
                let params = json!({"name": tool, "arguments": args});
                let ours_first = (rep + i) % 2 == 0;
                let mut theirs_result = None;
                if !ours_first {
                    theirs_result =
                        Some(post(&http, &url, id, "tools/call", params.clone()).await?);
                }
                let started = Instant::now();
                let response = ours.call(tool, args).await?;
                let ours_ms = ms(started.elapsed());
                let (theirs_ms, their_result) = match theirs_result {
                    Some(r) => r,
                    None => post(&http, &url, id, "tools/call", params).await?,
                };
                let our_result = response.result.map_err(|(code, message)| {
                    PerfError::Unexpected(format!("{tool}: JSON-RPC error {code}: {message}"))
                })?;
                if our_result != their_result {
                    same[i] = false;
                }
                if rep > 0 {
                    mine[i].push(ours_ms);
                    theirs[i].push(theirs_ms);
                }
            }
        }
        ours.close().await;
        let mut rows = Vec::new();
        for (i, (tool, args)) in calls.iter().enumerate() {
            let missing = || PerfError::Unexpected("no timings".into());
            rows.push(RecorderRow {
                call: format!("{tool} {args}"),
                ours: Summary::of(&mine[i]).ok_or_else(missing)?,
                theirs: Summary::of(&theirs[i]).ok_or_else(missing)?,
                ratio: stats::paired_ratio(&mine[i], &theirs[i]).ok_or_else(missing)?,
                same_result: same[i],
            });
        }
        Ok::<_, PerfError>(rows)
    }
    .await;
    let _ = replay.kill().await;
    let rows = outcome?;
    Ok(Recorder::Measured {
        version: version(recorder).await,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scenarios_file_repeats_every_call_against_the_offline_server() {
        let calls = [
            ("content-spaces-list", json!({})),
            ("content-spaces-get", json!({"space": "636"})),
        ];
        let file = scenarios(
            Path::new("/bin/modyo-lab"),
            &["serve".to_owned()],
            &calls,
            3,
        );
        assert_eq!(file["schema_version"], "1.0");
        assert_eq!(file["target"]["command"], "/bin/modyo-lab");
        assert_eq!(file["target"]["args"], json!(["serve"]));
        let actions = file["scenarios"]["session"]["actions"].as_array().unwrap();
        assert_eq!(actions.len(), 1 + 3 * 2);
        assert_eq!(actions[0], "list_tools");
        assert_eq!(
            actions[2],
            json!({"call_tool": {"name": "content-spaces-get", "arguments": {"space": "636"}}})
        );
        assert_eq!(actions[3]["call_tool"]["name"], "content-spaces-list");
    }
}
