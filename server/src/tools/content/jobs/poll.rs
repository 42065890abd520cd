//! Polling a background job with backoff until it ends or the caller's wait is over.

use std::future::Future;
use std::time::Duration;

use serde_json::Value;

use super::JobView;
use crate::contract::ToolError;

/// The first pause between two polls; each following one doubles, up to [`MAX_DELAY`].
pub(crate) const FIRST_DELAY: Duration = Duration::from_millis(250);
/// The longest pause between two polls.
pub(crate) const MAX_DELAY: Duration = Duration::from_secs(5);
/// The last body read, what it says, and how many reads it took.
#[derive(Debug)]
pub(crate) struct Polled {
    pub(crate) job: Value,
    pub(crate) view: JobView,
    pub(crate) polls: usize,
}

/// Reads the job with `fetch` until it ends or `wait` has passed, pausing [`FIRST_DELAY`],
/// then twice as long each time up to [`MAX_DELAY`], never past the deadline; the last read
/// happens at the deadline. `wait` zero reads once. Time is `tokio::time`, so a paused clock
/// drives it in tests.
pub(crate) async fn poll<F, Fut>(wait: Duration, mut fetch: F) -> Result<Polled, ToolError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Value, ToolError>>,
{
    let deadline = tokio::time::Instant::now() + wait;
    let mut delay = FIRST_DELAY;
    let mut polls = 0;
    loop {
        let job = fetch().await?;
        polls += 1;
        let view = JobView::parse(&job)?;
        let now = tokio::time::Instant::now();
        if view.ended() || now >= deadline {
            return Ok(Polled { job, view, polls });
        }
        tokio::time::sleep(delay.min(deadline - now)).await;
        delay = (delay * 2).min(MAX_DELAY);
    }
}
