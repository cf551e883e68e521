//! Moves and fixed-capacity move lists (no allocation on the search path).
//!
//! Invariants:
//! - A [`Move`] is only meaningful in the position it was generated in: `card` stands on
//!   `from`, `to` is a gap, and `gap` is the slot of that gap in the position's gap list.
//! - A [`MoveList`] never holds more than `N` moves; pushing beyond is a logic error
//!   (capacities are chosen from the rules: one move per gap, or `suits` Twos per gap).
//! - A [`Step`] of a line is a move of the position it comes in, or the next redeal;
//!   every line (a solution over rounds, a game in progress, a line on a PySolFC board)
//!   is a list of them.
//! - A [`SlotMoves`] holds one entry per gap slot; entry `s` is a move only if bit `s`
//!   of its legal mask is set. A move keeps its slot as long as its gap stays a gap,
//!   which is what lets the search hand on incremental transpositions as a bit mask.

use crate::card::{col_of, row_of, Card, Cell, MAX_SUITS};
use std::fmt;

/// One move: `card` goes from cell `from` into the gap at cell `to`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move {
    /// The card that moves.
    pub card: Card,
    /// Where the card stands before the move (a gap afterwards).
    pub from: Cell,
    /// The gap the card goes into.
    pub to: Cell,
    /// Slot of the gap in the position's gap list (identifies the gap's subgame).
    pub gap: u8,
}

/// A step of a line: a move of the position it comes in, or the next redeal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A legal move.
    Move(Move),
    /// The next redeal.
    Redeal,
}

impl Step {
    /// Whether `self` and `other` are the same step of one position: the same redeal, or
    /// the same card between the same cells (a move's gap slot is the position's
    /// bookkeeping, not part of the step).
    pub fn same_as(&self, other: &Step) -> bool {
        match (self, other) {
            (Step::Redeal, Step::Redeal) => true,
            (Step::Move(a), Step::Move(b)) => (a.card, a.from, a.to) == (b.card, b.from, b.to),
            _ => false,
        }
    }
}

impl Move {
    /// `(row, col)` of the origin.
    pub fn from_rc(self) -> (usize, usize) {
        (row_of(self.from), col_of(self.from))
    }
    /// `(row, col)` of the destination.
    pub fn to_rc(self) -> (usize, usize) {
        (row_of(self.to), col_of(self.to))
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (fr, fc) = self.from_rc();
        let (tr, tc) = self.to_rc();
        write!(f, "{} ({fr},{fc})->({tr},{tc})", self.card)
    }
}

/// A list of at most `N` moves stored inline.
#[derive(Clone, Copy)]
pub struct MoveList<const N: usize> {
    len: u8,
    moves: [Move; N],
}

impl<const N: usize> Default for MoveList<N> {
    fn default() -> Self {
        MoveList {
            len: 0,
            moves: [Move::default(); N],
        }
    }
}

impl<const N: usize> MoveList<N> {
    /// Empties the list.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    /// Appends a move.
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        self.moves[self.len as usize] = m;
        self.len += 1;
    }
    /// Number of moves.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether the list is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The moves as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }
    /// Mutable access, for reordering.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len as usize]
    }
    /// Keeps only the moves for which `keep` holds, in their order.
    #[inline(always)]
    pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        let mut kept = 0;
        for i in 0..self.len as usize {
            let m = self.moves[i];
            if keep(m) {
                self.moves[kept] = m;
                kept += 1;
            }
        }
        self.len = kept as u8;
    }
}

impl<const N: usize> std::ops::Index<usize> for MoveList<N> {
    type Output = Move;
    #[inline(always)]
    fn index(&self, i: usize) -> &Move {
        &self.as_slice()[i]
    }
}

impl<const N: usize> AsRef<[Move]> for MoveList<N> {
    #[inline(always)]
    fn as_ref(&self) -> &[Move] {
        self.as_slice()
    }
}

/// The moves of a position with at most one move per gap (`basic`), indexed by gap slot: entry `s` is the move into gap slot `s`, and
/// a real move only if bit `s` of [`SlotMoves::legal`] is set (otherwise its `card` and
/// `from` mean nothing, but `to` and `gap` still name the gap).
#[derive(Clone, Copy, Default)]
pub struct SlotMoves {
    slots: u8,
    legal: u8,
    homing: u8,
    moves: [Move; MAX_SUITS],
}

impl SlotMoves {
    /// Writes the entry of gap slot `m.gap` (a move or a placeholder).
    #[inline(always)]
    pub fn set(&mut self, m: Move) {
        self.moves[m.gap as usize] = m;
    }
    /// Ends a list of `slots` entries, all written with [`SlotMoves::set`]: bit `s` of
    /// `legal` set means entry `s` is a legal move, and of `homing`, a legal move that
    /// puts its card on its `basic` home cell.
    #[inline(always)]
    pub fn finish(&mut self, slots: usize, legal: u8, homing: u8) {
        self.slots = slots as u8;
        self.legal = legal;
        self.homing = homing & legal;
    }
    /// Bit `s` set: entry `s` is a legal move that puts its card on its `basic` home.
    #[inline(always)]
    pub fn homing(&self) -> u64 {
        u64::from(self.homing)
    }
    /// Bit `s` set: entry `s` is a legal move.
    #[inline(always)]
    pub fn legal(&self) -> u64 {
        u64::from(self.legal)
    }
    /// The legal moves, in slot order.
    pub fn iter_legal(&self) -> impl Iterator<Item = Move> + '_ {
        self.as_ref()
            .iter()
            .enumerate()
            .filter(|(s, _)| self.legal >> s & 1 == 1)
            .map(|(_, m)| *m)
    }
}

impl AsRef<[Move]> for SlotMoves {
    /// Every slot's entry, legal or not.
    #[inline(always)]
    fn as_ref(&self) -> &[Move] {
        &self.moves[..self.slots as usize]
    }
}
