//! The budget's own tests: headroom rounding, an overrun's message, the file's format and counter.

use super::figures::with_headroom;
use super::*;

#[test]
fn headroom_rounds_up_to_a_whole_token_without_float_noise() {
    assert_eq!(with_headroom(100.0, 10.0), 110.0);
    assert_eq!(with_headroom(100.1, 10.0), 111.0);
    assert_eq!(with_headroom(0.0, 10.0), 0.0);
    assert_eq!(with_headroom(12.3, 0.0), 13.0);
}

#[test]
fn an_overrun_names_the_tool_the_figure_the_budget_and_the_excess() {
    let finding = Finding::Over(Usage {
        place: Place {
            module: "content".into(),
            tool: Some("content-entries-list".into()),
        },
        figure: Figure::CatalogueWire,
        measured: 2412.3,
        limit: 2300.0,
    });
    assert_eq!(
        finding.to_string(),
        "content-entries-list: catalogue wire is 2,412.3 tokens (chars/2.902), over its budget of 2,300 by 112.3 (+4.9%)"
    );
}

#[test]
fn a_budget_file_must_say_its_format_and_counter() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("budget.json");
    let budget = Budget {
        format: FORMAT.into(),
        counter: PRIMARY.into(),
        note: String::new(),
        modules: BTreeMap::new(),
        all_modules: None,
    };
    budget.save(&path).unwrap();
    assert_eq!(Budget::load(&path).unwrap(), budget);
    std::fs::write(
        &path,
        r#"{"format": "modyo-lab-budget/1", "counter": "o200k_base", "modules": {}}"#,
    )
    .unwrap();
    let err = Budget::load(&path).unwrap_err().to_string();
    assert!(err.contains("counter"), "{err}");
    std::fs::write(&path, r#"{"format": "modyo-lab-budget/1", "counter": "chars/2.902", "modules": {"m": {"tools": {"t": {"wire": 1}}}}}"#).unwrap();
    let err = Budget::load(&path).unwrap_err().to_string();
    assert!(err.contains("unknown field"), "{err}");
}
