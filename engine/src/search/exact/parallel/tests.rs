//! Tests of the parallel exact search against the reference search: counts, verdicts,
//! growth, work sharing and late threads.

use super::*;
use crate::card::Layout;
use crate::deal::deal;
use crate::exhaustive::reachable;
use crate::replay::verify_solution;
use crate::search::exact::options::SettledReductions;

#[test]
fn a_set_grown_many_times_loses_nothing() {
    // Threads that run out of work take some from the others: this must happen
    // here, or the test says nothing of work sharing.
    let mut donations = 0;
    // Settled positions forgotten by the 8 KiB tables (joint searches on `common`).
    let mut forgotten = 0;
    for variant in [Variant::Basic, Variant::Common] {
        for seed in 0..25 {
            let start = deal(seed, Layout::new(3, 5).unwrap());
            let reference = reachable(&start, variant, usize::MAX);
            // The last four decide settled positions by depth-first search, two
            // with tables so small (4 KiB a thread) that they forget most keys, one
            // without that search's reductions.
            let all = SettledReductions::ALL;
            let none = SettledReductions::NONE;
            for (threads, complete, prune_dead, shuffle_classes, settled_table_bytes, reductions) in [
                (2, true, false, false, 0, all),
                (3, true, false, true, 0, all),
                (2, true, false, true, 0, all),
                (2, false, false, false, 0, all),
                (2, false, true, true, 0, all),
                (3, false, false, true, 0, all),
                (2, false, false, true, 1 << 20, all),
                (3, false, true, true, 1 << 20, all),
                (2, false, false, false, 8 << 10, all),
                (2, false, false, true, 8 << 10, none),
            ] {
                let options = ExactOptions {
                    complete,
                    prune_dead,
                    shuffle_classes,
                    settled_table_bytes,
                    settled_reductions: reductions,
                    ..ExactOptions::counting(64 << 20)
                };
                let mut stats = SearchStats::default();
                let sharing = Sharing {
                    first_slots: 8,
                    ..Sharing::default()
                };
                let ((outcome, stopped), given) = search_from(
                    &start,
                    variant,
                    options,
                    threads,
                    &sharing,
                    &Budget::unlimited(),
                    &mut stats,
                );
                donations += given;
                if settled_table_bytes == 8 << 10 && reductions.joint {
                    forgotten += stats.replaced;
                }
                assert_eq!(stopped, None, "{variant} {seed}");
                if complete {
                    assert_eq!(stats.nodes, reference.positions as u64, "{variant} {seed}");
                }
                match outcome {
                    Outcome::Won(line) => {
                        assert_eq!(reference.winnable, Some(true));
                        verify_solution(&start, variant, &line).unwrap();
                    }
                    Outcome::Exhausted => assert_eq!(reference.winnable, Some(false)),
                    other => panic!("{variant} {seed}: {other:?}"),
                }
            }
        }
    }
    assert!(donations > 100, "only {donations} donations");
    // The statistics report what the small tables forgot.
    assert!(forgotten > 0);
}

#[test]
fn late_threads_join_through_their_gate_and_every_count_stays_exact() {
    let mut donations = 0;
    for (seed, suits, ranks) in [(0, 4, 4), (1, 4, 4), (2, 3, 5), (5, 4, 4), (7, 3, 5)] {
        let start = deal(seed, Layout::new(suits, ranks).unwrap());
        for variant in [Variant::Basic, Variant::Common] {
            let reference = reachable(&start, variant, usize::MAX);
            for (threads, late, open_after_ms, complete) in [
                (2, 1, Some(0), true),
                (2, 1, Some(5), true),
                (3, 2, Some(2), true),
                (2, 1, None, true),
                (2, 1, Some(1), false),
            ] {
                let options = ExactOptions {
                    complete,
                    shuffle_classes: true,
                    settled_table_bytes: if complete { 0 } else { 1 << 20 },
                    ..ExactOptions::counting(64 << 20)
                };
                let gate = AtomicBool::new(false);
                let sharing = Sharing {
                    late,
                    gate: Some(&gate),
                    first_slots: 64,
                };
                let mut stats = SearchStats::default();
                let ((outcome, stopped), given) = std::thread::scope(|scope| {
                    if let Some(ms) = open_after_ms {
                        let gate = &gate;
                        scope.spawn(move || {
                            std::thread::sleep(std::time::Duration::from_millis(ms));
                            gate.store(true, Ordering::Relaxed);
                        });
                    }
                    search_from(
                        &start,
                        variant,
                        options,
                        threads,
                        &sharing,
                        &Budget::unlimited(),
                        &mut stats,
                    )
                });
                donations += given;
                let case = format!("{variant} {seed} {threads} {late} {open_after_ms:?}");
                assert_eq!(stopped, None, "{case}");
                if open_after_ms.is_none() {
                    assert_eq!(given, 0, "{case}: a closed gate lets no thread in");
                }
                if complete {
                    assert_eq!(stats.nodes, reference.positions as u64, "{case}");
                }
                match outcome {
                    Outcome::Won(line) => {
                        assert_eq!(reference.winnable, Some(true), "{case}");
                        verify_solution(&start, variant, &line).unwrap();
                    }
                    Outcome::Exhausted => assert_eq!(reference.winnable, Some(false), "{case}"),
                    other => panic!("{case}: {other:?}"),
                }
            }
        }
    }
    assert!(donations > 10, "only {donations} donations");
}

#[test]
fn a_budget_too_small_ends_memory_limit() {
    // 187,197 positions (tests/data/reachable.csv) do not fit in 64 KiB.
    let start = deal(3, Layout::new(4, 4).unwrap());
    let options = ExactOptions::counting(64 << 10);
    let mut stats = SearchStats::default();
    let sharing = Sharing {
        first_slots: 8,
        ..Sharing::default()
    };
    let ((outcome, stopped), _) = search_from(
        &start,
        Variant::Common,
        options,
        2,
        &sharing,
        &Budget::unlimited(),
        &mut stats,
    );
    assert_eq!(stopped, Some(StopReason::MemoryLimit));
    assert!(matches!(outcome, Outcome::Stopped(_) | Outcome::Won(_)));
    assert!(stats.table_bytes <= 64 << 10);
}
