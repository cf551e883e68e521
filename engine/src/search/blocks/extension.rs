//! Growing a block: a gap's sequence is extended while its next move is the same on
//! the whole face (decided by the face classifier) and keeps the sequences independent.
//!
//! Invariant: every move added here keeps the invariants of `block` (it is the move
//! `classify` finds for the whole face, and its card stands on no trajectory), so every
//! prefix combination of the block stays legal and order-free. This lives apart from
//! `block` so that `block` does not depend on `face`, which reads blocks.

use super::block::Block;
use super::face::{classify, Action, Part};
use crate::card::{Card, Cell, MAX_SUITS};
use crate::moves::Move;
use crate::zobrist::{move_delta, Key};

impl Block {
    /// Extends gap `x`'s sequence for as long as its next move is the same everywhere on
    /// its face and keeps the sequences independent (Helmstetter and Cazenave 2003, 4.6 steps 1-3, decided
    /// by [`classify`] on the whole face), and
    /// the slab it would add is not already `covered(key, gap cells, extents)` (a table
    /// lookup for the position reached by `x` alone, with the extents of the others).
    #[inline]
    pub fn extend(&mut self, x: usize, covered: impl Fn(Key, &[Cell], &[u8]) -> bool) {
        let gaps = self.gaps();
        let mut key = self.sequence_key(x);
        let mut cells = [0 as Cell; MAX_SUITS];
        for (y, c) in cells.iter_mut().enumerate().take(gaps) {
            *c = self.traj[y][0];
        }
        cells[x] = self.traj[x][self.len[x] as usize];
        while let Some((code, p)) = self.next_move(x) {
            let known = Move {
                card: Card::from_code(code),
                from: p,
                to: cells[x],
                gap: x as u8,
            };
            if self.skip[x].is_some_and(|t| t == known) {
                return; // known to transpose: left to the face, which skips it
            }
            key ^= move_delta(Card::from_code(code), p, cells[x]);
            cells[x] = p;
            let mut extents = self.len;
            extents[x] = 0;
            if covered(key, &cells[..gaps], &extents[..gaps]) {
                return; // the face child that makes this move will be cut by the table
            }
            self.push_step(x, p);
        }
    }

    /// The key of the position [`Block::extend`] would look up first for gap `x` (its
    /// sequence played plus the next move), if there is a next move; a hint for
    /// prefetching, so it may go stale when another gap extends first.
    #[inline]
    pub fn next_extension_key(&self, x: usize) -> Option<Key> {
        let (code, p) = self.next_move(x)?;
        let to = self.traj[x][self.len[x] as usize];
        Some(self.sequence_key(x) ^ move_delta(Card::from_code(code), p, to))
    }

    /// The next move of gap `x` if its sequence may take it: the same move on the whole
    /// face and the others left independent (no split), with its card standing off
    /// every trajectory (`classify` would also take it from `x`'s own: a revisit).
    #[inline(always)]
    fn next_move(&self, x: usize) -> Option<(u8, Cell)> {
        match classify(self, &Part::face(self, x)) {
            Action::Move { code, from } if self.owner(from).is_none() => Some((code, from)),
            _ => None,
        }
    }
}
