//! PySolFC games in requests and views: a game (`pysol` of a job), a range of games
//! (`pysol` of a batch), and a job's view of its game with PySolFC's board.
//!
//! Invariant: a view's `board_solution` is the job's `solution` step for step, each
//! move with the card and columns PySolFC's board gives it (`report::steps_on_board`;
//! a game played on its own board was solved on that board: its solution is it).

use super::whole;
use crate::report::{steps_on_board, StepJson};
use crate::service::subject::JobPysol;
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
    /// The game number, 1 ..= 2^63-1 here (PySolFC's go up to 10^20: the CLI takes
    /// them all; the numbers PySolFC draws for a new game are about 4.6e11).
    #[serde(deserialize_with = "whole")]
    #[schema(minimum = 1, maximum = 9_223_372_036_854_775_807_u64)]
    pub number: u64,
}

/// PySolFC games `from .. from+count-1` of one game: `{"game": "montana", "from": 1,
/// "count": 1000}`.
#[derive(Deserialize, Serialize, Debug, Clone, ToSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PysolBatchSpec {
    /// A PySolFC Gaps game the engine plays (`montana`, `blue-moon`, ...; docs/pysol.md).
    pub game: String,
    /// The first game number (1 ..= 2^63 - `limits.max_batch_deals`).
    #[serde(deserialize_with = "whole")]
    #[schema(minimum = 1)]
    pub from: u64,
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
    /// The game number.
    pub number: u64,
    /// The starting board as PySolFC shows it (`gaps deal --pysol GAME:N`).
    pub board: String,
    /// The solution's steps on that board (absent until the job has a solution).
    #[schema(value_type = Option<Vec<Object>>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_solution: Option<Vec<StepJson>>,
}

impl PysolView {
    /// The view of `game` with the job's `solution` (of the engine's position, or of
    /// the board), or `None` for a number beyond the API's (the API takes numbers up to
    /// 2^63-1).
    pub fn of(game: JobPysol, solution: Option<&[StepJson]>) -> Option<PysolView> {
        let number = u64::try_from(game.number()).ok()?;
        let solution = solution.filter(|steps| !steps.is_empty());
        let (board, board_solution) = match game {
            JobPysol::Position(deal) => {
                let (board, map) = deal.board_and_map();
                (board, solution.map(|steps| steps_on_board(&map, steps)))
            }
            JobPysol::Board(deal) => (deal.board(), solution.map(<[StepJson]>::to_vec)),
        };
        Some(PysolView {
            game: game.game().name().into(),
            number,
            board: board.to_string(),
            board_solution,
        })
    }
}
