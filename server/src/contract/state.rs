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

/// What a whole-collection walk saw, page by page, and so what it may claim (C6).
///
/// The walk asks for pages 1, 2, ... with one `per_page` and feeds each answer to
/// [`Walk::page`], which says whether to read the next one:
///
/// - an empty page, a page that repeats rows already read (an upstream that ignores `page`),
///   or the page limit ([`Walk::capped`]) ends it;
/// - with `total_entries`, it reads on while fewer rows than that were seen, whatever the page
///   sizes (an upstream may cap `per_page` below what was asked without saying so);
/// - else with `total_pages`, it reads on while `current_page` is below it;
/// - else (no `meta` that counts) it reads on while pages are full: as many rows as the
///   `per_page` honoured (`meta.per_page` when the API admits a cap, else the one asked).
///
/// [`Walk::evidence`] then says [`Evidence::Exhausted`] only when every piece of evidence
/// agrees that every row was read: the rows seen equal every `total_entries` sent, the last
/// page is at or past `total_pages`, and, for a list without `meta` that counts, the walk
/// ended on an empty page or on a short page after proof that `per_page` is honoured (an
/// earlier full page, or a `meta.per_page`). A short page alone may be a silent cap, so it
/// proves nothing. [`Evidence::Capped`] (`complete: false`) when rows were surely left out:
/// the page limit, a repeated page, fewer rows than `total_entries`, or pages `meta` still
/// promises. [`Evidence::None`] (no `complete`) when the evidence contradicts itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    asked: u64,
    seen: u64,
    /// `total_entries` as first sent, and whether every later page agreed.
    total: Option<u64>,
    totals_agree: bool,
    /// `(current_page, total_pages)` of the last page that sent both.
    pages: Option<(u64, u64)>,
    /// Some page proved the API honours the `per_page` it admits: a full page, or an admitted
    /// `meta.per_page`.
    per_page_proven: bool,
    end: Option<WalkEnd>,
}

/// Why a walk stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WalkEnd {
    /// A page without rows.
    Empty,
    /// A page that only repeated rows already read.
    Repeated,
    /// `total_entries` rows were seen, `current_page` reached `total_pages`, or (without
    /// either) a page held fewer rows than the `per_page` honoured.
    Last,
    /// The page limit.
    Capped,
}

impl Walk {
    /// A walk asking for `per_page` rows a page.
    pub fn new(per_page: u32) -> Walk {
        Walk {
            asked: u64::from(per_page),
            seen: 0,
            total: None,
            totals_agree: true,
            pages: None,
            per_page_proven: false,
            end: None,
        }
    }

    /// Records one page: `rows` items answered, `fresh` of them not seen on an earlier page,
    /// and its `meta`. Returns whether to read the next page.
    pub fn page(&mut self, rows: usize, fresh: usize, meta: Option<&Meta>) -> bool {
        let (rows, fresh) = (rows as u64, fresh as u64);
        self.seen += fresh;
        let meta = meta.copied().unwrap_or_default();
        if let Some(total) = meta.total_entries {
            match self.total {
                None => self.total = Some(total),
                Some(first) if first != total => self.totals_agree = false,
                Some(_) => {}
            }
        }
        if let (Some(current), Some(pages)) = (meta.current_page, meta.total_pages) {
            self.pages = Some((current, pages));
        }
        // The per_page honoured: what the API admits (never more than asked), else the ask.
        let honoured = match meta.per_page {
            Some(admitted) if admitted > 0 && admitted <= self.asked => {
                self.per_page_proven = true;
                admitted
            }
            _ => self.asked,
        };
        let full = rows >= honoured;
        self.end = if rows == 0 {
            Some(WalkEnd::Empty)
        } else if fresh == 0 {
            Some(WalkEnd::Repeated)
        } else if let Some(total) = meta.total_entries.or(self.total) {
            (self.seen >= total).then_some(WalkEnd::Last)
        } else if let (Some(current), Some(pages)) = (meta.current_page, meta.total_pages) {
            (current >= pages).then_some(WalkEnd::Last)
        } else {
            (!full).then_some(WalkEnd::Last)
        };
        if full && self.end.is_none() {
            self.per_page_proven = true;
        }
        self.end.is_none()
    }

    /// The walk stopped at its page limit with pages left to read.
    pub fn capped(&mut self) {
        self.end = Some(WalkEnd::Capped);
    }

    /// The rows seen (each once).
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The C6 verdict on the rows seen (see [`Walk`]).
    pub fn evidence(&self) -> Evidence {
        let Some(end) = self.end else {
            return Evidence::None;
        };
        if matches!(end, WalkEnd::Capped | WalkEnd::Repeated) {
            return Evidence::Capped;
        }
        if !self.totals_agree {
            return Evidence::None;
        }
        let by_total = self.total.map(|total| self.seen.cmp(&total));
        let by_pages = self.pages.map(|(current, pages)| current >= pages);
        match (by_total, by_pages) {
            // More rows than the API says exist: it contradicts itself.
            (Some(std::cmp::Ordering::Greater), _) => Evidence::None,
            (Some(std::cmp::Ordering::Less), _) => Evidence::Capped,
            (Some(std::cmp::Ordering::Equal), Some(false)) => Evidence::None,
            (Some(std::cmp::Ordering::Equal), _) => Evidence::Exhausted,
            (None, Some(false)) => Evidence::Capped,
            (None, Some(true)) => Evidence::Exhausted,
            // Nothing counts the rows: an empty last page, or a short one once per_page is
            // known to be honoured.
            (None, None) if end == WalkEnd::Empty || self.per_page_proven => Evidence::Exhausted,
            (None, None) => Evidence::None,
        }
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

    fn meta(total: Option<u64>, per_page: Option<u64>, current: u64, pages: Option<u64>) -> Meta {
        Meta {
            total_entries: total,
            per_page,
            current_page: Some(current),
            total_pages: pages,
        }
    }

    /// Feeds `(rows, fresh, meta)` pages until the walk stops; `None` when it asks for more.
    fn walked(pages: &[(usize, usize, Option<Meta>)]) -> Option<Evidence> {
        let mut walk = Walk::new(100);
        for (rows, fresh, meta) in pages {
            if !walk.page(*rows, *fresh, meta.as_ref()) {
                return Some(walk.evidence());
            }
        }
        None
    }

    #[test]
    fn a_capped_per_page_reads_on_to_the_total() {
        let m = |n| Some(meta(Some(45), Some(20), n, Some(3)));
        let mut walk = Walk::new(100);
        assert!(walk.page(20, 20, m(1).as_ref()), "20 of 45: read on");
        assert!(walk.page(20, 20, m(2).as_ref()));
        assert!(!walk.page(5, 5, m(3).as_ref()));
        assert_eq!(walk.evidence(), Evidence::Exhausted);
        assert_eq!(walk.seen(), 45);
        // The same cap, unadmitted: total_entries still says there is more.
        let silent = |n| Some(meta(Some(45), None, n, None));
        assert_eq!(
            walked(&[(20, 20, silent(1)), (20, 20, silent(2)), (5, 5, silent(3))]),
            Some(Evidence::Exhausted)
        );
    }

    #[test]
    fn evidence_that_disagrees_is_never_complete() {
        // 100 rows on the only page admitted, 250 said to exist: read on, then left out.
        let m = |n| Some(meta(Some(250), Some(100), n, Some(1)));
        assert_eq!(
            walked(&[(100, 100, m(1)), (0, 0, m(2))]),
            Some(Evidence::Capped)
        );
        // All rows said to exist were read, but meta still promises pages.
        assert_eq!(
            walked(&[(5, 5, Some(meta(Some(5), Some(100), 1, Some(3))))]),
            Some(Evidence::None)
        );
        // More rows than the total.
        let two = |n| Some(meta(Some(3), Some(2), n, None));
        assert_eq!(
            walked(&[(2, 2, two(1)), (2, 2, two(2))]),
            Some(Evidence::None)
        );
        // Totals that change between pages.
        assert_eq!(
            walked(&[
                (100, 100, Some(meta(Some(150), None, 1, None))),
                (50, 50, Some(meta(Some(140), None, 2, None)))
            ]),
            Some(Evidence::None)
        );
        // Pages left by meta when the rows ran out.
        assert_eq!(
            walked(&[
                (10, 10, Some(meta(None, Some(10), 1, Some(3)))),
                (0, 0, None)
            ]),
            Some(Evidence::Capped)
        );
    }

    #[test]
    fn a_repeated_page_or_the_limit_is_not_complete() {
        assert_eq!(
            walked(&[(100, 100, None), (100, 0, None)]),
            Some(Evidence::Capped)
        );
        let mut walk = Walk::new(100);
        assert!(walk.page(100, 100, None));
        walk.capped();
        assert_eq!(walk.evidence(), Evidence::Capped);
    }

    #[test]
    fn without_meta_a_short_page_needs_proof_of_per_page() {
        assert_eq!(
            walked(&[(7, 7, None)]),
            Some(Evidence::None),
            "maybe a silent cap of 7"
        );
        assert_eq!(
            walked(&[(0, 0, None)]),
            Some(Evidence::Exhausted),
            "an empty collection"
        );
        assert_eq!(
            walked(&[(100, 100, None), (30, 30, None)]),
            Some(Evidence::Exhausted)
        );
        assert_eq!(
            walked(&[(100, 100, None), (0, 0, None)]),
            Some(Evidence::Exhausted)
        );
        // A per_page the API admits is proof, even on the first page.
        let admitted = Meta {
            per_page: Some(100),
            ..Meta::default()
        };
        assert_eq!(walked(&[(7, 7, Some(admitted))]), Some(Evidence::Exhausted));
        // A meta that only says which page this is proves nothing either.
        assert_eq!(
            walked(&[(7, 7, Some(meta(None, None, 1, None)))]),
            Some(Evidence::None)
        );
        // The last page by meta, without a total.
        assert_eq!(
            walked(&[(7, 7, Some(meta(None, None, 1, Some(1))))]),
            Some(Evidence::Exhausted)
        );
    }

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
