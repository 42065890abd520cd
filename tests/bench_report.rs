//! The committed performance report and the README say the same about the server binary:
//! `make bench` measures its size and writes it into both (`harness/src/perf/binary.rs`), so a
//! README figure edited by hand, or a report regenerated without carrying it, fails here.

use modyo_lab::perf::binary::{README_END, README_START, readme_span};

use crate::util::workspace;

#[test]
fn the_readme_states_the_binary_size_the_bench_report_measured() {
    let root = workspace();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let span = readme_span(&readme).unwrap_or_else(|| {
        panic!("README.md lacks the span {README_START} ... {README_END} that `make bench` fills")
    });
    let report =
        std::fs::read_to_string(root.join("reports/performance.md")).expect("performance.md");
    let line = report
        .lines()
        .find(|l| l.starts_with("- Server binary as built for this run (`"))
        .expect("reports/performance.md has the server binary row: run `make bench`");
    let (path, rest) = line
        .split_once("(`")
        .and_then(|(_, rest)| rest.split_once('`'))
        .expect("the row names the binary");
    let megabytes = rest
        .split_once("): ")
        .and_then(|(_, rest)| rest.split_once(" ("))
        .map(|(figure, _)| figure)
        .expect("the row gives the size");
    assert!(
        span.contains(&format!("`{path}` measured **{megabytes}**")),
        "README says {span:?}, reports/performance.md says {path} {megabytes}: run `make bench`"
    );
}
