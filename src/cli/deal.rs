//! `gaps deal`: prints a numbered deal (see docs/notation.md, "Deal numbers"), or a
//! PySolFC game's board ("PySolFC's deals"); with `--count`, consecutive ones, one a
//! line (a whole range is checked before the first line is printed).

use super::args::BoardArgs;
use super::{input_error, refused, Subject};
use clap::Args;
use gaps_engine::format_cells;
use gaps_engine::{deal, deal_cards, format_position, parse_game_number, pysol_board, PysolDeal};
use std::io::Write;

#[derive(Args, Debug)]
pub struct DealCmd {
    /// Deal number (0 to 2^63-1).
    #[arg(long, required_unless_present = "pysol", value_parser = super::args::parse_our_deal_number)]
    seed: Option<u64>,
    /// A game of PySolFC instead (`montana:N`, `blue-moon:N`, ... any of its twelve
    /// Gaps games), printed as PySolFC shows it (every cell, Blue Moon with its Aces
    /// column; `--position`: the engine's position of it, for a game it solves).
    #[arg(long, conflicts_with_all = ["seed", "suits", "ranks"])]
    pysol: Option<String>,
    #[command(flatten)]
    board: BoardArgs,
    /// Print the starting position (aces taken out, gaps shown) instead of the full deal.
    #[arg(long)]
    position: bool,
    /// Print this many consecutive deals (or games), one a line, from the number given.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    count: u64,
}

pub fn run(cmd: DealCmd) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    each_line(&cmd, |line| Ok(writeln!(out, "{line}")?))?;
    out.flush()?;
    Ok(())
}

/// The lines `gaps deal` prints.
pub fn lines(cmd: &DealCmd) -> anyhow::Result<Vec<String>> {
    let mut lines = Vec::new();
    each_line(cmd, |line| {
        lines.push(line);
        Ok(())
    })?;
    Ok(lines)
}

/// Hands each line `gaps deal` prints to `emit`, in order, once the whole range is
/// known to exist.
fn each_line(
    cmd: &DealCmd,
    mut emit: impl FnMut(String) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if let Some(text) = &cmd.pysol {
        // Every game's board is dealt; its engine position only for a game the engine
        // plays (`--position`).
        let (game, first) =
            parse_game_number(text).map_err(|e| refused(Subject::Game, format!("--pysol: {e}")))?;
        if cmd.position {
            PysolDeal::new(game, first)
                .map_err(|e| refused(Subject::Game, format!("--pysol: {e}")))?;
        }
        // Refused before anything is printed: the last number must exist too.
        let last = first + u128::from(cmd.count - 1);
        pysol_board(game, last)
            .map_err(|e| input_error(format!("--pysol with --count {}: {e}", cmd.count)))?;
        for number in first..=last {
            if cmd.position {
                let deal = PysolDeal::new(game, number).expect("checked above");
                emit(format_position(&deal.position()))?;
            } else {
                let board = pysol_board(game, number).expect("checked above");
                emit(board.to_string())?;
            }
        }
        return Ok(());
    }
    let first = cmd.seed.expect("clap requires --seed without --pysol");
    let layout = cmd.board.layout()?;
    let last = crate::request::deal_number(u128::from(first) + u128::from(cmd.count - 1)).map_err(
        |e| {
            input_error(format!(
                "--seed {first} with --count {}: {e}, the last",
                cmd.count
            ))
        },
    )?;
    for seed in first..=last {
        if cmd.position {
            emit(format_position(&deal(seed, layout)))?;
        } else {
            let cells: Vec<_> = deal_cards(seed, layout).into_iter().map(Some).collect();
            emit(format_cells(layout, &cells))?;
        }
    }
    Ok(())
}
