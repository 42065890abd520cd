//! criterion's estimates read back from its output directory (`target/criterion/`): the
//! median of each bench, for `reports/performance.md`.

use std::path::Path;

use super::CriterionRow;

/// The median estimate of one criterion `estimates.json`, in nanoseconds.
pub fn criterion_median(estimates: &str) -> Option<f64> {
    let value: serde_json::Value = serde_json::from_str(estimates).ok()?;
    value.pointer("/median/point_estimate")?.as_f64()
}

/// Every `<id>/new/estimates.json` under criterion's output directory, sorted by id.
pub fn criterion_estimates(dir: &Path) -> Vec<CriterionRow> {
    let mut rows = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !path.is_dir() {
                continue;
            }
            if path.file_name().is_some_and(|n| n == "new") {
                let estimates = path.join("estimates.json");
                let Some(parent) = path.parent() else {
                    continue;
                };
                let id = parent
                    .strip_prefix(dir)
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
                    .unwrap_or_default();
                if let Some(median_ns) = std::fs::read_to_string(&estimates)
                    .ok()
                    .as_deref()
                    .and_then(criterion_median)
                {
                    rows.push(CriterionRow { id, median_ns });
                }
            } else if path.file_name().is_none_or(|n| n != "report") {
                stack.push(path);
            }
        }
    }
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criterion_output_is_read_back() {
        assert_eq!(
            criterion_median(
                r#"{"mean":{"point_estimate":2.0},"median":{"point_estimate":1500.5}}"#
            ),
            Some(1500.5)
        );
        assert_eq!(criterion_median("{}"), None);
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("tokens/o200k_base/new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(
            new.join("estimates.json"),
            r#"{"median":{"point_estimate":42.0}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("report")).unwrap();
        let rows = criterion_estimates(dir.path());
        assert_eq!(
            rows,
            vec![CriterionRow {
                id: "tokens/o200k_base".into(),
                median_ns: 42.0
            }]
        );
    }
}
