//! One endgame proof split into independent subtrees (units), searched on threads.
//!
//! `dfs_it`'s T at a node depends only on the path to it (the moves before it in its
//! ancestors' lists), not on what the search found, so the nodes at a fixed depth, each
//! with its own T, are independent units: searched in any order, on any thread or
//! machine, they enter exactly the positions the sequential search enters. So the
//! node count of a split proof equals the sequential one, and the units of a record,
//! a prefix length and a split depth are numbered the same way every time (that
//! number is what resumable runs and shared batches store).
//!
//! Invariants: the frontier's own nodes (depth below the split) are counted once, in
//! [`Frontier::nodes`]; a unit counts its root. A unit's result is kept only whole.

use super::search::{child_list, Found, Method, Searcher, LIST_CAPACITY};
use crate::morpion::board::{Board, Move};
use crate::search::budget::{Budget, StopReason};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// One subtree: the moves from the split root to it, its legal moves and its T.
#[derive(Clone, Debug)]
pub struct Unit {
    /// The moves from the root of the split to the unit's root.
    pub path: Vec<Move>,
    /// The unit root's legal moves, in the sequential search's order.
    pub moves: Vec<Move>,
    /// Bit `i`: `moves[i]` leads to a position searched in an earlier unit.
    pub known: u128,
}

/// The nodes above the split depth and the units below.
#[derive(Clone, Debug, Default)]
pub struct Frontier {
    /// The split depth.
    pub depth: usize,
    /// The units, in the sequential search's order.
    pub units: Vec<Unit>,
    /// Nodes entered above the split depth (the root included).
    pub nodes: u64,
    /// The longest line ending above the split depth.
    pub line: Vec<Move>,
    /// A list above the split outgrew its buffer (no proof).
    pub truncated: bool,
}

impl Frontier {
    /// The units at `depth` below `board` (under `method`: `Plain` keeps no T).
    pub fn at_depth(board: &mut Board, depth: usize, method: Method) -> Frontier {
        let mut moves = board.legal_moves();
        // Lists hold at most LIST_CAPACITY moves (T is a 128-bit mask): no proof beyond.
        let truncated = moves.len() > LIST_CAPACITY;
        moves.truncate(LIST_CAPACITY);
        let mut frontier = Frontier {
            depth,
            truncated,
            ..Frontier::default()
        };
        let mut path = Vec::new();
        walk(board, &moves, 0, depth, method, &mut path, &mut frontier);
        frontier
    }

    /// The shallowest split (at most 8 deep) with at least `units` units, or the
    /// deepest tried when the tree is too small.
    pub fn with_units(board: &mut Board, units: usize, method: Method) -> Frontier {
        let mut frontier = Frontier::at_depth(board, 0, method);
        for depth in 1..=8 {
            if frontier.units.len() >= units || frontier.units.is_empty() {
                break;
            }
            frontier = Frontier::at_depth(board, depth, method);
        }
        frontier
    }
}

fn walk(
    board: &mut Board,
    moves: &[Move],
    known: u128,
    depth: usize,
    method: Method,
    path: &mut Vec<Move>,
    frontier: &mut Frontier,
) {
    if depth == 0 {
        frontier.units.push(Unit {
            path: path.clone(),
            moves: moves.to_vec(),
            known,
        });
        return;
    }
    frontier.nodes += 1;
    if path.len() > frontier.line.len() {
        frontier.line = path.clone();
    }
    let mut known = known;
    for (i, &m) in moves.iter().enumerate() {
        if known >> i & 1 != 0 {
            continue;
        }
        board.play(m);
        let mut child = vec![Move::default(); LIST_CAPACITY];
        let (len, child_known, complete) = child_list(board, moves, known, i, &mut child);
        child.truncate(len);
        frontier.truncated |= !complete;
        path.push(m);
        walk(
            board,
            &child,
            child_known,
            depth - 1,
            method,
            path,
            frontier,
        );
        path.pop();
        board.unplay(m);
        if method == Method::Incremental {
            known |= 1 << i;
        }
    }
}

/// What a unit's search found, its line starting at the split root.
#[derive(Clone, Debug)]
pub struct UnitResult {
    /// Positions entered in the unit.
    pub nodes: u64,
    /// The longest line found through the unit, from the split root.
    pub line: Vec<Move>,
    /// Whether the unit was searched to the end.
    pub complete: bool,
}

/// Searches the units not already in `done` (`done[i]` holds unit `i`'s result if it
/// was searched before) on `threads` threads, calling `finished(i, &result)` as each
/// ends whole; returns every unit's result (`None`: not searched; a unit cut short by
/// the budget is kept, not complete, for its line) and why the search stopped early. `counter` advances with the nodes searched.
#[allow(clippy::too_many_arguments)]
pub fn search_units(
    base: &Board,
    frontier: &Frontier,
    method: Method,
    threads: usize,
    table_bytes: usize,
    budget: &Budget<'_>,
    done: Vec<Option<UnitResult>>,
    counter: Option<&AtomicU64>,
    finished: &(dyn Fn(usize, &UnitResult) + Sync),
) -> (Vec<Option<UnitResult>>, Option<StopReason>) {
    let threads = threads.max(1);
    let results = Mutex::new(done);
    let next = AtomicUsize::new(0);
    let halt = AtomicBool::new(false);
    let stop = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let share = budget.shared_by(threads, 0, &halt);
                let mut searcher = Searcher::new(if method == Method::Table {
                    table_bytes.max(8)
                } else {
                    0
                });
                let mut board = base.clone();
                let mut spent = 0u64;
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(unit) = frontier.units.get(index) else {
                        break;
                    };
                    if results.lock().expect("no thread panics holding it")[index].is_some() {
                        continue;
                    }
                    for &m in &unit.path {
                        board.play(m);
                    }
                    let unit_budget = share.after(spent);
                    let found: Found = searcher.search(
                        &mut board,
                        &unit.moves,
                        unit.known,
                        method,
                        &unit_budget,
                        counter,
                    );
                    for &m in unit.path.iter().rev() {
                        board.unplay(m);
                    }
                    spent += found.nodes;
                    let mut line = unit.path.clone();
                    line.extend_from_slice(&found.line);
                    let result = UnitResult {
                        nodes: found.nodes,
                        line,
                        complete: found.complete(),
                    };
                    let stopped = found.stop;
                    if result.complete {
                        finished(index, &result);
                    }
                    results.lock().expect("no thread panics holding it")[index] = Some(result);
                    if let Some(reason) = stopped {
                        // The first reason is the real one: the others are the halt.
                        stop.lock()
                            .expect("no thread panics holding it")
                            .get_or_insert(reason);
                        halt.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            });
        }
    });
    let stop = stop.into_inner().expect("the threads have ended");
    (results.into_inner().expect("the threads have ended"), stop)
}
