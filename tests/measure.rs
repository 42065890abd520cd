//! The measurement lab end to end: the built `modyo-mcp` binary probed over stdio, before and
//! after, for every module that has cassette scenarios.
//!
//! One shared run of the whole catalogue feeds the snapshot, slot-sum and projection tests (it
//! takes a while unoptimized); the determinism test makes a second run and compares bytes.
//! The server binary must be built first (`make test` does; else `cargo build -p modyo-mcp`).
//! Snapshots live in `tests/snapshots/`; review a change with `cargo insta review` (CI never
//! writes them: `make test` sets `INSTA_UPDATE=no`).

use std::path::Path;
use std::sync::OnceLock;

use modyo_lab::measure::{self, Measurement, Options};
use modyo_lab::probe::locate_server;
use modyo_lab::{Cassette, Interaction, Provenance, Scenario, report};
use serde_json::json;

fn options(cassettes: &Path) -> Options {
    let server = match locate_server(None) {
        Ok(server) => server,
        Err(e) => panic!("{e}"),
    };
    Options {
        cassettes: cassettes.to_path_buf(),
        server,
        module: None,
        scenario: None,
        strict_binary: true,
    }
}

fn measure(options: &Options) -> Measurement {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    match runtime.block_on(measure::run(options, &mut |_: &str| {})) {
        Ok(measurement) => measurement,
        Err(e) => panic!("measure failed: {e}"),
    }
}

/// The whole catalogue, measured once for every test that only reads the result.
fn catalogue() -> &'static Measurement {
    static RUN: OnceLock<Measurement> = OnceLock::new();
    RUN.get_or_init(|| measure(&options(&modyo_lab::cassette::default_dir())))
}

fn files(measurement: &Measurement) -> std::collections::BTreeMap<String, String> {
    let summaries: Vec<report::Summary> = measurement
        .reports
        .iter()
        .map(|r| r.summary.clone())
        .collect();
    report::render(&measurement.reports, &summaries)
}

#[test]
fn every_probe_keeps_its_cassette_expectation_and_the_contract() {
    let run = catalogue();
    assert!(
        run.failures.is_empty(),
        "probe failures:\n{}",
        run.failures.join("\n")
    );
    assert!(
        run.reports.iter().any(|r| r.module == "content"),
        "the pilot cassettes give a content report"
    );
    let mut modules: Vec<&str> = run.reports.iter().map(|r| r.module.as_str()).collect();
    let listed = modules.clone();
    modules.sort_unstable();
    assert_eq!(listed, modules, "reports are sorted by module");
}

#[test]
fn each_module_report_matches_its_snapshot() {
    for report in &catalogue().reports {
        insta::assert_json_snapshot!(format!("report-{}", report.module), report);
    }
}

#[test]
fn tools_list_slot_rows_sum_exactly_to_the_difference() {
    for report in &catalogue().reports {
        let c = &report.catalogue;
        let listed: i64 = c.slots.iter().map(|r| r.chars).sum();
        let measured = c.after.chars as i64 - c.before.chars as i64;
        assert_eq!(
            listed, measured,
            "{}: the slot rows must sum to after - before",
            report.module
        );
        assert_eq!(c.slot_sum_chars, measured, "{}", report.module);
        assert_eq!(c.difference_chars, measured, "{}", report.module);
    }
    let content = content();
    let slot = |name: &str| {
        content
            .catalogue
            .slots
            .iter()
            .find(|r| r.slot == name)
            .map(|r| r.chars)
    };
    // Every migrated read tool publishes platform; entries-list grew `fields`.
    assert!(slot("platform").is_some_and(|c| c > 0));
    assert!(slot("data: content-entries-list").is_some_and(|c| c > 0));
    assert!(slot("scaffolding").is_some_and(|c| c > 0));
    assert!(slot("content-entries-list: parameter fields").is_some_and(|c| c > 0));
}

fn content() -> &'static report::ModuleReport {
    catalogue()
        .reports
        .iter()
        .find(|r| r.module == "content")
        .expect("a content report")
}

#[test]
fn the_content_report_prices_fields_against_the_n_plus_1_path_at_10_100_and_314() {
    let projection = content()
        .projection
        .as_ref()
        .expect("the pilot cassettes give a projection section");
    let sizes: Vec<u64> = projection.cases.iter().map(|c| c.entries).collect();
    assert_eq!(sizes, [10, 100, 314]);
    for case in &projection.cases {
        // N+1: one list per page plus one get per entry; each legacy list reads the space and
        // the page, each get one entry.
        assert_eq!(
            case.before.calls,
            case.entries + case.pages,
            "{}",
            case.case
        );
        assert_eq!(
            case.before.http_requests as u64,
            case.entries + 2 * case.pages,
            "{}",
            case.case
        );
        // fields: one call per page; space, page and type per call, plus one read per entry.
        assert_eq!(case.after.calls, case.pages, "{}", case.case);
        assert_eq!(
            case.after.http_requests as u64,
            case.entries + 3 * case.pages,
            "{}",
            case.case
        );
        assert!(
            case.after.both.primary < case.before.text.primary / 5.0,
            "{}: fields must be far cheaper than N+1 even forwarded twice",
            case.case
        );
    }
    // The fixture weighs what the field case weighed (issue 2), measured through the server.
    assert_eq!(projection.calibration.len(), 4);
    for c in &projection.calibration {
        assert!(
            c.off_percent.abs() < 5.0,
            "{}: {}%",
            c.figure,
            c.off_percent
        );
    }
}

#[test]
fn every_number_names_its_counter_and_nothing_depends_on_the_machine() {
    let workspace = modyo_lab::cassette::default_dir();
    let workspace = workspace.parent().expect("cassettes/ has a parent");
    for (name, text) in files(catalogue()) {
        assert!(
            !text.contains(&*workspace.to_string_lossy()),
            "{name} holds an absolute path"
        );
        assert!(!text.contains("127.0.0.1:"), "{name} holds the replay port");
        if name.ends_with(".json") {
            assert!(text.contains("\"chars/2.902\""), "{name}");
            assert!(text.contains("\"o200k_base\""), "{name}");
            assert!(text.contains("\"cl100k_base\""), "{name}");
        }
    }
}

#[test]
fn two_runs_write_identical_bytes() {
    let first = files(catalogue());
    let second = files(&measure(&options(&modyo_lab::cassette::default_dir())));
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        second.keys().collect::<Vec<_>>()
    );
    for (name, text) in &first {
        assert!(second[name] == *text, "{name} differs between two runs");
    }
}

/// A cassettes directory with one spaces-list scenario expecting `outcome`.
fn one_scenario(expect_error: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut scenario = Scenario::new("spaces-list")
        .tool("content-spaces-list")
        .args(json!({}));
    if expect_error {
        scenario = scenario.expect_error("not_found");
    }
    Cassette::new(
        "content/lab-probe",
        Provenance::synthetic("2026-11-29", "measure test"),
    )
    .scenario(scenario)
    .interaction(
        Interaction::get("/api/admin/content/spaces")
            .query("page", "1")
            .query("per_page", "10")
            .respond(
                200,
                json!({"spaces": [{"id": 1, "uid": "a", "name": "A"}], "meta": {"total_entries": 1, "per_page": 10, "current_page": 1, "total_pages": 1}}),
            ),
    )
    .save(dir.path())
    .expect("saves");
    dir
}

#[test]
fn a_scenario_whose_outcome_differs_from_its_cassette_fails_the_run() {
    let dir = one_scenario(true);
    let run = measure(&options(dir.path()));
    assert_eq!(run.failures.len(), 2, "{:#?}", run.failures);
    assert!(
        run.failures[0].contains("before (legacy)"),
        "{}",
        run.failures[0]
    );
    assert!(
        run.failures[1].contains("expected Error, got Success"),
        "{}",
        run.failures[1]
    );
}

#[test]
fn the_cli_writes_reports_and_exits_non_zero_on_a_probe_failure() {
    let reports = tempfile::tempdir().expect("tempdir");
    let run = |cassettes: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_modyo-lab"))
            .arg("measure")
            .arg("--cassettes")
            .arg(cassettes)
            .arg("--reports")
            .arg(reports.path())
            .env("RUST_LOG", "warn")
            .output()
            .expect("modyo-lab runs")
    };
    let good = one_scenario(false);
    let output = run(good.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("measured in"),
        "wall time on stderr: {stderr}"
    );
    for file in [
        "README.md",
        "content.json",
        "content.md",
        "content.svg",
        "last-run.md",
    ] {
        assert!(reports.path().join(file).is_file(), "{file} written");
    }
    let readme = std::fs::read_to_string(reports.path().join("README.md")).expect("README");
    let row = readme
        .lines()
        .find(|l| l.starts_with("| content | "))
        .expect("the summary lists content");
    assert_eq!(row.split(" | ").nth(2), Some("1"), "one scenario: {row}");

    let bad = one_scenario(true);
    let output = run(bad.path());
    assert!(!output.status.success(), "a probe failure exits non-zero");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("FAILED"),
        "failures are listed on stderr"
    );
}
