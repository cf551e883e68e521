//! `gaps winrate`: solves deals `seed..seed+deals-1` (ours, or a PySolFC game's) on all
//! cores.
//!
//! Invariants: each worker thread owns one solver (one table, allocated once); deals are
//! handed out through an atomic counter, so the counts do not depend on scheduling.

use super::args::{redeal_count, BoardArgs};
use super::solve::engine_error;
use super::{input_error, SearchArgs};
use crate::machine::default_search_memory_bytes;
use crate::report::wilson_95;
use anyhow::Context;
use clap::Args;
use gaps_engine::{
    sized_memory, sizes_memory, DealSource, Layout, PysolDeal, PysolGame, SearchStats,
    SolveControls, SolveOptions, SolveReport, Solver, Variant, Verdict, MAX_SEARCH_THREADS,
};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::collections::{BTreeSet, HashSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct WinrateCmd {
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    board: BoardArgs,
    /// How many deals.
    #[arg(long)]
    deals: u64,
    /// First deal number (default 0; with `--pysol`, 1).
    #[arg(long)]
    seed: Option<u64>,
    /// Deal PySolFC's games instead (`montana`, `blue-moon`, ... a game it solves), its numbers from
    /// `--seed` on, each solved as its first round.
    #[arg(long, conflicts_with_all = ["suits", "ranks"])]
    pysol: Option<String>,
    /// Redeals each game may use, 0..=2 (default: with `--pysol`, the game's own number,
    /// as PySolFC plays it, and at most that; 0 otherwise), shuffled by each deal's own
    /// generator.
    #[arg(long)]
    redeals: Option<u8>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Append a CSV line per deal to this file (`deal,verdict,nodes,seconds,algorithm,
    /// stopped`) and skip the deals it holds already, counting them in the totals: a
    /// long run stopped part way goes on where it stopped when run again with the same
    /// options.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The header of an `--out` file.
pub(super) const OUT_HEADER: &str = "deal,verdict,nodes,seconds,algorithm,stopped";
/// The header of an `--out` file of a run over rounds: also the rounds the solution
/// plays (0 without one) and what the first round's own search found.
pub(super) const ROUNDS_HEADER: &str =
    "deal,verdict,nodes,seconds,algorithm,stopped,rounds,first_round";

/// Totals of a run over many deals.
#[derive(Default, Debug, Clone)]
pub struct Tally {
    pub solvable: u64,
    pub unsolvable: u64,
    pub unknown: u64,
    pub nodes: u64,
    pub max_nodes: u64,
    pub max_time: Duration,
    pub times: Vec<Duration>,
    /// Won deals by the rounds their solution plays (1, 2, 3), in a run over rounds.
    pub won_in_rounds: [u64; 3],
    /// What the first round's own search found (solvable, unsolvable, unknown), in a
    /// run over rounds.
    pub first_round: [u64; 3],
}

/// What a deal's solve over rounds found: rounds its solution plays (0: none), and its
/// first round's verdict.
type RoundsSeen = Option<(usize, Verdict)>;

fn verdict_index(verdict: Verdict) -> usize {
    match verdict {
        Verdict::Solvable => 0,
        Verdict::Unsolvable => 1,
        Verdict::Unknown => 2,
    }
}

impl Tally {
    fn add(&mut self, verdict: Verdict, stats: &SearchStats, rounds: RoundsSeen) {
        if let Some((used, first)) = rounds {
            if (1..=3).contains(&used) && verdict == Verdict::Solvable {
                self.won_in_rounds[used - 1] += 1;
            }
            self.first_round[verdict_index(first)] += 1;
        }
        match verdict {
            Verdict::Solvable => self.solvable += 1,
            Verdict::Unsolvable => self.unsolvable += 1,
            Verdict::Unknown => self.unknown += 1,
        }
        self.nodes += stats.nodes;
        self.max_nodes = self.max_nodes.max(stats.nodes);
        self.max_time = self.max_time.max(stats.elapsed);
        self.times.push(stats.elapsed);
    }
    pub(super) fn merge(&mut self, other: Tally) {
        self.solvable += other.solvable;
        self.unsolvable += other.unsolvable;
        self.unknown += other.unknown;
        self.nodes += other.nodes;
        self.max_nodes = self.max_nodes.max(other.max_nodes);
        self.max_time = self.max_time.max(other.max_time);
        self.times.extend(other.times);
        for i in 0..3 {
            self.won_in_rounds[i] += other.won_in_rounds[i];
            self.first_round[i] += other.first_round[i];
        }
    }
}

/// Where the deals of a run come from: a family of numbered deals.
#[derive(Clone, Copy, Debug)]
pub(super) enum DealFamily {
    /// This project's numbered deals of a layout.
    Ours(Layout),
    /// A PySolFC game's numbered deals (numbers checked by the caller).
    Pysol(PysolGame),
}

impl DealFamily {
    /// Deal `number` of the family.
    pub(super) fn source(self, number: u64) -> DealSource {
        match self {
            DealFamily::Ours(layout) => DealSource::Numbered {
                seed: number,
                layout,
            },
            DealFamily::Pysol(game) => DealSource::Pysol(
                PysolDeal::new(game, u128::from(number))
                    .expect("a PySolFC number (checked by `run`)"),
            ),
        }
    }
}

/// Solves deals `first..first+count` with `threads` workers; `on_done` is called after
/// each deal (for progress).
pub fn solve_range(
    layout: Layout,
    first: u64,
    count: u64,
    options: &SolveOptions,
    table_bytes: usize,
    threads: usize,
    on_done: &(dyn Fn() + Sync),
) -> anyhow::Result<Tally> {
    let deals: Vec<u64> = (first..first.saturating_add(count)).collect();
    let on_deal = |_: u64, _: &SolveReport| {
        on_done();
        Ok(())
    };
    solve_deals(
        DealFamily::Ours(layout),
        &deals,
        options,
        0,
        table_bytes,
        threads,
        &on_deal,
    )
}

/// Solves `deals` of `family` with `threads` workers, with `redeals` redeals (over rounds
/// as the deal's source says: [`DealSource::redeals`]), handing each report to
/// `on_deal` (whose error stops the run).
pub(super) fn solve_deals(
    family: DealFamily,
    deals: &[u64],
    options: &SolveOptions,
    redeals: u8,
    table_bytes: usize,
    threads: usize,
    on_deal: &(dyn Fn(u64, &SolveReport) -> anyhow::Result<()> + Sync),
) -> anyhow::Result<Tally> {
    let count = deals.len() as u64;
    let next = AtomicU64::new(0);
    let total = Mutex::new(Tally::default());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut solver = Solver::with_table_bytes(table_bytes);
                let mut mine = Tally::default();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    let number = deals[i as usize];
                    let deal = family.source(number);
                    let start = deal.start();
                    let redeals = deal.redeals(redeals);
                    let controls = SolveControls::default();
                    let report =
                        solver.solve_controlled(&start, options, redeals.as_ref(), controls);
                    let done = report.map_err(engine_error).and_then(|report| {
                        mine.add(report.verdict, &report.stats, rounds_seen(&report));
                        on_deal(number, &report)
                    });
                    if let Err(e) = done {
                        *failure.lock().expect("lock") = Some(e);
                        next.store(count, Ordering::Relaxed);
                        break;
                    }
                }
                total.lock().expect("lock").merge(mine);
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("lock") {
        return Err(e);
    }
    Ok(total.into_inner().expect("lock"))
}

/// The rounds part of a report, as a tally counts it.
fn rounds_seen(report: &SolveReport) -> RoundsSeen {
    let rounds = report.rounds.as_ref()?;
    let used = if report.verdict == Verdict::Solvable {
        rounds.rounds_used()
    } else {
        0
    };
    Some((used, rounds.first_round.unwrap_or(Verdict::Unknown)))
}

#[derive(Serialize)]
struct WinrateJson {
    /// The PySolFC game dealt (`--pysol`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pysol: Option<&'static str>,
    variant: &'static str,
    suits: usize,
    ranks: usize,
    seed: u64,
    deals: u64,
    solvable: u64,
    unsolvable: u64,
    unknown: u64,
    win_rate: f64,
    ci95_low: f64,
    ci95_high: f64,
    /// Win rate counting unknowns as losses and as wins.
    win_rate_unknown_as_loss: f64,
    win_rate_unknown_as_win: f64,
    algorithm: &'static str,
    elapsed_ms: f64,
    deals_per_second: f64,
    nodes: u64,
    nodes_per_second: f64,
    median_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    max_nodes: u64,
    /// Deals solved at once.
    threads: usize,
    /// Threads of each deal's search.
    search_threads: usize,
    /// MiB each deal's search could use for the exact search (0: none drawn).
    memory_mb: u64,
    /// Redeals each deal could use.
    redeals: u8,
    /// In a run over rounds: won deals by the rounds their solution plays (`[one,
    /// two, three]`), and what each first round's own search found (`[solvable,
    /// unsolvable, unknown]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    won_in_rounds: Option<[u64; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_round: Option<[u64; 3]>,
}

/// What an `--out` file holds of deals `first..first+count`.
#[derive(Default)]
pub(super) struct OutFile {
    /// Their totals.
    pub tally: Tally,
    /// The deals it holds.
    pub done: HashSet<u64>,
    /// Those it holds as won.
    pub won: BTreeSet<u64>,
}

/// The options of each deal's search in a run over many deals, and how many deals run at
/// once (`threads`, or by default: one at a time on every core for a search that runs
/// the exact search, else one a core).
pub(super) fn run_options(
    search: &SearchArgs,
    threads: Option<usize>,
    variant: Variant,
) -> anyhow::Result<(SolveOptions, usize)> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let asked = search.options(variant)?;
    // A search that runs the exact search gets every core, one deal at a time, unless
    // told otherwise: "T seconds a deal" then means T seconds on the whole machine, and
    // the hard deals, which take the time, use both cores (docs/engine.md).
    let whole_machine = threads.is_none()
        && search.search_threads.is_none()
        && sizes_memory(asked.algorithm, variant);
    let threads = match threads {
        Some(0) => return Err(input_error("--threads must be at least 1")),
        Some(n) => n,
        None if whole_machine => 1,
        None => cores,
    };
    // The workers share the machine's default memory equally.
    let available = default_search_memory_bytes() / threads as u64;
    let mut options = search.options_within(variant, available)?;
    if whole_machine {
        options.threads = cores.min(MAX_SEARCH_THREADS);
        // Sized again for its threads (no --table-mb here: it would have named them).
        let available = usize::try_from(available).unwrap_or(usize::MAX);
        options.memory_limit = sized_memory(
            options.algorithm,
            variant,
            options.time_limit,
            options.threads,
            available,
        );
    }
    Ok((options, threads))
}

/// An `--out` file's line for deal `number` (with the rounds columns in a run over
/// rounds).
pub(super) fn out_line(number: u64, report: &SolveReport, over_rounds: bool) -> String {
    let mut line = format!(
        "{number},{},{},{:.3},{},{}",
        report.verdict.name(),
        report.stats.nodes,
        report.stats.elapsed.as_secs_f64(),
        report.algorithm.name(),
        report.stopped.map_or("", |s| s.name())
    );
    if let Some((used, first)) = rounds_seen(report).filter(|_| over_rounds) {
        line.push_str(&format!(",{used},{}", first.name()));
    }
    line.push('\n');
    line
}

/// The deals of `first..first+count` an `--out` file holds; an absent file holds none.
pub(super) fn read_out(
    path: &Path,
    header: &str,
    first: u64,
    count: u64,
) -> anyhow::Result<OutFile> {
    let mut held = OutFile::default();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(held),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    if text.lines().next().is_some_and(|first| first != header) {
        return Err(input_error(format!(
            "{} holds another kind of run (its header is not `{header}`): rounds and \
             first-round runs go to different files",
            path.display()
        )));
    }
    for (n, line) in text.lines().enumerate().skip(1) {
        let bad = || {
            input_error(format!(
                "{} line {}: not a winrate line",
                path.display(),
                n + 1
            ))
        };
        let fields: Vec<&str> = line.split(',').collect();
        let [deal, verdict, nodes, seconds, ..] = fields[..] else {
            return Err(bad());
        };
        let rounds = match fields[..] {
            [_, _, _, _, _, _, used, first_round] => Some((
                used.parse().map_err(|_| bad())?,
                first_round.parse().map_err(|_| bad())?,
            )),
            _ if header == ROUNDS_HEADER => return Err(bad()),
            _ => None,
        };
        let deal: u64 = deal.parse().map_err(|_| bad())?;
        let verdict: Verdict = verdict.parse().map_err(|_| bad())?;
        let stats = SearchStats {
            nodes: nodes.parse().map_err(|_| bad())?,
            elapsed: Duration::try_from_secs_f64(seconds.parse().map_err(|_| bad())?)
                .map_err(|_| bad())?,
            ..SearchStats::default()
        };
        if (first..first + count).contains(&deal) && held.done.insert(deal) {
            held.tally.add(verdict, &stats, rounds);
            if verdict == Verdict::Solvable {
                held.won.insert(deal);
            }
        }
    }
    Ok(held)
}

/// The `--out` file opened for appending, its header written if it is new.
pub(super) fn open_out(path: &Path, header: &str) -> anyhow::Result<Mutex<std::fs::File>> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    if file.metadata()?.len() == 0 {
        writeln!(file, "{header}")?;
    }
    Ok(Mutex::new(file))
}

pub fn run(cmd: WinrateCmd) -> anyhow::Result<()> {
    let pysol: Option<PysolGame> = cmd
        .pysol
        .as_deref()
        .map(|g| g.parse().map_err(|e| input_error(format!("--pysol: {e}"))))
        .transpose()?;
    let (variant, layout, family) = match pysol {
        Some(game) => {
            let variant = cmd.search.variant_of_game(game, game.name())?;
            let first = PysolDeal::new(game, 1).expect("game 1 of a game the engine plays");
            (variant, first.position().layout(), DealFamily::Pysol(game))
        }
        None => {
            let layout = cmd.board.layout()?;
            (cmd.search.variant()?, layout, DealFamily::Ours(layout))
        }
    };
    // Every deal of a family has the same redeal rule: its first one answers for all.
    let redeal_count = redeal_count(cmd.redeals, &family.source(1), variant)?;
    // With no redeal the run is a first-round run, its `--out` file in the old form.
    let redeals = (redeal_count > 0).then_some(redeal_count);
    let header = if redeals.is_some() {
        ROUNDS_HEADER
    } else {
        OUT_HEADER
    };
    let seed = cmd.seed.unwrap_or(u64::from(pysol.is_some()));
    if pysol.is_some() && seed == 0 {
        return Err(input_error("--seed: PySolFC game numbers start at 1"));
    }
    if cmd.deals == 0 {
        return Err(input_error("--deals must be at least 1"));
    }
    if seed.checked_add(cmd.deals).is_none() {
        return Err(input_error("--seed + --deals overflows the deal numbers"));
    }
    let (options, threads) = run_options(&cmd.search, cmd.threads, variant)?;
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(cmd.deals);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} deals {per_sec} eta {eta}")
                .expect("valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let began = Instant::now();
    let OutFile {
        mut tally, done, ..
    } = match &cmd.out {
        Some(path) => read_out(path, header, seed, cmd.deals)?,
        None => OutFile::default(),
    };
    bar.inc(done.len() as u64);
    let deals: Vec<u64> = (seed..seed + cmd.deals)
        .filter(|d| !done.contains(d))
        .collect();
    let out = cmd
        .out
        .as_ref()
        .map(|path| open_out(path, header))
        .transpose()?;
    let on_deal = |number: u64, report: &SolveReport| {
        bar.inc(1);
        let Some(out) = &out else {
            return Ok(());
        };
        let line = out_line(number, report, redeals.is_some());
        let mut file = out.lock().expect("lock");
        file.write_all(line.as_bytes())?;
        file.flush()?;
        Ok(())
    };
    let table_bytes = cmd.search.table_bytes();
    let ran = solve_deals(
        family,
        &deals,
        &options,
        redeal_count,
        table_bytes,
        threads,
        &on_deal,
    )?;
    let ran_nodes = ran.nodes;
    tally.merge(ran);
    bar.finish_and_clear();
    let elapsed = began.elapsed();
    let mut times = tally.times.clone();
    times.sort_unstable();
    let quantile = |q: f64| {
        let i = ((times.len() as f64 - 1.0) * q).round() as usize;
        times.get(i).map_or(0.0, |t| t.as_secs_f64() * 1e3)
    };
    let n = cmd.deals;
    let (ci95_low, ci95_high) = wilson_95(tally.solvable, n);
    let json = WinrateJson {
        pysol: pysol.map(PysolGame::name),
        variant: variant.name(),
        suits: layout.suits(),
        ranks: layout.ranks(),
        seed,
        deals: n,
        solvable: tally.solvable,
        unsolvable: tally.unsolvable,
        unknown: tally.unknown,
        win_rate: tally.solvable as f64 / n as f64,
        ci95_low,
        ci95_high,
        win_rate_unknown_as_loss: tally.solvable as f64 / n as f64,
        win_rate_unknown_as_win: (tally.solvable + tally.unknown) as f64 / n as f64,
        algorithm: options.algorithm.name(),
        elapsed_ms: elapsed.as_secs_f64() * 1e3,
        // Of the deals solved by this run (an `--out` file's are counted, not timed).
        deals_per_second: deals.len() as f64 / elapsed.as_secs_f64(),
        nodes: tally.nodes,
        nodes_per_second: ran_nodes as f64 / elapsed.as_secs_f64(),
        median_ms: quantile(0.5),
        p99_ms: quantile(0.99),
        max_ms: tally.max_time.as_secs_f64() * 1e3,
        max_nodes: tally.max_nodes,
        threads,
        search_threads: options.threads,
        memory_mb: if sizes_memory(options.algorithm, variant) {
            options.memory_limit.map_or(0, |bytes| (bytes >> 20) as u64)
        } else {
            0
        },
        redeals: redeal_count,
        won_in_rounds: redeals.map(|_| tally.won_in_rounds),
        first_round: redeals.map(|_| tally.first_round),
    };
    if cmd.json {
        outln!("{}", serde_json::to_string(&json)?);
    } else {
        let what = match pysol {
            Some(game) => format!("PySolFC {game} ({})", json.variant),
            None => format!("{} {}x{}", json.variant, json.suits, json.ranks),
        };
        outln!(
            "{what} deals {}..{}: {} solvable, {} unsolvable, {} unknown",
            seed,
            seed + n - 1,
            json.solvable,
            json.unsolvable,
            json.unknown
        );
        outln!(
            "win rate {:.2}% (95% Wilson interval {:.2}%..{:.2}%; unknown as win: {:.2}%)",
            json.win_rate * 100.0,
            ci95_low * 100.0,
            ci95_high * 100.0,
            json.win_rate_unknown_as_win * 100.0
        );
        if let (Some(won), Some(first)) = (json.won_in_rounds, json.first_round) {
            outln!(
                "with {} redeal(s): won in round one {}, with one redeal {}, with two {}; first round alone: {} won, {} lost, {} unknown",
                json.redeals, won[0], won[1], won[2], first[0], first[1], first[2]
            );
        }
        outln!(
            "time {:.2} s, {} deal(s) at a time on {} thread(s) each: {:.0} deals/s, {:.2}M nodes/s; per deal median {:.2} ms, p99 {:.2} ms, max {:.1} ms ({} nodes)",
            json.elapsed_ms / 1e3,
            threads,
            json.search_threads,
            json.deals_per_second,
            json.nodes_per_second / 1e6,
            json.median_ms,
            json.p99_ms,
            json.max_ms,
            json.max_nodes
        );
    }
    Ok(())
}
