//! The performance report's tests: a full report rendered exactly, ratios first with their
//! verdicts, every section, the recorder's rows and failures, units.

use super::*;
use crate::perf::{DefaultChoice, Machine, PerCall, ProjectionRow, RecorderRow, Rss, Throughput};

fn s(p50: f64, p95: f64) -> Summary {
    Summary {
        n: 10,
        p50,
        p95,
        min: p50 / 2.0,
    }
}

fn report() -> Report {
    Report {
        machine: Machine {
            cpu: "Example CPU".into(),
            cores: 2,
            load: "1.00 2.00 3.00".into(),
            kernel: "6.1.0".into(),
        },
        reps: 15,
        projection: Ok(ProjectionBench {
            entries: 100,
            fields: 31,
            call: "content-entries-list {\"fields\":[\"title\"]}".into(),
            http_requests: 104,
            rows: vec![
                ProjectionRow {
                    concurrency: 1,
                    server: s(90.0, 120.0),
                    floor: s(80.0, 100.0),
                    ratio: 1.12,
                    ratio_spread: None,
                    server_cpu: Some(30.0),
                    floor_cpu: Some(20.0),
                },
                ProjectionRow {
                    concurrency: 8,
                    server: s(40.0, 52.5),
                    floor: s(25.0, 30.0),
                    ratio: 1.6,
                    ratio_spread: Some((1.45, 1.71)),
                    server_cpu: Some(60.0),
                    floor_cpu: Some(40.0),
                },
            ],
            choice: Some(DefaultChoice {
                concurrency: 8,
                changed: false,
                reason: "8 is the fastest point of the sweep".into(),
            }),
        }),
        per_call: Ok(PerCall {
            call: "content-spaces-get {\"space\":\"636\"}".into(),
            http_requests: 1,
            server: s(1.2, 2.0),
            raw: s(0.4, 0.9),
            overhead_p50: 0.75,
        }),
        recorder: Recorder::Blocked {
            reason: "not installed".into(),
        },
        measure_wall: Ok(42.25),
        tokens: Ok(vec![Throughput {
            encoder: "o200k_base",
            bytes: 2_500_000,
            mb_per_s: 3.456,
        }]),
        rss: Ok(vec![Rss {
            process: "offline".into(),
            peak_kb: 51_200,
            target: true,
        }]),
        binary: Ok(super::super::binary::Binary {
            path: "target/release/modyo-mcp".into(),
            bytes: 29_712_345,
        }),
        criterion: vec![CriterionRow {
            id: "tokens/o200k_base".into(),
            median_ns: 1_234_567.0,
        }],
        changes: None,
        wall: 300.4,
    }
}

#[test]
fn ratios_come_first_with_verdicts() {
    let text = markdown(&report());
    let ratios = text.find("## Ratios and targets").unwrap();
    assert!(ratios < text.find("## Projection").unwrap());
    assert!(text.contains("Machine: Example CPU (2 cores), load average at start 1.00 2.00 3.00"));
    // The judged projection row is the chosen default (8), which misses 1.3x.
    assert!(
        text.contains("server / floor at concurrency 8 | 1.60x (middle half of the repetitions: 1.45-1.71x) | <= 1.3x | **NOT met** |"),
        "{text}"
    );
    assert!(text.contains("| per call, server adds at p50 (paired) | 0.75 ms | < 1.00 ms | met |"));
    assert!(text.contains("| ours / mcp-recorder at p50 | blocked (see below) |"));
    assert!(text.contains("Blocked: not installed"));
    assert!(text.contains("| 50.0 MB | < 100 MB | met |"));
    assert!(
        text.contains("server / floor at concurrency 1 | 1.12x | < 1.6x | met |"),
        "{text}"
    );
    assert!(!text.contains("## What each change bought"));
    // Each sweep row shows the middle half of its per-repetition ratios, when measured.
    assert!(text.contains("| 1.60x | 1.45-1.71x |"), "{text}");
    assert!(text.contains("| 1.12x | n/a |"), "{text}");
}

#[test]
fn each_build_is_a_row_with_what_it_bought_at_concurrency_8() {
    use crate::perf::changes::{ChangeCell, ChangeRow, Changes, FloorCell};
    let cell = |concurrency, p50, ratio| ChangeCell {
        concurrency,
        server: s(p50, p50),
        ratio,
        cpu: Some(20.0),
        child_cpu: Some(9.5),
    };
    let mut r = report();
    r.changes = Some(Ok(Changes {
        reps: 40,
        load: "7.10 8.20 9.30".into(),
        floor: vec![
            FloorCell {
                concurrency: 1,
                floor: s(30.0, 31.0),
                cpu: Some(12.0),
            },
            FloorCell {
                concurrency: 8,
                floor: s(10.0, 11.0),
                cpu: Some(11.0),
            },
        ],
        rows: vec![
            ChangeRow {
                label: "main".into(),
                cells: vec![cell(1, 60.0, 2.0), cell(8, 30.0, 3.0)],
            },
            ChangeRow {
                label: "borrowed values".into(),
                cells: vec![cell(1, 45.0, 1.5), cell(8, 12.0, 1.25)],
            },
        ],
    }));
    let text = markdown(&r);
    assert!(text.contains("40 repetitions"), "{text}");
    assert!(text.contains("Load average when this section started: 7.10 8.20 9.30."));
    assert!(
        text.contains("| build | c=1 p50 | c=1 ratio | c=1 CPU | c=8 p50 | c=8 ratio | c=8 CPU | bought at c=8 |"),
        "{text}"
    );
    assert!(text.contains(
        "| floor (bare reqwest) | 30.0 ms | 1.00x | 12.0 ms | 10.0 ms | 1.00x | 11.0 ms | |"
    ));
    assert!(text.contains(
        "| main | 60.0 ms | 2.00x | 20.0 ms (9.50 ms) | 30.0 ms | 3.00x | 20.0 ms (9.50 ms) | |"
    ));
    assert!(
        text.contains("| borrowed values | 45.0 ms | 1.50x | 20.0 ms (9.50 ms) | 12.0 ms | 1.25x | 20.0 ms (9.50 ms) | -1.75x |"),
        "{text}"
    );
    r.changes = Some(Err("no build".into()));
    assert!(markdown(&r).contains("## What each change bought\n\nNot measured: no build"));
}

#[test]
fn sections_render_every_figure() {
    let text = markdown(&report());
    assert!(
        text.contains(
            "| 8 | 40.0 ms | 52.5 ms | 25.0 ms | 30.0 ms | 1.60x | 1.45-1.71x | 60.0 ms | 40.0 ms |"
        ),
        "{text}"
    );
    // The gap is explained from the judged row's own figures: 40 ms of CPU in 25 ms of
    // floor wall time is 1.6 cores busy, 60 in 40 is 1.5.
    assert!(
        text.contains("at concurrency 8 the floor keeps 1.6 of the 2 cores busy and the server side 1.5, and the server side spends 60.0 ms of CPU per call against 40.0 ms for the floor (1.50x)"),
        "{text}"
    );
    assert!(text.contains("at concurrency 1 the server is 1.12x the floor"));
    assert!(text.contains("Default concurrency: **8** (8 is the fastest point of the sweep;"));
    assert!(text.contains("| tools/call | 1.20 ms | 2.00 ms | 0.60 ms |"));
    assert!(text.contains("42.2 s wall") || text.contains("42.3 s wall"));
    assert!(text.contains("o200k_base: 3.5 MB/s"));
    assert!(text.contains("| `tokens/o200k_base` | 1.23 ms |"));
    assert!(text.contains("Whole run: 300 s."));
    assert!(
        text.contains("(`target/release/modyo-mcp`): 29.7 MB (29712345 bytes)."),
        "{text}"
    );
}

#[test]
fn measured_recorder_rows_and_failures() {
    let mut r = report();
    r.recorder = Recorder::Measured {
        version: "mcp-recorder, version 0.5.0".into(),
        rows: vec![RecorderRow {
            call: "content-spaces-list {}".into(),
            ours: s(1.0, 2.0),
            theirs: s(2.0, 3.0),
            ratio: 0.5,
            same_result: true,
        }],
    };
    r.per_call = Err("the server crashed".into());
    r.criterion.clear();
    let text = markdown(&r);
    assert!(
        text.contains(
            "| ours / mcp-recorder at p50, `content-spaces-list` | 0.50x | <= 1.0x | met |"
        )
    );
    assert!(text.contains(
        "| `content-spaces-list {}` | 1.00 ms | 2.00 ms | 2.00 ms | 3.00 ms | 0.50x | yes |"
    ));
    assert!(text.contains("Not measured: the server crashed"));
    assert!(!text.contains("by design"));
    let Recorder::Measured { rows, .. } = &mut r.recorder else {
        unreachable!()
    };
    rows.push(RecorderRow {
        call: "content-entries-list {\"fields\":[\"title\"]}".into(),
        ours: s(40.0, 50.0),
        theirs: s(4.0, 5.0),
        ratio: 10.0,
        same_result: true,
    });
    let text = markdown(&r);
    assert!(
        text.contains(
            "`content-entries-list` is 10.00x, by design: this call causes 104 HTTP requests"
        ),
        "{text}"
    );
    // A call of one request that misses is said to carry one round trip, with its cost
    // from the per-call section.
    r.per_call = Ok(PerCall {
        call: "content-spaces-list {}".into(),
        http_requests: 1,
        server: s(1.2, 2.0),
        raw: s(0.4, 0.9),
        overhead_p50: 0.75,
    });
    let Recorder::Measured { rows, .. } = &mut r.recorder else {
        unreachable!()
    };
    rows[0].ratio = 1.07;
    let text = markdown(&r);
    assert!(
        text.contains("`content-spaces-list` is 1.07x (1.00 ms against 2.00 ms at p50): ours includes the one HTTP round trip of the call through the replay (the per-call section measures it at 0.40 ms p50)"),
        "{text}"
    );
    assert!(text.contains("No criterion results found"));
}

#[test]
fn units() {
    assert_eq!(format_ms(0.123), "0.12 ms");
    assert_eq!(format_ms(12.345), "12.3 ms");
    assert_eq!(format_ms(1234.4), "1234 ms");
    assert_eq!(format_ns(512.0), "512 ns");
    assert_eq!(format_ns(1_500.0), "1.50 µs");
    assert_eq!(format_ns(2_500_000_000.0), "2.50 s");
}
