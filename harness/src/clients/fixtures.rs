//! Test fixtures the clients' tests share: a widgets session as a capture holds it, and the
//! fingerprint of a small client whose last request holds a given tool result.

use serde_json::{Value, json};

use super::api::Api;
use super::capture::{
    Call, Definition, Forwarded, LeftOut, Outcome, Result as Sent, Session, Settings, Shape, Side,
};
use super::fingerprint::{Fingerprint, MarkerCapture, Subject};

/// A widgets session on `side` (under `settings`, for a recommended one) whose one definition
/// is `definition` and whose calls answered `results`, one request carrying names and
/// instructions.
pub(crate) fn session(
    side: Side,
    settings: Option<Settings>,
    definition: &str,
    results: &[&str],
) -> Session {
    Session {
        module: "widgets".into(),
        side,
        settings,
        listed: 2,
        left_out: vec![LeftOut {
            scenario: "widgets/x#y".into(),
            why: "because".into(),
        }],
        calls: results
            .iter()
            .enumerate()
            .map(|(i, _)| Call {
                scenario: format!("widgets/p#{i}"),
                tool: "widgets-list-patterns".into(),
                arguments: json!({}),
                outcome: Outcome::Success,
            })
            .collect(),
        requests: vec![Shape {
            names: 2,
            definitions: 0,
            results: 0,
            instructions: 1,
        }],
        names: vec!["mcp__s__a".into(), "mcp__s__b".into()],
        instructions: vec!["Hi.".into()],
        definitions: vec![Definition {
            tool: "widgets-list-patterns".into(),
            carries: vec!["description".into()],
            sent: json!({"description": definition}),
        }],
        results: results
            .iter()
            .enumerate()
            .map(|(i, r)| Sent {
                call: i,
                tool: "widgets-list-patterns".into(),
                forwarded: Forwarded::Text,
                sent: json!(r),
            })
            .collect(),
    }
}

/// A fingerprint of `genai` 1 whose last request holds `result` as a tool result, and a
/// text-only result.
pub(crate) fn genai_fingerprint(result: Value) -> Fingerprint {
    let tool = json!({"type": "function", "function": {"name": "mk_ok",
        "description": "MARK_DESC ok", "parameters": {"type": "object"}}});
    MarkerCapture {
        subject: Subject {
            client: "genai".into(),
            name: "G".into(),
            registry: "npm".into(),
            package: "p".into(),
            version: "1".into(),
            date: "2026-12-01".into(),
            api: Api::Chat,
        },
        requests: vec![(
            "/v1/chat/completions".into(),
            json!({"tools": [tool], "messages": [
                {"role": "tool", "content": result},
                {"role": "tool", "content": "MARK_TEXT_TXT"}
            ]}),
        )],
    }
    .fingerprint()
}
