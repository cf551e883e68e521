//! The strategy behind the lower bound: a player who never sees the shuffles to come.
//!
//! In each round it searches the round alone; if that wins, it plays the win. If not
//! and a redeal is left, it plays to the round's first point (`round::point_order`:
//! the redeal that keeps the most cards in place, then the smaller runs), redeals
//! there and goes on with one redeal fewer. With no redeal left, the game is over.
//!
//! Invariants: every choice depends on the position only, never on a shuffle to come,
//! so the strategy is one a player can follow and its chance of winning is at most the
//! best chance; a sample is `Won` only with its whole line (moves and where each
//! redeal came), replayed with that sample's shuffles before it is counted; a sample is
//! `Lost` only when its last round was proved lost, or when the round it had to redeal
//! from offered no redeal and was enumerated completely; everything else is `Unknown`.

use super::round::{analyse, Round, RoundLimits, RoundVerdict};
use crate::moves::Move;
use crate::position::Position;
use crate::redeal::{redeal, RedealStream};
use crate::replay::verify_with_redeals;
use crate::search::budget::{Budget, StopReason};
use crate::solve::{SolveError, SolveOptions, Solver};

/// One sample to play: the game (its rules and searches' options, its start, the
/// round in play already analysed, the redeals left), the sample's shuffles, and the
/// whole answer's budget.
pub(super) struct Sample<'a> {
    pub options: &'a SolveOptions,
    pub start: &'a Position,
    pub first: &'a Round,
    pub redeals: u8,
    pub stream: &'a RedealStream,
    pub budget: &'a Budget<'a>,
}

impl Sample<'_> {
    /// The sample won by `moves` with redeal `k + 1` after the first `redeal_at[k]`:
    /// replayed from the start with the sample's shuffles before it is counted.
    pub fn won(&self, moves: Vec<Move>, redeal_at: Vec<usize>) -> Result<SampleEnd, SolveError> {
        let variant = self.options.variant;
        verify_with_redeals(
            self.start,
            variant,
            self.stream,
            self.redeals,
            &moves,
            &redeal_at,
        )
        .map_err(SolveError::InvalidSolution)?;
        Ok(SampleEnd::Won { moves, redeal_at })
    }
}

/// How one sampled game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum SampleEnd {
    /// Won, by `moves` with redeal `k + 1` after the first `redeal_at[k]` of them.
    Won {
        moves: Vec<Move>,
        redeal_at: Vec<usize>,
    },
    Lost,
    Unknown,
}

/// Plays `sample`, each later round searched within `limits`, `spent` nodes of the
/// whole answer's budget used before it. Returns the end and the nodes searched, or
/// the limit of the whole answer that stopped it.
pub(super) fn play_sample(
    solver: &mut Solver,
    sample: &Sample,
    limits: RoundLimits,
    spent: u64,
) -> Result<(Result<SampleEnd, StopReason>, u64), SolveError> {
    let (options, first) = (sample.options, sample.first);
    let variant = options.variant;
    let mut shuffles = sample.stream.clone();
    let mut moves: Vec<Move> = Vec::new();
    let mut redeal_at: Vec<usize> = Vec::new();
    let mut nodes = 0u64;
    let mut left = sample.redeals;
    let mut round: Option<Round> = None; // `None`: the first round, `first`
    loop {
        let this = round.as_ref().unwrap_or(first);
        match &this.verdict {
            RoundVerdict::Won(line) => {
                moves.extend_from_slice(line);
                return Ok((Ok(sample.won(moves, redeal_at)?), nodes));
            }
            verdict if left == 0 => {
                let end = match verdict {
                    RoundVerdict::Lost => SampleEnd::Lost,
                    _ => SampleEnd::Unknown,
                };
                return Ok((Ok(end), nodes));
            }
            _ => {}
        }
        let Some(point) = this.points.first() else {
            let end = if this.complete {
                SampleEnd::Lost
            } else {
                SampleEnd::Unknown
            };
            return Ok((Ok(end), nodes));
        };
        moves.extend_from_slice(&point.line);
        redeal_at.push(moves.len());
        let Some(next) = redeal(&point.position, variant, &mut shuffles) else {
            unreachable!("a round that is not won has cards to gather");
        };
        left -= 1;
        match analyse(
            solver,
            options,
            &next,
            left,
            limits,
            sample.budget,
            spent + nodes,
        )? {
            Ok(next_round) => {
                nodes += next_round.nodes;
                round = Some(next_round);
            }
            Err(reason) => return Ok((Err(reason), nodes)),
        }
    }
}
