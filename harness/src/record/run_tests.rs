//! The run's tests: cassette and scenario names, the plan of each VCR mode, the first difference
//! of two bodies.

use super::*;
use serde_json::json;

#[test]
fn names_follow_the_first_tool_and_repeat_with_suffixes() {
    let calls = [
        Call::new("content-spaces-get", json!({})),
        Call::new("content-spaces-get", json!({})),
        Call::new("content-types-get", json!({})).named("types"),
    ];
    assert_eq!(
        cassette_name("spaces", &calls).expect("name"),
        "content/spaces"
    );
    assert_eq!(cassette_name("x/y", &calls).expect("name"), "x/y");
    assert!(cassette_name("../y", &calls).is_err());
    assert_eq!(
        scenario_names("content/spaces", &calls),
        ["content-spaces-get", "content-spaces-get-2", "types"]
    );
    assert_eq!(scenario_names("content/spaces", &calls[..1]), ["spaces"]);
}

#[test]
fn modes_follow_vcr() {
    assert_eq!(
        plan(Mode::Once, false, false, "c").expect("plan"),
        Plan::Record
    );
    assert_eq!(
        plan(Mode::Once, true, false, "c").expect("plan"),
        Plan::Replay
    );
    assert_eq!(
        plan(Mode::All, true, false, "c").expect("plan"),
        Plan::Record
    );
    assert_eq!(
        plan(Mode::NewEpisodes, true, false, "c").expect("plan"),
        Plan::Append
    );
    assert_eq!(
        plan(Mode::None, true, false, "c").expect("plan"),
        Plan::Replay
    );
    assert!(plan(Mode::None, false, false, "c").is_err());
    assert_eq!(
        plan(Mode::None, true, true, "c").expect("plan"),
        Plan::Compare
    );
    assert!(plan(Mode::All, true, true, "c").is_err());
}

#[test]
fn first_difference_names_the_path() {
    let a = json!({"data": {"items": [{"n": 1}, {"n": 2}]}});
    let b = json!({"data": {"items": [{"n": 1}, {"n": 3}]}});
    assert_eq!(
        first_difference(&a, &b, "$").as_deref(),
        Some("$.data.items[1].n")
    );
    assert_eq!(first_difference(&a, &a, "$"), None);
}
