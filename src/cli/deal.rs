//! `gaps deal`: prints a numbered deal (see docs/notation.md, "Deal numbers").

use super::args::BoardArgs;
use clap::Args;
use gaps_engine::format_cells;
use gaps_engine::{deal, deal_cards, format_position};

#[derive(Args, Debug)]
pub struct DealCmd {
    /// Deal number.
    #[arg(long)]
    seed: u64,
    #[command(flatten)]
    board: BoardArgs,
    /// Print the starting position (aces taken out, gaps shown) instead of the full deal.
    #[arg(long)]
    position: bool,
}

pub fn run(cmd: DealCmd) -> anyhow::Result<()> {
    let layout = cmd.board.layout()?;
    if cmd.position {
        outln!("{}", format_position(&deal(cmd.seed, layout)));
    } else {
        let cells: Vec<_> = deal_cards(cmd.seed, layout).into_iter().map(Some).collect();
        outln!("{}", format_cells(layout, &cells));
    }
    Ok(())
}
