//! `gaps bench --blocks`: paper 001's Tables 2-4 on our deals. Each deal is searched
//! completely (not stopped at the first win, as in the paper) by depth-first search
//! with the table only (the paper's DFS), by our depth-first search with the table and
//! incremental transpositions, and by block search, one after the other on one thread,
//! each with a table of the same byte budget.
//!
//! Invariant: a deal where any of the three hits the time limit is left out of every
//! average (and counted), so the averages always compare the same deals.

use super::solve::engine_error;
use gaps_engine::{
    deal, Algorithm, DfsOptions, Layout, SearchStats, SolveOptions, Solver, Variant, Verdict,
};
use std::time::Duration;

/// What to compare.
pub struct BlocksTable {
    /// Board size.
    pub layout: Layout,
    /// Deal numbers.
    pub deals: Vec<u64>,
    /// Table budget of every search, bytes.
    pub table_bytes: usize,
    /// Time limit per search.
    pub time_limit: Option<Duration>,
    /// Print one line per deal (paper 001, Figure 7).
    pub per_deal: bool,
}

#[derive(Default)]
struct Sums {
    deals: u64,
    dfs_positions: u64,
    dfs_it_positions: u64,
    blocks: u64,
    block_positions: u64,
    dfs_secs: f64,
    dfs_it_secs: f64,
    block_secs: f64,
    disagreements: u64,
}

fn options(algorithm: Algorithm, incremental: bool, spec: &BlocksTable) -> SolveOptions {
    SolveOptions {
        variant: Variant::Basic,
        algorithm,
        dfs: DfsOptions {
            table: true,
            incremental,
            complete: true,
            reduce: false,
            prune_dead: false,
        },
        time_limit: spec.time_limit,
        table_limit: Some(spec.table_bytes),
        ..SolveOptions::default()
    }
}

/// Runs the comparison and prints the table.
pub fn run(spec: &BlocksTable) -> anyhow::Result<()> {
    let mut solver = Solver::with_table_bytes(spec.table_bytes);
    let runs = [
        options(Algorithm::Dfs, false, spec),
        options(Algorithm::Dfs, true, spec),
        options(Algorithm::Blocks, false, spec),
    ];
    outln!(
        "complete searches of basic {} deals ({} deals), table {} MiB each, one thread",
        spec.layout,
        spec.deals.len(),
        spec.table_bytes >> 20
    );
    if spec.per_deal {
        outln!(
            "{:>6} {:>10} {:>14} {:>9} {:>14} {:>9} {:>11} {:>14} {:>9} {:>7} {:>6} {:>7}",
            "deal",
            "verdict",
            "dfs pos",
            "dfs s",
            "dfs+it pos",
            "dfs+it s",
            "blocks",
            "block pos",
            "blocks s",
            "size",
            "R",
            "gain"
        );
    }
    let mut sums = Sums::default();
    let mut left_out = 0;
    for &seed in &spec.deals {
        let start = deal(seed, spec.layout);
        let mut reports = Vec::with_capacity(3);
        for run in &runs {
            reports.push(solver.solve(&start, run, None).map_err(engine_error)?);
        }
        if reports.iter().any(|r| r.verdict == Verdict::Unknown) {
            left_out += 1;
            if spec.per_deal {
                // What each search reached; `>` marks one stopped by the time limit.
                let reached = |i: usize| {
                    let r = &reports[i];
                    let mark = if r.verdict == Verdict::Unknown {
                        ">"
                    } else {
                        ""
                    };
                    let secs = r.stats.elapsed.as_secs_f64();
                    (
                        format!("{mark}{}", r.stats.nodes),
                        format!("{mark}{secs:.2}"),
                    )
                };
                let [(dfs, dfs_s), (dfs_it, dfs_it_s), (block, block_s)] =
                    [reached(0), reached(1), reached(2)];
                outln!(
                    "{seed:>6} {:>10} {dfs:>14} {dfs_s:>9} {dfs_it:>14} {dfs_it_s:>9} {:>11} {block:>14} {block_s:>9}  (time limit: left out of the averages)",
                    "unknown", reports[2].stats.blocks,
                );
            }
            continue;
        }
        let [dfs, dfs_it, blocks] = [&reports[0].stats, &reports[1].stats, &reports[2].stats];
        let secs = |s: &SearchStats| s.elapsed.as_secs_f64();
        sums.deals += 1;
        sums.dfs_positions += dfs.nodes;
        sums.dfs_it_positions += dfs_it.nodes;
        sums.blocks += blocks.blocks;
        sums.block_positions += blocks.nodes;
        sums.dfs_secs += secs(dfs);
        sums.dfs_it_secs += secs(dfs_it);
        sums.block_secs += secs(blocks);
        sums.disagreements += u64::from(reports.iter().any(|r| r.verdict != reports[0].verdict));
        if spec.per_deal {
            outln!(
                "{:>6} {:>10} {:>14} {:>9.2} {:>14} {:>9.2} {:>11} {:>14} {:>9.2} {:>7.1} {:>6.2} {:>7.2}",
                seed,
                reports[0].verdict.name(),
                dfs.nodes,
                secs(dfs),
                dfs_it.nodes,
                secs(dfs_it),
                blocks.blocks,
                blocks.nodes,
                secs(blocks),
                blocks.nodes as f64 / blocks.blocks.max(1) as f64,
                blocks.nodes as f64 / dfs.nodes.max(1) as f64,
                secs(dfs) / secs(blocks).max(1e-9),
            );
        }
    }
    print_summary(&sums, left_out)?;
    if sums.disagreements > 0 {
        anyhow::bail!("{} deals got different verdicts", sums.disagreements);
    }
    Ok(())
}

fn print_summary(s: &Sums, left_out: u64) -> anyhow::Result<()> {
    let n = s.deals.max(1) as f64;
    outln!(
        "deals compared: {} (left out at the time limit: {left_out})",
        s.deals
    );
    outln!(
        "avg. number of positions for DFS (table only)   {:>14.0}",
        s.dfs_positions as f64 / n
    );
    outln!(
        "avg. number of positions for DFS (table + IT)   {:>14.0}",
        s.dfs_it_positions as f64 / n
    );
    outln!(
        "avg. number of blocks                            {:>14.0}",
        s.blocks as f64 / n
    );
    outln!(
        "avg. size of blocks                              {:>14.1}",
        s.block_positions as f64 / s.blocks.max(1) as f64
    );
    outln!(
        "R (block positions / DFS positions)              {:>14.2}",
        s.block_positions as f64 / s.dfs_positions.max(1) as f64
    );
    outln!(
        "avg. time for DFS (table only)                   {:>13.3}s",
        s.dfs_secs / n
    );
    outln!(
        "avg. time for DFS (table + IT)                   {:>13.3}s",
        s.dfs_it_secs / n
    );
    outln!(
        "avg. time for block search                       {:>13.3}s",
        s.block_secs / n
    );
    outln!(
        "speed-up of blocks over DFS (table only, + IT)   {:>8.2}x {:>5.2}x",
        s.dfs_secs / s.block_secs.max(1e-9),
        s.dfs_it_secs / s.block_secs.max(1e-9)
    );
    Ok(())
}
