//! `modyo-lab clients --server CMD`: the same clients against any stdio MCP server, so another
//! team can price its own catalogue in every client.
//!
//! The server is started once by the lab (raw JSON-RPC, as `measure --after` does) for the
//! reference: its `tools/list`, its instructions and its answers to the `--calls` (a JSON array
//! of `{"name"?, "tool", "arguments"?}`), in order. Each client then runs one session with the
//! same command registered under `--name`, whose scripted model makes those calls (none:
//! only the catalogue is priced), and the extraction keeps the server's parts of the requests
//! by comparing them with the reference. `--reports DIR` receives `clients/<client>.jsonl`
//! (one session, side `after`) and `clients.md`: the fingerprint matrix (fingerprints are a
//! property of the client, read from this workspace's reports) and, per client, what the
//! session paid once (names, instructions, definitions) and per call.

use std::ffi::OsString;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::capture::{self, Call, Capture, Outcome, Session, Side};
use super::reference::Reference;
use super::server::McpServer;
use super::{Client, ClientsArgs, ClientsError, driver, extract, runs};
use crate::lint::{PlannedCall, ServerCommand};
use crate::probe::Probe;
use crate::tokens::{Count, grouped as num};

/// What the server listed, its instructions, and its answers to `calls`.
pub async fn reference(server: &ServerCommand, calls: &[Call]) -> Result<Reference, ClientsError> {
    let failed = |e: crate::probe::ProbeError| ClientsError::Reference(e.to_string());
    let mut probe = Probe::start_command(server).await.map_err(failed)?;
    let instructions = probe
        .initialize
        .result
        .as_ref()
        .ok()
        .and_then(|r| r.get("instructions"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let (tools, _) = probe.tools_list().await.map_err(failed)?;
    let mut results = Vec::with_capacity(calls.len());
    for call in calls {
        let response = probe
            .call(&call.tool, &call.arguments)
            .await
            .map_err(failed)?;
        results.push(match response.result {
            Ok(result) => result,
            Err((code, message)) => json!({"jsonrpcError": format!("{code}: {message}")}),
        });
    }
    probe.close().await;
    Ok(Reference {
        tools,
        instructions,
        results,
    })
}

/// The calls of a `--calls` file, named for the capture.
pub fn calls(planned: &[PlannedCall]) -> Vec<Call> {
    planned
        .iter()
        .enumerate()
        .map(|(i, p)| Call {
            scenario: p
                .name
                .clone()
                .unwrap_or_else(|| format!("{}#{}", p.tool, i + 1)),
            tool: p.tool.clone(),
            arguments: if p.arguments.is_null() {
                json!({})
            } else {
                p.arguments.clone()
            },
            // Until the server answers it (see `command`).
            outcome: Outcome::Success,
        })
        .collect()
}

/// `modyo-lab clients --server CMD`.
pub(crate) async fn command(args: &ClientsArgs) -> Result<(), ClientsError> {
    let line = args.server.as_deref().unwrap_or_default();
    let words = shlex::split(line)
        .ok_or_else(|| ClientsError::Usage(format!("--server: unbalanced quotes in {line:?}")))?;
    let argv: Vec<OsString> = words.into_iter().map(Into::into).collect();
    let command = ServerCommand::new(argv.clone())
        .ok_or_else(|| ClientsError::Usage("--server: an empty command".into()))?;
    let server = McpServer::command(&argv)
        .ok_or_else(|| ClientsError::Usage("--server: an empty command".into()))?;
    let Some(dir) = args.reports.clone() else {
        return Err(ClientsError::Usage("--server needs --reports DIR".into()));
    };
    let planned = match &args.calls {
        Some(path) => PlannedCall::load(path).map_err(|e| ClientsError::Usage(e.to_string()))?,
        None => Vec::new(),
    };
    let mut calls = calls(&planned);
    let reference = reference(&command, &calls).await?;
    for (call, result) in calls.iter_mut().zip(&reference.results) {
        if let Some(error) = result.get("jsonrpcError") {
            return Err(ClientsError::Plan(format!(
                "{} answers {}: {error}",
                call.tool, call.scenario
            )));
        }
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            call.outcome = Outcome::Error;
        }
    }
    let lab = super::lab(args)?;
    let selected: Vec<Client> = if args.clients.is_empty() {
        Client::ALL.to_vec()
    } else {
        args.clients.clone()
    }
    .into_iter()
    .filter(|c| c.not_priced().is_none())
    .collect();
    let mut failures = Vec::new();
    let mut captures = Vec::new();
    for client in selected {
        let version = match client.driver().version(&lab.tools) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{}: {e}", client.id()));
                continue;
            }
        };
        eprintln!(
            "clients: {}: {} calls on {}",
            client.id(),
            calls.len(),
            args.name
        );
        match session(&lab, client, &server, &args.name, &reference, &calls).await {
            Ok(session) => {
                let capture = Capture {
                    header: capture::Header {
                        format: capture::FORMAT.into(),
                        client: client.id().into(),
                        name: client.name().into(),
                        package: client.package().into(),
                        version,
                        date: crate::record::today(),
                        server: args.name.clone(),
                    },
                    sessions: vec![session],
                };
                std::fs::create_dir_all(dir.join("clients"))?;
                std::fs::write(dir.join(client.capture_file()), capture.to_jsonl())?;
                captures.push(capture);
            }
            Err(e) => failures.push(format!("{}: {e}", client.id())),
        }
    }
    let fingerprints = super::load_fingerprints(&crate::report::default_dir())?;
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join(super::REPORT_MD),
        markdown(&args.name, line, &captures, &fingerprints),
    )?;
    eprintln!("clients: wrote {}", dir.join(super::REPORT_MD).display());
    if failures.is_empty() {
        Ok(())
    } else {
        Err(ClientsError::Failed(failures))
    }
}

/// One session of `client` against the foreign `server`.
async fn session(
    lab: &runs::Lab,
    client: Client,
    server: &McpServer,
    name: &str,
    reference: &Reference,
    calls: &[Call],
) -> Result<Session, ClientsError> {
    let mut script = runs::script(client, reference, calls);
    script.server = name.to_owned();
    let what = format!("{} on {name}", client.name());
    let ran = driver::run(client.driver(), &lab.tools, server, name, script, &what).await?;
    let parts = extract::extract(&ran.captured, client.driver().api(), reference, calls)?;
    Ok(Session {
        module: name.to_owned(),
        side: Side::After,
        settings: None,
        listed: reference.tools.len(),
        calls: calls.to_vec(),
        left_out: Vec::new(),
        requests: parts.requests,
        names: parts.names,
        instructions: parts.instructions,
        definitions: parts.definitions,
        results: parts.results,
    })
}

/// The report of a foreign server: the matrix, then per client what a session paid.
pub fn markdown(
    name: &str,
    command: &str,
    captures: &[Capture],
    fingerprints: &[super::Fingerprint],
) -> String {
    let mut out = format!(
        "# What real clients put in the model's context from `{name}`\n\n\
Generated by `modyo-lab clients --server {}`: each client ran headless and offline against the server and the lab's scripted model, \
which made the calls of `--calls` one per turn. Figures are tokens at 2.902 characters per token (`chars/2.902`); once: what the \
session's last request held of the server besides results (tool-name lines, instructions, definitions as the client sent them); \
per call: each result as the client forwarded it (text as text, anything else as compact JSON).\n\n",
        code_quote(command)
    );
    if !fingerprints.is_empty() {
        out.push_str(&super::fingerprint::matrix::markdown(fingerprints));
    }
    out.push_str("## Per client\n\n| client | requests | names | instructions | definitions | once | calls | per call | session |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for capture in captures {
        for s in &capture.sessions {
            let names = Count::of(&s.names.join("\n"));
            let instructions: Count = s.instructions.iter().map(|i| Count::of(i)).sum();
            let definitions: Count = s
                .definitions
                .iter()
                .map(|d| Count::of(&d.sent.to_string()))
                .sum();
            let results: Count = s
                .results
                .iter()
                .map(|r| super::report::priced(&r.sent))
                .sum();
            let once = names + instructions + definitions;
            let per_call = if s.calls.is_empty() {
                "—".to_owned()
            } else {
                num(results.per(s.calls.len() as u64).primary, 1)
            };
            let t = |c: Count| num(c.tokens_all().primary, 1);
            let _ = writeln!(
                out,
                "| {} {} | {} | {} | {} | {} | {} | {} | {per_call} | {} |",
                capture.header.name,
                capture.header.version,
                s.requests.len(),
                t(names),
                t(instructions),
                t(definitions),
                t(once),
                s.calls.len(),
                t(once + results),
            );
        }
    }
    out
}

fn code_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_named_and_get_an_object() {
        let planned: Vec<PlannedCall> = serde_json::from_value(json!([
            {"tool": "mk_ok"},
            {"name": "err", "tool": "mk_err", "arguments": {"q": "b"}}
        ]))
        .expect("calls");
        let calls = calls(&planned);
        assert_eq!(calls[0].scenario, "mk_ok#1");
        assert_eq!(calls[0].arguments, json!({}));
        assert_eq!(calls[1].scenario, "err");
    }
}
