//! `gaps bench`: a fixed deal set searched with fixed options. The total node count is
//! deterministic (it changes only when the search changes: put it in commit messages as
//! `Bench: <nodes>`); time, speed and peak memory are measured alongside.
//!
//! With `--blocks` it prints Helmstetter and Cazenave's (2003) Tables 2-4 (see `blocks_table`).
//!
//! It also runs the paper-000 comparison (table only, incremental transpositions only,
//! both; small and large table) in complete mode when asked with `--compare`.

use super::args::BoardArgs;
use super::winrate::solve_range;
use super::{input_error, SearchArgs};
use clap::Args;
use gaps_engine::default_dfs_table_bytes;
use gaps_engine::{DfsOptions, Layout, SolveOptions};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BenchCmd {
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    board: BoardArgs,
    /// Number of deals (numbers 0..N).
    #[arg(long, default_value_t = 200)]
    deals: u64,
    /// Worker threads (1 gives per-core figures).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Compare transposition detectors (table / incremental / both) at two table sizes,
    /// in complete mode, as in Helmstetter and Cazenave 2004 (Figures 5-7).
    #[arg(long)]
    compare: bool,
    /// Small table size for --compare, in MiB.
    #[arg(long = "small-table-mb", default_value_t = 1)]
    small_table_mb: usize,
    /// Helmstetter and Cazenave (2003) Tables 2-4: complete DFS (table only, and table + incremental
    /// transpositions) against complete block search, same table budget
    /// (`--table-mb`, default 64), one thread.
    #[arg(long)]
    blocks: bool,
    /// With --blocks: these deal numbers (comma-separated) instead of 0..N.
    #[arg(long = "deal-list", value_delimiter = ',')]
    deal_list: Vec<u64>,
    /// With --blocks: one line per deal.
    #[arg(long = "per-deal")]
    per_deal: bool,
}

/// Peak resident memory of this process in KiB (Linux), if known.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

pub fn run(cmd: BenchCmd) -> anyhow::Result<()> {
    let variant = cmd.search.variant()?;
    let layout = cmd.board.layout()?;
    if cmd.threads == 0 || cmd.deals == 0 {
        return Err(input_error("--threads and --deals must be at least 1"));
    }
    let base = cmd.search.options(variant)?;
    if cmd.blocks {
        if variant != gaps_engine::Variant::Basic {
            return Err(input_error(
                "--blocks compares searches of the basic variant",
            ));
        }
        let deals = if cmd.deal_list.is_empty() {
            (0..cmd.deals).collect()
        } else {
            cmd.deal_list.clone()
        };
        return super::blocks_table::run(&super::blocks_table::BlocksTable {
            layout,
            deals,
            table_bytes: cmd.search.table_bytes(),
            time_limit: base.time_limit,
            per_deal: cmd.per_deal,
        });
    }
    if cmd.compare {
        return compare(&cmd, layout, base);
    }
    let began = Instant::now();
    let tally = solve_range(
        layout,
        0,
        cmd.deals,
        &base,
        cmd.search.table_bytes(),
        cmd.threads,
        &|| {},
    )?;
    let secs = began.elapsed().as_secs_f64();
    outln!(
        "bench {variant} {layout} deals 0..{} algorithm {} table {} MiB threads {}",
        cmd.deals,
        base.algorithm,
        base.memory_limit
            .unwrap_or_else(|| default_dfs_table_bytes(variant))
            .min(cmd.search.table_bytes())
            >> 20,
        cmd.threads
    );
    outln!(
        "verdicts: {} solvable, {} unsolvable, {} unknown",
        tally.solvable,
        tally.unsolvable,
        tally.unknown
    );
    outln!(
        "time {:.3} s: {:.1} deals/s, {:.2}M nodes/s, max {} nodes in one deal; peak RSS {} MiB",
        secs,
        cmd.deals as f64 / secs,
        tally.nodes as f64 / secs / 1e6,
        tally.max_nodes,
        peak_rss_kib().map_or("?".to_string(), |k| (k / 1024).to_string())
    );
    outln!("Bench: {}", tally.nodes);
    Ok(())
}

fn compare(cmd: &BenchCmd, layout: Layout, base: SolveOptions) -> anyhow::Result<()> {
    outln!(
        "complete search of {} {} deals 0..{} (Helmstetter and Cazenave 2004: N_tt, N_it, N_tt_it)",
        base.variant,
        layout,
        cmd.deals
    );
    outln!(
        "{:<34} {:>14} {:>10} {:>12}",
        "detectors",
        "nodes",
        "time s",
        "Mnodes/s"
    );
    let sizes = [cmd.small_table_mb, cmd.search.table_bytes() >> 20];
    let runs = [
        ("incremental only", false, true, 0usize),
        ("table only (small)", true, false, 0),
        ("table+incremental (small)", true, true, 0),
        ("table only (large)", true, false, 1),
        ("table+incremental (large)", true, true, 1),
    ];
    for (name, table, incremental, size) in runs {
        let options = SolveOptions {
            dfs: DfsOptions {
                table,
                incremental,
                complete: true,
                reduce: false,
                prune_dead: false,
            },
            memory_limit: Some(sizes[size] << 20),
            ..base
        };
        let began = Instant::now();
        let tally = solve_range(
            layout,
            0,
            cmd.deals,
            &options,
            sizes[size] << 20,
            cmd.threads,
            &|| {},
        )?;
        let secs = began.elapsed().as_secs_f64();
        let label = if table {
            format!("{name} {} MiB", sizes[size])
        } else {
            name.to_string()
        };
        outln!(
            "{:<34} {:>14} {:>10.2} {:>12.2}{}",
            label,
            tally.nodes,
            secs,
            tally.nodes as f64 / secs / 1e6,
            if tally.unknown > 0 {
                format!("  ({} unknown)", tally.unknown)
            } else {
                String::new()
            }
        );
    }
    Ok(())
}
