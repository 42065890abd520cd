//! What of a client's requests is ours, found by content: the requests are compared with the
//! reference (what our server listed and answered), whatever API the client speaks.
//!
//! The API says where tools are declared, where results and calls sit and which texts the model
//! reads ([`Api`]); which of them are ours is decided here: a declared tool is ours when its
//! name resolves to one of our tools (the name itself, or a prefixed form such as
//! `mcp__modyo-offline__<tool>`), a result is ours when it answers one of the planned calls (by
//! the call ids the scripted model gave), a line of text names our tool when its first word is
//! one of those names, and our instructions are every copy of them (whole, or their beginning
//! cut short) in any text of the request outside our definitions and results. From the last request that holds a result for every
//! call (the context the session ended with) the parts are kept as sent; every request of the
//! conversation leaves its [`Shape`].

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::ClientsError;
use super::api::{Api, resolve};
use super::capture::{self, Call, Definition, Forwarded, Shape};
use super::endpoint::Captured;
use super::reference::Reference;

/// Our tool's fields a definition can carry, in the order reports list them.
pub(crate) const TOOL_FIELDS: [&str; 5] = [
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "title",
];

/// Our parts of one session's requests.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Parts {
    /// Every request of the conversation, in order.
    pub(crate) requests: Vec<Shape>,
    /// Lines naming our tools, in the last request.
    pub(crate) names: Vec<String>,
    /// Copies of our instructions in the last request.
    pub(crate) instructions: Vec<String>,
    /// Our definitions in the last request.
    pub(crate) definitions: Vec<Definition>,
    /// The results of the calls in the last request, in call order.
    pub(crate) results: Vec<capture::Result>,
}

/// Our parts of a session's requests (`captured`, in arrival order) to a client speaking
/// `api`, for `calls` answered by `reference`.
pub(crate) fn extract(
    captured: &[Captured],
    api: Api,
    reference: &Reference,
    calls: &[Call],
) -> Result<Parts, ClientsError> {
    let tools: Vec<String> = reference
        .tool_names()
        .into_iter()
        .map(str::to_owned)
        .collect();
    let conversation: Vec<&Value> = captured
        .iter()
        .filter(|c| api.serves(&c.path))
        .map(|c| &c.body)
        .filter(|body| {
            let view = api.view(body);
            !view.declared.is_empty() || view.search
        })
        .collect();
    let ids: Vec<String> = (0..calls.len()).map(|i| api.call_id(i)).collect();
    let answered = |body: &Value| -> usize {
        let got: BTreeSet<String> = api.results(body).into_iter().map(|r| r.id).collect();
        ids.iter().filter(|id| got.contains(*id)).count()
    };
    let Some(last) = conversation.iter().rev().find(|b| answered(b) == ids.len()) else {
        let most = conversation.iter().map(|b| answered(b)).max().unwrap_or(0);
        return Err(ClientsError::Incomplete(format!(
            "{} requests captured ({} of the conversation); at most {most} of {} calls had a result",
            captured.len(),
            conversation.len(),
            ids.len()
        )));
    };
    let requests = conversation
        .iter()
        .map(|body| {
            let found = Found::of(body, api, &tools, &reference.instructions);
            Shape {
                names: found.names.len(),
                definitions: found.definitions.len(),
                results: answered(body),
                instructions: found.instructions.len(),
            }
        })
        .collect();
    let found = Found::of(last, api, &tools, &reference.instructions);
    let definitions = found
        .definitions
        .iter()
        .map(|(tool, sent)| Definition {
            tool: (*tool).to_owned(),
            carries: reference
                .tool(tool)
                .map(|t| carries(t, sent))
                .unwrap_or_default(),
            sent: (*sent).clone(),
        })
        .collect();
    let made: BTreeMap<String, String> = api.calls(last).into_iter().collect();
    let mut returned: BTreeMap<String, &Value> = api
        .results(last)
        .into_iter()
        .map(|r| (r.id, r.sent))
        .collect();
    let mut results = Vec::with_capacity(calls.len());
    for (i, (call, id)) in calls.iter().zip(&ids).enumerate() {
        let name = made.get(id).map(String::as_str).unwrap_or_default();
        if resolve(name, &tools) != Some(call.tool.as_str()) {
            return Err(ClientsError::Incomplete(format!(
                "call {id} ({}) is not a use of {} in the last request (it calls {name:?})",
                call.scenario, call.tool
            )));
        }
        let sent = steady(returned.remove(id).unwrap_or(&Value::Null));
        let forwarded = reference
            .results
            .get(i)
            .map_or(Forwarded::Other, |r| forwarded(r, &sent));
        results.push(capture::Result {
            call: i,
            tool: call.tool.clone(),
            forwarded,
            sent,
        });
    }
    Ok(Parts {
        requests,
        names: found.names.into_iter().map(str::to_owned).collect(),
        instructions: found.instructions,
        definitions,
        results,
    })
}

/// Our parts found in one request.
struct Found<'a> {
    names: Vec<&'a str>,
    instructions: Vec<String>,
    definitions: Vec<(&'a str, &'a Value)>,
}

impl<'a> Found<'a> {
    fn of(body: &'a Value, api: Api, tools: &'a [String], instructions: &str) -> Found<'a> {
        let definitions: Vec<(&str, &Value)> = api
            .declarations(body)
            .into_iter()
            .filter_map(|(d, sent)| Some((resolve(&d.name, tools)?, sent)))
            .collect();
        let mut skip: BTreeSet<*const Value> = definitions
            .iter()
            .map(|(_, v)| *v as *const Value)
            .collect();
        skip.extend(api.results(body).iter().map(|r| r.sent as *const Value));
        let mut strings = Vec::new();
        leaves(body, &skip, &mut strings);
        let instructions = occurrences(&strings, instructions);
        let names = api
            .texts(body)
            .into_iter()
            .flat_map(|t| without(t, &instructions))
            .flat_map(str::lines)
            .filter(|line| names_tool(line, tools))
            .collect();
        Found {
            names,
            instructions,
            definitions,
        }
    }
}

/// The pieces of `text` around the copies of our instructions (longest copies first).
fn without<'a>(text: &'a str, instructions: &[String]) -> Vec<&'a str> {
    let mut copies: Vec<&str> = instructions
        .iter()
        .map(String::as_str)
        .filter(|c| !c.is_empty())
        .collect();
    copies.sort_by_key(|c| std::cmp::Reverse(c.len()));
    copies.dedup();
    let mut pieces = vec![text];
    for copy in copies {
        pieces = pieces.into_iter().flat_map(|p| p.split(copy)).collect();
    }
    pieces
}

/// Whether a line's first word (after a list marker) is one of our tools' names as the client
/// writes it.
fn names_tool(line: &str, tools: &[String]) -> bool {
    let line = line.trim_start();
    let line = ["- ", "* ", "• "]
        .iter()
        .find_map(|m| line.strip_prefix(m))
        .unwrap_or(line);
    let word = line
        .split(|c: char| c.is_whitespace() || matches!(c, ':' | '(' | ',' | '`'))
        .find(|w| !w.is_empty())
        .unwrap_or_default();
    resolve(word, tools).is_some()
}

/// Every string of `value` outside the subtrees in `skip`.
fn leaves<'a>(value: &'a Value, skip: &BTreeSet<*const Value>, out: &mut Vec<&'a str>) {
    if skip.contains(&(value as *const Value)) {
        return;
    }
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| leaves(v, skip, out)),
        Value::Object(map) => map.values().for_each(|v| leaves(v, skip, out)),
        _ => {}
    }
}

/// `value` with what a client writes differently every run made steady: Codex prefixes each
/// result with the call's wall time (`Wall time: 0.0149 seconds`), written as `0.0000`.
pub(crate) fn steady(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(steady_text(s)),
        Value::Array(items) => Value::Array(items.iter().map(steady).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), steady(v))).collect())
        }
        other => other.clone(),
    }
}

fn steady_text(text: &str) -> String {
    const MARK: &str = "Wall time";
    if !text.contains(MARK) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        let (head, tail) = rest.split_at(at + MARK.len());
        out.push_str(head);
        let sep = tail
            .find(|c: char| c.is_ascii_digit())
            .filter(|&i| tail[..i].chars().all(|c| c == ':' || c == ' '));
        match sep {
            Some(i) => {
                out.push_str(&tail[..i]);
                let digits = tail[i..]
                    .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                    .unwrap_or(tail.len() - i);
                out.push_str("0.0000");
                rest = &tail[i + digits..];
            }
            None => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

/// The fields of `ours` (a `tools/list` entry) whose value appears as one of `sent`'s
/// top-level values, whatever the client renamed them to (or, for a definition wrapped as
/// Chat Completions does, as one of its `function`'s).
pub(crate) fn carries(ours: &Value, sent: &Value) -> Vec<String> {
    let sent = match sent.get("function") {
        Some(function) if function.is_object() => function,
        _ => sent,
    };
    let Some(sent) = sent.as_object() else {
        return Vec::new();
    };
    TOOL_FIELDS
        .iter()
        .filter(|field| {
            ours.get(**field)
                .is_some_and(|value| sent.values().any(|v| v == value))
        })
        .map(|field| (*field).to_owned())
        .collect()
}

/// What of `result` (our `tools/call` result) `sent` is.
pub(crate) fn forwarded(result: &Value, sent: &Value) -> Forwarded {
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    let sent_texts: Option<Vec<&str>> = match sent {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(blocks) => blocks
            .iter()
            .map(
                |b| match (b.get("type").and_then(Value::as_str), b.get("text")) {
                    (Some("text" | "input_text"), Some(Value::String(t))) => Some(t.as_str()),
                    _ => None,
                },
            )
            .collect(),
        _ => None,
    };
    if sent_texts.is_some_and(|s| s == texts) {
        return Forwarded::Text;
    }
    if sent == result
        || sent.get("error") == Some(result) && sent.as_object().map(|o| o.len()) == Some(1)
    {
        return Forwarded::Result;
    }
    let structured = result.get("structuredContent");
    // Ours is there when the beginning of one of our texts, or of our structured content's
    // JSON, is (half of it, at most 40 characters), compared bare: without whitespace, quotes,
    // escapes and non-ASCII, so a result written again by the client (pretty or compact, as JSON
    // inside its own JSON, behind a prefix of its own, cut short) is still found.
    let head = |text: &str| -> Option<String> {
        let bare = bare(text);
        let n = bare.chars().count().div_ceil(2).min(40);
        (n > 0).then(|| bare.chars().take(n).collect())
    };
    let mut heads: Vec<String> = texts.iter().filter_map(|t| head(t)).collect();
    heads.extend(structured.and_then(|s| head(&s.to_string())));
    if heads.is_empty() || structured.is_some_and(|s| holds_value(sent, s)) {
        return Forwarded::Other;
    }
    let sent = bare(&sent.to_string());
    if heads.iter().any(|h| sent.contains(h.as_str())) {
        Forwarded::Other
    } else {
        Forwarded::Replaced
    }
}

/// Whether `needle` is `value` or one of its members or items, at any depth.
fn holds_value(value: &Value, needle: &Value) -> bool {
    value == needle
        || match value {
            Value::Array(items) => items.iter().any(|v| holds_value(v, needle)),
            Value::Object(map) => map.values().any(|v| holds_value(v, needle)),
            _ => false,
        }
}

/// `text` without whitespace, quotes, backslashes (and the escape a run of them starts:
/// `\\n`, `\\u00f1`) or non-ASCII characters: the same for a JSON text at any depth of
/// escaping.
fn bare(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c == '\\' {
            while chars.get(i) == Some(&'\\') {
                i += 1;
            }
            match chars.get(i) {
                Some('n' | 't' | 'r') => i += 1,
                Some('u')
                    if chars
                        .get(i + 1..i + 5)
                        .is_some_and(|h| h.iter().all(char::is_ascii_hexdigit)) =>
                {
                    i += 5;
                }
                _ => {}
            }
        } else if !(c.is_whitespace() || c == '"' || !c.is_ascii()) {
            out.push(c);
        }
    }
    out
}

/// A cut copy of our instructions counts when it holds at least this many of their first
/// characters (Codex lists a server's instructions cut to a line, ending `...`).
const CUT_COPY: usize = 40;

/// Every copy of `needle` in `texts`: the whole of it, or its beginning cut short (at least
/// [`CUT_COPY`] characters of it), as found.
pub(crate) fn occurrences(texts: &[&str], needle: &str) -> Vec<String> {
    if needle.is_empty() {
        return Vec::new();
    }
    let head: String = needle.chars().take(CUT_COPY).collect();
    let mut out = Vec::new();
    for text in texts {
        let mut rest = *text;
        while let Some(at) = rest.find(head.as_str()) {
            let from = &rest[at..];
            let agree: usize = from
                .char_indices()
                .zip(needle.chars())
                .take_while(|((_, a), b)| a == b)
                .last()
                .map_or(0, |((i, c), _)| i + c.len_utf8());
            out.push(from[..agree].to_owned());
            rest = &from[agree.max(head.len())..];
        }
    }
    out
}

#[cfg(test)]
#[path = "extract_tests.rs"]
mod tests;
