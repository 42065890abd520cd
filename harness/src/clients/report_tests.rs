//! Tests of the pricing and the report: bills from request shapes, break-even, outcomes,
//! and what the fingerprint makes the report say.

use super::*;
use crate::clients::capture::{Header, Shape};
use serde_json::json;

fn session(side: Side, definition: &str, results: &[&str]) -> Session {
    crate::clients::fixtures::session(side, None, definition, results)
}

fn capture(before: Session, after: Session) -> Capture {
    Capture {
        header: Header {
            format: crate::clients::capture::FORMAT.into(),
            client: "claude-code".into(),
            name: "Claude Code".into(),
            package: "p".into(),
            version: "1".into(),
            date: "2026-12-01".into(),
            server: "s".into(),
        },
        sessions: vec![before, after],
    }
}

#[test]
fn a_session_is_priced_once_for_names_instructions_definitions_and_per_call_for_results() {
    let before = session(Side::Before, "d", &["0123456789", "0123456789"]);
    let after = session(Side::After, "longer description", &["01234", "01234"]);
    let report = client_report(&capture(before, after), "clients/x.jsonl", None).expect("prices");
    let m = &report.modules[0];
    // names: "mcp__s__a\nmcp__s__b" = 19; instructions 3; definition {"description":"d"} = 19.
    assert_eq!(m.before.names.chars, 19);
    assert_eq!(m.before.instructions.chars, 3);
    assert_eq!(m.before.definitions.chars, 19);
    assert_eq!(m.before.once.chars, 41);
    assert_eq!(m.after.definitions.chars, 36);
    assert_eq!((m.before.results.chars, m.after.results.chars), (20, 10));
    assert_eq!(m.per_call_after.chars, 5.0);
    // +17 once, -5 per call: 4 calls pay it back.
    assert_eq!(m.break_even_calls.primary, Some(4));
    assert_eq!(m.delta.chars, 7);
    assert_eq!(m.left_out.len(), 1);
    // One request in the capture (names, instructions, nothing loaded): billed 19 + 3.
    assert_eq!(m.before.billed.chars, 22);
    // +17 once, -5 per call: the bill pays it back at 7 calls (each request re-sends it).
    assert_eq!(m.billed_break_even_calls.primary, Some(7));
}

#[test]
fn the_bill_sums_what_every_request_carried() {
    let mut s = session(Side::Before, "d", &["0123456789", "01234"]);
    // Request 1: names only; 2: the instructions and the definition loaded; 3: one result;
    // 4: both results.
    let shape = |instructions, definitions, results| Shape {
        names: 2,
        definitions,
        results,
        instructions,
    };
    s.requests = vec![
        shape(0, 0, 0),
        shape(1, 1, 0),
        shape(1, 1, 1),
        shape(1, 1, 2),
    ];
    let priced = price(&s).cost;
    // names 19 in each of 4 requests; the instructions (3) and the definition (19) in 3; the
    // first result (10) in 2; the second (5) in 1.
    assert_eq!(priced.billed.chars, 4 * 19 + 3 * (3 + 19) + 2 * 10 + 5);
    // The last request is the final context; the rest the previous requests already sent.
    assert_eq!(priced.total.chars, 22 + 19 + 15);
    assert_eq!(
        priced.repeated.chars,
        priced.billed.chars - priced.total.chars
    );
}

#[test]
fn text_blocks_are_priced_as_text_and_objects_as_compact_json() {
    assert_eq!(priced(&json!("abc")).chars, 3);
    assert_eq!(
        priced(&json!([{"type": "text", "text": "ab"}, {"type": "text", "text": "c"}])).chars,
        3
    );
    assert_eq!(priced(&json!({"a": 1})).chars, 7);
}

#[test]
fn sessions_that_made_different_calls_are_not_compared() {
    let before = session(Side::Before, "d", &["a"]);
    let after = session(Side::After, "d", &["a", "b"]);
    assert!(matches!(
        client_report(&capture(before.clone(), after), "x", None),
        Err(PriceError::DifferentCalls { .. })
    ));
    let mut lonely = capture(before.clone(), before);
    lonely.sessions.pop();
    assert!(matches!(
        client_report(&lonely, "x", None),
        Err(PriceError::MissingSide { side: "after", .. })
    ));
}

/// A Claude Code fingerprint of `version`: structuredContent instead of the text, errors
/// flagged, the system prompt marked for the cache.
fn fingerprint(version: &str) -> Fingerprint {
    use crate::clients::api::Api;
    use crate::clients::fingerprint::{MarkerCapture, Subject};
    let result = |id: &str, content: &str| json!({"type": "tool_result", "tool_use_id": id, "content": content});
    MarkerCapture {
        subject: Subject {
            client: "claude-code".into(),
            name: "Claude Code".into(),
            registry: "npm".into(),
            package: "@anthropic-ai/claude-code".into(),
            version: version.into(),
            date: "2026-12-01".into(),
            api: Api::Anthropic,
        },
        requests: vec![(
            "/v1/messages".into(),
            json!({"system": [{"type": "text", "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": [
                result("toolu_lab_0000", "{\"m\":\"MARK_STRUCT_OK\"}"),
                result("toolu_lab_0002", "MARK_TEXT_TXT"),
            ]}]}),
        )],
    }
    .fingerprint()
}

#[test]
fn the_observations_and_the_markdown_come_from_the_capture_and_the_fingerprint() {
    let mut before = session(Side::Before, "d", &["abc", "an error"]);
    let mut after = session(Side::After, "e", &["ab", "an error, longer"]);
    for s in [&mut before, &mut after] {
        s.calls[1].outcome = Outcome::Error;
    }
    let captures = [("clients/claude-code.jsonl".into(), capture(before, after))];
    let report = build(&captures, &[fingerprint("1")]).expect("builds");
    let md = markdown(&report, &[("Other".into(), "could not run.".into())]);
    assert!(md.contains("## Claude Code 1\n"), "{md}");
    assert!(md.contains("every one of our tools by name"), "{md}");
    assert!(
        md.contains("from the fingerprint ([clients/claude-code.fingerprint.json](clients/claude-code.fingerprint.json)): the compact JSON of structuredContent, without the text"),
        "{md}"
    );
    assert!(md.contains("our content[].text as is for 2 calls"), "{md}");
    assert!(
        md.contains("Prompt-cache breakpoints, from the fingerprint: marked (`cache_control` on `$.system[*]`)"),
        "{md}"
    );
    let client = &report.clients[0];
    assert_eq!(
        client.fingerprint.as_deref(),
        Some("clients/claude-code.fingerprint.json")
    );
    assert!(
        client.per_call.starts_with("structuredContent"),
        "{}",
        client.per_call
    );
    // One success and one error per side, each its own row: 3 → 2 and 8 → 16 characters.
    let outcomes = &client.modules[0].outcomes;
    assert_eq!(
        outcomes
            .iter()
            .map(|o| (o.outcome.as_str(), o.calls))
            .collect::<Vec<_>>(),
        [("success", 1), ("error", 1)]
    );
    assert_eq!(outcomes[1].per_call_before.chars, 8.0);
    assert_eq!(outcomes[1].per_call_after.chars, 16.0);
    assert!(
        md.contains("| widgets | 1: 1.0 → 0.7 (-33.3%) | 1: 2.8 → 5.5 (+100.0%) | — |"),
        "{md}"
    );
    // A fingerprint of another version is not this capture's.
    let other = build(&captures, &[fingerprint("2")]).expect("builds");
    assert_eq!(other.clients[0].fingerprint, None);
    assert_eq!(other.clients[0].per_call, "content[].text");
    assert!(md.contains("once per session"), "{md}");
    assert!(md.contains("- widgets `widgets/x#y`: because"), "{md}");
    assert!(
        md.contains("## Other: not measured\n\ncould not run."),
        "{md}"
    );
    let back: ClientsReport = serde_json::from_str(&json(&report)).expect("reads back");
    assert_eq!(back.clients[0].modules[0].calls, 2);
    assert_eq!(back.clients[0].modules[0].outcomes.len(), 2);
}
