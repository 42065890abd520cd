//! A fingerprint from a marker session's requests: for every part, the requests holding one of
//! its markers and where in them; how definitions arrive; what of a result with text and
//! `structuredContent` is sent; and whether an `isError` result is sent in a form of its own.
//!
//! Every string of a request is searched, and a string that holds JSON (an argument, a result
//! sent as a JSON string) is searched inside, its path marked `<json>`. The error flag compares
//! the item that carries the error result with the one that carries the text-only result (the
//! two children of their deepest common ancestor: two messages, two blocks, two input items)
//! with markers, tool names and words holding digits (ids, times) made equal: when they still
//! differ, the model can tell
//! the error from a success.

use std::collections::BTreeSet;

use serde_json::Value;

use super::markers::{self, Part, found, windows};
use super::prune::CACHE_MARK;
use super::{CacheMarks, Definitions, FORMAT, Fingerprint, ResultForm, Seen, Subject, Timing};

/// One step of a path into a request.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
    /// Into the JSON a string holds.
    Json,
}

/// Every string leaf of `value` with its path (strings that hold JSON walked inside).
fn leaves(value: &Value, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, String)>) {
    match value {
        Value::String(s) => {
            let trimmed = s.trim_start();
            if trimmed.starts_with(['{', '['])
                && trimmed.len() > 1
                && let Ok(inner @ (Value::Object(_) | Value::Array(_))) =
                    serde_json::from_str::<Value>(s)
            {
                path.push(Step::Json);
                leaves(&inner, path, out);
                path.pop();
                return;
            }
            out.push((path.clone(), s.clone()));
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                leaves(item, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                path.push(Step::Key(key.clone()));
                leaves(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// `$.messages[*].content<json>.m`.
fn general(path: &[Step]) -> String {
    let mut out = String::from("$");
    for step in path {
        match step {
            Step::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Index(_) => out.push_str("[*]"),
            Step::Json => out.push_str("<json>"),
        }
    }
    out
}

/// The value at `path` (strings holding JSON parsed where the path goes into them).
fn at(value: &Value, path: &[Step]) -> Option<Value> {
    let Some((step, rest)) = path.split_first() else {
        return Some(value.clone());
    };
    match step {
        Step::Key(k) => at(value.get(k)?, rest),
        Step::Index(i) => at(value.get(i)?, rest),
        Step::Json => at(&serde_json::from_str(value.as_str()?).ok()?, rest),
    }
}

/// Whether one of `part`'s markers is in `text`.
fn holds(text: &str, part: Part) -> bool {
    part.markers().iter().any(|m| found(text, m))
}

/// The timing of a part found in `requests` of `total`.
pub(crate) fn timing(requests: &[usize], total: usize) -> Timing {
    match requests.first() {
        None => Timing::Absent,
        Some(&first) if requests.len() == total + 1 - first && requests.last() == Some(&total) => {
            if first == 1 {
                Timing::Every
            } else {
                Timing::From { first }
            }
        }
        Some(_) => Timing::Some,
    }
}

/// A string cut to 60 characters around its markers.
fn example(text: &str) -> String {
    let pieces = windows(text, 60);
    if pieces.len() == 1 && pieces[0] == text {
        return text.to_owned();
    }
    let mut out = pieces.join(" … ");
    if !text.starts_with(pieces.first().copied().unwrap_or_default()) {
        out.insert_str(0, "… ");
    }
    if !text.ends_with(pieces.last().copied().unwrap_or_default()) {
        out.push_str(" …");
    }
    out
}

/// The fingerprint of a marker session's `requests` (path, body), in order.
pub(crate) fn derive(subject: &Subject, requests: &[(String, Value)]) -> Fingerprint {
    let total = requests.len();
    let found: Vec<Vec<(Vec<Step>, String)>> = requests
        .iter()
        .map(|(_, body)| {
            let mut out = Vec::new();
            leaves(body, &mut Vec::new(), &mut out);
            out
        })
        .collect();
    // The `mk_jerr` probe is younger than the other markers: a session that never listed it
    // (a marker capture from before it) has no verdict on it, rather than "never reached".
    let probed_schema_errors = found
        .iter()
        .flatten()
        .any(|(_, text)| markers::found(text, "mk_jerr"));
    let parts: Vec<Seen> = Part::ALL
        .iter()
        .filter(|&&part| part != Part::SchemaErrorText || probed_schema_errors)
        .map(|&part| {
            let mut in_requests = Vec::new();
            let mut paths: Vec<String> = Vec::new();
            let mut first_example = None;
            for (n, strings) in found.iter().enumerate() {
                let mut hit = false;
                for (path, text) in strings.iter().filter(|(_, t)| holds(t, part)) {
                    hit = true;
                    let general = general(path);
                    if !paths.contains(&general) {
                        paths.push(general);
                    }
                    first_example.get_or_insert_with(|| example(text));
                }
                if hit {
                    in_requests.push(n + 1);
                }
            }
            Seen {
                part,
                timing: timing(&in_requests, total),
                requests: in_requests,
                paths,
                example: first_example,
            }
        })
        .collect();
    let requests_of = |part: Part| -> &[usize] {
        parts
            .iter()
            .find(|s| s.part == part)
            .map_or(&[], |s| s.requests.as_slice())
    };
    let definitions = match timing(requests_of(Part::Description), total) {
        Timing::Every => Definitions::EveryRequest,
        Timing::From { .. } => Definitions::OnDemand {
            names_first: requests_of(Part::Names).first() == Some(&1),
        },
        Timing::Some => Definitions::Some,
        Timing::Absent => Definitions::Never,
    };
    let last = found.last().map(Vec::as_slice).unwrap_or_default();
    let in_last = |part: Part| last.iter().any(|(_, t)| holds(t, part));
    let result = match (in_last(Part::Text), in_last(Part::StructuredContent)) {
        (true, true) => ResultForm::WholeResult,
        (true, false) => ResultForm::Text,
        (false, true) if in_last(Part::TextOnly) => ResultForm::StructuredElseText,
        _ => ResultForm::Other,
    };
    let body = requests.last().map(|(_, b)| b).unwrap_or(&Value::Null);
    Fingerprint {
        format: FORMAT.into(),
        subject: subject.clone(),
        requests: total,
        definitions,
        result,
        error_flag: error_flag(body, last),
        parts,
        cache_marks: cache_marks(requests),
    }
}

/// Where the requests mark prompt-cache breakpoints: the objects holding a `cache_control`.
fn cache_marks(requests: &[(String, Value)]) -> CacheMarks {
    fn walk(value: &Value, path: &mut Vec<Step>, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if map.contains_key(CACHE_MARK) {
                    let general = general(path);
                    if !out.contains(&general) {
                        out.push(general);
                    }
                }
                for (key, item) in map {
                    path.push(Step::Key(key.clone()));
                    walk(item, path, out);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(Step::Index(i));
                    walk(item, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut marks = CacheMarks::default();
    for (n, (_, body)) in requests.iter().enumerate() {
        let mut paths = Vec::new();
        walk(body, &mut Vec::new(), &mut paths);
        if !paths.is_empty() {
            marks.requests.push(n + 1);
        }
        for path in paths {
            if !marks.paths.contains(&path) {
                marks.paths.push(path);
            }
        }
    }
    marks
}

/// Whether the item carrying the error result differs from the one carrying the text-only
/// result once markers, tool names and digits are made equal.
fn error_flag(body: &Value, leaves: &[(Vec<Step>, String)]) -> bool {
    let path_of = |part: Part| {
        leaves
            .iter()
            .find(|(_, t)| holds(t, part))
            .map(|(p, _)| p.clone())
    };
    let (Some(error), Some(text)) = (path_of(Part::ErrorText), path_of(Part::TextOnly)) else {
        return false;
    };
    let common = error.iter().zip(&text).take_while(|(a, b)| a == b).count();
    if common >= error.len() || common >= text.len() {
        return false;
    }
    let item = |path: &[Step]| at(body, &path[..=common]).map(|v| normalized(&v));
    item(&error) != item(&text)
}

/// `value` with markers, marker tool names and words holding digits made equal.
fn normalized(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(normal_text(s)),
        Value::Array(items) => Value::Array(items.iter().map(normalized).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), normalized(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn normal_text(text: &str) -> String {
    let mut out = text.to_owned();
    let markers: BTreeSet<&str> = Part::ALL
        .iter()
        .flat_map(|p| p.markers())
        .copied()
        .collect();
    // Longest first, so MARK_PROMPT_DESC is replaced before MARK_PROMPT.
    let mut markers: Vec<&str> = markers.into_iter().collect();
    markers.sort_by_key(|m| std::cmp::Reverse(m.len()));
    for m in markers {
        out = out.replace(m, if m.starts_with("MARK_") { "MARK" } else { "mk" });
    }
    // Every word with a digit in it (an id, a time, a count) is the same word.
    let mut normal = String::with_capacity(out.len());
    let mut word = String::new();
    let flush = |word: &mut String, normal: &mut String| {
        if word.chars().any(|c| c.is_ascii_digit()) {
            normal.push('#');
        } else {
            normal.push_str(word);
        }
        word.clear();
    };
    for c in out.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            word.push(c);
        } else {
            flush(&mut word, &mut normal);
            normal.push(c);
        }
    }
    flush(&mut word, &mut normal);
    normal
}

#[cfg(test)]
#[path = "analysis_tests.rs"]
mod tests;
