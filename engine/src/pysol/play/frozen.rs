//! Frozen cards: a board from which no line of the round can win, found without
//! searching it (the last round's pruning; docs/engine.md, "Frozen cards").
//!
//! A set `F` of the cards on the board is *frozen* when every card of `F` could only
//! ever move into a cell that holds a card of `F`:
//! - a base-rank card moves into column 0: every column-0 cell but its own holds a card
//!   of `F`;
//! - a card moves into the cell after a card it may follow ([`Accepts`]: its
//!   predecessor, any card of the rank below, any lower card of its suit): each such
//!   card is in `F` and the cell after it holds a card of `F` (or there is none);
//! - under [`Accepts::SuccessorOrBelowRight`], also into the cell before its successor
//!   (a row's first cell's is the row above's last): the successor is in `F` and that
//!   cell holds a card of `F` (or there is none, or it is in column 0, which takes the
//!   base rank only and is covered above).
//!
//! No card of a frozen set ever moves again in this round: the first to move would
//! move into a cell that still holds a card of `F` (none of them has moved yet), and a
//! card only moves into a gap. The largest frozen set is the greatest fixed point of
//! removing the cards that break these conditions, computed here on bit sets of card
//! codes (`suit << 4 | rank`, below 64).
//!
//! A board is won only with every card at column `rank - base` of the row of its
//! suit, so a frozen card elsewhere, or two frozen cards of different suits in one row,
//! or one suit's frozen cards in two rows, means the round cannot be won from here.
//! Redeals move frozen cards, so the search uses this only when no redeal is left.

use super::position::BoardPosition;
use crate::card::{cell, col_of, row_of, Card, Cell};
use crate::pysol::Accepts;

/// The cards one suit's ranks `lo..hi` (bits of one suit's 16).
const fn ranks(lo: u8, hi: u8) -> u64 {
    if hi <= lo {
        0
    } else {
        ((1u64 << hi) - 1) & !((1u64 << lo) - 1)
    }
}

/// One rank in every suit of the four.
const EVERY_SUIT: u64 = 0x0001_0001_0001_0001;

/// The card codes of the set `bits`, lowest first.
fn codes(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let code = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            code
        })
    })
}

impl BoardPosition {
    /// Whether some card can never move again in this round and stands where no won
    /// board has it (module doc): then no line of this round wins. Never `true` of a
    /// board a line of the round wins from.
    pub fn frozen_out_of_place(&self) -> bool {
        let frozen = self.frozen_mask();
        let base = self.rules().base;
        // Where a won board has each frozen card: its column, and its suit's row.
        let mut row_suit = [None::<u8>; 4];
        let mut suit_row = [None::<usize>; 4];
        for code in codes(frozen) {
            let card = Card::from_code(code as u8);
            let at = self.place_of(card).expect("a card on the board");
            let (row, col) = (row_of(at), col_of(at));
            if col != (card.rank() - base) as usize {
                return true;
            }
            let suit = card.suit();
            if *row_suit[row].get_or_insert(suit) != suit
                || *suit_row[suit as usize].get_or_insert(row) != row
            {
                return true;
            }
        }
        false
    }

    /// The cards of the largest frozen set (module doc): none of them moves again in
    /// this round, whatever is played.
    pub fn frozen_cards(&self) -> Vec<Card> {
        codes(self.frozen_mask())
            .map(|code| Card::from_code(code as u8))
            .collect()
    }

    /// The largest frozen set, as a bit set of card codes.
    fn frozen_mask(&self) -> u64 {
        let rules = self.rules();
        let (suits, row_len, base) = (rules.suits as usize, rules.row_len(), rules.base);
        let suit_mask = EVERY_SUIT & (u64::MAX >> (64 - 16 * suits));
        // The cards on the board, and what each may follow or precede.
        let mut on_board = 0u64;
        let mut hosts = [0u64; 64];
        let mut after = [None::<Cell>; 64];
        let mut before = [None::<Cell>; 64];
        for row in 0..suits {
            for col in 0..row_len {
                let Some(card) = self.at(row, col) else {
                    continue;
                };
                let code = card.code() as usize;
                on_board |= 1 << code;
                let (suit, rank) = (card.suit(), card.rank());
                hosts[code] = if rank == base {
                    0
                } else {
                    match rules.accepts {
                        Accepts::Successor | Accepts::SuccessorOrBelowRight => 1 << (code - 1),
                        Accepts::AnySuitSuccessor => suit_mask << (rank - 1),
                        Accepts::HigherSameSuit => ranks(base, rank) << (16 * suit),
                    }
                };
                after[code] = (col + 1 < row_len).then(|| cell(row, col + 1));
                before[code] = match col {
                    0 if row > 0 => Some(cell(row - 1, row_len - 1)),
                    // Column 0 before it takes the base rank only (the column-0 rule).
                    0 | 1 => None,
                    _ => Some(cell(row, col - 1)),
                };
            }
        }
        let below_right = rules.accepts == Accepts::SuccessorOrBelowRight;
        let held_by = |frozen: u64, c: Option<Cell>| match c {
            None => true,
            Some(c) => self
                .card_on(c)
                .is_some_and(|card| frozen & (1 << card.code()) != 0),
        };
        let mut frozen = on_board;
        loop {
            // The cards whose next cell (and, below-right, previous cell) is held.
            let mut after_held = 0u64;
            let mut before_held = 0u64;
            let mut col0_open = 0usize;
            let mut col0_open_cell = None;
            for row in 0..suits {
                if !held_by(frozen, Some(cell(row, 0))) {
                    col0_open += 1;
                    col0_open_cell = Some(cell(row, 0));
                }
            }
            for code in codes(frozen) {
                if held_by(frozen, after[code]) {
                    after_held |= 1 << code;
                }
                if held_by(frozen, before[code]) {
                    before_held |= 1 << code;
                }
            }
            let settled = frozen & after_held;
            let mut next = 0u64;
            for code in codes(frozen) {
                let card = Card::from_code(code as u8);
                if hosts[code] & !settled != 0 {
                    continue;
                }
                if below_right && card.rank() < rules.top {
                    let successor = 1u64 << (code + 1);
                    if successor & frozen & before_held == 0 {
                        continue;
                    }
                }
                if card.rank() == base {
                    // Every column-0 cell but its own held.
                    let own = self.place_of(card);
                    let open_elsewhere = match col0_open {
                        0 => false,
                        1 => col0_open_cell != own,
                        _ => true,
                    };
                    if open_elsewhere {
                        continue;
                    }
                }
                next |= 1 << code;
            }
            if next == frozen {
                break;
            }
            frozen = next;
        }
        frozen
    }
}
