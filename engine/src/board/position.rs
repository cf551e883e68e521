//! A PySolFC board as the search plays it: cards on the board's own cells, every move
//! its rule allows ([`BoardRules`]), make/unmake, the Zobrist key, the win test and the
//! redeal.
//!
//! Invariants (checked by [`BoardPosition::check_invariants`] in tests):
//! - Cell `(row, col)` is slot `row << 4 | col`; slots outside the board hold `OUTSIDE`.
//! - Every card in play stands on exactly one cell (`place` is `cells`' inverse), and
//!   exactly `suits` cells are gaps, listed in `gaps`.
//! - `key` is the XOR of the Zobrist terms of every card on its cell (incremental, and
//!   equal to [`BoardPosition::compute_key`]); gaps add nothing.
//! - `play` then `unplay` of the same move restores the position bit for bit.

use super::BoardRules;
use crate::card::{cell, col_of, row_of, Card, Cell, CELL_SLOTS};
use crate::moves::{Move, MoveList};
use crate::pysol::Accepts;
use crate::redeal::{deal_gathered, RedealStream};
use crate::zobrist::{self, Key};

/// Most moves in one position: 4 gaps, each taking at most 12 higher cards of a suit
/// (Spaces and Aces), or a column-0 gap any of 4 cards.
pub const BOARD_MAX_MOVES: usize = 64;

/// Raw cell value of a gap.
const GAP: u8 = 0x80;
/// Raw cell value of a slot outside the board.
const OUTSIDE: u8 = 0xFE;
/// `place` of a card that is not in play (Montana's Aces).
const NOWHERE: u8 = 0xFF;
/// Slots: 4 rows of 16 (cards are `suit << 4 | rank`, also below 64).
const SLOTS: usize = 64;

/// Most cells of a board (4 rows of 14).
pub const PACKED: usize = 56;
/// A position's cells in reading order ([`BoardPosition::pack`]).
pub type Packed = [u8; PACKED];

/// A board of a game played as it stands ([`BoardRules`]). `Copy`: a search restarts
/// from saved copies.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BoardPosition {
    rules: BoardRules,
    cells: [u8; SLOTS],
    place: [u8; SLOTS],
    gaps: [Cell; 4],
    key: Key,
}

/// A board that is not a position of its rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// Wrong number of rows or cells in a row.
    #[error("a board of these rules has {rows} rows of {row_len} cells")]
    Shape {
        /// Rows wanted.
        rows: usize,
        /// Cells a row wanted.
        row_len: usize,
    },
    /// A card outside the rules' deck, or one given twice.
    #[error("card {0} is not in the deck or stands twice")]
    Card(Card),
    /// Not one gap per suit.
    #[error("a board of these rules has {0} gaps")]
    Gaps(usize),
}

impl BoardPosition {
    /// The position of `rows` (`None` = a gap) under `rules`: every card of the deck
    /// once and one gap a suit.
    pub fn new(rules: BoardRules, rows: &[&[Option<Card>]]) -> Result<BoardPosition, BoardError> {
        let (suits, row_len) = (rules.suits as usize, rules.row_len());
        let shape = BoardError::Shape {
            rows: suits,
            row_len,
        };
        if rows.len() != suits || rows.iter().any(|r| r.len() != row_len) {
            return Err(shape);
        }
        let mut pos = BoardPosition {
            rules,
            cells: [OUTSIDE; SLOTS],
            place: [NOWHERE; SLOTS],
            gaps: [0; 4],
            key: 0,
        };
        let mut gaps = 0;
        for (r, row) in rows.iter().enumerate() {
            for (c, &content) in row.iter().enumerate() {
                let at = cell(r, c);
                match content {
                    Some(card) => {
                        if !rules.in_play(card) || pos.place[card.code() as usize] != NOWHERE {
                            return Err(BoardError::Card(card));
                        }
                        pos.cells[at as usize] = card.code();
                        pos.place[card.code() as usize] = at;
                    }
                    None => {
                        if gaps < 4 {
                            pos.gaps[gaps] = at;
                        }
                        gaps += 1;
                        pos.cells[at as usize] = GAP;
                    }
                }
            }
        }
        if gaps != suits {
            return Err(BoardError::Gaps(gaps));
        }
        pos.key = pos.compute_key();
        Ok(pos)
    }

    /// The rules it is played under.
    pub fn rules(&self) -> BoardRules {
        self.rules
    }

    /// The card at `(row, col)`, `None` for a gap.
    pub fn at(&self, row: usize, col: usize) -> Option<Card> {
        self.card_at(cell(row, col))
    }

    #[inline(always)]
    fn card_at(&self, c: Cell) -> Option<Card> {
        let v = self.cells[c as usize];
        (v & 0x80 == 0).then(|| Card::from_code(v))
    }

    /// The card on cell `c` of the board, `None` for a gap.
    #[inline(always)]
    pub(super) fn card_on(&self, c: Cell) -> Option<Card> {
        self.card_at(c)
    }

    /// The cell `card` stands on, `None` when it is not in play.
    #[inline(always)]
    pub(super) fn place_of(&self, card: Card) -> Option<Cell> {
        let at = self.place[card.code() as usize];
        (at != NOWHERE).then_some(at)
    }

    /// The rows, `None` for a gap.
    pub fn rows(&self) -> Vec<Vec<Option<Card>>> {
        (0..self.rules.suits as usize)
            .map(|r| (0..self.rules.row_len()).map(|c| self.at(r, c)).collect())
            .collect()
    }

    /// The incremental Zobrist key.
    #[inline(always)]
    pub fn key(&self) -> Key {
        self.key
    }

    /// The key recomputed from the cells.
    pub fn compute_key(&self) -> Key {
        (0..SLOTS as u8)
            .filter_map(|c| self.card_at(c).map(|card| zobrist::term(card, c)))
            .fold(0, |k, t| k ^ t)
    }

    /// The key after the legal move `m`.
    #[inline(always)]
    pub fn key_after(&self, m: Move) -> Key {
        self.key ^ zobrist::move_delta(m.card, m.from, m.to)
    }

    /// Pushes the move of `card` into gap slot `slot` (at `to`).
    #[inline(always)]
    fn push(&self, out: &mut MoveList<BOARD_MAX_MOVES>, card: Card, to: Cell, slot: usize) {
        out.push(Move {
            card,
            from: self.place[card.code() as usize],
            to,
            gap: slot as u8,
        });
    }

    /// Fills `out` with every legal move: for each gap (in slot order) the cards its
    /// rule takes, as PySolFC's `acceptsCards` of the game's row stack says.
    pub fn moves(&self, out: &mut MoveList<BOARD_MAX_MOVES>) {
        out.clear();
        let rules = self.rules;
        let (suits, row_len, top) = (rules.suits, rules.row_len(), rules.top);
        for slot in 0..suits as usize {
            let to = self.gaps[slot];
            let (row, col) = (row_of(to), col_of(to));
            if col == 0 {
                // Column 0 takes the base rank of any suit, from wherever it stands
                // (another column-0 cell included), and nothing else.
                for suit in 0..suits {
                    self.push(out, Card::new(suit, rules.base), to, slot);
                }
                continue;
            }
            let mut from_left = None;
            if let Some(left) = self.card_at(to - 1) {
                let rank = left.rank();
                match rules.accepts {
                    Accepts::Successor | Accepts::SuccessorOrBelowRight => {
                        if rank < top {
                            from_left = Some(left.successor());
                            self.push(out, left.successor(), to, slot);
                        }
                    }
                    Accepts::AnySuitSuccessor => {
                        if rank < top {
                            for suit in 0..suits {
                                self.push(out, Card::new(suit, rank + 1), to, slot);
                            }
                        }
                    }
                    Accepts::HigherSameSuit => {
                        for higher in rank + 1..=top {
                            self.push(out, Card::new(left.suit(), higher), to, slot);
                        }
                    }
                }
            }
            if rules.accepts == Accepts::SuccessorOrBelowRight {
                // The cell after the last of a row is the next row's first; the board's
                // last cell has none.
                let right = if col + 1 < row_len {
                    Some(to + 1)
                } else {
                    (row + 1 < suits as usize).then(|| cell(row + 1, 0))
                };
                if let Some(right) = right.and_then(|c| self.card_at(c)) {
                    if right.rank() > rules.base {
                        let below = Card::from_code(right.code() - 1);
                        if Some(below) != from_left {
                            self.push(out, below, to, slot);
                        }
                    }
                }
            }
        }
    }

    /// Orders `moves` (of this position) so that the likeliest to win come first: a
    /// card that extends its row's run (or starts one in column 0), then a card
    /// leaving the cell after a run (which it blocks), then the rest, and last a card
    /// that leaves a run. Only the order changes, never the set.
    pub fn order_moves(&self, moves: &mut MoveList<BOARD_MAX_MOVES>) {
        let suits = self.rules.suits as usize;
        let mut runs = [0usize; 4];
        for (row, run) in runs.iter_mut().enumerate().take(suits) {
            *run = self.run_length(row);
        }
        let rank_of = |m: &Move| {
            let (to_row, to_col) = (row_of(m.to), col_of(m.to));
            let (from_row, from_col) = (row_of(m.from), col_of(m.from));
            let extends = to_col == runs[to_row]
                && if to_col == 0 {
                    true
                } else {
                    self.card_at(m.to - 1).is_some_and(|left| {
                        left.suit() == m.card.suit() && left.rank() + 1 == m.card.rank()
                    })
                };
            if from_col < runs[from_row] {
                3
            } else if extends {
                0
            } else if from_col == runs[from_row] {
                1
            } else {
                2
            }
        };
        moves.as_mut_slice().sort_unstable_by_key(rank_of);
    }

    /// Plays a legal move.
    #[inline(always)]
    pub fn play(&mut self, m: Move) {
        self.cells[m.to as usize] = m.card.code();
        self.cells[m.from as usize] = GAP;
        self.place[m.card.code() as usize] = m.to;
        self.gaps[m.gap as usize] = m.from;
        self.key ^= zobrist::move_delta(m.card, m.from, m.to);
    }

    /// Undoes the move `m`, the last one played.
    #[inline(always)]
    pub fn unplay(&mut self, m: Move) {
        self.cells[m.from as usize] = m.card.code();
        self.cells[m.to as usize] = GAP;
        self.place[m.card.code() as usize] = m.from;
        self.gaps[m.gap as usize] = m.to;
        self.key ^= zobrist::move_delta(m.card, m.from, m.to);
    }

    /// The legal move of `card` from `from` into the gap `to`, if there is one.
    pub fn find_legal(&self, card: Card, from: Cell, to: Cell) -> Option<Move> {
        let mut moves = MoveList::default();
        self.moves(&mut moves);
        moves
            .as_slice()
            .iter()
            .copied()
            .find(|m| m.card == card && m.from == from && m.to == to)
    }

    /// Whether the game is won (`isGameWon`): each row holds the base rank and the next
    /// ranks of one suit in every cell but its last.
    #[inline(always)]
    pub fn is_won(&self) -> bool {
        let last = self.rules.row_len() - 1;
        // Cheap first: a won board's gaps are the rows' last cells.
        if self.gaps().iter().any(|&g| col_of(g) != last) {
            return false;
        }
        (0..self.rules.suits as usize).all(|r| self.run_length(r) == last)
    }

    /// The gap cells, in slot order.
    pub fn gaps(&self) -> &[Cell] {
        &self.gaps[..self.rules.suits as usize]
    }

    /// How many cells of `row`, from column 0, hold the base rank and then the next
    /// ranks of its suit (`Montana_Talon.dealCards`' `in_sequence`; never the last cell).
    pub fn run_length(&self, row: usize) -> usize {
        let Some(first) = self.at(row, 0) else {
            return 0;
        };
        if first.rank() != self.rules.base {
            return 0;
        }
        let last = self.rules.row_len() - 1;
        let mut len = 1;
        while len < last
            && self.at(row, len) == Some(Card::new(first.suit(), first.rank() + len as u8))
        {
            len += 1;
        }
        len
    }

    /// What the best-first search's orders weigh: the cards in the rows' runs, and the
    /// rows whose cell after the run is a gap (ready for the run's next card).
    #[inline(always)]
    pub fn progress(&self) -> (u16, u16) {
        let (mut runs, mut ready) = (0, 0);
        for row in 0..self.rules.suits as usize {
            let run = self.run_length(row);
            runs += run as u16;
            ready += u16::from(self.at(row, run).is_none());
        }
        (runs, ready)
    }

    /// How many legal moves there are ([`BoardPosition::moves`]).
    #[inline(always)]
    pub fn mobility(&self) -> u16 {
        let mut moves = MoveList::<BOARD_MAX_MOVES>::default();
        self.moves(&mut moves);
        moves.len() as u16
    }

    /// The cards a redeal here gathers, in the order they go on the talon (after each
    /// row's run, rows top to bottom, left to right).
    pub fn gathered(&self) -> Vec<Card> {
        (0..self.rules.suits as usize)
            .flat_map(|row| (self.run_length(row)..self.rules.row_len()).map(move |col| (row, col)))
            .filter_map(|(row, col)| self.at(row, col))
            .collect()
    }

    /// How many cards a redeal here keeps in place.
    pub fn kept_cards(&self) -> usize {
        (0..self.rules.suits as usize)
            .map(|r| self.run_length(r))
            .sum()
    }

    /// The board after a redeal with `stream` (`Montana_Talon.dealCards`: every card
    /// after the runs gathered, shuffled, dealt again; see `crate::redeal`), or `None`
    /// when nothing would be gathered (a won board).
    pub fn redeal(&self, stream: &mut RedealStream) -> Option<BoardPosition> {
        let (suits, row_len) = (self.rules.suits as usize, self.rules.row_len());
        let mut runs = [0usize; 4];
        let mut talon = [Card::default(); 56];
        let mut count = 0;
        for (row, run) in runs.iter_mut().enumerate().take(suits) {
            *run = self.run_length(row);
            for col in *run..row_len {
                if let Some(card) = self.at(row, col) {
                    talon[count] = card;
                    count += 1;
                }
            }
        }
        if count == 0 {
            return None;
        }
        let mut dealt: [Option<Card>; CELL_SLOTS] =
            deal_gathered(&runs[..suits], row_len, &mut talon[..count], stream);
        for (row, &run) in runs.iter().enumerate().take(suits) {
            for col in 0..run {
                dealt[row * row_len + col] = self.at(row, col);
            }
        }
        let rows: Vec<&[Option<Card>]> = (0..suits)
            .map(|r| &dealt[r * row_len..(r + 1) * row_len])
            .collect();
        Some(BoardPosition::new(self.rules, &rows).expect("a redeal keeps the deck and the gaps"))
    }

    /// The cells in reading order, packed (`GAP` for a gap): what a search keeps of a
    /// position ([`BoardPosition::unpack`] rebuilds it).
    #[inline(always)]
    pub fn pack(&self) -> Packed {
        let mut packed = [GAP; PACKED];
        let row_len = self.rules.row_len();
        for r in 0..self.rules.suits as usize {
            let row = &self.cells[r << 4..(r << 4) + row_len];
            packed[r * row_len..(r + 1) * row_len].copy_from_slice(row);
        }
        packed
    }

    /// The position `packed` by [`BoardPosition::pack`] under `rules`.
    #[inline(always)]
    pub fn unpack(rules: BoardRules, packed: &Packed) -> BoardPosition {
        let mut pos = BoardPosition {
            rules,
            cells: [OUTSIDE; SLOTS],
            place: [NOWHERE; SLOTS],
            gaps: [0; 4],
            key: 0,
        };
        let row_len = rules.row_len();
        let mut gaps = 0;
        for r in 0..rules.suits as usize {
            for c in 0..row_len {
                let v = packed[r * row_len + c];
                let at = cell(r, c);
                pos.cells[at as usize] = v;
                if v == GAP {
                    pos.gaps[gaps] = at;
                    gaps += 1;
                } else {
                    pos.place[v as usize] = at;
                    pos.key ^= zobrist::term(Card::from_code(v), at);
                }
            }
        }
        pos
    }

    /// Checks the module invariants (tests).
    pub fn check_invariants(&self) {
        let mut gaps = 0;
        for c in 0..SLOTS as u8 {
            let v = self.cells[c as usize];
            let inside = (row_of(c) as u8) < self.rules.suits && col_of(c) < self.rules.row_len();
            if !inside {
                assert_eq!(v, OUTSIDE, "slot {c} outside the board");
            } else if v == GAP {
                gaps += 1;
                assert!(self.gaps().contains(&c), "gap {c} listed");
            } else {
                assert_eq!(self.place[v as usize], c, "place of card at {c}");
            }
        }
        assert_eq!(gaps, self.rules.suits as usize);
        assert_eq!(self.key, self.compute_key(), "incremental key");
    }
}
