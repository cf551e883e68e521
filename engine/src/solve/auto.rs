//! The `auto` portfolio on `common`: searches within one set of limits that return the
//! first exact verdict.
//!
//! On one thread, or with a long time limit, a chain:
//! 1. Iterative sampling: wins are frequent and random probes find them fast.
//! 2. The `basic` search under each suit assignment, capped by
//!    [`AUTO_ASSIGNMENT_CAPS`]: it finds wins whose random probes are rare.
//! 3. Breadth-first search with a probe per node, which also proves small spaces lost,
//!    within at most [`AUTO_HYBRID_BYTES`], or [`AUTO_HYBRID_BYTES_LONG`] when the time
//!    limit is long (more memory only delays the next phase).
//! 4. If that fills its memory, the exact search (`search::exact`: settled positions
//!    by depth-first search, the rest in an exact visited set) with the rest of the
//!    limits, the whole memory budget and the request's threads.
//! 5. If that fills its memory too, the depth-first search with a replacing table,
//!    which needs no more memory and may still find a win or prove the loss.
//!
//! On several threads with a time limit of at most [`SIDE_BY_SIDE_MAX`], side by side:
//! phases 1-3 on this thread (the finders), and from the start the exact search on the
//! other threads (the prover), which proves losses whose part before column 0 settles
//! is small and finds the wins that lie early in its depth-first order; the first of
//! the two to reach a verdict halts the other. The breadth-first phase takes at most
//! [`AUTO_HYBRID_BYTES`] and at most half the memory budget, the exact search the rest,
//! so the two together stay within the budget. If the finders end without a verdict
//! (their memory full), this thread joins the exact search, taking part of the other
//! threads' work (`search::exact::search_joined`), so nothing done is lost. If the
//! exact search fills its memory, phase 5 follows once the finders are done. Which side
//! is first decides which solution is returned; both are exact, so never the verdict. With a longer time limit (or none) the chain runs instead, on
//! every thread: helper threads make the breadth-first phase's probes, and the exact
//! search runs on all of them.
//!
//! Invariant: the chain moves on only past a phase that ended [`Outcome::NoWin`] (the
//! first two, which never prove a loss) or that ran out of memory (the third and
//! fourth); any other end (a win, a proof, a limit, a cancel) is the answer, so
//! `unsolvable` can only come from an exhausted breadth-first, exact or depth-first
//! search.

use super::algorithms::run_exact;
use super::{Algorithm, SolveOptions, Solver};
use crate::deal::SplitMix64;
use crate::position::Position;
use crate::search::budget::{Budget, StopReason};
use crate::search::hybrid::HybridSearch;
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use std::sync::atomic::{AtomicBool, Ordering};

/// Probes of the sampling phase of `auto` on `common` when the request names none.
pub const AUTO_PROBES: u64 = 100_000;

/// Most memory of the breadth-first phase of `auto` on `common` (10.1M positions): on
/// 4x13 deals 0..999 at 10 s per deal its median decision took about a second.
pub const AUTO_HYBRID_BYTES: usize = 256 << 20;

/// Most memory of the chain's breadth-first phase when the time limit is over
/// [`SIDE_BY_SIDE_MAX`] (or there is none), where the exact search that follows has
/// time to prove what a larger phase would. On a hard 4x13 deal the phase fills 128
/// MiB in 2.7 s against 7.0 s for [`AUTO_HYBRID_BYTES`] (deal 747, two threads). At
/// 60 s a deal, 64 MiB (1.4 s) still decided all 149 of deals 0..999 that breadth-first
/// search decides at 10 s (the longest, by the exact search, in 19.3 s), but lost deal
/// 570, which breadth-first search wins after 121M positions (4.7 s with 128 MiB).
pub const AUTO_HYBRID_BYTES_LONG: usize = 128 << 20;

/// Node limits of a suit-assignment search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssignmentCaps {
    /// Most nodes for one assignment.
    pub per_assignment: u64,
    /// Most nodes for all of them.
    pub total: u64,
}

/// The assignment phase of `auto` on `common`: on 4x13 deals 0..99 an uncapped search
/// of all 24 assignments took a median 0.6M nodes and at most 25M; these caps keep the
/// phase under about two seconds, leaving the rest to breadth-first search.
pub const AUTO_ASSIGNMENT_CAPS: AssignmentCaps = AssignmentCaps {
    per_assignment: 1 << 20,
    total: 24 << 20,
};

/// The longest time limit under which `auto` on several threads runs its finders
/// beside the exact search. On 4x13 deals 0..999 at 10 s (two threads), side by side
/// decides 890 and the chain 878: the exact search proves small losses from the start.
/// On hard deals with a long limit the chain is faster (deals 24 and 56, lost, 180 s:
/// 39.7 s and 39.6 s against 46.5 s and 42.6 s side by side with the finders cut at
/// 10 s, and 55 s with the finders run to the end): its breadth-first phase fills its
/// memory sooner with a probe thread, and its exact search then has both threads from
/// its start, where side by side then either restarted the prover (losing its first
/// run) or kept it on one thread. Past 30 s the chain's exact search has had two threads
/// for over 20 s. Measured before the finders' thread joined the prover instead; not
/// measured again since.
pub const SIDE_BY_SIDE_MAX: std::time::Duration = std::time::Duration::from_secs(30);

/// Whether an outcome is a verdict (a win, or a loss proved).
fn decides(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Won(_) | Outcome::Exhausted)
}

impl Solver {
    /// Runs the portfolio (see the module doc) and returns how it ended and which
    /// algorithm gave that end.
    pub(super) fn auto(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Outcome, Algorithm) {
        let short = budget
            .time_left()
            .is_some_and(|left| left <= SIDE_BY_SIDE_MAX);
        if options.threads > 1 && short {
            return self.auto_side_by_side(start, options, rng, budget, stats);
        }
        let finder_bytes = if short {
            AUTO_HYBRID_BYTES
        } else {
            AUTO_HYBRID_BYTES_LONG
        };
        let finder_options = SolveOptions {
            table_limit: Some(
                options
                    .table_limit
                    .map_or(finder_bytes, |limit| limit.min(finder_bytes)),
            ),
            ..*options
        };
        if let Some(found) = self.find(start, &finder_options, rng, budget, stats) {
            return found;
        }
        // The breadth-first buffers are full: give them back before the exact search
        // takes the whole budget (they grow again on the next solve that needs them).
        self.hybrid = HybridSearch::default();
        self.exact_then_depth_first(start, options, budget, stats)
    }

    /// Phases 4 and 5: the exact search, then the depth-first search if the exact one
    /// filled its memory.
    fn exact_then_depth_first(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Outcome, Algorithm) {
        let exact = self.exact_search(start, options, budget, stats);
        if exact != Outcome::Stopped(StopReason::MemoryLimit) {
            return (exact, Algorithm::Exact);
        }
        (
            self.depth_first(start, options, budget, stats),
            Algorithm::Dfs,
        )
    }

    /// Phases 1-3 on this thread, the breadth-first one within `options.table_limit`.
    /// `None` when the breadth-first search filled its memory.
    fn find(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Option<(Outcome, Algorithm)> {
        let probes = options.probes.unwrap_or(AUTO_PROBES);
        let sampled = self.sample(start, options.variant, probes, rng, budget, stats);
        if !matches!(sampled, Outcome::NoWin(_)) {
            return Some((sampled, Algorithm::Sampling));
        }
        let caps = Some(AUTO_ASSIGNMENT_CAPS);
        let assigned = self.assignment_search(start, options, caps, budget, stats);
        if !matches!(assigned, Outcome::NoWin(_)) {
            return Some((assigned, Algorithm::Assign));
        }
        let breadth_first = self.hybrid_search(start, options, rng, budget, stats);
        if breadth_first == Outcome::Stopped(StopReason::MemoryLimit) {
            return None;
        }
        Some((breadth_first, Algorithm::Hybrid))
    }

    /// The finders on this thread beside the exact search on the others (see the
    /// module doc).
    fn auto_side_by_side(
        &mut self,
        start: &Position,
        options: &SolveOptions,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Outcome, Algorithm) {
        let table_bytes = self.table_bytes();
        let memory = options.table_limit.unwrap_or(table_bytes);
        let finder_bytes = AUTO_HYBRID_BYTES.min(memory / 2);
        let finder_options = SolveOptions {
            table_limit: Some(finder_bytes),
            threads: 1,
            ..*options
        };
        // Every thread, the last one joining when the finders are done with it.
        let prover_options = SolveOptions {
            table_limit: Some(memory - finder_bytes),
            ..*options
        };
        let halt = AtomicBool::new(false);
        let join = AtomicBool::new(false);
        let (finder_budget, prover_budget) = budget.split_in_two(&halt);
        let mut searcher = std::mem::take(&mut self.exact);
        let mut finder_stats = SearchStats::default();
        let mut prover_stats = SearchStats::default();
        // Which side raised `halt` first with a verdict.
        let mut prover_first = false;
        let (found, proved) = std::thread::scope(|scope| {
            let prover = scope.spawn(|| {
                let outcome = run_exact(
                    &mut searcher,
                    table_bytes,
                    start,
                    &prover_options,
                    Some(&join),
                    &prover_budget,
                    &mut prover_stats,
                );
                let first = decides(&outcome) && !halt.swap(true, Ordering::SeqCst);
                (outcome, first)
            });
            let found = self.find(
                start,
                &finder_options,
                rng,
                &finder_budget,
                &mut finder_stats,
            );
            if found.as_ref().is_some_and(|(outcome, _)| decides(outcome)) {
                halt.store(true, Ordering::SeqCst);
            } else {
                // This thread is free: it joins the exact search.
                join.store(true, Ordering::SeqCst);
            }
            let (proved, first) = prover.join().expect("the exact search thread panicked");
            prover_first = first;
            (found, proved)
        });
        self.exact = searcher;
        stats.absorb(&finder_stats);
        stats.absorb(&prover_stats);
        let found = found.filter(|(outcome, _)| decides(outcome));
        match (found, decides(&proved)) {
            (Some(found), false) => return found,
            (Some(found), true) if !prover_first => {
                debug_assert_eq!(
                    matches!(found.0, Outcome::Won(_)),
                    matches!(proved, Outcome::Won(_)),
                    "the finders and the exact search disagree"
                );
                return found;
            }
            _ => {}
        }
        if decides(&proved) || budget.exhausted(stats.nodes).is_some() {
            return (proved, Algorithm::Exact);
        }
        // The finders' buffers are full and they are done: give them back.
        self.hybrid = HybridSearch::default();
        if proved != Outcome::Stopped(StopReason::MemoryLimit) {
            return (proved, Algorithm::Exact);
        }
        (
            self.depth_first(start, options, budget, stats),
            Algorithm::Dfs,
        )
    }
}
