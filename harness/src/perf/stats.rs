//! The arithmetic of the performance report: medians, percentiles, paired ratios, and the
//! choice of a default concurrency from a sweep. Pure functions, so they are tested exactly.
//!
//! Every comparison is paired: the two sides run one after the other in the same repetition
//! (interleaved), and the ratio reported is the median of the per-repetition ratios, which
//! cancels most of the drift of a shared, noisy machine.

use std::time::Duration;

/// The median of `values` (the mean of the two middle ones for an even count); `None` when
/// empty. NaNs sort last.
pub fn median(values: &[f64]) -> Option<f64> {
    let sorted = sorted(values);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => sorted.get(n / 2).copied(),
        _ => Some((sorted.get(n / 2 - 1)? + sorted.get(n / 2)?) / 2.0),
    }
}

/// The `p`-th percentile (0-100) by the nearest-rank method: the smallest value such that at
/// least `p` percent of the values are at or below it; `None` when empty.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    let sorted = sorted(values);
    if sorted.is_empty() {
        return None;
    }
    let p = p.clamp(0.0, 100.0);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted
}

/// Milliseconds of a duration, as a float.
pub fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// A sample of timings in milliseconds, summarized.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// How many timings.
    pub n: usize,
    /// The median.
    pub p50: f64,
    /// The 95th percentile (nearest rank).
    pub p95: f64,
    /// The fastest.
    pub min: f64,
}

impl Summary {
    /// Summarizes `values` (milliseconds); `None` when empty.
    pub fn of(values: &[f64]) -> Option<Summary> {
        Some(Summary {
            n: values.len(),
            p50: median(values)?,
            p95: percentile(values, 95.0)?,
            min: percentile(values, 0.0)?,
        })
    }
}

/// The paired ratio `a / b`: the median over repetitions of `a[i] / b[i]` (pairs where `b` is
/// not positive are skipped); `None` when no pair is usable.
pub fn paired_ratio(a: &[f64], b: &[f64]) -> Option<f64> {
    median(&ratios(a, b))
}

/// The middle half of the per-repetition ratios `a[i] / b[i]`: their 25th and 75th
/// percentiles, how far one run's ratio can be trusted; `None` when no pair is usable.
pub fn paired_ratio_spread(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    let ratios = ratios(a, b);
    Some((percentile(&ratios, 25.0)?, percentile(&ratios, 75.0)?))
}

/// `a[i] / b[i]` for every pair where `b` is positive.
fn ratios(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .filter(|(_, b)| **b > 0.0)
        .map(|(a, b)| a / b)
        .collect()
}

/// The paired difference `a - b`: the median over repetitions of `a[i] - b[i]`.
pub fn paired_difference(a: &[f64], b: &[f64]) -> Option<f64> {
    let differences: Vec<f64> = a.iter().zip(b).map(|(a, b)| a - b).collect();
    median(&differences)
}

/// Megabytes (10^6 bytes) per second.
pub fn mb_per_s(bytes: usize, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs <= 0.0 {
        return 0.0;
    }
    bytes as f64 / 1e6 / secs
}

/// One point of a concurrency sweep: the server's median time and its ratio to the floor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepPoint {
    /// The concurrency.
    pub concurrency: usize,
    /// The server's median wall time, in milliseconds.
    pub server_p50: f64,
    /// The paired ratio server / floor.
    pub ratio: f64,
}

/// The default concurrency the data supports, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct DefaultChoice {
    /// The concurrency to use.
    pub concurrency: usize,
    /// Whether it differs from the current default.
    pub changed: bool,
    /// One sentence on why.
    pub reason: String,
}

/// Picks the default concurrency from a sweep: the fastest point by the server's median,
/// unless the current default is within `tolerance` (a fraction, 0.10 = 10%) of it, in which
/// case the current default stays (the difference is within the noise of the machine). The
/// smallest concurrency wins a tie.
pub fn pick_default(current: usize, sweep: &[SweepPoint], tolerance: f64) -> Option<DefaultChoice> {
    let best = sweep.iter().min_by(|a, b| {
        a.server_p50
            .total_cmp(&b.server_p50)
            .then(a.concurrency.cmp(&b.concurrency))
    })?;
    let at_current = sweep.iter().find(|p| p.concurrency == current);
    match at_current {
        Some(cur) if cur.concurrency == best.concurrency => Some(DefaultChoice {
            concurrency: current,
            changed: false,
            reason: format!("{current} is the fastest point of the sweep"),
        }),
        Some(cur) if cur.server_p50 <= best.server_p50 * (1.0 + tolerance) => Some(DefaultChoice {
            concurrency: current,
            changed: false,
            reason: format!(
                "{current} is within {:.0}% of the fastest ({}: {:.1} ms vs {:.1} ms): within noise, kept",
                tolerance * 100.0,
                best.concurrency,
                cur.server_p50,
                best.server_p50
            ),
        }),
        Some(cur) => Some(DefaultChoice {
            concurrency: best.concurrency,
            changed: true,
            reason: format!(
                "{} is faster than {current} by more than {:.0}% ({:.1} ms vs {:.1} ms)",
                best.concurrency,
                tolerance * 100.0,
                best.server_p50,
                cur.server_p50
            ),
        }),
        None => Some(DefaultChoice {
            concurrency: best.concurrency,
            changed: true,
            reason: format!(
                "the current default {current} was not swept; {} is the fastest point",
                best.concurrency
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratio_spread_is_the_middle_half_of_the_paired_ratios() {
        let a = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0];
        let b = [10.0; 8];
        assert_eq!(paired_ratio_spread(&a, &b), Some((2.0, 6.0)));
        assert_eq!(paired_ratio_spread(&[1.0], &[0.0]), None);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn percentile_is_nearest_rank() {
        let values: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&values, 95.0), Some(19.0));
        assert_eq!(percentile(&values, 50.0), Some(10.0));
        assert_eq!(percentile(&values, 100.0), Some(20.0));
        assert_eq!(percentile(&values, 0.0), Some(1.0));
        assert_eq!(percentile(&[7.0], 95.0), Some(7.0));
        assert_eq!(percentile(&[], 95.0), None);
        // Unsorted input, and a p above 100 clamps.
        assert_eq!(percentile(&[3.0, 1.0, 2.0], 250.0), Some(3.0));
    }

    #[test]
    fn summary_of_a_sample() {
        let s = Summary::of(&[4.0, 2.0, 8.0, 6.0]).unwrap();
        assert_eq!(s.n, 4);
        assert_eq!(s.p50, 5.0);
        assert_eq!(s.p95, 8.0);
        assert_eq!(s.min, 2.0);
        assert!(Summary::of(&[]).is_none());
    }

    #[test]
    fn paired_ratio_is_the_median_of_per_pair_ratios() {
        // Pairs: 2.0, 1.5, 4.0 (the drifting third pair does not move the median much).
        let a = [2.0, 3.0, 40.0];
        let b = [1.0, 2.0, 10.0];
        assert_eq!(paired_ratio(&a, &b), Some(2.0));
        // A zero floor is skipped rather than dividing by it.
        assert_eq!(paired_ratio(&[1.0, 2.0], &[0.0, 1.0]), Some(2.0));
        assert_eq!(paired_ratio(&[1.0], &[0.0]), None);
        assert_eq!(
            paired_difference(&[3.0, 5.0, 9.0], &[1.0, 1.0, 1.0]),
            Some(4.0)
        );
    }

    #[test]
    fn throughput_in_megabytes_per_second() {
        assert_eq!(mb_per_s(2_000_000, Duration::from_millis(500)), 4.0);
        assert_eq!(mb_per_s(1, Duration::ZERO), 0.0);
        assert_eq!(ms(Duration::from_micros(1500)), 1.5);
    }

    fn point(concurrency: usize, server_p50: f64) -> SweepPoint {
        SweepPoint {
            concurrency,
            server_p50,
            ratio: 1.0,
        }
    }

    #[test]
    fn the_current_default_stays_when_within_noise() {
        let sweep = [
            point(1, 80.0),
            point(4, 30.0),
            point(8, 31.0),
            point(16, 32.0),
        ];
        let choice = pick_default(8, &sweep, 0.10).unwrap();
        assert_eq!(choice.concurrency, 8);
        assert!(!choice.changed);
        assert!(choice.reason.contains("within 10%"), "{}", choice.reason);
    }

    #[test]
    fn a_clearly_faster_point_replaces_the_default() {
        let sweep = [
            point(1, 80.0),
            point(4, 20.0),
            point(8, 31.0),
            point(16, 32.0),
        ];
        let choice = pick_default(8, &sweep, 0.10).unwrap();
        assert_eq!(choice.concurrency, 4);
        assert!(choice.changed);
    }

    #[test]
    fn the_fastest_default_and_ties() {
        let sweep = [point(1, 80.0), point(8, 20.0)];
        let choice = pick_default(8, &sweep, 0.10).unwrap();
        assert_eq!((choice.concurrency, choice.changed), (8, false));
        // A tie goes to the smaller concurrency; an unswept default is replaced.
        let tie = [point(16, 20.0), point(4, 20.0)];
        let choice = pick_default(8, &tie, 0.10).unwrap();
        assert_eq!((choice.concurrency, choice.changed), (4, true));
        assert!(pick_default(8, &[], 0.10).is_none());
    }
}
