//! Tests of the capture file: it reads back what it wrote, names a bad line, keeps an
//! unchanged date, and records the settings of a recommended session.

use super::*;
use serde_json::json;

fn sample() -> Capture {
    Capture {
        header: Header {
            format: FORMAT.into(),
            client: "claude-code".into(),
            name: "Claude Code".into(),
            package: "@anthropic-ai/claude-code".into(),
            version: "1.0.0".into(),
            date: "2026-12-01".into(),
            server: "modyo-offline".into(),
        },
        sessions: vec![Session {
            module: "widgets".into(),
            side: Side::After,
            settings: None,
            listed: 5,
            left_out: Vec::new(),
            calls: vec![Call {
                scenario: "widgets/patterns#all".into(),
                tool: "widgets-list-patterns".into(),
                arguments: json!({}),
                outcome: Outcome::Success,
            }],
            requests: vec![
                Shape {
                    names: 5,
                    definitions: 0,
                    results: 0,
                    instructions: 1,
                },
                Shape {
                    names: 5,
                    definitions: 1,
                    results: 1,
                    instructions: 0,
                },
            ],
            names: vec!["mcp__modyo-offline__widgets-list-patterns".into()],
            instructions: vec!["Modyo platform tools (widgets).".into()],
            definitions: vec![Definition {
                tool: "widgets-list-patterns".into(),
                carries: vec!["description".into(), "inputSchema".into()],
                sent: json!({"name": "mcp__modyo-offline__widgets-list-patterns", "description": "d"}),
            }],
            results: vec![Result {
                call: 0,
                tool: "widgets-list-patterns".into(),
                forwarded: Forwarded::Text,
                sent: json!("{\"data\":[]}"),
            }],
        }],
    }
}

#[test]
fn a_capture_reads_back_what_it_wrote() {
    let capture = sample();
    let text = capture.to_jsonl();
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(text.starts_with(r#"{"line":"capture","format":"modyo-lab-capture/1""#));
    assert_eq!(Capture::parse(&text).expect("parses"), capture);
}

#[test]
fn a_misplaced_or_foreign_line_is_reported_with_its_number() {
    let text = sample().to_jsonl();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.swap(1, 2);
    let e = Capture::parse(&lines.join("\n")).expect_err("definition before its session");
    assert_eq!(e.line, 2, "{e}");
    let e = Capture::parse(&text.replace("modyo-lab-capture/1", "other/9"))
        .expect_err("foreign format");
    assert!(e.to_string().contains("other/9"), "{e}");
    assert!(Capture::parse("").is_err());
    let e = Capture::parse(&text.replace(r#""call":0"#, r#""call":3"#))
        .expect_err("a result of a call that was not made");
    assert_eq!(e.line, 4, "{e}");
}

#[test]
fn a_recommended_session_records_its_settings_and_only_it_does() {
    let mut capture = sample();
    let mut recommended = capture.sessions[0].clone();
    recommended.side = Side::Recommended;
    recommended.settings = Some(Settings {
        results: ResultForm::Text,
        output_schema_off: true,
        errors_text: false,
    });
    capture.sessions.insert(0, recommended);
    let text = capture.to_jsonl();
    // Sorted by module then side: the recommended session after the after one.
    let session_lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with(r#"{"line":"session""#))
        .collect();
    assert!(
        session_lines[0].contains(r#""side":"after","listed""#),
        "{text}"
    );
    assert!(
        session_lines[1].contains(
            r#""side":"recommended","settings":{"results":"text","output_schema_off":true}"#
        ),
        "{text}"
    );
    let back = Capture::parse(&text).expect("parses");
    assert_eq!(
        back.session("widgets", Side::Recommended),
        Some(&capture.sessions[0])
    );
    let e = Capture::parse(&text.replace(r#""results":"text""#, r#""results":"bogus""#))
        .expect_err("an unknown form");
    assert!(e.to_string().contains("bogus"), "{e}");
    let e = Capture::parse(&text.replace(
        r#","settings":{"results":"text","output_schema_off":true}"#,
        "",
    ))
    .expect_err("a recommended session without settings");
    assert!(e.to_string().contains("recommended session without"), "{e}");
    let e = Capture::parse(&text.replace(
        r#""side":"after","listed""#,
        r#""side":"after","settings":{"results":"text"},"listed""#,
    ))
    .expect_err("an after session with settings");
    assert!(e.to_string().contains("after session with"), "{e}");
}

#[test]
fn settings_read_as_an_operator_types_them() {
    assert!(Settings::DEFAULTS.is_defaults());
    assert_eq!(Settings::DEFAULTS.label(), "defaults (both)");
    assert!(Settings::DEFAULTS.env().is_empty());
    let text = Settings {
        results: ResultForm::Text,
        output_schema_off: false,
        errors_text: false,
    };
    assert_eq!(text.label(), "MODYO_RESULTS=text");
    let schema_off = Settings {
        results: ResultForm::Both,
        output_schema_off: true,
        errors_text: false,
    };
    assert!(!schema_off.is_defaults());
    assert_eq!(schema_off.label(), "MODYO_OUTPUT_SCHEMA=off");
}

#[test]
fn an_unchanged_capture_keeps_its_date_and_a_changed_one_does_not() {
    let old = sample();
    let mut same = sample();
    same.header.date = "2027-01-01".into();
    same.keep_date_of(&old);
    assert_eq!(same.header.date, "2026-12-01");
    let mut changed = sample();
    changed.header.date = "2027-01-01".into();
    changed.header.version = "1.0.1".into();
    changed.keep_date_of(&old);
    assert_eq!(changed.header.date, "2027-01-01");
}
