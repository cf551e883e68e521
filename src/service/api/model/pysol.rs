//! PySolFC games in requests and views: a game (`pysol` of a job), a range of games
//! (`pysol` of a batch), and a job's view of its game with PySolFC's board.
//!
//! Invariant: a view's `board_solution` is the job's `solution` step for step, each
//! move with the card and columns PySolFC's board gives it (`report::steps_on_board`;
//! a game played on its own board was solved on that board: its solution is it).

use super::whole;
use crate::report::{steps_on_board, StepJson};
use crate::service::job::subject::JobPysol;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A game of PySolFC: `{"game": "montana", "number": 12345}`.
#[derive(Deserialize, Serialize, Debug, Clone, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PysolSpec {
    /// A PySolFC Gaps game the engine plays: `montana` (#53; played as `common`),
    /// `blue-moon` (#63; `basic`), `spaces`, `station`, `red-moon`, `paganini`,
    /// `house-of-commons`, `line-up` (docs/pysol.md).
    pub game: String,
    /// The game number, 1 ..= 10^20 as in PySolFC: a JSON integer, or a string of
    /// digits (a number above 2^53 loses digits in many JSON readers; above 2^64-1 it
    /// must be a string here).
    #[serde(
        deserialize_with = "game_number",
        serialize_with = "crate::report::serialize_game_number"
    )]
    #[schema(value_type = u64)] // `openapi_document` writes the schema.
    pub number: u128,
}

/// A PySolFC game number as JSON gives it: an integer, a float without a fraction
/// below 2^53 (where a float is exact), or a string of digits. Its range is checked
/// with the request (`PysolSpec::game`), in the engine's words.
fn game_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
    struct Visitor;
    impl serde::de::Visitor<'_> for Visitor {
        type Value = u128;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a PySolFC game number (a whole number, or a string of digits)")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u128, E> {
            Ok(u128::from(v))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u128, E> {
            u128::try_from(v).map_err(|_| E::custom(out_of_range(&v.to_string())))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<u128, E> {
            // JSON integers up to 2^64-1 arrive as integers; a float is exact below 2^53.
            if v.fract() == 0.0 && (0.0..9_007_199_254_740_992.0).contains(&v) {
                Ok(v as u128)
            } else if v.fract() == 0.0 && v > 0.0 {
                Err(E::custom(format!(
                    "{v} is too large for a JSON number to hold exactly: give the game \
                     number as a string of digits (\"number\": \"...\")"
                )))
            } else {
                Err(E::custom(out_of_range(&v.to_string())))
            }
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u128, E> {
            // Digits are read here and their range checked with the request, as an
            // integer's is; anything else is no number.
            match v.bytes().all(|b| b.is_ascii_digit()) {
                true => v.parse().map_err(|_| E::custom(out_of_range(v))),
                false => Err(E::custom(out_of_range(v))),
            }
        }
    }
    d.deserialize_any(Visitor)
}

/// The engine's words for a number outside PySolFC's.
fn out_of_range(number: &str) -> gaps_engine::PysolError {
    gaps_engine::PysolError::NumberOutOfRange(number.to_string())
}

/// PySolFC games `from .. from+count-1` of one game: `{"game": "montana", "from": 1,
/// "count": 1000}`.
#[derive(Deserialize, Serialize, Debug, Clone, ToSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PysolBatchSpec {
    /// A PySolFC Gaps game the engine plays (`montana`, `blue-moon`, ...; docs/pysol.md).
    pub game: String,
    /// The first game number (1 ..= 10^20, and the last, `from + count - 1`, at most
    /// 10^20); a JSON integer or a string of digits, as a job's `number`.
    #[serde(
        deserialize_with = "game_number",
        serialize_with = "crate::report::serialize_game_number"
    )]
    #[schema(value_type = u64)] // `openapi_document` writes the schema.
    pub from: u128,
    /// Number of games (1 ..= configured maximum).
    #[serde(deserialize_with = "whole")]
    #[schema(minimum = 1)]
    pub count: u64,
}

/// A job's PySolFC game: the request's `game` and `number`, PySolFC's board and the
/// solution on it.
#[derive(Serialize, Debug, Clone, ToSchema)]
pub struct PysolView {
    /// The game.
    pub game: String,
    /// The game number, up to 10^20 (an integer up to 2^64-1, digits above).
    #[serde(serialize_with = "crate::report::serialize_game_number")]
    #[schema(value_type = u64)] // `openapi_document` writes the schema.
    pub number: u128,
    /// The starting board as PySolFC shows it (`gaps deal --pysol GAME:N`).
    pub board: String,
    /// The solution's steps on that board (absent until the job has a solution).
    #[schema(value_type = Option<Vec<Object>>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_solution: Option<Vec<StepJson>>,
}

impl PysolView {
    /// The view of `game` with the job's `solution` (of the engine's position, or of
    /// the board).
    pub fn of(game: JobPysol, solution: Option<&[StepJson]>) -> PysolView {
        let number = game.number();
        let solution = solution.filter(|steps| !steps.is_empty());
        let (board, board_solution) = match game {
            JobPysol::Position(deal) => {
                let (board, map) = deal.board_and_map();
                (board, solution.map(|steps| steps_on_board(&map, steps)))
            }
            JobPysol::Board(deal) => (deal.board(), solution.map(<[StepJson]>::to_vec)),
        };
        PysolView {
            game: game.game().name().into(),
            number,
            board: board.to_string(),
            board_solution,
        }
    }
}
