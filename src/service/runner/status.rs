//! What a job that this node runs is doing now ([`RunStatus`]), kept beside its cancel
//! flag in the runner's map of running jobs, so that its view can say what it waits
//! for.
//!
//! Invariant: the status lives as long as the job's entry in the map; a job not run by
//! this process has none.

use super::Runner;
use std::sync::atomic::Ordering;

/// What a job that this node runs is doing now (its view shows it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RunStatus {
    /// Its search runs.
    Searching = 0,
    /// Claimed, waiting for the memory its search draws.
    WaitingMemory = 1,
    /// Claimed, waiting for a solver thread.
    WaitingThreads = 2,
    /// A batch job paused while a single job runs on its threads.
    GivingWay = 3,
}

impl RunStatus {
    fn from_u8(value: u8) -> RunStatus {
        match value {
            1 => RunStatus::WaitingMemory,
            2 => RunStatus::WaitingThreads,
            3 => RunStatus::GivingWay,
            _ => RunStatus::Searching,
        }
    }

    /// The name the job's view gives it (`None` while it searches).
    pub fn waiting_for(self) -> Option<&'static str> {
        match self {
            RunStatus::Searching => None,
            RunStatus::WaitingMemory => Some("memory"),
            RunStatus::WaitingThreads => Some("threads"),
            RunStatus::GivingWay => Some("single_job"),
        }
    }
}

impl Runner {
    /// What the running job `id` is doing, if a lane of this process runs it.
    pub fn status(&self, id: &str) -> Option<RunStatus> {
        self.running
            .lock()
            .expect("running map")
            .get(id)
            .map(|job| RunStatus::from_u8(job.status.load(Ordering::Relaxed)))
    }

    pub(crate) fn set_status(&self, id: &str, status: RunStatus) {
        if let Some(job) = self.running.lock().expect("running map").get(id) {
            job.status.store(status as u8, Ordering::Relaxed);
        }
    }
}
