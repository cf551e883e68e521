//! `gaps bench --blocks`: Helmstetter and Cazenave's (2003) Tables 2-4 on our deals. Each deal is searched
//! completely (not stopped at the first win, as in the paper) by depth-first search
//! with the table only (the paper's DFS), by our depth-first search with the table and
//! incremental transpositions, by block search (the paper's), and by block search with
//! incremental transpositions between faces, one after the other on one thread, each
//! with a table of the same byte budget.
//!
//! Invariant: a deal where any of the four hits the time limit is left out of every
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
    /// Print one line per deal (Helmstetter and Cazenave 2003, Figure 7).
    pub per_deal: bool,
}

/// The searches compared, in the order they run: DFS (table only), DFS (table + IT),
/// blocks, blocks + IT.
const RUNS: usize = 4;

#[derive(Default)]
struct Sums {
    deals: u64,
    positions: [u64; RUNS],
    secs: [f64; RUNS],
    /// Blocks entered by the two block searches.
    blocks: [u64; 2],
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
        memory_limit: Some(spec.table_bytes),
        ..SolveOptions::default()
    }
}

/// Runs the comparison and prints the table.
pub fn run(spec: &BlocksTable) -> anyhow::Result<()> {
    let mut solver = Solver::with_table_bytes(spec.table_bytes);
    let runs: [SolveOptions; RUNS] = [
        options(Algorithm::Dfs, false, spec),
        options(Algorithm::Dfs, true, spec),
        options(Algorithm::Blocks, false, spec),
        options(Algorithm::Blocks, true, spec),
    ];
    outln!(
        "complete searches of basic {} deals ({} deals), table {} MiB each, one thread",
        spec.layout,
        spec.deals.len(),
        spec.table_bytes >> 20
    );
    if spec.per_deal {
        outln!(
            "{:>6} {:>10} {:>14} {:>9} {:>14} {:>9} {:>11} {:>14} {:>9} {:>7} {:>6} {:>7} {:>11} {:>14} {:>9}",
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
            "gain",
            "blocks+it",
            "b+it pos",
            "b+it s"
        );
    }
    let mut sums = Sums::default();
    let mut left_out = 0;
    for &seed in &spec.deals {
        let start = deal(seed, spec.layout);
        let mut reports = Vec::with_capacity(RUNS);
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
                let [(dfs, dfs_s), (dfs_it, dfs_it_s), (block, block_s), (block_it, block_it_s)] =
                    [reached(0), reached(1), reached(2), reached(3)];
                outln!(
                    "{seed:>6} {:>10} {dfs:>14} {dfs_s:>9} {dfs_it:>14} {dfs_it_s:>9} {:>11} {block:>14} {block_s:>9} {:>7} {:>6} {:>7} {:>11} {block_it:>14} {block_it_s:>9}  (time limit: left out of the averages)",
                    "unknown", reports[2].stats.blocks, "", "", "", reports[3].stats.blocks,
                );
            }
            continue;
        }
        let secs = |s: &SearchStats| s.elapsed.as_secs_f64();
        sums.deals += 1;
        for (i, report) in reports.iter().enumerate() {
            sums.positions[i] += report.stats.nodes;
            sums.secs[i] += secs(&report.stats);
        }
        let [dfs, dfs_it, blocks, blocks_it] = [0, 1, 2, 3].map(|i| &reports[i].stats);
        sums.blocks[0] += blocks.blocks;
        sums.blocks[1] += blocks_it.blocks;
        sums.disagreements += u64::from(reports.iter().any(|r| r.verdict != reports[0].verdict));
        if spec.per_deal {
            outln!(
                "{:>6} {:>10} {:>14} {:>9.2} {:>14} {:>9.2} {:>11} {:>14} {:>9.2} {:>7.1} {:>6.2} {:>7.2} {:>11} {:>14} {:>9.2}",
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
                blocks_it.blocks,
                blocks_it.nodes,
                secs(blocks_it),
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
    let line = |label: &str, value: String| -> anyhow::Result<()> {
        outln!("{label:<52} {value:>14}");
        Ok(())
    };
    outln!(
        "deals compared: {} (left out at the time limit: {left_out})",
        s.deals
    );
    let searches = [
        "DFS (table only)",
        "DFS (table + IT)",
        "blocks",
        "blocks + IT",
    ];
    for (i, name) in searches.iter().enumerate() {
        line(
            &format!("avg. number of positions for {name}"),
            format!("{:.0}", s.positions[i] as f64 / n),
        )?;
    }
    for (b, name) in searches[2..].iter().enumerate() {
        let blocks = s.blocks[b].max(1) as f64;
        line(
            &format!("avg. number of blocks, {name}"),
            format!("{:.0}", s.blocks[b] as f64 / n),
        )?;
        line(
            &format!("avg. size of blocks, {name}"),
            format!("{:.1}", s.positions[2 + b] as f64 / blocks),
        )?;
        line(
            &format!("R ({name} positions / DFS positions)"),
            format!(
                "{:.2}",
                s.positions[2 + b] as f64 / s.positions[0].max(1) as f64
            ),
        )?;
    }
    for (i, name) in searches.iter().enumerate() {
        line(
            &format!("avg. time for {name}"),
            format!("{:.3}s", s.secs[i] / n),
        )?;
    }
    for (b, name) in searches[2..].iter().enumerate() {
        let secs = s.secs[2 + b].max(1e-9);
        line(
            &format!("speed-up of {name} over DFS (table only, + IT)"),
            format!("{:.2}x {:.2}x", s.secs[0] / secs, s.secs[1] / secs),
        )?;
    }
    Ok(())
}
