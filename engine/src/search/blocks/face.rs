//! The boundary of a block: which move gap `x` makes on its face `F_x` (the positions
//! where `x` has played its whole sequence), split into parts where that move is the
//! same and leaves the other sequences independent (Helmstetter and Cazenave 2003, 4.6).
//!
//! A part is a box of progress ranges `lo[y]..=hi[y]` for the other gaps (`x` is at
//! `len[x]`). [`classify`] answers, for a part, one of:
//! - `Split`: the move depends on the progress of gap `y` at `at` (steps 1-3 below);
//!   the part is cut into `y <= at - 1`, `y >= at + 1` (and `y == at` is dropped, when
//!   `drop_at`, because gap `x` has no move there: the cell on its left is a gap);
//! - `NoMove`: no card fits gap `x` anywhere on the part (a top card on its left);
//! - `Move`: the same card from the same cell fills gap `x` everywhere on the part, and
//!   no move of another sequence within the part's ranges reads a cell it changes.
//!
//! Step 1, the card on the left of the gap: if that cell is on the trajectory of `y` at
//! index `j`, it holds its start card while `y < j`, a gap at `y == j`, and the card of
//! `traj[y][j + 1]` once `y > j`: the part is split at `j` unless `j` is outside its
//! range. Step 2, where the card to move stands: if the card's start cell is on the
//! trajectory of `z` at index `i`, `z`'s move `i` carries it to `traj[z][i - 1]`, so the
//! part is split at `z == i`. Step 3, the effect of the move: it empties cell `p`; if
//! `p` is left of `traj[y][i]` and `y`'s move `i + 1` is inside the range, the part is
//! split between `i` and `i + 1`.
//!
//! Completeness: the parts cover every point of the face; on each dropped point gap `x`
//! has no move; on each `Move` part, playing the move from any point gives a position
//! of the child block built from the part (the move commutes with the ranged moves of
//! the other gaps: it reads and writes no cell they write, and writes no cell they
//! read). So every move leaving the block lands in a child block.

use super::block::Block;
use crate::card::{col_of, row_of, Card, Cell, MAX_SUITS};

/// A part of a face: the face's gap and the progress ranges of every gap.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Part {
    /// The gap whose face this is.
    pub x: u8,
    /// Lowest progress per gap (`lo[x] == hi[x] == len[x]`).
    pub lo: [u8; MAX_SUITS],
    /// Highest progress per gap.
    pub hi: [u8; MAX_SUITS],
}

/// What gap `x` does on a part (see the module documentation).
pub(crate) enum Action {
    Split { y: usize, at: u8, drop_at: bool },
    NoMove,
    Move { code: u8, from: Cell },
}

impl Part {
    /// The whole face of gap `x` of `block`.
    pub fn face(block: &Block, x: usize) -> Part {
        let mut part = Part {
            x: x as u8,
            lo: [0; MAX_SUITS],
            hi: block.len,
        };
        part.lo[x] = block.len[x];
        part
    }

    /// Cuts the part at progress `at` of gap `y` and pushes the non-empty pieces
    /// `lo..=at - 1` and `at..=hi`, or `at + 1..=hi` when `drop_at`.
    pub fn split(&self, y: usize, at: u8, drop_at: bool, out: &mut Vec<Part>) {
        if self.lo[y] < at {
            let mut low = *self;
            low.hi[y] = at - 1;
            out.push(low);
        }
        let upper_lo = if drop_at { at + 1 } else { at };
        if upper_lo <= self.hi[y] {
            let mut high = *self;
            high.lo[y] = upper_lo;
            out.push(high);
        }
    }
}

/// The move of gap `part.x` on `part`, or how to split the part first.
#[inline]
pub(crate) fn classify(block: &Block, part: &Part) -> Action {
    let x = part.x as usize;
    let g = block.traj[x][block.len[x] as usize];
    // Step 1: the card on the left of the gap.
    let code = if col_of(g) == 0 {
        Card::new(row_of(g) as u8, 1).code()
    } else {
        let left = match block.owner(g - 1) {
            None => block.start.raw_cell(g - 1),
            Some((y, j)) if y == x => block.start.raw_cell(block.traj[x][j as usize + 1]),
            Some((y, j)) => {
                if (part.lo[y]..=part.hi[y]).contains(&j) {
                    return Action::Split {
                        y,
                        at: j,
                        drop_at: true,
                    };
                }
                if part.hi[y] < j {
                    block.start.raw_cell(g - 1)
                } else {
                    block.start.raw_cell(block.traj[y][j as usize + 1])
                }
            }
        };
        match block.start.successor_code(left) {
            Some(code) => code,
            None => return Action::NoMove,
        }
    };
    // Step 2: where that card stands.
    let start_cell = block.start.place_of(code);
    let from = match block.owner(start_cell) {
        None => start_cell,
        Some((z, i)) => {
            // `i >= 1`: index 0 of a trajectory is a gap in the start position.
            let i = i.max(1);
            if z == x || part.lo[z] >= i {
                block.traj[z][i as usize - 1]
            } else if part.hi[z] < i {
                start_cell
            } else {
                return Action::Split {
                    y: z,
                    at: i,
                    drop_at: false,
                };
            }
        }
    };
    // Step 3: emptying `from` must not block a ranged move of another gap.
    if let Some((y, i)) = block.owner(from + 1) {
        if y != x && part.lo[y] <= i && i < part.hi[y] {
            return Action::Split {
                y,
                at: i + 1,
                drop_at: false,
            };
        }
    }
    Action::Move { code, from }
}
