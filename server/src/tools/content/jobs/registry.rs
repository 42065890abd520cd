//! The in-memory registry of the jobs this server instance started: what `content-jobs-manage`
//! `list` answers from (bounded: the oldest are dropped, and `list` then says it is not
//! complete).

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use schemars::JsonSchema;
use serde::Serialize;

/// How many jobs the registry keeps; older ones are dropped and `list` then says it is not
/// complete.
const REGISTRY_CAP: usize = 1000;

/// One job this server started, as `list` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct JobRecord {
    pub(crate) job_id: String,
    /// The bulk action that started it (`create`, `publish`, ...).
    pub(crate) action: String,
    #[schemars(with = "i64")]
    pub(crate) space_id: u64,
    /// Items sent in the request.
    #[schemars(with = "i64")]
    pub(crate) items: usize,
    /// The last status the server saw (`queued` when started).
    pub(crate) status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    pub(crate) affected: Option<usize>,
}

/// The jobs this server instance started, oldest first (bounded; see `REGISTRY_CAP`).
#[derive(Debug, Default)]
pub(crate) struct JobRegistry {
    inner: Mutex<Registry>,
}

#[derive(Debug, Default)]
struct Registry {
    jobs: VecDeque<JobRecord>,
    dropped: usize,
}

impl JobRegistry {
    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        // A panic elsewhere cannot leave a record half-written: every update is one assignment.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a job that was just started.
    pub(crate) fn record(&self, job: JobRecord) {
        let mut registry = self.lock();
        registry.jobs.retain(|j| j.job_id != job.job_id);
        registry.jobs.push_back(job);
        while registry.jobs.len() > REGISTRY_CAP {
            registry.jobs.pop_front();
            registry.dropped += 1;
        }
    }

    /// Updates the last seen status of a registered job (an unknown id is ignored: `get` also
    /// reads jobs another process started).
    pub(crate) fn update(&self, job_id: &str, status: &str, affected: Option<usize>) {
        let mut registry = self.lock();
        if let Some(job) = registry.jobs.iter_mut().find(|j| j.job_id == job_id) {
            job.status = status.to_owned();
            if affected.is_some() {
                job.affected = affected;
            }
        }
    }

    /// The registered jobs, oldest first, and how many were dropped to stay bounded.
    pub(crate) fn snapshot(&self) -> (Vec<JobRecord>, usize) {
        let registry = self.lock();
        (registry.jobs.iter().cloned().collect(), registry.dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_keeps_order_updates_and_stays_bounded() {
        let registry = JobRegistry::default();
        let record = |id: usize| JobRecord {
            job_id: format!("job-{id}"),
            action: "create".into(),
            space_id: 636,
            items: 2,
            status: "queued".into(),
            affected: None,
        };
        registry.record(record(1));
        registry.record(record(2));
        registry.update("job-1", "partial", Some(1));
        registry.update("unknown", "completed", None);
        let (jobs, dropped) = registry.snapshot();
        assert_eq!(dropped, 0);
        assert_eq!(jobs[0].status, "partial");
        assert_eq!(jobs[0].affected, Some(1));
        assert_eq!(jobs[1].job_id, "job-2");
        for id in 3..=REGISTRY_CAP + 2 {
            registry.record(record(id));
        }
        let (jobs, dropped) = registry.snapshot();
        assert_eq!((jobs.len(), dropped), (REGISTRY_CAP, 2));
        assert_eq!(jobs[0].job_id, "job-3");
    }
}
