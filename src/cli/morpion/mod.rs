//! `gaps morpion prove`: the longest game reachable once a record's first K moves are
//! kept (README, "Morpion Solitaire"; docs/morpion.md).
//!
//! Invariants: a record that does not decode or replay, or a K out of range, exits
//! with code 2 before anything is searched or written; with `--state FILE` the proof
//! is resumable: the file's header pins the record prefix, variant, method and split,
//! each finished unit is appended (and flushed) as it ends, and a rerun skips them
//! ([`state`]); `--audit N` searches N stored units again and compares ([`audit`]).

mod audit;
mod state;

use super::input_error;
use anyhow::Context as _;
use clap::{Args, Subcommand};
use gaps_engine::morpion::board::{Board, MorpionVariant};
use gaps_engine::morpion::endgame::{
    conclude, prefix, search_frontier, split_for, EndgameOptions, EndgameReport, Frontier, Method,
    UnitResult,
};
use gaps_engine::morpion::record::Record;
use gaps_engine::StopReason;
use serde::Serialize;
use state::Load;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Units a resumable proof is split into at least (whatever the threads): small
/// enough pieces that an interrupted run loses little.
const STATE_UNITS: usize = 16_384;

#[derive(Args, Debug)]
pub struct MorpionCmd {
    #[command(subcommand)]
    command: MorpionCommand,
}

#[derive(Subcommand, Debug)]
enum MorpionCommand {
    /// Prove the endgame of a record: every continuation after its first K moves.
    Prove(ProveArgs),
    /// Estimate a proof's node count by random probes (Knuth's estimator).
    Estimate(EstimateArgs),
}

/// The record and the moves of it kept, as both subcommands take them.
#[derive(Args, Debug)]
pub struct RecordArgs {
    /// The record: MSR JSON or Pentasol text.
    #[arg(long)]
    record: PathBuf,
    /// Moves of the record kept (0 to its length).
    #[arg(long)]
    from: usize,
    /// Rules: 5T or 5D [default: the record's; 5T for Pentasol].
    #[arg(long)]
    variant: Option<String>,
}

impl RecordArgs {
    /// The record, the variant to play it under and the board after its first K
    /// moves (every move of the record checked).
    fn read(&self) -> anyhow::Result<(Record, MorpionVariant, Board)> {
        let text = std::fs::read_to_string(&self.record)
            .map_err(|e| input_error(format!("cannot read {}: {e}", self.record.display())))?;
        let record = Record::parse(&text).map_err(|e| input_error(e.to_string()))?;
        let asked = match self.variant.as_deref() {
            Some(code) => Some(MorpionVariant::from_code(code).ok_or_else(|| {
                input_error(format!("unknown variant {code:?}: expected 5T or 5D"))
            })?),
            None => None,
        };
        let variant = record
            .variant_for(asked)
            .map_err(|e| input_error(e.to_string()))?;
        let board = prefix(&record, variant, self.from).map_err(|e| input_error(e.to_string()))?;
        Ok((record, variant, board))
    }
}

#[derive(Args, Debug)]
pub struct EstimateArgs {
    #[command(flatten)]
    game: RecordArgs,
    /// Random probes.
    #[arg(long, default_value_t = 100_000)]
    probes: u64,
    /// Seed of the probes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args, Debug)]
pub struct ProveArgs {
    #[command(flatten)]
    game: RecordArgs,
    /// Transposition handling: it (incremental transpositions), plain or table.
    #[arg(long, default_value = "it")]
    method: String,
    /// Node limit.
    #[arg(long)]
    nodes: Option<u64>,
    /// Time limit in milliseconds.
    #[arg(long = "time-ms")]
    time_ms: Option<u64>,
    /// Threads searching independent subtrees [default: every core].
    #[arg(long)]
    threads: Option<usize>,
    /// Depth at which the proof is split into subtrees [default: the shallowest with
    /// 64 subtrees a thread, or 16384 subtrees with --state].
    #[arg(long = "split-depth")]
    split_depth: Option<usize>,
    /// Key table of `--method table`, in MiB.
    #[arg(long = "table-mb", default_value_t = 256)]
    table_mb: usize,
    /// Resumable proof: finished subtrees are appended to FILE and skipped on a rerun.
    #[arg(long)]
    state: Option<PathBuf>,
    /// Check a state file instead of resuming it: search N of its stored units again,
    /// picked at random (--seed; N at least the units stored: all of them), and
    /// compare their node counts and longest lines with the stored ones. Read only:
    /// the file may belong to a proof still running.
    #[arg(long, value_name = "N", requires = "state")]
    audit: Option<usize>,
    /// Seed of the units --audit picks.
    #[arg(long, requires = "audit")]
    seed: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// `gaps morpion prove --json` (its fields: docs/morpion.md, "The search").
#[derive(Serialize)]
struct ProveJson {
    variant: &'static str,
    from: usize,
    record_length: usize,
    best: usize,
    proved: bool,
    improved: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
    method: &'static str,
    nodes: u64,
    /// Nodes searched by this run (less than `nodes` when a state file held some).
    nodes_this_run: u64,
    elapsed_ms: u64,
    nodes_per_second: f64,
    threads: usize,
    split_depth: usize,
    units: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    units_resumed: Option<usize>,
    line: Vec<serde_json::Value>,
}

pub fn run(cmd: MorpionCmd) -> anyhow::Result<()> {
    match cmd.command {
        MorpionCommand::Prove(args) => prove(args),
        MorpionCommand::Estimate(args) => estimate(args),
    }
}

fn estimate(args: EstimateArgs) -> anyhow::Result<()> {
    let (_, _, mut board) = args.game.read()?;
    if args.probes == 0 {
        return Err(input_error("--probes must be at least 1"));
    }
    let e = gaps_engine::morpion::endgame::estimate(&mut board, args.probes, args.seed);
    outln!(
        "{}",
        serde_json::json!({
            "from": args.game.from, "nodes": e.nodes.round(), "std_error": e.std_error.round(),
            "probes": e.probes, "seed": args.seed, "max_depth": e.max_depth,
            "truncated": e.truncated,
        })
    );
    Ok(())
}

fn prove(args: ProveArgs) -> anyhow::Result<()> {
    let (record, variant, mut board) = args.game.read()?;
    let method = Method::from_name(&args.method).ok_or_else(|| {
        input_error(format!(
            "unknown method {:?}: expected it, plain or table",
            args.method
        ))
    })?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if !(1..=gaps_engine::MAX_SEARCH_THREADS).contains(&threads) {
        return Err(input_error(format!(
            "--threads must be 1 to {}",
            gaps_engine::MAX_SEARCH_THREADS
        )));
    }
    if method == Method::Table && threads > 1 {
        return Err(input_error(
            "--method table searches on one thread (its table is not shared): use --threads 1",
        ));
    }
    if !(1..=gaps_engine::MAX_TABLE_MB).contains(&(args.table_mb as u64)) {
        return Err(input_error(format!(
            "--table-mb must be 1 to {}",
            gaps_engine::MAX_TABLE_MB
        )));
    }
    if args.split_depth.is_some_and(|d| d > 12) {
        return Err(input_error("--split-depth must be 0 to 12"));
    }
    let options = EndgameOptions {
        method,
        threads,
        split_depth: args.split_depth,
        table_bytes: args.table_mb << 20,
        max_nodes: args.nodes,
        time: args.time_ms.map(Duration::from_millis),
    };
    let started = Instant::now();
    let frontier = match (args.split_depth, &args.state) {
        // A resumable proof splits the same way on any number of threads.
        (None, Some(_)) => Frontier::with_units(&mut board, STATE_UNITS, method),
        _ => split_for(&mut board, &options),
    };
    let remainder = record.moves.len() - args.game.from;
    let header = state::header(&record, variant, args.game.from, method, &frontier);
    if let (Some(units), Some(path)) = (args.audit, &args.state) {
        let stored = state::load(path, &board, &header, &frontier, remainder, Load::ReadOnly)?;
        let audit = audit::Audit {
            units,
            seed: args.seed.unwrap_or(1),
            json: args.json,
        };
        return audit.run(&board, &frontier, &options, &stored, path);
    }
    let (done, resumed, sink) = match &args.state {
        Some(path) => {
            let stored = state::load(path, &board, &header, &frontier, remainder, Load::Resume)?;
            let (done, resumed) = (stored.results, stored.count);
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("opening {}", path.display()))?;
            (done, Some(resumed), Some(Mutex::new(file)))
        }
        None => (vec![None; frontier.units.len()], None, None),
    };
    if let (Some(sink), Some(0)) = (&sink, resumed) {
        let mut file = sink.lock().expect("not poisoned");
        if file.metadata()?.len() == 0 {
            writeln!(file, "{header}")?;
        }
    }
    let counter = AtomicU64::new(0);
    let finished_units = AtomicU64::new(resumed.unwrap_or(0) as u64);
    let quiet = AtomicBool::new(false);
    let write_error = Mutex::new(None);
    let on_unit = |index: usize, result: &UnitResult| {
        finished_units.fetch_add(1, Ordering::Relaxed);
        let Some(sink) = &sink else { return };
        // One write of the whole line: a reader (or a kill) sees whole lines or a
        // partial last one, which `state::load` drops.
        let text = state::unit_line(index, result, remainder);
        let mut file = sink.lock().expect("not poisoned");
        let written = file.write_all(text.as_bytes()).and_then(|()| file.flush());
        if let Err(e) = written {
            write_error.lock().expect("not poisoned").get_or_insert(e);
        }
    };
    let units_total = frontier.units.len();
    let (results, stop) = std::thread::scope(|scope| {
        if args.state.is_some() || !args.json {
            scope
                .spawn(|| report_progress(&counter, &finished_units, units_total, &quiet, started));
        }
        let outcome = search_frontier(
            &board,
            &frontier,
            &options,
            done,
            None,
            Some(&counter),
            &on_unit,
        );
        quiet.store(true, Ordering::Relaxed);
        outcome
    });
    if let Some(e) = write_error.into_inner().expect("not poisoned") {
        return Err(e).with_context(|| "writing the state file");
    }
    let elapsed = started.elapsed();
    let report = conclude(
        &record,
        variant,
        args.game.from,
        &board,
        &frontier,
        &results,
        stop,
    );
    let frontier_nodes = if resumed.unwrap_or(0) == 0 {
        frontier.nodes
    } else {
        0
    };
    let this_run = counter.load(Ordering::Relaxed) + frontier_nodes;
    print_report(
        &args, &record, method, threads, resumed, &report, this_run, elapsed,
    )
}

/// Prints progress to standard error every ten seconds until `quiet`.
fn report_progress(
    counter: &AtomicU64,
    units: &AtomicU64,
    total: usize,
    quiet: &AtomicBool,
    started: Instant,
) {
    let mut last = Instant::now();
    while !quiet.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        if last.elapsed() < Duration::from_secs(10) {
            continue;
        }
        last = Instant::now();
        let nodes = counter.load(Ordering::Relaxed);
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "morpion: {} / {total} units, {nodes} nodes this run, {:.2}M nodes/s, {:.0} s",
            units.load(Ordering::Relaxed),
            nodes as f64 / seconds / 1e6,
            seconds
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn print_report(
    args: &ProveArgs,
    record: &Record,
    method: Method,
    threads: usize,
    resumed: Option<usize>,
    report: &EndgameReport,
    this_run: u64,
    elapsed: Duration,
) -> anyhow::Result<()> {
    let line = crate::report::morpion_line(record, &report.line);
    let seconds = elapsed.as_secs_f64();
    let json = ProveJson {
        variant: report.variant.code(),
        from: report.from,
        record_length: report.record_len,
        best: report.best,
        proved: report.proved,
        improved: report.improved,
        stopped: report.stop.map(StopReason::name),
        method: method.name(),
        nodes: report.nodes,
        nodes_this_run: this_run,
        elapsed_ms: elapsed.as_millis() as u64,
        nodes_per_second: (this_run as f64 / seconds.max(1e-9)).round(),
        threads,
        split_depth: report.split_depth,
        units: report.units,
        units_resumed: resumed,
        line,
    };
    if args.json {
        outln!("{}", serde_json::to_string(&json)?);
        return Ok(());
    }
    let verdict = if report.proved {
        format!(
            "proved: the longest game keeping the first {} moves has {} moves",
            report.from, report.best
        )
    } else {
        format!(
            "not proved ({}): the longest game found keeping the first {} moves has {} moves",
            json.stopped.unwrap_or("incomplete"),
            report.from,
            report.best
        )
    };
    outln!("{verdict}");
    if report.improved {
        outln!("longer than the record ({} moves)", report.record_len);
    }
    outln!(
        "{} nodes in {:.1} s ({:.2}M nodes/s on {threads} threads), {} units at depth {}",
        report.nodes,
        seconds,
        json.nodes_per_second / 1e6,
        report.units,
        report.split_depth
    );
    for m in &report.line {
        outln!("{}", record.format_move(*m));
    }
    Ok(())
}
