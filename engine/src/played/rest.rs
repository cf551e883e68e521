//! The rest of a game in progress: a winning continuation from the state its steps
//! reached, with as few further redeals as the limits let the solver establish.
//!
//! The solve over rounds searches a round by itself before it redeals, but a line it
//! returns may still use more redeals than needed (a round not decided in its share of
//! the budget, a redeal point tried before another that needed fewer). So when the line
//! redeals and that is not proved needed (one redeal, the round itself proved lost), the
//! state is solved again allowed one redeal fewer, with what is left of the budget but
//! at most an eighth of the limits ([`FIRST_ROUND_SHARE`]: a line is in hand, and the
//! answer should not wait long for a shorter one): a win there replaces the line, a
//! loss proves the line's count the fewest, an unknown leaves it unproved. One retry is
//! never made: the round alone after a first solve whose line redeals once, for that
//! solve gave the round alone at least as much (an eighth of the time, all the nodes)
//! and left it undecided. Every line is replayed by the solver before it is returned.

use super::GameState;
use crate::search::stats::SearchStats;
use crate::solve::{SolveControls, SolveError, SolveOptions, SolveReport, Solver, Verdict};
use crate::tuning::FIRST_ROUND_SHARE;
use std::time::Instant;

/// The answer about the rest of a game: a solve's report (the engine's
/// [`SolveReport`], or a board search's `BoardReport`).
#[derive(Clone, Debug)]
pub struct RestReport<R = SolveReport> {
    /// The solve whose line is kept (its statistics are those of every solve made).
    pub report: R,
    /// Whether the line's redeals are proved the fewest that win (true without redeals).
    pub fewest_redeals: bool,
    /// Solves made (1, or more when fewer redeals were looked for).
    pub solves: usize,
}

/// What the look for fewer redeals reads of a solve over rounds.
pub(crate) trait RoundsAnswer: Clone {
    /// The verdict.
    fn verdict(&self) -> Verdict;
    /// Redeals its winning line plays.
    fn redeals_used(&self) -> u8;
    /// What the search of the first round alone found (`None`: not searched alone).
    fn first_round(&self) -> Option<Verdict>;
    /// Its statistics.
    fn stats_mut(&mut self) -> &mut SearchStats;
}

impl RoundsAnswer for SolveReport {
    fn verdict(&self) -> Verdict {
        self.verdict
    }
    fn redeals_used(&self) -> u8 {
        self.rounds.as_ref().map_or(0, |r| r.redeal_at.len() as u8)
    }
    fn first_round(&self) -> Option<Verdict> {
        self.rounds.as_ref().and_then(|r| r.first_round)
    }
    fn stats_mut(&mut self) -> &mut SearchStats {
        &mut self.stats
    }
}

/// Solves the rest of the game from `state` under `options` (limits for the whole
/// answer), steered by `controls`.
pub fn solve_rest(
    solver: &mut Solver,
    state: &GameState,
    options: &SolveOptions,
    controls: SolveControls<'_>,
) -> Result<RestReport, SolveError> {
    with_fewest_redeals(options, |limits, cap| {
        let redeals = match cap {
            None => state.redeals(),
            Some(cap) => state.redeals_capped(cap),
        };
        solver.solve_controlled(&state.position, limits, redeals.as_ref(), controls)
    })
}

/// The look for fewer redeals around `solve(limits, cap)`, a solve of one state within
/// `limits` with at most `cap` redeals (`None`: all those left): the first solve with
/// `options`, then the retries the module documentation describes.
pub(crate) fn with_fewest_redeals<R: RoundsAnswer, E>(
    options: &SolveOptions,
    mut solve: impl FnMut(&SolveOptions, Option<u8>) -> Result<R, E>,
) -> Result<RestReport<R>, E> {
    let began = Instant::now();
    let mut best = solve(options, None)?;
    let mut solves = 1;
    let mut fewest = redeals_proved_fewest(&best);
    let mut nodes = best.stats_mut().nodes;
    while best.verdict() == Verdict::Solvable && !fewest {
        let used = best.redeals_used();
        if used == 1 && solves == 1 && best.first_round() == Some(Verdict::Unknown) {
            // The first solve searched this round alone (no redeal) with at least what
            // a retry may have (an eighth of the time, all the nodes) and did not
            // decide it: the same search again would answer the same.
            break;
        }
        // An eighth of the limits at most: the line in hand is an answer already, and
        // an answer is wanted at once (a hint); the round alone gets as much in the
        // search over rounds.
        let left = SolveOptions {
            max_nodes: options.max_nodes.map(|n| {
                n.saturating_sub(nodes)
                    .min(n / u64::from(FIRST_ROUND_SHARE))
            }),
            time_limit: options
                .time_limit
                .map(|t| t.saturating_sub(began.elapsed()).min(t / FIRST_ROUND_SHARE)),
            ..*options
        };
        if left.max_nodes == Some(0) || left.time_limit.is_some_and(|t| t.is_zero()) {
            break;
        }
        let mut fewer = solve(&left, Some(used - 1))?;
        solves += 1;
        nodes = nodes.saturating_add(fewer.stats_mut().nodes);
        match fewer.verdict() {
            Verdict::Solvable => {
                fewest = redeals_proved_fewest(&fewer);
                let earlier = *best.stats_mut();
                fewer.stats_mut().absorb(&earlier);
                best = fewer;
            }
            Verdict::Unsolvable => {
                fewest = true;
                best.stats_mut().absorb(fewer.stats_mut());
            }
            Verdict::Unknown => {
                best.stats_mut().absorb(fewer.stats_mut());
                break;
            }
        }
    }
    best.stats_mut().elapsed = began.elapsed();
    Ok(RestReport {
        report: best,
        fewest_redeals: fewest,
        solves,
    })
}

/// Whether the line of a solvable `report` is known to use the fewest redeals: none,
/// or one after its first round was proved lost.
fn redeals_proved_fewest(report: &impl RoundsAnswer) -> bool {
    match report.redeals_used() {
        0 => true,
        1 => report.first_round() == Some(Verdict::Unsolvable),
        _ => false,
    }
}
