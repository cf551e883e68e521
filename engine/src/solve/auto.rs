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
//! On several threads with a time limit of at most [`LONG_SEARCH`], side by side:
//! phases 1-3 on this thread (the finders), and from the start the exact search on the
//! other threads (the prover), which proves losses whose part before column 0 settles
//! is small and finds the wins that lie early in its depth-first order; the first of
//! the two to reach a verdict halts the other. The breadth-first phase takes at most
//! [`AUTO_HYBRID_BYTES`] and at most half the memory budget, the exact search the rest,
//! so the two together stay within the budget. If the finders end without a verdict
//! (their memory full), this thread joins the exact search, taking part of the other
//! threads' work (`search::exact::search_joined`), so nothing done is lost. If the
//! exact search fills its memory, phase 5 follows once the finders are done. Which side
//! is first decides which solution is returned; both are exact, so never the verdict.
//! With a longer time limit (or none) the chain runs instead, on every thread: helper
//! threads make the breadth-first phase's probes, and the exact search runs on all of
//! them.
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
use crate::tuning::{
    AUTO_ASSIGNMENT_CAPS, AUTO_HYBRID_BYTES, AUTO_HYBRID_BYTES_LONG, AUTO_PROBES, LONG_SEARCH,
};
use std::sync::atomic::{AtomicBool, Ordering};

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
        let short = budget.time_left().is_some_and(|left| left <= LONG_SEARCH);
        if options.threads > 1 && short {
            return self.auto_side_by_side(start, options, rng, budget, stats);
        }
        let finder_bytes = if short {
            AUTO_HYBRID_BYTES
        } else {
            AUTO_HYBRID_BYTES_LONG
        };
        let finder_options = SolveOptions {
            memory_limit: Some(
                options
                    .memory_limit
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

    /// Phases 1-3 on this thread, the breadth-first one within `options.memory_limit`.
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
        let memory = options.memory_limit.unwrap_or(table_bytes);
        let finder_bytes = AUTO_HYBRID_BYTES.min(memory / 2);
        let finder_options = SolveOptions {
            memory_limit: Some(finder_bytes),
            threads: 1,
            ..*options
        };
        // Every thread, the last one joining when the finders are done with it.
        let prover_options = SolveOptions {
            memory_limit: Some(memory - finder_bytes),
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

#[cfg(test)]
mod tests {
    use crate::card::Layout;
    use crate::deal::deal;
    use crate::exhaustive::reachable;
    use crate::replay::verify_solution;
    use crate::search::budget::StopReason;
    use crate::solve::{Algorithm, SolveOptions, SolveReport, Solver, Verdict};
    use crate::variant::Variant;
    use std::time::Duration;

    /// `auto` on `common` from `start` within `memory_limit` bytes, on `threads` threads
    /// (two with a time limit: side by side; one: the chain).
    fn auto(start: &crate::position::Position, memory_limit: usize, threads: usize) -> SolveReport {
        let options = SolveOptions {
            variant: Variant::Common,
            algorithm: Algorithm::Auto,
            memory_limit: Some(memory_limit),
            time_limit: (threads > 1).then_some(Duration::from_secs(20)),
            probes: Some(50),
            threads,
            ..SolveOptions::default()
        };
        Solver::with_table_bytes(1 << 20)
            .solve(start, &options, None)
            .unwrap()
    }

    #[test]
    fn a_verdict_comes_from_a_phase_that_can_give_it_and_past_full_memories_from_the_last() {
        // With ample memory every phase has room. With 4 KiB, breadth-first search
        // (about 26 bytes a position) fills on a space of more than 224 positions, so
        // such a loss is proved by the exact search (whose set holds only the positions
        // before column 0 settles) or, past its full memory too, by the last phase,
        // depth-first search. (`engine/tests/cross_check.rs` checks every phase's
        // verdicts on thousands of deals; this pins the order.)
        let mut lost_by_dfs = 0;
        for (suits, ranks) in [(3, 5), (2, 7), (3, 6)] {
            for seed in 0..12 {
                let start = deal(seed, Layout::new(suits, ranks).unwrap());
                let reference = reachable(&start, Variant::Common, usize::MAX);
                let winnable = reference.winnable.expect("the reference search ends");
                for (memory, threads) in [(64 << 20, 1), (64 << 20, 2), (4 << 10, 1), (4 << 10, 2)]
                {
                    let report = auto(&start, memory, threads);
                    let case =
                        format!("{suits}x{ranks} deal {seed}, {memory} bytes, {threads} threads");
                    match report.verdict {
                        Verdict::Solvable => {
                            assert!(winnable, "{case}");
                            verify_solution(&start, Variant::Common, &report.solution).unwrap();
                        }
                        Verdict::Unsolvable => {
                            assert!(!winnable, "{case}");
                            // Sampling and suit assignments only find wins.
                            assert!(
                                matches!(
                                    report.algorithm,
                                    Algorithm::Hybrid | Algorithm::Exact | Algorithm::Dfs
                                ),
                                "{case}: {report:?}"
                            );
                            if memory == 4 << 10 && reference.positions > 224 {
                                assert_ne!(report.algorithm, Algorithm::Hybrid, "{case}");
                                lost_by_dfs += usize::from(report.algorithm == Algorithm::Dfs);
                            }
                            if memory == 64 << 20 {
                                assert_ne!(report.algorithm, Algorithm::Dfs, "{case}");
                            }
                        }
                        Verdict::Unknown => panic!("{case}: no limit but memory: {report:?}"),
                    }
                }
            }
        }
        // At least 3x5 deal 10 (lost, 492 positions), on one thread and on two.
        assert!(
            lost_by_dfs >= 2,
            "too few losses proved past two full memories: {lost_by_dfs}"
        );
    }

    #[test]
    fn a_limit_reached_in_the_first_phase_is_the_answer() {
        // The node limit stops sampling; the chain does not go on to phases that would
        // only stop at once too, and the report names the phase that stopped.
        let start = deal(7, Layout::STANDARD);
        let options = SolveOptions {
            variant: Variant::Common,
            max_nodes: Some(1),
            ..SolveOptions::default()
        };
        let report = Solver::with_table_bytes(1 << 20)
            .solve(&start, &options, None)
            .unwrap();
        assert_eq!(report.verdict, Verdict::Unknown);
        assert_eq!(report.stopped, Some(StopReason::NodeLimit));
        assert_eq!(report.algorithm, Algorithm::Sampling, "{report:?}");
    }
}
