//! Verdicts of every depth-first configuration against the plain exhaustive reference,
//! on thousands of small deals of every variant (`aisleriot` is searched depth-first
//! only; `aisleriot.rs` checks the reference's `aisleriot` moves on their own). Every `solvable` answer was replayed by
//! the solver itself before being returned.
use gaps_engine::*;

const REFERENCE_LIMIT: usize = 3_000_000;

/// Whether the plain exhaustive reference search wins `start` (it must finish).
fn reference_winnable(start: &Position, variant: Variant) -> bool {
    reachable(start, variant, REFERENCE_LIMIT)
        .winnable
        .expect("reference search finished")
}

/// One way of searching: detectors, table budget, and a node cap (`None`: must finish).
struct Config {
    reduce: bool,
    prune_dead: bool,
    table: bool,
    incremental: bool,
    table_bytes: usize,
    cap: Option<u64>,
}

const fn cfg(table: bool, incremental: bool, table_bytes: usize, cap: Option<u64>) -> Config {
    Config {
        reduce: true,
        prune_dead: false,
        table,
        incremental,
        table_bytes,
        cap,
    }
}

fn configs(variant: Variant) -> Vec<Config> {
    let mut v = vec![
        cfg(true, true, 16 << 20, None),
        Config {
            reduce: false,
            ..cfg(true, true, 16 << 20, None)
        },
        cfg(true, false, 16 << 20, None),
        // Small tables force replacement: verdicts must not change, only effort.
        cfg(true, true, 4096, Some(2_000_000)),
        cfg(true, true, 256, Some(2_000_000)),
        cfg(true, false, 4096, Some(2_000_000)),
        // Dead-position pruning, with an ample and a tiny table.
        Config {
            prune_dead: true,
            ..cfg(true, true, 16 << 20, None)
        },
        Config {
            prune_dead: true,
            ..cfg(true, true, 256, Some(2_000_000))
        },
        // No table and no incremental transpositions: plain tree search (exponential).
        cfg(false, false, 256, Some(300_000)),
    ];
    if variant == Variant::Basic {
        // Stubborn-set reduction off, with incremental transpositions alone.
        v.push(Config {
            reduce: false,
            ..cfg(false, true, 256, None)
        });
    }
    v.push(match variant {
        // Incremental transpositions alone are complete and cheap on the acyclic variant.
        Variant::Basic => cfg(false, true, 256, None),
        // With cycles and no table the search enumerates simple paths: cap it.
        Variant::Common | Variant::Aisleriot => cfg(false, true, 256, Some(1_000_000)),
    });
    v
}

fn check_layout(suits: usize, ranks: usize, variant: Variant, deals: u64) {
    let layout = Layout::new(suits, ranks).unwrap();
    let configs = configs(variant);
    let mut solvers: Vec<Solver> = configs
        .iter()
        .map(|c| Solver::with_table_bytes(c.table_bytes))
        .collect();
    let (mut winnable, mut finished_capped, mut capped_runs) = (0, 0, 0);
    let (mut reduced, mut dead_cuts) = (0, 0);
    for seed in 0..deals {
        let start = deal(seed, layout);
        let reference = reachable(&start, variant, REFERENCE_LIMIT);
        let expected = reference.winnable.expect("reference search finished");
        winnable += u64::from(expected);
        for (c, solver) in configs.iter().zip(solvers.iter_mut()) {
            let options = SolveOptions {
                variant,
                algorithm: Algorithm::Dfs,
                dfs: DfsOptions {
                    table: c.table,
                    incremental: c.incremental,
                    complete: false,
                    reduce: c.reduce,
                    prune_dead: c.prune_dead,
                },
                max_nodes: c.cap,
                ..SolveOptions::default()
            };
            let r = solver.solve(&start, &options, None).expect("solve");
            reduced += r.stats.reduced;
            if !c.reduce {
                assert_eq!(r.stats.reduced, 0, "reduction must be off here");
            }
            dead_cuts += r.stats.dead_cuts;
            if !c.prune_dead {
                assert_eq!(r.stats.dead_cuts, 0, "dead pruning must be off here");
            }
            let what = format!(
                "{variant} {layout} deal {seed} table={} it={} bytes={} dead={}",
                c.table, c.incremental, c.table_bytes, c.prune_dead
            );
            if c.cap.is_some() {
                capped_runs += 1;
                if r.verdict == Verdict::Unknown {
                    continue;
                }
                finished_capped += 1;
            }
            assert_ne!(r.verdict, Verdict::Unknown, "{what}");
            assert_eq!(r.verdict == Verdict::Solvable, expected, "{what}");
        }
        // Complete mode with an ample table enters every reachable position exactly once.
        for incremental in [false, true] {
            let options = SolveOptions {
                variant,
                algorithm: Algorithm::Dfs,
                dfs: DfsOptions {
                    table: true,
                    incremental,
                    complete: true,
                    reduce: false,
                    prune_dead: true, // ignored in complete mode
                },
                ..SolveOptions::default()
            };
            let r = solvers[0].solve(&start, &options, None).unwrap();
            assert_eq!(
                r.stats.dead_cuts, 0,
                "complete mode counts dead positions too"
            );
            assert_eq!(
                r.stats.expanded + r.stats.wins,
                reference.positions as u64,
                "{variant} {layout} deal {seed} complete it={incremental}"
            );
            assert_eq!(r.verdict == Verdict::Solvable, expected);
        }
    }
    // The reduction fired, the sample holds both outcomes, and most capped runs
    // finished: agreement is not vacuous.
    if suits > 1 {
        // (One row has one gap: a single move leaves nothing to reduce.)
        assert!(reduced > 0, "{variant} {layout}: no reductions");
        assert!(
            dead_cuts > 0,
            "{variant} {layout}: dead pruning never fired"
        );
    }
    assert!(
        winnable > 0 && winnable < deals,
        "{variant} {layout}: {winnable}/{deals} winnable"
    );
    assert!(
        finished_capped * 2 > capped_runs,
        "{finished_capped} of {capped_runs} capped runs finished"
    );
}

#[test]
fn basic_4x5_agrees_with_reference() {
    check_layout(4, 5, Variant::Basic, 2000);
}

#[test]
fn basic_4x6_agrees_with_reference() {
    check_layout(4, 6, Variant::Basic, 1000);
}

#[test]
fn basic_other_shapes_agree_with_reference() {
    for (s, r) in [(2, 8), (3, 6), (5, 5), (6, 4), (1, 9)] {
        check_layout(s, r, Variant::Basic, 200);
    }
}

#[test]
fn common_3x5_agrees_with_reference() {
    check_layout(3, 5, Variant::Common, 1500);
}

/// 4x4 deals 155, 181 and 186 are in range: their complete searches lost positions when
/// table hits were handed on as incremental transpositions (see `search/dfs.rs`).
#[test]
fn common_other_shapes_agree_with_reference() {
    for (s, r) in [(2, 7), (3, 6), (4, 4), (2, 5)] {
        check_layout(s, r, Variant::Common, 200);
    }
}

#[test]
fn aisleriot_3x5_agrees_with_reference() {
    check_layout(3, 5, Variant::Aisleriot, 1500);
}

#[test]
fn aisleriot_other_shapes_agree_with_reference() {
    for (s, r) in [(2, 7), (3, 6), (4, 4), (2, 5)] {
        check_layout(s, r, Variant::Aisleriot, 200);
    }
}

/// Regression: with cycles, incremental transpositions skipped two reachable positions of
/// this deal (each justified by the other). They are now used in settled positions only
/// (column 0 all Twos, an acyclic region): the complete search must still enter every
/// reachable position, and they must really have been used.
#[test]
fn it_is_only_used_where_no_cycle_passes() {
    let start = deal(757, Layout::new(3, 5).unwrap());
    let reference = reachable(&start, Variant::Common, REFERENCE_LIMIT);
    let options = SolveOptions {
        variant: Variant::Common,
        algorithm: Algorithm::Dfs,
        dfs: DfsOptions {
            table: true,
            incremental: true,
            complete: true,
            reduce: false,
            prune_dead: false,
        },
        ..SolveOptions::default()
    };
    let r = Solver::with_table_bytes(16 << 20)
        .solve(&start, &options, None)
        .unwrap();
    assert!(r.stats.it_cuts > 0);
    assert_eq!(r.stats.expanded + r.stats.wins, reference.positions as u64);
}

/// Sampling only ever reports wins the reference confirms, and the `auto` portfolio
/// gives the reference's verdict, on both variants, from each of its phases that can
/// prove a loss (breadth-first, exact and depth-first search).
#[test]
fn sampling_and_auto_agree_with_reference() {
    let mut solver = Solver::with_table_bytes(16 << 20);
    let mut sampled_wins = 0;
    let mut deciders = std::collections::HashMap::new();
    let mut side_by_side = std::collections::HashMap::new();
    for (suits, ranks, variant) in [
        (3, 5, Variant::Common),
        (2, 7, Variant::Common),
        (4, 5, Variant::Basic),
    ] {
        let layout = Layout::new(suits, ranks).unwrap();
        for seed in 0..300 {
            let start = deal(seed, layout);
            let reference = reachable(&start, variant, REFERENCE_LIMIT);
            let expected = reference.winnable.expect("reference search finished");
            let sampling = SolveOptions {
                variant,
                algorithm: Algorithm::Sampling,
                probes: Some(200),
                seed,
                ..SolveOptions::default()
            };
            let r = solver.solve(&start, &sampling, None).unwrap();
            match r.verdict {
                Verdict::Solvable => {
                    assert!(
                        expected,
                        "{variant} {layout} deal {seed}: sampling won a lost deal"
                    );
                    sampled_wins += 1;
                }
                Verdict::Unknown => assert_eq!(r.stopped, Some(StopReason::ProbeLimit)),
                Verdict::Unsolvable => panic!("sampling never proves a loss"),
            }
            // Small memory budgets push `auto` on `common` past its breadth-first phase
            // into the exact search and, when that fills its budget too, into the
            // depth-first search. On two threads or more with a time limit of at most
            // 30 s the finders run beside the exact search (on the other threads, the
            // finders' one joining it when they are done); without a limit, the chain
            // runs with helper threads.
            let budgets: &[(Option<usize>, usize, bool)] = match variant {
                Variant::Basic | Variant::Aisleriot => &[(None, 1, false)],
                Variant::Common => &[
                    (None, 1, false),
                    (Some(96 << 10), 1, false),
                    (Some(96 << 10), 2, false),
                    (Some(8 << 10), 1, false),
                    (Some(96 << 10), 2, true),
                    (None, 2, true),
                    (None, 3, true),
                    (Some(8 << 10), 2, true),
                ],
            };
            for &(memory_limit, threads, limited) in budgets {
                let auto = SolveOptions {
                    variant,
                    probes: Some(50),
                    memory_limit,
                    threads,
                    time_limit: limited.then_some(std::time::Duration::from_secs(20)),
                    ..SolveOptions::default()
                };
                let r = solver.solve(&start, &auto, None).unwrap();
                assert_eq!(
                    r.verdict,
                    if expected {
                        Verdict::Solvable
                    } else {
                        Verdict::Unsolvable
                    },
                    "{variant} {layout} deal {seed} auto, {memory_limit:?} bytes, {threads} threads, limited {limited}"
                );
                *deciders.entry(r.algorithm).or_insert(0) += 1;
                if threads > 1 && limited {
                    *side_by_side.entry(r.algorithm).or_insert(0) += 1;
                }
            }
        }
    }
    assert!(
        sampled_wins > 100,
        "sampling wins often on small deals ({sampled_wins})"
    );
    for phase in [Algorithm::Hybrid, Algorithm::Exact, Algorithm::Dfs] {
        assert!(
            deciders.get(&phase).is_some_and(|&n| n >= 10),
            "auto's {phase:?} phase decided too few deals: {deciders:?}"
        );
    }
    // Side by side, each side (and the depth-first search after a full exact search)
    // gives verdicts.
    for phase in [
        Algorithm::Sampling,
        Algorithm::Hybrid,
        Algorithm::Exact,
        Algorithm::Dfs,
    ] {
        assert!(
            side_by_side.get(&phase).is_some_and(|&n| n >= 10),
            "auto side by side: {phase:?} decided too few deals: {side_by_side:?}"
        );
    }
}

/// `assign` reports a win exactly when some suit assignment's `basic` game is winnable
/// (each checked by the plain reference search on the renamed position), every such win
/// is a `common` win (the reference agrees, and the solver replayed it under `common`
/// rules), and it never claims a loss.
#[test]
fn assignments_find_exactly_the_wins_of_the_restricted_games() {
    use gaps_engine::internals::assignments;
    let mut solver = Solver::with_table_bytes(16 << 20);
    let (mut wins, mut parking_needed) = (0, 0);
    for (suits, ranks) in [(3, 5), (2, 7), (4, 4), (3, 6)] {
        let layout = Layout::new(suits, ranks).unwrap();
        for seed in 0..200 {
            let start = deal(seed, layout);
            let restricted = assignments(&start)
                .iter()
                .any(|a| reference_winnable(&a.rename(&start), Variant::Basic));
            let common = reference_winnable(&start, Variant::Common);
            let options = SolveOptions {
                variant: Variant::Common,
                algorithm: Algorithm::Assign,
                ..SolveOptions::default()
            };
            let r = solver.solve(&start, &options, None).unwrap();
            let case = format!("{layout} deal {seed}");
            match r.verdict {
                Verdict::Solvable => {
                    assert!(restricted && common, "{case}: assign won a lost game");
                    wins += 1;
                }
                Verdict::Unknown => {
                    assert!(!restricted, "{case}: assign missed a restricted win");
                    assert_eq!(r.stopped, Some(StopReason::AssignmentsLost), "{case}");
                    parking_needed += u32::from(common);
                }
                Verdict::Unsolvable => panic!("{case}: assign never proves a loss"),
            }
        }
    }
    // Both kinds occur: wins found this way, and wins that need a Two parked in
    // another row's column 0 (out of reach of every assignment).
    assert!(wins > 100, "assign wins {wins}");
    assert!(parking_needed > 0, "no common win needed parking");
}

/// The exact search with its reductions turned off (`dfs.reduce`: no Two-shuffle classes
/// and no stubborn sets in the settled positions' searches; `dfs.incremental`: no
/// incremental transpositions there), as a check of a loss without them runs it: the
/// reference's verdicts, no reduction used, and one key per unsettled position, where
/// the default search stores one per class and its settled searches do reduce.
#[test]
fn the_exact_search_without_reductions_agrees_with_reference() {
    let layout = Layout::new(3, 5).unwrap();
    let mut solver = Solver::with_table_bytes(16 << 20);
    let (mut losses, mut used, mut fewer_keys) = (0, 0, 0);
    for seed in 0..120 {
        let start = deal(seed, layout);
        let expected = reference_winnable(&start, Variant::Common);
        let with = SolveOptions {
            variant: Variant::Common,
            algorithm: Algorithm::Exact,
            ..SolveOptions::default()
        };
        let without = SolveOptions {
            dfs: DfsOptions {
                reduce: false,
                incremental: false,
                ..DfsOptions::default()
            },
            ..with
        };
        let reduced = solver.solve(&start, &with, None).unwrap();
        let plain = solver.solve(&start, &without, None).unwrap();
        for (r, what) in [(&reduced, "with"), (&plain, "without")] {
            assert_ne!(r.verdict, Verdict::Unknown, "deal {seed} {what}");
            assert_eq!(
                r.verdict == Verdict::Solvable,
                expected,
                "deal {seed} {what}"
            );
        }
        assert_eq!(plain.stats.reduced + plain.stats.it_cuts, 0, "deal {seed}");
        if !expected {
            losses += 1;
            used += u64::from(reduced.stats.reduced + reduced.stats.it_cuts > 0);
            assert!(plain.stats.stored >= reduced.stats.stored, "deal {seed}");
            fewer_keys += u64::from(plain.stats.stored > reduced.stats.stored);
        }
    }
    // Not vacuous: losses (whole spaces searched both ways), on which the default
    // search's settled searches reduced and its classes saved keys.
    assert!(losses >= 10, "{losses} losses");
    assert!(
        used >= 5 && fewer_keys >= 5,
        "{used} reduced, {fewer_keys} fewer keys"
    );
}
