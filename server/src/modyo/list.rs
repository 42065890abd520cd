//! List bodies: `{"<plural>": [...], "meta": {total_entries, per_page, current_page,
//! total_pages}}`, and walking every page when a lookup needs the whole collection.
//!
//! Root-key drift rule (`server/CONTRACT.md`, "HTTP conventions"): when the expected key is missing and exactly one array
//! sits in the body, that array is read and the drift is logged; anything else is an
//! `invalid_upstream_response`. `meta` is parsed leniently and is never evidence unless its
//! `total_entries` is a non-negative integer (C6).
//!
//! A walk reads pages until the API has no more; some Modyo lists carry no `meta` at all, and
//! an upstream may cap `per_page` or ignore `page`, so when to stop and what the pages prove
//! is [`Walk`]'s rule in `contract/state.rs`, not a guess here.

use std::collections::HashSet;

use serde_json::Value;

use super::client::{ModyoClient, Query};
use super::error::CmsError;
use crate::contract::{Evidence, Meta, Walk};

/// One page of a list endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPage {
    /// The items under the root key.
    pub items: Vec<Value>,
    /// `meta`, parsed (absent when missing or not an object).
    pub meta: Option<Meta>,
    /// `meta` exactly as sent, for the legacy rendering (C21) only.
    pub raw_meta: Option<Value>,
}

/// Reads the `root` array of a list body.
pub(crate) fn parse_list(body: Value, root: &str) -> Result<ListPage, String> {
    let Value::Object(mut map) = body else {
        return Err(format!(
            "expected an object with '{root}', got {}",
            kind(&body)
        ));
    };
    let raw_meta = map.remove("meta");
    let meta = Meta::parse(raw_meta.as_ref());
    let items = match map.remove(root) {
        Some(Value::Array(items)) => items,
        Some(other) => return Err(format!("'{root}' is {}, not an array", kind(&other))),
        None => {
            let arrays: Vec<String> = map
                .iter()
                .filter(|(_, v)| v.is_array())
                .map(|(k, _)| k.clone())
                .collect();
            match arrays.as_slice() {
                [only] => {
                    tracing::warn!(expected = root, found = %only, "list root key drifted; reading the only array");
                    match map.remove(only) {
                        Some(Value::Array(items)) => items,
                        _ => Vec::new(),
                    }
                }
                _ => {
                    let keys: Vec<&String> = map.keys().collect();
                    return Err(format!("the body has no '{root}' array (keys: {keys:?})"));
                }
            }
        }
    };
    Ok(ListPage {
        items,
        meta,
        raw_meta,
    })
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The most pages a whole-collection walk reads before it stops and says so (`Capped`).
pub const MAX_WALK_PAGES: u32 = 50;
/// The page size of a whole-collection walk (the API's cap).
pub const WALK_PER_PAGE: u32 = 100;

/// Reads every page of a list (per_page 100), each row once, until the API has no more, a
/// page only repeats rows already read (an upstream that ignores `page`), or
/// [`MAX_WALK_PAGES`].
/// When to read on and what the pages prove is [`Walk`]'s rule (C6, `contract/state.rs`):
/// `Exhausted` only when every piece of evidence agrees every row was read, `Capped` when
/// some surely were not, `None` when the API contradicts itself or a short page without
/// `meta` may be a silent cap.
pub async fn walk(
    client: &ModyoClient,
    path: &str,
    root: &str,
    filters: &Query,
) -> Result<(Vec<Value>, Evidence), CmsError> {
    let mut walk = Walk::new(WALK_PER_PAGE);
    let mut read = HashSet::new();
    let mut all = Vec::new();
    for page in 1..=MAX_WALK_PAGES {
        let query = filters.clone().page(page, WALK_PER_PAGE);
        let list = client.list(path, root, &query).await?;
        let rows = list.items.len();
        let before = all.len();
        all.extend(
            list.items
                .into_iter()
                .filter(|row| read.insert(row_identity(row))),
        );
        if !walk.page(rows, all.len() - before, list.meta.as_ref()) {
            if walk.evidence() != Evidence::Exhausted {
                tracing::debug!(path, page, seen = walk.seen(), evidence = ?walk.evidence(), "walk ended without proof of the whole list");
            }
            return Ok((all, walk.evidence()));
        }
    }
    walk.capped();
    Ok((all, walk.evidence()))
}

/// `GET` a list that answers a bare JSON array (no root key, so no `meta`, and no page to
/// ask for: the specification declares no pagination for such lists, e.g. a site's templates
/// of one type); anything but an array is a shape error.
pub async fn read_array(
    client: &ModyoClient,
    path: &str,
    query: &Query,
) -> Result<Vec<Value>, CmsError> {
    match client.send(reqwest::Method::GET, path, query, None).await? {
        Value::Array(items) => Ok(items),
        other => Err(CmsError::InvalidShape {
            method: reqwest::Method::GET,
            path: path.to_owned(),
            reason: format!("expected an array, got {}", kind(&other)),
        }),
    }
}

/// What tells one row from another: the whole row (an `id` alone is not enough: a list may
/// hold a user and a group that share one).
fn row_identity(row: &Value) -> String {
    row.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_root_and_meta() {
        let page = parse_list(
            json!({"spaces": [{"id": 1}], "meta": {"total_entries": 1}}),
            "spaces",
        )
        .unwrap();
        assert_eq!(page.items.len(), 1);
        assert_eq!(page.meta.unwrap().total_entries, Some(1));
    }

    #[test]
    fn drifted_root_with_one_array_is_read() {
        let page = parse_list(json!({"items": [1, 2], "meta": {}}), "spaces").unwrap();
        assert_eq!(page.items.len(), 2);
    }

    #[test]
    fn no_root_and_no_single_array_is_an_error() {
        assert!(parse_list(json!({"a": [], "b": []}), "spaces").is_err());
        assert!(parse_list(json!({"meta": {}}), "spaces").is_err());
        assert!(parse_list(json!([1]), "spaces").is_err());
        assert!(parse_list(json!({"spaces": {"id": 1}}), "spaces").is_err());
    }
}
