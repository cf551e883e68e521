//! `gaps winrate`: solves deals `seed..seed+deals-1` (ours, or a PySolFC game's) on all
//! cores.
//!
//! Invariants: each worker thread owns one solver (one table, allocated once) and, with
//! `--spill-dir`, one spill file of its own that every exact search of that thread
//! (variants and board games alike) spills to; deals are handed out through an atomic
//! counter, so the counts do not depend on scheduling.

use super::args::{redeal_count, BoardArgs};
use super::board;
use super::caller::{Caller, Cancelled};
use super::out_file::{
    open_out, out_line, read_out, rounds_seen, OutFile, Tally, OUT_HEADER, ROUNDS_HEADER,
};
use super::solve::engine_error;
use super::{input_error, refused, SearchArgs, Subject};
use crate::machine::default_search_memory_bytes;
use crate::report::{board_algorithm, board_variant, wilson_95};
use clap::Args;
use gaps_engine::{
    check_game_number, sized_memory, sizes_memory, DealSource, Layout, PysolDeal, PysolGame,
    SolveControls, SolveOptions, SolveReport, Solver, StopReason, Variant, MAX_SEARCH_THREADS,
    PYSOL_MAX_NUMBER,
};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct WinrateCmd {
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    board: BoardArgs,
    /// How many deals.
    #[arg(long)]
    deals: u64,
    /// First deal number (default 0; with `--pysol`, 1): our deals are numbered 0 to
    /// 2^63-1, a PySolFC game's 1 to 10^20.
    #[arg(long, value_parser = parse_deal_number)]
    seed: Option<u128>,
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

/// Where the deals of a run come from: a family of numbered deals.
#[derive(Clone, Copy, Debug)]
pub(super) enum DealFamily {
    /// This project's numbered deals of a layout.
    Ours(Layout),
    /// A PySolFC game's numbered deals (numbers checked by the caller).
    Pysol(PysolGame),
}

impl DealFamily {
    /// Deal `number` of the family (a number [`DealFamily::check`] accepts).
    pub(super) fn source(self, number: u128) -> DealSource {
        match self {
            DealFamily::Ours(layout) => DealSource::Numbered {
                seed: u64::try_from(number).expect("one of our deal numbers (checked)"),
                layout,
            },
            DealFamily::Pysol(game) => {
                DealSource::Pysol(PysolDeal::new(game, number).expect("a PySolFC number (checked)"))
            }
        }
    }

    /// Whether deals `first..first+count` (`count` at least 1: the callers refuse 0
    /// with their own flag's words) are all numbers of the family: ours 0..=2^63-1, a
    /// PySolFC game's 1..=10^20, with `what` naming the flags in the message. The last
    /// number.
    pub(super) fn check(self, first: u128, count: u64, what: &str) -> anyhow::Result<u128> {
        let last = first
            .checked_add(u128::from(count).saturating_sub(1))
            .ok_or_else(|| input_error(format!("{what} overflows the deal numbers")))?;
        match self {
            DealFamily::Ours(_) => {
                crate::request::deal_number(last)
                    .map_err(|e| input_error(format!("{what}: {e}, the last of the run")))?;
            }
            DealFamily::Pysol(_) if first == 0 => {
                return Err(input_error(format!(
                    "{what}: PySolFC game numbers start at 1 (they run from 1 to 10^20)"
                )));
            }
            DealFamily::Pysol(_) => {
                for number in [first, last] {
                    check_game_number(number).map_err(|e| input_error(format!("{what}: {e}")))?;
                }
            }
        }
        Ok(last)
    }
}

/// A deal number on the command line: decimal digits, up to 10^20 (PySolFC's
/// largest game number; a family's own bound is checked with the family).
pub(super) fn parse_deal_number(text: &str) -> Result<u128, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{text:?} is not a deal number (decimal digits)"));
    }
    match text.parse::<u128>() {
        Ok(n) if n <= PYSOL_MAX_NUMBER => Ok(n),
        _ => Err(format!(
            "{text} is above every deal number (PySolFC's go up to 10^20, ours to 2^63-1)"
        )),
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
    let deals: Vec<u128> = (u128::from(first)..u128::from(first) + u128::from(count)).collect();
    let on_deal = |_: u128, _: &SolveReport| {
        on_done();
        Ok(())
    };
    let workers = Workers {
        threads,
        table_bytes,
        spill_dir: None,
        cancel: None,
    };
    solve_deals(
        DealFamily::Ours(layout),
        &deals,
        options,
        0,
        workers,
        &on_deal,
    )
}

/// The workers of a run over deals: how many, what each may use (its table, and the
/// directory where it makes its own spill file; none: the exact searches stay in
/// memory), and the flag that stops them all.
#[derive(Clone, Copy, Debug)]
pub(super) struct Workers<'a> {
    pub threads: usize,
    pub table_bytes: usize,
    pub spill_dir: Option<&'a Path>,
    pub cancel: Option<&'a AtomicBool>,
}

impl<'a> Workers<'a> {
    /// `threads` workers with `--table-mb` and `--spill-dir`, stopped by `caller`.
    pub fn of(threads: usize, search: &'a SearchArgs, caller: &Caller<'a>) -> Self {
        Workers {
            threads,
            table_bytes: search.table_bytes(),
            spill_dir: search.spill_dir.as_deref(),
            cancel: caller.cancel,
        }
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}

/// Solves `deals` of `family` on `workers`, with `redeals` redeals (over rounds as the
/// deal's source says: [`DealSource::redeals`]), handing each report to `on_deal`
/// (whose error stops the run). Every worker's spill file is made before the first
/// deal, so a directory where none can be made stops the run before it starts. Once
/// the workers' flag is raised no deal is begun, and a search it cut short is neither
/// tallied nor handed on (it decided nothing); the run then ends [`Cancelled`].
pub(super) fn solve_deals(
    family: DealFamily,
    deals: &[u128],
    options: &SolveOptions,
    redeals: u8,
    workers: Workers<'_>,
    on_deal: &(dyn Fn(u128, &SolveReport) -> anyhow::Result<()> + Sync),
) -> anyhow::Result<Tally> {
    let count = deals.len() as u64;
    let next = AtomicU64::new(0);
    let total = Mutex::new(Tally::default());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let spills = (0..workers.threads)
        .map(|_| super::args::spill_store(workers.spill_dir))
        .collect::<anyhow::Result<Vec<_>>>()?;
    std::thread::scope(|scope| {
        for spill in spills {
            let (next, total, failure) = (&next, &total, &failure);
            scope.spawn(move || {
                let mut solver = Solver::with_table_bytes(workers.table_bytes);
                solver.spill_to(spill.clone());
                let mut mine = Tally::default();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count || workers.cancelled() {
                        break;
                    }
                    let number = deals[i as usize];
                    let report = match family {
                        DealFamily::Pysol(game) if game.is_board_played() => board::solve_board(
                            game,
                            number,
                            redeals,
                            options,
                            spill.as_ref(),
                            workers.cancel,
                        )
                        .map(|report| board::board_report(&report)),
                        _ => {
                            let deal = family.source(number);
                            let start = deal.start();
                            let redeals = deal.redeals(redeals);
                            let controls = SolveControls {
                                cancel: workers.cancel,
                                ..SolveControls::default()
                            };
                            solver
                                .solve_controlled(&start, options, redeals.as_ref(), controls)
                                .map_err(engine_error)
                        }
                    };
                    let cut_short = |report: &SolveReport| {
                        report.stopped == Some(StopReason::Cancelled) && workers.cancelled()
                    };
                    if report.as_ref().is_ok_and(cut_short) {
                        break;
                    }
                    let done = report.and_then(|report| {
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
    if workers.cancelled() {
        return Err(Cancelled.into());
    }
    Ok(total.into_inner().expect("lock"))
}

/// The summary of a run (`gaps winrate --json`).
#[derive(Serialize)]
pub struct WinrateJson {
    /// The PySolFC game dealt (`--pysol`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pysol: Option<&'static str>,
    variant: &'static str,
    suits: usize,
    ranks: usize,
    /// The first deal number (an integer up to 2^64-1, its digits above, as the
    /// service writes game numbers).
    #[serde(serialize_with = "crate::report::serialize_game_number")]
    seed: u128,
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

/// A run as the command asks for it, checked: what is dealt, how each deal is searched,
/// and how many run at once.
struct Plan {
    /// The PySolFC game dealt, if any.
    pysol: Option<PysolGame>,
    /// That game, when it is played on its own board (no variant: its own search).
    on_board: Option<PysolGame>,
    variant: Variant,
    layout: Layout,
    family: DealFamily,
    /// The first deal number and how many.
    seed: u128,
    deals: u64,
    options: SolveOptions,
    /// Deals searched at once.
    threads: usize,
    /// Redeals each deal may use (the same for every deal of a family).
    redeal_count: u8,
}

impl Plan {
    fn of(cmd: &WinrateCmd) -> anyhow::Result<Plan> {
        let pysol: Option<PysolGame> = cmd
            .pysol
            .as_deref()
            .map(|g| {
                PysolGame::named(g).map_err(|e| refused(Subject::Game, format!("--pysol: {e}")))
            })
            .transpose()?;
        let on_board = pysol.filter(|game| game.is_board_played());
        let (variant, layout, family) = match pysol {
            Some(game) if game.is_board_played() => {
                let layout = Layout::new(4, game.spec().ranks.len()).expect("a 4-suit deck");
                (Variant::Common, layout, DealFamily::Pysol(game))
            }
            Some(game) => {
                let variant = cmd
                    .search
                    .variant_of_game(game, &format!("pysol game {game}"))?;
                let first = PysolDeal::new(game, 1).expect("game 1 of a game the engine plays");
                (variant, first.position().layout(), DealFamily::Pysol(game))
            }
            None => {
                let layout = cmd.board.layout()?;
                (cmd.search.variant()?, layout, DealFamily::Ours(layout))
            }
        };
        // Every deal of a family has the same redeal rule: its first one answers for all.
        let board_run = on_board
            .map(|game| board::board_run(&cmd.search, cmd.threads, game, cmd.redeals))
            .transpose()?;
        let redeal_count = match &board_run {
            Some((_, _, redeals)) => *redeals,
            None => redeal_count(cmd.redeals, &family.source(1), variant)?,
        };
        let seed = cmd.seed.unwrap_or(u128::from(pysol.is_some()));
        family.check(seed, cmd.deals, "--seed/--deals")?;
        if cmd.deals == 0 {
            return Err(input_error("--deals must be at least 1"));
        }
        let (options, threads) = match board_run {
            Some((options, threads, _)) => (options, threads),
            None => run_options(&cmd.search, cmd.threads, variant)?,
        };
        Ok(Plan {
            pysol,
            on_board,
            variant,
            layout,
            family,
            seed,
            deals: cmd.deals,
            options,
            threads,
            redeal_count,
        })
    }

    /// Redeals, when the run goes over rounds (its `--out` file then has their columns).
    fn redeals(&self) -> Option<u8> {
        (self.redeal_count > 0).then_some(self.redeal_count)
    }

    fn algorithm(&self) -> &'static str {
        match self.on_board {
            Some(_) => board_algorithm(self.options.algorithm),
            None => self.options.algorithm.name(),
        }
    }
}

/// What a run did: its deals' tally (those of an `--out` file included), and what this
/// process searched itself.
struct Ran {
    tally: Tally,
    /// Deals and nodes searched by this process, and its wall time.
    searched: usize,
    nodes: u64,
    elapsed: std::time::Duration,
}

pub fn run(cmd: WinrateCmd) -> anyhow::Result<()> {
    let (json, pysol) = answer(&cmd, &Caller::TERMINAL)?;
    if cmd.json {
        outln!("{}", serde_json::to_string(&json)?);
    } else {
        print_summary(&json, pysol)?;
    }
    Ok(())
}

/// The run `gaps winrate` asks for, and its summary (what `--json` prints), with the
/// PySolFC game it dealt.
pub fn answer(
    cmd: &WinrateCmd,
    caller: &Caller,
) -> anyhow::Result<(WinrateJson, Option<PysolGame>)> {
    let plan = Plan::of(cmd)?;
    let workers = Workers::of(plan.threads, &cmd.search, caller);
    let ran = solve_plan(&plan, cmd.out.as_deref(), workers, caller)?;
    Ok((summary(&plan, &ran), plan.pysol))
}

/// Solves the plan's deals that `out` (if given) does not hold yet, appending a line
/// to it for each, with a progress bar on a terminal (or the deals counted for the
/// caller).
fn solve_plan(
    plan: &Plan,
    out: Option<&std::path::Path>,
    workers: Workers<'_>,
    caller: &Caller,
) -> anyhow::Result<Ran> {
    let header = if plan.redeals().is_some() {
        ROUNDS_HEADER
    } else {
        OUT_HEADER
    };
    let bar = if caller.draws_progress() {
        let bar = ProgressBar::new(plan.deals);
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
    } = match out {
        Some(path) => read_out(path, header, plan.seed, plan.deals)?,
        None => OutFile::default(),
    };
    bar.inc(done.len() as u64);
    caller.deals_finished(done.len() as u64);
    let deals: Vec<u128> = (plan.seed..plan.seed + u128::from(plan.deals))
        .filter(|d| !done.contains(d))
        .collect();
    let out = out.map(|path| open_out(path, header)).transpose()?;
    let on_deal = |number: u128, report: &SolveReport| {
        bar.inc(1);
        caller.deals_finished(1);
        let Some(out) = &out else {
            return Ok(());
        };
        let line = out_line(number, report, plan.redeals().is_some());
        let mut file = out.lock().expect("lock");
        file.write_all(line.as_bytes())?;
        file.flush()?;
        Ok(())
    };
    let ran = solve_deals(
        plan.family,
        &deals,
        &plan.options,
        plan.redeal_count,
        workers,
        &on_deal,
    )?;
    let nodes = ran.nodes;
    tally.merge(ran);
    bar.finish_and_clear();
    Ok(Ran {
        tally,
        searched: deals.len(),
        nodes,
        elapsed: began.elapsed(),
    })
}

/// The run's figures: counts, the Wilson interval, speed and the time per deal.
fn summary(plan: &Plan, ran: &Ran) -> WinrateJson {
    let tally = &ran.tally;
    let mut times = tally.times.clone();
    times.sort_unstable();
    let quantile = |q: f64| {
        let i = ((times.len() as f64 - 1.0) * q).round() as usize;
        times.get(i).map_or(0.0, |t| t.as_secs_f64() * 1e3)
    };
    let n = plan.deals;
    let (ci95_low, ci95_high) = wilson_95(tally.solvable, n);
    let seconds = ran.elapsed.as_secs_f64();
    let options = &plan.options;
    let redeals = plan.redeals();
    WinrateJson {
        pysol: plan.pysol.map(PysolGame::name),
        variant: match plan.on_board {
            Some(game) => board_variant(game),
            None => plan.variant.name(),
        },
        suits: plan.layout.suits(),
        ranks: plan.layout.ranks(),
        seed: plan.seed,
        deals: n,
        solvable: tally.solvable,
        unsolvable: tally.unsolvable,
        unknown: tally.unknown,
        win_rate: tally.solvable as f64 / n as f64,
        ci95_low,
        ci95_high,
        win_rate_unknown_as_loss: tally.solvable as f64 / n as f64,
        win_rate_unknown_as_win: (tally.solvable + tally.unknown) as f64 / n as f64,
        algorithm: plan.algorithm(),
        elapsed_ms: seconds * 1e3,
        // Of the deals solved by this run (an `--out` file's are counted, not timed).
        deals_per_second: ran.searched as f64 / seconds,
        nodes: tally.nodes,
        nodes_per_second: ran.nodes as f64 / seconds,
        median_ms: quantile(0.5),
        p99_ms: quantile(0.99),
        max_ms: tally.max_time.as_secs_f64() * 1e3,
        max_nodes: tally.max_nodes,
        threads: plan.threads,
        search_threads: options.threads,
        memory_mb: if plan.on_board.is_some() || sizes_memory(options.algorithm, plan.variant) {
            options.memory_limit.map_or(0, |bytes| (bytes >> 20) as u64)
        } else {
            0
        },
        redeals: plan.redeal_count,
        won_in_rounds: redeals.map(|_| tally.won_in_rounds),
        first_round: redeals.map(|_| tally.first_round),
    }
}

/// The summary as lines of text.
fn print_summary(json: &WinrateJson, pysol: Option<PysolGame>) -> anyhow::Result<()> {
    let what = match pysol {
        Some(game) => format!("PySolFC {game} ({})", json.variant),
        None => format!("{} {}x{}", json.variant, json.suits, json.ranks),
    };
    outln!(
        "{what} deals {}..{}: {} solvable, {} unsolvable, {} unknown",
        json.seed,
        json.seed + u128::from(json.deals) - 1,
        json.solvable,
        json.unsolvable,
        json.unknown
    );
    outln!(
        "win rate {:.2}% (95% Wilson interval {:.2}%..{:.2}%; unknown as win: {:.2}%)",
        json.win_rate * 100.0,
        json.ci95_low * 100.0,
        json.ci95_high * 100.0,
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
        json.threads,
        json.search_threads,
        json.deals_per_second,
        json.nodes_per_second / 1e6,
        json.median_ms,
        json.p99_ms,
        json.max_ms,
        json.max_nodes
    );
    Ok(())
}
