//! One block: a start position and, for each gap, a sequence of that gap's moves, such
//! that the sequences are independent (Helmstetter and Cazenave 2003, 4.2). The block stands for every
//! position reached by playing a prefix of each sequence, in any order.
//!
//! Notation: gap `x` (its slot in the position's gap list) follows the trajectory
//! `traj[x][0..=len[x]]`: move `i` (1-based) of `x` takes the card standing on
//! `traj[x][i]` in the start position into the gap at `traj[x][i - 1]`. The progress
//! of a position in the block is the vector `k` of moves made per gap.
//!
//! Invariants (what makes every prefix combination legal and order-free):
//! - A trajectory never visits a cell twice, and no cell is on two trajectories
//!   (`trace` maps each cell to its unique `(gap, index)`).
//! - No move of a sequence reads a cell of another gap's trajectory: the cell left of
//!   `traj[y][i]` for `i < len[y]` (what move `i + 1` of `y` needs there) is on no
//!   trajectory but `y`'s own.
//!
//! Proof sketch: only `x`'s moves write the cells of `x`'s trajectory, so in any
//! position of the block each trajectory cell holds what `x`'s own prefix put there,
//! and every other cell holds its start content. Move `i + 1` of `x` reads the cell
//! left of its gap (not written by another gap) and finds the same card as when `x` is
//! played alone; that card stands where `x` alone would find it, since the cell it
//! leaves is on `x`'s trajectory. So the move is legal and identical in every order.
//! Extension (`extension.rs`) adds a move only when both invariants survive it.

use crate::card::{Card, Cell, CELL_SLOTS, MAX_SUITS};
use crate::moves::Move;
use crate::position::Position;
use crate::zobrist::{move_delta, Key};

/// Longest trajectory plus one: a trajectory visits each of at most 104 cells once.
pub(crate) const MAX_TRAJECTORY: usize = 112;

/// A trace entry: no trajectory passes here.
const NO_OWNER: u16 = u16::MAX;

/// A block of independent gap sequences (see the module invariants).
#[derive(Clone, Copy)]
pub(crate) struct Block {
    /// The position where every sequence is unplayed.
    pub start: Position,
    /// Moves in each gap's sequence.
    pub len: [u8; MAX_SUITS],
    /// Each gap's trajectory, `len[x] + 1` cells.
    pub traj: [[Cell; MAX_TRAJECTORY]; MAX_SUITS],
    /// For each cell, `gap << 8 | index` of the trajectory through it, or `NO_OWNER`.
    trace: [u16; CELL_SLOTS],
    /// Per gap, a move known to transpose (incremental transpositions, see `blocks`):
    /// it fills the cell where the gap's trajectory ends, so the sequence is not
    /// extended by it.
    pub skip: [Option<Move>; MAX_SUITS],
}

impl Block {
    /// A block with empty sequences at `start`.
    pub fn new(start: Position) -> Self {
        let mut block = Block {
            start,
            len: [0; MAX_SUITS],
            traj: [[0; MAX_TRAJECTORY]; MAX_SUITS],
            trace: [NO_OWNER; CELL_SLOTS],
            skip: [None; MAX_SUITS],
        };
        block.reset(start);
        block
    }

    /// Makes this the block of empty sequences at `start`.
    #[inline]
    pub fn reset(&mut self, start: Position) {
        self.start = start;
        self.len = [0; MAX_SUITS];
        self.trace = [NO_OWNER; CELL_SLOTS];
        self.skip = [None; MAX_SUITS];
        for (x, &g) in start.gaps().iter().enumerate() {
            self.traj[x][0] = g;
            self.trace[g as usize] = (x as u16) << 8;
        }
    }

    /// Number of gaps (sequences).
    #[inline(always)]
    pub fn gaps(&self) -> usize {
        self.start.layout().suits()
    }

    /// The trajectory through cell `c`, as `(gap, index)`.
    #[inline(always)]
    pub fn owner(&self, c: Cell) -> Option<(usize, u8)> {
        let t = self.trace[c as usize];
        (t != NO_OWNER).then_some(((t >> 8) as usize, t as u8))
    }

    /// Sets the sequence of gap `x` to `cells` (a trajectory, at least its first cell),
    /// which must keep the module invariants; used when building a child block.
    #[inline]
    pub fn set_trajectory(&mut self, x: usize, cells: &[Cell]) {
        let old = self.len[x] as usize;
        for &c in &self.traj[x][..=old] {
            self.trace[c as usize] = NO_OWNER;
        }
        self.traj[x][..cells.len()].copy_from_slice(cells);
        self.len[x] = (cells.len() - 1) as u8;
        for (i, &c) in cells.iter().enumerate() {
            self.trace[c as usize] = (x as u16) << 8 | i as u16;
        }
    }

    /// Move `i` (1-based) of gap `x`'s sequence.
    #[inline(always)]
    pub fn step(&self, x: usize, i: usize) -> Move {
        let from = self.traj[x][i];
        Move {
            card: Card::from_code(self.start.raw_cell(from)),
            from,
            to: self.traj[x][i - 1],
            gap: x as u8,
        }
    }

    /// Appends cell `p` to gap `x`'s trajectory: its sequence gains the move of the
    /// card on `p` into the gap where the trajectory ended. The caller (extension)
    /// has checked that both module invariants survive it.
    #[inline(always)]
    pub fn push_step(&mut self, x: usize, p: Cell) {
        let len = self.len[x] as usize + 1;
        self.len[x] = len as u8;
        self.traj[x][len] = p;
        self.trace[p as usize] = (x as u16) << 8 | len as u16;
    }

    /// The key of the position reached from the start by gap `x`'s whole sequence.
    #[inline(always)]
    pub fn sequence_key(&self, x: usize) -> Key {
        (1..=self.len[x] as usize).fold(self.start.key(), |key, i| {
            let m = self.step(x, i);
            key ^ move_delta(m.card, m.from, m.to)
        })
    }

    /// Positions in the block: the product of `len[x] + 1`.
    pub fn volume(&self) -> u64 {
        self.len[..self.gaps()]
            .iter()
            .fold(1u64, |v, &l| v.saturating_mul(u64::from(l) + 1))
    }

    /// Whether the far corner (every sequence played) is the won `basic` position. No
    /// other position of the block can be won: a won position has no move at all.
    pub fn far_corner_won(&self) -> bool {
        let mut home = i32::from(self.start.home_count());
        for x in 0..self.gaps() {
            for i in 1..=self.len[x] as usize {
                let m = self.step(x, i);
                let own = m.card.code() - 1;
                home += i32::from(m.to == own) - i32::from(m.from == own);
            }
        }
        home == (self.gaps() * self.start.layout().top_rank() as usize) as i32
    }
}
