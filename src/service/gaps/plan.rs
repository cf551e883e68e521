//! What a lane searches for a claimed Gaps job ([`Plan`]): the engine's search of its
//! position, or the board search of a PySolFC game played on its own board; and the
//! search itself, once the job holds its memory and threads, ending as one
//! [`Searched`] that `run` stores the same way for both.
//!
//! Invariants: a plan is built from the stored job alone (its values typed when the
//! request came in), so the same job always draws the same memory and threads; every
//! winning line is replayed by the engine before it comes back here.

use super::spec::{pysol_deal, redeals_of, solve_options};
use crate::played::{GameInProgress, PlayedAnswer};
use crate::report::{
    board_steps_json, redeals_shown, solution_steps, RoundsJson, StatsJson, StepJson,
};
use crate::service::job::subject::JobAlgorithm;
use crate::service::resources::memory::draw_mb;
use crate::service::resources::solver_pool::{
    BoardWork, PlayedWork, SolveWork, SolverThread, Steering,
};
use crate::service::store::NewJob;
use gaps_engine::{
    Algorithm, BoardDeal, PauseGate, Position, SolveOptions, StopReason, Variant, Verdict,
};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Duration;

/// The search a Gaps job gets (one alive per running job: its size does not matter).
#[allow(clippy::large_enum_variant)]
pub(super) enum Plan {
    /// The engine's search of a position under an engine variant.
    Engine {
        variant: Variant,
        position: Position,
    },
    /// The board search of a PySolFC game played on its own board.
    Board(BoardDeal),
    /// The answer about a game in progress (the engine's searches, from the position
    /// its steps reach), or its review.
    Played {
        variant: Variant,
        game: GameInProgress,
        review: bool,
    },
}

/// What a search runs with: the threads and memory it was given, its stop flag, its
/// progress counter and the gate that pauses it while it gives way.
pub(super) struct RunOf<'a> {
    pub threads: usize,
    pub memory_mb: Option<usize>,
    pub flag: &'a Arc<AtomicBool>,
    pub progress: Arc<AtomicU64>,
    pub pause: Option<Arc<PauseGate>>,
}

impl RunOf<'_> {
    /// How the solver thread is to steer the search.
    fn steering(self) -> Steering {
        Steering {
            cancel: self.flag.clone(),
            progress: self.progress,
            pause: self.pause,
        }
    }
}

/// How a search ended, in the service's terms.
pub(super) struct Searched {
    pub verdict: Verdict,
    pub solution: Option<Vec<StepJson>>,
    /// Its statistics (the memory drawn and the time paused are the caller's to add).
    pub stats: StatsJson,
    pub elapsed: Duration,
    pub stopped: Option<StopReason>,
    pub algorithm: JobAlgorithm,
    /// A game in progress: where its steps led, the hint, the review.
    pub played: Option<PlayedAnswer>,
}

/// The game in progress of a stored job with played steps, and the variant its
/// searches draw memory as (a board game's: as the board search, `common`); `None`
/// without steps, or with steps that no longer replay (validation never stores them).
pub(super) fn game_in_progress(spec: &NewJob) -> Option<(Variant, GameInProgress)> {
    let played = &spec.played.as_ref()?.0;
    let redeals = spec.redeals.get();
    match (spec.engine(), spec.board()) {
        (Some((variant, _)), _) => Some((
            variant,
            GameInProgress::replay(spec.source()?, variant, redeals, played).ok()?,
        )),
        (None, Some(deal)) => Some((
            Variant::Common,
            GameInProgress::replay_board(deal, redeals, played).ok()?,
        )),
        (None, None) => None,
    }
}

impl Plan {
    /// The plan of a stored job (`None` for a job with neither kind of start, or with
    /// played steps that no longer replay, which validation never stores).
    pub(super) fn of(spec: &NewJob) -> Option<Plan> {
        if spec.played.is_some() {
            let (variant, game) = game_in_progress(spec)?;
            return Some(Plan::Played {
                variant,
                game,
                review: spec.review,
            });
        }
        match (spec.engine(), spec.board()) {
            (Some((variant, position)), _) => Some(Plan::Engine { variant, position }),
            (None, Some(deal)) => Some(Plan::Board(deal)),
            (None, None) => None,
        }
    }

    /// The MiB it draws from the node's budget (`memory::draw_mb`). The board search
    /// keeps every position it reaches, as the exact search does, so it draws what
    /// the exact search of a `common` position would within the same time on one
    /// thread.
    pub(super) fn memory_mb(&self, spec: &NewJob, search_memory_mb: usize) -> Option<usize> {
        let (algorithm, variant, threads) = match self {
            Plan::Board(_) => (Algorithm::Exact, Variant::Common, 1),
            played if played.on_board() => (Algorithm::Exact, Variant::Common, 1),
            Plan::Engine { variant, .. } | Plan::Played { variant, .. } => (
                spec.algorithm.0,
                *variant,
                usize::try_from(spec.threads).unwrap_or(1),
            ),
        };
        let time_ms = spec.limit_time_ms as u64;
        draw_mb(
            algorithm,
            variant,
            time_ms,
            threads,
            spec.table_mb,
            search_memory_mb,
        )
    }

    /// The threads it asks for (the board search runs on one).
    pub(super) fn threads_asked(&self, spec: &NewJob) -> usize {
        if self.on_board() {
            1
        } else {
            spec.threads.max(1) as usize
        }
    }

    /// Whether it is the board search (of a deal, or of a game in progress).
    fn on_board(&self) -> bool {
        match self {
            Plan::Board(_) => true,
            Plan::Played { game, .. } => matches!(game, GameInProgress::Board { .. }),
            Plan::Engine { .. } => false,
        }
    }

    /// Runs the search on `solver`'s thread.
    pub(super) async fn search(
        self,
        solver: &SolverThread,
        spec: &NewJob,
        run: RunOf<'_>,
    ) -> Result<Searched, String> {
        match self {
            Plan::Engine { variant, position } => {
                let mut options = solve_options(spec, variant, run.threads);
                if let Some(mb) = run.memory_mb {
                    options.memory_limit = Some(mb << 20);
                }
                let work = SolveWork {
                    position,
                    options,
                    redeals: redeals_of(spec),
                    steering: run.steering(),
                };
                let report = solver.solve(work).await?;
                let stats = StatsJson {
                    threads: report.threads as u64,
                    rounds: RoundsJson::of(&report).map(|mut rounds| {
                        rounds.redealt = redeals_shown(&report, pysol_deal(spec));
                        rounds
                    }),
                    ..StatsJson::from(&report.stats)
                };
                Ok(Searched {
                    verdict: report.verdict,
                    solution: solution_steps(&report),
                    stats,
                    elapsed: report.stats.elapsed,
                    stopped: report.stopped,
                    algorithm: JobAlgorithm::Engine(report.algorithm),
                    played: None,
                })
            }
            Plan::Played {
                variant,
                game,
                review,
            } => {
                let on_board = matches!(game, GameInProgress::Board { .. });
                let mut options = solve_options(spec, variant, run.threads);
                if let Some(mb) = run.memory_mb {
                    options.memory_limit = Some(mb << 20);
                }
                let threads = if on_board { 1 } else { options.threads };
                let work = PlayedWork {
                    game,
                    review,
                    options,
                    steering: run.steering(),
                };
                let answer = solver.answer_played(work).await?;
                let rounds = answer.rounds;
                Ok(Searched {
                    verdict: answer.verdict,
                    solution: Some(answer.solution),
                    stats: StatsJson {
                        threads: threads as u64,
                        rounds,
                        ..StatsJson::from(&answer.stats)
                    },
                    elapsed: answer.stats.elapsed,
                    stopped: answer.stopped,
                    algorithm: if on_board {
                        JobAlgorithm::BestFirst
                    } else {
                        JobAlgorithm::Engine(answer.algorithm)
                    },
                    played: Some(answer.answer),
                })
            }
            Plan::Board(deal) => {
                let base = solve_options(spec, Variant::Common, 1);
                let options = SolveOptions {
                    max_nodes: base.max_nodes,
                    time_limit: base.time_limit,
                    memory_limit: run.memory_mb.map(|mb| mb << 20),
                    // The restarts' tie-breaks (docs/engine.md).
                    seed: base.seed,
                    // `auto` (the board search) or `exact` (validated: no redeals).
                    algorithm: base.algorithm,
                    ..SolveOptions::default()
                };
                // Validation stored at most the game's own redeals.
                let redeals = spec.redeals.get();
                let work = BoardWork {
                    deal,
                    redeals,
                    options,
                    steering: run.steering(),
                };
                let report = solver.solve_board(work).await?;
                let solved = report.verdict == Verdict::Solvable;
                Ok(Searched {
                    verdict: report.verdict,
                    solution: solved.then(|| board_steps_json(&report.steps)),
                    stats: StatsJson {
                        threads: 1,
                        rounds: RoundsJson::of_board(
                            deal.game,
                            deal.number,
                            &deal.board(),
                            &report,
                        ),
                        ..StatsJson::from(&report.stats)
                    },
                    elapsed: report.stats.elapsed,
                    stopped: report.stopped,
                    algorithm: match report.algorithm {
                        Algorithm::Exact => JobAlgorithm::Engine(Algorithm::Exact),
                        _ => JobAlgorithm::BestFirst,
                    },
                    played: None,
                })
            }
        }
    }
}
