//! The JSON of PySolFC's games: a game as PySolFC shows it ([`PysolJson`]), steps on
//! its board, a game played on its own board (`SolveJson::of_board`, its rounds and
//! redeals), and game numbers up to 10^20 in answers.
//!
//! Invariant: as for every shape of `report`, field names are public; a board's steps
//! are the engine's line replayed, never recomputed.

use super::{solution_steps, MoveJson, RedealJson, RoundsJson, SolveJson, StatsJson, StepJson};
use gaps_engine::{
    board_stream, parse_card, pysol_board, BoardMap, BoardPosition, BoardReport, PysolBoard,
    PysolDeal, PysolGame, RedealStream, SolveReport, Step, Verdict,
};
use serde::Serialize;

/// A PySolFC game as PySolFC shows it: its board and, for Blue Moon, the solution in
/// the board's terms (its own suits, the Aces in column 0).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct PysolJson {
    /// The game's name (`montana`, `blue-moon`, ...).
    pub game: &'static str,
    /// The game number (up to 10^20).
    pub number: u128,
    /// The board in this project's notation (Blue Moon with its Aces column).
    pub board: String,
    /// The solution on the board (a solvable answer), with its redeal steps: the
    /// board's cards and columns (Blue Moon's columns count its Aces column).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_solution: Option<Vec<StepJson>>,
}

impl PysolJson {
    /// The view of `deal`, solved by `report`.
    pub fn new(deal: PysolDeal, report: &SolveReport) -> PysolJson {
        let (board, map) = deal.board_and_map();
        let board_solution = solution_steps(report).map(|steps| steps_on_board(&map, &steps));
        PysolJson {
            game: deal.game.name(),
            number: deal.number,
            board: board.to_string(),
            board_solution,
        }
    }
}

/// `steps` of a PySolFC game's position on its board (`map`): each move with the
/// board's name of its card and the board's columns; redeal steps as they are.
pub fn steps_on_board(map: &BoardMap, steps: &[StepJson]) -> Vec<StepJson> {
    let on_board = |m: &MoveJson| MoveJson {
        card: parse_card(&m.card)
            .flatten()
            .map_or_else(|| m.card.clone(), |card| map.board_card(card).to_string()),
        from: [m.from[0], map.board_col(m.from[1])],
        to: [m.to[0], map.board_col(m.to[1])],
    };
    steps
        .iter()
        .map(|step| match step {
            StepJson::Move(m) => StepJson::Move(on_board(m)),
            StepJson::Redeal { redeal } => StepJson::Redeal { redeal: *redeal },
        })
        .collect()
}

/// The steps of a line on a PySolFC board (`gaps_engine::Step`), redeals numbered
/// from 1.
pub fn board_steps_json(steps: &[Step]) -> Vec<StepJson> {
    let mut redeals = 0;
    steps
        .iter()
        .map(|step| match *step {
            Step::Move(m) => StepJson::Move(MoveJson::from(m)),
            Step::Redeal => {
                redeals += 1;
                StepJson::Redeal { redeal: redeals }
            }
        })
        .collect()
}

impl SolveJson {
    /// The JSON of a game played on its own board (`report`, game `number` of `game`):
    /// `position` is the board, `variant` is `board`, and the solution is on the board
    /// (`pysol.board_solution` repeats it).
    pub fn of_board(game: PysolGame, number: u128, report: &BoardReport) -> Self {
        let start = pysol_board(game, number).expect("a number checked by the caller");
        let board = start.to_string();
        let solution = board_steps_json(&report.steps);
        let solved = report.verdict == Verdict::Solvable;
        SolveJson {
            position: board.clone(),
            variant: board_variant(game),
            verdict: report.verdict.name(),
            solution: solution.clone(),
            algorithm: board_algorithm(report.algorithm),
            stopped: report.stopped.map(|s| s.name()),
            seed: report.seed,
            stats: StatsJson {
                threads: 1,
                ..StatsJson::from(&report.stats)
            },
            pysol: Some(PysolJson {
                game: game.name(),
                number,
                board,
                board_solution: solved.then_some(solution),
            }),
            rounds: RoundsJson::of_board(game, number, &start, report),
            played: None,
        }
    }
}

impl RoundsJson {
    /// The rounds of a board search of game `number` of `game` (whose starting board
    /// is `start`), if it could redeal.
    pub fn of_board(
        game: PysolGame,
        number: u128,
        start: &PysolBoard,
        report: &BoardReport,
    ) -> Option<Self> {
        let start = BoardPosition::of_board(start)?;
        RoundsJson::of_board_from(game, &start, &board_stream(game, number), report)
    }

    /// The rounds of a board search of `game` from the board `start` with redeals drawn
    /// from `stream` (a game's deal, or where a game in progress stands), if it could
    /// redeal.
    pub fn of_board_from(
        game: PysolGame,
        start: &BoardPosition,
        stream: &RedealStream,
        report: &BoardReport,
    ) -> Option<Self> {
        let solved = report.verdict == Verdict::Solvable;
        (report.redeals > 0).then(|| RoundsJson {
            redeals: report.redeals,
            used: if solved { report.rounds_used() } else { 0 },
            first_round: report.first_round.name().to_string(),
            redeal_points: 0,
            lost_rounds: 0,
            redealt: board_redeals_shown(game, start, stream, &report.steps),
        })
    }
}

/// What each redeal of a line on a board did (the cards gathered, the board dealt), by
/// playing the line again from `start` with redeals from `stream` (the engine replayed
/// it before; a step it refused would end the list early).
fn board_redeals_shown(
    game: PysolGame,
    start: &BoardPosition,
    stream: &RedealStream,
    steps: &[Step],
) -> Vec<RedealJson> {
    let mut pos = *start;
    let mut stream = stream.clone();
    let mut shown = Vec::new();
    for step in steps {
        match *step {
            Step::Move(m) => pos.play(m),
            Step::Redeal => {
                let gathered = pos.gathered().iter().map(ToString::to_string).collect();
                let Some(after) = pos.redeal(&mut stream) else {
                    break;
                };
                pos = after;
                let dealt = pos.to_board(game).to_string();
                shown.push(RedealJson {
                    gathered,
                    position: dealt.clone(),
                    board: Some(dealt),
                });
            }
        }
    }
    shown
}

/// The `variant` a game played on its own board reports: its own rules, `board:GAME`
/// (as the service names them: `service::subject::JobVariant::Board`).
pub const fn board_variant(game: PysolGame) -> &'static str {
    match game {
        PysolGame::Galary => "board:galary",
        PysolGame::FreeParking => "board:free-parking",
        PysolGame::Jungle => "board:jungle",
        PysolGame::SpacesAndAces => "board:spaces-and-aces",
        // Every other game is played as a position of a variant.
        _ => "board",
    }
}
/// The `algorithm` of its search (docs/engine.md, "PySolFC's games on their own boards").
pub const BOARD_ALGORITHM: &str = "best-first";

/// The name a board search's report gives its search: [`BOARD_ALGORITHM`], or `exact`
/// for the exhaustive search of a round without redeals.
pub fn board_algorithm(algorithm: gaps_engine::Algorithm) -> &'static str {
    match algorithm {
        gaps_engine::Algorithm::Exact => "exact",
        _ => BOARD_ALGORITHM,
    }
}

/// A PySolFC game number in an answer: a JSON integer up to 2^64-1, as every number
/// before PySolFC's largest was, and above it the string of its digits (an integer
/// there would reach most JSON readers as a float, its last digits lost), as a request
/// must give it.
pub fn serialize_game_number<S: serde::Serializer>(n: &u128, s: S) -> Result<S::Ok, S::Error> {
    match u64::try_from(*n) {
        Ok(n) => s.serialize_u64(n),
        Err(_) => s.serialize_str(&n.to_string()),
    }
}

/// [`serialize_game_number`] of a number that may be absent (`null`).
pub fn serialize_game_number_opt<S: serde::Serializer>(
    n: &Option<u128>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match n {
        Some(n) => serialize_game_number(n, s),
        None => s.serialize_none(),
    }
}
