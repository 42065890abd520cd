//! What a capture shows a client does, in words for `reports/clients.md`: what it sends once,
//! what it sends per call, and what else was observed (the definitions it keeps, the result
//! parts it forwards, its cache marks).

use std::collections::{BTreeMap, BTreeSet};

use super::capture::{Capture, Forwarded, Side};
use super::fingerprint::{Fingerprint, ResultForm};

/// `a, b and c`.
fn list(items: &[String]) -> String {
    match items {
        [] => "nothing".into(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn quoted(items: impl IntoIterator<Item = impl AsRef<str>>) -> Vec<String> {
    items
        .into_iter()
        .map(|i| format!("`{}`", i.as_ref()))
        .collect()
}

/// The sides the report describes: before and after, and recommended when a session ran it.
fn sides(capture: &Capture) -> Vec<Side> {
    Side::ALL
        .into_iter()
        .filter(|side| {
            *side != Side::Recommended || capture.sessions.iter().any(|s| s.side == *side)
        })
        .collect()
}

/// Every session's definitions are exactly of the tools it called.
fn definitions_of_used_tools(capture: &Capture) -> bool {
    capture.sessions.iter().all(|s| {
        let defined: BTreeSet<&str> = s.definitions.iter().map(|d| d.tool.as_str()).collect();
        let used: BTreeSet<&str> = s.calls.iter().map(|c| c.tool.as_str()).collect();
        defined == used
    })
}

/// Every request of every session defines every listed tool.
fn definitions_of_every_tool(capture: &Capture) -> bool {
    capture.sessions.iter().all(|s| {
        s.definitions.len() == s.listed && s.requests.iter().all(|r| r.definitions == s.listed)
    })
}

/// What a session pays once, in a phrase (for the module reports).
pub(super) fn once_phrase(capture: &Capture) -> String {
    let sessions = &capture.sessions;
    let mut parts = Vec::new();
    if sessions.iter().all(|s| !s.names.is_empty()) {
        parts.push("tool names".to_owned());
    }
    if sessions.iter().all(|s| !s.instructions.is_empty()) {
        parts.push("instructions".to_owned());
    }
    let schema = sessions
        .iter()
        .filter(|s| s.side == Side::After)
        .flat_map(|s| &s.definitions)
        .any(|d| d.carries.iter().any(|c| c == "outputSchema"));
    let schema = if schema { "with" } else { "without" };
    if definitions_of_used_tools(capture) && !definitions_of_every_tool(capture) {
        parts.push(format!(
            "definitions of the tools used ({schema} outputSchema)"
        ));
    } else {
        parts.push(format!("every tool's definition ({schema} outputSchema)"));
    }
    list(&parts)
}

/// What a session pays per call, in a phrase (for the module reports): what the fingerprint
/// says the client forwards of a result, else what the capture shows.
pub(super) fn per_call_phrase(capture: &Capture, fingerprint: Option<&Fingerprint>) -> String {
    if let Some(f) = fingerprint {
        return match f.result {
            ResultForm::Text => "content[].text".into(),
            ResultForm::StructuredElseText => {
                "structuredContent as compact JSON (content[].text when a result has none)".into()
            }
            ResultForm::WholeResult => "the whole result".into(),
            ResultForm::Other => {
                "the result, in a form of the client's own (see clients.md)".into()
            }
        };
    }
    let kinds: BTreeSet<Forwarded> = capture
        .sessions
        .iter()
        .flat_map(|s| s.results.iter().map(|r| r.forwarded))
        .collect();
    match kinds.iter().copied().collect::<Vec<_>>().as_slice() {
        [Forwarded::Text] => "content[].text".into(),
        [Forwarded::Result] => "the whole result".into(),
        _ => "the result, in several forms (see clients.md)".into(),
    }
}

/// What reached the model, in sentences, from the capture and the client's fingerprint.
pub(super) fn observe(capture: &Capture, fingerprint: Option<&Fingerprint>) -> Vec<String> {
    let sessions = &capture.sessions;
    let mut out = Vec::new();
    let firsts: Vec<_> = sessions.iter().filter_map(|s| s.requests.first()).collect();
    let requests: usize = sessions.iter().map(|s| s.requests.len()).sum();
    let modules: BTreeSet<&str> = sessions.iter().map(|s| s.module.as_str()).collect();
    let recommended = sessions
        .iter()
        .filter(|s| s.side == Side::Recommended)
        .count();
    out.push(format!(
        "{} sessions ({} modules, before and after{}), {requests} requests to the model.",
        sessions.len(),
        modules.len(),
        if recommended > 0 {
            format!(", {recommended} under the recommended settings")
        } else {
            String::new()
        }
    ));
    // Names.
    if firsts.iter().all(|f| f.names > 0) {
        let example = sessions
            .iter()
            .find_map(|s| s.names.first())
            .cloned()
            .unwrap_or_default();
        let all_listed = sessions.iter().all(|s| s.names.len() == s.listed);
        out.push(format!(
            "Tool names: from the first request of every session, {} of our tools by name, one line each (`{example}`), in a message of the client's own; the name list is paid once.",
            if all_listed { "every one" } else { "some" },
        ));
    } else if sessions.iter().all(|s| s.names.is_empty()) {
        out.push("Tool names: no separate list; the names are part of the definitions.".into());
    }
    // Definitions.
    let used_only = definitions_of_used_tools(capture);
    let every_listed = definitions_of_every_tool(capture);
    let none_first = firsts.iter().all(|f| f.definitions == 0);
    let kept = sessions.iter().all(|s| {
        s.requests
            .windows(2)
            .all(|w| w[0].definitions <= w[1].definitions)
    });
    if none_first && used_only && kept {
        out.push("Definitions: none in the first request; a tool's definition arrives when the session loads it and stays, so the session ends with the definitions of the tools it used, each once.".into());
    } else if every_listed {
        out.push("Definitions: every tool the server lists, in every request.".into());
    } else {
        out.push("Definitions: some of our tools, varying by request (see the capture).".into());
    }
    let keys: BTreeSet<&str> = sessions
        .iter()
        .flat_map(|s| &s.definitions)
        .filter_map(|d| d.sent.as_object())
        .flat_map(|o| o.keys().map(String::as_str))
        .collect();
    for side in sides(capture) {
        let carried: BTreeSet<&str> = sessions
            .iter()
            .filter(|s| s.side == side)
            .flat_map(|s| &s.definitions)
            .flat_map(|d| d.carries.iter().map(String::as_str))
            .collect();
        let ordered: Vec<&str> = super::extract::TOOL_FIELDS
            .into_iter()
            .filter(|f| carried.contains(f))
            .collect();
        let with_schema: usize = sessions
            .iter()
            .filter(|s| s.side == side)
            .flat_map(|s| &s.definitions)
            .filter(|d| d.carries.iter().any(|c| c == "outputSchema"))
            .count();
        let definitions: usize = sessions
            .iter()
            .filter(|s| s.side == side)
            .map(|s| s.definitions.len())
            .sum();
        out.push(format!(
            "Fields of our tools the definitions carry, {}: {} (outputSchema in {with_schema} of {definitions} definitions).",
            side.as_str(),
            list(&quoted(ordered)),
        ));
    }
    out.push(format!(
        "Definition keys as the client sends them: {}.",
        list(&quoted(keys))
    ));
    // Results: which part the client reads is the fingerprint's to say; ours cannot tell text
    // from structuredContent, whose compact JSON our migrated text is.
    if let Some(f) = fingerprint {
        let file = super::Client::from_id(&capture.header.client)
            .map(super::Client::fingerprint_file)
            .unwrap_or_default();
        out.push(format!(
            "What of a result with both text and structuredContent reaches the model, from the fingerprint ([{file}]({file})): {}{}.",
            match f.result {
                ResultForm::Text => "content[].text",
                ResultForm::StructuredElseText =>
                    "the compact JSON of structuredContent, without the text (content[].text only when a result has no structuredContent)",
                ResultForm::WholeResult => "the whole result, text and structuredContent",
                ResultForm::Other => "neither as such (see the matrix)",
            },
            if f.error_flag {
                "; an `isError` result in a form of its own"
            } else {
                "; an `isError` result in the shape of a success"
            }
        ));
        out.push(if f.cache_marks.any() {
            format!(
                "Prompt-cache breakpoints, from the fingerprint: marked (`cache_control` on {}), so what the previous request already sent is billed at the cache-read rate: the bill lies between the final context and the billed input.",
                list(&quoted(&f.cache_marks.paths))
            )
        } else {
            "Prompt-cache breakpoints, from the fingerprint: none marked; the billed input is the bill unless the provider caches on its own.".to_owned()
        });
    }
    let mut kinds: BTreeMap<(Side, Forwarded), usize> = BTreeMap::new();
    for s in sessions {
        for r in &s.results {
            *kinds.entry((s.side, r.forwarded)).or_default() += 1;
        }
    }
    for side in sides(capture) {
        let of_side: Vec<String> = kinds
            .iter()
            .filter(|((s, _), _)| *s == side)
            .map(|((_, kind), n)| format!("{} for {n} calls", kind.describe()))
            .collect();
        out.push(format!(
            "Results as sent, {}: {}.",
            side.as_str(),
            list(&of_side)
        ));
    }
    // Instructions.
    let copies: BTreeSet<usize> = sessions.iter().map(|s| s.instructions.len()).collect();
    out.push(
        match copies.iter().copied().collect::<Vec<_>>().as_slice() {
            [0] => "Our server's instructions: not forwarded.".into(),
            [1] => {
                "Our server's instructions: once per session, in the client's own prompt.".into()
            }
            other => format!("Our server's instructions: {other:?} copies per session."),
        },
    );
    out
}
