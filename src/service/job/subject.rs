//! What a Gaps job searches, as the service keeps it: the rules ([`JobVariant`]), the
//! start ([`JobPosition`]), the PySolFC game it was asked as ([`JobPysol`]) and the
//! search that answered ([`JobAlgorithm`]).
//!
//! Most jobs are the engine's: a variant and a position. A PySolFC game played on its
//! own board (Galary, Free Parking, Jungle, Spaces and Aces: a gap there may take
//! several cards; docs/pysol.md) has neither: its rules are the game's, its start is the
//! game and number, and the board search (`gaps_engine::BoardDeal::solve`) answers it.
//!
//! Invariants:
//! - Each type's text (its `Display`, stored through `Stored`) reads back as itself
//!   (`FromStr`), and the texts of the two kinds never overlap: a board's rules are
//!   `board:GAME` and its start `GAME:N`, while no engine variant or canonical position
//!   holds a `:`.
//! - A job's variant, position and PySolFC game are of the same kind (validation builds
//!   them together; [`JobVariant::Board`] goes with [`JobPosition::Board`] and
//!   [`JobPysol::Board`] of the same game).

use gaps_engine::{
    parse_game_number, Algorithm, BoardDeal, Position, PysolBoard, PysolDeal, PysolError,
    PysolGame, Variant,
};
use std::fmt;
use std::str::FromStr;

/// The prefix of a board game's rules: `board:galary`.
const BOARD_PREFIX: &str = "board:";

/// The rules a Gaps job is searched under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobVariant {
    /// An engine variant (`basic`, `common`, `aisleriot`).
    Engine(Variant),
    /// A PySolFC game's own rules, on its own board (`board:galary`).
    Board(PysolGame),
}

impl JobVariant {
    /// The rules of a PySolFC game's jobs: its own on its board, or its variant's.
    pub fn of_game(game: PysolGame) -> JobVariant {
        if game.is_board_played() {
            JobVariant::Board(game)
        } else {
            JobVariant::Engine(game.variant())
        }
    }

    /// The engine variant, for a job the engine's searches answer.
    pub fn engine(self) -> Option<Variant> {
        match self {
            JobVariant::Engine(variant) => Some(variant),
            JobVariant::Board(_) => None,
        }
    }
}

impl fmt::Display for JobVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobVariant::Engine(variant) => f.write_str(variant.name()),
            JobVariant::Board(game) => write!(f, "{BOARD_PREFIX}{game}"),
        }
    }
}

impl FromStr for JobVariant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.strip_prefix(BOARD_PREFIX) {
            Some(name) => match PysolGame::named(name) {
                Ok(game) if game.is_board_played() => Ok(JobVariant::Board(game)),
                Ok(game) => Err(PysolError::NotOnBoard(game).to_string()),
                Err(e) => Err(e.to_string()),
            },
            None => s
                .parse()
                .map(JobVariant::Engine)
                .map_err(|e| format!("{e}")),
        }
    }
}

/// Where a Gaps job starts (one per job read: kept `Copy` as the engine's position is,
/// rather than boxed to save the board variant's bytes).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobPosition {
    /// An engine position (canonical notation).
    Engine(Position),
    /// A PySolFC game's starting board, named by its game and number (`galary:17`).
    Board(BoardDeal),
}

impl JobPosition {
    /// The engine position, for a job the engine's searches answer.
    pub fn engine(&self) -> Option<&Position> {
        match self {
            JobPosition::Engine(position) => Some(position),
            JobPosition::Board(_) => None,
        }
    }

    /// The position as a job view shows it: canonical notation, or the board as
    /// PySolFC shows it.
    pub fn shown(&self) -> String {
        match self {
            JobPosition::Engine(position) => position.to_string(),
            JobPosition::Board(deal) => deal.board().to_string(),
        }
    }
}

impl fmt::Display for JobPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobPosition::Engine(position) => position.fmt(f),
            JobPosition::Board(deal) => deal.fmt(f),
        }
    }
}

impl FromStr for JobPosition {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.contains(':') {
            s.parse()
                .map(JobPosition::Board)
                .map_err(|e: PysolError| e.to_string())
        } else {
            s.parse()
                .map(JobPosition::Engine)
                .map_err(|e| format!("{e}"))
        }
    }
}

/// The PySolFC game a job was asked as (`montana:12345`, `galary:17`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobPysol {
    /// A game the engine plays as a position of its variant.
    Position(PysolDeal),
    /// A game played on its own board.
    Board(BoardDeal),
}

impl JobPysol {
    /// Any game PySolFC deals that the engine solves, by name and number.
    pub fn new(game: PysolGame, number: u128) -> Result<JobPysol, PysolError> {
        if game.is_board_played() {
            BoardDeal::new(game, number).map(JobPysol::Board)
        } else {
            PysolDeal::new(game, number).map(JobPysol::Position)
        }
    }

    /// The game.
    pub fn game(self) -> PysolGame {
        match self {
            JobPysol::Position(deal) => deal.game,
            JobPysol::Board(deal) => deal.game,
        }
    }

    /// The game number.
    pub fn number(self) -> u128 {
        match self {
            JobPysol::Position(deal) => deal.number,
            JobPysol::Board(deal) => deal.number,
        }
    }

    /// The game as an engine position's, if it is played as one.
    pub fn deal(self) -> Option<PysolDeal> {
        match self {
            JobPysol::Position(deal) => Some(deal),
            JobPysol::Board(_) => None,
        }
    }

    /// The starting board, as PySolFC deals it.
    pub fn board(self) -> PysolBoard {
        match self {
            JobPysol::Position(deal) => deal.board(),
            JobPysol::Board(deal) => deal.board(),
        }
    }
}

impl fmt::Display for JobPysol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.game(), self.number())
    }
}

impl FromStr for JobPysol {
    type Err = PysolError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (game, number) = parse_game_number(s)?;
        JobPysol::new(game, number)
    }
}

/// The search that answered a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobAlgorithm {
    /// One of the engine's algorithms.
    Engine(Algorithm),
    /// The board search of a game played on its own board (docs/engine.md, "PySolFC's
    /// games played on their own boards").
    BestFirst,
}

/// The name of [`JobAlgorithm::BestFirst`].
pub const BEST_FIRST: &str = "best-first";

impl JobAlgorithm {
    /// The public name.
    pub fn name(self) -> &'static str {
        match self {
            JobAlgorithm::Engine(algorithm) => algorithm.name(),
            JobAlgorithm::BestFirst => BEST_FIRST,
        }
    }
}

impl fmt::Display for JobAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for JobAlgorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == BEST_FIRST {
            Ok(JobAlgorithm::BestFirst)
        } else {
            s.parse()
                .map(JobAlgorithm::Engine)
                .map_err(|e| format!("{e}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_read_back_as_themselves_and_the_kinds_do_not_overlap() {
        let montana: PysolDeal = "montana:5".parse().unwrap();
        let galary: BoardDeal = "galary:17".parse().unwrap();
        for variant in [
            JobVariant::Engine(Variant::Common),
            JobVariant::Board(PysolGame::Jungle),
        ] {
            assert_eq!(variant.to_string().parse::<JobVariant>(), Ok(variant));
        }
        assert_eq!(
            JobVariant::Board(PysolGame::Galary).to_string(),
            "board:galary"
        );
        assert!("board:montana".parse::<JobVariant>().is_err());
        assert!("board:nope".parse::<JobVariant>().is_err());
        for position in [
            JobPosition::Engine(montana.position()),
            JobPosition::Board(galary),
        ] {
            assert_eq!(position.to_string().parse::<JobPosition>(), Ok(position));
        }
        // A Free Parking board is a valid engine notation too: its start is stored
        // as its game and number, so it never reads back as an engine position.
        let parking = JobPosition::Board("free-parking:3".parse().unwrap());
        assert_eq!(parking.to_string(), "free-parking:3");
        assert!(parking.shown().parse::<Position>().is_ok());
        assert_eq!(parking.to_string().parse::<JobPosition>(), Ok(parking));
        for pysol in [JobPysol::Position(montana), JobPysol::Board(galary)] {
            assert_eq!(pysol.to_string().parse::<JobPysol>(), Ok(pysol));
        }
        assert_eq!("galary:17".parse::<JobPysol>(), Ok(JobPysol::Board(galary)));
        // The command line names a board game's rules as the service does.
        for game in PysolGame::ALL.into_iter().filter(|g| g.is_board_played()) {
            assert_eq!(
                crate::report::board_variant(game),
                JobVariant::Board(game).to_string()
            );
        }
        assert_eq!(
            crate::report::BOARD_ALGORITHM,
            JobAlgorithm::BestFirst.name()
        );
        for algorithm in [
            JobAlgorithm::Engine(Algorithm::Dfs),
            JobAlgorithm::BestFirst,
        ] {
            assert_eq!(algorithm.to_string().parse::<JobAlgorithm>(), Ok(algorithm));
        }
    }
}
