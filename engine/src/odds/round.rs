//! One round as the odds see it: whether it is won without a redeal, and its redeal
//! points, one per distinct redeal.
//!
//! Invariants: a round is `Won` only with a line that plays from its start to a won
//! position; it is `Lost` only when the solver proved it (an exhaustive search); its
//! points are positions reached in the round where the variant allows a redeal
//! (`redeal_allowed_at`), one for each distinct set of runs (under a sampled stream a
//! redeal depends on the runs alone: `RedealStream::sampled`), in [`point_order`] (most
//! cards kept first); `complete` says that every position of the round was
//! enumerated, so that the points are every distinct redeal the round offers.

use crate::card::{Card, MAX_RANKS, MAX_SUITS};
use crate::moves::{Move, MoveList};
use crate::position::{Position, MAX_MOVES};
use crate::redeal::{kept_cards, redeal_allowed_at, run_length};
use crate::search::budget::{Budget, StopReason};
use crate::solve::{SolveError, SolveOptions, Solver, Verdict};
use crate::tuning::CHECK_INTERVAL;
use crate::variant::Variant;
use crate::zobrist::Key;
use std::collections::{BinaryHeap, HashMap};

/// What the round's own search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum RoundVerdict {
    /// Won without a redeal, by this line.
    Won(Vec<Move>),
    /// Proved lost without a redeal.
    Lost,
    /// Not decided within the round's allowance.
    Open,
}

/// A position of the round where a redeal may be taken.
#[derive(Clone, Debug)]
pub(super) struct Point {
    /// The moves from the round's start to it.
    pub line: Vec<Move>,
    /// The position.
    pub position: Position,
    /// Cards its redeal keeps in place.
    pub kept: usize,
}

/// One round, analysed.
#[derive(Clone, Debug)]
pub(super) struct Round {
    pub verdict: RoundVerdict,
    /// Its distinct redeals, best first (empty when no redeal is left or it is won).
    pub points: Vec<Point>,
    /// Every position of the round was enumerated for its points.
    pub complete: bool,
    /// Nodes searched.
    pub nodes: u64,
}

/// The limits of one round's analysis.
#[derive(Clone, Copy, Debug)]
pub(super) struct RoundLimits {
    /// Nodes of the round's own search.
    pub nodes: u64,
    /// Positions enumerated for its redeal points.
    pub points: usize,
}

/// Analyses the round from `start` with `left` redeals still to come: its own search
/// (within `limits.nodes` and `budget`), then, when it is not won and a redeal is
/// left, its redeal points. `Ok(Err(reason))`: a limit of the whole answer (`budget`,
/// of which `spent` nodes are used) ended it first.
pub(super) fn analyse(
    solver: &mut Solver,
    options: &SolveOptions,
    start: &Position,
    left: u8,
    limits: RoundLimits,
    budget: &Budget,
    spent: u64,
) -> Result<Result<Round, StopReason>, SolveError> {
    let variant = options.variant;
    let mut round = Round {
        verdict: RoundVerdict::Open,
        points: Vec::new(),
        complete: false,
        nodes: 0,
    };
    if start.is_won(variant) {
        round.verdict = RoundVerdict::Won(Vec::new());
        return Ok(Ok(round));
    }
    if let Some(reason) = budget.exhausted(spent) {
        return Ok(Err(reason));
    }
    let allowance = limits.nodes.min(budget.after(spent).max_nodes());
    let own = SolveOptions {
        max_nodes: Some(allowance),
        time_limit: budget.time_left(),
        ..*options
    };
    let report = solver.solve(start, &own, None)?;
    round.nodes += report.stats.nodes;
    round.verdict = match report.verdict {
        Verdict::Solvable => RoundVerdict::Won(report.solution),
        Verdict::Unsolvable => RoundVerdict::Lost,
        Verdict::Unknown => RoundVerdict::Open,
    };
    if let Some(reason) = budget.exhausted(spent + round.nodes) {
        if !matches!(round.verdict, RoundVerdict::Won(_)) {
            return Ok(Err(reason));
        }
    }
    if left == 0 || matches!(round.verdict, RoundVerdict::Won(_)) {
        return Ok(Ok(round));
    }
    let points_budget = budget.after(spent + round.nodes);
    let found = enumerate_points(start, variant, limits.points.max(1), &points_budget);
    round.nodes += found.nodes;
    match found.end {
        PointsEnd::Won(line) => {
            round.verdict = RoundVerdict::Won(line);
            return Ok(Ok(round));
        }
        PointsEnd::Complete => round.complete = true,
        PointsEnd::Full => {}
        PointsEnd::Stopped(reason) => return Ok(Err(reason)),
    }
    round.points = found.points;
    Ok(Ok(round))
}

/// How an enumeration of a round's points ended.
enum PointsEnd {
    /// A won position was reached, by this line.
    Won(Vec<Move>),
    /// Every position of the round was reached.
    Complete,
    /// The entry cap was reached first.
    Full,
    /// A limit of the whole answer.
    Stopped(StopReason),
}

/// The points of a round, and how its enumeration ended.
struct Points {
    points: Vec<Point>,
    end: PointsEnd,
    nodes: u64,
}

/// A position waiting to be expanded: most cards kept first, then the earliest reached.
struct Open {
    kept: u8,
    index: u32,
    position: Position,
}

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl Eq for Open {}
impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Open {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.kept, std::cmp::Reverse(self.index))
            .cmp(&(other.kept, std::cmp::Reverse(other.index)))
    }
}

/// Reaches the positions of the round from `start`, at most `max_entries`, expanding
/// the one keeping the most cards first (so that a part of a large round holds its
/// best redeals, and a won position, which keeps every card, is met early), each once
/// under its key; stops at a won one. Its points: one per distinct set of runs where a
/// redeal is allowed, ordered by [`point_order`].
fn enumerate_points(
    start: &Position,
    variant: Variant,
    max_entries: usize,
    budget: &Budget,
) -> Points {
    // Entry `i`: the entry it was reached from and by which move (entry 0: the start).
    let mut entries: Vec<(u32, Move)> = vec![(u32::MAX, Move::default())];
    let mut index: HashMap<Key, u32> = HashMap::from([(start.key(), 0)]);
    let mut open = BinaryHeap::from([Open {
        kept: kept_cards(start, variant) as u8,
        index: 0,
        position: *start,
    }]);
    let mut best: HashMap<Runs, u32> = HashMap::new();
    let mut moves = MoveList::<MAX_MOVES>::default();
    let mut nodes = 0u64;
    let line_to = |entries: &[(u32, Move)], mut at: u32| {
        let mut line = Vec::new();
        while at != 0 {
            let (parent, mv) = entries[at as usize];
            line.push(mv);
            at = parent;
        }
        line.reverse();
        line
    };
    let end = loop {
        let Some(Open {
            index: at,
            position,
            ..
        }) = open.pop()
        else {
            break PointsEnd::Complete;
        };
        if position.is_won(variant) {
            break PointsEnd::Won(line_to(&entries, at));
        }
        nodes += 1;
        if nodes.is_multiple_of(CHECK_INTERVAL) {
            if let Some(reason) = budget.exhausted(nodes) {
                break PointsEnd::Stopped(reason);
            }
        }
        if redeal_allowed_at(&position, variant) {
            best.entry(runs_of(&position, variant)).or_insert(at);
        }
        position.legal_moves(variant, &mut moves);
        let mut full = false;
        for &m in moves.as_slice() {
            let key = position.key_after(m);
            if index.contains_key(&key) {
                continue;
            }
            if entries.len() >= max_entries {
                full = true;
                break;
            }
            let mut child = position;
            child.play(m);
            let child_index = entries.len() as u32;
            index.insert(key, child_index);
            entries.push((at, m));
            open.push(Open {
                kept: kept_cards(&child, variant) as u8,
                index: child_index,
                position: child,
            });
        }
        if full {
            break PointsEnd::Full;
        }
    };
    // An unexpanded position is a point too: its redeal needs no expansion. Under
    // `aisleriot` it is a point only with no move left, which `redeal_allowed_at` reads.
    if !matches!(end, PointsEnd::Won(_)) {
        for left in open.into_vec() {
            if redeal_allowed_at(&left.position, variant) {
                best.entry(runs_of(&left.position, variant))
                    .and_modify(|at| *at = (*at).min(left.index))
                    .or_insert(left.index);
            }
        }
    }
    let mut points: Vec<(Runs, Point)> = best
        .into_iter()
        .map(|(runs, at)| {
            let line = line_to(&entries, at);
            let mut position = *start;
            for &m in &line {
                position.play(m);
            }
            let kept = kept_cards(&position, variant);
            (
                runs,
                Point {
                    line,
                    position,
                    kept,
                },
            )
        })
        .collect();
    points.sort_by(|a, b| point_order((a.1.kept, &a.0), (b.1.kept, &b.0)));
    Points {
        points: points.into_iter().map(|(_, point)| point).collect(),
        end,
        nodes,
    }
}

/// The order of a round's points, which the strategy behind the lower bound takes the
/// first of: most cards kept, then the smaller runs (cell by cell, as `Option<Card>`
/// orders them). Both are read off the runs alone, so the choice does not depend on
/// the order in which the round was searched (the exact odds make the same one).
pub(super) fn point_order(a: (usize, &Runs), b: (usize, &Runs)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1))
}

/// Run cells of a position, the rest `None`: what a sampled redeal depends on.
pub(super) type Runs = [Option<Card>; MAX_SUITS * MAX_RANKS];

/// The cards of `pos`'s runs, cell by cell (the rest `None`): what a sampled redeal
/// depends on.
pub(super) fn runs_of(pos: &Position, variant: Variant) -> Runs {
    let mut cells = [None; MAX_SUITS * MAX_RANKS];
    let layout = pos.layout();
    for row in 0..layout.suits() {
        for col in 0..run_length(pos, variant, row) {
            cells[row * MAX_RANKS + col] = pos.at(row, col);
        }
    }
    cells
}
