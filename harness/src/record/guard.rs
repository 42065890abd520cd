//! The proxy's guard: what may leave for the live account, how much, how fast.
//!
//! A [`Guard`] is shared by every recording proxy of a run (clone it: the clones share one
//! state). Before a request is forwarded it is held to the [`Limits`]:
//!
//! - **read-only** ([`Limits::read_only`]): any method but `GET` is refused on the spot and
//!   never sent, whatever the server behind the proxy asked for;
//! - **a request budget** ([`Limits::budget`]): once that many requests have left, every
//!   further one is refused locally (retries count: each attempt is a request that left);
//! - **polite concurrency** ([`Limits::concurrency`]): at most that many requests in flight
//!   to the account at once;
//! - **`Retry-After`**: a `429` or `503` answer is retried (up to [`Limits::retries`] times)
//!   after the delay it asks for, in delta-seconds or as an HTTP date, and every request of
//!   the run waits out that pause, since a rate limit is the account's, not one request's.
//!   Without the header the wait is [`Limits::default_wait`]; a delay longer than
//!   [`Limits::max_wait`] is not waited for: that answer is passed on as it is.
//!
//! The counters ([`Guard::stats`]) say what happened; the refusals carry no request detail.

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use serde::Serialize;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// What the guard lets through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// Refuse every method but `GET`.
    pub read_only: bool,
    /// How many requests may leave in all (`None`: no limit).
    pub budget: Option<usize>,
    /// How many requests may be in flight at once (at least 1).
    pub concurrency: usize,
    /// How many times one request is retried after a `429` or `503`.
    pub retries: u32,
    /// The longest `Retry-After` honoured; a longer one is passed on unretried.
    #[serde(with = "seconds")]
    pub max_wait: Duration,
    /// The wait after a `429` or `503` without a usable `Retry-After`.
    #[serde(with = "seconds")]
    pub default_wait: Duration,
}

mod seconds {
    use std::time::Duration;

    pub(super) fn serialize<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }
}

impl Limits {
    /// Read-only, no budget, 2 requests in flight, 3 retries, waits of up to 120 s (2 s when
    /// the account does not say).
    pub fn read_only() -> Limits {
        Limits {
            read_only: true,
            budget: None,
            concurrency: 2,
            retries: 3,
            max_wait: Duration::from_secs(120),
            default_wait: Duration::from_secs(2),
        }
    }

    /// Sets the request budget.
    pub fn budget(mut self, requests: usize) -> Limits {
        self.budget = Some(requests);
        self
    }

    /// Sets how many requests may be in flight at once (0 counts as 1).
    pub fn concurrency(mut self, requests: usize) -> Limits {
        self.concurrency = requests.max(1);
        self
    }
}

/// Why a request was not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// Read-only: this method is never forwarded.
    Method(String),
    /// The request budget is spent.
    Budget(usize),
}

impl Refusal {
    /// The status the proxy answers the server with: `405` for a method, `503` for the budget.
    pub fn status(&self) -> u16 {
        match self {
            Refusal::Method(_) => 405,
            Refusal::Budget(_) => 503,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Method(method) => write!(
                f,
                "record proxy: read-only, {method} refused; nothing was sent to the account"
            ),
            Refusal::Budget(budget) => write!(
                f,
                "record proxy: the request budget ({budget}) is spent; nothing was sent to the account"
            ),
        }
    }
}

/// What the guard let through and held back so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct GuardStats {
    /// Requests that left for the account (each retry counts).
    pub sent: usize,
    /// Requests refused for their method.
    pub refused_methods: usize,
    /// Requests refused because the budget was spent.
    pub refused_budget: usize,
    /// Retries after a `429` or `503`.
    pub retries: usize,
}

struct State {
    limits: Limits,
    sent: AtomicUsize,
    refused_methods: AtomicUsize,
    refused_budget: AtomicUsize,
    retries: AtomicUsize,
    in_flight: Semaphore,
    paused_until: Mutex<Option<Instant>>,
}

/// The shared guard of a run; clones share their state.
#[derive(Clone)]
pub struct Guard {
    state: Arc<State>,
}

impl fmt::Debug for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Guard")
            .field("limits", &self.state.limits)
            .field("stats", &self.stats())
            .finish()
    }
}

impl Guard {
    /// A guard holding requests to `limits`.
    pub fn new(limits: Limits) -> Guard {
        let permits = limits.concurrency.max(1);
        Guard {
            state: Arc::new(State {
                limits,
                sent: AtomicUsize::new(0),
                refused_methods: AtomicUsize::new(0),
                refused_budget: AtomicUsize::new(0),
                retries: AtomicUsize::new(0),
                in_flight: Semaphore::new(permits),
                paused_until: Mutex::new(None),
            }),
        }
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.state.limits
    }

    /// The counters so far.
    pub fn stats(&self) -> GuardStats {
        GuardStats {
            sent: self.state.sent.load(Ordering::SeqCst),
            refused_methods: self.state.refused_methods.load(Ordering::SeqCst),
            refused_budget: self.state.refused_budget.load(Ordering::SeqCst),
            retries: self.state.retries.load(Ordering::SeqCst),
        }
    }

    /// Whether the budget is spent (no further request can leave).
    pub fn spent(&self) -> bool {
        self.state
            .limits
            .budget
            .is_some_and(|budget| self.state.sent.load(Ordering::SeqCst) >= budget)
    }

    /// Refuses (and counts) a method the limits do not let through.
    pub fn admit(&self, method: &str) -> Result<(), Refusal> {
        if self.state.limits.read_only && !method.eq_ignore_ascii_case("GET") {
            self.state.refused_methods.fetch_add(1, Ordering::SeqCst);
            return Err(Refusal::Method(method.to_ascii_uppercase()));
        }
        Ok(())
    }

    /// Takes one request from the budget, or refuses (and counts) it.
    fn take(&self) -> Result<(), Refusal> {
        let Some(budget) = self.state.limits.budget else {
            self.state.sent.fetch_add(1, Ordering::SeqCst);
            return Ok(());
        };
        self.state
            .sent
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < budget).then_some(n + 1)
            })
            .map(|_| ())
            .map_err(|_| {
                self.state.refused_budget.fetch_add(1, Ordering::SeqCst);
                Refusal::Budget(budget)
            })
    }

    /// Waits until no pause asked by the account is running.
    async fn wait_out_pause(&self) {
        loop {
            let until = *self
                .state
                .paused_until
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            match until {
                Some(until) if until > Instant::now() => tokio::time::sleep_until(until).await,
                _ => return,
            }
        }
    }

    /// Pauses every request of the run for `wait` (a longer running pause is kept).
    fn pause(&self, wait: Duration) {
        let until = Instant::now() + wait;
        let mut paused = self
            .state
            .paused_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if paused.is_none_or(|p| p < until) {
            *paused = Some(until);
        }
    }

    /// Sends one request through the limits: `attempt` sends it (again on a retry), and
    /// `throttled` says whether an answer is a `429`/`503`, with its `Retry-After` value.
    /// `Err` when the budget refused it before it left (a retry refused by the budget gives
    /// the last answer instead).
    pub async fn send<T, E, F, Fut>(
        &self,
        mut attempt: F,
        throttled: impl Fn(&T) -> Option<Option<String>>,
    ) -> Result<Result<T, E>, Refusal>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let mut tries = 0;
        let mut last: Option<Result<T, E>> = None;
        loop {
            self.wait_out_pause().await;
            let permit = self.state.in_flight.acquire().await;
            if let Err(refusal) = self.take() {
                return last.ok_or(refusal);
            }
            let result = attempt().await;
            drop(permit);
            let retry_after = match &result {
                Ok(answer) => throttled(answer),
                Err(_) => None,
            };
            let Some(retry_after) = retry_after else {
                return Ok(result);
            };
            if tries >= self.state.limits.retries {
                return Ok(result);
            }
            let wait = retry_after
                .as_deref()
                .and_then(|v| retry_delay(v, SystemTime::now()))
                .unwrap_or(self.state.limits.default_wait);
            if wait > self.state.limits.max_wait {
                tracing::warn!(
                    wait_s = wait.as_secs(),
                    "the account asked to wait longer than the longest wait honoured; not retried"
                );
                return Ok(result);
            }
            tracing::warn!(
                wait_s = wait.as_secs_f64(),
                "the account is throttling: waiting as Retry-After asks"
            );
            self.pause(wait);
            self.state.retries.fetch_add(1, Ordering::SeqCst);
            tries += 1;
            last = Some(result);
        }
    }
}

/// The delay a `Retry-After` value asks for: delta-seconds, or an HTTP date (IMF-fixdate,
/// `Sun, 06 Nov 1994 08:49:37 GMT`) relative to `now` (a date in the past is no delay).
/// `None` when it is neither.
pub fn retry_delay(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = http_date(value)?;
    let now = now.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Seconds since 1970 of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn http_date(value: &str) -> Option<u64> {
    let rest = value.split_once(", ")?.1;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = parts[..] else {
        return None;
    };
    let day: u64 = day.parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| *m == month)? as u64
        + 1;
    let year: u64 = year.parse().ok()?;
    let hms: Vec<u64> = time
        .split(':')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let [h, m, s] = hms[..] else {
        return None;
    };
    if !(1..=31).contains(&day) || year < 1970 || h > 23 || m > 59 || s > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + h * 3_600 + m * 60 + s)
}

/// Days since 1970-01-01 of a calendar date (Howard Hinnant's algorithm, years from 1970).
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let yoe = year - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(retry_delay("0", now), Some(Duration::ZERO));
        assert_eq!(retry_delay(" 30 ", now), Some(Duration::from_secs(30)));
        // 1994-11-06 08:49:37 UTC is 784111777.
        assert_eq!(
            retry_delay("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            retry_delay("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO),
            "a date in the past is no wait"
        );
        assert_eq!(
            http_date("Thu, 29 Feb 2024 00:00:00 GMT"),
            Some(19_782 * 86_400)
        );
        for bad in [
            "soon",
            "-1",
            "Sun, 06 Nov 1994 08:49:37 CET",
            "Sun, 32 Nov 1994 08:49:37 GMT",
        ] {
            assert_eq!(retry_delay(bad, now), None, "{bad}");
        }
    }

    #[test]
    fn read_only_refuses_every_method_but_get() {
        let guard = Guard::new(Limits::read_only());
        assert!(guard.admit("GET").is_ok());
        assert!(guard.admit("get").is_ok());
        for method in ["POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE"] {
            let refusal = guard.admit(method).expect_err(method);
            assert_eq!(refusal.status(), 405);
            assert!(refusal.to_string().contains(method), "{refusal}");
        }
        assert_eq!(guard.stats().refused_methods, 7);
        let open = Guard::new(Limits {
            read_only: false,
            ..Limits::read_only()
        });
        assert!(open.admit("POST").is_ok());
    }

    #[tokio::test]
    async fn the_budget_holds_and_throttled_answers_are_retried() {
        let guard = Guard::new(Limits::read_only().budget(3));
        // 503 with Retry-After: 0, then 200: one retry, two requests.
        let mut answers = vec![200_u16, 503];
        let result = guard
            .send(
                || {
                    let status = answers.pop().unwrap_or(200);
                    async move { Ok::<u16, ()>(status) }
                },
                |status| (*status == 503).then(|| Some("0".to_owned())),
            )
            .await;
        assert_eq!(result, Ok(Ok(200)));
        assert_eq!(guard.stats().retries, 1);
        assert_eq!(guard.stats().sent, 2);
        // Throttled for good: the retry is refused by the budget, the last answer is kept.
        let result = guard
            .send(
                || async { Ok::<u16, ()>(429) },
                |status| (*status == 429).then(|| Some("0".to_owned())),
            )
            .await;
        assert_eq!(result, Ok(Ok(429)));
        assert!(guard.spent());
        let refused = guard
            .send(|| async { Ok::<u16, ()>(200) }, |_| None)
            .await
            .expect_err("the budget is spent");
        assert_eq!(refused, Refusal::Budget(3));
        assert_eq!(guard.stats().sent, 3);
        assert_eq!(guard.stats().refused_budget, 2);
    }

    #[tokio::test]
    async fn a_wait_longer_than_the_longest_honoured_is_not_retried() {
        let guard = Guard::new(Limits::read_only());
        let mut calls = 0;
        let result = guard
            .send(
                || {
                    calls += 1;
                    async { Ok::<u16, ()>(429) }
                },
                |_| Some(Some("3600".to_owned())),
            )
            .await;
        assert_eq!(result, Ok(Ok(429)));
        assert_eq!(calls, 1);
        assert_eq!(guard.stats().retries, 0);
    }
}
