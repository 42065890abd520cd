//! A whole-collection walk's evidence (C6): page by page, whether to read on, and what the
//! pages it read prove about `complete` ([`super::complete`] turns that into the flag).

use super::{Evidence, Meta};

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
/// promises. [`Evidence::None`] (no `complete`) when the evidence contradicts itself, or when
/// a page held a row twice or rows of an earlier page beside new ones: rows moved between
/// pages, or the API repeats itself, and a count of distinct rows that meets the total proves
/// nothing (two copies of one entity that differ in one key count as two rows).
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
    /// Some page held fewer new rows than rows, yet some: a row twice, or old rows beside new.
    partly_repeated: bool,
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
            partly_repeated: false,
            end: None,
        }
    }

    /// Records one page: `rows` items answered, `fresh` of them not seen on an earlier page,
    /// and its `meta`. Returns whether to read the next page.
    pub fn page(&mut self, rows: usize, fresh: usize, meta: Option<&Meta>) -> bool {
        let (rows, fresh) = (rows as u64, fresh as u64);
        self.seen += fresh;
        self.partly_repeated |= fresh > 0 && fresh < rows;
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
        let verdict = match (by_total, by_pages) {
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
        };
        if verdict == Evidence::Exhausted && self.partly_repeated {
            return Evidence::None;
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(total: Option<u64>, per_page: Option<u64>, current: u64, pages: Option<u64>) -> Meta {
        Meta {
            total_entries: total,
            per_page,
            current_page: Some(current),
            total_pages: pages,
        }
    }

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
    fn rows_read_twice_beside_new_ones_prove_no_total() {
        // One page of 4 rows, 3 of them distinct, under total_entries 3: the distinct count
        // meets the total, but the page holds more rows than the API says exist.
        let one = Some(meta(Some(3), Some(100), 1, Some(1)));
        assert_eq!(walked(&[(4, 3, one)]), Some(Evidence::None));
        // Page 2 repeats one row of page 1 beside new ones: rows moved between the pages.
        let m = |n| Some(meta(Some(6), Some(3), n, Some(2)));
        assert_eq!(
            walked(&[(3, 3, m(1)), (3, 2, m(2)), (1, 1, m(3))]),
            Some(Evidence::None)
        );
        // Every row new: the same pages prove the total.
        let whole = Some(meta(Some(4), Some(100), 1, Some(1)));
        assert_eq!(walked(&[(4, 4, whole)]), Some(Evidence::Exhausted));
        // Fewer rows than the total stays a sure cap, repeats or not.
        let short = Some(meta(Some(9), Some(4), 1, Some(3)));
        let mut walk = Walk::new(100);
        assert!(walk.page(4, 3, short.as_ref()));
        walk.capped();
        assert_eq!(walk.evidence(), Evidence::Capped);
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
}
