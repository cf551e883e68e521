//! Gaps as a [`Game`]: one adapter per variant, so each search is monomorphised with
//! the right move generator, move-list capacity and cycle handling.
//!
//! Invariant (the commutation test): two distinct legal moves `a = x: p -> g` and
//! `b = y: q -> h` commute iff they move different cards into different gaps and neither
//! empties the cell left of the other's gap. Proof sketch: `p, q, g, h` are then four
//! distinct cells, so both orders give the same board; `b` stays legal after `a` because
//! `h` is still a gap, `y` still stands on `q`, and the left neighbour of `h` is
//! unchanged (`a` only empties `p != h - 1` and fills `g`, which cannot be `h - 1`: a gap
//! left of `h` would have made `b` illegal, and column 0 has no left neighbour).

use super::game::Game;
use crate::card::col_of;
use crate::moves::{Move, MoveList};
use crate::position::{Position, MAX_BASIC_MOVES, MAX_MOVES};
use crate::zobrist::Key;

/// Whether two legal Gaps moves commute (see the module invariant).
#[inline(always)]
pub fn gaps_commute(a: Move, b: Move) -> bool {
    a.card != b.card
        && a.to != b.to
        && !(col_of(b.to) > 0 && b.to - 1 == a.from)
        && !(col_of(a.to) > 0 && a.to - 1 == b.from)
}

/// The `basic` variant: at most one move per gap, no cycles.
pub struct BasicGame(pub Position);

impl Game for BasicGame {
    type Move = Move;
    type Moves = MoveList<MAX_BASIC_MOVES>;
    const ACYCLIC: bool = true;

    #[inline(always)]
    fn key(&self) -> Key {
        self.0.key()
    }
    #[inline(always)]
    fn key_after(&self, m: Move) -> Key {
        self.0.key_after(m)
    }
    #[inline(always)]
    fn is_won(&self) -> bool {
        self.0.is_won_basic()
    }
    #[inline(always)]
    fn generate(&self, out: &mut Self::Moves) {
        self.0.basic_moves(out)
    }
    #[inline(always)]
    fn play(&mut self, m: Move) {
        self.0.play(m)
    }
    #[inline(always)]
    fn unplay(&mut self, m: Move) {
        self.0.unplay(m)
    }
    #[inline(always)]
    fn commute(&self, a: Move, b: Move) -> bool {
        gaps_commute(a, b)
    }
}

/// The `common` variant: any Two into a column-0 gap, so Twos can cycle.
pub struct CommonGame(pub Position);

impl Game for CommonGame {
    type Move = Move;
    type Moves = MoveList<MAX_MOVES>;
    const ACYCLIC: bool = false;

    #[inline(always)]
    fn key(&self) -> Key {
        self.0.key()
    }
    #[inline(always)]
    fn key_after(&self, m: Move) -> Key {
        self.0.key_after(m)
    }
    #[inline(always)]
    fn is_won(&self) -> bool {
        self.0.is_won_common()
    }
    #[inline(always)]
    fn generate(&self, out: &mut Self::Moves) {
        self.0.common_moves(out)
    }
    #[inline(always)]
    fn play(&mut self, m: Move) {
        self.0.play(m)
    }
    #[inline(always)]
    fn unplay(&mut self, m: Move) {
        self.0.unplay(m)
    }
    #[inline(always)]
    fn commute(&self, a: Move, b: Move) -> bool {
        gaps_commute(a, b)
    }
}
