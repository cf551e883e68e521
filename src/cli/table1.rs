//! `gaps table1`: the paper's Table 1 (success rate of iterative sampling against the
//! maximum number of probes, both variants) on our own numbered deals.
//!
//! Invariants: one sampling run per deal with the largest probe count; the success rate
//! at `N` probes is the fraction of deals whose first winning probe is at most `N` (a
//! run with fewer probes would have made exactly the same first `N` probes, since the
//! probe sequence depends only on the deal, the variant and the seed). Deals are handed
//! out through an atomic counter, so results do not depend on scheduling.

use super::args::BoardArgs;
use super::input_error;
use super::solve::engine_error;
use crate::report::wilson_95;
use clap::Args;
use gaps_engine::{deal, Algorithm, SolveOptions, Solver, Variant, Verdict};
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The paper's Table 1 (Helmstetter & Cazenave 2003): probes, basic %, common %.
const PAPER: [(u64, f64, f64); 8] = [
    (1, 0.046, 0.041),
    (10, 0.373, 0.396),
    (100, 1.37, 2.96),
    (10_000, 7.1, 26.6),
    (100_000, 9.7, 43.1),
    (1_000_000, 12.8, 53.0),
    (10_000_000, 14.5, 60.3),
    (100_000_000, 16.4, 66.9),
];

#[derive(Args, Debug)]
pub struct Table1Cmd {
    #[command(flatten)]
    board: BoardArgs,
    /// How many deals.
    #[arg(long, default_value_t = 1000)]
    deals: u64,
    /// First deal number.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Largest probe count (rows are the paper's counts up to this one).
    #[arg(long, default_value_t = 10_000)]
    max_probes: u64,
    /// Seed of the random probes.
    #[arg(long, default_value_t = 0)]
    search_seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Row {
    probes: u64,
    basic: f64,
    basic_ci95: (f64, f64),
    common: f64,
    common_ci95: (f64, f64),
    paper_basic: f64,
    paper_common: f64,
}

#[derive(Serialize)]
struct Report {
    deals: u64,
    seed: u64,
    suits: usize,
    ranks: usize,
    max_probes: u64,
    rows: Vec<Row>,
    probes_per_second: [f64; 2],
    elapsed_ms: f64,
}

/// First winning probe of each deal (`None`: no win within `max_probes`), and probes/s.
fn first_wins(
    cmd: &Table1Cmd,
    variant: Variant,
    threads: usize,
) -> anyhow::Result<(Vec<Option<u64>>, f64)> {
    let layout = cmd.board.layout()?;
    let next = AtomicU64::new(0);
    let results = Mutex::new(vec![None; cmd.deals as usize]);
    let probes_done = AtomicU64::new(0);
    let began = Instant::now();
    let options = SolveOptions {
        variant,
        algorithm: Algorithm::Sampling,
        probes: Some(cmd.max_probes),
        seed: cmd.search_seed,
        ..SolveOptions::default()
    };
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<()> {
                    let mut solver = Solver::with_table_bytes(1 << 16);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= cmd.deals {
                            return Ok(());
                        }
                        let start = deal(cmd.seed + i, layout);
                        let report = solver.solve(&start, &options, None).map_err(engine_error)?;
                        probes_done.fetch_add(report.stats.probes, Ordering::Relaxed);
                        let first =
                            (report.verdict == Verdict::Solvable).then_some(report.stats.probes);
                        results.lock().expect("results")[i as usize] = first;
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().expect("worker")?;
        }
        Ok(())
    })?;
    let secs = began.elapsed().as_secs_f64().max(1e-9);
    let per_core = probes_done.load(Ordering::Relaxed) as f64 / secs / threads as f64;
    Ok((results.into_inner().expect("results"), per_core))
}

/// Runs the experiment and prints the table.
pub fn run(cmd: Table1Cmd) -> anyhow::Result<()> {
    if cmd.deals == 0 || cmd.max_probes == 0 {
        return Err(input_error("--deals and --max-probes must be at least 1"));
    }
    cmd.seed
        .checked_add(cmd.deals - 1)
        .ok_or_else(|| input_error("--seed + --deals overflows"))?;
    let threads = cmd
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let began = Instant::now();
    let (basic, basic_rate) = first_wins(&cmd, Variant::Basic, threads)?;
    let (common, common_rate) = first_wins(&cmd, Variant::Common, threads)?;
    let rate = |wins: &[Option<u64>], n: u64| {
        let k = wins.iter().filter(|w| w.is_some_and(|p| p <= n)).count() as u64;
        (100.0 * k as f64 / cmd.deals as f64, wilson_95(k, cmd.deals))
    };
    let pct = |(lo, hi): (f64, f64)| (100.0 * lo, 100.0 * hi);
    let rows: Vec<Row> = PAPER
        .iter()
        .filter(|(n, _, _)| *n <= cmd.max_probes)
        .map(|&(n, paper_basic, paper_common)| {
            let (b, bci) = rate(&basic, n);
            let (c, cci) = rate(&common, n);
            Row {
                probes: n,
                basic: b,
                basic_ci95: pct(bci),
                common: c,
                common_ci95: pct(cci),
                paper_basic,
                paper_common,
            }
        })
        .collect();
    let report = Report {
        deals: cmd.deals,
        seed: cmd.seed,
        suits: cmd.board.suits,
        ranks: cmd.board.ranks,
        max_probes: cmd.max_probes,
        rows,
        probes_per_second: [basic_rate.round(), common_rate.round()],
        elapsed_ms: began.elapsed().as_secs_f64() * 1e3,
    };
    if cmd.json {
        outln!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    outln!(
        "Iterative sampling, deals {}..{} ({}x{}), probe seed {}; success rate % [Wilson 95%]",
        cmd.seed,
        cmd.seed + cmd.deals - 1,
        cmd.board.suits,
        cmd.board.ranks,
        cmd.search_seed
    );
    outln!("| max probes | basic (ours) | basic (paper) | common (ours) | common (paper) |");
    outln!("|---|---|---|---|---|");
    for r in &report.rows {
        outln!(
            "| {} | {:.3} [{:.3}, {:.3}] | {} | {:.3} [{:.3}, {:.3}] | {} |",
            r.probes,
            r.basic,
            r.basic_ci95.0,
            r.basic_ci95.1,
            r.paper_basic,
            r.common,
            r.common_ci95.0,
            r.common_ci95.1,
            r.paper_common
        );
    }
    outln!(
        "probes/s per core: basic {:.0}, common {:.0}; {} threads; {:.1} s",
        report.probes_per_second[0],
        report.probes_per_second[1],
        threads,
        report.elapsed_ms / 1e3
    );
    Ok(())
}
