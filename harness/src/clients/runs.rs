//! Running the clients: each client's marker session (its fingerprint) and its module
//! sessions on our offline server, before and after, and, for a client whose recommended
//! settings are not the defaults, under those settings; what each writes under
//! `reports/clients/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use modyo_mcp::Module;
use serde_json::Value;

use super::api::{Api, Script, Step};
use super::capture::{self, Capture, Session, Settings, Side};
use super::driver::{self, Ran, Tools};
use super::endpoint::Captured;
use super::fingerprint::prune::{prune, scrubbed};
use super::fingerprint::{Fingerprint, MarkerCapture, Subject};
use super::reference::{Plan, Reference};
use super::server::McpServer;
use super::{Client, ClientsError, SERVER_NAME, extract, marker};
use crate::session::Library;

/// What the runs need besides the clients.
#[derive(Debug, Clone)]
pub(crate) struct Lab {
    /// The clients and their runtimes.
    pub(crate) tools: Tools,
    /// `modyo-lab` (the servers the clients start: `serve`, `marker`).
    pub(crate) lab: PathBuf,
    /// The cassettes our server replays.
    pub(crate) cassettes: PathBuf,
}

impl Lab {
    /// Strings of a run that name this machine, and what they are written as.
    pub(crate) fn scrub(&self, ran: &Ran) -> Vec<(String, String)> {
        let mut pairs = vec![
            (ran.home.clone(), "$HOME".to_owned()),
            (ran.base_url.clone(), "$ENDPOINT".to_owned()),
            (
                self.lab.to_string_lossy().into_owned(),
                "modyo-lab".to_owned(),
            ),
            (
                self.tools.installed.to_string_lossy().into_owned(),
                "$TOOLS".to_owned(),
            ),
            (
                self.tools.scripts.to_string_lossy().into_owned(),
                "$SCRIPTS".to_owned(),
            ),
        ];
        if let Some(root) = modyo_replay::workspace::root() {
            pairs.push((root.to_string_lossy().into_owned(), "$WORKSPACE".to_owned()));
        }
        pairs.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        pairs
    }
}

/// The model requests of a session's conversation: the API's path, a request that declares
/// a tool (or the client's search tool).
pub(crate) fn conversation(api: Api, captured: &[Captured]) -> Vec<&Captured> {
    captured
        .iter()
        .filter(|c| api.serves(&c.path))
        .filter(|c| {
            let view = api.view(&c.body);
            !view.declared.is_empty() || view.search || view.code
        })
        .collect()
}

/// Runs `client`'s marker session; returns its marker capture (requests cut to their
/// marker-bearing parts) and the fingerprint derived from it.
pub(crate) async fn fingerprint(
    lab: &Lab,
    client: Client,
    version: &str,
) -> Result<(MarkerCapture, Fingerprint), ClientsError> {
    let driver = client.driver();
    let script = Script {
        api: driver.api(),
        steps: marker::plan(),
        tools: marker::TOOLS.iter().map(|t| (*t).to_owned()).collect(),
        loading: driver.loading(),
        server: "marker".into(),
    };
    let server = McpServer::marker(&lab.lab);
    let what = format!("{} marker session", client.name());
    let ran = driver::run(driver, &lab.tools, &server, "marker", script, &what).await?;
    let scrub = lab.scrub(&ran);
    let requests = conversation(driver.api(), &ran.captured)
        .into_iter()
        .map(|c| {
            let body = prune(&c.body, &scrub).unwrap_or(Value::Object(Default::default()));
            (c.path.clone(), body)
        })
        .collect();
    let capture = MarkerCapture {
        subject: Subject {
            client: client.id().into(),
            name: client.name().into(),
            registry: client.registry().into(),
            package: client.package().into(),
            version: version.into(),
            date: crate::record::today(),
            api: driver.api(),
        },
        requests,
    };
    let fingerprint = capture.fingerprint();
    Ok((capture, fingerprint))
}

/// Writes a marker capture and its fingerprint, keeping the previous date when nothing else
/// changed.
pub(crate) fn write_fingerprint(
    dir: &Path,
    client: Client,
    mut capture: MarkerCapture,
) -> Result<(), ClientsError> {
    let path = dir.join(client.marker_file());
    if let Some(previous) = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| MarkerCapture::parse(&t).ok())
    {
        let mut same = previous.clone();
        same.subject.date = capture.subject.date.clone();
        if same == capture {
            capture.subject.date = previous.subject.date;
        }
    }
    std::fs::create_dir_all(dir.join("clients"))?;
    std::fs::write(&path, capture.to_jsonl())?;
    std::fs::write(
        dir.join(client.fingerprint_file()),
        capture.fingerprint().to_json(),
    )?;
    Ok(())
}

/// The script of a session of `client` that makes `calls` answered by `reference`.
pub(crate) fn script(client: Client, reference: &Reference, calls: &[capture::Call]) -> Script {
    let driver = client.driver();
    Script {
        api: driver.api(),
        steps: calls
            .iter()
            .map(|c| Step {
                tool: c.tool.clone(),
                arguments: c.arguments.clone(),
            })
            .collect(),
        tools: reference
            .tool_names()
            .into_iter()
            .map(str::to_owned)
            .collect(),
        loading: driver.loading(),
        server: SERVER_NAME.into(),
    }
}

/// One module session of `client` on `side` (under `settings` on the recommended side),
/// extracted against what our server answers there (`reference`).
pub(crate) async fn module_session(
    lab: &Lab,
    client: Client,
    plan: &Plan,
    side: Side,
    settings: Option<Settings>,
    reference: &Reference,
) -> Result<Session, ClientsError> {
    let server = McpServer::offline(&lab.lab, &lab.cassettes, plan.module, side, settings);
    let what = format!(
        "{} {} {}",
        client.name(),
        plan.module.as_str(),
        side.as_str()
    );
    let ran = driver::run(
        client.driver(),
        &lab.tools,
        &server,
        SERVER_NAME,
        script(client, reference, &plan.calls),
        &what,
    )
    .await?;
    // What names this machine (a traceback a client sends the model, with its install path)
    // is written as in the marker captures, so a capture is the same wherever it was made.
    let scrub = lab.scrub(&ran);
    let captured: Vec<Captured> = ran
        .captured
        .iter()
        .map(|c| Captured {
            path: c.path.clone(),
            body: scrubbed(&c.body, &scrub),
        })
        .collect();
    let parts = extract::extract(&captured, client.driver().api(), reference, &plan.calls)
        .map_err(|e| ClientsError::Incomplete(format!("{what}: {e}")))?;
    Ok(Session {
        module: plan.module.as_str().to_owned(),
        side,
        settings,
        listed: reference.tools.len(),
        calls: plan.calls.clone(),
        left_out: plan.left_out.clone(),
        requests: parts.requests,
        names: parts.names,
        instructions: parts.instructions,
        definitions: parts.definitions,
        results: parts.results,
    })
}

/// The settings each of `clients` is recommended (from its fingerprint in `dir`: the run's
/// fresh one, else the committed one), for those whose recommendation is not the defaults: the
/// clients that get a `recommended` session. A client without a fingerprint gets none.
pub(crate) fn recommended_settings(
    dir: &Path,
    clients: &[Client],
) -> Result<BTreeMap<Client, Settings>, ClientsError> {
    let fingerprints = super::load_fingerprints(dir)?;
    let mut out = BTreeMap::new();
    for client in clients {
        let Some(fingerprint) = fingerprints
            .iter()
            .find(|f| f.subject.client == client.id())
        else {
            eprintln!(
                "clients: {}: no fingerprint, so no recommended session",
                client.id()
            );
            continue;
        };
        let settings = super::recommend::recommend(fingerprint).server_settings();
        if settings.is_defaults() {
            eprintln!(
                "clients: {}: recommended the defaults: its after sessions are the recommended ones",
                client.id()
            );
        } else {
            out.insert(*client, settings);
        }
    }
    Ok(out)
}

/// The sides `client` runs, with the settings of each: before and after, and recommended when
/// `recommended` holds settings for it.
fn sides_of(
    client: Client,
    recommended: &BTreeMap<Client, Settings>,
) -> Vec<(Side, Option<Settings>)> {
    let mut sides: Vec<(Side, Option<Settings>)> =
        Side::BOTH.into_iter().map(|side| (side, None)).collect();
    if let Some(settings) = recommended.get(&client) {
        sides.push((Side::Recommended, Some(*settings)));
    }
    sides
}

/// Every module session of every client in `clients` (modules in `only`, or all), with a
/// recommended session for each client `recommended` holds settings for; the failures of a
/// client are collected and its other sessions are not run.
pub(crate) async fn module_sessions(
    lab: &Lab,
    clients: &[Client],
    recommended: &BTreeMap<Client, Settings>,
    only: Option<Module>,
    failures: &mut Vec<String>,
) -> Result<BTreeMap<Client, Vec<Session>>, ClientsError> {
    let library = Library::load(&lab.cassettes)?;
    let mut sessions: BTreeMap<Client, Vec<Session>> = BTreeMap::new();
    let mut failed: Vec<Client> = Vec::new();
    for module in Module::ALL {
        if only.is_some_and(|m| m != module) {
            continue;
        }
        eprintln!("clients: {}: planning", module.as_str());
        let plan = super::reference::plan(&library, &lab.cassettes, module).await?;
        if plan.calls.is_empty() {
            eprintln!("clients: {}: no scenario to call", module.as_str());
            continue;
        }
        // Our server under each distinct recommended settings, computed once per module.
        let mut references: Vec<(Settings, Reference)> = Vec::new();
        for settings in recommended.values() {
            if !references.iter().any(|(s, _)| s == settings) {
                let reference =
                    super::reference::recommended(&lab.cassettes, &plan, *settings).await?;
                references.push((*settings, reference));
            }
        }
        for client in clients {
            if failed.contains(client) {
                continue;
            }
            for (side, settings) in sides_of(*client, recommended) {
                let reference = match settings {
                    Some(settings) => references
                        .iter()
                        .find(|(s, _)| *s == settings)
                        .map(|(_, r)| r),
                    None => plan.reference(side),
                };
                let Some(reference) = reference else {
                    return Err(ClientsError::Plan(format!(
                        "{}: no reference for the {} side",
                        module.as_str(),
                        side.as_str()
                    )));
                };
                eprintln!(
                    "clients: {} {} {}{}: {} calls",
                    client.id(),
                    module.as_str(),
                    side.as_str(),
                    settings.map_or(String::new(), |s| format!(" ({})", s.label())),
                    plan.calls.len()
                );
                let started = std::time::Instant::now();
                match module_session(lab, *client, &plan, side, settings, reference).await {
                    Ok(session) => {
                        eprintln!(
                            "clients: {} {} {}: {} requests in {:.1} s",
                            client.id(),
                            module.as_str(),
                            side.as_str(),
                            session.requests.len(),
                            started.elapsed().as_secs_f64()
                        );
                        sessions.entry(*client).or_default().push(session);
                    }
                    Err(e) => {
                        eprintln!("clients: {}: FAILED: {e}", client.id());
                        failures.push(format!("{}: {e}", client.id()));
                        failed.push(*client);
                        sessions.remove(client);
                        break;
                    }
                }
            }
        }
    }
    Ok(sessions)
}

/// Writes `client`'s capture: `fresh` sessions, plus (with `only`) the previous capture's
/// sessions of the other modules.
pub(crate) fn write_capture(
    dir: &Path,
    client: Client,
    version: &str,
    mut fresh: Vec<Session>,
    only: Option<Module>,
) -> Result<(), ClientsError> {
    let path = dir.join(client.capture_file());
    let previous = match std::fs::read_to_string(&path) {
        // A capture of every module replaces one this lab no longer reads (an older format),
        // which only loses its date; `--module` keeps its other modules, so it must read.
        Ok(text) => match super::parse(&path, &text) {
            Ok(previous) => Some(previous),
            Err(e) if only.is_none() => {
                eprintln!("clients: replacing a capture this lab does not read ({e})");
                None
            }
            Err(e) => return Err(e),
        },
        Err(_) => None,
    };
    if let (Some(_), Some(previous)) = (only, &previous) {
        if previous.header.version != version {
            return Err(ClientsError::VersionMix(path.display().to_string()));
        }
        let kept: Vec<Session> = previous
            .sessions
            .iter()
            .filter(|s| !fresh.iter().any(|f| f.module == s.module))
            .cloned()
            .collect();
        fresh.extend(kept);
    }
    let mut capture = Capture {
        header: capture::Header {
            format: capture::FORMAT.into(),
            client: client.id().into(),
            name: client.name().into(),
            package: client.package().into(),
            version: version.into(),
            date: crate::record::today(),
            server: SERVER_NAME.into(),
        },
        sessions: fresh,
    };
    if let Some(previous) = &previous {
        capture.keep_date_of(previous);
    }
    std::fs::create_dir_all(dir.join("clients"))?;
    std::fs::write(&path, capture.to_jsonl())?;
    eprintln!("clients: wrote {}", client.capture_file());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::capture::Shape;

    fn session(module: &str, side: Side) -> Session {
        Session {
            module: module.into(),
            side,
            settings: None,
            listed: 1,
            calls: Vec::new(),
            left_out: Vec::new(),
            requests: vec![Shape {
                names: 0,
                definitions: 1,
                results: 0,
                instructions: 0,
            }],
            names: Vec::new(),
            instructions: Vec::new(),
            definitions: Vec::new(),
            results: Vec::new(),
        }
    }

    #[test]
    fn a_capture_of_every_module_replaces_one_in_an_older_format_and_a_partial_one_does_not() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join(Client::Genai.capture_file());
        std::fs::create_dir_all(path.parent().expect("clients/")).expect("clients/");
        let old = r#"{"line":"capture","format":"modyo-lab-capture/1","client":"genai","name":"g","package":"p","version":"1","date":"2026-01-01","server":"s"}
{"line":"session","module":"widgets","side":"before","listed":1,"calls":[{"scenario":"w#x","tool":"t","arguments":{}}],"left_out":[],"requests":[],"names":[],"instructions":[]}
"#;
        std::fs::write(&path, old).expect("an old capture");
        let fresh = || {
            vec![
                session("widgets", Side::Before),
                session("widgets", Side::After),
            ]
        };
        let partial = write_capture(
            dir.path(),
            Client::Genai,
            "1",
            fresh(),
            Some(Module::Widgets),
        );
        assert!(
            matches!(partial, Err(ClientsError::Capture { .. })),
            "{partial:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).expect("kept"), old);
        write_capture(dir.path(), Client::Genai, "1", fresh(), None).expect("replaced");
        let written = Capture::parse(&std::fs::read_to_string(&path).expect("written"))
            .expect("the new capture reads");
        assert_eq!(written.sessions.len(), 2);
    }
}
