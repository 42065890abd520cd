//! `modyo-lab clients --check`: what no longer matches between the committed files and the
//! server as built, without running a client. A capture is stale when the calls a session
//! would make, the tools listed, the instructions, or what each definition and result is of
//! ours moved; a fingerprint is stale when it is not what its committed marker capture shows.

use std::collections::BTreeMap;
use std::path::Path;

use modyo_mcp::Module;

use super::capture::{self, Forwarded};
use super::reference::{self, Plan};
use super::{Client, ClientsError, extract, load_captures, load_marker_captures};
use crate::session::Library;

/// What no longer matches between the captures in `dir` and our server as built now, served
/// from `cassettes`: the calls a session would make, the tools listed, the instructions, and
/// what each definition and result is of ours. Empty when every capture is current.
pub async fn stale(dir: &Path, cassettes: &Path) -> Result<Vec<String>, ClientsError> {
    let captures = load_captures(dir)?;
    let library = Library::load(cassettes)?;
    let mut plans = BTreeMap::new();
    let mut problems = Vec::new();
    for (file, capture) in &captures {
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
            problems.extend(
                session_drift(session, plan)
                    .into_iter()
                    .map(|p| format!("{label}: {p}")),
            );
        }
    }
    Ok(problems)
}

/// How a captured session differs from what the plan's reference would give it now.
fn session_drift(session: &capture::Session, plan: &Plan) -> Vec<String> {
    let reference = plan.reference(session.side);
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
}
