//! Pinned reachable-space counts, in the manner of a chess engine's perft table: the
//! exact number of positions reachable from each numbered deal of a fixed set of small
//! boards, in both variants, and whether a win is among them.
//!
//! The numbers live in `tests/data/reachable.csv`. The plain reference search must
//! reproduce every row; the depth-first search in complete mode (no stubborn-set
//! reduction applies there; table and incremental transpositions on) and the exact
//! search (`gaps count`, `--algorithm exact --complete`) must enter exactly that many
//! distinct positions. A change to the rules, the move generator, the deal numbering
//! or the complete search shows up as a changed number, not only as a changed verdict.
//!
//! After a deliberate change of the rules only, regenerate the file with
//! `REGENERATE=1 cargo test -p gaps-engine --test integration reachable:: --
//! --test-threads 1` and say why in the commit.

use gaps_engine::*;
use std::fmt::Write;

const DATA: &str = "tests/data/reachable.csv";
const HEADER: &str = "variant,suits,ranks,deal,positions,winnable";

/// The boards and deals pinned: every size is small enough for the reference search.
fn cases() -> Vec<(Variant, usize, usize, u64)> {
    let mut cases = Vec::new();
    for variant in [Variant::Basic, Variant::Common] {
        let sizes: &[(usize, usize)] = match variant {
            Variant::Basic => &[(2, 5), (2, 7), (3, 5), (4, 4), (3, 6), (4, 5), (4, 6)],
            // Cycles make `common` spaces far larger: 4x5 reaches a million positions.
            Variant::Common | Variant::Aisleriot => &[(2, 5), (2, 7), (3, 5), (4, 4), (3, 6)],
        };
        for &(suits, ranks) in sizes {
            for deal in 0..12 {
                cases.push((variant, suits, ranks, deal));
            }
        }
    }
    cases
}

fn count(variant: Variant, suits: usize, ranks: usize, seed: u64) -> Reachable {
    let start = deal(seed, Layout::new(suits, ranks).unwrap());
    let found = reachable(&start, variant, usize::MAX);
    assert!(
        found.winnable.is_some(),
        "the reference search ran to its end"
    );
    found
}

fn row(variant: Variant, suits: usize, ranks: usize, seed: u64, found: Reachable) -> String {
    format!(
        "{variant},{suits},{ranks},{seed},{},{}",
        found.positions,
        found.winnable == Some(true)
    )
}

#[test]
fn reachable_counts_match_the_pinned_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    if std::env::var_os("REGENERATE").is_some() {
        let mut text = format!("{HEADER}\n");
        for (variant, suits, ranks, seed) in cases() {
            let found = count(variant, suits, ranks, seed);
            writeln!(text, "{}", row(variant, suits, ranks, seed, found)).unwrap();
        }
        std::fs::write(&path, text).unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER));
    let pinned: Vec<&str> = lines.collect();
    let cases = cases();
    assert_eq!(pinned.len(), cases.len(), "one row per case");
    for (&line, (variant, suits, ranks, seed)) in pinned.iter().zip(cases) {
        let found = count(variant, suits, ranks, seed);
        assert_eq!(row(variant, suits, ranks, seed, found), line);
    }
}

#[test]
fn complete_searches_enter_exactly_the_pinned_count() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let text = std::fs::read_to_string(path).unwrap();
    let mut solver = Solver::with_table_bytes(64 << 20);
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let variant: Variant = fields[0].parse().unwrap();
        let [suits, ranks]: [usize; 2] = [fields[1].parse().unwrap(), fields[2].parse().unwrap()];
        let seed: u64 = fields[3].parse().unwrap();
        let positions: u64 = fields[4].parse().unwrap();
        let winnable: bool = fields[5].parse().unwrap();
        let start = deal(seed, Layout::new(suits, ranks).unwrap());
        let options = SolveOptions {
            variant,
            algorithm: Algorithm::Dfs,
            dfs: DfsOptions {
                complete: true,
                ..DfsOptions::default()
            },
            ..SolveOptions::default()
        };
        let counted = count_reachable(
            &start,
            &CountOptions {
                variant,
                memory_bytes: 64 << 20,
                unsettled_only: false,
                max_nodes: None,
                time_limit: None,
                threads: 1,
            },
            None,
        );
        assert!(counted.complete, "{line}");
        assert_eq!(counted.positions, positions, "{line}");
        assert_eq!(counted.wins > 0, winnable, "{line}");
        for threads in [2, 3] {
            let shared = count_reachable(
                &start,
                &CountOptions {
                    variant,
                    memory_bytes: 16 << 20,
                    unsettled_only: false,
                    max_nodes: None,
                    time_limit: None,
                    threads,
                },
                None,
            );
            assert!(shared.complete, "{line} threads {threads}");
            assert_eq!(shared.positions, positions, "{line} threads {threads}");
            assert_eq!(shared.wins, counted.wins, "{line} threads {threads}");
            assert_eq!(shared.settled, counted.settled, "{line} threads {threads}");
        }
        let exact = SolveOptions {
            algorithm: Algorithm::Exact,
            ..options
        };
        let exact = solver.solve(&start, &exact, None).unwrap();
        assert_eq!(exact.stats.nodes, positions, "{line}");
        // Two threads sharing one set reach the same verdict (a won line is replayed by
        // the solver before it is returned).
        let parallel = SolveOptions {
            algorithm: Algorithm::Exact,
            threads: 2,
            dfs: DfsOptions::default(),
            ..options
        };
        let shared = solver.solve(&start, &parallel, None).unwrap();
        let expected = if winnable {
            Verdict::Solvable
        } else {
            Verdict::Unsolvable
        };
        assert_eq!(shared.verdict, expected, "{line} (2 threads)");
        let report = solver.solve(&start, &options, None).unwrap();
        // Distinct positions: every entered position is expanded or won; `nodes` also
        // counts re-entries cut on the current path (cycles of `common`).
        let distinct = report.stats.expanded + report.stats.wins;
        assert_eq!(distinct, positions, "{line}");
        assert_eq!(report.verdict == Verdict::Solvable, winnable, "{line}");
    }
}
