//! Morpion endgame proofs: keep the first K moves of a record, search every
//! continuation, report the longest total length and one longest line.
//!
//! Invariants: the record is replayed move by move before anything is searched (an
//! illegal move is an error naming it); the record's own continuation is the first
//! best line (a search cut short still reports at least the record); `proved` is true
//! only when every unit was searched to the end and no list or dot left its buffer;
//! the line returned is replayed from the cross before it is returned.

mod count;
mod estimate;
mod search;
mod split;

pub use count::count_positions;
pub use estimate::{estimate, Estimate};
pub use search::{Found, Method, Searcher, LIST_CAPACITY, MAX_DEPTH};
pub use split::{search_units, Frontier, Unit, UnitResult};

use super::board::{Board, MorpionVariant, Move};
use super::record::{Record, RecordError, RecordMove};
use crate::search::budget::{Budget, StopReason};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Duration;

/// Units a proof is split into per thread (more units balance the threads better;
/// the split costs a walk of the tree above it).
pub const UNITS_PER_THREAD: usize = 64;

/// The settings of one endgame proof.
#[derive(Clone, Debug)]
pub struct EndgameOptions {
    /// How transpositions are handled.
    pub method: Method,
    /// Threads searching units side by side (1: sequential).
    pub threads: usize,
    /// Split depth (`None`: the shallowest with [`UNITS_PER_THREAD`] units a thread).
    pub split_depth: Option<usize>,
    /// The key table of [`Method::Table`], per thread.
    pub table_bytes: usize,
    /// Node limit.
    pub max_nodes: Option<u64>,
    /// Time limit.
    pub time: Option<Duration>,
}

impl Default for EndgameOptions {
    fn default() -> Self {
        EndgameOptions {
            method: Method::Incremental,
            threads: 1,
            split_depth: None,
            table_bytes: 64 << 20,
            max_nodes: None,
            time: None,
        }
    }
}

/// Why an endgame proof was refused.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum EndgameError {
    /// The record does not decode or replay.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// K is beyond the record's length.
    #[error("--from {from} is out of range: the record has {len} moves (K must be 0 to {len})")]
    FromOutOfRange {
        /// The K asked for.
        from: usize,
        /// The record's length.
        len: usize,
    },
}

/// The answer of an endgame proof.
#[derive(Clone, Debug)]
pub struct EndgameReport {
    /// The rule variant.
    pub variant: MorpionVariant,
    /// Moves kept from the record.
    pub from: usize,
    /// The record's length.
    pub record_len: usize,
    /// The longest total length found (the kept moves plus the longest continuation).
    pub best: usize,
    /// One longest continuation (the moves after move K).
    pub line: Vec<RecordMove>,
    /// Positions entered.
    pub nodes: u64,
    /// Whether every continuation was searched (`best` is then the optimum).
    pub proved: bool,
    /// Why the search stopped early.
    pub stop: Option<StopReason>,
    /// Whether a continuation longer than the record's was found.
    pub improved: bool,
    /// The split depth and number of units.
    pub split_depth: usize,
    /// Units searched.
    pub units: usize,
}

/// The board after the first `from` moves of `record` under `variant`.
pub fn prefix(
    record: &Record,
    variant: MorpionVariant,
    from: usize,
) -> Result<Board, EndgameError> {
    let len = record.moves.len();
    if from > len {
        return Err(EndgameError::FromOutOfRange { from, len });
    }
    // The whole record must replay, not only the prefix: its remainder is the first
    // best line. Its moves after K are then taken back.
    let mut board = record.replay(variant, len)?;
    while board.played().len() > from {
        let last = *board.played().last().expect("more than K moves played");
        board.unplay(last);
    }
    Ok(board)
}

/// The split of a proof under `options`: its split depth if given, else none on one
/// thread, else the shallowest with [`UNITS_PER_THREAD`] units a thread.
pub fn split_for(board: &mut Board, options: &EndgameOptions) -> Frontier {
    let threads = options.threads.max(1);
    match options.split_depth {
        Some(depth) => Frontier::at_depth(board, depth, options.method),
        None if threads == 1 => Frontier::at_depth(board, 0, options.method),
        None => Frontier::with_units(board, threads * UNITS_PER_THREAD, options.method),
    }
}

/// Proves the endgame of `record` after move `from`; `cancel` stops it, `counter`
/// advances with the nodes searched.
pub fn prove(
    record: &Record,
    variant: MorpionVariant,
    from: usize,
    options: &EndgameOptions,
    cancel: Option<&AtomicBool>,
    counter: Option<&AtomicU64>,
) -> Result<EndgameReport, EndgameError> {
    let mut board = prefix(record, variant, from)?;
    let frontier = split_for(&mut board, options);
    let done = vec![None; frontier.units.len()];
    let (results, stop) = search_frontier(
        &board,
        &frontier,
        options,
        done,
        cancel,
        counter,
        &|_, _| {},
    );
    Ok(conclude(
        record, variant, from, &board, &frontier, &results, stop,
    ))
}

/// Searches the units of `frontier` below `board` not already in `done`, under the
/// limits, method, threads and table of `options` (its split depth is the frontier's):
/// every unit's result and why the search stopped early. `finished(i, &result)` is
/// called as each unit ends whole (for a resumable record of them).
pub fn search_frontier(
    board: &Board,
    frontier: &Frontier,
    options: &EndgameOptions,
    done: Vec<Option<UnitResult>>,
    cancel: Option<&AtomicBool>,
    counter: Option<&AtomicU64>,
    finished: &(dyn Fn(usize, &UnitResult) + Sync),
) -> (Vec<Option<UnitResult>>, Option<StopReason>) {
    let budget = Budget::new(options.max_nodes, options.time, cancel);
    search_units(
        board,
        frontier,
        options.method,
        options.threads.max(1),
        options.table_bytes,
        &budget,
        done,
        counter,
        finished,
    )
}

/// Searches unit `index` of `frontier` below `board` alone, on one thread, under the
/// limits of `options` (its threads are not used): the work of one node of a proof
/// shared between nodes. Its result and why it stopped early.
pub fn search_unit(
    board: &Board,
    frontier: &Frontier,
    index: usize,
    options: &EndgameOptions,
    cancel: Option<&AtomicBool>,
    counter: Option<&AtomicU64>,
) -> (UnitResult, Option<StopReason>) {
    // Every other unit counts as done, so the walk over the units searches this one.
    let placeholder = UnitResult {
        nodes: 0,
        line: Vec::new(),
        complete: true,
    };
    let mut done = vec![Some(placeholder); frontier.units.len()];
    done[index] = None;
    let one = EndgameOptions {
        threads: 1,
        ..options.clone()
    };
    let (mut results, stop) =
        search_frontier(board, frontier, &one, done, cancel, counter, &|_, _| {});
    let result = results[index].take().expect("the unit was searched");
    (result, stop)
}

/// The report of a proof from its frontier and unit results (some possibly from
/// earlier runs): the longest line among the record's, the frontier's and the units'.
pub fn conclude(
    record: &Record,
    variant: MorpionVariant,
    from: usize,
    board: &Board,
    frontier: &Frontier,
    results: &[Option<UnitResult>],
    stop: Option<StopReason>,
) -> EndgameReport {
    let mut nodes = frontier.nodes;
    let mut best: Vec<Move> = frontier.line.clone();
    let mut complete = !frontier.truncated && !board.overflowed();
    for result in results {
        match result {
            Some(r) => {
                nodes += r.nodes;
                complete &= r.complete;
                if r.line.len() > best.len() {
                    best = r.line.clone();
                }
            }
            None => complete = false,
        }
    }
    let recorded = &record.moves[from..];
    let improved = best.len() > recorded.len();
    let line: Vec<RecordMove> = if improved {
        best.iter().map(|&m| RecordMove::from(m)).collect()
    } else {
        recorded.to_vec()
    };
    let mut whole = record.moves[..from].to_vec();
    whole.extend_from_slice(&line);
    let check = Record {
        moves: whole,
        ..record.clone()
    };
    check
        .replay(variant, check.moves.len())
        .expect("a line found by the search replays from the cross");
    EndgameReport {
        variant,
        from,
        record_len: record.moves.len(),
        best: from + line.len(),
        line,
        nodes,
        proved: complete && stop.is_none(),
        stop,
        improved,
        split_depth: frontier.depth,
        units: frontier.units.len(),
    }
}
