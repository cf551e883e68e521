//! Stubborn sets for `basic` (and settled `common`) positions: a sound partial-order
//! reduction that keeps every reachable terminal position reachable.
//!
//! Invariant: [`Position::stubborn_moves`] returns a subset of the legal moves that meets
//! Valmari's stubborn-set conditions (see its documentation for the proof), or `None`.

use super::{Position, GAP};
use crate::card::{col_of, row_of};
use crate::moves::Move;

impl Position {
    /// A stubborn subset of the legal `basic` (or settled `common`) moves `moves`, as a
    /// bit mask over the list, if one smaller than the whole list is found. Only the
    /// entries whose bit is set in `legal` are moves; every entry's `to` must still be
    /// its own gap (true of [`MoveList`](crate::moves::MoveList)s, whose entries are all legal, and of
    /// `moves::SlotMoves`). Only the moves of `seeds` (a subset of `legal`) are tried as
    /// the key move below; a caller may leave out moves it knows do not qualify.
    ///
    /// It starts from a move `X: p -> o` where `o` is `X`'s home and every cell left of
    /// `o` holds its home card (a correct prefix, which never moves again). That move
    /// stays enabled whatever other moves are played (`o` can only take `X`, `X` can only
    /// go to `o`), so it is a key move. Playing it early only empties `p` and fills `o`;
    /// no other move can target `o`, `o + 1` (left of it is the gap `o`) or `p`
    /// (occupied), so the only move it could disable is the successor `X+1` going to
    /// `p + 1`. That is impossible when `p` is in the last column, `X` is a top card, or
    /// `X+1` already stands on `p + 1`; if `p + 1` is a gap, the move `X+1 -> p + 1` is
    /// enabled and joins the set, and the same question is asked of `X+1`'s own cell
    /// (ranks grow, so this ends). Any other card on `p + 1` abandons the candidate.
    /// These are Valmari's stubborn-set conditions, under which every terminal position
    /// reachable from here (the won one included) stays reachable through the set.
    ///
    /// `SETTLED_COMMON`: the moves are `common` moves of a position whose column 0 holds
    /// only Twos. Those Twos never move again, so a row's Two plays the part of its
    /// ace: `o` may be in any row, as long as the cells left of it run from the Two of
    /// `X`'s suit up to `X - 1`.
    pub fn stubborn_moves<const SETTLED_COMMON: bool>(
        &self,
        moves: &[Move],
        legal: u64,
        seeds: u64,
    ) -> Option<u64> {
        let last = self.top as usize;
        let mut candidates = seeds;
        'candidate: while candidates != 0 {
            let m = &moves[candidates.trailing_zeros() as usize];
            candidates &= candidates - 1;
            let code = m.card.code();
            let placed = if SETTLED_COMMON {
                col_of(m.to) + 1 == (code & 15) as usize
            } else {
                m.to == code - 1
            };
            if !placed {
                continue;
            }
            let (row, col) = (row_of(m.to), col_of(m.to));
            if self.run_length(row, m.card.suit()) != col {
                continue;
            }
            let mut set = 0u64;
            let (mut card, mut at, mut to) = (m.card, m.from, m.to);
            loop {
                let found = moves.iter().position(|x| x.to == to);
                let Some(i) = found.filter(|&i| legal >> i & 1 == 1) else {
                    continue 'candidate;
                };
                set |= 1 << i;
                if col_of(at) == last || card.rank() == self.top {
                    break;
                }
                let right = self.cells[at as usize + 1];
                if right == card.code() + 1 {
                    break;
                }
                if right != GAP {
                    continue 'candidate;
                }
                // `card + 1 -> at + 1` is legal now; it joins the set.
                to = at + 1;
                card = card.successor();
                at = self.place[card.code() as usize];
            }
            // `set` only names legal moves: it is smaller unless it is all of them.
            if set != legal {
                return Some(set);
            }
        }
        None
    }

    /// How many cells from column 0 of `row` hold the Two, Three, ... of `suit` in order
    /// (in `basic`, with `suit == row`, the row's correct prefix). All sixteen cell slots
    /// of the row are compared at once; the slots right of the layout hold `OUTSIDE`,
    /// so a run never reaches them.
    #[inline(always)]
    pub(crate) fn run_length(&self, row: usize, suit: u8) -> usize {
        /// Byte `k` is `k + 1`: the code of rank `k + 1` (the Two first) in suit 0.
        const RANKS: u128 =
            u128::from_le_bytes([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        const EVERY_BYTE: u128 = u128::from_le_bytes([1; 16]);
        let start = row << 4;
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&self.cells[start..start + 16]);
        // No byte carries: suit << 4 is at most 0x70 and ranks at most 16.
        let want = RANKS + u128::from(suit << 4) * EVERY_BYTE;
        ((u128::from_le_bytes(bytes) ^ want).trailing_zeros() / 8) as usize
    }

    /// Whether the `common` move `m` extends its row's run from column 0: column 0 of
    /// the target row holds a Two and the cells from there to the one left of `m.to`
    /// hold its suit in order, so `m` puts the next card of that run in place. A move
    /// order hint for the exact search, which tries every move whatever the order.
    #[inline(always)]
    pub(crate) fn extends_run(&self, m: Move) -> bool {
        let (row, col) = (row_of(m.to), col_of(m.to));
        col > 0
            && self.column0_holds_two(row)
            && self.run_length(row, self.cells[row << 4] >> 4) >= col
    }
}
