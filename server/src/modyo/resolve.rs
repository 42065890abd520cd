//! Heuristic resolution: turning an id, uid, slug, host, name or email into one entity.
//!
//! A lookup tries its stages in order (for spaces: uid, then exact name, then name without
//! regard to case). The first stage with any match decides: one match resolves, more than one
//! fails with `ambiguous` listing the candidates' ids and names, and the server never picks the
//! first. No match at any stage fails with `not_found`, naming the forms it tried.

use serde_json::{Value, json};

use crate::contract::{ErrorCode, ToolError};

/// One stage of a lookup: a label for messages and a predicate on candidates.
pub struct Stage<'a> {
    label: &'static str,
    test: Box<dyn Fn(&Value) -> bool + Send + Sync + 'a>,
}

impl<'a> Stage<'a> {
    /// A stage matching `key` exactly (string or number) against `wanted`.
    pub fn exact(label: &'static str, key: &'a str, wanted: &'a str) -> Stage<'a> {
        Stage {
            label,
            test: Box::new(move |v| match v.get(key) {
                Some(Value::String(s)) => s == wanted,
                Some(Value::Number(n)) => n.to_string() == wanted,
                _ => false,
            }),
        }
    }

    /// A stage with its own predicate (a computed value such as a category's slug path).
    pub fn when(
        label: &'static str,
        test: impl Fn(&Value) -> bool + Send + Sync + 'a,
    ) -> Stage<'a> {
        Stage {
            label,
            test: Box::new(test),
        }
    }

    /// A stage matching string `key` against `wanted` without regard to case.
    pub fn caseless(label: &'static str, key: &'a str, wanted: &'a str) -> Stage<'a> {
        Stage {
            label,
            test: Box::new(move |v| {
                v.get(key)
                    .and_then(Value::as_str)
                    .is_some_and(|s| s.to_lowercase() == wanted.to_lowercase())
            }),
        }
    }
}

/// The most characters of an input echoed in a message.
const ECHOED_CHARS: usize = 100;

/// `input` as a message quotes it: whole when short, else its start and its length.
pub fn echoed(input: &str) -> std::borrow::Cow<'_, str> {
    let chars = input.chars().count();
    if chars <= ECHOED_CHARS {
        return input.into();
    }
    let head: String = input.chars().take(ECHOED_CHARS).collect();
    format!("{head}... ({chars} characters)").into()
}

/// The most names of a list given by the caller that a message repeats.
pub const ECHOED_NAMES: usize = 20;

/// Names the caller gave, as a message quotes them: at most [`ECHOED_NAMES`], each
/// [`echoed`], then how many more there were. (400,000 unknown field names once made an
/// 8.2 MB answer.)
pub fn echoed_names<S: AsRef<str>>(names: &[S]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(ECHOED_NAMES)
        .map(|n| echoed(n.as_ref()).into_owned())
        .collect();
    let mut text = shown.join(", ");
    if names.len() > shown.len() {
        text.push_str(&format!(" and {} more", names.len() - shown.len()));
    }
    text
}

/// Picks the one candidate the first matching stage finds.
pub fn pick<'v>(
    what: &str,
    input: &str,
    candidates: &'v [Value],
    stages: &[Stage<'_>],
) -> Result<&'v Value, ToolError> {
    let input = &*echoed(input);
    for stage in stages {
        let found: Vec<&Value> = candidates.iter().filter(|c| (stage.test)(c)).collect();
        match found.as_slice() {
            [] => continue,
            [one] => return Ok(one),
            many => {
                let list: Vec<Value> = many
                    .iter()
                    .map(|c| json!({"id": c.get("id").cloned().unwrap_or(Value::Null), "name": c.get("name").cloned().unwrap_or(Value::Null)}))
                    .collect();
                return Err(ToolError::new(
                    ErrorCode::Ambiguous,
                    format!(
                        "{what} '{input}' matches {} {} by {}; pass the id of the one you mean",
                        many.len(),
                        plural(what),
                        stage.label
                    ),
                )
                .candidates(list));
            }
        }
    }
    let tried: Vec<&str> = stages.iter().map(|s| s.label).collect();
    Err(ToolError::not_found(format!(
        "no {what} matches '{input}' (tried: {})",
        tried.join(", ")
    )))
}

/// `entry` -> `entries`, `space` -> `spaces` (the nouns lookups name).
fn plural(what: &str) -> String {
    match what.strip_suffix('y') {
        Some(stem) if !stem.ends_with(['a', 'e', 'o', 'u']) => format!("{stem}ies"),
        _ => format!("{what}s"),
    }
}

/// Whether an identifier is all digits (and so an id).
pub fn is_id(input: &str) -> bool {
    !input.is_empty() && input.bytes().all(|b| b.is_ascii_digit())
}

/// Whether an identifier looks like a UUID (8-4-4-4-12 hex).
pub fn is_uuid(input: &str) -> bool {
    let parts: Vec<&str> = input.split('-').collect();
    parts.len() == 5
        && parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spaces() -> Vec<Value> {
        vec![
            json!({"id": 1, "uid": "blog", "name": "Blog"}),
            json!({"id": 2, "uid": "promos", "name": "Promos"}),
            json!({"id": 3, "uid": "promos-2", "name": "PROMOS"}),
        ]
    }

    fn stages<'a>(input: &'a str) -> Vec<Stage<'a>> {
        vec![
            Stage::exact("uid", "uid", input),
            Stage::exact("name", "name", input),
            Stage::caseless("name without case", "name", input),
        ]
    }

    #[test]
    fn earlier_stages_win() {
        let all = spaces();
        assert_eq!(
            pick("space", "blog", &all, &stages("blog")).unwrap()["id"],
            1
        );
        assert_eq!(
            pick("space", "Promos", &all, &stages("Promos")).unwrap()["id"],
            2
        );
    }

    #[test]
    fn ambiguity_lists_candidates_and_never_picks() {
        let all = spaces();
        let err = pick("space", "promos ", &all, &stages("PrOmOs"))
            .map(|_| ())
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Ambiguous);
        assert_eq!(err.to_value()["candidates"].as_array().unwrap().len(), 2);
        assert!(
            err.message().contains("matches 2 spaces"),
            "{}",
            err.message()
        );
        assert_eq!(plural("category"), "categories");
        assert_eq!(plural("entry"), "entries");
        assert_eq!(plural("key"), "keys");
    }

    #[test]
    fn not_found_names_the_forms_tried() {
        let all = spaces();
        let err = pick("space", "news", &all, &stages("news"))
            .map(|_| ())
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
        assert!(
            err.message().contains("uid, name, name without case"),
            "{}",
            err.message()
        );
    }

    #[test]
    fn long_inputs_are_echoed_short() {
        let long = "y".repeat(1_000);
        let err = pick("space", &long, &spaces(), &stages(&long))
            .map(|_| ())
            .unwrap_err();
        assert!(err.message().len() < 300, "{}", err.message());
        assert!(
            err.message().contains("(1000 characters)"),
            "{}",
            err.message()
        );
    }

    #[test]
    fn id_and_uuid_shapes() {
        assert!(is_id("636") && !is_id("63a") && !is_id(""));
        assert!(is_uuid("3f2b6c1e-8a4d-4f7b-9c2e-1d5a6b7c8e9f"));
        assert!(!is_uuid("3f2b6c1e-8a4d-4f7b-9c2e"));
    }
}
