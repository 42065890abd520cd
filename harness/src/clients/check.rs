//! `modyo-lab clients --check`: what no longer matches between the committed files and the
//! server as built, without running a client. A capture is stale when the calls a session
//! would make, the tools listed, the instructions, or what each definition and result is of
//! ours moved; a fingerprint is stale when it is not what its committed marker capture shows.
//!
//! A `recommended` session is held to our server under the settings it recorded, and to the
//! recommendation of the client's committed fingerprint (of the capture's version): a session
//! under settings the fingerprint no longer recommends is stale. A capture without recommended
//! sessions is not stale for lacking them: a full run records them.

use std::collections::BTreeMap;
use std::path::Path;

use modyo_mcp::Module;

use super::capture::{self, Forwarded, Settings, Side};
use super::reference::{self, Plan, Reference};
use super::{
    Client, ClientsError, extract, load_captures, load_fingerprints, load_marker_captures,
    recommend,
};
use crate::session::Library;

/// What no longer matches between the captures in `dir` and our server as built now, served
/// from `cassettes`: the calls a session would make, the tools listed, the instructions, and
/// what each definition and result is of ours. Empty when every capture is current.
pub async fn stale(dir: &Path, cassettes: &Path) -> Result<Vec<String>, ClientsError> {
    let captures = load_captures(dir)?;
    let fingerprints = load_fingerprints(dir)?;
    let library = Library::load(cassettes)?;
    let mut plans = BTreeMap::new();
    let mut recommended_references: Vec<((Module, Settings), Reference)> = Vec::new();
    let mut problems = Vec::new();
    for (file, capture) in &captures {
        // What the client's fingerprint of this version recommends now.
        let recommendation = fingerprints
            .iter()
            .find(|f| {
                f.subject.client == capture.header.client
                    && f.subject.version == capture.header.version
            })
            .map(|f| recommend::recommend(f).server_settings());
        for session in &capture.sessions {
            let label = format!("{file}: {} {}", session.module, session.side.as_str());
            let Some(module) = Module::parse(&session.module) else {
                problems.push(format!("{label}: no such module"));
                continue;
            };
            let plan = match plans.entry(module) {
                std::collections::btree_map::Entry::Occupied(plan) => plan.into_mut(),
                std::collections::btree_map::Entry::Vacant(slot) => {
                    slot.insert(reference::plan(&library, cassettes, module).await?)
                }
            };
            let reference = match (session.side, session.settings) {
                (Side::Recommended, Some(settings)) => {
                    if let Some(now) = recommendation.filter(|now| *now != settings) {
                        problems.push(format!(
                            "{label}: ran under {}, the fingerprint now recommends {}",
                            settings.label(),
                            now.label()
                        ));
                    }
                    let key = (module, settings);
                    if !recommended_references.iter().any(|(k, _)| *k == key) {
                        let reference = reference::reference(
                            cassettes,
                            module,
                            Side::Recommended,
                            Some(settings),
                            &plan.calls,
                        )
                        .await?;
                        recommended_references.push((key, reference));
                    }
                    recommended_references
                        .iter()
                        .find(|(k, _)| *k == key)
                        .map(|(_, r)| r)
                }
                (side, _) => plan.reference(side),
            };
            let Some(reference) = reference else {
                problems.push(format!("{label}: a recommended session without settings"));
                continue;
            };
            problems.extend(
                session_drift(session, plan, reference)
                    .into_iter()
                    .map(|p| format!("{label}: {p}")),
            );
        }
    }
    Ok(problems)
}

/// How a captured session differs from what `reference` (our server on its side, now, making
/// the plan's calls) would give it.
fn session_drift(session: &capture::Session, plan: &Plan, reference: &Reference) -> Vec<String> {
    let mut problems = Vec::new();
    if session.calls != plan.calls || session.left_out != plan.left_out {
        problems.push("the module's scenarios changed (calls or left-out list)".to_owned());
        return problems;
    }
    if session.listed != reference.tools.len() {
        problems.push(format!(
            "{} tools listed, the server lists {}",
            session.listed,
            reference.tools.len()
        ));
    }
    if session
        .instructions
        .iter()
        .any(|i| i.is_empty() || !reference.instructions.starts_with(i.as_str()))
    {
        problems.push("the server's instructions changed".to_owned());
    }
    for d in &session.definitions {
        let now = reference
            .tool(&d.tool)
            .map(|t| extract::carries(t, &d.sent))
            .unwrap_or_default();
        if now != d.carries {
            problems.push(format!("{}'s definition changed", d.tool));
        }
    }
    for r in &session.results {
        let now = reference
            .results
            .get(r.call)
            .map_or(Forwarded::Other, |result| {
                extract::forwarded(result, &r.sent)
            });
        if now != r.forwarded {
            problems.push(format!(
                "the result of {} changed",
                session.calls[r.call].scenario
            ));
        }
    }
    problems
}

/// Every fingerprint in `dir` that is not what its marker capture shows, and every marker
/// capture or fingerprint without the other.
pub fn fingerprints(dir: &Path) -> Result<Vec<String>, ClientsError> {
    let mut problems = Vec::new();
    let captures = load_marker_captures(dir)?;
    for client in Client::ALL {
        let committed = std::fs::read_to_string(dir.join(client.fingerprint_file())).ok();
        let capture = captures.iter().find(|(c, _)| *c == client).map(|(_, m)| m);
        match (capture, committed) {
            (Some(capture), Some(committed)) => {
                if capture.fingerprint().to_json() != committed {
                    problems.push(format!(
                        "{} is not what {} shows (run make clients, or modyo-lab clients --fingerprints-only --client {})",
                        client.fingerprint_file(),
                        client.marker_file(),
                        client.id()
                    ));
                }
            }
            (Some(_), None) => problems.push(format!(
                "{} has no {}",
                client.marker_file(),
                client.fingerprint_file()
            )),
            (None, Some(_)) => problems.push(format!(
                "{} has no {} to derive it from",
                client.fingerprint_file(),
                client.marker_file()
            )),
            (None, None) => {}
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::api::Api;
    use crate::clients::fingerprint::{MarkerCapture, Subject};
    use serde_json::json;

    #[test]
    fn a_fingerprint_that_is_not_its_capture_is_named() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir_all(dir.path().join("clients")).expect("mkdir");
        let capture = MarkerCapture {
            subject: Subject {
                client: "genai".into(),
                name: "@google/genai (mcpToTool)".into(),
                registry: "npm".into(),
                package: "@google/genai".into(),
                version: "1".into(),
                date: "2026-12-01".into(),
                api: Api::Chat,
            },
            requests: vec![(
                "/v1/chat/completions".into(),
                json!({"tools": [{"function": {"name": "mk_ok", "description": "MARK_DESC_OK"}}]}),
            )],
        };
        let client = Client::Genai;
        std::fs::write(dir.path().join(client.marker_file()), capture.to_jsonl()).expect("write");
        assert_eq!(
            fingerprints(dir.path()).expect("reads"),
            ["clients/genai.marker.jsonl has no clients/genai.fingerprint.json"]
        );
        let path = dir.path().join(client.fingerprint_file());
        std::fs::write(&path, capture.fingerprint().to_json()).expect("write");
        assert!(fingerprints(dir.path()).expect("reads").is_empty());
        let edited = capture
            .fingerprint()
            .to_json()
            .replace("\"error_flag\": false", "\"error_flag\": true");
        std::fs::write(&path, edited).expect("write");
        let problems = fingerprints(dir.path()).expect("reads");
        assert!(problems[0].contains("is not what"), "{problems:?}");
        std::fs::remove_file(dir.path().join(client.marker_file())).expect("rm");
        assert!(fingerprints(dir.path()).expect("reads")[0].contains("to derive it from"));
    }

    /// A fingerprint of `genai` version 1 that reads only the text: recommended `text`.
    fn text_client_fingerprint() -> crate::clients::Fingerprint {
        crate::clients::fixtures::genai_fingerprint(json!("MARK_TEXT_OK"))
    }

    #[tokio::test]
    async fn a_recommended_session_is_held_to_our_server_under_its_settings() {
        use crate::clients::capture::{Capture, Header, Result as Sent, Session};
        use modyo_mcp::contract::ResultForm;
        let cassettes = modyo_replay::cassette::default_dir();
        let library = Library::load(&cassettes).expect("the cassettes load");
        let plan = reference::plan(&library, &cassettes, Module::Widgets)
            .await
            .expect("widgets plans");
        let text = Settings {
            results: ResultForm::Text,
            output_schema_off: false,
            errors_text: false,
        };
        let under_text = reference::recommended(&cassettes, &plan, text)
            .await
            .expect("our server answers under text");
        // A session that forwarded every result whole, as `reference` answered it.
        let session = |side, settings, reference: &Reference| Session {
            module: "widgets".into(),
            side,
            settings,
            listed: reference.tools.len(),
            calls: plan.calls.clone(),
            left_out: plan.left_out.clone(),
            requests: Vec::new(),
            names: Vec::new(),
            instructions: Vec::new(),
            definitions: Vec::new(),
            results: reference
                .results
                .iter()
                .enumerate()
                .map(|(call, result)| Sent {
                    call,
                    tool: plan.calls[call].tool.clone(),
                    forwarded: Forwarded::Result,
                    sent: result.clone(),
                })
                .collect(),
        };
        let side = |side| plan.reference(side).expect("before and after are planned");
        let mut capture = Capture {
            header: Header {
                format: capture::FORMAT.into(),
                client: "genai".into(),
                name: "g".into(),
                package: "p".into(),
                version: "1".into(),
                date: "2026-12-01".into(),
                server: "s".into(),
            },
            sessions: vec![
                session(Side::Before, None, side(Side::Before)),
                session(Side::After, None, side(Side::After)),
            ],
        };
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir_all(dir.path().join("clients")).expect("mkdir");
        let fingerprint = text_client_fingerprint();
        assert_eq!(recommend::recommend(&fingerprint).server_settings(), text);
        std::fs::write(
            dir.path().join(Client::Genai.fingerprint_file()),
            fingerprint.to_json(),
        )
        .expect("write");
        let stale_with = |capture: &Capture| {
            std::fs::write(
                dir.path().join(Client::Genai.capture_file()),
                capture.to_jsonl(),
            )
            .expect("write");
            let dir = dir.path().to_owned();
            let cassettes = cassettes.clone();
            async move { stale(&dir, &cassettes).await.expect("the check runs") }
        };
        // No recommended session, though the fingerprint recommends `text`: not stale.
        assert_eq!(stale_with(&capture).await, Vec::<String>::new());
        capture
            .sessions
            .push(session(Side::Recommended, Some(text), &under_text));
        assert_eq!(stale_with(&capture).await, Vec::<String>::new());
        // A recommended session whose results are what the defaults answer: drifted.
        capture.sessions[2] = session(Side::Recommended, Some(text), side(Side::After));
        let problems = stale_with(&capture).await;
        assert!(!problems.is_empty());
        assert!(
            problems.iter().all(|p| p
                .starts_with("clients/genai.jsonl: widgets recommended: the result of widgets/")
                && p.ends_with(" changed")),
            "{problems:?}"
        );
        // A session under settings the fingerprint no longer recommends.
        let schema_off = Settings {
            results: ResultForm::Both,
            output_schema_off: true,
            errors_text: false,
        };
        let under_schema_off = reference::recommended(&cassettes, &plan, schema_off)
            .await
            .expect("our server answers without schemas");
        capture.sessions[2] = session(Side::Recommended, Some(schema_off), &under_schema_off);
        assert_eq!(
            stale_with(&capture).await,
            [
                "clients/genai.jsonl: widgets recommended: ran under MODYO_OUTPUT_SCHEMA=off, the fingerprint now recommends MODYO_RESULTS=text"
            ]
        );
    }
}
