//! The measurement's tests: the envelope's parts sum to the payload, the break-even by calls
//! and by billed sessions.

use super::*;
use crate::report::BreakEven;
use crate::tokens::Count;
use serde_json::json;

#[test]
fn envelope_parts_sum_to_the_payload() {
    let payload = json!({"platform": {"name": "a", "host": "b"}, "data": [1, 2], "resource": {"type": "space"}, "state": {"returned": 2}});
    let cost = envelope_cost(payload.as_object().unwrap());
    let total = compact(&payload).chars().count() as u64;
    assert_eq!(cost.payload, 5);
    assert_eq!(cost.overhead + cost.payload, total);
    assert_eq!(
        cost.platform + cost.resource + cost.state + cost.control + cost.framing,
        cost.overhead
    );
    assert_eq!(cost.framing, 2 + r#","data":"#.len() as u64);
}

#[test]
fn break_even_is_the_first_call_count_that_pays_back() {
    let c = |chars| Count {
        chars,
        o200k_base: chars,
        cl100k_base: chars,
    };
    // +100 once, -30 per call on average over 3 calls: 4 calls pay back.
    let b = BreakEven::of(c(1000), c(1100), c(300), c(210), 3);
    assert_eq!(b.primary, Some(4));
    assert_eq!(
        BreakEven::of(c(1000), c(900), c(2), c(2), 1).primary,
        Some(0)
    );
    // A smaller catalogue does not pay back calls that cost more: cheaper only at first.
    assert_eq!(BreakEven::of(c(1000), c(900), c(1), c(2), 1).primary, None);
    assert_eq!(
        BreakEven::of(c(1000), c(1100), c(10), c(10), 1).primary,
        None
    );
}

#[test]
fn billed_break_even_is_the_first_session_whose_summed_requests_cost_less() {
    use crate::report::billed_input;
    let c = |chars| Count {
        chars,
        o200k_base: chars,
        cl100k_base: chars,
    };
    // +100 once, -30 per call: the final context pays back at 4 calls, the bill at 7
    // (each request re-sends the extra catalogue, each saving is paid back only later).
    let b = BreakEven::billed(c(1000), c(1100), c(300), c(210), 3);
    assert_eq!(b.primary, Some(7));
    // Held against the bills themselves, for many sessions: from n on, after bills no more.
    for (cb, ca, sb, sa, calls) in [
        (1000_u64, 1100_u64, 300_u64, 210_u64, 3_usize),
        (10_689, 10_806, 1_572, 851, 1),
        (10_689, 21_818, 1_572, 851, 1),
        (500, 400, 50, 60, 1),
    ] {
        let be = BreakEven::billed(c(cb), c(ca), c(sb), c(sa), calls).primary;
        let per = |s: u64| s as f64 / calls as f64;
        let cheaper =
            |n: u64| billed_input(ca as f64, per(sa), n) <= billed_input(cb as f64, per(sb), n);
        match be {
            Some(n) => {
                assert!((n..n + 500).all(cheaper), "{cb} {ca} {sb} {sa}: from {n}");
                assert!(
                    n == 0 || !cheaper(n - 1),
                    "{cb} {ca} {sb} {sa}: {n} is the first"
                );
            }
            None => assert!(!cheaper(10_000), "{cb} {ca} {sb} {sa}: never"),
        }
    }
    // The bill of a session: 3 requests of catalogue 10, results 5 and 5 + 5.
    assert_eq!(billed_input(10.0, 5.0, 2), 45.0);
}
