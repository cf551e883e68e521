//! PySolFC's deals: the starting layouts of its games "Montana" (#53) and "Blue Moon"
//! (#63) for a game number, card for card as PySolFC deals them.
//!
//! What PySolFC does (read in `shlomif/PySolFC`: `pysollib/pysolrandom.py`
//! `construct_random`, `pysollib/game/__init__.py` `Game.shuffle`,
//! `pysollib/games/montana.py`; and `pysol_cards` 0.24, which PySolFC's generators come
//! from; docs/notation.md says more):
//! - Game numbers 1..=31999 use the Microsoft generator ([`ms::MsRandom`]) on the deck
//!   reordered rank by rank (`ms_rearrange`: for each rank, Clubs, Diamonds, Hearts,
//!   Spades); numbers from 32000 to 10^20 use Python's Mersenne Twister
//!   ([`mt::PythonMt`]) on the deck suit by suit (Clubs, Spades, Hearts, Diamonds; Ace
//!   to King). 0 is refused by PySolFC (its Microsoft generator takes seeds from 1).
//! - The shuffle is Fisher-Yates from the last card down, `j = randint(0, n)`.
//! - The shuffled list is the talon from the bottom up: the last card is dealt first.
//! - Montana deals the talon into 4 rows of 13 in reading order; an Ace goes out of
//!   play and leaves its cell a gap. Blue Moon deals it into columns 1..13 of 4 rows
//!   of 14, then moves the Aces, in reading order, to column 0 of rows 0, 1, 2, 3.
//!
//! Invariants: [`pysol_talon`] is a permutation of the 52 cards; [`montana`] is a
//! `common` 4x13 position and [`BlueMoonBoard::basic_position`] a `basic` 4x13 one.

mod ms;
mod mt;

use crate::card::{Card, Layout};
use crate::position::Position;
use crate::variant::Variant;
use std::fmt;
use std::str::FromStr;

pub use ms::MsRandom;
pub use mt::PythonMt;

/// The largest game number PySolFC deals (its random numbers are drawn up to it).
pub const PYSOL_MAX_NUMBER: u128 = 100_000_000_000_000_000_000;
/// The first game number dealt by the Mersenne Twister (`construct_random`: `seed <
/// 32000` takes the Microsoft generator).
pub const PYSOL_MT_FROM: u128 = 32_000;

/// A PySolFC game of the Gaps family that this engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PysolGame {
    /// #53 "Montana" (also "Gaps"): its first round is `common` 4x13.
    Montana,
    /// #63 "Blue Moon" (also "Rangoon"): its first round is `basic` 4x13, each row's
    /// suit fixed by the Ace PySolFC puts at its left.
    BlueMoon,
}

impl PysolGame {
    /// Every game, in the order of their PySolFC numbers.
    pub const ALL: [PysolGame; 2] = [PysolGame::Montana, PysolGame::BlueMoon];

    /// The name used in the CLI and the API (`montana`, `blue-moon`).
    pub const fn name(self) -> &'static str {
        match self {
            PysolGame::Montana => "montana",
            PysolGame::BlueMoon => "blue-moon",
        }
    }

    /// PySolFC's own id of the game.
    pub const fn pysol_id(self) -> u32 {
        match self {
            PysolGame::Montana => 53,
            PysolGame::BlueMoon => 63,
        }
    }

    /// The variant its first round is played as.
    pub const fn variant(self) -> Variant {
        match self {
            PysolGame::Montana => Variant::Common,
            PysolGame::BlueMoon => Variant::Basic,
        }
    }
}

impl fmt::Display for PysolGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What is wrong with a PySolFC game reference.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PysolError {
    /// Not a game this engine plays.
    #[error("unknown PySolFC game `{0}` (known: montana, blue-moon)")]
    UnknownGame(String),
    /// Not of the form `GAME:N`.
    #[error("a PySolFC game is GAME:N, for example montana:12345 (got `{0}`)")]
    Malformed(String),
    /// Outside PySolFC's numbers.
    #[error("PySolFC game numbers run from 1 to 10^20 (got {0})")]
    NumberOutOfRange(String),
}

impl FromStr for PysolGame {
    type Err = PysolError;
    fn from_str(s: &str) -> Result<PysolGame, PysolError> {
        PysolGame::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| PysolError::UnknownGame(s.to_string()))
    }
}

/// A numbered game of PySolFC: `montana:12345`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PysolDeal {
    /// The game.
    pub game: PysolGame,
    /// Its number, in `1..=PYSOL_MAX_NUMBER`.
    pub number: u128,
}

impl PysolDeal {
    /// The deal, if `number` is one PySolFC deals.
    pub fn new(game: PysolGame, number: u128) -> Result<PysolDeal, PysolError> {
        check_number(number)?;
        Ok(PysolDeal { game, number })
    }

    /// The starting position of its first round, in the variant of the game.
    pub fn position(self) -> Position {
        match self.game {
            PysolGame::Montana => montana(self.number),
            PysolGame::BlueMoon => blue_moon(self.number).basic_position(),
        }
    }

    /// The board as PySolFC shows it, in this crate's notation (Blue Moon with its Aces
    /// column).
    pub fn board_text(self) -> String {
        match self.game {
            PysolGame::Montana => crate::notation::format_position(&montana(self.number)),
            PysolGame::BlueMoon => blue_moon(self.number).to_string(),
        }
    }

    /// A position of this game (after moves or redeals: the first round's variant) as
    /// PySolFC shows it; Blue Moon with its Aces column, whose suits the deal fixed.
    pub fn board_of(self, pos: &Position) -> String {
        match self.game {
            PysolGame::Montana => crate::notation::format_position(pos),
            PysolGame::BlueMoon => blue_moon(self.number).with_basic(pos).to_string(),
        }
    }
}

impl fmt::Display for PysolDeal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.game, self.number)
    }
}

impl FromStr for PysolDeal {
    type Err = PysolError;
    fn from_str(s: &str) -> Result<PysolDeal, PysolError> {
        let (game, number) = s
            .split_once(':')
            .ok_or_else(|| PysolError::Malformed(s.to_string()))?;
        let game: PysolGame = game.parse()?;
        let digits = number;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(PysolError::Malformed(s.to_string()));
        }
        let number = digits
            .parse::<u128>()
            .map_err(|_| PysolError::NumberOutOfRange(digits.to_string()))?;
        PysolDeal::new(game, number)
    }
}

fn check_number(number: u128) -> Result<(), PysolError> {
    if (1..=PYSOL_MAX_NUMBER).contains(&number) {
        Ok(())
    } else {
        Err(PysolError::NumberOutOfRange(number.to_string()))
    }
}

/// PySolFC's suits in its order (Clubs, Spades, Hearts, Diamonds) as this crate's
/// suit indices (`S H D C`).
const PYSOL_SUITS: [u8; 4] = [3, 0, 1, 2];

/// The 52 cards of PySolFC game `number`, the first dealt first (the talon's top).
///
/// # Panics
/// If `number` is outside `1..=PYSOL_MAX_NUMBER` (see [`PysolDeal::new`]).
pub fn pysol_talon(number: u128) -> [Card; 52] {
    check_number(number).expect("a PySolFC game number");
    let card = |pysol_suit: usize, rank: usize| Card::new(PYSOL_SUITS[pysol_suit], rank as u8);
    let mut cards = [Card::default(); 52];
    if number < PYSOL_MT_FROM {
        // `ms_rearrange`: rank by rank, suits in the order Clubs, Diamonds, Hearts, Spades.
        for (i, slot) in cards.iter_mut().enumerate() {
            *slot = card([0, 3, 2, 1][i % 4], i / 4);
        }
        let mut rng = MsRandom::new(number as u32);
        shuffle(&mut cards, |n| rng.below(n));
    } else {
        for (i, slot) in cards.iter_mut().enumerate() {
            *slot = card(i / 13, i % 13);
        }
        let mut rng = PythonMt::new(number);
        shuffle(&mut cards, |n| rng.below(n));
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

/// The starting position of PySolFC Montana game `number` (`common` 4x13).
pub fn montana(number: u128) -> Position {
    let layout = Layout::new(4, 13).expect("4x13 is a layout");
    let cells: Vec<Option<Card>> = pysol_talon(number).into_iter().map(Some).collect();
    Position::from_cells(layout, &cells).expect("a full deck is a deal")
}

/// A Blue Moon board as PySolFC shows it: 4 rows of 14 cells, the Aces in column 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlueMoonBoard {
    /// Rows of cells, `None` for a gap.
    pub rows: [[Option<Card>; 14]; 4],
}

/// The starting board of PySolFC Blue Moon game `number`.
pub fn blue_moon(number: u128) -> BlueMoonBoard {
    let mut rows = [[None; 14]; 4];
    let talon = pysol_talon(number);
    let cells = (0..4).flat_map(|r| (1..14).map(move |c| (r, c)));
    for ((r, c), card) in cells.zip(talon) {
        rows[r][c] = Some(card);
    }
    let aces: Vec<(usize, usize)> = (0..4)
        .flat_map(|r| (0..14).map(move |c| (r, c)))
        .filter(|&(r, c)| rows[r][c].is_some_and(|card| card.rank() == 0))
        .collect();
    for (row, (r, c)) in aces.into_iter().enumerate() {
        rows[row][0] = rows[r][c].take();
    }
    BlueMoonBoard { rows }
}

impl BlueMoonBoard {
    /// The suit of each row: that of its Ace.
    pub fn row_suits(&self) -> [u8; 4] {
        self.rows
            .map(|row| row[0].expect("an Ace in column 0").suit())
    }

    /// The board holding `pos`, a `basic` position of this game (as
    /// [`BlueMoonBoard::basic_position`] maps it), beside this board's Aces.
    pub fn with_basic(&self, pos: &Position) -> BlueMoonBoard {
        let mut rows = [[None; 14]; 4];
        for (r, row) in rows.iter_mut().enumerate() {
            row[0] = self.rows[r][0];
            for (c, cell) in row[1..].iter_mut().enumerate() {
                *cell = pos.at(r, c).map(|card| self.board_card(card));
            }
        }
        BlueMoonBoard { rows }
    }

    /// A card of [`BlueMoonBoard::basic_position`] as the board's card (its suit
    /// renamed back); its column on the board is one more than in the position.
    pub fn board_card(&self, card: Card) -> Card {
        Card::new(self.row_suits()[card.suit() as usize], card.rank())
    }

    /// The same board as a `basic` 4x13 position: the Aces column dropped and the suits
    /// renamed so that row `i`'s suit (its Ace's) is suit `i`, which is what `basic`
    /// fixes. The rules are the same: a gap right of an Ace takes the Two of the Ace's
    /// suit, and a row is done when it holds its Ace's suit in order.
    pub fn basic_position(&self) -> Position {
        let suits = self.row_suits();
        let mut renamed = [0u8; 4];
        for (row, &suit) in suits.iter().enumerate() {
            renamed[suit as usize] = row as u8;
        }
        let cells: Vec<Option<Card>> = self
            .rows
            .iter()
            .flat_map(|row| row[1..].iter())
            .map(|cell| cell.map(|card| Card::new(renamed[card.suit() as usize], card.rank())))
            .collect();
        let layout = Layout::new(4, 13).expect("4x13 is a layout");
        Position::from_cells(layout, &cells).expect("Blue Moon's 48 cards and 4 gaps")
    }
}

impl fmt::Display for BlueMoonBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (r, row) in self.rows.iter().enumerate() {
            if r > 0 {
                f.write_str("/")?;
            }
            for (c, cell) in row.iter().enumerate() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::format_position;

    #[test]
    fn game_references_parse_and_refuse_what_pysolfc_refuses() {
        let deal: PysolDeal = "montana:12345".parse().unwrap();
        assert_eq!((deal.game, deal.number), (PysolGame::Montana, 12345));
        assert_eq!(deal.to_string(), "montana:12345");
        assert_eq!("montana:007".parse::<PysolDeal>().unwrap().number, 7);
        assert_eq!(
            "blue-moon:100000000000000000000"
                .parse::<PysolDeal>()
                .unwrap()
                .number,
            PYSOL_MAX_NUMBER
        );
        for bad in [
            "montana:0",
            "montana:100000000000000000001",
            "montana:-3",
            "montana:",
        ] {
            assert!(bad.parse::<PysolDeal>().is_err(), "{bad}");
        }
        assert!(matches!(
            "klondike:3".parse::<PysolDeal>(),
            Err(PysolError::UnknownGame(_))
        ));
        assert!(matches!(
            "montana".parse::<PysolDeal>(),
            Err(PysolError::Malformed(_))
        ));
    }

    #[test]
    fn layouts_are_pinned_on_both_sides_of_the_boundary() {
        // From tests/pysol/oracle.py (PyPI's pysol_cards 0.24); the integration test
        // `pysol::layouts_match_pysol_cards` compares thousands more.
        let board = |game, number| PysolDeal::new(game, number).unwrap().board_text();
        assert_eq!(board(PysolGame::Montana, 1), MONTANA_1);
        assert_eq!(board(PysolGame::Montana, 31_999), MONTANA_31999);
        assert_eq!(board(PysolGame::Montana, 32_000), MONTANA_32000);
        assert_eq!(board(PysolGame::BlueMoon, 2), BLUE_MOON_2);
        assert_eq!(board(PysolGame::BlueMoon, PYSOL_MAX_NUMBER), BLUE_MOON_MAX);
    }

    const MONTANA_1: &str = "JD 2D 9H JC 5D 7H 7C 5H KD KC 9S 5S --/QC KH 3H 2S KS 9D QD JS -- -- 3C 4C 5C/TS QH 4H -- 4D 7S 3S TD 4S TH 8H 2C JH/7D 6D 8S 8D QS 6C 3D 8C TC 6S 9C 2H 6H";
    const MONTANA_31999: &str = "JD JH -- QH KH 6S 6D JC -- TH -- 8H 9D/2H 8D 6H -- 7H 7C 5D 7S 6C QC JS 9C 3D/5C 4C 2S 8S 3C 7D 5H 8C 4H TD TS 3H 4S/KC TC 4D 9S 2C KD 9H KS 5S QS 2D QD 3S";
    const MONTANA_32000: &str = "7S 4D JS 8D 6D 3H 3D TH JC 3C 2C 5S 9D/-- 9C 2S 4H 6S 8S 9S TS 9H KD QD 6H 7D/5H QS -- QH TC 4C -- JD 4S JH TD 3S 7H/8C 6C 2H 2D 5D KS QC KH 5C 7C 8H KC --";
    const BLUE_MOON_2: &str = "AC QD QC KC 3C 4C 2C KD 5C 4D JD JS 6H QS/AH 6D 2D 9C TD JC 8C 6C 8S 4S 5D QH 7S 9D/AD KS 7C 6S 4H -- 8H -- 9S TC 2S 3S TS 9H/AS 2H 3H -- 7H 3D 5H 8D KH 7D -- 5S TH JH";
    const BLUE_MOON_MAX: &str = "AC -- 2H 4H 9H QH 8H JH KH TD 9C QC 7H 4S/AS JS QS 7C 5C KS 9S -- JC 8D 5D 7D KD --/AH 3D 9D 4C -- JD 3H 3S 7S 3C 5S 2C TC 2D/AD 2S TH 6D 6S 6C 5H KC 8S 6H QD TS 4D 8C";

    #[test]
    fn talons_are_permutations_in_both_generators() {
        for number in [1, 2, 31_999, 32_000, 1 << 40, PYSOL_MAX_NUMBER] {
            let mut codes: Vec<u8> = pysol_talon(number).iter().map(|c| c.code()).collect();
            codes.sort_unstable();
            let mut deck: Vec<u8> = Layout::new(4, 13)
                .unwrap()
                .deck()
                .map(|c| c.code())
                .collect();
            deck.sort_unstable();
            assert_eq!(codes, deck, "game {number}");
        }
    }

    #[test]
    fn blue_moon_is_a_basic_position_with_its_rows_renamed() {
        for number in [1, 5, 40_000] {
            let board = blue_moon(number);
            let suits = board.row_suits();
            let mut sorted = suits;
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3]);
            let basic = board.basic_position();
            assert_eq!(basic.layout().suits(), 4);
            // The gaps of the board (columns 1..13) are the gaps of the position.
            let text = format_position(&basic);
            let gaps_board: Vec<usize> = board
                .rows
                .iter()
                .flat_map(|row| row[1..].iter())
                .enumerate()
                .filter(|(_, c)| c.is_none())
                .map(|(i, _)| i)
                .collect();
            let gaps_pos: Vec<usize> = text
                .split(['/', ' '])
                .enumerate()
                .filter(|(_, t)| *t == "--")
                .map(|(i, _)| i)
                .collect();
            assert_eq!(gaps_board, gaps_pos, "game {number}");
        }
    }
}
