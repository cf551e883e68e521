//! Times the odds on small boards: `cargo run --release -p gaps-engine --example
//! odds_small -- SUITS RANKS DEALS REDEALS SAMPLES ALGORITHM`.
use gaps_engine::*;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = |i: usize| args[i].parse::<u64>().unwrap();
    let layout = Layout::new(n(0) as usize, n(1) as usize).unwrap();
    let algorithm: Algorithm = args[5].parse().unwrap();
    let mut solver = Solver::with_table_bytes(1 << 20);
    let began = Instant::now();
    let mut nodes = 0;
    for seed in 0..n(2) {
        let start = deal(seed, layout);
        let options = OddsOptions::new(
            SolveOptions {
                variant: Variant::Common,
                algorithm,
                ..SolveOptions::default()
            },
            n(3) as u8,
            n(4) as u32,
        );
        nodes += odds(&mut solver, &start, &options, None, None)
            .unwrap()
            .nodes;
    }
    println!("{:?} {nodes} nodes", began.elapsed());
}
