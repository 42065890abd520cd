//! Fan-out bulk: one request per item, for the bulk tools the API has no batch endpoint for
//! (`server/CONTRACT.md`, "Bulk and async"), and the answer they share.
//!
//! Items run with bounded concurrency ([`CONCURRENCY`]), every item is attempted (no stop at
//! the first failure), and results keep the caller's indexes. When every item failed with the
//! same call-level error (401, 403, no connection) the call as a whole failed, and
//! [`FanOut::call_level`] says so: one C16 error instead of N copies of it. When no item
//! succeeded for item-level reasons (a missing local file, a 409 each), `state.status` is
//! `failed` (decision: the catalogue named only `completed` and `partial`, and `partial` would
//! claim something was done).

use std::future::Future;

use futures::{StreamExt, stream};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::data::{Data, Id};
use super::view::{body, lenient, view};
use crate::contract::schema::RareState;
use crate::contract::{ErrorCode, Legacy, PostCondition, Reply, ToolError};

/// How many item requests run at once.
pub(crate) const CONCURRENCY: usize = 4;

/// The results of a fan-out, in item order.
#[derive(Debug)]
pub(crate) struct FanOut {
    /// `(index, result)` of each item that succeeded.
    pub(crate) succeeded: Vec<(usize, Value)>,
    /// `(index, error)` of each item that failed.
    pub(crate) failed: Vec<(usize, ToolError)>,
}

/// Runs `each` over `items` with [`CONCURRENCY`] requests at a time.
pub(crate) async fn run<T, F, Fut>(items: Vec<T>, each: F) -> FanOut
where
    F: Fn(usize, T) -> Fut,
    Fut: Future<Output = Result<Value, ToolError>>,
{
    let results: Vec<(usize, Result<Value, ToolError>)> =
        stream::iter(items.into_iter().enumerate().map(|(index, item)| {
            let work = each(index, item);
            async move { (index, work.await) }
        }))
        .buffered(CONCURRENCY)
        .collect()
        .await;
    let mut out = FanOut {
        succeeded: Vec::new(),
        failed: Vec::new(),
    };
    for (index, result) in results {
        match result {
            Ok(value) => out.succeeded.push((index, value)),
            Err(error) => out.failed.push((index, error)),
        }
    }
    out
}

/// Whether an error is about the call rather than the item: the token (401, 403) or the
/// connection (no status at all).
fn is_call_level(error: &ToolError) -> bool {
    match error.code() {
        ErrorCode::Unauthorized | ErrorCode::Forbidden => true,
        ErrorCode::UpstreamUnavailable => error.status().is_none(),
        _ => false,
    }
}

impl FanOut {
    /// The one error to answer with when every item failed with the same call-level error.
    pub(crate) fn call_level(&self) -> Option<ToolError> {
        if !self.succeeded.is_empty() {
            return None;
        }
        let (_, first) = self.failed.first()?;
        let same = self.failed.iter().all(|(_, e)| {
            is_call_level(e) && e.code() == first.code() && e.status() == first.status()
        });
        same.then(|| {
            first.clone().context(format!(
                "all {} items failed the same way",
                self.failed.len()
            ))
        })
    }

    /// `completed` (no failure), `partial` (some), or `failed` (no item succeeded).
    pub(crate) fn status(&self) -> &'static str {
        match (self.succeeded.is_empty(), self.failed.is_empty()) {
            (_, true) => "completed",
            (false, false) => "partial",
            (true, false) => "failed",
        }
    }

    /// `data.failed`: `[{index, error: {code, message, status?, retryable?, retry_after_s?}}]`.
    pub(crate) fn failures(&self) -> Vec<Failure> {
        self.failed
            .iter()
            .map(|(index, error)| Failure {
                index: *index,
                error: error.into(),
            })
            .collect()
    }
}

/// The `data` of a fan-out bulk tool: the ids that succeeded, in input order, and the items
/// that failed, by input position.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Bulk {
    succeeded: Vec<Id>,
    failed: Vec<Failure>,
}

/// Every fan-out answer counts what it wrote (`state.affected`).
impl Data for Bulk {
    fn state() -> RareState {
        RareState::AFFECTED
    }
}

/// One item that failed.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Failure {
    index: usize,
    error: ItemError,
}

/// The standard keys of an item's C16 error. A detail (`fields`, `tried`, `candidates`) is
/// left out: the message already names what it says.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct ItemError {
    code: &'static str,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    retryable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    retry_after_s: Option<u64>,
}

impl From<&ToolError> for ItemError {
    fn from(error: &ToolError) -> ItemError {
        ItemError {
            code: error.code().as_str(),
            message: error.message().to_owned(),
            status: error.status(),
            retryable: error.is_retryable(),
            retry_after_s: error.retry_after_s(),
        }
    }
}

/// The answer of a fan-out bulk tool: `data.succeeded` and `data.failed`, `state.status` and
/// `state.affected`, no `resource` (C4). Every item failing with the same call-level error is
/// one C16 error instead. The old payload listed each item with a prose summary.
pub(crate) fn answer(action: &str, out: FanOut) -> Result<Reply<Bulk>, ToolError> {
    if let Some(error) = out.call_level() {
        return Err(error);
    }
    let affected = out.succeeded.len();
    let failed = out.failed.len();
    let action = action.to_owned();
    let old_errors: Vec<OldError> = out
        .failed
        .iter()
        .map(|(index, e)| OldError {
            index: *index,
            error: e.message().to_owned(),
        })
        .collect();
    let post = PostCondition::status(out.status()).affected(affected);
    let data = Bulk {
        failed: out.failures(),
        succeeded: out.succeeded.into_iter().map(|(_, id)| Id(id)).collect(),
    };
    let old = Legacy::custom(move |data| {
        body(OldBulk {
            message: format!("Bulk {action} finished: {affected} succeeded, {failed} failed"),
            action,
            succeeded: view::<Succeeded>(&data).succeeded.unwrap_or_default(),
            errors: old_errors,
            summary: Summary {
                total: affected + failed,
                succeeded: affected,
                failed,
            },
        })
    });
    Ok(Reply::new(data).state(post).old(old))
}

/// The old payload of a fan-out bulk tool: a prose summary, the ids that succeeded, each
/// failure and the counts.
#[derive(Serialize)]
struct OldBulk {
    message: String,
    action: String,
    succeeded: Value,
    errors: Vec<OldError>,
    summary: Summary,
}

/// A failed item of the old payload.
#[derive(Serialize)]
struct OldError {
    index: usize,
    error: String,
}

/// The counts of the old payload.
#[derive(Serialize)]
struct Summary {
    total: usize,
    succeeded: usize,
    failed: usize,
}

/// The ids that succeeded, as the reply's `data` holds them.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Succeeded {
    #[serde(deserialize_with = "lenient")]
    succeeded: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn unauthorized() -> ToolError {
        ToolError::new(ErrorCode::Unauthorized, "401").with_status(401)
    }

    #[tokio::test]
    async fn every_item_runs_in_order_with_bounded_concurrency() {
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let out = run((0..10).collect(), |_, n: u32| {
            let running = running.clone();
            let peak = peak.clone();
            async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                tokio::task::yield_now().await;
                running.fetch_sub(1, Ordering::SeqCst);
                if n.is_multiple_of(3) {
                    Err(ToolError::new(ErrorCode::Rejected, "no"))
                } else {
                    Ok(json!(n))
                }
            }
        })
        .await;
        assert!(peak.load(Ordering::SeqCst) <= CONCURRENCY);
        assert_eq!(
            out.failed.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            vec![0, 3, 6, 9]
        );
        assert_eq!(out.succeeded.len(), 6);
        assert_eq!(out.status(), "partial");
        assert!(out.call_level().is_none());
    }

    #[tokio::test]
    async fn the_same_call_level_error_everywhere_is_one_error() {
        let out = run(vec![1, 2, 3], |_, _: i32| async { Err(unauthorized()) }).await;
        let error = out.call_level().unwrap();
        assert_eq!(error.code(), ErrorCode::Unauthorized);
        assert!(
            error
                .message()
                .starts_with("all 3 items failed the same way")
        );
        assert_eq!(out.status(), "failed");
    }

    #[tokio::test]
    async fn item_level_or_mixed_failures_stay_per_item() {
        let rejected = run(vec![1, 2], |_, _: i32| async {
            Err(ToolError::new(ErrorCode::Rejected, "409").with_status(409))
        })
        .await;
        assert!(rejected.call_level().is_none());
        let mixed = run(vec![1, 2], |i, _: i32| async move {
            if i == 0 {
                Err(unauthorized())
            } else {
                Err(ToolError::new(ErrorCode::Forbidden, "403").with_status(403))
            }
        })
        .await;
        assert!(mixed.call_level().is_none());
        assert_eq!(
            json!(mixed.failures()[0]),
            json!({"index": 0, "error": {"code": "unauthorized", "message": "401", "status": 401}})
        );
        let detailed = run(vec![1], |_, _: i32| async {
            Err(ToolError::new(ErrorCode::ValidationFailed, "name: taken")
                .with_status(409)
                .detail("fields", json!([{"field": "name", "messages": ["taken"]}])))
        })
        .await;
        assert_eq!(
            json!(detailed.failures()[0])["error"],
            json!({"code": "validation_failed", "message": "name: taken", "status": 409}),
            "details stay out of the strict error object"
        );
    }
}
