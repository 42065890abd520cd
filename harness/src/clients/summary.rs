//! `reports/clients.md` and `clients.json` as a whole: the fingerprint matrix and a break-even
//! table across clients first, then the per-client pricing the [`report`](super::report)
//! writes, then the clients that were fingerprinted only or not run, with why. Everything is a
//! function of the committed captures and fingerprints.

use std::fmt::Write as _;

use super::Client;
use super::capture::Capture;
use super::fingerprint::{Fingerprint, matrix};
use super::recommend::{self, Recommendation};
use super::report::{self, ClientsReport};
use super::report_recommended;

/// What the recommendation table of `clients.md` is; which sessions are priced under it
/// follows ([`report_recommended::priced_sentence`]).
const RECOMMENDED_LEAD: &str = "## Recommended settings per client\n\n\
The server settings (C22: `MODYO_RESULTS`, `MODYO_OUTPUT_SCHEMA`) under which each fingerprinted client reads our answers \
cheapest without losing anything, derived from its fingerprint alone (`harness/src/clients/recommend.rs`): a client that \
reads only the text gets `text`; one that forwards the whole result gets `text` too, so the payload reaches the model once; \
one that reads `structuredContent` keeps the default; an `outputSchema` that reaches the model is turned off. ";

/// Clients tried and not run: the client, and what was tried and why it did not run.
pub(crate) const TRIED: &[(&str, &str)] = &[];

/// The clients without a priced capture, with why: fingerprinted only, not captured yet, or
/// tried and not run ([`TRIED`]).
pub(crate) fn not_run(
    captures: &[(String, Capture)],
    fingerprints: &[Fingerprint],
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for client in Client::ALL {
        if captures.iter().any(|(_, c)| c.header.client == client.id()) {
            continue;
        }
        let fingerprinted = fingerprints.iter().any(|f| f.subject.client == client.id());
        let why = match (client.not_priced(), fingerprinted) {
            (Some(why), true) => format!(
                "Fingerprinted (see the matrix), not priced: {why}. How it ran: {}",
                client.method()
            ),
            (Some(why), false) => {
                format!("Not priced: {why}; no fingerprint yet: run `make clients`.")
            }
            (None, _) => format!(
                "No capture yet (`{}`): run `make clients`.",
                client.capture_file()
            ),
        };
        out.push((client.name().to_owned(), why));
    }
    out.extend(
        TRIED
            .iter()
            .map(|(client, why)| ((*client).to_owned(), format!("Tried, not run: {why}"))),
    );
    out
}

/// The break-even of every priced client per module (chars/2.902), by billed input and by final
/// context, with the final context's change, under the defaults (`both`) and, beside it, under
/// the client's recommended settings.
fn break_even(report: &ClientsReport) -> String {
    let mut modules: Vec<&str> = report
        .clients
        .iter()
        .flat_map(|c| c.modules.iter().map(|m| m.module.as_str()))
        .collect();
    modules.sort_unstable();
    modules.dedup();
    if modules.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "## Break-even per module and client\n\n\
The number of calls from which the migrated session costs less than the legacy one in each client (chars/2.902; 0: from the \
first call; never: the migrated calls are not cheaper), by billed input (the headline, in bold) / by final context, and, in \
brackets, how much the session's final context changed, after against before; each client's section below has the figures. \
Per module, under the defaults (`both`) and, in the column \"recommended\", under the settings recommended for the client \
(\"= after (defaults)\": the recommendation is the defaults; \"not captured\": the capture has no session under them yet).\n\n\
| client | recommended settings |",
    );
    for m in &modules {
        let _ = write!(out, " {m} (both) | {m} (recommended) |");
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---:|".repeat(2 * modules.len()));
    out.push('\n');
    for c in &report.clients {
        let _ = write!(
            out,
            "| {} | {} |",
            c.label(),
            report_recommended::settings_cell(c)
        );
        for module in &modules {
            let cell =
                c.modules
                    .iter()
                    .find(|m| m.module == *module)
                    .map_or("—".to_owned(), |m| {
                        let n = |calls: Option<u64>| {
                            calls.map_or("never".to_owned(), |n| n.to_string())
                        };
                        let calls = format!(
                            "**{}** / {}",
                            n(m.billed_break_even_calls.primary),
                            n(m.break_even_calls.primary)
                        );
                        match m.delta.percent {
                            Some(p) => {
                                format!("{calls} ({}{:.1}%)", if p >= 0.0 { "+" } else { "" }, p)
                            }
                            None => calls,
                        }
                    });
            let recommended =
                report_recommended::break_even_cell(c.modules.iter().find(|m| m.module == *module));
            let _ = write!(out, " {cell} | {recommended} |");
        }
        out.push('\n');
    }
    out.push('\n');
    out
}

/// `clients.md`: the report's text with the matrix and the break-even table before its first
/// section.
pub(crate) fn markdown(
    report: &ClientsReport,
    fingerprints: &[Fingerprint],
    not_run: &[(String, String)],
) -> String {
    let text = report::markdown(report, not_run);
    let mut inserted = String::new();
    if !fingerprints.is_empty() {
        inserted.push_str(&matrix::markdown(fingerprints));
        inserted.push_str(RECOMMENDED_LEAD);
        inserted.push_str(&report_recommended::priced_sentence(&report.clients));
        inserted.push_str("\n\n");
        inserted.push_str(&recommend::markdown(fingerprints, &report.clients));
        inserted.push('\n');
    }
    inserted.push_str(&break_even(report));
    match text.find("\n## ") {
        Some(at) => format!("{}\n{inserted}{}", &text[..at], &text[at + 1..]),
        None => format!("{text}\n{inserted}"),
    }
}

/// `clients.json`: the report with the fingerprints beside its clients.
pub(crate) fn json(report: &ClientsReport, fingerprints: &[Fingerprint]) -> String {
    #[derive(serde::Serialize)]
    struct Whole<'a> {
        #[serde(flatten)]
        report: &'a ClientsReport,
        fingerprints: &'a [Fingerprint],
        recommendations: Vec<Recommendation>,
    }
    let mut text = serde_json::to_string_pretty(&Whole {
        report,
        fingerprints,
        recommendations: fingerprints.iter().map(recommend::recommend).collect(),
    })
    .unwrap_or_else(|_| report::json(report));
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::api::Api;
    use crate::clients::fingerprint::{MarkerCapture, Subject};
    use serde_json::json;

    fn fingerprint() -> Fingerprint {
        MarkerCapture {
            subject: Subject {
                client: "codex-code".into(),
                name: "Codex CLI (default model: code mode)".into(),
                registry: "npm".into(),
                package: "@openai/codex".into(),
                version: "1".into(),
                date: "2026-12-01".into(),
                api: Api::Responses,
            },
            requests: vec![(
                "/v1/responses".into(),
                json!({"input": [{"type": "message", "content": "MARK_INSTR"}]}),
            )],
        }
        .fingerprint()
    }

    #[test]
    fn the_matrix_comes_first_and_every_client_without_a_capture_says_why() {
        let report = report::build(&[], &[]).expect("an empty report");
        let fingerprints = [fingerprint()];
        let not_run = not_run(&[], &fingerprints);
        assert_eq!(not_run.len(), Client::ALL.len());
        let (_, why) = not_run
            .iter()
            .find(|(name, _)| name == "Codex CLI (default model: code mode)")
            .expect("listed");
        assert!(
            why.starts_with("Fingerprinted (see the matrix), not priced"),
            "{why}"
        );
        let md = markdown(&report, &fingerprints, &not_run);
        let matrix = md.find("## What reaches the model").expect("the matrix");
        let first = md.find("## Claude Code: not measured").expect("a client");
        assert!(
            md.starts_with("# What real clients") && matrix < first,
            "{md}"
        );
        let back: serde_json::Value =
            serde_json::from_str(&json(&report, &fingerprints)).expect("clients.json parses");
        assert_eq!(back["fingerprints"][0]["client"], "codex-code");
        assert_eq!(back["format"], report::FORMAT);
    }
}
