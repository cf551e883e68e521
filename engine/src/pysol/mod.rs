//! PySolFC's Gaps games: the twelve single-deck games of `pysollib/games/montana.py`
//! ([`PysolGame`], their data in `games.rs`), each game's board for a game number, card
//! for card as PySolFC deals it (`board.rs`), and the engine's position of the games it
//! plays ([`PysolDeal`]).
//!
//! The generators (read in `shlomif/PySolFC` `pysollib/pysolrandom.py`
//! `construct_random`, and `pysol_cards` 0.24, which PySolFC imports; docs/pysol.md says
//! more): game numbers 1..=31999 use the Microsoft generator ([`ms::MsRandom`]), numbers
//! from 32000 to 10^20 Python's Mersenne Twister ([`mt::PythonMt`]). 0 is refused by
//! PySolFC (its Microsoft generator takes seeds from 1).
//!
//! Invariants: a [`PysolDeal`] is a number PySolFC accepts of a game the engine plays
//! ([`PysolGame::is_played`]); its [`PysolDeal::position`] is the engine's position of
//! its starting board, in the game's variant, and [`PysolDeal::board_of`] shows any
//! position of the game on PySolFC's board.
//!
//! This room is data and generators only: `redeal` stands on it, and the search of the
//! four games played on their own boards is `crate::board`, a room above `solve`.

mod board;
mod games;
mod ms;
mod mt;

use crate::position::Position;
use crate::variant::Variant;
use std::fmt;
use std::str::FromStr;

pub use board::{talon, BoardMap, PysolBoard, MAX_ROW_LEN};
pub use games::{Accepts, DealShape, EngineForm, GameSpec, PysolGame, RedealGaps};
pub use ms::MsRandom;
pub use mt::PythonMt;

/// The largest game number PySolFC deals (its random numbers are drawn up to it).
pub const PYSOL_MAX_NUMBER: u128 = 100_000_000_000_000_000_000;
/// The first game number dealt by the Mersenne Twister (`construct_random`: `seed <
/// 32000` takes the Microsoft generator).
pub const PYSOL_MT_FROM: u128 = 32_000;

impl fmt::Display for PysolGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What is wrong with a PySolFC game reference.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PysolError {
    /// Not one of PySolFC's single-deck Gaps games.
    #[error("unknown PySolFC game `{0}` (known: {known})", known = PysolGame::all_names())]
    UnknownGame(String),
    /// A game played on its own board ([`PysolGame::is_board_played`]), asked of
    /// what takes only the games played as `basic` or `common` positions.
    #[error(
        "PySolFC's {0} is played on its own board (a gap there may take several cards), \
         not as a `basic` or `common` position: this takes only the games played as \
         positions ({played})",
        played = PysolGame::played_names()
    )]
    NotPlayed(PysolGame),
    /// A game played as a `basic` or `common` position, named as one played on its
    /// own board ([`crate::board::BoardDeal`]).
    #[error("PySolFC's {0} is played as a `{variant}` position, not on its own board", variant = .0.variant())]
    NotOnBoard(PysolGame),
    /// Not of the form `GAME:N`.
    #[error("a PySolFC game is GAME:N, for example montana:12345 (got `{0}`)")]
    Malformed(String),
    /// Outside PySolFC's numbers.
    #[error("PySolFC game numbers run from 1 to 10^20 (got {0})")]
    NumberOutOfRange(String),
}

impl PysolGame {
    /// Any of the twelve games by name (a board is dealt for each).
    pub fn named(s: &str) -> Result<PysolGame, PysolError> {
        PysolGame::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| PysolError::UnknownGame(s.to_string()))
    }
}

/// A game to solve: one the engine plays ([`PysolGame::is_played`]); any other name is
/// refused, saying whether it is dealt only ([`PysolGame::named`] takes those).
impl FromStr for PysolGame {
    type Err = PysolError;
    fn from_str(s: &str) -> Result<PysolGame, PysolError> {
        let game = PysolGame::named(s)?;
        if game.is_played() {
            Ok(game)
        } else {
            Err(PysolError::NotPlayed(game))
        }
    }
}

/// A numbered game of PySolFC that the engine plays: `montana:12345`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PysolDeal {
    /// The game.
    pub game: PysolGame,
    /// Its number, in `1..=PYSOL_MAX_NUMBER`.
    pub number: u128,
}

impl PysolDeal {
    /// The deal, if `number` is one PySolFC deals and the engine plays `game`.
    pub fn new(game: PysolGame, number: u128) -> Result<PysolDeal, PysolError> {
        check_game_number(number)?;
        if !game.is_played() {
            return Err(PysolError::NotPlayed(game));
        }
        Ok(PysolDeal { game, number })
    }

    /// The starting board, as PySolFC deals it.
    pub fn board(self) -> PysolBoard {
        PysolBoard::deal(self.game, self.number)
    }

    /// The map between this game's board and the engine's positions of it.
    pub fn board_map(self) -> BoardMap {
        BoardMap::new(&self.board())
    }

    /// The starting board and its map, the board dealt once.
    pub fn board_and_map(self) -> (PysolBoard, BoardMap) {
        let board = self.board();
        let map = BoardMap::new(&board);
        (board, map)
    }

    /// The starting position of its first round, in the variant of the game.
    pub fn position(self) -> Position {
        let board = self.board();
        BoardMap::new(&board).position(&board)
    }

    /// The variant the game is played as.
    pub fn variant(self) -> Variant {
        self.game.variant()
    }

    /// The starting board as PySolFC shows it, in this crate's notation.
    pub fn board_text(self) -> String {
        self.board().to_string()
    }

    /// A position of this game (after moves or redeals) as PySolFC shows it.
    pub fn board_of(self, pos: &Position) -> String {
        self.board_map().board(pos).to_string()
    }
}

impl fmt::Display for PysolDeal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.game, self.number)
    }
}

/// Reads `GAME:N` for any of the twelve games (a board can be dealt for each).
pub fn parse_game_number(s: &str) -> Result<(PysolGame, u128), PysolError> {
    let (game, digits) = s
        .split_once(':')
        .ok_or_else(|| PysolError::Malformed(s.to_string()))?;
    let game = PysolGame::named(game)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PysolError::Malformed(s.to_string()));
    }
    Ok((game, parse_game_number_digits(digits)?))
}

/// Reads a game number alone: decimal digits (leading zeros allowed) naming a number
/// PySolFC accepts, `1..=PYSOL_MAX_NUMBER`; anything else is
/// [`PysolError::NumberOutOfRange`], which states the bound.
pub fn parse_game_number_digits(digits: &str) -> Result<u128, PysolError> {
    let out_of_range = || PysolError::NumberOutOfRange(digits.to_string());
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(out_of_range());
    }
    // 10^20 has 21 digits; more digits are out of range even when u128 would hold them
    // (after the leading zeros).
    let number = digits.parse::<u128>().map_err(|_| out_of_range())?;
    check_game_number(number)?;
    Ok(number)
}

/// The starting board of any of the twelve games, for a number PySolFC accepts.
pub fn pysol_board(game: PysolGame, number: u128) -> Result<PysolBoard, PysolError> {
    check_game_number(number)?;
    Ok(PysolBoard::deal(game, number))
}

impl FromStr for PysolDeal {
    type Err = PysolError;
    fn from_str(s: &str) -> Result<PysolDeal, PysolError> {
        let (game, number) = parse_game_number(s)?;
        PysolDeal::new(game, number)
    }
}

/// Whether `number` is one PySolFC accepts (`1..=PYSOL_MAX_NUMBER`), as the error that
/// states the bound when it is not.
pub fn check_game_number(number: u128) -> Result<(), PysolError> {
    if (1..=PYSOL_MAX_NUMBER).contains(&number) {
        Ok(())
    } else {
        Err(PysolError::NumberOutOfRange(number.to_string()))
    }
}

/// The 52 cards of PySolFC Montana game `number`, the first dealt first.
///
/// # Panics
/// If `number` is outside `1..=PYSOL_MAX_NUMBER` (see [`PysolDeal::new`]).
pub fn pysol_talon(number: u128) -> Vec<crate::card::Card> {
    check_game_number(number).expect("a PySolFC game number");
    talon(PysolGame::Montana, number)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(board(PysolGame::RedMoon, 3), RED_MOON_3);
        assert_eq!(board(PysolGame::Paganini, 40_000), PAGANINI_40000);
        assert_eq!(board(PysolGame::LineUp, 4), LINE_UP_4);
        assert_eq!(board(PysolGame::BlueMoon, PYSOL_MAX_NUMBER), BLUE_MOON_MAX);
    }

    const MONTANA_1: &str = "JD 2D 9H JC 5D 7H 7C 5H KD KC 9S 5S --/QC KH 3H 2S KS 9D QD JS -- -- 3C 4C 5C/TS QH 4H -- 4D 7S 3S TD 4S TH 8H 2C JH/7D 6D 8S 8D QS 6C 3D 8C TC 6S 9C 2H 6H";
    const MONTANA_31999: &str = "JD JH -- QH KH 6S 6D JC -- TH -- 8H 9D/2H 8D 6H -- 7H 7C 5D 7S 6C QC JS 9C 3D/5C 4C 2S 8S 3C 7D 5H 8C 4H TD TS 3H 4S/KC TC 4D 9S 2C KD 9H KS 5S QS 2D QD 3S";
    const MONTANA_32000: &str = "7S 4D JS 8D 6D 3H 3D TH JC 3C 2C 5S 9D/-- 9C 2S 4H 6S 8S 9S TS 9H KD QD 6H 7D/5H QS -- QH TC 4C -- JD 4S JH TD 3S 7H/8C 6C 2H 2D 5D KS QC KH 5C 7C 8H KC --";
    const BLUE_MOON_2: &str = "AC QD QC KC 3C 4C 2C KD 5C 4D JD JS 6H QS/AH 6D 2D 9C TD JC 8C 6C 8S 4S 5D QH 7S 9D/AD KS 7C 6S 4H -- 8H -- 9S TC 2S 3S TS 9H/AS 2H 3H -- 7H 3D 5H 8D KH 7D -- 5S TH JH";
    const BLUE_MOON_MAX: &str = "AC -- 2H 4H 9H QH 8H JH KH TD 9C QC 7H 4S/AS JS QS 7C 5C KS 9S -- JC 8D 5D 7D KD --/AH 3D 9D 4C -- JD 3H 3S 7S 3C 5S 2C TC 2D/AD 2S TH 6D 6S 6C 5H KC 8S 6H QD TS 4D 8C";

    const RED_MOON_3: &str = "AC -- KC 2D QC 7H 6S 8H TH 4D 7D JH 9D JS/AS -- QS 8S 9C QD TC QH TS 5D 6H KS 7C 4H/AH -- JD 8D 6D 3D KH 6C TD 2S 3C 9H KD 7S/AD -- 3S 9S 2C 3H 4C 2H JC 5H 8C 4S 5S 5C";
    const PAGANINI_40000: &str = "AH 9H KD JC 6C TS 7C JH KS 7S/AS QD 9C JS 6D 6S QS -- -- TD/AC TC QC 8C 6H 7D 8H KC 8D 9S/AD TH 9D KH 8S JD QH 7H -- --";
    const LINE_UP_4: &str =
        "4C -- -- 3S 5D 4D/2S AS AC 2D AD 3C/5H 2H AH 4H 2C 4S/3H 5C 5S -- -- 3D";

    #[test]
    fn talons_are_permutations_in_both_generators() {
        for number in [1, 2, 31_999, 32_000, 1 << 40, PYSOL_MAX_NUMBER] {
            let mut codes: Vec<u8> = pysol_talon(number).iter().map(|c| c.code()).collect();
            codes.sort_unstable();
            let mut deck: Vec<u8> = crate::card::Layout::new(4, 13)
                .unwrap()
                .deck()
                .map(|c| c.code())
                .collect();
            deck.sort_unstable();
            assert_eq!(codes, deck, "game {number}");
        }
    }

    #[test]
    fn every_played_board_is_its_position_and_back() {
        for game in PysolGame::ALL.into_iter().filter(|g| g.is_played()) {
            for number in [1, 5, 31_999, 40_000, PYSOL_MAX_NUMBER] {
                let deal = PysolDeal::new(game, number).unwrap();
                let board = deal.board();
                let map = deal.board_map();
                let pos = map.position(&board);
                assert_eq!(map.board(&pos), board, "{deal}");
                assert_eq!(pos.layout().ranks(), game.spec().ranks.len(), "{deal}");
                if game.variant() == Variant::Basic {
                    let suits = board.rows.map(|row| row[0].unwrap().suit());
                    let mut sorted = suits;
                    sorted.sort_unstable();
                    assert_eq!(sorted, [0, 1, 2, 3], "{deal}: an Ace a row");
                }
            }
        }
    }

    #[test]
    fn every_board_holds_its_deck_and_four_gaps() {
        for game in PysolGame::ALL {
            let spec = game.spec();
            for number in [1, 2, 31_999, 32_000, 1 << 40, PYSOL_MAX_NUMBER] {
                let board = pysol_board(game, number).unwrap();
                let mut cards: Vec<u8> = (0..4)
                    .flat_map(|r| board.row(r).iter().flatten().map(|c| c.code()))
                    .collect();
                let gaps = 4 * spec.row_len - cards.len();
                let out = if spec.space_rank.is_some() { 4 } else { 0 };
                assert_eq!(gaps, 4, "{game}:{number}");
                assert_eq!(cards.len() + out, 4 * spec.ranks.len(), "{game}:{number}");
                cards.sort_unstable();
                cards.dedup();
                assert_eq!(cards.len() + out, 4 * spec.ranks.len(), "{game}:{number}");
            }
        }
    }

    #[test]
    fn only_games_whose_rules_the_engine_plays_are_deals() {
        for game in PysolGame::ALL {
            let text = format!("{game}:7");
            match text.parse::<PysolDeal>() {
                Ok(deal) => assert!(deal.game.is_played()),
                Err(e) => {
                    assert_eq!(e, PysolError::NotPlayed(game));
                    assert!(parse_game_number(&text).is_ok());
                }
            }
        }
        assert!(matches!(
            "klondike:3".parse::<PysolDeal>(),
            Err(PysolError::UnknownGame(_))
        ));
    }
}
