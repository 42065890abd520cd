//! The marker-bearing parts of a marker session's requests: what is committed as
//! `reports/clients/<client>.marker.jsonl` and what the fingerprint is derived from.
//!
//! A request is cut down to the branches that lead to a marker, a marker tool's name or a
//! prompt-cache breakpoint (`cache_control`): an object keeps its members that hold one, plus
//! its short scalar members (a `type`, an `is_error` flag, an id); an array keeps its items that
//! hold one, plus its short items (so a result split in blocks keeps its prefix block). A long string that holds a marker is kept as
//! excerpts around each marker, so no client's own multi-KB prompt is committed; the session's
//! temporary home, the endpoint's address and other run-specific strings are replaced by fixed
//! names, a client's own ids and UUIDs (fresh every run) are written `<id>` and `<uuid>`, and a
//! wall time Codex prints is made steady.

use serde_json::{Map, Value};

use super::markers::{has_any, windows};
use crate::clients::extract::steady;

/// The member an Anthropic request marks a prompt-cache breakpoint with.
pub(crate) const CACHE_MARK: &str = "cache_control";

/// Strings at most this long are kept whole.
const WHOLE: usize = 400;

/// A scalar member or item kept beside a marker-bearing one is at most this long.
const SHORT: usize = 160;

/// `body` cut down to its marker-bearing parts, with `scrub` pairs (`from`, `to`) replaced in
/// every string; `None` when no marker is in it.
pub(crate) fn prune(body: &Value, scrub: &[(String, String)]) -> Option<Value> {
    let body = scrubbed(&steady(body), scrub);
    keep(&body)
}

/// `value` with every `scrub` pair (`from`, `to`) replaced in every string.
pub(crate) fn scrubbed(value: &Value, scrub: &[(String, String)]) -> Value {
    match value {
        Value::String(s) => {
            let mut s = s.clone();
            for (from, to) in scrub.iter().filter(|(from, _)| !from.is_empty()) {
                if s.contains(from.as_str()) {
                    s = s.replace(from.as_str(), to);
                }
            }
            Value::String(s)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| scrubbed(v, scrub)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), scrubbed(v, scrub)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn keep(value: &Value) -> Option<Value> {
    match value {
        Value::String(s) if has_any(s) => Some(Value::String(without_uuids(&excerpt(s)))),
        Value::Array(items) => {
            let kept: Vec<Option<Value>> = items.iter().map(keep).collect();
            if kept.iter().all(Option::is_none) {
                return None;
            }
            Some(Value::Array(
                items
                    .iter()
                    .zip(kept)
                    .filter_map(|(item, kept)| {
                        kept.or_else(|| short(item).then(|| steady_id("", item)))
                    })
                    .collect(),
            ))
        }
        Value::Object(map) => {
            // A prompt-cache breakpoint is kept wherever it is: the fingerprint says whether
            // the client marks any.
            let kept: Vec<(&String, Option<Value>)> = map
                .iter()
                .map(|(k, v)| {
                    let kept = if k == CACHE_MARK {
                        Some(steady_id(k, v))
                    } else {
                        keep(v)
                    };
                    (k, kept)
                })
                .collect();
            if kept.iter().all(|(_, v)| v.is_none()) {
                return None;
            }
            let mut out = Map::new();
            for ((key, value), (_, kept)) in map.iter().zip(kept) {
                match kept {
                    Some(kept) => {
                        out.insert(key.clone(), kept);
                    }
                    None if scalar(value) => {
                        out.insert(key.clone(), steady_id(key, value));
                    }
                    None => {}
                }
            }
            Some(Value::Object(out))
        }
        _ => None,
    }
}

/// A value kept beside a marker, with what a client makes fresh every run made steady: a
/// member named as an id (`"id": "fco_01a2481c-…"`) is `<id>` unless the scripted model gave it
/// (`call_lab_0001`), and a UUID in any string (`prompt_cache_key`) is `<uuid>`.
fn steady_id(key: &str, value: &Value) -> Value {
    let id = key == "id" || key.ends_with("_id") || key.ends_with("Id");
    match value {
        Value::String(s) if id && !s.contains("lab") => Value::String("<id>".into()),
        Value::String(s) => Value::String(without_uuids(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| steady_id("", v)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), steady_id(k, v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `text` with every UUID (8-4-4-4-12 hexadecimal digits) written `<uuid>`.
fn without_uuids(text: &str) -> String {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let bytes = text.as_bytes();
    let is_uuid = |at: usize| {
        let mut i = at;
        for (n, len) in GROUPS.iter().enumerate() {
            if n > 0 {
                if bytes.get(i) != Some(&b'-') {
                    return false;
                }
                i += 1;
            }
            for _ in 0..*len {
                if !bytes.get(i).is_some_and(u8::is_ascii_hexdigit) {
                    return false;
                }
                i += 1;
            }
        }
        !bytes.get(i).is_some_and(u8::is_ascii_hexdigit)
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !bytes[i - 1].is_ascii_hexdigit();
        if boundary && is_uuid(i) {
            out.push_str("<uuid>");
            i += 36;
        } else {
            let c = text[i..].chars().next().unwrap_or_default();
            out.push(c);
            i += c.len_utf8().max(1);
        }
    }
    out
}

/// A short scalar: a flag, a number, a short string.
fn scalar(value: &Value) -> bool {
    match value {
        Value::String(s) => s.chars().count() <= SHORT,
        Value::Bool(_) | Value::Number(_) | Value::Null => true,
        _ => false,
    }
}

/// A short item: a scalar, or a value whose compact JSON is short.
fn short(value: &Value) -> bool {
    scalar(value) || value.to_string().chars().count() <= SHORT
}

/// `text` whole when it is short, else the windows around its markers joined by ` … `.
fn excerpt(text: &str) -> String {
    if text.chars().count() <= WHOLE {
        return text.to_owned();
    }
    let pieces: Vec<&str> = windows(text, 80);
    let mut out = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 || !text.starts_with(piece) {
            out.push_str("… ");
        }
        out.push_str(piece);
        if i + 1 == pieces.len() && !text.ends_with(piece) {
            out.push_str(" …");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_marker_bearing_branches_and_their_short_siblings_are_kept() {
        let prompt = format!("{}MARK_INSTR: hi{}", "x".repeat(2000), "y".repeat(2000));
        let body = json!({
            "model": "m",
            "system": "You are a long system prompt without anything of ours. ".repeat(10),
            "messages": [
                {"role": "user", "content": prompt},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_lab_t1", "id": "fco_019a", "is_error": true,
                    "content": [{"type": "text", "text": "Wall time: 0.0132 seconds"}, {"type": "text", "text": "MARK_ERRTEXT"}]}]},
                {"role": "assistant", "content": "z".repeat(1000)}
            ],
            "tools": [{"name": "Bash", "description": "d".repeat(500)}, {"name": "mk_ok", "description": "MARK_DESC_OK"}]
        });
        let kept = prune(&body, &[("t1".into(), "ID".into())]).expect("markers");
        let text = kept.to_string();
        assert!(
            !text.contains("xxxxxxxxxx".repeat(10).as_str()) && !text.contains("Bash"),
            "{text}"
        );
        assert!(text.contains("MARK_INSTR: hi"), "{text}");
        assert_eq!(kept["model"], "m", "a short scalar beside a marker");
        assert!(
            kept.get("system").is_none(),
            "no marker below the top level's long string"
        );
        let error = &kept["messages"][1]["content"][0];
        assert_eq!(error["is_error"], true);
        assert_eq!(error["tool_use_id"], "toolu_lab_ID", "scrubbed");
        assert_eq!(error["id"], "<id>", "a client's own id");
        assert_eq!(error["content"][0]["text"], "Wall time: 0.0000 seconds");
        assert_eq!(kept["messages"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            kept["tools"],
            json!([{"name": "mk_ok", "description": "MARK_DESC_OK"}])
        );
        assert!(prune(&json!({"a": "nothing"}), &[]).is_none());
    }

    #[test]
    fn a_cache_breakpoint_is_kept_without_a_marker_beside_it() {
        let body = json!({
            "system": [{"type": "text", "text": "s".repeat(500), "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": "MARK_INSTR"}]
        });
        let kept = prune(&body, &[]).expect("a marker");
        assert_eq!(
            kept["system"],
            json!([{"type": "text", "cache_control": {"type": "ephemeral"}}])
        );
        let unmarked = json!({"system": [{"type": "text", "text": "s"}], "messages": [{"content": "MARK_INSTR"}]});
        assert!(
            prune(&unmarked, &[])
                .expect("a marker")
                .get("system")
                .is_none()
        );
    }

    #[test]
    fn uuids_and_client_ids_are_made_steady_in_short_items_too() {
        assert_eq!(
            without_uuids("k 01a24840-2b56-79f0-bdd0-e35f96e11870, é 01a2"),
            "k <uuid>, é 01a2"
        );
        let body = json!({"prompt_cache_key": "01a24840-2b56-79f0-bdd0-e35f96e11870",
            "input": [{"type": "message", "id": "msg_01a24840-2bc8", "content": "hi"}, {"text": "MARK_INSTR"}]});
        let kept = prune(&body, &[]).expect("a marker");
        assert_eq!(kept["prompt_cache_key"], "<uuid>");
        assert_eq!(
            kept["input"][0]["id"], "<id>",
            "a short item beside a marker"
        );
    }

    #[test]
    fn a_long_text_becomes_windows_around_its_markers() {
        let text = format!(
            "{}MARK_INSTR{}mcp__m__mk_ok {}",
            "a".repeat(500),
            "b".repeat(500),
            "c".repeat(500)
        );
        let cut = excerpt(&text);
        assert!(cut.starts_with("… ") && cut.ends_with(" …"), "{cut}");
        assert!(cut.contains("MARK_INSTR") && cut.contains("mk_ok"), "{cut}");
        assert!(cut.chars().count() < 500, "{cut}");
    }
}
