//! Public JSON shapes (moves, stats, solve results, win rates), shared by
//! the CLI and the HTTP service.
//!
//! Invariant: field names here are public (docs/notation.md moves, README command-line JSON);
//! additions are fine, renames are not.

use gaps_engine::{
    format_position, Move, Position, PysolDeal, SearchStats, SolveReport, Variant, Verdict,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub mod odds;
mod pysol;
pub use pysol::{
    board_algorithm, board_steps_json, board_variant, serialize_game_number,
    serialize_game_number_opt, steps_on_board, PysolJson, BOARD_ALGORITHM,
};

/// A move as in docs/notation.md: `{"card": "5H", "from": [row, col], "to": [row, col]}`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, ToSchema)]
pub struct MoveJson {
    /// The card moved.
    pub card: String,
    /// 0-based `[row, col]` it leaves.
    pub from: [usize; 2],
    /// 0-based `[row, col]` of the gap it fills.
    pub to: [usize; 2],
}

impl From<Move> for MoveJson {
    fn from(m: Move) -> Self {
        let (fr, fc) = m.from_rc();
        let (tr, tc) = m.to_rc();
        MoveJson {
            card: m.card.to_string(),
            from: [fr, fc],
            to: [tr, tc],
        }
    }
}

/// A step of a solution with redeals: a move, or redeal `k` (`{"redeal": k}`, k from
/// 1), after which the position is the one that redeal deals.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, ToSchema)]
#[serde(untagged)]
pub enum StepJson {
    /// A move.
    Move(MoveJson),
    /// A redeal.
    Redeal {
        /// Which redeal (1, then 2).
        redeal: u8,
    },
}

/// The steps of `moves`, redeal `k + 1` coming after the first `redeal_at[k]` moves.
pub fn steps_json(moves: &[MoveJson], redeal_at: &[usize]) -> Vec<StepJson> {
    let mut steps = Vec::with_capacity(moves.len() + redeal_at.len());
    let mut next = 0;
    for (i, m) in moves.iter().enumerate() {
        while next < redeal_at.len() && redeal_at[next] == i {
            next += 1;
            steps.push(StepJson::Redeal { redeal: next as u8 });
        }
        steps.push(StepJson::Move(m.clone()));
    }
    while next < redeal_at.len() {
        next += 1;
        steps.push(StepJson::Redeal { redeal: next as u8 });
    }
    steps
}

/// What a solve with redeals found about its rounds.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, Eq, ToSchema)]
#[serde(default)]
pub struct RoundsJson {
    /// Redeals allowed.
    pub redeals: u8,
    /// Rounds the solution plays (1 + its redeals; 0 without a solution).
    pub used: usize,
    /// What the search of the first round alone found.
    pub first_round: String,
    /// Redeal points whose next round was searched.
    pub redeal_points: u64,
    /// Distinct next rounds proved lost.
    pub lost_rounds: u64,
    /// Each redeal of the solution: the cards it gathered and the position it dealt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redealt: Vec<RedealJson>,
}

/// One redeal of a solution, as a replay shows it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, ToSchema)]
pub struct RedealJson {
    /// The cards gathered, in the order they went on the talon (the last on top); for a
    /// PySolFC game, as its board names them (Blue Moon: the board's own suits).
    pub gathered: Vec<String>,
    /// The position dealt, canonical.
    pub position: String,
    /// The same as PySolFC shows it (a PySolFC game only; Blue Moon with its Aces).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
}

/// The redeals of `report`'s solution, as the engine's replay of it found them (no
/// second replay), named on PySolFC's board for a PySolFC `game`.
pub fn redeals_shown(report: &SolveReport, game: Option<PysolDeal>) -> Vec<RedealJson> {
    let Some(rounds) = report.rounds.as_ref() else {
        return Vec::new();
    };
    let map = game.map(|g| g.board_map());
    let named = |card: gaps_engine::Card| match &map {
        Some(map) => map.board_card(card).to_string(),
        None => card.to_string(),
    };
    rounds
        .redealt
        .iter()
        .map(|redealt| RedealJson {
            gathered: redealt.gathered.iter().map(|&c| named(c)).collect(),
            position: format_position(&redealt.position),
            board: map.map(|m| m.board(&redealt.position).to_string()),
        })
        .collect()
}

impl RoundsJson {
    /// The rounds part of `report`, if it was a solve with redeals.
    pub fn of(report: &SolveReport) -> Option<RoundsJson> {
        let rounds = report.rounds.as_ref()?;
        Some(RoundsJson {
            redeals: rounds.redeals,
            used: if report.verdict == Verdict::Solvable {
                rounds.rounds_used()
            } else {
                0
            },
            first_round: rounds
                .first_round
                .unwrap_or(Verdict::Unknown)
                .name()
                .to_string(),
            redeal_points: rounds.redeal_points,
            lost_rounds: rounds.lost_rounds,
            redealt: Vec::new(),
        })
    }
}

/// Search statistics as JSON. Fields missing from a stored value read as 0, so rows
/// written before a field existed still load.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, ToSchema)]
#[serde(default)]
pub struct StatsJson {
    /// Positions entered.
    pub nodes: u64,
    /// Wall-clock milliseconds.
    pub elapsed_ms: f64,
    /// Positions whose moves were searched.
    pub expanded: u64,
    /// Keys stored in the transposition table.
    pub stored: u64,
    /// Table entries overwritten because the budget was full.
    pub replaced: u64,
    /// Children cut by the transposition table.
    pub tt_hits: u64,
    /// Moves cut by incremental transpositions.
    pub it_cuts: u64,
    /// Children cut because they were on the current path.
    pub path_cuts: u64,
    /// Positions whose moves were cut to a stubborn subset.
    pub reduced: u64,
    /// Positions cut because no win is reachable from them (a card frozen off its place).
    pub dead_cuts: u64,
    /// Deepest ply.
    pub max_depth: u64,
    /// Table bytes in use.
    pub table_bytes: u64,
    /// Nodes per second.
    pub nodes_per_second: f64,
    /// Random probes made (sampling; 0 otherwise).
    pub probes: u64,
    /// Blocks entered (block search; its `nodes` count the positions in them).
    pub blocks: u64,
    /// Threads the search ran on (0 in rows stored before it was recorded).
    pub threads: u64,
    /// MiB this search was given for the exact search (`exact`, or `auto` on `common`):
    /// its `table_mb`, else memory sized by its time limit, drawn from the node's budget
    /// in the service; 0 for the searches that use only their thread's table.
    pub memory_mb: u64,
    /// Milliseconds the job waited for that memory to be free.
    pub memory_wait_ms: f64,
    /// Milliseconds a batch job's search stood paused while single jobs ran on its
    /// threads (counted in `elapsed_ms`, not against its time limit).
    #[serde(default)]
    pub gave_way_ms: f64,
    /// Keys the exact search's visited set moved to its spill file when full (0 when it
    /// did not spill; docs/engine.md, "A visited set on disk").
    #[serde(default)]
    pub spilled_keys: u64,
    /// A search with redeals: its rounds (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<RoundsJson>,
}

/// The solution of `report` as JSON moves when it is `solvable` (`None` otherwise: a
/// finished search without a win stores no solution).
pub fn solution_json(report: &SolveReport) -> Option<Vec<MoveJson>> {
    (report.verdict == Verdict::Solvable).then(|| {
        report
            .solution
            .iter()
            .copied()
            .map(MoveJson::from)
            .collect()
    })
}

/// [`solution_json`] with its redeal steps, when the search redealt.
pub fn solution_steps(report: &SolveReport) -> Option<Vec<StepJson>> {
    let redeal_at = report.rounds.as_ref().map_or(&[][..], |r| &r.redeal_at);
    solution_json(report).map(|moves| steps_json(&moves, redeal_at))
}

/// Moves as steps of a solution without redeals.
pub fn moves_as_steps(moves: Vec<MoveJson>) -> Vec<StepJson> {
    moves.into_iter().map(StepJson::Move).collect()
}

impl From<&SearchStats> for StatsJson {
    fn from(s: &SearchStats) -> Self {
        StatsJson {
            nodes: s.nodes,
            elapsed_ms: s.elapsed.as_secs_f64() * 1e3,
            expanded: s.expanded,
            stored: s.stored,
            replaced: s.replaced,
            tt_hits: s.tt_hits,
            it_cuts: s.it_cuts,
            path_cuts: s.path_cuts,
            reduced: s.reduced,
            dead_cuts: s.dead_cuts,
            max_depth: s.max_depth,
            table_bytes: s.table_bytes,
            nodes_per_second: s.nodes_per_second().round(),
            probes: s.probes,
            blocks: s.blocks,
            threads: 1,
            memory_mb: 0,
            memory_wait_ms: 0.0,
            gave_way_ms: 0.0,
            spilled_keys: s.spilled,
            rounds: None,
        }
    }
}

/// Statistics of a job answered from the known-verdict store: no search ran.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, ToSchema)]
pub struct CachedStats {
    /// Always 0: nothing was searched.
    pub nodes: u64,
    /// Always 0.
    pub elapsed_ms: f64,
    /// Always true.
    pub cached: bool,
    /// The job whose search found the verdict.
    pub answered_by_job: String,
    /// That search's nodes.
    pub original_nodes: i64,
    /// That search's milliseconds.
    pub original_elapsed_ms: f64,
}

/// The statistics of a job: its own search's, or those of the answer it was given.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, ToSchema)]
#[serde(untagged)]
pub enum JobStats {
    /// Answered from the store (tried first: it needs `answered_by_job`, which searched
    /// statistics never have).
    Cached(CachedStats),
    /// Searched.
    Searched(StatsJson),
}

/// One solve as JSON (`gaps solve --json`, one line of `--jsonl`).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct SolveJson {
    /// Canonical position.
    pub position: String,
    /// Variant name.
    pub variant: &'static str,
    /// `solvable`, `unsolvable` or `unknown`.
    pub verdict: &'static str,
    /// Moves from the position to a won one (empty unless solvable), with redeal steps
    /// `{"redeal": k}` between them when the line redeals.
    pub solution: Vec<StepJson>,
    /// Algorithm that produced the verdict.
    pub algorithm: &'static str,
    /// Why the search stopped early (`unknown` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<&'static str>,
    /// Seed of randomised parts.
    pub seed: u64,
    /// Search statistics.
    pub stats: StatsJson,
    /// The PySolFC game solved (`--pysol`), as PySolFC shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pysol: Option<PysolJson>,
    /// The rounds of a solve with redeals (`--redeals`, or a PySolFC game).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<RoundsJson>,
    /// A game in progress (`--played`): where its steps led and the next step.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub played: Option<PlayedJson>,
}

/// What an answer about a game in progress adds to a solve's answer.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, ToSchema)]
pub struct PlayedJson {
    /// Steps played.
    pub played_steps: usize,
    /// The position they reach, canonical (the engine's; a PySolFC game's board is
    /// `played_board`).
    pub played_position: String,
    /// The same on the PySolFC game's board.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub played_board: Option<String>,
    /// Redeals not used yet.
    pub redeals_left: u8,
    /// The first step of `solution` (a solvable answer only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<StepJson>,
    /// The same on the PySolFC game's board.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_hint: Option<StepJson>,
    /// Whether `solution`'s redeals are proved the fewest that win from here.
    pub fewest_redeals: bool,
    /// The moves legal from here, on the board the game is shown on (PySolFC's, for its
    /// games): what may be played next besides a redeal. Empty in answers stored before
    /// it was given.
    #[serde(default)]
    pub legal_moves: Vec<StepJson>,
}

impl SolveJson {
    /// The JSON of `report` for `position` under `variant`.
    pub fn new(position: &Position, variant: Variant, report: &SolveReport) -> Self {
        SolveJson {
            position: format_position(position),
            variant: variant.name(),
            verdict: report.verdict.name(),
            solution: solution_steps(report).unwrap_or_default(),
            algorithm: report.algorithm.name(),
            stopped: report.stopped.map(|s| s.name()),
            seed: report.seed,
            stats: StatsJson {
                threads: report.threads as u64,
                ..StatsJson::from(&report.stats)
            },
            pysol: None,
            rounds: RoundsJson::of(report),
            played: None,
        }
    }
}

/// The 95% Wilson score interval of `successes` out of `n` (fractions; `(0, 1)` for n = 0).
pub use gaps_engine::wilson_95;

/// A Morpion line in its record's format: MSR moves as objects
/// (`{"x", "y", "dir", "pos"}`), Pentasol moves as their text lines.
pub fn morpion_line(
    record: &gaps_engine::morpion::record::Record,
    line: &[gaps_engine::morpion::record::RecordMove],
) -> Vec<serde_json::Value> {
    use gaps_engine::morpion::record::{pentasol_move, RecordFormat};
    line.iter()
        .map(|&m| match record.format {
            RecordFormat::Msr => serde_json::to_value(m).expect("a move serialises"),
            RecordFormat::Pentasol { column, row } => pentasol_move(m, column, row).into(),
        })
        .collect()
}
