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
use crate::solve::{SolveControls, SolveError, SolveOptions, SolveReport, Solver, Verdict};
use crate::tuning::FIRST_ROUND_SHARE;
use std::time::Instant;

/// The answer about the rest of a game.
#[derive(Clone, Debug)]
pub struct RestReport {
    /// The solve whose line is kept (its statistics are those of every solve made).
    pub report: SolveReport,
    /// Whether the line's redeals are proved the fewest that win (true without redeals).
    pub fewest_redeals: bool,
    /// Solves made (1, or more when fewer redeals were looked for).
    pub solves: usize,
}

/// Solves the rest of the game from `state` under `options` (limits for the whole
/// answer), steered by `controls`.
pub fn solve_rest(
    solver: &mut Solver,
    state: &GameState,
    options: &SolveOptions,
    controls: SolveControls<'_>,
) -> Result<RestReport, SolveError> {
    let began = Instant::now();
    let mut best =
        solver.solve_controlled(&state.position, options, state.redeals().as_ref(), controls)?;
    let mut solves = 1;
    let mut fewest = redeals_proved_fewest(&best);
    let mut nodes = best.stats.nodes;
    while best.verdict == Verdict::Solvable && !fewest {
        let used = used_redeals(&best);
        if used == 1 && solves == 1 && first_round_open(&best) {
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
        let fewer = solver.solve_controlled(
            &state.position,
            &left,
            state.redeals_capped(used - 1).as_ref(),
            controls,
        )?;
        solves += 1;
        nodes = nodes.saturating_add(fewer.stats.nodes);
        match fewer.verdict {
            Verdict::Solvable => {
                fewest = redeals_proved_fewest(&fewer);
                best = with_stats_of(fewer, &best);
            }
            Verdict::Unsolvable => {
                fewest = true;
                best = with_stats_of(best.clone(), &fewer);
            }
            Verdict::Unknown => {
                best = with_stats_of(best.clone(), &fewer);
                break;
            }
        }
    }
    best.stats.elapsed = began.elapsed();
    Ok(RestReport {
        report: best,
        fewest_redeals: fewest,
        solves,
    })
}

/// Redeals the line of `report` plays.
fn used_redeals(report: &SolveReport) -> u8 {
    report
        .rounds
        .as_ref()
        .map_or(0, |r| r.redeal_at.len() as u8)
}

/// Whether the first round of `report`'s search over rounds was searched alone and
/// left undecided.
fn first_round_open(report: &SolveReport) -> bool {
    report
        .rounds
        .as_ref()
        .is_some_and(|r| r.first_round == Some(Verdict::Unknown))
}

/// Whether the line of a solvable `report` is known to use the fewest redeals: none,
/// or one after its first round was proved lost.
fn redeals_proved_fewest(report: &SolveReport) -> bool {
    match used_redeals(report) {
        0 => true,
        1 => report
            .rounds
            .as_ref()
            .is_some_and(|r| r.first_round == Some(Verdict::Unsolvable)),
        _ => false,
    }
}

/// `kept` with the counters of `other` added (both solves of one answer).
fn with_stats_of(mut kept: SolveReport, other: &SolveReport) -> SolveReport {
    kept.stats.absorb(&other.stats);
    kept
}
