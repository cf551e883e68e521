//! The exact search on one thread: a depth-first walk over a growing [`KeySet`] that
//! enters every reachable position (or Two-shuffle class) once. Why its
//! [`Outcome::Exhausted`] is a proof of loss is the family's argument (`super`).
//!
//! Invariants: the set and the settled positions' table are allocated at the start of
//! [`ExactSearch::run`] and freed at its end. The loop is `walk`'s, on the whole
//! line from the root (`Lane::ALONE`); a full set ends the search with `memory_limit`,
//! unless the searcher was given a store ([`ExactSearch::spill_to`]): then the set is a
//! [`SpillingSet`], which moves its keys to the store when full and goes on (the same
//! positions, in the same order: `visited::spill`), and only a set that can spill no
//! more ends it.

use crate::position::Position;
use crate::search::budget::{Budget, StopReason};
use crate::search::exact::classes::{class_key, FrameEntry};
use crate::search::exact::options::{settled, ExactOptions};
use crate::search::exact::walk::{Entered, Lane, Step, Visited, Walk};
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::search::visited::key_set::KeySet;
use crate::search::visited::spill::{SpillStore, SpillingSet};
use crate::variant::Variant;
use std::sync::Arc;

/// An exact searcher on one thread. It holds nothing between searches but the store it
/// may spill to: its set is allocated at the start of each and freed at its end.
#[derive(Default)]
pub struct ExactSearch {
    visited: KeySet,
    store: Option<Arc<dyn SpillStore>>,
}

impl ExactSearch {
    /// From now on, a full set moves its keys to `store` and the search goes on (`None`:
    /// a full set stops the search).
    pub fn spill_to(&mut self, store: Option<Arc<dyn SpillStore>>) {
        self.store = store;
    }

    /// [`ExactSearch::spill_to`], returning the store it had.
    pub(crate) fn swap_spill(
        &mut self,
        store: Option<Arc<dyn SpillStore>>,
    ) -> Option<Arc<dyn SpillStore>> {
        std::mem::replace(&mut self.store, store)
    }

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
        let table_bytes = options.settled_share(variant);
        let mut walk = Walk::new(variant, options, Lane::ALONE, table_bytes, stats.nodes);
        let set_bytes = options.memory_bytes - table_bytes;
        let (ended, set_bytes_held) = match self.store.clone() {
            Some(store) => {
                let mut set = SpillingSet::new(set_bytes, Some(store));
                let ended = search(&mut walk, &mut set, start, budget, stats);
                stats.spilled += set.spilled_keys();
                let held = set.bytes();
                set.release();
                (ended, held)
            }
            None => {
                self.visited.reset(set_bytes);
                let ended = search(&mut walk, &mut self.visited, start, budget, stats);
                let held = self.visited.bytes();
                // The set may have grown to gigabytes: give them back now rather than
                // hold them in an idle solver until its next exact search.
                self.visited = KeySet::default();
                (ended, held)
            }
        };
        stats.table_bytes = stats
            .table_bytes
            .max((set_bytes_held + walk.settled_bytes_held()) as u64);
        ended
    }
}

/// The search over `set`, empty but for what it is given here.
fn search<V: Visited>(
    walk: &mut Walk,
    set: &mut V,
    start: &Position,
    budget: &Budget,
    stats: &mut SearchStats,
) -> (Outcome, Option<StopReason>) {
    let (variant, options) = (walk.variant, walk.options);
    if let Some(search) = walk.settled.as_mut() {
        if settled(start, variant) {
            return search.decide_root(start, budget, stats);
        }
    }
    let root_class = class_key(start, variant, options);
    let _ = set.insert(root_class.unwrap_or(start.key()));
    let class = walk.classes.open(start, root_class);
    walk.stack.set_spare(start);
    let root = FrameEntry::root(class, root_class);
    if walk.enter_spare(root, set, stats) == Some(Entered::Won) {
        walk.win = Some(Vec::new());
    }
    if walk.win.is_none() || options.complete {
        loop {
            match walk.step(set, budget, stats) {
                Step::Went => {}
                Step::Done | Step::Halt => break,
                // The move that found the set full was given back: tried again.
                Step::Full if set.make_room() => {}
                Step::Full => {
                    walk.stop = Some(StopReason::MemoryLimit);
                    break;
                }
            }
        }
    }
    let outcome = match (walk.win.take(), walk.stop) {
        (Some(line), _) => Outcome::Won(line),
        (None, Some(reason)) => Outcome::Stopped(reason),
        (None, None) => Outcome::Exhausted,
    };
    (outcome, walk.stop)
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
                    let complete = ExactOptions::counting(64 << 20);
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
                shuffle_classes: true,
                ..ExactOptions::counting(64 << 20)
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
    fn a_set_spilled_to_a_store_enters_the_same_positions_as_one_in_memory() {
        use crate::search::visited::spill::MemoryStore;
        let (mut spilled_searches, mut spilled_verdicts) = (0, 0);
        for (variant, suits, ranks, seeds) in [
            (Variant::Common, 4, 4, 0..40),
            (Variant::Common, 3, 5, 0..20),
            (Variant::Common, 4, 5, 0..10),
            (Variant::Basic, 4, 5, 0..10),
        ] {
            for seed in seeds {
                let start = deal(seed, Layout::new(suits, ranks).unwrap());
                for options in [
                    ExactOptions::counting(64 << 20),
                    ExactOptions {
                        complete: false,
                        shuffle_classes: true,
                        ..ExactOptions::counting(64 << 20)
                    },
                    ExactOptions {
                        complete: false,
                        shuffle_classes: true,
                        settled_table_bytes: 1 << 20,
                        ..ExactOptions::counting(64 << 20)
                    },
                ] {
                    let (in_memory, all) = run(&start, variant, options);
                    // A budget of 6 bytes a key (the set in memory takes about 18): several
                    // runs spilled.
                    let small = ExactOptions {
                        memory_bytes: options.settled_table_bytes
                            + (all.stored as usize * 6).max(24 << 10),
                        ..options
                    };
                    let store = std::sync::Arc::new(MemoryStore::default());
                    let mut searcher = ExactSearch::default();
                    searcher.spill_to(Some(store.clone()));
                    let mut stats = SearchStats::default();
                    let (outcome, stop) =
                        searcher.run(&start, variant, small, &Budget::unlimited(), &mut stats);
                    let what = format!("{variant} {suits}x{ranks} deal {seed} {options:?}");
                    assert_eq!(outcome, in_memory, "{what}");
                    assert_eq!(stop, None, "{what}");
                    assert_eq!(
                        (stats.nodes, stats.stored, stats.settled, stats.tt_hits),
                        (all.nodes, all.stored, all.settled, all.tt_hits),
                        "{what}"
                    );
                    if stats.spilled > 0 {
                        spilled_searches += 1;
                        spilled_verdicts += usize::from(!options.complete);
                        assert!(stats.table_bytes <= small.memory_bytes as u64, "{what}");
                    }
                    // The store is emptied when the search ends.
                    assert!(store.is_empty());
                }
            }
        }
        assert!(spilled_searches > 20, "{spilled_searches}");
        assert!(spilled_verdicts >= 5, "{spilled_verdicts}");
    }

    #[test]
    fn a_full_memory_budget_stops_and_never_claims_a_loss() {
        // 187,197 positions (tests/data/reachable.csv) do not fit in 4 KiB.
        let start = deal(3, Layout::new(4, 4).unwrap());
        let options = ExactOptions::counting(4096);
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
        let whole = ExactOptions::counting(64 << 20);
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
