//! `gaps deal`: prints a numbered deal (see README, "Deal numbers").

use super::input_error;
use clap::Args;
use gaps_engine::notation::format_cells;
use gaps_engine::{deal, deal_cards, format_position, Layout};

#[derive(Args, Debug)]
pub struct DealCmd {
    /// Deal number.
    #[arg(long)]
    seed: u64,
    /// Number of suits (rows), 1..=8.
    #[arg(long, default_value_t = 4)]
    suits: usize,
    /// Number of ranks (columns), 3..=13.
    #[arg(long, default_value_t = 13)]
    ranks: usize,
    /// Print the starting position (aces taken out, gaps shown) instead of the full deal.
    #[arg(long)]
    position: bool,
}

pub fn run(cmd: DealCmd) -> anyhow::Result<()> {
    let layout = Layout::new(cmd.suits, cmd.ranks).map_err(|e| input_error(e.to_string()))?;
    if cmd.position {
        println!("{}", format_position(&deal(cmd.seed, layout)));
    } else {
        let cells: Vec<_> = deal_cards(cmd.seed, layout).into_iter().map(Some).collect();
        println!("{}", format_cells(layout, &cells));
    }
    Ok(())
}
