//! Block search checked the way Helmstetter and Cazenave 2003 (section 5) checked it, and more:
//! - completeness: every position a complete search reaches lies in an entered block,
//!   with an ample table, a tiny one (entries replaced all the time) and none;
//! - soundness of the blocks: every position of every block is reached by legal moves
//!   whatever the order of the sequences (each block is replayed in two orders);
//! - verdicts equal those of depth-first search on thousands of deals, and every
//!   solution replays (the solver checks it before answering);
//! - the same for parallel block search (threads sharing one box table): the blocks of
//!   all threads together cover every reachable position, and verdicts agree, with
//!   tiny tables and more threads than cores to make racing stores frequent.
use crate::common;
use gaps_engine::internals::Budget;
use gaps_engine::internals::{
    search_parallel, BlockObserver, BlockOptions, BlockSearch, BlockView, BoxTable, Outcome,
    SharedBoxTable,
};
use gaps_engine::*;
use std::collections::HashSet;

/// Every position reachable from `start` (`basic`), by key.
fn reachable_keys(start: &Position) -> HashSet<u128> {
    let mut seen = HashSet::from([start.key()]);
    let mut todo = vec![*start];
    let mut moves = MoveList::<{ MAX_MOVES }>::default();
    while let Some(pos) = todo.pop() {
        pos.legal_moves(Variant::Basic, &mut moves);
        for &m in moves.as_slice() {
            let mut child = pos;
            child.play(m);
            if seen.insert(child.key()) {
                todo.push(child);
            }
        }
    }
    seen
}

/// Collects the positions of every entered block, replaying each block's moves with
/// the rules' own legality check, sequences in slot order and in reverse slot order.
#[derive(Default)]
struct Collector {
    positions: HashSet<u128>,
    volume: u64,
    blocks: u64,
}

impl Collector {
    fn enumerate(&mut self, pos: Position, seqs: &[Vec<Move>], order: &[usize], at: usize) {
        let Some(&x) = order.get(at) else {
            self.positions.insert(pos.key());
            return;
        };
        let mut pos = pos;
        self.enumerate(pos, seqs, order, at + 1);
        for m in &seqs[x] {
            assert!(
                pos.try_play(Variant::Basic, *m),
                "block move {m:?} illegal in {pos:?}"
            );
            self.enumerate(pos, seqs, order, at + 1);
        }
    }
}

impl BlockObserver for Collector {
    fn entered(&mut self, block: BlockView<'_>) {
        let gaps = block.start().layout().suits();
        let seqs: Vec<Vec<Move>> = (0..gaps).map(|x| block.sequence(x).collect()).collect();
        let forward: Vec<usize> = (0..gaps).collect();
        let backward: Vec<usize> = (0..gaps).rev().collect();
        let before = self.positions.len();
        self.enumerate(*block.start(), &seqs, &forward, 0);
        let once = self.positions.len();
        self.enumerate(*block.start(), &seqs, &backward, 0);
        assert_eq!(
            once,
            self.positions.len(),
            "orders reach different positions"
        );
        assert!(self.positions.len() - before <= block.volume() as usize);
        self.volume += block.volume();
        self.blocks += 1;
    }
}

fn block_search(
    start: &Position,
    table: Option<&mut BoxTable>,
    complete: bool,
    transpositions: bool,
    observer: &mut impl BlockObserver,
) -> Outcome {
    let mut stats = SearchStats::default();
    BlockSearch::default().search(
        start,
        table,
        BlockOptions {
            complete,
            transpositions,
            ..BlockOptions::default()
        },
        &Budget::unlimited(),
        &mut stats,
        observer,
    )
}

/// Checks that the blocks of a complete search (with or without incremental
/// transpositions) cover exactly the reachable positions; returns `(reachable, block
/// volume)`.
fn check_coverage(
    start: &Position,
    table_bytes: Option<usize>,
    transpositions: bool,
) -> (usize, u64) {
    let reachable = reachable_keys(start);
    let mut table = table_bytes.map(BoxTable::with_budget);
    let mut seen = Collector::default();
    let outcome = block_search(start, table.as_mut(), true, transpositions, &mut seen);
    assert!(!matches!(outcome, Outcome::Stopped(_)));
    let missing = reachable.difference(&seen.positions).count();
    assert_eq!(
        missing, 0,
        "{start:?}: {missing} reachable positions in no block (table {table_bytes:?}, \
         transpositions {transpositions})"
    );
    assert_eq!(
        seen.positions.len(),
        reachable.len(),
        "{start:?}: unreachable block position"
    );
    (reachable.len(), seen.volume)
}

/// [`check_coverage`] for `threads` threads sharing a table of `table_bytes`: the
/// blocks entered by all threads together.
fn check_parallel_coverage(start: &Position, threads: usize, table_bytes: usize) {
    let reachable = reachable_keys(start);
    let table = SharedBoxTable::with_budget(table_bytes);
    let mut seen: Vec<Collector> = (0..threads).map(|_| Collector::default()).collect();
    let options = BlockOptions {
        complete: true,
        ..BlockOptions::default()
    };
    let mut stats = SearchStats::default();
    let budget = Budget::unlimited();
    let outcome = search_parallel(start, &table, options, &budget, &mut stats, &mut seen);
    assert!(!matches!(outcome, Outcome::Stopped(_)));
    let union: HashSet<u128> = seen
        .iter()
        .flat_map(|c| c.positions.iter().copied())
        .collect();
    let missing = reachable.difference(&union).count();
    assert_eq!(
        missing, 0,
        "{start:?}: {missing} reachable positions in no block ({threads} threads, table {table_bytes})"
    );
    assert_eq!(
        union.len(),
        reachable.len(),
        "{start:?}: unreachable block position"
    );
}

#[test]
fn every_reachable_position_lies_in_a_block_small_boards() {
    let sizes = [(4, 5), (4, 6), (3, 7), (5, 5), (6, 4), (2, 9), (8, 3)];
    let mut total = (0usize, 0u64);
    for (suits, ranks) in sizes {
        let layout = Layout::new(suits, ranks).unwrap();
        for seed in 0..150 {
            let start = deal(seed, layout);
            for table in [Some(16 << 20), Some(256), None] {
                for transpositions in [true, false] {
                    let (n, volume) = check_coverage(&start, table, transpositions);
                    if table == Some(16 << 20) && !transpositions {
                        total.0 += n;
                        total.1 += volume;
                    }
                }
            }
        }
    }
    let ratio = total.1 as f64 / total.0 as f64;
    assert!(ratio < 3.0, "block volume / reachable = {ratio}");
}

#[test]
fn every_reachable_position_lies_in_a_block_4x13() {
    let layout = Layout::new(4, 13).unwrap();
    let mut checked = 0;
    for seed in 0..40 {
        let start = deal(seed, layout);
        let size = gaps_engine::reachable(&start, Variant::Basic, 400_000);
        if size.winnable.is_none() {
            continue; // too large for an exact set in a unit test
        }
        for table in [Some(64 << 20), Some(1 << 20)] {
            for transpositions in [true, false] {
                check_coverage(&start, table, transpositions);
            }
        }
        // Parallel: small boards finish before a second thread starts, but these deals
        // keep two threads busy long enough to meet each other's blocks (tens to
        // hundreds of deferred and helped children per deal).
        for (threads, table_bytes) in [(2, 16 << 20), (3, 1 << 20)] {
            check_parallel_coverage(&start, threads, table_bytes);
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} deals were small enough");
}

#[test]
fn verdicts_agree_with_depth_first_search() {
    let mut solver = Solver::with_table_bytes(16 << 20);
    let mut disagreements = Vec::new();
    let mut wins = 0;
    for (suits, ranks, deals) in [
        (4, 5, 1500),
        (4, 6, 1500),
        (3, 8, 500),
        (5, 6, 500),
        (4, 13, 150),
    ] {
        let layout = Layout::new(suits, ranks).unwrap();
        for seed in 0..deals {
            let start = deal(seed, layout);
            let dfs = common::solve_with(&mut solver, &start, Variant::Basic, true, true, false);
            let options = SolveOptions {
                algorithm: Algorithm::Blocks,
                ..SolveOptions::default()
            };
            let blocks = solver.solve(&start, &options, None).expect("blocks");
            assert_eq!(blocks.algorithm, Algorithm::Blocks);
            if blocks.verdict != dfs.verdict {
                disagreements.push((suits, ranks, seed, dfs.verdict, blocks.verdict));
            }
            wins += usize::from(blocks.verdict == Verdict::Solvable);
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:?}");
    assert!(wins > 100);
}

#[test]
fn a_tiny_table_changes_effort_not_verdicts() {
    let layout = Layout::new(4, 7).unwrap();
    for seed in 0..300 {
        let start = deal(seed, layout);
        let mut ample = BoxTable::with_budget(16 << 20);
        let mut tiny = BoxTable::with_budget(64);
        let a = block_search(&start, Some(&mut ample), false, true, &mut ());
        let b = block_search(&start, Some(&mut tiny), false, true, &mut ());
        let c = block_search(&start, None, false, false, &mut ());
        let won = |o: &Outcome| matches!(o, Outcome::Won(_));
        assert_eq!(won(&a), won(&b), "deal {seed}");
        assert_eq!(won(&a), won(&c), "deal {seed}");
        for line in [a, b, c].iter().filter_map(|o| match o {
            Outcome::Won(line) => Some(line),
            _ => None,
        }) {
            verify_solution(&start, Variant::Basic, line).expect("solution replays");
        }
    }
}

#[test]
fn limits_give_unknown_and_common_is_refused() {
    let start = deal(3, Layout::new(4, 13).unwrap());
    let mut solver = Solver::with_table_bytes(1 << 20);
    let options = SolveOptions {
        algorithm: Algorithm::Blocks,
        max_nodes: Some(5_000),
        ..SolveOptions::default()
    };
    let report = solver.solve(&start, &options, None).unwrap();
    assert_eq!(report.verdict, Verdict::Unknown);
    assert_eq!(report.stopped, Some(StopReason::NodeLimit));
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let report = solver
        .solve(
            &start,
            &SolveOptions {
                max_nodes: None,
                ..options
            },
            Some(&cancel),
        )
        .unwrap();
    assert_eq!(report.stopped, Some(StopReason::Cancelled));
    let common = SolveOptions {
        variant: Variant::Common,
        ..options
    };
    assert!(matches!(
        solver.solve(&start, &common, None),
        Err(SolveError::UnsupportedVariant { .. })
    ));
    let _ = MAX_SUITS;
}

fn parallel(threads: usize, memory_limit: Option<usize>, complete: bool) -> SolveOptions {
    SolveOptions {
        algorithm: Algorithm::Blocks,
        threads,
        memory_limit,
        dfs: DfsOptions {
            complete,
            ..DfsOptions::default()
        },
        ..SolveOptions::default()
    }
}

#[test]
fn parallel_verdicts_agree_with_depth_first_search() {
    let mut solver = Solver::with_table_bytes(16 << 20);
    let mut disagreements = Vec::new();
    let (mut wins, mut losses) = (0, 0);
    for (suits, ranks, deals) in [(4, 5, 1000), (4, 6, 1000), (5, 6, 300), (4, 13, 60)] {
        let layout = Layout::new(suits, ranks).unwrap();
        for seed in 0..deals {
            let start = deal(seed, layout);
            let dfs = common::solve_with(&mut solver, &start, Variant::Basic, true, true, false);
            // Tiny tables only on small boards: a 4x13 deal can grow a hundredfold.
            let small = if ranks < 13 { 1 } else { 1 << 10 };
            let runs = [
                parallel(2, None, false),
                parallel(3, Some(small << 12), false),
                parallel(2, Some(small << 16), true),
            ];
            for options in runs {
                let report = solver.solve(&start, &options, None).expect("blocks");
                if report.verdict != dfs.verdict {
                    disagreements.push((suits, ranks, seed, options.threads, report.verdict));
                }
            }
            wins += usize::from(dfs.verdict == Verdict::Solvable);
            losses += usize::from(dfs.verdict == Verdict::Unsolvable);
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:?}");
    assert!(wins > 100 && losses > 100, "{wins} wins, {losses} losses");
}

#[test]
fn parallel_limits_give_unknown_and_bad_thread_counts_are_refused() {
    let start = deal(3, Layout::new(4, 13).unwrap());
    let mut solver = Solver::with_table_bytes(1 << 20);
    let options = SolveOptions {
        max_nodes: Some(5_000),
        ..parallel(2, None, false)
    };
    let report = solver.solve(&start, &options, None).unwrap();
    assert_eq!(report.verdict, Verdict::Unknown);
    assert_eq!(report.stopped, Some(StopReason::NodeLimit));
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let unlimited = parallel(2, None, false);
    let report = solver.solve(&start, &unlimited, Some(&cancel)).unwrap();
    assert_eq!(report.stopped, Some(StopReason::Cancelled));
    for threads in [0, 65] {
        assert!(matches!(
            solver.solve(&start, &parallel(threads, None, false), None),
            Err(SolveError::Threads { .. })
        ));
    }
    let dfs = SolveOptions {
        algorithm: Algorithm::Dfs,
        ..unlimited
    };
    assert!(matches!(
        solver.solve(&start, &dfs, None),
        Err(SolveError::Threads { .. })
    ));
}
