//! `gaps deal`: prints a numbered deal (see docs/notation.md, "Deal numbers"), or a
//! PySolFC game's board ("PySolFC's deals").

use super::args::BoardArgs;
use super::input_error;
use clap::Args;
use gaps_engine::format_cells;
use gaps_engine::{deal, deal_cards, format_position, PysolDeal};

#[derive(Args, Debug)]
pub struct DealCmd {
    /// Deal number.
    #[arg(long, required_unless_present = "pysol")]
    seed: Option<u64>,
    /// A game of PySolFC instead: `montana:N` or `blue-moon:N`, printed as PySolFC shows
    /// it (Blue Moon with its Aces column; `--position`: the `basic` position it is).
    #[arg(long, conflicts_with_all = ["seed", "suits", "ranks"])]
    pysol: Option<String>,
    #[command(flatten)]
    board: BoardArgs,
    /// Print the starting position (aces taken out, gaps shown) instead of the full deal.
    #[arg(long)]
    position: bool,
}

pub fn run(cmd: DealCmd) -> anyhow::Result<()> {
    if let Some(text) = &cmd.pysol {
        let game: PysolDeal = text
            .parse()
            .map_err(|e| input_error(format!("--pysol: {e}")))?;
        if cmd.position {
            outln!("{}", format_position(&game.position()));
        } else {
            outln!("{}", game.board_text());
        }
        return Ok(());
    }
    let seed = cmd.seed.expect("clap requires --seed without --pysol");
    let layout = cmd.board.layout()?;
    if cmd.position {
        outln!("{}", format_position(&deal(seed, layout)));
    } else {
        let cells: Vec<_> = deal_cards(seed, layout).into_iter().map(Some).collect();
        outln!("{}", format_cells(layout, &cells));
    }
    Ok(())
}
