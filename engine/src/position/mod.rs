//! The board: cards on cells, gaps, the Zobrist key and make/unmake (the move
//! generators are in `generate.rs`).
//!
//! Invariants (checked by [`Position::check_invariants`] in tests and debug builds):
//! - `cells[c]` is `GAP` for exactly the `suits` cells listed in `gaps`, and otherwise
//!   holds a non-Ace card whose `place` is `c`; cells outside the layout are `OUTSIDE`.
//! - `key` is the XOR of the Zobrist terms of all cards (updated incrementally).
//! - `home` counts cards standing on their `basic` home cell (`code - 1`), so the basic
//!   game is won exactly when `home == suits * (ranks - 1)`.
//! - `play` followed by `unplay` of the same move restores the position bit for bit.
//! - The slots of `cells` and `place` beyond the layout's rows are `OUTSIDE` and
//!   `NOWHERE` in every position (set at construction, never written), so two positions
//!   of one layout differ only in the rows in use ([`Position::copy_from`]).

use crate::card::{cell, col_of, row_of, Card, Cell, Layout, CARD_CODES, CELL_SLOTS, MAX_SUITS};
use crate::moves::{Move, MoveList};
use crate::variant::Variant;

mod dead;
mod generate;
mod shuffle;
mod stubborn;

pub(crate) use shuffle::is_shuffle_move;
#[cfg(test)]
mod tests;
use crate::zobrist::{self, Key};

/// Raw cell value of a gap (cards are their codes, below it).
pub(crate) const GAP: u8 = 0x80;
const OUTSIDE: u8 = 0xFE;
const NOWHERE: u8 = 0xFF;

/// Most moves in one position: every gap in column 0 of a `common` game takes any Two.
pub const MAX_MOVES: usize = MAX_SUITS * MAX_SUITS;

/// A Gaps position. `Copy`, so probes can restart from a saved copy.
#[derive(Clone, Copy)]
pub struct Position {
    layout: Layout,
    top: u8,
    home: u8,
    gaps: [Cell; MAX_SUITS],
    key: Key,
    cells: [u8; CELL_SLOTS],
    place: [u8; CARD_CODES],
}

/// A grid that is not a legal position for its layout (card multiset or gap count).
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum PositionError {
    /// The grid does not have `suits * ranks` cells.
    #[error("expected {expected} cells, found {found}")]
    WrongCellCount {
        /// Cells the layout needs.
        expected: usize,
        /// Cells given.
        found: usize,
    },
    /// A card that is not part of the layout's deck.
    #[error("card {card} is not in a {layout} deck")]
    CardOutsideDeck {
        /// The card.
        card: Card,
        /// The layout.
        layout: Layout,
    },
    /// An ace on the board of a position (aces are only allowed in a full deal).
    #[error("ace {card} cannot stand in a position that has gaps")]
    AceInPosition {
        /// The ace.
        card: Card,
    },
    /// A card given twice.
    #[error("duplicate card {card}")]
    DuplicateCard {
        /// The card.
        card: Card,
    },
    /// A card of the deck that is missing from the board.
    #[error("missing card {card}")]
    MissingCard {
        /// The card.
        card: Card,
    },
    /// Not exactly `suits` gaps.
    #[error("wrong number of gaps: expected {expected}, found {found}")]
    WrongGapCount {
        /// Gaps the layout needs (one per suit).
        expected: usize,
        /// Gaps given.
        found: usize,
    },
}

impl Position {
    /// Builds a position from cells in reading order (`None` = gap). Either a full deal
    /// (no gaps, all cards, aces become gaps) or a position (exactly `suits` gaps, no aces).
    pub fn from_cells(layout: Layout, grid: &[Option<Card>]) -> Result<Position, PositionError> {
        if grid.len() != layout.cells() {
            return Err(PositionError::WrongCellCount {
                expected: layout.cells(),
                found: grid.len(),
            });
        }
        let mut seen = [false; CARD_CODES];
        for &card in grid.iter().flatten() {
            if !layout.contains(card) {
                return Err(PositionError::CardOutsideDeck { card, layout });
            }
            if std::mem::replace(&mut seen[card.code() as usize], true) {
                return Err(PositionError::DuplicateCard { card });
            }
        }
        let gap_count = grid.iter().filter(|c| c.is_none()).count();
        let is_deal = gap_count == 0;
        if !is_deal {
            if let Some(ace) = grid.iter().flatten().find(|c| c.rank() == 0) {
                return Err(PositionError::AceInPosition { card: *ace });
            }
        }
        for card in layout.deck() {
            if !(seen[card.code() as usize] || (!is_deal && card.rank() == 0)) {
                return Err(PositionError::MissingCard { card });
            }
        }
        if !is_deal && gap_count != layout.suits() {
            return Err(PositionError::WrongGapCount {
                expected: layout.suits(),
                found: gap_count,
            });
        }
        let mut pos = Position {
            layout,
            top: layout.top_rank(),
            home: 0,
            gaps: [0; MAX_SUITS],
            key: 0,
            cells: [OUTSIDE; CELL_SLOTS],
            place: [NOWHERE; CARD_CODES],
        };
        let mut gap_slot = 0;
        for (i, c) in layout.all_cells().enumerate() {
            match grid[i] {
                Some(card) if card.rank() != 0 => {
                    pos.cells[c as usize] = card.code();
                    pos.place[card.code() as usize] = c;
                }
                _ => {
                    pos.cells[c as usize] = GAP;
                    pos.gaps[gap_slot] = c;
                    gap_slot += 1;
                }
            }
        }
        pos.key = pos.compute_key();
        pos.home = pos.compute_home();
        Ok(pos)
    }

    /// The board size.
    pub fn layout(&self) -> Layout {
        self.layout
    }
    /// The incrementally maintained Zobrist key.
    #[inline(always)]
    pub fn key(&self) -> Key {
        self.key
    }
    /// The key after the legal move `m`, without playing it.
    #[inline(always)]
    pub fn key_after(&self, m: Move) -> Key {
        self.key ^ zobrist::move_delta(m.card, m.from, m.to)
    }
    /// The card at `(row, col)`, `None` for a gap.
    pub fn at(&self, row: usize, col: usize) -> Option<Card> {
        let v = self.cells[cell(row, col) as usize];
        (v & GAP == 0).then(|| Card::from_code(v))
    }
    /// The gap cells, in gap-slot order.
    pub fn gaps(&self) -> &[Cell] {
        &self.gaps[..self.layout.suits()]
    }
    /// Where `card` stands, `None` for aces and cards outside the deck.
    pub fn find(&self, card: Card) -> Option<(usize, usize)> {
        let c = *self.place.get(card.code() as usize)?;
        (c != NOWHERE).then(|| (row_of(c), col_of(c)))
    }
    /// All cells in reading order (`None` = gap).
    pub fn to_cells(&self) -> Vec<Option<Card>> {
        self.layout
            .all_cells()
            .map(|c| self.at(row_of(c), col_of(c)))
            .collect()
    }

    /// The key recomputed from scratch (tests compare it with [`Position::key`]).
    pub fn compute_key(&self) -> Key {
        self.layout
            .all_cells()
            .filter(|&c| self.cells[c as usize] & GAP == 0)
            .fold(0, |k, c| {
                k ^ zobrist::term(Card::from_code(self.cells[c as usize]), c)
            })
    }

    fn compute_home(&self) -> u8 {
        self.layout
            .all_cells()
            .filter(|&c| {
                let v = self.cells[c as usize];
                v & GAP == 0 && v - 1 == c
            })
            .count() as u8
    }

    /// Makes this position equal to `src`, as `*self = *src`, copying only the slots of
    /// the rows in use when both have one layout of at most four rows (the module
    /// invariant): the exact searches copy a position on every node, and the whole
    /// 288 bytes went through a `memcpy` call (3.4% of the samples on `common` deal 24).
    #[inline(always)]
    pub(crate) fn copy_from(&mut self, src: &Position) {
        const ROWS_4: usize = 4 * 16;
        if self.layout == src.layout && self.layout.suits() <= 4 {
            // Every field named, so that a field added later is not left uncopied.
            let Position {
                layout: _,
                top,
                home,
                gaps,
                key,
                cells,
                place,
            } = src;
            (self.top, self.home, self.gaps, self.key) = (*top, *home, *gaps, *key);
            self.cells[..ROWS_4].copy_from_slice(&cells[..ROWS_4]);
            self.place[..ROWS_4].copy_from_slice(&place[..ROWS_4]);
            debug_assert!(self.cells == src.cells && self.place == src.place);
        } else {
            *self = *src;
        }
    }

    /// The raw value of cell `c`: a card code, or [`GAP`] (crate-internal fast access).
    #[inline(always)]
    pub(crate) fn raw_cell(&self, c: Cell) -> u8 {
        self.cells[c as usize]
    }
    /// The cell where the card with code `code` stands (crate-internal fast access).
    #[inline(always)]
    pub(crate) fn place_of(&self, code: u8) -> Cell {
        self.place[code as usize]
    }
    /// Cards standing on their `basic` home cell.
    #[inline(always)]
    pub(crate) fn home_count(&self) -> u8 {
        self.home
    }

    /// Plays a legal move.
    #[inline(always)]
    pub fn play(&mut self, m: Move) {
        self.play_unkeyed(m);
        self.key ^= zobrist::move_delta(m.card, m.from, m.to);
    }

    /// Plays a legal move without updating the Zobrist key, for throwaway copies that
    /// are never hashed (random probes): the key of `self` is stale afterwards, so such a
    /// copy must not reach a table, a comparison by key or [`Position::check_invariants`].
    #[inline(always)]
    pub(crate) fn play_unkeyed(&mut self, m: Move) {
        let code = m.card.code();
        let home = code - 1;
        self.home = self.home - u8::from(m.from == home) + u8::from(m.to == home);
        self.cells[m.to as usize] = code;
        self.cells[m.from as usize] = GAP;
        self.place[code as usize] = m.to;
        self.gaps[m.gap as usize] = m.from;
    }

    /// One step of a random probe: picks a legal move uniformly at random (`pick(n)` must
    /// return a number below `n`), plays it with [`Position::play_unkeyed`] and returns
    /// it; `None` when no move is legal. Counts the moves instead of listing them, which
    /// is what makes probes cheap; `COMMON` selects the column-0 rule.
    #[inline(always)]
    pub(crate) fn play_random_unkeyed<const COMMON: bool>(
        &mut self,
        pick: impl FnOnce(u64) -> u64,
    ) -> Option<Move> {
        const NONE: u8 = 0;
        const ANY_TWO: u8 = 0xFF;
        let suits = self.layout.suits();
        let mut fill = [NONE; MAX_SUITS];
        let (mut singles, mut col0) = (0u64, 0u64);
        for (slot, f) in fill.iter_mut().enumerate().take(suits) {
            let g = self.gaps[slot];
            if col_of(g) == 0 {
                if COMMON {
                    *f = ANY_TWO;
                    col0 += 1;
                } else {
                    *f = Card::new(row_of(g) as u8, 1).code();
                    singles += 1;
                }
            } else if let Some(card) = self.successor_for(g) {
                *f = card.code();
                singles += 1;
            }
        }
        let total = singles + col0 * suits as u64;
        if total == 0 {
            return None;
        }
        let k = pick(total);
        let (slot, code) = if k < singles {
            let slot = (0..suits)
                .filter(|&s| fill[s] != NONE && fill[s] != ANY_TWO)
                .nth(k as usize)?;
            (slot, fill[slot])
        } else {
            let k = k - singles;
            let slot = (0..suits)
                .filter(|&s| fill[s] == ANY_TWO)
                .nth((k / suits as u64) as usize)?;
            (slot, Card::new((k % suits as u64) as u8, 1).code())
        };
        let m = Move {
            card: Card::from_code(code),
            from: self.place[code as usize],
            to: self.gaps[slot],
            gap: slot as u8,
        };
        self.play_unkeyed(m);
        Some(m)
    }

    /// Takes back the move just played.
    #[inline(always)]
    pub fn unplay(&mut self, m: Move) {
        let code = m.card.code();
        let home = code - 1;
        self.home = self.home - u8::from(m.to == home) + u8::from(m.from == home);
        self.cells[m.from as usize] = code;
        self.cells[m.to as usize] = GAP;
        self.place[code as usize] = m.from;
        self.gaps[m.gap as usize] = m.to;
        self.key ^= zobrist::move_delta(m.card, m.from, m.to);
    }

    /// Whether the `basic` game is won: every card on its home cell.
    #[inline(always)]
    pub fn is_won_basic(&self) -> bool {
        self.home as usize == self.layout.suits() * self.top as usize
    }

    /// Whether column 0 of `row` holds a Two (not a gap, rank code 1).
    #[inline(always)]
    fn column0_holds_two(&self, row: usize) -> bool {
        self.cells[cell(row, 0) as usize] & (GAP | 15) == 1
    }

    /// How many column-0 cells hold a Two.
    #[inline(always)]
    pub(crate) fn column0_twos(&self) -> usize {
        (0..self.layout.suits())
            .filter(|&r| self.column0_holds_two(r))
            .count()
    }

    /// Whether the legal `common` move `m` settles this unsettled position (see
    /// [`Position::column0_all_twos`]), given `twos`, its [`Position::column0_twos`]:
    /// `m` takes a Two from outside column 0 into a column-0 gap while every other
    /// column-0 cell holds a Two. (A Two moved within column 0 leaves a gap behind.)
    #[inline(always)]
    pub(crate) fn settles_by(&self, m: Move, twos: usize) -> bool {
        twos + 1 == self.layout.suits()
            && m.card.rank() == 1
            && col_of(m.to) == 0
            && col_of(m.from) != 0
    }

    /// Puts column 0's Twos in another arrangement: row `r` gets the Two of suit
    /// `suits[r]`. Only for a position whose column 0 holds every Two (settled
    /// `common`) and a permutation of the suits; key and home count follow. The joint
    /// search of settled children (`search::exact::joint`) moves its representative
    /// assignment this way.
    pub(crate) fn rearrange_column0_twos(&mut self, suits: &[u8]) {
        for (row, &suit) in suits.iter().enumerate() {
            let c = cell(row, 0);
            let old = self.cells[c as usize];
            let new = Card::new(suit, 1).code();
            self.key ^=
                zobrist::term(Card::from_code(old), c) ^ zobrist::term(Card::new(suit, 1), c);
            self.home = self.home - u8::from(old - 1 == c) + u8::from(new - 1 == c);
            self.cells[c as usize] = new;
            self.place[new as usize] = c;
        }
    }

    /// Whether every column-0 cell holds a Two (a settled `common` position: no
    /// column-0 gap can appear again, see `CommonRules`).
    #[inline(always)]
    pub fn column0_all_twos(&self) -> bool {
        (0..self.layout.suits()).all(|r| self.column0_holds_two(r))
    }

    /// Whether the `common` game is won: every row holds 2..top of one suit.
    #[inline(always)]
    pub fn is_won_common(&self) -> bool {
        let last = self.top as usize;
        if self.gaps().iter().any(|&g| col_of(g) != last) {
            return false;
        }
        (0..self.layout.suits()).all(|r| {
            let first = self.cells[cell(r, 0) as usize];
            first & 15 == 1 && (1..last).all(|c| self.cells[cell(r, c) as usize] == first + c as u8)
        })
    }

    /// Whether the game is won under `variant`.
    pub fn is_won(&self, variant: Variant) -> bool {
        match variant {
            Variant::Basic => self.is_won_basic(),
            Variant::Common | Variant::Aisleriot => self.is_won_common(),
        }
    }

    /// Plays `m` if it is legal here under `variant`; otherwise leaves the position as is.
    pub fn try_play(&mut self, variant: Variant, m: Move) -> bool {
        match self.find_legal(variant, m.card, m.from, m.to) {
            Some(legal) => {
                self.play(legal);
                true
            }
            None => false,
        }
    }

    /// The legal move under `variant` that takes `card` from `from` to `to`, if any.
    pub fn find_legal(&self, variant: Variant, card: Card, from: Cell, to: Cell) -> Option<Move> {
        let mut list = MoveList::<MAX_MOVES>::default();
        self.legal_moves(variant, &mut list);
        list.as_slice()
            .iter()
            .find(|l| l.card == card && l.from == from && l.to == to)
            .copied()
    }

    /// Panics if an internal invariant is broken (tests and debug builds).
    pub fn check_invariants(&self) {
        let mut gap_cells: Vec<Cell> = self.gaps().to_vec();
        gap_cells.sort_unstable();
        let mut found_gaps = Vec::new();
        for c in self.layout.all_cells() {
            let v = self.cells[c as usize];
            if v == GAP {
                found_gaps.push(c);
            } else {
                assert_eq!(
                    self.place[v as usize],
                    c,
                    "place of {:?}",
                    Card::from_code(v)
                );
            }
        }
        assert_eq!(found_gaps, gap_cells, "gap list");
        let rows = self.layout.suits() * 16;
        assert!(
            self.cells[rows..].iter().all(|&v| v == OUTSIDE),
            "cells past the rows"
        );
        assert!(
            self.place[rows..].iter().all(|&v| v == NOWHERE),
            "places past the rows"
        );
        assert_eq!(self.key, self.compute_key(), "incremental key");
        assert_eq!(self.home, self.compute_home(), "home count");
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout && self.cells == other.cells
    }
}
impl Eq for Position {}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.layout.hash(state);
        self.cells.hash(state);
    }
}
