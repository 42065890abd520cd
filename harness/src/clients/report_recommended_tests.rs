//! Tests of the pricing under the recommended settings: a captured recommended session is
//! priced against the legacy one and shown beside the defaults; a capture without one says
//! "not captured"; a client recommended the defaults shows its `after` session; the billed
//! chart gives a client under its recommended settings a panel of its own.

use super::*;
use crate::clients::capture::Header;
use crate::clients::fixtures;
use crate::clients::report::{self, ClientsReport};
use modyo_mcp::contract::ResultForm;
use serde_json::{Value, json};

fn session(side: Side, definition: &str, results: &[&str]) -> Session {
    let text = Settings {
        results: ResultForm::Text,
        output_schema_off: false,
        errors_text: false,
    };
    fixtures::session(
        side,
        (side == Side::Recommended).then_some(text),
        definition,
        results,
    )
}

/// A capture of `genai` 1 with `sessions`.
fn capture(sessions: Vec<Session>) -> Capture {
    Capture {
        header: Header {
            format: crate::clients::capture::FORMAT.into(),
            client: "genai".into(),
            name: "G".into(),
            package: "p".into(),
            version: "1".into(),
            date: "2026-12-01".into(),
            server: "s".into(),
        },
        sessions,
    }
}

/// The legacy and migrated sessions: before once 41 (names 19, instructions 3, definition 19),
/// results 10 each; after once 58, results 5 each.
fn before_and_after() -> Vec<Session> {
    vec![
        session(Side::Before, "d", &["0123456789", "0123456789"]),
        session(Side::After, "longer description", &["01234", "01234"]),
    ]
}

fn fingerprint(result: Value) -> Fingerprint {
    fixtures::genai_fingerprint(result)
}

fn text_client() -> Fingerprint {
    fingerprint(json!("MARK_TEXT_OK"))
}

fn build(capture: Capture, fingerprint: &Fingerprint) -> ClientsReport {
    report::build(
        &[("clients/genai.jsonl".into(), capture)],
        std::slice::from_ref(fingerprint),
    )
    .expect("prices")
}

fn markdown(report: &ClientsReport, fingerprint: &Fingerprint) -> String {
    crate::clients::summary::markdown(report, std::slice::from_ref(fingerprint), &[])
}

#[test]
fn a_recommended_session_is_priced_against_the_legacy_one_beside_the_defaults() {
    let mut sessions = before_and_after();
    // Once 45 (+4 against before), results 5 each (-5 per call against before).
    sessions.push(session(Side::Recommended, "ddddd", &["01234", "01234"]));
    let fingerprint = text_client();
    let report = build(capture(sessions), &fingerprint);
    let m = &report.clients[0].modules[0];
    // The defaults' figures are untouched.
    assert_eq!(m.billed_break_even_calls.primary, Some(7));
    let r = m.recommended.as_ref().expect("a recommendation");
    assert_eq!(r.settings, "MODYO_RESULTS=text");
    assert_eq!(r.session, RecommendedSession::Recommended);
    let f = r.figures.as_ref().expect("figures");
    assert_eq!(f.once_after.chars, 45);
    assert_eq!(
        (f.per_call_before.chars, f.per_call_after.chars),
        (10.0, 5.0)
    );
    assert_eq!(f.per_call_percent, Some(-50.0));
    assert_eq!(
        (f.final_context_before.chars, f.final_context_after.chars),
        (61, 55)
    );
    // One request carrying the names and the instructions, on both sides: 19 + 3.
    assert_eq!((f.billed_before.chars, f.billed_after.chars), (22, 22));
    // +4 once, -5 per call: the final context pays it back at 1 call, the bill at 2.
    assert_eq!(f.break_even_calls.primary, Some(1));
    assert_eq!(f.billed_break_even_calls.primary, Some(2));

    let md = markdown(&report, &fingerprint);
    assert!(
        md.contains("| client | recommended settings | widgets (both) | widgets (recommended) |"),
        "{md}"
    );
    assert!(
        md.contains("| G 1 | `MODYO_RESULTS=text` | **7** / 4 (+11.5%) | **2** / 1 (-9.8%) |"),
        "{md}"
    );
    assert!(
        md.contains(
            "| widgets | `MODYO_RESULTS=text` | 3.4 → 1.7 | -50.0% | 21.0 → 19.0 (-9.8%) |"
        ),
        "{md}"
    );
    assert!(
        md.contains("for each client whose settings differ, under these settings too"),
        "{md}"
    );
    assert!(md.contains("1 under the recommended settings"), "{md}");

    let json: Value = serde_json::from_str(&crate::clients::summary::json(&report, &[fingerprint]))
        .expect("clients.json parses");
    let recommended = &json["clients"][0]["modules"][0]["recommended"];
    assert_eq!(recommended["session"], "recommended");
    assert_eq!(recommended["settings"], "MODYO_RESULTS=text");
    assert_eq!(
        recommended["figures"]["billed_break_even_calls"]["chars/2.902"],
        2
    );
    assert!(recommended["figures"]["billed_after"]["o200k_base"].is_u64());
    // The module reports' row under the recommended settings reads back from clients.json.
    let back: ClientsReport = serde_json::from_value(json).expect("reads back");
    let profile = measured_profile(&back.clients[0], &back.clients[0].modules[0])
        .expect("a measured recommended profile");
    assert_eq!(profile.profile, "genai (recommended: MODYO_RESULTS=text)");
    assert_eq!(profile.billed_break_even_calls.primary, Some(2));
    assert_eq!(profile.catalogue_after.chars, 45);
}

#[test]
fn a_capture_without_a_recommended_session_says_not_captured() {
    let fingerprint = text_client();
    let report = build(capture(before_and_after()), &fingerprint);
    let client = &report.clients[0];
    let r = client.modules[0]
        .recommended
        .as_ref()
        .expect("a recommendation");
    assert_eq!(r.session, RecommendedSession::NotCaptured);
    assert!(r.figures.is_none());
    assert!(measured_profile(client, &client.modules[0]).is_none());
    let md = markdown(&report, &fingerprint);
    assert!(
        md.contains("| G 1 | `MODYO_RESULTS=text` | **7** / 4 (+11.5%) | not captured |"),
        "{md}"
    );
    assert!(
        md.contains("the same sessions under these settings are not priced yet"),
        "{md}"
    );
    assert!(
        md.contains("Under the recommended settings (`MODYO_RESULTS=text`): not captured"),
        "{md}"
    );
    let json: Value = serde_json::from_str(&crate::clients::summary::json(&report, &[fingerprint]))
        .expect("clients.json parses");
    let recommended = &json["clients"][0]["modules"][0]["recommended"];
    assert_eq!(recommended["session"], "not_captured");
    assert!(recommended["figures"].is_null());
}

#[test]
fn a_client_recommended_the_defaults_shows_its_after_session() {
    // Reads structuredContent instead of the text, no schema reaching the model: `both`.
    let fingerprint = fingerprint(json!("MARK_STRUCT_OK"));
    let report = build(capture(before_and_after()), &fingerprint);
    let m = &report.clients[0].modules[0];
    let r = m.recommended.as_ref().expect("a recommendation");
    assert_eq!(r.settings, "defaults (both)");
    assert_eq!(r.session, RecommendedSession::AfterDefaults);
    let f = r.figures.as_ref().expect("the after session's figures");
    assert_eq!(
        f.billed_break_even_calls.primary,
        m.billed_break_even_calls.primary
    );
    assert_eq!(f.once_after.chars, m.after.once.chars);
    assert!(measured_profile(&report.clients[0], m).is_none());
    let md = markdown(&report, &fingerprint);
    assert!(
        md.contains("| **7** / 4 (+11.5%) | = after (defaults) |"),
        "{md}"
    );
    assert!(
        md.contains("Under the recommended settings (`defaults (both)`): = after (defaults)"),
        "{md}"
    );
}

#[test]
fn a_recommended_session_of_other_calls_is_not_priced() {
    let mut sessions = before_and_after();
    sessions.push(session(Side::Recommended, "d", &["01234"]));
    let result = report::build(
        &[("clients/genai.jsonl".into(), capture(sessions))],
        &[text_client()],
    );
    assert!(
        matches!(result, Err(PriceError::DifferentCalls { .. })),
        "{result:?}"
    );
}

#[test]
fn the_billed_chart_shows_a_client_under_its_recommended_settings_beside_the_defaults() {
    let mut sessions = before_and_after();
    sessions.push(session(Side::Recommended, "ddddd", &["01234", "01234"]));
    let report = build(capture(sessions), &text_client());
    let f = report.clients[0].modules[0]
        .recommended
        .as_ref()
        .expect("recommended");
    assert_eq!(f.figures.as_ref().expect("figures").results_after.chars, 10);
    let svg = report::billed_chart(&report).expect("a chart");
    assert!(crate::report::chart_problems(&svg).is_empty(), "{svg}");
    // Two panels: the defaults, whose larger catalogue pays back at 7 calls, and the
    // recommended settings, whose smaller one pays back at 2.
    assert!(svg.contains(">G 1: captured catalogue<"), "{svg}");
    assert!(
        svg.contains("G 1 (recommended: MODYO_RESULTS=text)"),
        "{svg}"
    );
    assert!(svg.contains("break-even by billed input: 7 calls"), "{svg}");
    assert!(svg.contains("break-even by billed input: 2 calls"), "{svg}");

    // Sessions under different settings in two modules do not add up to one panel.
    let mut sessions = before_and_after();
    sessions.push(session(Side::Recommended, "ddddd", &["01234", "01234"]));
    for s in before_and_after().into_iter().chain([session(
        Side::Recommended,
        "ddddd",
        &["01234", "01234"],
    )]) {
        let mut s = Session {
            module: "core".into(),
            ..s
        };
        if let Some(settings) = s.settings.as_mut() {
            settings.errors_text = true;
        }
        sessions.push(s);
    }
    let mixed = build(capture(sessions), &text_client());
    assert_eq!(mixed.clients[0].modules.len(), 2);
    let svg = report::billed_chart(&mixed).expect("a chart");
    assert!(!svg.contains("(recommended"), "{svg}");

    // A client recommended the defaults has one panel: its own is the recommended one.
    let defaults = build(
        capture(before_and_after()),
        &fingerprint(json!("MARK_STRUCT_OK")),
    );
    let svg = report::billed_chart(&defaults).expect("a chart");
    assert!(!svg.contains("(recommended"), "{svg}");
    assert!(svg.contains("break-even by billed input: 7 calls"), "{svg}");
}
