//! Cards, suits, ranks and the board geometry.
//!
//! Invariants:
//! - A [`Card`] is encoded as `suit << 4 | rank` with `rank` 0 = Ace. So the successor of
//!   a card (same suit, rank + 1) is `code + 1`, and in the stride-16 cell numbering
//!   used by [`Layout`] the home cell of a card in the `basic` variant is `code - 1`.
//! - A cell is `row << 4 | col`; the left neighbour of a cell with `col > 0` is `cell - 1`.
//! - A [`Layout`] always satisfies `1 <= suits <= 8` and `3 <= ranks <= 13`.

use std::fmt;

/// Largest number of suits (rows).
pub const MAX_SUITS: usize = 8;
/// Largest number of ranks (columns).
pub const MAX_RANKS: usize = 13;
/// Smallest number of ranks.
pub const MIN_RANKS: usize = 3;
/// Number of cell slots: rows use a stride of 16 so a cell's column is `cell & 15`.
pub const CELL_SLOTS: usize = MAX_SUITS * 16;
/// Number of card codes (`suit << 4 | rank`).
pub const CARD_CODES: usize = MAX_SUITS * 16;

/// Rank letters, lowest first.
pub const RANK_CHARS: [char; MAX_RANKS] = [
    'A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K',
];
/// Suit letters, in row order.
pub const SUIT_CHARS: [char; MAX_SUITS] = ['S', 'H', 'D', 'C', 'E', 'F', 'G', 'I'];

/// A playing card: `suit << 4 | rank` (rank 0 is the Ace).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Card(u8);

impl Card {
    /// The card of `suit` (0-based) and `rank` (0 = Ace).
    pub const fn new(suit: u8, rank: u8) -> Card {
        Card((suit << 4) | rank)
    }
    /// Rebuilds a card from [`Card::code`].
    pub const fn from_code(code: u8) -> Card {
        Card(code)
    }
    /// The dense code `suit << 4 | rank`, below `CARD_CODES`.
    pub const fn code(self) -> u8 {
        self.0
    }
    /// 0-based suit index.
    pub const fn suit(self) -> u8 {
        self.0 >> 4
    }
    /// 0-based rank (0 = Ace, 1 = Two, ...).
    pub const fn rank(self) -> u8 {
        self.0 & 15
    }
    /// The card of the same suit and the next rank (the caller checks it exists).
    pub const fn successor(self) -> Card {
        Card(self.0 + 1)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            RANK_CHARS[self.rank() as usize],
            SUIT_CHARS[self.suit() as usize]
        )
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A cell of the board, `row << 4 | col`.
pub type Cell = u8;

/// Builds a cell index.
pub const fn cell(row: usize, col: usize) -> Cell {
    ((row << 4) | col) as Cell
}
/// Row of a cell.
pub const fn row_of(c: Cell) -> usize {
    (c >> 4) as usize
}
/// Column of a cell.
pub const fn col_of(c: Cell) -> usize {
    (c & 15) as usize
}

/// The size of the game: `suits` rows of `ranks` columns.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Layout {
    suits: u8,
    ranks: u8,
}

/// A board size outside `1..=8` suits or `3..=13` ranks.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
#[error("size out of range: {suits} suits x {ranks} ranks (suits must be 1..=8, ranks 3..=13)")]
pub struct SizeError {
    /// Requested number of suits.
    pub suits: usize,
    /// Requested number of ranks.
    pub ranks: usize,
}

impl Layout {
    /// The standard 4 x 13 game.
    pub const STANDARD: Layout = Layout {
        suits: 4,
        ranks: 13,
    };

    /// A layout of `suits` x `ranks`, checked against the supported range.
    pub fn new(suits: usize, ranks: usize) -> Result<Layout, SizeError> {
        if (1..=MAX_SUITS).contains(&suits) && (MIN_RANKS..=MAX_RANKS).contains(&ranks) {
            Ok(Layout {
                suits: suits as u8,
                ranks: ranks as u8,
            })
        } else {
            Err(SizeError { suits, ranks })
        }
    }
    /// Number of suits, which is also the number of rows and of gaps.
    pub const fn suits(self) -> usize {
        self.suits as usize
    }
    /// Number of ranks, which is also the number of columns.
    pub const fn ranks(self) -> usize {
        self.ranks as usize
    }
    /// The highest rank index (the "King" of this deck).
    pub const fn top_rank(self) -> u8 {
        self.ranks - 1
    }
    /// Number of cards on the board, gaps included.
    pub const fn cells(self) -> usize {
        self.suits() * self.ranks()
    }
    /// All cells in reading order (row by row).
    pub fn all_cells(self) -> impl Iterator<Item = Cell> {
        let ranks = self.ranks();
        (0..self.suits()).flat_map(move |r| (0..ranks).map(move |c| cell(r, c)))
    }
    /// Every card of the full deck (aces included), suit by suit.
    pub fn deck(self) -> impl Iterator<Item = Card> {
        let ranks = self.ranks;
        (0..self.suits).flat_map(move |s| (0..ranks).map(move |r| Card::new(s, r)))
    }
    /// Whether `card` belongs to this deck.
    pub const fn contains(self, card: Card) -> bool {
        card.suit() < self.suits && card.rank() < self.ranks
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.suits, self.ranks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn successor_and_home_cell_follow_from_the_encoding() {
        let five_hearts = Card::new(1, 4);
        assert_eq!(five_hearts.to_string(), "5H");
        assert_eq!(five_hearts.successor().to_string(), "6H");
        // basic home cell of 5H is row 1 (hearts), column 3
        assert_eq!(five_hearts.code() - 1, cell(1, 3));
    }

    #[test]
    fn layout_range_is_enforced() {
        assert!(Layout::new(1, 3).is_ok());
        assert!(Layout::new(8, 13).is_ok());
        assert!(Layout::new(0, 13).is_err());
        assert!(Layout::new(9, 13).is_err());
        assert!(Layout::new(4, 2).is_err());
        assert!(Layout::new(4, 14).is_err());
        assert_eq!(Layout::STANDARD.deck().count(), 52);
    }
}
