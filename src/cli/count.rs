//! `gaps count`: the exact size of a position's reachable space (and, on `common`, of
//! its part before column 0 settles): how much a proof of loss must visit.
//!
//! Invariant: the figures are exact when `complete` is true; a count stopped by a limit
//! says which, and its figures are lower bounds.

use super::args::{named_variant, pysol_variant};
use super::input_error;
use super::solve::PositionInput;
use clap::Args;
use gaps_engine::{count_reachable, CountOptions, Limit, Variant};
use serde::Serialize;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct CountCmd {
    /// Rules: basic, common or aisleriot [default: basic; with `--pysol`, the game's].
    #[arg(long)]
    variant: Option<String>,
    /// Memory for the visited set, in MiB (about 18 bytes a key when full; on common one
    /// key per class of positions that differ only by where column 0's Twos stand).
    #[arg(long = "memory-mb", default_value_t = 4096)]
    memory_mb: usize,
    /// `common` only: count the positions before column 0 settles (column 0 all Twos)
    /// and the settled positions one move beyond them, without expanding those.
    #[arg(long)]
    unsettled: bool,
    /// Most positions to count.
    #[arg(long)]
    nodes: Option<u64>,
    /// Time limit in milliseconds.
    #[arg(long = "time-ms")]
    time_ms: Option<u64>,
    /// Threads sharing one visited set.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    input: PositionInput,
}

/// `gaps count --json`.
#[derive(Serialize)]
struct CountJson {
    variant: &'static str,
    positions: u64,
    settled: u64,
    unsettled: u64,
    wins: u64,
    complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
    set_bytes: u64,
    bytes_per_position: f64,
    elapsed_ms: f64,
    positions_per_second: f64,
}

pub fn run(cmd: CountCmd) -> anyhow::Result<()> {
    let named = named_variant(cmd.variant.as_deref())?;
    let variant = match cmd.input.pysol()? {
        Some(deal) => pysol_variant(named, deal.game, &format!("pysol {deal}"))?,
        None => named.unwrap_or(Variant::Basic),
    };
    // `count` names its memory and threads flags its own way.
    let flag = |limit: Limit| match limit {
        Limit::TableMb => "--memory-mb".to_string(),
        Limit::Threads => "--threads".to_string(),
        other => super::args::flag(other),
    };
    let check = |limit: Limit, value: u64| {
        limit
            .check(value, None)
            .map_err(|e| input_error(e.message(flag)))
    };
    check(Limit::TableMb, cmd.memory_mb as u64)?;
    if cmd.unsettled && variant != Variant::Common {
        return Err(input_error(
            "--unsettled applies to the common variant only",
        ));
    }
    check(Limit::Threads, cmd.threads as u64)?;
    for (limit, value) in [(Limit::Nodes, cmd.nodes), (Limit::TimeMs, cmd.time_ms)] {
        if let Some(value) = value {
            check(limit, value)?;
        }
    }
    let start = cmd.input.read()?;
    let options = CountOptions {
        variant,
        memory_bytes: cmd.memory_mb << 20,
        unsettled_only: cmd.unsettled,
        max_nodes: cmd.nodes,
        time_limit: cmd.time_ms.map(Duration::from_millis),
        threads: cmd.threads,
    };
    let report = count_reachable(&start, &options, None);
    let seconds = report.stats.elapsed.as_secs_f64();
    let json = CountJson {
        variant: variant.name(),
        positions: report.positions,
        settled: report.settled,
        unsettled: report.positions - report.settled,
        wins: report.wins,
        complete: report.complete,
        stopped: report.stopped.map(|s| s.name()),
        set_bytes: report.set_bytes,
        bytes_per_position: report.set_bytes as f64 / report.positions.max(1) as f64,
        elapsed_ms: seconds * 1e3,
        positions_per_second: (report.positions as f64 / seconds.max(1e-9)).round(),
    };
    if cmd.json {
        outln!("{}", serde_json::to_string(&json)?);
        return Ok(());
    }
    let bound = if json.complete { "" } else { "at least " };
    outln!("positions: {bound}{}", json.positions);
    if variant == Variant::Common {
        let what = if cmd.unsettled {
            "settled (frontier, not expanded)"
        } else {
            "settled"
        };
        outln!("unsettled: {bound}{}", json.unsettled);
        outln!("{what}: {bound}{}", json.settled);
    }
    outln!("won positions: {}", json.wins);
    match json.stopped {
        Some(reason) => outln!("stopped: {reason} (the counts are lower bounds)"),
        None => outln!("complete: every reachable position counted"),
    }
    outln!(
        "visited set: {:.1} MiB, {:.1} bytes a position; {:.1} s, {:.2}M positions/s",
        json.set_bytes as f64 / (1 << 20) as f64,
        json.bytes_per_position,
        seconds,
        json.positions_per_second / 1e6
    );
    Ok(())
}
