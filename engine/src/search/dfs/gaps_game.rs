//! Gaps as a [`Game`]: one adapter, generic over the variant's [`Rules`], so each search
//! is monomorphised with the right move generator, move-list capacity and cycle handling.
//!
//! Invariant (the commutation test): two distinct legal moves `a = x: p -> g` and
//! `b = y: q -> h` commute iff they move different cards into different gaps and neither
//! empties the cell left of the other's gap. Proof sketch: `p, q, g, h` are then four
//! distinct cells, so both orders give the same board; `b` stays legal after `a` because
//! `h` is still a gap, `y` still stands on `q`, and the left neighbour of `h` is
//! unchanged (`a` only empties `p != h - 1` and fills `g`, which cannot be `h - 1`: a gap
//! left of `h` would have made `b` illegal, and column 0 has no left neighbour).

use super::game::{Game, MoveSet};
use crate::moves::{Move, MoveList, SlotMoves};
use crate::position::{Position, MAX_MOVES};
use crate::zobrist::Key;
use std::marker::PhantomData;

/// Whether two legal Gaps moves commute (see the module invariant).
///
/// Written without branches (`&`, not `&&`): the outcome is unpredictable. For a gap
/// `h` in column 0 the cell "left of it", `h - 1` (wrapping), is column 15 of the row
/// above or row 15, where no card ever stands, so it never equals a card's cell and no
/// column test is needed.
#[inline(always)]
pub fn gaps_commute(a: Move, b: Move) -> bool {
    (a.card != b.card)
        & (a.to != b.to)
        & (b.to.wrapping_sub(1) != a.from)
        & (a.to.wrapping_sub(1) != b.from)
}

impl<const N: usize> MoveSet<Move> for MoveList<N> {}

impl MoveSet<Move> for SlotMoves {
    #[inline(always)]
    fn legal(&self) -> u64 {
        SlotMoves::legal(self)
    }
    /// A move that commutes with the move played keeps its gap (the two moves fill
    /// different gaps), and so its slot: the same entry.
    #[inline(always)]
    fn index_of(&self, t: Move, j: usize) -> Option<usize> {
        debug_assert!(self.as_ref()[j] == t && self.legal() >> j & 1 == 1);
        Some(j)
    }
}

/// What distinguishes the variants inside the search: move generation, the goal, and
/// whether moves can cycle.
pub trait Rules {
    /// The variant's move list.
    type Moves: MoveSet<Move>;
    /// Whether the variant's move graph is acyclic.
    const ACYCLIC: bool;
    /// Whether `pos` is settled ([`Game::settled`]); every position of an acyclic
    /// variant is.
    #[inline(always)]
    fn settled(pos: &Position) -> bool {
        let _ = pos;
        Self::ACYCLIC
    }
    /// Fills `out` with the legal moves of `pos`.
    fn generate(pos: &Position, out: &mut Self::Moves);
    /// Whether `pos` is won.
    fn is_won(pos: &Position) -> bool;
    /// Whether `pos` is dead (see [`Game::is_dead`]).
    fn is_dead(pos: &Position) -> bool;
    /// Whether `pos`, just reached by `m` from a position that is not dead, is dead
    /// (see [`Game::is_dead_after`]).
    fn is_dead_after(pos: &Position, m: Move) -> bool;
    /// A stubborn subset of `moves` where the rules know one (see [`Game::stubborn`]).
    #[inline(always)]
    fn stubborn(pos: &Position, moves: &Self::Moves) -> Option<u64> {
        let _ = (pos, moves);
        None
    }
}

/// The `basic` rules: at most one move per gap, no cycles.
pub struct BasicRules;

impl Rules for BasicRules {
    type Moves = SlotMoves;
    const ACYCLIC: bool = true;
    #[inline(always)]
    fn generate(pos: &Position, out: &mut Self::Moves) {
        pos.basic_slot_moves(out)
    }
    #[inline(always)]
    fn is_won(pos: &Position) -> bool {
        pos.is_won_basic()
    }
    #[inline(always)]
    fn is_dead(pos: &Position) -> bool {
        pos.is_dead_basic()
    }
    #[inline(always)]
    fn is_dead_after(pos: &Position, m: Move) -> bool {
        pos.is_dead_basic_after(m.card)
    }
    #[inline(always)]
    fn stubborn(pos: &Position, moves: &Self::Moves) -> Option<u64> {
        // Only a move onto its home cell can be the key move.
        pos.stubborn_moves::<false>(moves.as_ref(), moves.legal(), moves.homing())
    }
}

/// The `common` rules: any Two into a column-0 gap, so Twos can cycle.
///
/// Settled positions: every column-0 cell holds a Two. Then no column-0 gap can ever
/// appear again (a Two leaves column 0 only for another column-0 gap, and nothing else
/// stands there), so no Two moves again, each row's suit is fixed, and the rest of the
/// game is `basic` with the suits renamed: acyclic (the `basic` bound on moves holds,
/// each card following its predecessor), and the `basic` stubborn sets apply with a
/// row's Two in place of its ace. On 4x6 and 4x7 deals 76-78% of the reachable
/// positions are settled (62-68% in lost deals).
pub type CommonRules = AnyTwoRules<false>;

/// The `aisleriot` rules: `common`'s, except that a Two never leaves column 0.
///
/// What `common`'s rules here still give it:
/// - The commutation test (module invariant): a move's legality depends on its gap,
///   the gap's left neighbour and where its card stands; the one more condition here
///   (the card is not a Two in column 0) is about the card's own cell, which a
///   commuting move does not touch, so the test is the same.
/// - Settled positions (every column-0 cell a Two) are the same positions with the same
///   moves as under `common` (no Two can move in either), so the `basic` stubborn sets
///   apply to them as to `common`'s.
/// - Dead positions: every line here is a line of `common`, so a position `common`
///   proves dead (no line wins) is dead here too.
///
/// Cycles are assumed (`ACYCLIC = false`), as for `common`, though none is known: the
/// search's path handling costs little and needs no proof.
pub type AisleriotRules = AnyTwoRules<true>;

/// The rules of the variants whose column 0 takes any Two (`common`, and with
/// `FIXED_TWOS` `aisleriot`): everything but the move generator is `common`'s.
pub struct AnyTwoRules<const FIXED_TWOS: bool>;

impl<const FIXED_TWOS: bool> Rules for AnyTwoRules<FIXED_TWOS> {
    type Moves = MoveList<MAX_MOVES>;
    const ACYCLIC: bool = false;
    #[inline(always)]
    fn settled(pos: &Position) -> bool {
        pos.column0_all_twos()
    }
    #[inline(always)]
    fn generate(pos: &Position, out: &mut Self::Moves) {
        if FIXED_TWOS {
            pos.aisleriot_moves(out)
        } else {
            pos.common_moves(out)
        }
    }
    #[inline(always)]
    fn is_won(pos: &Position) -> bool {
        pos.is_won_common()
    }
    #[inline(always)]
    fn is_dead(pos: &Position) -> bool {
        pos.is_dead_common()
    }
    #[inline(always)]
    fn is_dead_after(pos: &Position, m: Move) -> bool {
        pos.is_dead_common_after(m.card)
    }
    #[inline(always)]
    fn stubborn(pos: &Position, moves: &Self::Moves) -> Option<u64> {
        // Only called in settled positions: the Twos of column 0 never move again.
        pos.stubborn_moves::<true>(moves.as_slice(), moves.legal(), moves.legal())
    }
}

/// A Gaps position searched under the rules `R`.
pub struct GapsGame<R> {
    /// The current position.
    pub position: Position,
    rules: PhantomData<R>,
}

impl<R: Rules> GapsGame<R> {
    /// A game starting at `position`.
    pub fn new(position: Position) -> Self {
        GapsGame {
            position,
            rules: PhantomData,
        }
    }
}

/// The `basic` variant as a [`Game`].
pub type BasicGame = GapsGame<BasicRules>;
/// The `common` variant as a [`Game`].
pub type CommonGame = GapsGame<CommonRules>;
/// The `aisleriot` variant as a [`Game`].
pub type AisleriotGame = GapsGame<AisleriotRules>;

impl<R: Rules> Game for GapsGame<R> {
    type Move = Move;
    type Moves = R::Moves;
    const ACYCLIC: bool = R::ACYCLIC;
    const SETTLES: bool = true;

    #[inline(always)]
    fn key(&self) -> Key {
        self.position.key()
    }
    fn key_from_scratch(&self) -> Key {
        self.position.compute_key()
    }
    #[inline(always)]
    fn settled(&self) -> bool {
        R::settled(&self.position)
    }
    #[inline(always)]
    fn is_won(&self) -> bool {
        R::is_won(&self.position)
    }
    #[inline(always)]
    fn generate(&self, out: &mut Self::Moves) {
        R::generate(&self.position, out)
    }
    #[inline(always)]
    fn key_after(&self, m: Move) -> Key {
        self.position.key_after(m)
    }
    #[inline(always)]
    fn play(&mut self, m: Move) {
        self.position.play(m)
    }
    #[inline(always)]
    fn unplay(&mut self, m: Move) {
        self.position.unplay(m)
    }
    #[inline(always)]
    fn commute(a: Move, b: Move) -> bool {
        gaps_commute(a, b)
    }
    #[inline(always)]
    fn stubborn(&self, moves: &Self::Moves) -> Option<u64> {
        R::stubborn(&self.position, moves)
    }
    #[inline(always)]
    fn is_dead(&self) -> bool {
        R::is_dead(&self.position)
    }
    #[inline(always)]
    fn is_dead_after(&self, m: Move) -> bool {
        R::is_dead_after(&self.position, m)
    }
}
