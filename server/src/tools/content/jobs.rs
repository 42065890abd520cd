//! Background jobs: `content-jobs-manage` and the in-memory registry of the jobs this server
//! process started.
//!
//! `content-entries-bulk` answers 202 `{"job_id"}` and records the job in the [`JobRegistry`]
//! of the server instance (its [`crate::app::ToolState`]: no global state, so two servers in one
//! process never see each other's jobs). `list` answers from that registry alone, the corpus the
//! server holds whole (C6 case 3); it starts empty after a restart. `get` reads
//! `GET /api/admin/background_jobs/{uuid}` for any job, registered or not, and with `wait_s`
//! polls with backoff ([`poll`]) on `tokio::time`, so tests drive it with a paused clock.
//! `cancel` is the one mutating action (`DELETE`, synthetic path) and reports the status the API
//! reads back. It needs no `confirmDelete`: it stops work, it deletes no content (decision).

use std::time::Duration;

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Module;
use crate::contract::schema::RareState;
use crate::contract::{
    Coverage, ErrorCode, Evidence, Legacy, Outcome, PostCondition, Reply, Resource, ToolClass,
    ToolError, legacy,
};
use crate::modyo::resolve::is_uuid;
use crate::modyo::{ModyoClient, Query};
use crate::tools::engine::tool::{Call, CallError, ToolDef, tool};
use crate::tools::engine::{Action, Answer, Data, Verb, command, lenient, view};

mod poll;
mod registry;

use poll::poll;
pub(crate) use registry::{JobRecord, JobRegistry};

/// `/api/admin/background_jobs`.
const JOBS: &str = "/api/admin/background_jobs";
/// The longest `wait_s` a `get` accepts.
pub(crate) const MAX_WAIT_S: u64 = 60;
/// Where a job is, from the API's `status` word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Queued,
    Running,
    Done,
    Failed,
    Cancelled,
    /// A status word the server does not know: reported as is, and not taken as the end.
    Unknown,
}

impl Phase {
    fn of(status: &str) -> Phase {
        match status.to_ascii_lowercase().as_str() {
            "queued" | "pending" | "enqueued" | "waiting" | "scheduled" => Phase::Queued,
            "running" | "in_progress" | "processing" | "working" | "started" => Phase::Running,
            "completed" | "complete" | "finished" | "done" | "success" | "succeeded" => Phase::Done,
            "failed" | "failure" | "error" | "errored" => Phase::Failed,
            "cancelled" | "canceled" | "aborted" | "killed" => Phase::Cancelled,
            _ => Phase::Unknown,
        }
    }

    fn ended(self) -> bool {
        matches!(self, Phase::Done | Phase::Failed | Phase::Cancelled)
    }
}

/// What the server reads in a background job body
/// (`{uuid, status, progress, total, created: [uuid], errors: {index: [text]}, ...}`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JobView {
    phase: Phase,
    status: String,
    progress: Option<u64>,
    created: Option<Vec<String>>,
    succeeded: Option<usize>,
    total: Option<usize>,
    errors: Vec<ItemErrors>,
}

/// The keys of a background job body, as sent ([`JobView::parse`] reads them).
#[derive(Default, Deserialize)]
#[serde(default)]
struct JobBody {
    #[serde(deserialize_with = "lenient")]
    status: Option<String>,
    #[serde(deserialize_with = "lenient")]
    progress: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    created: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    uuids: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    succeeded: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    total: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    errors: Option<Value>,
}

impl JobView {
    /// Reads a job body; a body without a `status` word cannot say whether the job ended.
    pub(crate) fn parse(job: &Value) -> Result<JobView, ToolError> {
        let job: JobBody = view(job);
        let status = job.status.ok_or_else(|| {
            ToolError::new(
                ErrorCode::InvalidUpstreamResponse,
                "the background job has no status; it cannot tell whether it ended",
            )
        })?;
        let created = match job.created.or(job.uuids) {
            Some(Value::Array(items)) => Some(
                items
                    .into_iter()
                    .filter_map(|item| match item {
                        Value::String(uuid) => Some(uuid),
                        Value::Object(o) => o.get("uuid")?.as_str().map(str::to_owned),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        };
        let progress = job
            .progress
            .and_then(|p| p.as_u64().or_else(|| p.as_f64().map(|f| f.round() as u64)))
            .map(|p| p.min(100));
        Ok(JobView {
            phase: Phase::of(&status),
            status,
            progress,
            created,
            succeeded: job.succeeded.map(|n| n as usize),
            total: job.total.map(|n| n as usize),
            errors: item_errors(job.errors.as_ref()),
        })
    }

    /// Whether the job ended (completed, failed or cancelled).
    pub(crate) fn ended(&self) -> bool {
        self.phase.ended()
    }

    /// The items that succeeded: the uuids created, else the API's own count, else the total
    /// minus the items with errors. `None` when the body says none of these.
    fn affected(&self) -> Option<usize> {
        match (&self.created, self.succeeded, self.total) {
            (Some(created), _, _) => Some(created.len()),
            (None, Some(succeeded), _) => Some(succeeded),
            (None, None, Some(total)) => Some(total.saturating_sub(self.errors.len())),
            (None, None, None) => None,
        }
    }

    /// The `state.status` word: `queued`/`running` while it runs; at the end `completed`,
    /// `partial` (some items failed), `failed` or `cancelled`.
    pub(crate) fn status(&self) -> String {
        match self.phase {
            Phase::Queued => "queued".into(),
            Phase::Running => "running".into(),
            Phase::Unknown => self.status.clone(),
            Phase::Failed => "failed".into(),
            Phase::Cancelled => "cancelled".into(),
            Phase::Done if self.errors.is_empty() => "completed".into(),
            Phase::Done if self.affected() == Some(0) => "failed".into(),
            Phase::Done => "partial".into(),
        }
    }

    /// The post-condition: `pending` while it runs, `status` and `affected` at the end.
    pub(crate) fn post_condition(&self) -> PostCondition {
        let post = PostCondition::status(self.status()).pending(!self.ended());
        match (self.ended(), self.affected()) {
            (true, Some(affected)) => post.affected(affected),
            _ => post,
        }
    }

    /// `data` of a `get`: `{job_id, progress?, created, errors}` (status lives in `state`).
    fn data(&self, job_id: &str) -> JobData {
        JobData {
            jobs: None,
            job_id: Some(job_id.to_owned()),
            progress: self.progress,
            created: Some(self.created.clone().unwrap_or_default()),
            errors: Some(self.errors.clone()),
        }
    }
}

/// The `data` of `content-jobs-manage`: `list` answers `jobs`; `get` and `cancel` answer the
/// job's `job_id`, `progress` (when the API says it), `created` and `errors`.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct JobData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<JobRecord>")]
    jobs: Option<Vec<JobRecord>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    job_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64", range(max = 100))]
    progress: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    created: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<ItemErrors>")]
    errors: Option<Vec<ItemErrors>>,
}

/// A job's answers move `state.pending` and, at the end, `state.affected`.
impl Data for JobData {
    fn state() -> RareState {
        RareState::PENDING.union(RareState::AFFECTED)
    }
}

/// `{index, errors: [text]}`: the errors of one item of a bulk request. Counts here and in
/// [`JobRecord`] are declared `integer` without the `minimum` an unsigned type derives: the
/// catalogue's output-schema budget has no room for it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct ItemErrors {
    #[schemars(with = "i64")]
    index: u64,
    errors: Vec<String>,
}

/// `errors` keyed by item index (`{"3": ["Slug taken"]}` or `[{index, errors|messages}]`) as
/// `[{index, errors: [text]}]`, sorted by index.
pub(crate) fn item_errors(errors: Option<&Value>) -> Vec<ItemErrors> {
    let mut out: Vec<(u64, Vec<String>)> = Vec::new();
    match errors {
        Some(Value::Object(by_index)) => {
            for (index, said) in by_index {
                if let Ok(index) = index.trim().parse::<u64>() {
                    out.push((index, texts(said)));
                }
            }
        }
        Some(Value::Array(items)) => {
            for item in items.iter().map(view::<Said>) {
                let Some(index) = item.index else {
                    continue;
                };
                let said = item.errors.or(item.messages).unwrap_or(Value::Null);
                out.push((index, texts(&said)));
            }
        }
        _ => {}
    }
    out.sort_by_key(|(index, _)| *index);
    out.into_iter()
        .map(|(index, errors)| ItemErrors { index, errors })
        .collect()
}

/// An item of a job's `errors` (`{index, errors|messages}`), or one of its `{field, messages}`.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Said {
    #[serde(deserialize_with = "lenient")]
    index: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    field: Option<String>,
    #[serde(deserialize_with = "lenient")]
    errors: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    messages: Option<Value>,
}

/// The human texts of one item's errors: strings, or `{field, messages}` objects.
fn texts(said: &Value) -> Vec<String> {
    match said {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .flat_map(|item| match item {
                Value::String(s) => vec![s.clone()],
                Value::Object(_) => {
                    let said: Said = view(item);
                    let field = said.field.unwrap_or_default();
                    let messages = texts(&said.messages.unwrap_or(Value::Null));
                    messages
                        .into_iter()
                        .map(|m| {
                            if field.is_empty() {
                                m
                            } else {
                                format!("{field}: {m}")
                            }
                        })
                        .collect()
                }
                _ => Vec::new(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `GET /api/admin/background_jobs/{uuid}`, with a 404 that says what to do.
async fn read_job(client: &ModyoClient, job_id: &str) -> Result<Value, ToolError> {
    super::read_one(client, &format!("{JOBS}/{job_id}"), || {
        format!(
            "background job {job_id} not found; jobs started by this server are listed by content-jobs-manage list"
        )
    })
    .await
}

command! {
    /// What `content-jobs-manage` can be asked (`get` and `cancel` check their `job` alike).
    enum JobCommand for ManageArgs {
        List => Verb::list(),
        Get => Verb::read("get"),
        Cancel => Verb::write("cancel"),
    }
}

const JOBS_MANAGE: &str = "content-jobs-manage";

/// Arguments of `content-jobs-manage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ManageArgs {
    /// list, get (default) or cancel.
    action: Option<Action>,
    /// Job uuid (get, cancel), as content-entries-bulk returned it.
    job: Option<String>,
    /// get: seconds to wait for the job to end, polling with backoff (0 to 60, default 0).
    #[schemars(range(max = 60))]
    wait_s: Option<u64>,
}

pub(crate) fn manage_tool() -> ToolDef {
    tool(JOBS_MANAGE, Module::Content, ToolClass::Gated)
        .describe(
            "Follow background jobs of content-entries-bulk. list: data.jobs, the jobs this server process started \
(in memory, empty after a restart). get: job (uuid), optional wait_s (<=60) polls until the job ends; state.pending \
while it runs, then state.status completed|partial|failed|cancelled, state.affected, data.created (uuids), \
data.errors [{index, errors}]. cancel: stops a running job.",
        )
        .resource()
        .state()
        .actions(command::words::<JobCommand>(true), command::words::<JobCommand>(false))
        .handle(manage)
        .offers::<JobCommand>()
}

async fn manage(call: Call, args: ManageArgs) -> Answer<JobData> {
    let word = args.action.as_ref().map_or("get", Action::as_str);
    let command = command::parse::<JobCommand>(JOBS_MANAGE, word, &args)?;
    if let JobCommand::List = command {
        return Ok(list(&call));
    }
    let job_id = match args.job.as_deref().map(str::trim) {
        Some(id) if is_uuid(id) => id.to_owned(),
        Some(other) => {
            return Err(CallError::Arguments(format!(
                "job must be the uuid content-entries-bulk returned (got '{other}')"
            )));
        }
        None => {
            return Err(CallError::Arguments(
                "get and cancel need job (the job uuid content-entries-bulk returned)".into(),
            ));
        }
    };
    if let JobCommand::Cancel = command {
        return cancel(&call, &job_id).await;
    }
    let client = call.client()?;
    let wait = Duration::from_secs(args.wait_s.unwrap_or(0).min(MAX_WAIT_S));
    let polled = poll(wait, || read_job(client, &job_id)).await?;
    tracing::debug!(job = %job_id, polls = polled.polls, "job read");
    let view = polled.view;
    call.app.state.get::<JobRegistry>().update(
        &job_id,
        &view.status(),
        view.ended().then(|| view.affected()).flatten(),
    );
    let job = polled.job;
    Ok(Reply::new(view.data(&job_id))
        .resource(Resource::new("job").uuid(job_id))
        .state(view.post_condition())
        .old(Legacy::custom(move |_| job))
        .into())
}

/// `list`: the registry, whole (C6 case 3) unless older jobs were dropped from it.
fn list(call: &Call) -> Outcome<JobData> {
    let (jobs, dropped) = call.app.state.get::<JobRegistry>().snapshot();
    let returned = jobs.len();
    let coverage = if dropped == 0 {
        Coverage::with_evidence(returned, Evidence::WholeCorpus)
    } else {
        Coverage::with_evidence(returned, Evidence::Total((returned + dropped) as u64))
    };
    // The old payload added the count beside the rows.
    let old = Legacy::custom(move |mut data| {
        if let Value::Object(payload) = &mut data {
            payload.insert("total".into(), Value::from(returned));
        }
        data
    });
    Reply::new(JobData {
        jobs: Some(jobs),
        job_id: None,
        progress: None,
        created: None,
        errors: None,
    })
    .state(coverage)
    .old(old)
    .into()
}

/// `cancel`: `DELETE` the job, then report the status the API reads back (a job that ended
/// before the cancel arrived says so).
async fn cancel(call: &Call, job_id: &str) -> Answer<JobData> {
    let client = call.client()?;
    let path = format!("{JOBS}/{job_id}");
    let response = client
        .send(Method::DELETE, &path, &Query::new(), None)
        .await?;
    let job = if response.get("status").is_some() {
        response
    } else {
        read_job(client, job_id).await?
    };
    let view = JobView::parse(&job)?;
    call.app.state.get::<JobRegistry>().update(
        job_id,
        &view.status(),
        view.ended().then(|| view.affected()).flatten(),
    );
    Ok(Reply::new(view.data(job_id))
        .resource(Resource::new("job").uuid(job_id))
        .state(view.post_condition())
        .old(Legacy::custom(move |_| {
            legacy::write("cancelled", "Job cancelled", "job", job)
        }))
        .into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn job(status: &str) -> Value {
        json!({"uuid": "j", "status": status, "progress": 40, "total": 5, "created": ["a", "b"], "errors": {}})
    }

    #[test]
    fn a_finished_job_with_item_errors_is_partial_and_counts_successes() {
        let body = json!({
            "status": "completed", "progress": 100, "total": 5,
            "created": ["u1", "u2", "u3", "u4"],
            "errors": {"3": ["Slug has already been taken"]}
        });
        let view = JobView::parse(&body).unwrap();
        assert_eq!(view.status(), "partial");
        assert_eq!(
            serde_json::to_value(view.post_condition()).unwrap(),
            json!({"status": "partial", "pending": false, "affected": 4})
        );
        assert_eq!(
            json!(view.data("j"))["errors"],
            json!([{"index": 3, "errors": ["Slug has already been taken"]}])
        );
    }

    #[test]
    fn running_jobs_are_pending_without_affected() {
        let view = JobView::parse(&job("running")).unwrap();
        assert!(!view.ended());
        assert_eq!(
            serde_json::to_value(view.post_condition()).unwrap(),
            json!({"status": "running", "pending": true})
        );
        assert_eq!(
            JobView::parse(&job("Whatever")).unwrap().status(),
            "Whatever"
        );
        assert!(JobView::parse(&json!({"progress": 1})).is_err());
    }

    #[test]
    fn finished_jobs_where_nothing_succeeded_failed() {
        let body = json!({"status": "finished", "created": [], "errors": [{"index": 0, "messages": [{"field": "name", "messages": ["can't be blank"]}]}]});
        let view = JobView::parse(&body).unwrap();
        assert_eq!(view.status(), "failed");
        assert_eq!(
            json!(view.data("j"))["errors"],
            json!([{"index": 0, "errors": ["name: can't be blank"]}])
        );
        let counted =
            JobView::parse(&json!({"status": "done", "total": 3, "errors": {"1": "x"}})).unwrap();
        assert_eq!(counted.affected(), Some(2));
        assert_eq!(
            JobView::parse(&json!({"status": "done"}))
                .unwrap()
                .affected(),
            None
        );
    }

    /// A fetcher that answers the statuses in order (the last one forever) and counts calls.
    fn scripted(
        statuses: &'static [&'static str],
    ) -> (
        Arc<AtomicUsize>,
        impl FnMut() -> std::future::Ready<Result<Value, ToolError>>,
    ) {
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = calls.clone();
        let fetch = move || {
            let n = seen.fetch_add(1, Ordering::SeqCst);
            let status = statuses[n.min(statuses.len() - 1)];
            std::future::ready(Ok(job(status)))
        };
        (calls, fetch)
    }

    #[tokio::test(start_paused = true)]
    async fn polling_backs_off_until_the_job_ends() {
        let (calls, fetch) = scripted(&["queued", "running", "running", "completed"]);
        let started = tokio::time::Instant::now();
        let polled = poll(Duration::from_secs(60), fetch).await.unwrap();
        assert_eq!(polled.polls, 4);
        assert_eq!(calls.load(Ordering::SeqCst), 4);
        assert_eq!(polled.view.status(), "completed");
        // 250 + 500 + 1000 ms of backoff, on the paused clock.
        assert_eq!(started.elapsed(), Duration::from_millis(1750));
    }

    #[tokio::test(start_paused = true)]
    async fn polling_stops_at_the_deadline_with_a_last_read() {
        let (calls, fetch) = scripted(&["running"]);
        let started = tokio::time::Instant::now();
        let polled = poll(Duration::from_secs(12), fetch).await.unwrap();
        assert_eq!(started.elapsed(), Duration::from_secs(12));
        assert!(!polled.view.ended());
        // Reads at 0, 0.25, 0.75, 1.75, 3.75, 7.75 and the deadline 12 (capped pause).
        assert_eq!(calls.load(Ordering::SeqCst), 7);
        assert_eq!(
            polled.view.post_condition(),
            PostCondition::status("running").pending(true)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn wait_zero_reads_once_and_errors_stop_polling() {
        let (calls, fetch) = scripted(&["running"]);
        let polled = poll(Duration::ZERO, fetch).await.unwrap();
        assert_eq!((polled.polls, calls.load(Ordering::SeqCst)), (1, 1));
        let failing = || std::future::ready(Err(ToolError::not_found("gone")));
        let err = poll(Duration::from_secs(5), failing).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound);
    }
}
