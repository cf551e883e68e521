//! PySolFC's boards: the deck of a game shuffled as PySolFC shuffles it, dealt as the
//! game's `startGame` deals it ([`PysolBoard`]), and the map between such a board and
//! the engine's position of the same game ([`BoardMap`]).
//!
//! What PySolFC does (`pysollib/game/__init__.py` `Game.createCards`, `Game.shuffle`;
//! `pysollib/games/montana.py`; `pysol_cards` 0.24, which the generators come from):
//! - The deck is suit by suit (Clubs, Spades, Hearts, Diamonds), each suit the game's
//!   ranks lowest first. Game numbers below 32000 take the Microsoft generator and, for
//!   a 52-card deck only (`ms_rearrange` leaves other decks alone), the deck reordered
//!   rank by rank (Clubs, Diamonds, Hearts, Spades); the others Python's Mersenne Twister.
//! - Fisher-Yates from the last card down, `j = randint(0, n)`; then the game's
//!   `_shuffleHook` (Red Moon moves the Aces, Clubs first, to the talon's top).
//! - The list is the talon from the bottom up: its last card is dealt first.
//!
//! Invariants: a board holds the game's deck once and exactly 4 gaps, in 4 rows of the
//! game's `row_len`; [`BoardMap::position`] and [`BoardMap::board`] are inverse on the
//! cells the engine plays (every cell but a Blue Moon board's Aces column).

use super::games::{DealShape, PysolGame};
use super::ms::MsRandom;
use super::mt::PythonMt;
use super::PYSOL_MT_FROM;
use crate::card::{Card, Layout};
use crate::position::Position;
use crate::variant::Variant;
use std::fmt;

/// The widest board (Blue Moon's 14 columns).
pub const MAX_ROW_LEN: usize = 14;

/// PySolFC's suits in its order (Clubs, Spades, Hearts, Diamonds) as this crate's
/// suit indices (`S H D C`).
const PYSOL_SUITS: [u8; 4] = [3, 0, 1, 2];

/// A board as PySolFC shows it: 4 rows of the game's `row_len` cells, cards with their
/// own ranks (`None` is a gap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PysolBoard {
    /// The game.
    pub game: PysolGame,
    /// The cells; columns from the game's `row_len` on are always `None`.
    pub rows: [[Option<Card>; MAX_ROW_LEN]; 4],
}

/// The cards of `game` number `number`, the first dealt first (the talon's top).
/// The caller has checked `number` (`1..=PYSOL_MAX_NUMBER`).
pub fn talon(game: PysolGame, number: u128) -> Vec<Card> {
    let spec = game.spec();
    let card = |pysol_suit: usize, rank: u8| Card::new(PYSOL_SUITS[pysol_suit], rank);
    let mut cards: Vec<Card> = (0..4)
        .flat_map(|suit| spec.ranks.iter().map(move |&rank| card(suit, rank)))
        .collect();
    if number < PYSOL_MT_FROM {
        if cards.len() == 52 {
            // `ms_rearrange`: rank by rank, suits in the order Clubs, Diamonds, Hearts,
            // Spades.
            cards = (0..52)
                .map(|i| card([0, 3, 2, 1][i % 4], (i / 4) as u8))
                .collect();
        }
        let mut rng = MsRandom::new(number as u32);
        shuffle(&mut cards, |n| rng.below(n));
    } else {
        let mut rng = PythonMt::new(number);
        shuffle(&mut cards, |n| rng.below(n));
    }
    if spec.shape == DealShape::RedMoon {
        // `_shuffleHookMoveToTop(cards, (rank == Ace, suit))`: the others keep their
        // order and the Aces go last, by suit from the highest, so Clubs ends on top.
        let suit_order = |c: &Card| PYSOL_SUITS.iter().position(|&s| s == c.suit());
        let (mut aces, others): (Vec<Card>, Vec<Card>) =
            cards.into_iter().partition(|c| c.rank() == 0);
        aces.sort_by_key(|c| std::cmp::Reverse(suit_order(c)));
        cards = others;
        cards.extend(aces);
    }
    cards.reverse();
    cards
}

/// PySolFC's Fisher-Yates: from the last card down, swap card `n` with card
/// `randint(0, n)`.
fn shuffle(cards: &mut [Card], mut below: impl FnMut(usize) -> usize) {
    for n in (1..cards.len()).rev() {
        let j = below(n + 1);
        cards.swap(n, j);
    }
}

impl PysolBoard {
    /// The starting board of `game` number `number` (checked by the caller).
    pub fn deal(game: PysolGame, number: u128) -> PysolBoard {
        let spec = game.spec();
        let width = spec.row_len;
        let mut rows = [[None; MAX_ROW_LEN]; 4];
        let mut talon = talon(game, number).into_iter();
        let reading = |from: usize| (0..4).flat_map(move |r| (from..width).map(move |c| (r, c)));
        match spec.shape {
            DealShape::Montana => {
                for ((r, c), card) in reading(0).zip(talon) {
                    if Some(card.rank()) != spec.space_rank {
                        rows[r][c] = Some(card);
                    }
                }
            }
            DealShape::BlueMoon | DealShape::SpacesAndAces => {
                for ((r, c), card) in reading(1).zip(talon) {
                    rows[r][c] = Some(card);
                }
                if spec.shape == DealShape::BlueMoon {
                    let aces: Vec<(usize, usize)> = reading(0)
                        .filter(|&(r, c)| rows[r][c].is_some_and(|card| card.rank() == 0))
                        .collect();
                    for (row, (r, c)) in aces.into_iter().enumerate() {
                        rows[row][0] = rows[r][c].take();
                    }
                }
            }
            DealShape::RedMoon => {
                for row in rows.iter_mut() {
                    row[0] = talon.next();
                }
                for ((r, c), card) in reading(2).zip(talon) {
                    rows[r][c] = Some(card);
                }
            }
        }
        PysolBoard { game, rows }
    }

    /// The cells of row `r` on the board.
    pub fn row(&self, r: usize) -> &[Option<Card>] {
        &self.rows[r][..self.game.spec().row_len]
    }
}

impl fmt::Display for PysolBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in 0..4 {
            if r > 0 {
                f.write_str("/")?;
            }
            for (c, cell) in self.row(r).iter().enumerate() {
                if c > 0 {
                    f.write_str(" ")?;
                }
                match cell {
                    Some(card) => write!(f, "{card}")?,
                    None => f.write_str("--")?,
                }
            }
        }
        Ok(())
    }
}

/// The map between a game's board and the engine's position of it (see
/// [`super::EngineForm`]): cards renamed (rank, and for `basic` the suit), columns
/// shifted past a Blue Moon board's Aces column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardMap {
    game: PysolGame,
    variant: Variant,
    layout: Layout,
    /// Board columns left of the engine's column 0 (the Aces column: 1; else 0).
    offset: usize,
    /// The board's column 0 where the engine does not play it (the Aces).
    fixed: [Option<Card>; 4],
    /// The board's suit of each engine suit.
    board_suit: [u8; 4],
    /// The board's rank of each engine rank.
    board_rank: [u8; 13],
}

impl BoardMap {
    /// The map of `start`, the starting board of a game the engine plays.
    pub(crate) fn new(start: &PysolBoard) -> BoardMap {
        let spec = start.game.spec();
        let variant = start.game.variant();
        let len = spec.ranks.len();
        let layout = Layout::new(4, len).expect("every played game is a layout");
        let mut board_rank = [0u8; 13];
        let (offset, fixed, board_suit) = if variant == Variant::Common {
            // The space rank becomes the engine's Ace and the ranks go on cyclically, so
            // the base rank after it is the engine's Two.
            let space = spec.ranks.iter().position(|&r| Some(r) == spec.space_rank);
            let space = space.expect("a Montana board has a space rank");
            for (engine, slot) in board_rank.iter_mut().enumerate().take(len) {
                *slot = spec.ranks[(engine + space) % len];
            }
            (0, [None; 4], [0, 1, 2, 3])
        } else {
            board_rank[..len].copy_from_slice(spec.ranks);
            let fixed = [0, 1, 2, 3].map(|r| start.rows[r][0]);
            let board_suit = fixed.map(|ace| ace.expect("an Ace in column 0").suit());
            (1, fixed, board_suit)
        };
        BoardMap {
            game: start.game,
            variant,
            layout,
            offset,
            fixed,
            board_suit,
            board_rank,
        }
    }

    /// The engine's card as the board names it.
    pub fn board_card(&self, card: Card) -> Card {
        Card::new(
            self.board_suit[card.suit() as usize],
            self.board_rank[card.rank() as usize],
        )
    }

    /// The board's column of the engine's column `col`.
    pub fn board_col(&self, col: usize) -> usize {
        col + self.offset
    }

    /// The board's card as the engine names it (`None`: not a card the engine plays,
    /// such as a Blue Moon board's Aces or a card outside the game's deck).
    pub fn engine_card(&self, card: Card) -> Option<Card> {
        let suit = self.board_suit.iter().position(|&s| s == card.suit())?;
        let rank = self.board_rank[..self.layout.ranks()]
            .iter()
            .position(|&r| r == card.rank())?;
        // The engine's rank 0 is the gaps' (the removed cards, or Blue Moon's Aces in
        // their column): no card of a position.
        (rank > 0).then(|| Card::new(suit as u8, rank as u8))
    }

    /// The engine's cell of the board's cell `(row, col)` (`None`: outside the board,
    /// or a Blue Moon board's Aces column, which the engine does not play).
    pub fn engine_cell(&self, row: usize, col: usize) -> Option<(usize, usize)> {
        (self.in_board(row, col) && col >= self.offset).then(|| (row, col - self.offset))
    }

    /// Whether `(row, col)` is a cell of the board.
    pub fn in_board(&self, row: usize, col: usize) -> bool {
        row < self.layout.suits() && col < self.layout.ranks() + self.offset
    }

    /// The engine's position of `board` (a board of this game that keeps its Aces
    /// column, as every board reached from the start does).
    pub fn position(&self, board: &PysolBoard) -> Position {
        let cells: Vec<Option<Card>> = (0..4)
            .flat_map(|r| board.row(r)[self.offset..].iter())
            .map(|cell| cell.map(|card| self.engine_card(card).expect("a card of the game's deck")))
            .collect();
        Position::from_cells(self.layout, &cells).expect("a board of the game is a position")
    }

    /// The board of `pos`, a position of this game.
    pub fn board(&self, pos: &Position) -> PysolBoard {
        let mut rows = [[None; MAX_ROW_LEN]; 4];
        for (r, row) in rows.iter_mut().enumerate() {
            if self.offset == 1 {
                row[0] = self.fixed[r];
            }
            for c in 0..self.layout.ranks() {
                row[c + self.offset] = pos.at(r, c).map(|card| self.board_card(card));
            }
        }
        PysolBoard {
            game: self.game,
            rows,
        }
    }

    /// The variant the engine plays the game as.
    pub fn variant(&self) -> Variant {
        self.variant
    }
}
