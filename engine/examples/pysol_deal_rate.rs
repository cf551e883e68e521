//! Deals per second of PySolFC's dealing (docs/performance.md, "PySolFC's deals"):
//! Montana positions for game numbers of each generator, against this project's own
//! numbered deals in the same run, three rounds interleaved.
//!
//! Usage: `cargo run --release -p gaps-engine --example pysol_deal_rate -- [COUNT]`
//! (COUNT deals of each kind a round, default 1,000,000).

use gaps_engine::{deal, montana, Layout, PYSOL_MT_FROM};
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

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .map_or(1_000_000, |a| a.parse().expect("COUNT is a number"));
    let layout = Layout::new(4, 13).unwrap();
    println!("round  ours (SplitMix64)  PySolFC Microsoft (1..31999)  PySolFC Mersenne Twister (32000..)");
    for round in 1..=3 {
        let ours = rate(count, |i| deal(i, layout).key() as u64);
        let ms = rate(count, |i| montana(u128::from(1 + i % 31_999)).key() as u64);
        let mt = rate(count, |i| {
            montana(PYSOL_MT_FROM + u128::from(i) * 7_919).key() as u64
        });
        println!("{round:5}  {ours:17.0}  {ms:28.0}  {mt:34.0}");
    }
}
