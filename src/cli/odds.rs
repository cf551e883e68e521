//! `gaps odds`: the chance of winning a deal or a position when the shuffles of its
//! redeals are unknown (docs/cli.md, "gaps odds"; docs/engine.md, "Odds").
//!
//! Invariant: the limits of `--nodes` and `--time-ms` bound the whole answer (every
//! sample); each round's own search is bounded by `--round-nodes`, so that an answer
//! given the same flags and seeds is the same on every machine unless a whole-answer
//! limit stops it.

use super::args::SearchArgs;
use super::caller::Caller;
use super::odds_table::run_table;
use super::played::read_played;
use super::solve::{engine_error, PositionInput};
use super::{input_error, refused, Subject};
use crate::odds::{OddsGame, ROUND_MEMORY_BYTES};
use crate::report::odds::OddsJson;
use crate::report::StepJson;
use crate::request::odds::{OddsAsk, DEFAULT_REDEALS, DEFAULT_SAMPLES};
use crate::request::MAX_DEAL_NUMBER;
use clap::Args;
use gaps_engine::{
    DealSource, Layout, OddsOptions, DEFAULT_FIRST_ROUND_NODES, DEFAULT_ROUND_NODES,
    DEFAULT_ROUND_POINTS, DEFAULT_SAMPLE_NODES,
};
use std::io::Write;

#[derive(Args, Debug)]
pub struct OddsCmd {
    #[command(flatten)]
    search: SearchArgs,
    /// Redeals left, 0..=2.
    #[arg(long, default_value_t = DEFAULT_REDEALS)]
    redeals: u8,
    /// Sequences of shuffles sampled, 1..=1000000.
    #[arg(long, default_value_t = DEFAULT_SAMPLES)]
    samples: u32,
    /// Seed of the sampled shuffles (default: `--search-seed`'s).
    #[arg(long = "shuffle-seed")]
    shuffle_seed: Option<u64>,
    /// Nodes of the own search of each round after a redeal.
    #[arg(long = "round-nodes", default_value_t = DEFAULT_ROUND_NODES)]
    round_nodes: u64,
    /// Nodes of the own search of the round in play (searched once for all samples).
    #[arg(long = "first-round-nodes", default_value_t = DEFAULT_FIRST_ROUND_NODES)]
    first_round_nodes: u64,
    /// Nodes of the upper bound's search of one sample.
    #[arg(long = "sample-nodes", default_value_t = DEFAULT_SAMPLE_NODES)]
    sample_nodes: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// The steps played since the deal (as `gaps solve --played`; `-` reads standard
    /// input): the odds are those of the position they reach, with `--redeals` less
    /// the redeals they played.
    #[arg(long, conflicts_with = "deals")]
    played: Option<std::path::PathBuf>,
    /// The odds of our 4x13 deals `--from`..`--from + N - 1`, one line a deal in
    /// `--out`, and the figures over all of them.
    #[arg(long, requires = "out", conflicts_with_all = ["position", "deal"])]
    deals: Option<u64>,
    /// The first deal of `--deals`.
    #[arg(long, default_value_t = 0, requires = "deals")]
    from: u64,
    /// The CSV file of `--deals` (deals it holds are not searched again).
    #[arg(long, requires = "deals")]
    out: Option<std::path::PathBuf>,
    /// Deals searched at once by `--deals` (default: one a core).
    #[arg(long, requires = "deals")]
    jobs: Option<usize>,
    #[command(flatten)]
    input: PositionInput,
}

pub fn run(cmd: OddsCmd) -> anyhow::Result<()> {
    check_flags(&cmd)?;
    let variant = cmd.search.variant()?;
    let mut solve = cmd.search.options(variant)?;
    if cmd.search.table_mb.is_none() {
        solve.memory_limit = Some(ROUND_MEMORY_BYTES);
    }
    let options = OddsOptions {
        solve,
        redeals: cmd.redeals,
        samples: cmd.samples,
        shuffle_seed: cmd.shuffle_seed.unwrap_or(cmd.search.search_seed),
        round_nodes: cmd.round_nodes,
        first_round_nodes: cmd.first_round_nodes,
        round_points: DEFAULT_ROUND_POINTS,
        sample_nodes: cmd.sample_nodes,
    };
    if let (Some(count), Some(out)) = (cmd.deals, cmd.out.as_deref()) {
        return run_deals(&cmd, &options, count, out);
    }
    let source = cmd.input.source(&Caller::TERMINAL)?;
    let steps = cmd
        .played
        .as_deref()
        .map(|path| read_played(path, &Caller::TERMINAL))
        .transpose()?;
    let game = OddsGame::new(source, variant, cmd.redeals, steps.as_deref())
        .map_err(|e| refused(Subject::Steps, format!("--played: {e}")))?;
    let mut solver = cmd.search.solver()?;
    let json = game
        .answer(&mut solver, &options, None, None)
        .map_err(engine_error)?;
    let mut out = std::io::stdout().lock();
    if cmd.json {
        serde_json::to_writer(&mut out, &json)?;
        writeln!(out)?;
    } else {
        print_text(&mut out, &json, &source)?;
    }
    Ok(())
}

/// Refuses the flags no answer can have (exit 2, naming the flag).
fn check_flags(cmd: &OddsCmd) -> anyhow::Result<()> {
    let ask = OddsAsk {
        samples: Some(u64::from(cmd.samples)),
        redeals: Some(u64::from(cmd.redeals)),
        pysol: cmd.input.pysol_text().is_some(),
    };
    ask.check()
        .map_err(|refusal| input_error(refusal.for_cli()))?;
    for (flag, value) in [
        ("--round-nodes", cmd.round_nodes),
        ("--first-round-nodes", cmd.first_round_nodes),
        ("--sample-nodes", cmd.sample_nodes),
    ] {
        if value == 0 {
            return Err(input_error(format!("{flag}: at least 1 (got 0)")));
        }
    }
    Ok(())
}

/// `--deals N --out FILE`: the odds of our 4x13 deals `--from`..`--from + N - 1`, and
/// the figures over them.
fn run_deals(
    cmd: &OddsCmd,
    options: &OddsOptions,
    count: u64,
    out: &std::path::Path,
) -> anyhow::Result<()> {
    let layout = Layout::new(4, 13).expect("4x13 is a layout");
    let last = cmd
        .from
        .checked_add(count)
        .filter(|&end| end - 1 <= MAX_DEAL_NUMBER);
    if count == 0 || last.is_none() {
        return Err(input_error(format!(
            "--deals: 1 or more, ending at most at deal {MAX_DEAL_NUMBER} (got {count} from {})",
            cmd.from
        )));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = cmd.jobs.unwrap_or(cores).clamp(1, 64);
    let table_bytes = cmd.search.table_bytes();
    let table = run_table(options, layout, cmd.from, count, jobs, out, table_bytes)?;
    let mut stdout = std::io::stdout().lock();
    if cmd.json {
        serde_json::to_writer(&mut stdout, &table)?;
        writeln!(stdout)?;
    } else {
        let pct = |p: f64| format!("{:.1}%", 100.0 * p);
        writeln!(stdout, "deals: {} ({} exact)", table.deals, table.exact)?;
        writeln!(
            stdout,
            "chance to win: at least {} [{}, {}], at most {} [{}, {}] (95%, over the deals)",
            pct(table.lower),
            pct(table.lower_ci95[0]),
            pct(table.lower_ci95[1]),
            pct(table.upper),
            pct(table.upper_ci95[0]),
            pct(table.upper_ci95[1])
        )?;
        writeln!(
            stdout,
            "undecided samples: {} (lower), {} (upper); {} nodes, {:.0} s of search",
            table.unknown_samples[0], table.unknown_samples[1], table.nodes, table.search_seconds
        )?;
    }
    Ok(())
}

/// The text form: the same fields as the JSON, in words.
fn print_text(out: &mut impl Write, json: &OddsJson, source: &DealSource) -> std::io::Result<()> {
    if let DealSource::Numbered { seed, layout } = source {
        writeln!(out, "deal: {seed} ({layout})")?;
    }
    writeln!(out, "position: {}", json.position)?;
    writeln!(out, "variant: {}", json.variant)?;
    writeln!(out, "redeals left: {}", json.redeals)?;
    let percent = |p: f64| format!("{:.1}%", 100.0 * p);
    let (lower, upper) = (&json.odds.lower, &json.odds.upper);
    match json.odds.exact {
        Some(p) => writeln!(out, "chance to win: {} (exact)", percent(p))?,
        None if lower.samples == 0 => {
            writeln!(out, "chance to win: unknown (the round was not decided)")?
        }
        None => writeln!(
            out,
            "chance to win: at least {} [{}, {}], at most {} [{}, {}] (95% intervals)",
            percent(lower.chance),
            percent(lower.ci95_low),
            percent(lower.ci95_high),
            percent(upper.chance),
            percent(upper.ci95_low),
            percent(upper.ci95_high),
        )?,
    }
    if lower.samples > 0 {
        writeln!(
            out,
            "samples: {} (seed {}): the strategy won {}, knowing the shuffles {} ({} and {} \
             undecided)",
            lower.samples, json.shuffle_seed, lower.won, upper.won, lower.unknown, upper.unknown
        )?;
    }
    if let Some(policy) = json.odds.exact_policy {
        writeln!(
            out,
            "the strategy's own chance: {} (exact)",
            percent(policy)
        )?;
    }
    let round = match json.round_won {
        Some(true) => "won without a redeal",
        Some(false) => "lost without a redeal",
        None => "undecided",
    };
    writeln!(out, "this round: {round}")?;
    match &json.odds.hint {
        Some(StepJson::Move(mv)) => writeln!(
            out,
            "hint: {} ({},{}) -> ({},{})",
            mv.card, mv.from[0], mv.from[1], mv.to[0], mv.to[1]
        )?,
        Some(StepJson::Redeal { redeal }) => writeln!(out, "hint: redeal now (redeal {redeal})")?,
        None if json.round_won == Some(true) => writeln!(out, "hint: none, the game is won")?,
        None => writeln!(out, "hint: none, no winning line is known")?,
    }
    if let Some(reason) = &json.stopped {
        writeln!(out, "stopped: {reason}")?;
    }
    writeln!(
        out,
        "stats: {} nodes, {:.0} ms",
        json.nodes, json.elapsed_ms
    )
}
