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

/// [`BoardPosition::frozen_mask`]'s occupant of a cell that is not there (always held)
/// and of a gap (never held), beside the card codes (below 64).
const NO_CELL: u8 = 64;
const EMPTY: u8 = 65;

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
        if self.rules().accepts == Accepts::SuccessorOrBelowRight {
            if let Some(frozen) = self.frozen_whole_suits() {
                #[cfg(debug_assertions)]
                assert_eq!(frozen, Relations::of(self).largest_frozen(), "frozen suits");
                return frozen;
            }
        }
        let board = Relations::of(self);
        let frozen = board.largest_frozen();
        #[cfg(debug_assertions)]
        assert_eq!(frozen, board.largest_frozen_by_passes(), "frozen set");
        frozen
    }

    /// [`BoardPosition::frozen_mask`] under [`Accepts::SuccessorOrBelowRight`], whose
    /// frozen sets are whole suits: a card above the base rank stays only with its
    /// predecessor, one below the top only with its successor (module doc), so of a
    /// suit whose cards are all on the board every card is frozen or none. Suits are
    /// dropped, pass after pass, until none breaks: a few hundred reads, where the
    /// general computation builds every card's relations first (about half of the
    /// search's time in Galary and Free Parking, docs/performance.md). `None` when a
    /// card in play is off the board.
    fn frozen_whole_suits(&self) -> Option<u64> {
        let rules = self.rules();
        let (suits, row_len) = (rules.suits as usize, rules.row_len());
        let (base, top) = (rules.base, rules.top);
        let suit_cards = ranks(base, top + 1);
        let mut places = [[0 as Cell; 16]; 4];
        for (suit, places) in places.iter_mut().enumerate().take(suits) {
            for rank in base..=top {
                places[rank as usize] = self.place_of(Card::new(suit as u8, rank))?;
            }
        }
        // Whether `frozen` holds cell `c` (`None`: not there).
        let holds = |frozen: u64, c: Option<Cell>| held(frozen, self.occupant(c));
        let mut frozen = (0..suits).fold(0u64, |set, suit| set | suit_cards << (16 * suit));
        loop {
            let column0_open = (0..suits).any(|row| !holds(frozen, Some(cell(row, 0))));
            let mut next = frozen;
            for (suit, places) in places.iter().enumerate().take(suits) {
                let cards = suit_cards << (16 * suit);
                if frozen & cards == 0 {
                    continue;
                }
                let breaks = (base..=top).any(|rank| {
                    let place = |rank: u8| places[rank as usize];
                    (rank == base && column0_open)
                        || (rank > base && !holds(frozen, cell_after(place(rank - 1), row_len)))
                        || (rank < top && !holds(frozen, cell_before(place(rank + 1), row_len)))
                });
                if breaks {
                    next &= !cards;
                }
            }
            if next == frozen {
                return Some(frozen);
            }
            frozen = next;
        }
    }
}

impl BoardPosition {
    /// What stands in cell `c`, as a bit that [`held`] tests: a card's code,
    /// [`NO_CELL`] (`None`: nothing moves into a cell that is not there) or [`EMPTY`]
    /// (a gap).
    #[inline(always)]
    fn occupant(&self, c: Option<Cell>) -> u8 {
        match c {
            None => NO_CELL,
            Some(c) => self.card_on(c).map_or(EMPTY, |card| card.code()),
        }
    }
}

/// The cell after `at` in its row of `row_len` cells (`None` after the last).
#[inline(always)]
fn cell_after(at: Cell, row_len: usize) -> Option<Cell> {
    (col_of(at) + 1 < row_len).then(|| cell(row_of(at), col_of(at) + 1))
}

/// The cell before `at` under the right-neighbour rule: a row's first cell's is the
/// row above's last, and column 1's is none that counts (column 0 takes the base rank
/// only, which the column-0 condition covers).
#[inline(always)]
fn cell_before(at: Cell, row_len: usize) -> Option<Cell> {
    match (row_of(at), col_of(at)) {
        (row, 0) if row > 0 => Some(cell(row - 1, row_len - 1)),
        (_, 0 | 1) => None,
        (row, col) => Some(cell(row, col - 1)),
    }
}

/// Whether `frozen` holds the cell whose occupant is `x` ([`NO_CELL`] always, [`EMPTY`]
/// never).
#[inline(always)]
fn held(frozen: u64, x: u8) -> bool {
    ((u128::from(frozen) | 1 << NO_CELL) >> x) & 1 != 0
}

/// `bit` and the card `neighbour` ([`NO_CELL`] or [`EMPTY`]: none), as a set.
#[inline(always)]
fn with_neighbour(bit: u64, neighbour: u8) -> u64 {
    bit | (u128::from(1u64) << neighbour) as u64
}

/// What the frozen set of one board depends on: each card's hosts (the cards it may
/// follow) and what stands after it, before it (the right-neighbour rule) and in
/// column 0, with the inverse of the neighbour relations.
struct Relations {
    accepts: Accepts,
    base: u8,
    top: u8,
    suit_mask: u64,
    on_board: u64,
    hosts: [u64; 64],
    /// The occupant of the cell after each card (a code, [`NO_CELL`] or [`EMPTY`]).
    after: [u8; 64],
    /// The occupant of the cell before each card (the right-neighbour rule).
    before: [u8; 64],
    /// The card whose `after` is this card, or [`NO_CELL`].
    left_of: [u8; 64],
    /// The card whose `before` is this card, or [`NO_CELL`].
    right_of: [u8; 64],
    /// The occupants of column 0, and the column-0 cards as a set.
    column0: [u8; 4],
    in_column0: u64,
    suits: usize,
}

impl Relations {
    fn of(pos: &BoardPosition) -> Relations {
        let rules = pos.rules();
        let (suits, row_len, base) = (rules.suits as usize, rules.row_len(), rules.base);
        let mut r = Relations {
            accepts: rules.accepts,
            base,
            top: rules.top,
            suit_mask: EVERY_SUIT & (u64::MAX >> (64 - 16 * suits)),
            on_board: 0,
            hosts: [0; 64],
            after: [NO_CELL; 64],
            before: [NO_CELL; 64],
            left_of: [NO_CELL; 64],
            right_of: [NO_CELL; 64],
            column0: [NO_CELL; 4],
            in_column0: 0,
            suits,
        };
        for row in 0..suits {
            r.column0[row] = pos.occupant(Some(cell(row, 0)));
            for col in 0..row_len {
                let Some(card) = pos.at(row, col) else {
                    continue;
                };
                let code = card.code() as usize;
                r.on_board |= 1 << code;
                if col == 0 {
                    r.in_column0 |= 1 << code;
                }
                let (suit, rank) = (card.suit(), card.rank());
                r.hosts[code] = if rank == base {
                    0
                } else {
                    match rules.accepts {
                        Accepts::Successor | Accepts::SuccessorOrBelowRight => 1 << (code - 1),
                        Accepts::AnySuitSuccessor => r.suit_mask << (rank - 1),
                        Accepts::HigherSameSuit => ranks(base, rank) << (16 * suit),
                    }
                };
                let at = cell(row, col);
                r.after[code] = pos.occupant(cell_after(at, row_len));
                if r.after[code] < NO_CELL {
                    r.left_of[r.after[code] as usize] = code as u8;
                }
                r.before[code] = pos.occupant(cell_before(at, row_len));
                if r.before[code] < NO_CELL {
                    r.right_of[r.before[code] as usize] = code as u8;
                }
            }
        }
        r
    }

    /// The cards that may follow card `code` (the inverse of `hosts`).
    fn hosted_by(&self, code: usize) -> u64 {
        let (suit, rank) = (code >> 4, (code & 15) as u8);
        if rank >= self.top {
            return 0;
        }
        let cards = match self.accepts {
            Accepts::Successor | Accepts::SuccessorOrBelowRight => 1 << (code + 1),
            Accepts::AnySuitSuccessor => self.suit_mask << (rank + 1),
            Accepts::HigherSameSuit => ranks(rank + 1, self.top + 1) << (16 * suit),
        };
        cards & self.on_board
    }

    /// Whether card `code` of `frozen` breaks the conditions (module doc), given which
    /// cards of `frozen` are `settled` (the cell after them held), `before_held` (the
    /// cell before them held) and whether a column-0 cell is open.
    #[inline(always)]
    fn breaks(
        &self,
        code: usize,
        frozen: u64,
        settled: u64,
        before_held: u64,
        column0_open: bool,
    ) -> bool {
        let rank = (code & 15) as u8;
        self.hosts[code] & !settled != 0
            || (self.accepts == Accepts::SuccessorOrBelowRight
                && rank < self.top
                && (1u64 << (code + 1)) & frozen & before_held == 0)
            // A base-rank card of the set stands on a held cell, so an open column-0
            // cell is never its own: any open one lets it move.
            || (rank == self.base && column0_open)
    }

    /// Of the cards of `frozen`: those whose next cell `frozen` holds (settled), those
    /// whose previous cell it holds, and whether a column-0 cell is left open.
    fn holds(&self, frozen: u64) -> (u64, u64, bool) {
        let (mut settled, mut before_held) = (0u64, 0u64);
        for code in codes(frozen) {
            settled |= u64::from(held(frozen, self.after[code])) << code;
            before_held |= u64::from(held(frozen, self.before[code])) << code;
        }
        let column0_open = self.column0[..self.suits].iter().any(|&x| !held(frozen, x));
        (settled, before_held, column0_open)
    }

    /// The largest frozen set: every card checked once, and again only when a card it
    /// depends on leaves the set (a greatest fixed point by a work list).
    fn largest_frozen(&self) -> u64 {
        let mut frozen = self.on_board;
        let (mut settled, mut before_held, mut column0_open) = self.holds(frozen);
        let mut check = frozen;
        while check != 0 {
            let code = check.trailing_zeros() as usize;
            check &= check - 1;
            if frozen & (1 << code) == 0
                || !self.breaks(code, frozen, settled, before_held, column0_open)
            {
                continue;
            }
            let bit = 1u64 << code;
            frozen &= !bit;
            // The cards no longer settled: this one, and the one whose next cell it
            // holds; the cards that may follow them are checked again.
            let unsettled = settled & with_neighbour(bit, self.left_of[code]);
            settled &= !unsettled;
            for lost in codes(unsettled) {
                check |= self.hosted_by(lost) & frozen;
            }
            if self.accepts == Accepts::SuccessorOrBelowRight {
                // Likewise for the cell before: the predecessors of the cards whose
                // previous cell it held, or of itself, are checked again.
                let unheld = before_held & with_neighbour(bit, self.right_of[code]);
                before_held &= !unheld;
                for lost in codes(unheld) {
                    if (lost & 15) as u8 > self.base {
                        check |= (1 << (lost - 1)) & frozen;
                    }
                }
            }
            if self.in_column0 & bit != 0 && !column0_open {
                column0_open = true;
                check |= frozen & (self.suit_mask << self.base);
            }
        }
        frozen
    }

    /// [`Relations::largest_frozen`] the plain way, pass after pass over every card
    /// until none leaves: the check of the work list in debug builds.
    #[cfg(debug_assertions)]
    fn largest_frozen_by_passes(&self) -> u64 {
        let mut frozen = self.on_board;
        loop {
            let (settled, before_held, column0_open) = self.holds(frozen);
            let next = codes(frozen)
                .filter(|&code| !self.breaks(code, frozen, settled, before_held, column0_open))
                .fold(0u64, |set, code| set | 1 << code);
            if next == frozen {
                return frozen;
            }
            frozen = next;
        }
    }
}
