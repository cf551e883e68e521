//! Solving with redeals: a search over rounds, each round searched by the solver's own
//! algorithms, and the redeal points of a round taken from its whole reachable set.
//!
//! A round with `k` redeals left:
//! 1. The round itself is solved (the request's algorithm, at most half the round's
//!    nodes and, at the top, an eighth of the time, [`FIRST_ROUND_SHARE`]): a win is
//!    the answer.
//! 2. With `k > 0`, the positions reachable in the round are enumerated
//!    ([`RoundTree`]: no pruning, each position once); each is a redeal point where the
//!    variant allows one (`redeal_allowed_at`: anywhere under PySolFC's rule, only where
//!    no move is left under Aisleriot's), and its redeal gives the start of the next
//!    round, solved the same way with `k - 1`. This goes in stages: each enumerates 16 times more of the round (up to the
//!    memory limit, or all of it) and gives each point 4 times more nodes, and tries
//!    its points best first (most cards kept). So good points of a large round are
//!    tried before the whole round is known, and easy next rounds are found before hard
//!    ones are searched long; a next round proved lost is not searched again.
//!
//! Invariant (why `unsolvable` is exact): a round answers lost only when `k = 0` and
//! its exhaustive search proved the loss, or when its enumeration was complete (every
//! reachable position, none won) and the next round of every one of them was answered
//! lost. PySolFC lets the player redeal at any position reached, Aisleriot at any
//! position reached with no move left, so those are all the lines with at most `k`
//! redeals. Anything short of that (a cap, the entry limit, a limit of the request) is
//! `unknown`. Every win is replayed with its redeals
//! ([`verify_with_redeals`]) before it is returned.

use super::{SolveControls, SolveError, SolveOptions, SolveReport, Solver, Verdict};
use crate::moves::Step;
use crate::position::Position;
use crate::redeal::{redeal, redeal_allowed_at, RedealStream, Redeals, Redealt};
use crate::replay::replay_with_redeals;
use crate::search::budget::Budget;
use crate::search::budget::StopReason;
use crate::search::rounds::{RoundTree, TreeEnd, BYTES_PER_ENTRY};
use crate::search::stats::SearchStats;
use crate::tuning::FIRST_ROUND_SHARE;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What a solve with redeals found about its rounds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundsReport {
    /// Redeals allowed.
    pub redeals: u8,
    /// For a solution: redeal `k + 1` comes after its first `redeal_at[k]` moves.
    pub redeal_at: Vec<usize>,
    /// What the search of the first round alone found (`unknown` if it was not decided
    /// before the search went on to redeals).
    pub first_round: Option<Verdict>,
    /// Redeal points tried (positions of a round whose redeal was searched).
    pub redeal_points: u64,
    /// Distinct next rounds proved lost.
    pub lost_rounds: u64,
    /// For a solution: what each of its redeals did (the cards gathered, the position
    /// dealt), from the replay that checked it.
    pub redealt: Vec<Redealt>,
}

impl RoundsReport {
    /// Rounds the solution plays (1 + its redeals).
    pub fn rounds_used(&self) -> usize {
        self.redeal_at.len() + 1
    }
}

/// Node cap per redeal point in the first stage of a round's redeal points.
const FIRST_POINT_CAP: u64 = 20_000;
/// How many grows the cap per point from one stage to the next.
const CAP_GROWTH: u64 = 4;
/// Positions of the round enumerated in the first stage.
const FIRST_STAGE_ENTRIES: usize = 1 << 14;
/// How many more positions each next stage enumerates.
const ENTRY_GROWTH: usize = 16;

/// How a round ended.
enum RoundEnd {
    Won(Vec<Step>),
    /// Proved lost (see the invariant).
    Lost,
    /// Not decided within the round's own allowance.
    Open,
    /// A limit of the whole request: stop everything.
    Stopped(StopReason),
}

/// The limits and counts of one solve over rounds.
struct Run<'a> {
    options: SolveOptions,
    /// The whole request's limits (nodes counted over every round's searches); its
    /// node count is `nodes`.
    budget: Budget<'a>,
    /// The caller's controls, for the searches the rounds run (progress is published
    /// here, over all of them).
    controls: SolveControls<'a>,
    max_entries: usize,
    nodes: u64,
    stats: SearchStats,
    report: RoundsReport,
}

impl Run<'_> {
    fn stop(&self) -> Option<StopReason> {
        self.budget.exhausted(self.nodes)
    }

    fn count(&mut self, nodes: u64) {
        self.nodes += nodes;
        if let Some(p) = self.controls.progress {
            p.store(self.nodes, Ordering::Relaxed);
        }
    }
}

impl Solver {
    /// Solves `start` with up to `redeals.count` redeals (module doc), within the limits
    /// of `options` for the whole search. The report's `rounds` says where the solution
    /// redeals; its `solution` holds the moves of every round in order.
    pub fn solve_with_redeals(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        redeals: &Redeals,
        cancel: Option<&AtomicBool>,
        progress: Option<&AtomicU64>,
    ) -> Result<SolveReport, SolveError> {
        let controls = SolveControls {
            cancel,
            progress,
            ..SolveControls::default()
        };
        self.solve_rounds(start, options, redeals, controls)
    }

    /// [`Solver::solve_with_redeals`] under `controls` (through
    /// [`Solver::solve_controlled`]).
    pub(super) fn solve_rounds(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        redeals: &Redeals,
        controls: SolveControls<'_>,
    ) -> Result<SolveReport, SolveError> {
        if redeals.count == 0 {
            let mut report = self.solve_first_round(start, options, controls)?;
            report.rounds = Some(RoundsReport {
                first_round: Some(report.verdict),
                ..RoundsReport::default()
            });
            return Ok(report);
        }
        let began = Instant::now();
        // A quarter of the memory for the enumerations, the rest for the rounds' searches.
        let memory = options.memory_limit.unwrap_or(self.table_bytes());
        let mut run = Run {
            options: SolveOptions {
                memory_limit: options.memory_limit.map(|m| m - m / 4),
                ..*options
            },
            budget: Budget::new(options.max_nodes, options.time_limit, controls.cancel)
                .with_pause(controls.pause),
            controls,
            max_entries: (memory / 4 / BYTES_PER_ENTRY).max(1),
            nodes: 0,
            stats: SearchStats::default(),
            report: RoundsReport {
                redeals: redeals.count,
                ..RoundsReport::default()
            },
        };
        let end = self.round(
            &mut run,
            start,
            &redeals.stream,
            redeals.count,
            u64::MAX,
            true,
        )?;
        let mut stats = run.stats;
        stats.nodes = run.nodes;
        stats.elapsed = began.elapsed();
        let (verdict, solution, stopped) = match end {
            RoundEnd::Won(line) => {
                let mut moves = Vec::new();
                for step in line {
                    match step {
                        Step::Move(m) => moves.push(m),
                        Step::Redeal => run.report.redeal_at.push(moves.len()),
                    }
                }
                let (_, redealt) = replay_with_redeals(
                    start,
                    options.variant,
                    &redeals.stream,
                    redeals.count,
                    &moves,
                    &run.report.redeal_at,
                )
                .map_err(SolveError::InvalidSolution)?;
                run.report.redealt = redealt;
                (Verdict::Solvable, moves, None)
            }
            RoundEnd::Lost => (Verdict::Unsolvable, Vec::new(), None),
            RoundEnd::Open => (Verdict::Unknown, Vec::new(), Some(StopReason::MemoryLimit)),
            RoundEnd::Stopped(reason) => (Verdict::Unknown, Vec::new(), Some(reason)),
        };
        Ok(SolveReport {
            verdict,
            solution,
            stats,
            algorithm: options.algorithm,
            stopped,
            seed: options.seed,
            dfs: options.dfs,
            threads: options.threads,
            rounds: Some(run.report),
        })
    }

    /// One round from `start` with `left` redeals, within `allowance` nodes.
    fn round(
        &mut self,
        run: &mut Run,
        start: &Position,
        stream: &RedealStream,
        left: u8,
        allowance: u64,
        top: bool,
    ) -> Result<RoundEnd, SolveError> {
        let variant = run.options.variant;
        let began = run.nodes;
        // 1. The round itself.
        let own = if left == 0 { allowance } else { allowance / 2 };
        let time = (top && left > 0)
            .then(|| run.budget.time_left().map(|left| left / FIRST_ROUND_SHARE))
            .flatten();
        let first = self.solve_round(run, start, own, time)?;
        if top {
            run.report.first_round = Some(match &first {
                RoundEnd::Won(_) => Verdict::Solvable,
                RoundEnd::Lost => Verdict::Unsolvable,
                _ => Verdict::Unknown,
            });
        }
        match first {
            RoundEnd::Won(_) | RoundEnd::Stopped(_) => return Ok(first),
            _ if left == 0 => return Ok(first),
            _ => {}
        }
        if let Some(reason) = run.stop() {
            return Ok(RoundEnd::Stopped(reason));
        }
        // 2. Its positions, as redeal points, in stages: a larger part of the round
        //    and a larger node cap per point each time.
        let spent = |run: &Run| run.nodes - began;
        let mut tried: HashMap<u128, Option<u64>> = HashMap::new();
        let mut entries = FIRST_STAGE_ENTRIES;
        let mut cap = FIRST_POINT_CAP;
        loop {
            let room = allowance.saturating_sub(spent(run));
            let budget = run.budget.after(run.nodes).capped(room);
            let most = entries.min(run.max_entries);
            let (tree, end, nodes) = RoundTree::build(start, variant, most, &budget);
            run.count(nodes);
            let complete = match end {
                TreeEnd::Won(at) => {
                    let line = tree.line_to(at).into_iter().map(Step::Move).collect();
                    return Ok(RoundEnd::Won(line));
                }
                TreeEnd::Complete => true,
                TreeEnd::Stopped(StopReason::MemoryLimit) => false,
                TreeEnd::Stopped(StopReason::NodeLimit) if run.stop().is_none() => {
                    return Ok(RoundEnd::Open);
                }
                TreeEnd::Stopped(reason) => {
                    return Ok(RoundEnd::Stopped(run.stop().unwrap_or(reason)))
                }
            };
            let mut open = false;
            for at in tree.candidates() {
                if let Some(reason) = run.stop() {
                    return Ok(RoundEnd::Stopped(reason));
                }
                let room = allowance.saturating_sub(spent(run));
                if room == 0 {
                    return Ok(RoundEnd::Open);
                }
                let point = tree.position(start, at);
                if !redeal_allowed_at(&point, variant) {
                    continue;
                }
                let mut next_stream = stream.clone();
                let Some(next) = redeal(&point, variant, &mut next_stream) else {
                    continue;
                };
                match tried.get(&next.key()) {
                    Some(None) => continue, // lost
                    Some(Some(c)) if *c >= cap.min(room) => {
                        // open at this cap already
                        open = true;
                        continue;
                    }
                    _ => {}
                }
                run.report.redeal_points += 1;
                let this_cap = cap.min(room);
                match self.round(run, &next, &next_stream, left - 1, this_cap, false)? {
                    RoundEnd::Won(rest) => {
                        let mut line: Vec<Step> =
                            tree.line_to(at).into_iter().map(Step::Move).collect();
                        line.push(Step::Redeal);
                        line.extend(rest);
                        return Ok(RoundEnd::Won(line));
                    }
                    RoundEnd::Lost => {
                        tried.insert(next.key(), None);
                        run.report.lost_rounds += 1;
                    }
                    RoundEnd::Open => {
                        tried.insert(next.key(), Some(this_cap));
                        open = true;
                    }
                    stopped @ RoundEnd::Stopped(_) => return Ok(stopped),
                }
            }
            if complete && !open {
                return Ok(RoundEnd::Lost);
            }
            let room = allowance.saturating_sub(spent(run));
            let grows = (!complete && most < run.max_entries) || (open && cap < room);
            if !grows {
                return Ok(RoundEnd::Open);
            }
            entries = entries.saturating_mul(ENTRY_GROWTH);
            cap = cap.saturating_mul(CAP_GROWTH);
        }
    }

    /// The round's own search: the request's algorithm within `nodes` (and `time`).
    fn solve_round(
        &mut self,
        run: &mut Run,
        start: &Position,
        nodes: u64,
        time: Option<Duration>,
    ) -> Result<RoundEnd, SolveError> {
        if let Some(reason) = run.stop() {
            return Ok(RoundEnd::Stopped(reason));
        }
        let left = run.budget.time_left();
        let options = SolveOptions {
            max_nodes: Some(nodes.min(run.budget.after(run.nodes).max_nodes())),
            time_limit: match (left, time) {
                (Some(l), Some(t)) => Some(l.min(t)),
                (l, t) => l.or(t),
            },
            ..run.options
        };
        let controls = SolveControls {
            progress: None,
            ..run.controls
        };
        let report = self.solve_first_round(start, &options, controls)?;
        run.count(report.stats.nodes);
        run.stats.absorb(&report.stats);
        Ok(match report.verdict {
            Verdict::Solvable => {
                RoundEnd::Won(report.solution.into_iter().map(Step::Move).collect())
            }
            Verdict::Unsolvable => RoundEnd::Lost,
            Verdict::Unknown => match run.stop() {
                Some(reason) => RoundEnd::Stopped(reason),
                None => RoundEnd::Open,
            },
        })
    }
}
