//! The exact search on one thread: a depth-first walk over a growing [`KeySet`] that
//! enters every reachable position (or Two-shuffle class) once. Why its
//! [`Outcome::Exhausted`] is a proof of loss is the family's argument (`super`).
//!
//! Invariants: the set and the settled positions' table are allocated at the start of
//! [`ExactSearch::run`] and freed at its end; limits are checked every
//! [`CHECK_INTERVAL`] positions entered.

use crate::moves::Move;
use crate::position::Position;
use crate::search::budget::{Budget, StopReason, CHECK_INTERVAL};
use crate::search::exact::classes::{class_key, Admit, FrameEntry, FrameRules, OpenClasses};
use crate::search::exact::options::{left_unexpanded, settled, settles, ExactOptions};
use crate::search::exact::settled::SettledSearch;
use crate::search::exact::stack::ExactStack;
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::search::visited::key_set::{Insert, KeySet};
use crate::variant::Variant;

/// A reusable exact searcher (keeps its stack between searches; its set is freed at
/// the end of each).
#[derive(Default)]
pub struct ExactSearch {
    visited: KeySet,
    stack: ExactStack,
    classes: OpenClasses,
    /// Decides settled children (`settled_table_bytes`), with its table.
    settled: Option<SettledSearch>,
}

impl ExactSearch {
    /// Searches from `start`. `stats.nodes` counts distinct positions entered (the root
    /// included), `stats.settled` those whose column 0 holds only Twos (`common`),
    /// `stats.tt_hits` the moves that led to a position already entered. Returns the
    /// outcome and, when a limit ended the search (also after a win found first in
    /// complete mode, where the outcome is that win), which: as the parallel search.
    pub fn run(
        &mut self,
        start: &Position,
        variant: Variant,
        options: ExactOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Outcome, Option<StopReason>) {
        let table_bytes = options.settled_tables_bytes(variant);
        if options.settles_by_dfs(variant) {
            self.settled = Some(SettledSearch::with_table_bytes(
                table_bytes,
                options.settled_reductions,
            ));
        }
        self.visited.reset(options.memory_bytes - table_bytes);
        self.stack.clear();
        let ended = self.search(start, variant, options, budget, stats);
        let table_bytes = self.settled.as_ref().map_or(0, SettledSearch::table_bytes);
        stats.table_bytes = stats
            .table_bytes
            .max((self.visited.bytes() + table_bytes) as u64);
        // The set may have grown to gigabytes: give them back now rather than hold them
        // in an idle solver until its next exact search.
        self.visited = KeySet::default();
        self.settled = None;
        ended
    }

    fn search(
        &mut self,
        start: &Position,
        variant: Variant,
        options: ExactOptions,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (Outcome, Option<StopReason>) {
        let mut first_win: Option<Vec<Move>> = None;
        self.classes.clear();
        if let Some(search) = self.settled.as_mut() {
            if settled(start, variant) {
                return search.decide_root(start, budget, stats);
            }
        }
        let root_class = class_key(start, variant, options);
        let _ = self.visited.insert(root_class.unwrap_or(start.key()));
        let class = self.classes.open(start, root_class);
        self.stack.set_spare(start);
        let root = FrameEntry::root(class, root_class);
        if let Some(end) = self.enter_spare(root, variant, options, stats) {
            match end {
                Entered::Won if !options.complete => return (Outcome::Won(Vec::new()), None),
                Entered::Won => first_win = Some(Vec::new()),
                Entered::Leaf => {}
            }
        }
        let mut next_check = stats.nodes + CHECK_INTERVAL;
        while let Some(top) = self.stack.top_mut() {
            let Some(m) = top.next_move() else {
                if top.entry.opens_class {
                    self.classes.close_last();
                }
                self.stack.pop();
                continue;
            };
            let from = top.entry;
            let parent = &top.position;
            if let Some(search) = self
                .settled
                .as_mut()
                .filter(|_| settles(parent, m, variant))
            {
                let child = self.stack.play_child(m);
                debug_assert!(settled(child, variant));
                match search.decide(child, budget, stats) {
                    Ok(None) => continue,
                    Ok(Some(rest)) => {
                        let mut line = self.stack.line(m);
                        line.extend(rest);
                        return (Outcome::Won(line), None);
                    }
                    Err(reason) => return stopped(first_win, reason),
                }
            }
            // Admitted before it is played (see `OpenClasses::admit`).
            let admitted = self.classes.admit(from, m, parent, variant, options);
            match admitted {
                Admit::Seen => {
                    stats.tt_hits += 1;
                    continue;
                }
                Admit::Member(_) => {}
                Admit::Keyed(key, _) => match self.visited.insert(key) {
                    Insert::Present => {
                        stats.tt_hits += 1;
                        continue;
                    }
                    Insert::Full => return stopped(first_win, StopReason::MemoryLimit),
                    Insert::New => stats.stored += 1,
                },
            }
            let child = self.stack.play_child(m);
            debug_assert!(self.settled.is_none() || !settled(child, variant));
            let entry = self
                .classes
                .enter(admitted, m, from, child, variant, options);
            if let Some(Entered::Won) = self.enter_spare(entry, variant, options, stats) {
                let line = self.stack.line(m);
                if !options.complete {
                    return (Outcome::Won(line), None);
                }
                first_win.get_or_insert(line);
            }
            if stats.nodes >= next_check {
                if let Some(reason) = budget.exhausted(stats.nodes) {
                    return stopped(first_win, reason);
                }
                next_check = stats.nodes + CHECK_INTERVAL;
            }
        }
        (first_win.map_or(Outcome::Exhausted, Outcome::Won), None)
    }

    /// Counts the newly entered position in the stack's spare slot and pushes it as a
    /// frame entered as `entry` if it is to be expanded; says if it was won or left
    /// unexpanded. A class it opened (`entry.opens_class`) closes at once when it is
    /// not expanded.
    fn enter_spare(
        &mut self,
        entry: FrameEntry,
        variant: Variant,
        options: ExactOptions,
        stats: &mut SearchStats,
    ) -> Option<Entered> {
        stats.nodes += 1;
        let position = self.stack.spare();
        let is_settled = settled(position, variant);
        stats.settled += u64::from(is_settled);
        stats.max_depth = stats.max_depth.max(self.stack.len() as u64);
        if position.is_won(variant) {
            stats.wins += 1;
            if entry.opens_class {
                self.classes.close_last();
            }
            return Some(Entered::Won);
        }
        if left_unexpanded(position, is_settled, variant, options, stats) {
            if entry.opens_class {
                self.classes.close_last();
            }
            return Some(Entered::Leaf);
        }
        // Start loading every child's slot now, so that the children's lookups overlap
        // their cache misses instead of paying them one after another; settling moves
        // first, so that their table buckets are still cached when they are decided.
        let visited = &self.visited;
        let rules = FrameRules {
            variant,
            options,
            settled: self.settled.as_ref(),
        };
        self.stack.push_expanded(
            entry,
            &mut self.classes,
            rules,
            |key| visited.prefetch(key),
            |_| 0,
        );
        stats.expanded += 1;
        None
    }
}

/// The end of a search stopped by `reason`: the win found first, if any, else the stop.
fn stopped(first_win: Option<Vec<Move>>, reason: StopReason) -> (Outcome, Option<StopReason>) {
    (
        first_win.map_or(Outcome::Stopped(reason), Outcome::Won),
        Some(reason),
    )
}

/// How an entered position ended without being expanded.
enum Entered {
    Won,
    Leaf,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::deal;
    use crate::exhaustive::reachable;
    use crate::replay::verify_solution;
    use crate::search::exact::options::SettledReductions;

    fn run(start: &Position, variant: Variant, options: ExactOptions) -> (Outcome, SearchStats) {
        let mut stats = SearchStats::default();
        let (outcome, _) =
            ExactSearch::default().run(start, variant, options, &Budget::unlimited(), &mut stats);
        (outcome, stats)
    }

    #[test]
    fn counts_and_verdicts_equal_the_reference_search() {
        for variant in [Variant::Basic, Variant::Common] {
            for (suits, ranks) in [(2, 5), (3, 4), (4, 4), (3, 5)] {
                for seed in 0..40 {
                    let start = deal(seed, Layout::new(suits, ranks).unwrap());
                    let reference = reachable(&start, variant, usize::MAX);
                    let complete = ExactOptions {
                        complete: true,
                        stop_at_settled: false,
                        prune_dead: false,
                        shuffle_classes: false,
                        settled_table_bytes: 0,
                        settled_reductions: SettledReductions::ALL,
                        memory_bytes: 64 << 20,
                    };
                    let (outcome, stats) = run(&start, variant, complete);
                    assert_eq!(stats.nodes, reference.positions as u64);
                    // One key a class: every position is still entered exactly once.
                    let classes = ExactOptions {
                        shuffle_classes: true,
                        ..complete
                    };
                    let (_, by_class) = run(&start, variant, classes);
                    assert_eq!(by_class.nodes, reference.positions as u64);
                    assert!(by_class.stored <= stats.stored);
                    // Settled positions decided by depth-first search: with an ample
                    // table, and with one of 4 KiB that forgets most of what it held;
                    // with and without that search's reductions.
                    let none = SettledReductions::NONE;
                    for (prune_dead, shuffle_classes, settled_table_bytes, settled_reductions) in [
                        (false, false, 0, SettledReductions::ALL),
                        (true, false, 0, SettledReductions::ALL),
                        (false, true, 0, SettledReductions::ALL),
                        (true, true, 0, SettledReductions::ALL),
                        (false, true, 1 << 20, SettledReductions::ALL),
                        (false, false, 4096, SettledReductions::ALL),
                        (true, true, 4096, SettledReductions::ALL),
                        (false, false, 1 << 20, none),
                        (false, true, 4096, none),
                    ] {
                        let verdict = ExactOptions {
                            complete: false,
                            prune_dead,
                            shuffle_classes,
                            settled_table_bytes,
                            settled_reductions,
                            ..complete
                        };
                        match run(&start, variant, verdict).0 {
                            Outcome::Won(line) => {
                                assert_eq!(reference.winnable, Some(true));
                                verify_solution(&start, variant, &line).unwrap();
                                assert!(outcome.is_won());
                            }
                            Outcome::Exhausted => {
                                assert_eq!(reference.winnable, Some(false));
                                assert_eq!(outcome, Outcome::Exhausted);
                            }
                            other => panic!("{variant} {suits}x{ranks} {seed}: {other:?}"),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn settled_positions_decided_by_depth_first_search_stay_out_of_the_set() {
        let mut lost = 0;
        // Settled children found dead and so neither looked up nor searched.
        let mut dead_roots = 0;
        for seed in 0..60 {
            let start = deal(seed, Layout::new(3, 5).unwrap());
            let stored = ExactOptions {
                complete: false,
                stop_at_settled: false,
                prune_dead: false,
                shuffle_classes: true,
                settled_table_bytes: 0,
                settled_reductions: SettledReductions::ALL,
                memory_bytes: 64 << 20,
            };
            let (outcome, all) = run(&start, Variant::Common, stored);
            if outcome != Outcome::Exhausted || all.settled == 0 {
                continue;
            }
            lost += 1;
            let by_dfs = ExactOptions {
                settled_table_bytes: 1 << 20,
                ..stored
            };
            let (again, part) = run(&start, Variant::Common, by_dfs);
            assert_eq!(again, Outcome::Exhausted, "deal {seed}");
            // The same unsettled positions (or classes) are stored, and no settled one
            // (settled positions have no class: each took a key of its own).
            assert_eq!(part.stored, all.stored - all.settled, "deal {seed}");
            dead_roots += part.dead_cuts;
            // On two threads, each unsettled key is inserted once into the shared set.
            let mut shared = SearchStats::default();
            let (outcome, _) = crate::search::exact::parallel::search(
                &start,
                Variant::Common,
                by_dfs,
                2,
                &Budget::unlimited(),
                &mut shared,
            );
            assert_eq!(outcome, Outcome::Exhausted, "deal {seed}");
            assert_eq!(shared.stored, part.stored, "deal {seed}");
        }
        assert!(
            lost > 5,
            "too few lost deals with settled positions: {lost}"
        );
        assert!(dead_roots > 0, "no settled child was dead");
    }

    #[test]
    fn a_full_memory_budget_stops_and_never_claims_a_loss() {
        // 187,197 positions (tests/data/reachable.csv) do not fit in 4 KiB.
        let start = deal(3, Layout::new(4, 4).unwrap());
        let options = ExactOptions {
            complete: true,
            stop_at_settled: false,
            prune_dead: false,
            shuffle_classes: false,
            settled_table_bytes: 0,
            settled_reductions: SettledReductions::ALL,
            memory_bytes: 4096,
        };
        let (outcome, stats) = run(&start, Variant::Common, options);
        assert!(matches!(
            outcome,
            Outcome::Stopped(StopReason::MemoryLimit) | Outcome::Won(_)
        ));
        assert!(stats.nodes < 187_197);
        assert!(stats.table_bytes <= 4096);
    }

    #[test]
    fn stopping_at_settled_positions_counts_the_unsettled_part_and_its_frontier() {
        let start = deal(2, Layout::new(3, 5).unwrap());
        let whole = ExactOptions {
            complete: true,
            stop_at_settled: false,
            prune_dead: false,
            shuffle_classes: false,
            settled_table_bytes: 0,
            settled_reductions: SettledReductions::ALL,
            memory_bytes: 64 << 20,
        };
        let (_, all) = run(&start, Variant::Common, whole);
        let split = ExactOptions {
            stop_at_settled: true,
            prune_dead: false,
            ..whole
        };
        let (_, part) = run(&start, Variant::Common, split);
        // Unsettled positions are the same in both; the frontier is part of the settled.
        assert_eq!(all.nodes - all.settled, part.nodes - part.settled);
        assert!(part.settled <= all.settled);
        assert!(all.settled > 0);
    }
}
