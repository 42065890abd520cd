//! C5 and C6: the two faces of `state`, and the one place `complete` is computed.
//!
//! Coverage (reads) says how much of a collection the answer holds; the post-condition
//! (writes) says what state the resource ended in. `complete` is asserted only with evidence:
//! the API's `total_entries`, pagination the server exhausted itself, or a corpus it holds
//! whole. Without evidence the key is absent, which means "unknown", never "all".
//!
//! A whole-collection walk ([`Walk`]) decides page by page whether to read on, and its
//! verdict agrees with every piece of evidence the API gave: `total_entries`, `total_pages`
//! and `current_page`, the rows seen, and the `per_page` asked against the one honoured.

use serde::Serialize;
use serde_json::Value;

mod walk;

pub use walk::Walk;

/// The evidence a read has about the size of the collection it answers from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// The API's `meta.total_entries`, valid and consistent in type.
    Total(u64),
    /// The server walked every page itself until the API had no more.
    Exhausted,
    /// The server stopped early (a cap, a page limit): something was left out.
    Capped,
    /// The corpus is held whole by the server (an in-memory registry or catalogue, a nested
    /// object the API returns complete).
    WholeCorpus,
    /// Nothing says how large the collection is.
    None,
}

/// C6: whether `returned` items are the whole collection, given the evidence.
///
/// Returns `None` (omit the key) whenever the evidence cannot back an answer, including a
/// `total_entries` smaller than what was returned: the API contradicted itself.
pub fn complete(returned: u64, evidence: Evidence) -> Option<bool> {
    match evidence {
        Evidence::Total(total) if total >= returned => Some(total == returned),
        Evidence::Total(_) | Evidence::None => None,
        Evidence::Exhausted | Evidence::WholeCorpus => Some(true),
        Evidence::Capped => Some(false),
    }
}

/// Pagination metadata as the API sent it, each key kept only if it is a non-negative integer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Meta {
    /// `meta.total_entries`.
    pub total_entries: Option<u64>,
    /// `meta.per_page` (the effective value, after the API's own cap).
    pub per_page: Option<u64>,
    /// `meta.current_page`.
    pub current_page: Option<u64>,
    /// `meta.total_pages`.
    pub total_pages: Option<u64>,
}

impl Meta {
    /// Parses `meta` leniently: a missing, null or wrongly typed key is absent, never guessed.
    pub fn parse(meta: Option<&Value>) -> Option<Meta> {
        let object = meta?.as_object()?;
        let int = |key: &str| object.get(key).and_then(Value::as_u64);
        Some(Meta {
            total_entries: int("total_entries"),
            per_page: int("per_page"),
            current_page: int("current_page"),
            total_pages: int("total_pages"),
        })
    }
}

/// Coverage of a read (C5): `{returned, total?, searched?, page?, per_page?, complete?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Coverage {
    returned: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    searched: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_page: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    complete: Option<bool>,
}

impl Coverage {
    /// Coverage of one API page: total, page and per_page come from `meta` only, and
    /// `complete` from `meta.total_entries`, held against the rest of `meta` and the page that
    /// was asked for (`asked`, 1 when none was).
    ///
    /// `complete: true` needs every piece to agree that this one page is the whole collection:
    /// as many rows as `total_entries`, on page 1 (asked and, when sent, `current_page`), with
    /// `total_pages` (when sent) at most 1. A page whose `total_pages` says 4 while its rows
    /// equal `total_entries`, or page 2 answered as `current_page: 1` with every row, says
    /// two things at once: the key is left out. Fewer rows than `total_entries` is
    /// `complete: false` whatever else `meta` says.
    pub fn page(returned: usize, meta: Option<&Meta>, asked: u64) -> Coverage {
        let returned = returned as u64;
        let total = meta.and_then(|m| m.total_entries);
        let mut complete = complete(returned, total.map_or(Evidence::None, Evidence::Total));
        if complete == Some(true) {
            let current = meta.and_then(|m| m.current_page);
            let pages = meta.and_then(|m| m.total_pages);
            let one_page =
                asked == 1 && current.is_none_or(|c| c == asked) && pages.is_none_or(|p| p <= 1);
            if !one_page {
                complete = None;
            }
        }
        Coverage {
            returned,
            total,
            searched: None,
            page: meta.and_then(|m| m.current_page),
            per_page: meta.and_then(|m| m.per_page),
            complete,
        }
    }

    /// Coverage backed by other evidence (exhausted pagination, a corpus held whole, a cap).
    pub fn with_evidence(returned: usize, evidence: Evidence) -> Coverage {
        let returned = returned as u64;
        Coverage {
            returned,
            total: match evidence {
                Evidence::Exhausted | Evidence::WholeCorpus => Some(returned),
                Evidence::Total(total) => Some(total),
                Evidence::Capped | Evidence::None => None,
            },
            complete: complete(returned, evidence),
            ..Coverage::default()
        }
    }

    /// Records the size of the corpus a search walked (`searched: 0` when there was nothing).
    pub fn searched(mut self, searched: usize) -> Coverage {
        self.searched = Some(searched as u64);
        self
    }

    /// The number of items returned.
    pub fn returned(&self) -> u64 {
        self.returned
    }

    /// The `complete` flag, if evidence backed one.
    pub fn is_complete(&self) -> Option<bool> {
        self.complete
    }
}

/// Post-condition of a write (C5): `{status?, published?, live_version?, pending?, affected?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PostCondition {
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    published: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    live_version: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pending: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    affected: Option<u64>,
}

impl PostCondition {
    /// A post-condition with the given status (`created`, `updated`, `deleted`, `queued`, ...).
    pub fn status(status: impl Into<String>) -> PostCondition {
        PostCondition {
            status: Some(status.into()),
            ..PostCondition::default()
        }
    }

    /// Whether the resource is published after the write, as read back from the API.
    pub fn published(mut self, published: bool) -> PostCondition {
        self.published = Some(published);
        self
    }

    /// The live version after the write, as read back from the API.
    pub fn live_version(mut self, version: impl Into<Value>) -> PostCondition {
        self.live_version = Some(version.into());
        self
    }

    /// Whether work is still pending (a queued job, unpublished changes).
    pub fn pending(mut self, pending: bool) -> PostCondition {
        self.pending = Some(pending);
        self
    }

    /// How many entities the write affected.
    pub fn affected(mut self, affected: usize) -> PostCondition {
        self.affected = Some(affected as u64);
        self
    }
}

/// The `state` slot: one of the two faces.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum State {
    /// Coverage of a read.
    Coverage(Coverage),
    /// Post-condition of a write.
    Post(PostCondition),
}

impl From<Coverage> for State {
    fn from(c: Coverage) -> State {
        State::Coverage(c)
    }
}

impl From<PostCondition> for State {
    fn from(p: PostCondition) -> State {
        State::Post(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn complete_only_with_evidence() {
        assert_eq!(complete(10, Evidence::Total(10)), Some(true));
        assert_eq!(complete(10, Evidence::Total(314)), Some(false));
        assert_eq!(
            complete(10, Evidence::Total(3)),
            None,
            "contradiction is not evidence"
        );
        assert_eq!(complete(10, Evidence::None), None);
        assert_eq!(
            complete(0, Evidence::None),
            None,
            "an empty page without meta is unknown"
        );
        assert_eq!(complete(7, Evidence::Exhausted), Some(true));
        assert_eq!(complete(7, Evidence::WholeCorpus), Some(true));
        assert_eq!(complete(7, Evidence::Capped), Some(false));
    }

    /// Feeds `(rows, fresh, meta)` pages until the walk stops; `None` when it asks for more.

    #[test]
    fn missing_meta_gives_only_returned() {
        let c = Coverage::page(10, None, 1);
        assert_eq!(serde_json::to_value(&c).unwrap(), json!({"returned": 10}));
    }

    #[test]
    fn meta_maps_to_coverage() {
        let meta = Meta::parse(Some(
            &json!({"total_entries": 314, "per_page": 10, "current_page": 2, "total_pages": 32}),
        ));
        let c = Coverage::page(10, meta.as_ref(), 2);
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            json!({"returned": 10, "total": 314, "page": 2, "per_page": 10, "complete": false})
        );
    }

    #[test]
    fn wrongly_typed_meta_is_not_evidence() {
        for meta in [
            json!({"total_entries": "314"}),
            json!({"total_entries": null}),
            json!({"total_entries": -1}),
            json!({"total_entries": 3.5}),
            json!([]),
        ] {
            let parsed = Meta::parse(Some(&meta));
            let c = Coverage::page(4, parsed.as_ref(), 1);
            assert_eq!(c.is_complete(), None, "{meta}");
        }
    }

    #[test]
    fn one_page_is_complete_only_when_all_of_meta_agrees() {
        let page = |meta: Value, asked: u64| {
            let parsed = Meta::parse(Some(&meta));
            Coverage::page(4, parsed.as_ref(), asked).is_complete()
        };
        assert_eq!(
            page(
                json!({"total_entries": 4, "current_page": 1, "total_pages": 1}),
                1
            ),
            Some(true)
        );
        assert_eq!(page(json!({"total_entries": 4}), 1), Some(true));
        // Before, each of these was complete: true.
        for (meta, asked) in [
            (
                json!({"total_entries": 4, "current_page": 1, "total_pages": 4}),
                1,
            ),
            (
                json!({"total_entries": 4, "current_page": 1, "total_pages": 16}),
                1,
            ),
            (
                json!({"total_entries": 4, "current_page": 1, "total_pages": 1}),
                2,
            ),
            (
                json!({"total_entries": 4, "current_page": 2, "total_pages": 1}),
                1,
            ),
        ] {
            assert_eq!(page(meta.clone(), asked), None, "{meta} asked {asked}");
        }
        assert_eq!(
            page(
                json!({"total_entries": 9, "current_page": 1, "total_pages": 1}),
                1
            ),
            Some(false)
        );
    }

    #[test]
    fn searched_zero_is_said() {
        let c = Coverage::with_evidence(0, Evidence::Exhausted).searched(0);
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            json!({"returned": 0, "total": 0, "searched": 0, "complete": true})
        );
    }

    #[test]
    fn post_condition_serializes_only_what_is_known() {
        let p = PostCondition::status("queued").pending(true);
        assert_eq!(
            serde_json::to_value(State::from(p)).unwrap(),
            json!({"status": "queued", "pending": true})
        );
    }
}
