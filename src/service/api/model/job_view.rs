//! The view of a Gaps job (`GET /v1/jobs/{id}` and every answer that carries a job):
//! [`JobView`], built from its stored row only.
//!
//! Invariant: the row's engine values become their public names here, and a game in
//! progress's answer (`played_answer`) is shown as top-level fields beside the verdict,
//! as the command line shows it.

use super::{DealSpec, LifeView, Limits, PysolView};
use crate::played::{PlayedAnswer, ReviewJson};
use crate::report::{JobStats, StepJson};
use crate::service::job::{Game, JobState};
use crate::service::store::JobRow;
use serde::Serialize;
use utoipa::ToSchema;

/// A Gaps job as returned by the API: its life, then the search asked for and, once
/// done, what it found.
#[derive(Serialize, Debug, Clone, ToSchema)]
pub struct JobView {
    #[serde(flatten)]
    pub life: LifeView,
    /// Canonical position.
    pub position: String,
    pub variant: String,
    /// Algorithm requested.
    pub algorithm: String,
    pub suits: i64,
    pub ranks: i64,
    /// The numbered deal, if the job was submitted as one (same shape as the request).
    pub deal: Option<DealSpec>,
    /// The PySolFC game, if the job was submitted as one (the request's `game` and
    /// `number`, with PySolFC's board and the solution on it); `position` is its first
    /// round under `variant`.
    pub pysol: Option<PysolView>,
    pub limits: Limits,
    pub seed: i64,
    /// Redeals the search could use (0: the first round only).
    pub redeals: i64,
    pub batch_id: Option<String>,
    /// `solvable`, `unsolvable` or `unknown` once done.
    pub verdict: Option<String>,
    /// Moves from the position to a won one (empty when done without a win; absent
    /// until done), with `{"redeal": k}` steps where the line redeals
    /// (`stats.rounds.redealt` shows each redeal).
    #[schema(value_type = Option<Vec<Object>>)]
    pub solution: Option<Vec<StepJson>>,
    /// Search statistics (`nodes`, `elapsed_ms`, ...).
    #[schema(value_type = Option<Object>)]
    pub stats: Option<JobStats>,
    /// Why an `unknown` search stopped.
    pub stopped: Option<String>,
    /// The algorithm that produced the verdict.
    pub used_algorithm: Option<String>,
    /// True when the verdict came from the store without searching.
    pub cached: bool,
    /// A game in progress: the steps played since the deal (canonical); `verdict` and
    /// `solution` are about the position they reach.
    #[schema(value_type = Option<Vec<Object>>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub played: Option<Vec<StepJson>>,
    /// Whether the job reviews its played steps.
    pub review_requested: bool,
    /// Once a game in progress is answered: steps played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub played_steps: Option<usize>,
    /// The position they reach (canonical, the engine's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub played_position: Option<String>,
    /// The same on a PySolFC game's board.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub played_board: Option<String>,
    /// Redeals not used yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redeals_left: Option<u8>,
    /// The first step of `solution` (a solvable answer).
    #[schema(value_type = Option<Object>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<StepJson>,
    /// The same on a PySolFC game's board.
    #[schema(value_type = Option<Object>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_hint: Option<StepJson>,
    /// Whether `solution`'s redeals are proved the fewest that win from there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fewest_redeals: Option<bool>,
    /// The moves legal from the position the steps reach, on the board the game is
    /// shown on (PySolFC's, for its games): what may be played next besides a redeal
    /// (the play board lights the gaps a picked card may go to).
    #[schema(value_type = Option<Vec<Object>>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legal_moves: Option<Vec<StepJson>>,
    /// A review's answer: `fatal_step`, `lost_from_start`, `winning_line`,
    /// `unknown_steps`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewJson>,
    /// For a running job that the answering node runs, when it is not searching:
    /// `memory` or `threads` (claimed, waiting for its share of the node), or
    /// `single_job` (a batch job paused while a single job runs on its threads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<String>,
}

/// The HTTP boundary of a job: engine values become their public names here.
impl From<JobRow> for JobView {
    fn from(r: JobRow) -> Self {
        let pysol = r
            .spec
            .pysol
            .as_ref()
            .map(|deal| PysolView::of(deal.0, r.solution.as_ref().map(|steps| &steps.0[..])));
        let answer = r.played_answer.map(|a| a.0);
        let (played, review) = match answer {
            Some(PlayedAnswer { played, review }) => (Some(played), review),
            None => (None, None),
        };
        JobView {
            played: r.spec.played.map(|p| p.0),
            review_requested: r.spec.review,
            played_steps: played.as_ref().map(|p| p.played_steps),
            played_position: played.as_ref().map(|p| p.played_position.clone()),
            played_board: played.as_ref().and_then(|p| p.played_board.clone()),
            redeals_left: played.as_ref().map(|p| p.redeals_left),
            hint: played.as_ref().and_then(|p| p.hint.clone()),
            board_hint: played.as_ref().and_then(|p| p.board_hint.clone()),
            fewest_redeals: played.as_ref().map(|p| p.fewest_redeals),
            legal_moves: played.as_ref().map(|p| p.legal_moves.clone()),
            review,
            limits: Limits {
                nodes: r.spec.limit_nodes.map(|n| n as u64),
                time_ms: Some(r.spec.limit_time_ms as u64),
                table_mb: r.spec.table_mb.map(|n| n as u64),
                probes: r.spec.limit_probes.map(|n| n as u64),
                threads: Some(r.spec.threads as u64),
            },
            // A finished search without a win has an empty solution, as in the CLI.
            solution: r
                .solution
                .map(|s| s.0)
                .or_else(|| (r.life.state == JobState::Done).then(Vec::new)),
            stats: r.stats.map(|s| s.0),
            position: r.spec.position.0.shown(),
            variant: r.spec.variant.0.to_string(),
            algorithm: r.spec.algorithm.0.name().into(),
            suits: r.spec.suits,
            ranks: r.spec.ranks,
            pysol,
            deal: r.spec.deal_seed.map(|seed| DealSpec {
                seed: seed as u64,
                suits: r.spec.suits as usize,
                ranks: r.spec.ranks as usize,
            }),
            seed: r.spec.search_seed,
            redeals: i64::from(r.spec.redeals.get()),
            batch_id: r.spec.batch_id,
            verdict: r.verdict.map(|v| v.0.name().into()),
            stopped: r.life.stopped.map(|s| s.0.name().into()),
            used_algorithm: r.used_algorithm.map(|a| a.0.name().into()),
            cached: r.cached,
            life: LifeView::of(r.spec.id, Game::Gaps, r.life, r.spec.created_by),
            waiting_for: None,
        }
    }
}
