//! The player behind the upper bound: one who knows a sample's shuffles in advance.
//!
//! For a sample, it tries the first round's distinct redeals (the round's points, most
//! cards kept first); each is dealt with the sample's first shuffle and the rest of
//! the game is solved with one redeal fewer and the same stream, knowing the shuffles
//! (`Solver::solve_with_redeals`, which tries every position of every round as a
//! redeal point).
//!
//! Invariants: this player can play every line a player who does not see the
//! shuffles can, so on each sample its answer is won whenever the policy's is (the
//! caller counts a sample the policy won as won here without a search); a sample is
//! `Lost` only when the first round's enumeration was complete and every one of its
//! redeals was proved lost; every win is replayed from the start with the sample's
//! shuffles before it is counted.

use super::policy::{Sample, SampleEnd};
use crate::redeal::{redeal, Redeals};
use crate::search::budget::StopReason;
use crate::solve::{SolveError, SolveOptions, Solver, Verdict};

/// Solves `sample` knowing its shuffles (its round in play not won, at least one
/// redeal left), `nodes` bounding this sample's searches, `spent` nodes of the whole
/// answer's budget used before it. Returns the end and the nodes searched, or the limit
/// of the whole answer that stopped it.
pub(super) fn solve_sample(
    solver: &mut Solver,
    sample: &Sample,
    nodes: u64,
    spent: u64,
) -> Result<(Result<SampleEnd, StopReason>, u64), SolveError> {
    let (options, first, budget) = (sample.options, sample.first, sample.budget);
    let variant = options.variant;
    let mut used = 0u64;
    let mut open = !first.complete;
    for point in &first.points {
        if let Some(reason) = budget.exhausted(spent + used) {
            return Ok((Err(reason), used));
        }
        let room = nodes
            .saturating_sub(used)
            .min(budget.after(spent + used).max_nodes());
        if room == 0 {
            open = true;
            break;
        }
        let mut shuffles = sample.stream.clone();
        let Some(next) = redeal(&point.position, variant, &mut shuffles) else {
            continue;
        };
        let rest = Redeals {
            count: sample.redeals - 1,
            stream: shuffles,
        };
        let own = SolveOptions {
            max_nodes: Some(room),
            time_limit: budget.time_left(),
            ..*options
        };
        let report = solver.solve_with_redeals(&next, &own, &rest, None, None)?;
        used += report.stats.nodes;
        match report.verdict {
            Verdict::Solvable => {
                let mut moves = point.line.clone();
                let mut redeal_at = vec![moves.len()];
                let later = report.rounds.map(|r| r.redeal_at).unwrap_or_default();
                redeal_at.extend(later.iter().map(|at| at + moves.len()));
                moves.extend_from_slice(&report.solution);
                return Ok((Ok(sample.won(moves, redeal_at)?), used));
            }
            Verdict::Unsolvable => {}
            Verdict::Unknown => {
                if let Some(reason) = budget.exhausted(spent + used) {
                    return Ok((Err(reason), used));
                }
                open = true;
            }
        }
    }
    let end = if open {
        SampleEnd::Unknown
    } else {
        SampleEnd::Lost
    };
    Ok((Ok(end), used))
}
