//! The measurement lab end to end: the built `modyo-mcp` binary probed over stdio, before and
//! after, for every module that has cassette scenarios.
//!
//! One shared run of the whole catalogue feeds the snapshot, slot-sum, projection, chart and
//! budget tests (it takes a while unoptimized): the budget check of `make test` is the one
//! `modyo-lab measure --check` runs, over that same run. The determinism test makes a second run
//! and compares bytes. The any-server tests measure a small Python server written with the
//! official SDK (`tests/python/shelf_server.py`), two versions of it.
//! The server binary must be built first (`make test` does; else `cargo build -p modyo-mcp`).
//! Snapshots live in `tests/snapshots/`; review a change with `cargo insta review` (CI never
//! writes them: `make test` sets `INSTA_UPDATE=no`).

use std::path::Path;
use std::sync::OnceLock;

use modyo_lab::measure::{self, Measurement, Options};
use modyo_lab::probe::locate_server;
use modyo_lab::report;
use modyo_lab::report::budget::{self, Budget};
use modyo_replay::{Cassette, Interaction, Provenance, Scenario};
use serde_json::{Value, json};

use crate::peers::python;
use crate::util::workspace;

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
        after_only: false,
        contract: true,
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
    RUN.get_or_init(|| measure(&options(&modyo_replay::cassette::default_dir())))
}

fn files(measurement: &Measurement) -> std::collections::BTreeMap<String, String> {
    let summaries: Vec<report::Summary> = measurement
        .reports
        .iter()
        .map(|r| r.summary.clone())
        .collect();
    let budget = Budget::load(&budget::default_path()).ok();
    report::render(&measurement.reports, &summaries, budget.as_ref())
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

/// Each module as a reviewer reads a change to it: a line per headline figure, per profile and
/// per tool (`report::review`); the per-scenario data is held by the committed JSON below.
#[test]
fn each_module_report_matches_its_snapshot() {
    for report in &catalogue().reports {
        insta::assert_snapshot!(format!("report-{}", report.module), report::review(report));
    }
}

/// The committed reports are what `make measure` writes now, byte for byte: every module's
/// Markdown, JSON (which keeps every scenario) and charts, and the index, with the profiles of
/// the measured clients as `make measure` adds them.
#[test]
fn the_committed_reports_are_current() {
    let dir = report::default_dir();
    let mut reports = catalogue().reports.clone();
    for r in &mut reports {
        r.add_profiles(modyo_lab::clients::measured_profiles(&dir, &r.module));
    }
    let summaries: Vec<report::Summary> = reports.iter().map(|r| r.summary.clone()).collect();
    let budget = Budget::load(&budget::default_path()).ok();
    let files = report::render(&reports, &summaries, budget.as_ref());
    let stale: Vec<&String> = files
        .iter()
        .filter(|(name, text)| std::fs::read_to_string(dir.join(name)).ok().as_ref() != Some(*text))
        .map(|(name, _)| name)
        .collect();
    assert!(
        stale.is_empty(),
        "reports/ differs from a rebuild (run make measure and commit): {stale:?}"
    );
}

#[test]
fn tools_list_slot_rows_sum_exactly_to_the_difference() {
    for report in &catalogue().reports {
        let c = &report.catalogue;
        let listed: i64 = c.slots.iter().map(|r| r.chars).sum();
        let measured = c.wire_after.chars as i64 - c.wire_before.chars as i64;
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
}

/// How far a calibration row may be from the legacy figure it stands for (issue 17).
const CALIBRATION_TOLERANCE_PERCENT: f64 = 3.0;

#[test]
fn every_calibration_row_weighs_the_field_case_within_3_percent() {
    // The fixture weighs what the field case weighed (issue 2), measured through the server:
    // the rows the content report prints, recomputed from their measurement (not from the
    // rounded percentage), so a fixture that drifts fails here before it reaches the report.
    let projection = content()
        .projection
        .as_ref()
        .expect("the pilot cassettes give a projection section");
    assert_eq!(projection.calibration.len(), 4);
    for c in &projection.calibration {
        let off = (c.measured.chars as f64 / modyo_lab::tokens::CHARS_PER_TOKEN - c.field_case)
            * 100.0
            / c.field_case;
        assert!(
            off.abs() <= CALIBRATION_TOLERANCE_PERCENT,
            "{}: {:.2}% off the field case ({} measured, {} expected); the report says {}%",
            c.figure,
            off,
            c.measured.primary,
            c.field_case,
            c.off_percent
        );
        assert!(
            (off - c.off_percent).abs() < 0.051,
            "{}: the report's {}% is not its measurement's {off:.2}%",
            c.figure,
            c.off_percent
        );
    }
}

#[test]
fn every_number_names_its_counter_and_nothing_depends_on_the_machine() {
    let workspace = modyo_replay::cassette::default_dir();
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
    let second = files(&measure(&options(&modyo_replay::cassette::default_dir())));
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
        "content-session.svg",
        "content-catalogue.svg",
        "content-tools.svg",
        "content-calls.svg",
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

#[test]
fn the_committed_budget_holds() {
    // The gate of `make test`: the check `modyo-lab measure --check` runs, over the shared run.
    let path = budget::default_path();
    let budget = Budget::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let findings = budget.check(&catalogue().reports, true);
    assert!(
        findings.is_empty(),
        "the measurement does not keep to {} (raise a limit only on purpose, in the change that needs it):\n{}",
        path.display(),
        findings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn context_is_the_wire_without_the_output_schemas() {
    for report in &catalogue().reports {
        let c = &report.catalogue;
        let schemas: u64 = report
            .tools
            .iter()
            .filter_map(|t| Some(t.after?.output_schema?.chars))
            .sum();
        // Our tools carry nothing else that stays off the model's context.
        assert_eq!(
            c.context_after.chars + schemas,
            c.wire_after.chars,
            "{}",
            report.module
        );
        assert_eq!(
            c.by_slot_after.output_schema.chars, schemas,
            "{}",
            report.module
        );
        for tool in &report.tools {
            let a = tool.after.expect("every tool is listed after");
            let slots = a.description.count() + a.input_schema.count() + a.other.count();
            let slots = slots + a.output_schema.map_or_else(Default::default, |t| t.count());
            assert_eq!(slots, a.wire.count(), "{}: the slots add up", tool.tool);
        }
        let wire: Vec<u64> = report
            .tools
            .iter()
            .map(|t| t.after.map_or(0, |d| d.wire.chars))
            .collect();
        assert!(
            wire.windows(2).all(|w| w[0] >= w[1]),
            "{}: tools worst first",
            report.module
        );
        // Every profile says which catalogue it prices, and prices that one.
        for p in &report.profiles {
            let expected = match p.catalogue {
                report::CatalogueView::Context => (c.context_before, c.context_after),
                report::CatalogueView::Wire => (c.wire_before, c.wire_after),
                _ => unreachable!("a catalogue view this test does not know"),
            };
            assert_eq!(
                (p.catalogue_before, p.catalogue_after),
                expected,
                "{}",
                p.profile
            );
        }
    }
}

#[test]
fn every_chart_keeps_its_labels_on_the_canvas() {
    let files = files(catalogue());
    let mut charts = 0;
    for (name, svg) in &files {
        if !name.ends_with(".svg") {
            continue;
        }
        charts += 1;
        let problems = report::chart_problems(svg);
        assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
        let height: f64 = svg
            .split("height=\"")
            .nth(1)
            .and_then(|h| h.split('"').next())
            .and_then(|h| h.parse().ok())
            .expect("a chart has a height");
        assert!(height < 1_600.0, "{name} is {height} px tall");
        // Axis values are shown: every chart labels its scale.
        assert!(svg.contains("text-anchor=\"middle\""), "{name}");
    }
    for report in &catalogue().reports {
        for kind in report::CHARTS {
            assert!(
                files.contains_key(&format!("{}-{kind}.svg", report.module)),
                "{}: no {kind} chart",
                report.module
            );
        }
    }
    assert_eq!(charts, 4 * catalogue().reports.len());
}

/// `modyo-lab measure ARGS`, with its exit status, stdout and stderr.
fn lab(args: &[&std::ffi::OsStr]) -> (bool, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_modyo-lab"))
        .arg("measure")
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("modyo-lab runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `modyo-lab measure --cassettes CASSETTES --budget BUDGET EXTRA...`.
fn lab_budget(cassettes: &Path, budget: &Path, extra: &[&str]) -> (bool, String, String) {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "--cassettes".as_ref(),
        cassettes.as_os_str(),
        "--budget".as_ref(),
        budget.as_os_str(),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    lab(&args)
}

#[test]
fn check_fails_naming_the_tool_the_figure_the_budget_and_the_overrun() {
    let cassettes = one_scenario(false);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("budget.json");
    let run = |extra: &[&str]| lab_budget(cassettes.path(), &path, extra);
    let (ok, _, stderr) = run(&["--write-budget", "--headroom", "0"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("headroom 0%"), "{stderr}");
    let (ok, _, stderr) = run(&["--check"]);
    assert!(ok, "a budget written from the figures holds: {stderr}");
    assert!(stderr.contains("within budget"), "{stderr}");

    let mut written: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("written")).expect("JSON");
    let tool = &mut written["modules"]["content"]["tools"]["content-spaces-list"];
    let wire = tool["catalogue_wire"].as_f64().expect("a wire limit");
    assert!(tool["text_per_call"].as_f64().is_some(), "{tool}");
    tool["catalogue_wire"] = json!(wire - 100.0);
    written["modules"]["content"]["tools"]
        .as_object_mut()
        .expect("tools")
        .remove("content-spaces-get");
    written["modules"]["content"]["tools"]["content-gone"] = json!({"catalogue_wire": 1});
    std::fs::write(&path, written.to_string()).expect("rewritten");
    let (ok, _, stderr) = run(&["--check"]);
    assert!(!ok, "an overrun fails the check");
    let over = stderr
        .lines()
        .find(|l| l.contains("content-spaces-list"))
        .unwrap_or_else(|| panic!("the overrun is named: {stderr}"));
    assert!(over.contains("catalogue wire is"), "{over}");
    // Limits are whole tokens rounded up: the excess is a little under the 100 taken off.
    let limit = wire - 100.0;
    assert!(
        over.contains(&format!("over its budget of {limit} by 99.")),
        "{over}"
    );
    assert!(
        stderr.contains("content-spaces-get: measured but not in the budget"),
        "{stderr}"
    );
    assert!(
        stderr.contains("content-gone: in the budget but not measured"),
        "{stderr}"
    );
    assert!(stderr.contains("3 budget finding(s)"), "{stderr}");
}

#[test]
fn write_budget_lower_only_tightens_limits_and_never_raises_or_adds_one() {
    let cassettes = one_scenario(false);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("budget.json");
    let run = |extra: &[&str]| lab_budget(cassettes.path(), &path, extra);
    let lower = ["--write-budget", "--lower-only", "--headroom", "0"];
    let (ok, _, stderr) = run(&lower);
    assert!(!ok && stderr.contains("no budget at"), "{stderr}");
    let (ok, _, stderr) = run(&["--write-budget", "--headroom", "0"]);
    assert!(ok, "{stderr}");
    let read = || -> Value {
        serde_json::from_str(&std::fs::read_to_string(&path).expect("written")).expect("JSON")
    };
    let exact = read();
    // One limit too loose, one too tight, one tool without limits.
    let mut edited = exact.clone();
    let tools = &mut edited["modules"]["content"]["tools"];
    let wire = tools["content-spaces-list"]["catalogue_wire"]
        .as_f64()
        .expect("a wire limit");
    let context = tools["content-spaces-list"]["catalogue_context"]
        .as_f64()
        .expect("a context limit");
    tools["content-spaces-list"]["catalogue_wire"] = json!(wire + 100.0);
    tools["content-spaces-list"]["catalogue_context"] = json!(context - 50.0);
    tools
        .as_object_mut()
        .expect("tools")
        .remove("content-spaces-get");
    std::fs::write(&path, edited.to_string()).expect("rewritten");

    let (ok, _, stderr) = run(&lower);

    assert!(ok, "{stderr}");
    let after = read();
    let list = &after["modules"]["content"]["tools"]["content-spaces-list"];
    assert_eq!(
        list["catalogue_wire"].as_f64(),
        Some(wire),
        "lowered: {stderr}"
    );
    assert_eq!(
        list["catalogue_context"].as_f64(),
        Some(context - 50.0),
        "never raised"
    );
    assert!(
        after["modules"]["content"]["tools"]
            .get("content-spaces-get")
            .is_none(),
        "none added"
    );
    assert!(
        stderr.contains("lowered content-spaces-list: catalogue wire"),
        "{stderr}"
    );
    assert!(
        stderr.contains("content-spaces-get: catalogue context has no limit"),
        "{stderr}"
    );
    assert!(stderr.contains("1 limit(s) lowered"), "{stderr}");
    // Every other limit is as it was.
    let mut expected = edited.clone();
    expected["modules"]["content"]["tools"]["content-spaces-list"]["catalogue_wire"] = json!(wire);
    assert_eq!(as_floats(&after), as_floats(&expected));
    // --lower-only is a way of writing the budget.
    let (ok, _, stderr) = run(&["--lower-only"]);
    assert!(!ok && stderr.contains("--write-budget"), "{stderr}");
}

/// Whether `after` has the same limits as `before`, none of them higher.
fn no_limit_raised(before: &Value, after: &Value) -> bool {
    match (before, after) {
        (Value::Number(b), Value::Number(a)) => a.as_f64() <= b.as_f64(),
        (Value::Object(b), Value::Object(a)) => {
            b.len() == a.len()
                && b.iter()
                    .all(|(k, v)| a.get(k).is_some_and(|w| no_limit_raised(v, w)))
        }
        (b, a) => b == a,
    }
}

/// `value` with every number as a float (a budget file writes whole limits as integers).
fn as_floats(value: &Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(items) => Value::Array(items.iter().map(as_floats).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), as_floats(v))).collect())
        }
        other => other.clone(),
    }
}

/// The calls the any-server tests make on the shelf server; `shelf_count` is v2's only.
fn shelf_calls(dir: &Path, count: bool) -> std::path::PathBuf {
    let path = dir.join("calls.json");
    let mut calls = json!([
        {"name": "search o", "tool": "books_search", "arguments": {"query": "o"}},
        {"tool": "books_search", "arguments": {"query": "Andes"}},
        {"tool": "book_get", "arguments": {"isbn": "978-0-00-000004-4"}},
        {"name": "missing", "tool": "book_get", "arguments": {"isbn": "none"}}
    ]);
    if count {
        calls
            .as_array_mut()
            .expect("an array")
            .push(json!({"tool": "shelf_count"}));
    }
    std::fs::write(&path, calls.to_string()).expect("calls written");
    path
}

fn shelf(python: &Path, version: &str) -> String {
    let server = workspace().join("tests/python/shelf_server.py");
    format!(
        "{} {} {version}",
        shlex_quote(&python.to_string_lossy()),
        shlex_quote(&server.to_string_lossy())
    )
}

fn shlex_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// `modyo-lab measure --after <shelf version> --calls FILE --name shelf EXTRA`.
fn shelf_run(
    python: &Path,
    calls: &Path,
    version: &str,
    extra: &[&std::ffi::OsStr],
) -> (bool, String, String) {
    let after = shelf(python, version);
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "--after".as_ref(),
        after.as_ref(),
        "--calls".as_ref(),
        calls.as_os_str(),
        "--name".as_ref(),
        "shelf".as_ref(),
    ];
    args.extend_from_slice(extra);
    lab(&args)
}

#[test]
fn any_stdio_server_gets_the_same_report() {
    let Some(python) = python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = shelf_calls(dir.path(), true);
    let reports = dir.path().join("reports");
    let before = shelf(&python, "v1");
    let args: [&std::ffi::OsStr; 4] = [
        "--before".as_ref(),
        before.as_ref(),
        "--reports".as_ref(),
        reports.as_os_str(),
    ];
    let (ok, _, stderr) = shelf_run(&python, &calls, "v2", &args);
    assert!(ok, "{stderr}");
    let read = |name: &str| {
        std::fs::read_to_string(reports.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    assert!(
        !reports.join("README.md").exists(),
        "only the server's own files"
    );
    let json: Value = serde_json::from_str(&read("shelf.json")).expect("JSON");
    assert_eq!(json["module"], "shelf");
    assert!(
        json.get("envelope").is_none(),
        "no envelope for a foreign server"
    );
    // The catalogue by tool and slot: v1 publishes no output schema, v2 one per tool.
    let tools = json["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["tool"].as_str()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    for tool in tools {
        if tool["tool"] == "shelf_count" {
            // Only v2 lists it: measured after, not before.
            assert!(tool["before"].is_null(), "{tool}");
            assert_eq!(tool["calls_before"], 0);
            assert_eq!(tool["calls_after"], 1);
        } else {
            assert!(tool["before"]["output_schema"].is_null(), "{tool}");
        }
        let schema = tool["after"]["output_schema"]["chars"]
            .as_u64()
            .expect("v2 has one");
        let (wire, context) = (
            tool["after"]["wire"]["chars"].as_u64().expect("wire"),
            tool["after"]["context"]["chars"].as_u64().expect("context"),
        );
        assert_eq!(context + schema, wire, "{tool}");
    }
    let catalogue = &json["catalogue"];
    assert_eq!(
        catalogue["context_before"], catalogue["wire_before"],
        "v1 sends nothing but context"
    );
    assert!(
        catalogue["wire_after"]["chars"].as_u64() > catalogue["context_after"]["chars"].as_u64()
    );
    // Per call: text, structured, both, on both sides; the isError call is an error outcome.
    let scenarios = json["scenarios"].as_array().expect("calls");
    let ids: Vec<&str> = scenarios.iter().filter_map(|s| s["id"].as_str()).collect();
    assert_eq!(
        ids,
        [
            "search o",
            "02 books_search",
            "03 book_get",
            "missing",
            "05 shelf_count"
        ]
    );
    for s in &scenarios[..3] {
        assert!(s["before"]["structured"].is_null(), "{s}");
        assert!(s["after"]["structured"]["chars"].as_u64() > Some(0), "{s}");
        assert!(s["delta"]["both"].is_object(), "{s}");
    }
    assert_eq!(scenarios[3]["after"]["outcome"], "error");
    assert!(
        scenarios[4]["before"]["skipped"]
            .as_str()
            .is_some_and(|s| s.contains("not listed")),
        "{}",
        scenarios[4]
    );
    assert_eq!(json["summary"]["comparable_calls"], 3);
    // Profiles and their break-even, each naming its catalogue.
    let profiles = json["profiles"].as_array().expect("profiles");
    assert!(profiles.len() >= 4);
    for p in profiles {
        assert!(
            p["catalogue"] == "context" || p["catalogue"] == "wire",
            "{p}"
        );
        assert_eq!(p["evidence"]["basis"], "assumed", "{p}");
        assert!(p["break_even_calls"].get("chars/2.902").is_some(), "{p}");
    }
    // A server other than ours is read with a real tokenizer, o200k_base, by default.
    assert_eq!(json["counters"]["headline"], "o200k_base");
    // v2 adds instructions: priced as sent, before none.
    assert!(
        json["catalogue"]["extras_after"]["instructions"]["chars"].as_u64() > Some(0),
        "{}",
        json["catalogue"]
    );
    assert!(json["catalogue"]["extras_before"]["instructions"].is_null());
    let markdown = read("shelf.md");
    for section in [
        "# Measurement report: shelf",
        "## Summary (o200k_base)",
        "## Per tool, worst first (o200k_base)",
        "## Per call (o200k_base)",
        "## Per-client profiles",
        "`books_search`",
        "| server **instructions** (`initialize`",
        "break-even by billed input",
    ] {
        assert!(markdown.contains(section), "{section} in:\n{markdown}");
    }
    assert!(
        !markdown.contains("The counters disagree"),
        "here the counters agree on every sign:\n{markdown}"
    );
    for kind in report::CHARTS {
        let svg = read(&format!("shelf-{kind}.svg"));
        let problems = report::chart_problems(&svg);
        assert!(problems.is_empty(), "{kind}: {problems:?}");
    }
}

/// A server over streamable HTTP is measured like one on stdio (here our offline server, served
/// by `modyo-lab serve --http`, against itself on stdio: the same catalogue, the same calls),
/// and a server that never answers fails the run after `--timeout`, naming it.
#[test]
fn an_http_server_is_measured_and_a_hung_one_times_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = dir.path().join("calls.json");
    std::fs::write(
        &calls,
        json!([{"tool": "widgets-list-components", "arguments": {}}]).to_string(),
    )
    .expect("calls written");
    let mut serve = std::process::Command::new(env!("CARGO_BIN_EXE_modyo-lab"));
    serve.args(["serve", "--http", "127.0.0.1:0"]);
    let spawned = crate::util::http::Spawned::start(serve);
    let stdio = format!("{} serve", shlex_quote(env!("CARGO_BIN_EXE_modyo-lab")));
    let reports = dir.path().join("reports");
    let (ok, _, stderr) = lab(&[
        "--before".as_ref(),
        stdio.as_ref(),
        "--after-url".as_ref(),
        spawned.url.as_ref(),
        "--calls".as_ref(),
        calls.as_os_str(),
        "--name".as_ref(),
        "over-http".as_ref(),
        "--reports".as_ref(),
        reports.as_os_str(),
    ]);
    assert!(ok, "{stderr}");
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(reports.join("over-http.json")).expect("report"),
    )
    .expect("JSON");
    let catalogue = &json["catalogue"];
    assert_eq!(
        catalogue["wire_before"], catalogue["wire_after"],
        "{catalogue}"
    );
    assert_eq!(
        json["scenarios"][0]["before"]["text"],
        json["scenarios"][0]["after"]["text"]
    );
    assert!(
        json["compared"]["after"]
            .as_str()
            .is_some_and(|a| a.starts_with("http://"))
    );
    assert!(spawned.terminate().success());

    let (ok, _, stderr) = lab(&[
        "--after".as_ref(),
        "sleep 600".as_ref(),
        "--calls".as_ref(),
        calls.as_os_str(),
        "--check".as_ref(),
        "--budget".as_ref(),
        dir.path().join("none.json").as_os_str(),
        "--timeout".as_ref(),
        "1".as_ref(),
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("did not answer initialize within 1 s (--timeout)"),
        "{stderr}"
    );
}

/// A pair of builds whose one call answers fewer characters after but more BPE tokens: the
/// report reads o200k_base (the change is a rise), and its summary says the counters disagree
/// on the sign, naming the three figures; asked for chars/2.902, it reads that (a fall).
#[test]
fn counters_that_disagree_on_a_sign_are_flagged() {
    let Some(python) = python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = dir.path().join("calls.json");
    std::fs::write(&calls, json!([{"tool": "shelf_note"}]).to_string()).expect("calls");
    let server = workspace().join("tests/python/counter_pair.py");
    let build = |version: &str| {
        format!(
            "{} {} {version}",
            shlex_quote(&python.to_string_lossy()),
            shlex_quote(&server.to_string_lossy())
        )
    };
    let (before, after) = (build("v1"), build("v2"));
    let run = |extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "--before".as_ref(),
            before.as_ref(),
            "--after".as_ref(),
            after.as_ref(),
            "--calls".as_ref(),
            calls.as_os_str(),
            "--name".as_ref(),
            "pair".as_ref(),
        ];
        args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
        lab(&args)
    };
    let (ok, markdown, stderr) = run(&[]);
    assert!(ok, "{stderr}");
    assert!(markdown.contains("## Summary (o200k_base)"), "{markdown}");
    let flagged = markdown
        .lines()
        .find(|l| l.starts_with("**The counters disagree on the sign of a change**"))
        .unwrap_or_else(|| panic!("no flag:\n{markdown}"));
    assert!(
        flagged.contains("mean text per call, success (chars/2.902 -"),
        "{flagged}"
    );
    assert!(flagged.contains("o200k_base +"), "{flagged}");
    let successes = markdown
        .lines()
        .find(|l| l.contains("**successes**"))
        .expect("a successes row");
    assert!(
        successes.trim_end().ends_with("% |") && successes.contains("| +"),
        "{successes}"
    );
    let (ok, markdown, stderr) = run(&["--counter", "chars/2.902"]);
    assert!(ok, "{stderr}");
    assert!(markdown.contains("## Summary (chars/2.902)"), "{markdown}");
    let successes = markdown
        .lines()
        .find(|l| l.contains("**successes**"))
        .expect("a successes row");
    assert!(successes.contains("| -"), "{successes}");
}

#[test]
fn any_stdio_server_can_be_held_to_a_budget() {
    let Some(python) = python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = shelf_calls(dir.path(), false);
    let path = dir.path().join("budget.json");
    let run = |version: &str, flag: &str| {
        shelf_run(
            &python,
            &calls,
            version,
            &["--budget".as_ref(), path.as_os_str(), flag.as_ref()],
        )
    };
    let (ok, _, stderr) = run("v1", "--write-budget");
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = run("v1", "--check");
    assert!(ok, "{stderr}");
    // v2 adds output schemas: its wire outgrows v1's limits by more than the 10% headroom.
    let (ok, _, stderr) = run("v2", "--check");
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains("books_search: catalogue wire is") && stderr.contains("over its budget of"),
        "{stderr}"
    );
    assert!(
        stderr.contains("module shelf: catalogue wire is"),
        "{stderr}"
    );
    // --lower-only through --after: v2's larger figures raise no limit, v1's own figures with
    // no headroom lower them, and v1 still holds to the lowered budget.
    let budget = || -> Value {
        serde_json::from_str(&std::fs::read_to_string(&path).expect("budget")).expect("JSON")
    };
    let lower = |version: &str, headroom: &str| {
        shelf_run(
            &python,
            &calls,
            version,
            &[
                "--budget".as_ref(),
                path.as_os_str(),
                "--write-budget".as_ref(),
                "--lower-only".as_ref(),
                "--headroom".as_ref(),
                headroom.as_ref(),
            ],
        )
    };
    let written = budget();
    let (ok, _, stderr) = lower("v1", "0");
    assert!(
        ok && stderr.contains("lowered books_search: catalogue wire"),
        "{stderr}"
    );
    let exact = budget();
    assert_ne!(exact, written, "{stderr}");
    assert!(no_limit_raised(&written, &exact), "{exact}");
    let (ok, _, stderr) = run("v1", "--check");
    assert!(ok, "{stderr}");
    // v2 outgrows v1's wire: those limits stay; its shorter texts lower theirs.
    let (ok, _, stderr) = lower("v2", "0");
    assert!(
        ok && stderr.contains("lowered module shelf: mean text per call"),
        "{stderr}"
    );
    let after = budget();
    let wire = |b: &Value| b["modules"]["shelf"]["tools"]["books_search"]["catalogue_wire"].clone();
    assert_eq!(wire(&after), wire(&exact), "{stderr}");
    assert!(no_limit_raised(&exact, &after), "{after}");
    // --after alone only makes sense for a budget.
    let (ok, _, stderr) = shelf_run(&python, &calls, "v2", &[]);
    assert!(!ok && stderr.contains("--after needs --before"), "{stderr}");
    // A call no server lists fails the run.
    let unknown = dir.path().join("unknown.json");
    std::fs::write(&unknown, r#"[{"tool": "books_burn"}]"#).expect("written");
    let (ok, _, stderr) = shelf_run(
        &python,
        &unknown,
        "v2",
        &["--budget".as_ref(), path.as_os_str(), "--check".as_ref()],
    );
    assert!(
        !ok && stderr.contains("no server lists books_burn"),
        "{stderr}"
    );
}
