//! Near-miss diagnostics: when no recorded interaction matches, say which came closest and
//! exactly which parts differed (method, path segment, query key, body field), or that the
//! match was already played as many times as it was recorded.
//!
//! Each recorded request key gets a score (lower is closer): 2 for the method, 3 per path
//! segment, 1 per query key, 1 per top-level body field (2 when the body kinds differ). The
//! three lowest are reported, ties in mount order, so the text is deterministic.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use super::ledger::{Ledger, Sequence};
use super::request::{ReceivedBody, ReceivedRequest, RequestKey, body_summary, json_summary};

/// How many candidates a diagnostic lists.
const TOP: usize = 3;
/// How many cassette names a diagnostic lists before "and N more".
const NAMED_CASSETTES: usize = 5;
/// Values longer than this are cut in diagnostics.
const MAX_VALUE_CHARS: usize = 60;

/// A request no recorded interaction answered. Its `Display` is the diagnostic: the request,
/// then the closest recorded interactions and how each differs.
#[derive(Debug, Clone, PartialEq)]
pub struct Miss {
    request: ReceivedRequest,
    diagnostic: String,
}

impl Miss {
    /// The request that missed.
    pub fn request(&self) -> &ReceivedRequest {
        &self.request
    }
}

impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic)
    }
}

/// Builds the diagnostic for `request` against everything mounted in `ledger`.
pub(crate) fn diagnose(ledger: &Ledger, request: ReceivedRequest) -> Miss {
    let mut text = format!("{request} matches no recorded interaction");
    if ledger.sequences.is_empty() {
        text.push_str("; no interactions are mounted");
        return Miss {
            request,
            diagnostic: text,
        };
    }
    let mut candidates: Vec<(u32, usize, Vec<String>)> = ledger
        .sequences
        .iter()
        .enumerate()
        .map(|(i, seq)| {
            let (score, differences) = compare(seq, &request);
            (score, i, differences)
        })
        .collect();
    candidates.sort_by_key(|(score, i, _)| (*score, *i));
    let cassettes = &ledger.cassettes;
    let mut names = cassettes
        .iter()
        .take(NAMED_CASSETTES)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if cassettes.len() > NAMED_CASSETTES {
        names.push_str(&format!(" and {} more", cassettes.len() - NAMED_CASSETTES));
    }
    text.push_str(&format!(
        "; closest of {} recorded request(s) in {} cassette(s) ({names}):",
        ledger.sequences.len(),
        cassettes.len()
    ));
    for (rank, (_, i, differences)) in candidates.iter().take(TOP).enumerate() {
        let seq = &ledger.sequences[*i];
        text.push_str(&format!(
            "\n  {}. {} interactions[{}] {}: {}",
            rank + 1,
            seq.cassette,
            seq.first_index,
            seq.key.line(),
            differences.join("; ")
        ));
    }
    Miss {
        request,
        diagnostic: text,
    }
}

/// The score and the differences between one recorded key and the received request.
fn compare(seq: &Sequence, received: &ReceivedRequest) -> (u32, Vec<String>) {
    let key = &seq.key;
    let mut score = 0;
    let mut out = Vec::new();
    if key.method != received.method {
        score += 2;
        out.push(format!(
            "method: recorded {}, received {}",
            key.method, received.method
        ));
    }
    score += compare_paths(key, received, &mut out);
    score += compare_queries(key, received, &mut out);
    score += compare_bodies(key, received, &mut out);
    if out.is_empty() {
        out.push(format!(
            "already played {} of {} recorded times (allow_repeats is off)",
            seq.played,
            seq.responses.len()
        ));
    }
    (score, out)
}

fn compare_paths(key: &RequestKey, received: &ReceivedRequest, out: &mut Vec<String>) -> u32 {
    let recorded: Vec<&str> = key.path.split('/').skip(1).collect();
    let got: Vec<&str> = received.path.split('/').skip(1).collect();
    let mut score = 0;
    for i in 0..recorded.len().max(got.len()) {
        let (r, g) = (recorded.get(i), got.get(i));
        if r != g {
            score += 3;
            let show = |s: Option<&&str>| s.map_or("none".to_owned(), |s| quote(s));
            out.push(format!(
                "path segment {}: recorded {}, received {}",
                i + 1,
                show(r),
                show(g)
            ));
        }
    }
    score
}

fn compare_queries(key: &RequestKey, received: &ReceivedRequest, out: &mut Vec<String>) -> u32 {
    let group = |pairs: &[(String, String)]| {
        let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (k, v) in pairs {
            map.entry(k.clone()).or_default().push(v.clone());
        }
        map
    };
    let recorded = group(&key.query);
    let got = group(&received.query);
    let mut keys: Vec<&String> = recorded.keys().chain(got.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut score = 0;
    for k in keys {
        let line = match (recorded.get(k), got.get(k)) {
            (Some(r), None) => format!("query key `{k}`: missing (recorded {})", values(r)),
            (None, Some(g)) => format!("query key `{k}`: extra (received {})", values(g)),
            (Some(r), Some(g)) if r != g => format!(
                "query key `{k}`: recorded {}, received {}",
                values(r),
                values(g)
            ),
            _ => continue,
        };
        score += 1;
        out.push(line);
    }
    score
}

fn compare_bodies(key: &RequestKey, received: &ReceivedRequest, out: &mut Vec<String>) -> u32 {
    match (&key.body, &received.body) {
        (None, ReceivedBody::Empty) => 0,
        (None, body) => {
            out.push(format!(
                "body: recorded none, received {}",
                body_summary(body)
            ));
            2
        }
        (Some(recorded), ReceivedBody::Json(got)) if !key.form => compare_json(recorded, got, out),
        (Some(recorded), ReceivedBody::Form(got)) if key.form => compare_json(recorded, got, out),
        (Some(recorded), body) => {
            out.push(format!(
                "body: recorded {} {}, received {}",
                if key.form { "form" } else { "JSON" },
                json_summary(recorded),
                body_summary(body)
            ));
            2
        }
    }
}

/// Field by field, what differs between a recorded body and the one received.
fn compare_json(recorded: &Value, got: &Value, out: &mut Vec<String>) -> u32 {
    match (recorded, got) {
        _ if recorded == got => 0,
        (Value::Object(r), Value::Object(g)) => {
            let mut fields: Vec<&String> = r.keys().chain(g.keys()).collect();
            fields.sort();
            fields.dedup();
            let mut score = 0;
            for f in fields {
                let line = match (r.get(f), g.get(f)) {
                    (Some(_), None) => format!("body field `{f}`: missing"),
                    (None, Some(_)) => format!("body field `{f}`: extra"),
                    (Some(rv), Some(gv)) if rv != gv => format!(
                        "body field `{f}`: recorded {}, received {}",
                        short_json(rv),
                        short_json(gv)
                    ),
                    _ => continue,
                };
                score += 1;
                out.push(line);
            }
            score
        }
        _ => {
            out.push(format!(
                "body: recorded {}, received {}",
                short_json(recorded),
                short_json(got)
            ));
            2
        }
    }
}

fn values(values: &[String]) -> String {
    match values {
        [one] => quote(one),
        many => format!(
            "[{}]",
            many.iter().map(|v| quote(v)).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn quote(s: &str) -> String {
    cut(serde_json::to_string(s).unwrap_or_else(|_| s.to_owned()))
}

fn short_json(value: &Value) -> String {
    cut(value.to_string())
}

fn cut(mut s: String) -> String {
    if let Some((at, _)) = s.char_indices().nth(MAX_VALUE_CHARS) {
        s.truncate(at);
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cassette::{Cassette, Interaction, Provenance};
    use crate::replay::ReplayOptions;
    use serde_json::json;

    fn ledger(interactions: Vec<Interaction>) -> Ledger {
        let mut ledger = Ledger::new(ReplayOptions::default());
        let cassette = Cassette::new("t/c", Provenance::synthetic("2026-11-29", "t"))
            .interactions(interactions);
        ledger.add(&[cassette]);
        ledger
    }

    #[test]
    fn the_closest_candidate_comes_first_and_names_each_difference() {
        let ledger = ledger(vec![
            Interaction::get("/x/y/z").respond(200, json!({})),
            Interaction::post("/a/b/items")
                .query("page", "1")
                .query("only[]", "id")
                .query("only[]", "name")
                .body(json!({"name": "x", "keep": 1}))
                .respond(201, json!({})),
        ]);
        let miss = diagnose(
            &ledger,
            ReceivedRequest::unanswered(
                "PUT",
                "/a/b/item",
                &[("only[]", "id"), ("page", "2"), ("q", "z")],
                ReceivedBody::Json(json!({"name": "y", "keep": 1, "extra": true})),
            ),
        );
        let text = miss.to_string();
        let expected_first = "\n  1. t/c interactions[1] POST /a/b/items?only[]=id&only[]=name&page=1: \
            method: recorded POST, received PUT; \
            path segment 3: recorded \"items\", received \"item\"; \
            query key `only[]`: recorded [\"id\", \"name\"], received \"id\"; \
            query key `page`: recorded \"1\", received \"2\"; \
            query key `q`: extra (received \"z\"); \
            body field `extra`: extra; \
            body field `name`: recorded \"x\", received \"y\"";
        assert!(text.contains(expected_first), "{text}");
        assert!(text.starts_with(
            "PUT /a/b/item?only[]=id&page=2&q=z (JSON body: object {extra, keep, name}) matches no recorded interaction; \
             closest of 2 recorded request(s) in 1 cassette(s) (t/c):"
        ), "{text}");
        assert!(
            text.contains("\n  2. t/c interactions[0] GET /x/y/z: "),
            "{text}"
        );
    }

    #[test]
    fn an_exhausted_sequence_says_how_often_it_was_played() {
        let mut ledger = ledger(vec![Interaction::get("/job").respond(200, json!({}))]);
        ledger.sequences[0].played = 1;
        let text = diagnose(
            &ledger,
            ReceivedRequest::unanswered("GET", "/job", &[], ReceivedBody::Empty),
        )
        .to_string();
        assert!(
            text.ends_with("1. t/c interactions[0] GET /job: already played 1 of 1 recorded times (allow_repeats is off)"),
            "{text}"
        );
    }

    #[test]
    fn nothing_mounted_is_said_plainly() {
        let ledger = Ledger::new(ReplayOptions::default());
        let text = diagnose(
            &ledger,
            ReceivedRequest::unanswered("GET", "/x", &[], ReceivedBody::Empty),
        )
        .to_string();
        assert_eq!(
            text,
            "GET /x (no body) matches no recorded interaction; no interactions are mounted"
        );
    }

    #[test]
    fn long_values_are_cut() {
        let long = "x".repeat(100);
        assert_eq!(quote(&long).chars().count(), MAX_VALUE_CHARS + 1);
        assert!(quote(&long).ends_with('…'));
    }
}
