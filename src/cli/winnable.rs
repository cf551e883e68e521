//! `gaps winnable`: the winnable game numbers of a PySolFC game, as played (with its
//! redeals), in a range: for an "always solvable" version of the game, printed in the
//! form of PySolFC's `pysollib/games/solvable_seeds/klondike_solvable_seeds.py`
//! (`--format pysolfc`) or one number a line.
//!
//! Invariants: a number is listed only with a solution the engine replayed (a
//! `solvable` verdict); `unsolvable` and `unknown` numbers are left out, and the footer
//! counts each. With `--out` the run is resumable exactly as `gaps winrate --out` (the
//! same file format).

use super::args::redeal_count;
use super::board;
use super::caller::Caller;
use super::out_file::{open_out, out_line, read_out, OutFile, OUT_HEADER, ROUNDS_HEADER};
use super::winrate::{run_options, solve_deals, DealFamily, Workers};
use super::{input_error, refused, SearchArgs, Subject};
use clap::{Args, ValueEnum};
use gaps_engine::{parse_game_number_digits, PysolGame, SolveReport, Verdict, PYSOL_MT_FROM};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

#[derive(Args, Debug)]
pub struct WinnableCmd {
    #[command(flatten)]
    search: SearchArgs,
    /// The PySolFC game (`montana`, `line-up`, ... any of the twelve).
    #[arg(long)]
    pysol: String,
    /// The first game number (default 32000: PySolFC deals a number below it with
    /// another generator than the one of the numbers it draws for a new game, so an
    /// "always solvable" list starts there, as PySolFC's Klondike list does).
    /// Up to 10^20, PySolFC's largest.
    #[arg(long, default_value_t = PYSOL_MT_FROM, value_parser = parse_game_number_flag)]
    from: u128,
    /// How many game numbers to solve.
    #[arg(long)]
    count: u64,
    /// Redeals each game may use (default: the game's own number, as PySolFC plays it).
    #[arg(long)]
    redeals: Option<u8>,
    /// Games solved at once (default: as `gaps winrate`).
    #[arg(long)]
    threads: Option<usize>,
    /// `pysolfc`: a Python module like PySolFC's Klondike seeds; `lines`: one number a
    /// line.
    #[arg(long, value_enum, default_value_t = Format::Pysolfc)]
    format: Format,
    /// Append each game's verdict to this `gaps winrate --out` file and skip the games
    /// it holds: a long run goes on where it stopped.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `--from`: a PySolFC game number, as `gaps solve --pysol GAME:N` reads one.
fn parse_game_number_flag(text: &str) -> Result<u128, String> {
    parse_game_number_digits(text).map_err(|e| e.to_string())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Pysolfc,
    Lines,
}

pub fn run(cmd: WinnableCmd) -> anyhow::Result<()> {
    let game = PysolGame::named(&cmd.pysol)
        .map_err(|e| refused(Subject::Game, format!("--pysol: {e}")))?;
    if cmd.count == 0 {
        return Err(input_error("--count must be at least 1"));
    }
    let family = DealFamily::Pysol(game);
    let last = family.check(cmd.from, cmd.count, "--from/--count")?;
    let (options, threads, redeals) = if game.is_board_played() {
        board::board_run(&cmd.search, cmd.threads, game, cmd.redeals)?
    } else {
        let redeals = redeal_count(cmd.redeals, &family.source(cmd.from), game.variant())?;
        let (options, threads) = run_options(&cmd.search, cmd.threads, game.variant())?;
        (options, threads, redeals)
    };
    let header = if redeals > 0 {
        ROUNDS_HEADER
    } else {
        OUT_HEADER
    };
    let held = match &cmd.out {
        Some(path) => read_out(path, header, cmd.from, cmd.count)?,
        None => OutFile::default(),
    };
    let numbers: Vec<u128> = (cmd.from..=last)
        .filter(|n| !held.done.contains(n))
        .collect();
    let out = cmd
        .out
        .as_ref()
        .map(|path| open_out(path, header))
        .transpose()?;
    let won = Mutex::new(held.won);
    let on_game = |number: u128, report: &SolveReport| {
        if report.verdict == Verdict::Solvable {
            won.lock().expect("lock").insert(number);
        }
        if let Some(out) = &out {
            let mut file = out.lock().expect("lock");
            file.write_all(out_line(number, report, redeals > 0).as_bytes())?;
            file.flush()?;
        }
        Ok(())
    };
    let ran = solve_deals(
        family,
        &numbers,
        &options,
        redeals,
        Workers::of(threads, &cmd.search, &Caller::TERMINAL),
        &on_game,
    )?;
    let mut tally = held.tally;
    tally.merge(ran);
    let won = won.into_inner().expect("lock");
    let text = match cmd.format {
        Format::Lines => won.iter().map(|n| format!("{n}\n")).collect(),
        Format::Pysolfc => {
            let mut limits = String::new();
            if let Some(nodes) = cmd.search.nodes {
                limits.push_str(&format!(" --nodes {nodes}"));
            }
            if let Some(ms) = cmd.search.time_ms {
                limits.push_str(&format!(" --time-ms {ms}"));
            }
            let range = Range {
                from: cmd.from,
                last,
                limits,
                undecided: tally.unknown,
            };
            pysolfc_module(game, redeals, &won, &range)
        }
    };
    outln!("{}", text.trim_end());
    eprintln!(
        "{game} {}..={last} with {redeals} redeal(s): {} winnable, {} not winnable, {} unknown \
         (not listed)",
        cmd.from, tally.solvable, tally.unsolvable, tally.unknown
    );
    Ok(())
}

/// The numbers a list covers and how it was made.
struct Range {
    from: u128,
    last: u128,
    /// The search's limits as options (` --time-ms 5000`), empty when none.
    limits: String,
    /// Numbers the limits left undecided (not listed, possibly winnable).
    undecided: u64,
}

/// The list as a Python module in the form of PySolFC's Klondike seeds: a header, the
/// ranges covered (and how many numbers the limits left undecided), and
/// `SOLVABLE_SEEDS`, eight numbers a line.
fn pysolfc_module(game: PysolGame, redeals: u8, won: &BTreeSet<u128>, range: &Range) -> String {
    let Range {
        from,
        last,
        ref limits,
        undecided,
    } = *range;
    let spec = game.spec();
    let mut text = format!(
        "#!/usr/bin/env python\n\
         # -*- mode: python; coding: utf-8; -*-\n\
         #\n\
         # {title} (#{id}) game numbers proved winnable with at most {redeals} redeal(s),\n\
         # made by `gaps winnable --pysol {name} --from {from} --count {count}{limits}`:\n\
         # each with a winning line the solver replayed under PySolFC's rules.\n\
         #\n{generator}\
         # {n} seeds, covering {from}-{last}.\n{undecided}\nSOLVABLE_SEEDS = (\n",
        title = spec.title,
        id = spec.id,
        name = spec.name,
        count = last - from + 1,
        n = won.len(),
        generator = if from >= PYSOL_MT_FROM {
            "# Must all be >= 32000, or they'd deal a different game than what\n\
             # was actually solved (see construct_random() in pysolrandom.py).\n#\n"
        } else {
            "# Numbers below 32000 are PySolFC's Microsoft-generator deals: the game\n\
             # it deals for that number when asked for it, not a random new game.\n#\n"
        },
        undecided = match undecided {
            0 => String::new(),
            1 => "# 1 number of that range was left undecided by the search's limits\n\
                  # and is not listed: it may be winnable.\n"
                .to_string(),
            k => format!(
                "# {k} numbers of that range were left undecided by the search's limits\n\
                 # and are not listed: some of them may be winnable.\n"
            ),
        },
    );
    let numbers: Vec<String> = won.iter().map(u128::to_string).collect();
    for line in numbers.chunks(8) {
        text.push_str(&format!("    {},\n", line.join(", ")));
    }
    text.push_str(")\n");
    text
}
