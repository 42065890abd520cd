//! The verdict's tests: tools listed growth first then savings, a row's move by its change or
//! its shown text.

use super::*;

#[test]
fn tools_are_listed_growth_first_then_savings_each_largest_first() {
    let tools = |pairs: &[(&str, f64, f64)]| -> BTreeMap<String, (Option<f64>, Option<f64>)> {
        pairs
            .iter()
            .map(|(name, wire, call)| ((*name).to_owned(), (Some(*wire), Some(*call))))
            .collect()
    };
    let base = tools(&[
        ("big-saving", 1000.0, 100.0),
        ("small-growth", 100.0, 50.0),
        ("big-growth", 100.0, 50.0),
        ("small-saving", 100.0, 50.0),
        ("still", 100.0, 50.0),
    ]);
    let head = tools(&[
        ("big-saving", 700.0, 100.0),
        ("small-growth", 100.0, 52.0),
        ("big-growth", 180.0, 40.0),
        ("small-saving", 90.0, 50.0),
        ("still", 100.0, 50.2),
    ]);
    let verdict = finish("b", "h", Counter::Chars, Vec::new(), &base, &head, 0.5);
    let order: Vec<&str> = verdict.tools.iter().map(|t| t.tool.as_str()).collect();
    assert_eq!(
        order,
        ["big-growth", "small-growth", "big-saving", "small-saving"]
    );
    assert_eq!(
        verdict.tools_moved, 4,
        "a move under the threshold is not listed"
    );
}

#[test]
fn a_row_moves_by_its_change_or_its_shown_text() {
    let row = |b: f64, h: f64| Row {
        figure: "x".into(),
        key: "wire",
        base: Some(b),
        head: Some(h),
        shown: None,
        context: false,
    };
    assert!(!row(10.0, 10.2).moved(0.5));
    assert!(row(10.0, 10.5).moved(0.5));
    assert_eq!(row(10.0, 11.0).percent(), Some(10.0));
    let shown = Row {
        shown: Some(("content 1".into(), "content 3".into())),
        ..row(0.0, 0.0)
    };
    assert!(shown.moved(0.5));
    let context = Row {
        context: true,
        ..shown
    };
    assert!(!context.moved(0.5), "context never moves");
}
