//! Deals per second of PySolFC's dealing (docs/performance.md, "PySolFC's deals"): the
//! board of each of the twelve Gaps games for game numbers of each generator, and for
//! the games the engine plays the board and its position, against this project's own
//! numbered deals in the same run.
//!
//! Usage: `cargo run --release -p gaps-engine --example pysol_deal_rate -- [COUNT]`
//! (COUNT deals of each kind, default 200,000).

use gaps_engine::{deal, pysol_board, Layout, PysolDeal, PysolGame, PYSOL_MT_FROM};
use std::hint::black_box;
use std::time::Instant;

fn rate(count: u64, mut one: impl FnMut(u64) -> u64) -> f64 {
    let began = Instant::now();
    let mut sum = 0u64;
    for i in 0..count {
        sum = sum.wrapping_add(one(i));
    }
    black_box(sum);
    count as f64 / began.elapsed().as_secs_f64()
}

/// Game numbers of the Microsoft generator (1..31999) and of the Mersenne Twister.
fn ms_number(i: u64) -> u128 {
    u128::from(1 + i % 31_999)
}
fn mt_number(i: u64) -> u128 {
    PYSOL_MT_FROM + u128::from(i) * 7_919
}

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .map_or(200_000, |a| a.parse().expect("COUNT is a number"));
    let layout = Layout::new(4, 13).unwrap();
    let ours = rate(count, |i| deal(i, layout).key() as u64);
    println!("this project's numbered 4x13 deals (SplitMix64): {ours:.0} deals/s");
    println!("game              board MS/s  board MT/s  position MS/s  position MT/s");
    for game in PysolGame::ALL {
        let board = |n: u128| pysol_board(game, n).unwrap().rows[0][1].map_or(0, |c| c.code());
        let ms = rate(count, |i| u64::from(board(ms_number(i))));
        let mt = rate(count, |i| u64::from(board(mt_number(i))));
        let position = |n: u128| PysolDeal::new(game, n).unwrap().position().key() as u64;
        let (pms, pmt) = if game.is_played() {
            (
                format!("{:.0}", rate(count, |i| position(ms_number(i)))),
                format!("{:.0}", rate(count, |i| position(mt_number(i)))),
            )
        } else {
            ("-".into(), "-".into())
        };
        println!(
            "{:16}  {ms:10.0}  {mt:10.0}  {pms:>13}  {pmt:>13}",
            game.name()
        );
    }
}
