//! What every kind of job shows of its life ([`LifeView`]), flattened into each kind's
//! view (`JobView`, `MorpionJobView`): the fields of the job's row of `jobs`, shown
//! the same way whatever the kind.
//!
//! Invariant: built from the stored [`JobLife`] and the job's id, kind and client only;
//! a kind's view adds its own fields beside it and never repeats one of these.

use crate::service::job::{Game, JobState};
use crate::service::store::JobLife;
use serde::Serialize;
use utoipa::ToSchema;

/// A job's life: its id and kind, its state, who asked for it, who runs it and when.
#[derive(Serialize, Debug, Clone, ToSchema)]
pub struct LifeView {
    pub id: String,
    /// `gaps` (a search), `morpion` (a proof) or `odds` (the odds with unknown
    /// shuffles): the kind of job, which says what the other fields are.
    pub game: String,
    /// `queued`, `running`, `done`, `failed` or `cancelled`.
    #[schema(value_type = String)]
    pub state: JobState,
    /// Why a `failed` job failed.
    pub error: Option<String>,
    /// Times a node started this job (more than 1 after a restart or a lost lease).
    pub attempts: i64,
    /// The node that runs (or ran) the job.
    pub node_id: Option<String>,
    /// Who created the job: the name of the caller's token, or its address on an open
    /// service.
    pub created_by: Option<String>,
    pub cancel_requested: bool,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    /// For a running job: the nodes searched so far (updated about every 1024 nodes).
    pub progress: Option<Progress>,
    /// For a queued job read alone (`GET /v1/jobs/{id}`, `POST /v1/jobs`): where it
    /// stands in the queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueView>,
}

impl LifeView {
    /// The life of job `id` of kind `game`, created by `created_by`, as stored (no
    /// progress and no place in the queue: the handler that shows it adds those).
    pub fn of(id: String, game: Game, life: JobLife, created_by: Option<String>) -> LifeView {
        LifeView {
            id,
            game: game.name().into(),
            state: life.state,
            error: life.error,
            attempts: life.attempts,
            node_id: life.node_id,
            created_by,
            cancel_requested: life.cancel_requested,
            created_at: life.created_at,
            started_at: life.started_at,
            finished_at: life.finished_at,
            progress: None,
            queue: None,
        }
    }
}

/// Where a queued job stands (docs/http.md, "Who runs first").
#[derive(Serialize, Debug, Clone, ToSchema)]
pub struct QueueView {
    /// `single` (a job asked on its own: claimed before any batch's deal) or `batch`.
    pub class: String,
    /// Queued jobs that will be claimed before it.
    pub ahead: i64,
    /// True when `ahead` is a lower bound (counting stops at 10,000).
    pub ahead_at_least: bool,
}

/// How far a running search has got.
#[derive(Serialize, Debug, Clone, ToSchema)]
pub struct Progress {
    /// Nodes searched so far.
    pub nodes: u64,
}
