//! The suite plan's tests: rows found with their parents, templates filled with integers where
//! the schema wants them, the shipped suites parse.

use super::*;
use serde_json::json;

fn find(at: &str, bind: &[(&str, &str)]) -> Find {
    Find {
        at: at.into(),
        bind: bind
            .iter()
            .map(|(v, k)| ((*v).to_owned(), (*k).to_owned()))
            .collect(),
        limit: None,
    }
}

#[test]
fn rows_carry_their_parents_and_keep_the_first_items_with_every_key() {
    let parent: Row = [("space".to_owned(), json!(636))].into();
    let result = json!({"data": {"types": [
        {"id": 1, "name": "a", "meta": {"uid": "x"}},
        {"id": 2},
        {"id": 1, "name": "a", "meta": {"uid": "x"}},
        {"id": 3, "name": "c", "meta": {"uid": "z"}},
        {"id": 4, "name": "d", "meta": {"uid": "w"}}
    ]}});
    let rows = find_rows(
        &result,
        &find("data.types[]", &[("type", "id"), ("type_uid", "meta.uid")]),
        &parent,
        2,
    );
    assert_eq!(
        rows,
        [
            Row::from([
                ("space".into(), json!(636)),
                ("type".into(), json!(1)),
                ("type_uid".into(), json!("x"))
            ]),
            Row::from([
                ("space".into(), json!(636)),
                ("type".into(), json!(3)),
                ("type_uid".into(), json!("z"))
            ]),
        ]
    );
    assert!(
        find_rows(
            &json!({"data": []}),
            &find("data[]", &[("x", "id")]),
            &Row::new(),
            2
        )
        .is_empty()
    );
    assert!(parse_path("data").is_err());
    assert!(parse_path("data[0]").is_err());
    assert_eq!(parse_path("data.sites[]").expect("parses").len(), 2);
}

#[test]
fn templates_fill_integers_where_the_schema_wants_them_and_text_elsewhere() {
    let row: Row = [
        ("site".to_owned(), json!(12)),
        ("realm".to_owned(), json!("personas")),
    ]
    .into();
    assert_eq!(fill(&json!("{site}"), &row, true), json!(12));
    assert_eq!(fill(&json!("{site}"), &row, false), json!("12"));
    assert_eq!(fill(&json!("{realm}"), &row, true), json!("personas"));
    assert_eq!(
        fill(
            &json!({"q": "site {site} of {realm}", "keep": "{unknown}"}),
            &row,
            false
        ),
        json!({"q": "site 12 of personas", "keep": "{unknown}"})
    );
    assert_eq!(
        placeholders(&json!({"a": "{site}", "b": ["x {realm}"], "c": "{Not}"})),
        BTreeSet::from(["realm".to_owned(), "site".to_owned()])
    );
}

#[test]
fn the_shipped_suites_parse() {
    for (name, text) in SHIPPED {
        let suite = Suite::parse(name, text).expect("parses");
        assert_eq!(suite.name, name);
    }
    assert!(
        Suite::parse(
            "x",
            r#"{"format": "modyo-suite/2", "name": "x", "description": "", "steps": []}"#
        )
        .is_err()
    );
    assert!(Suite::parse("x", r#"{"format": "modyo-suite/1", "name": "x", "description": "", "steps": [], "extra": 1}"#).is_err());
}
