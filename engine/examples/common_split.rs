//! Measures how large the unsettled part of a `common` deal's space is: every position
//! reachable from the deal without passing through a settled one (column 0 all Twos),
//! and the settled positions one move beyond them (docs/performance.md,
//! "The exact search"). An exact proof of loss must visit all of them, and each settled one then
//! opens a `basic` game of its own.
//!
//! Usage: `cargo run --release -p gaps-engine --example common_split -- CAP DEAL...`
//! (4x13 deals; a space is cut once CAP unsettled positions are found; a set of
//! 128-bit keys costs about 32 bytes a position).

use gaps_engine::{deal, Layout, MoveList, Variant, MAX_MOVES};
use std::collections::HashSet;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: common_split CAP DEAL..."))
        .collect();
    let [cap, ref deals @ ..] = args[..] else {
        panic!("usage: common_split CAP DEAL...");
    };
    let layout = Layout::new(4, 13).expect("4x13 is a valid size");
    let mut moves = MoveList::<MAX_MOVES>::default();
    for &seed in deals {
        let start = deal(seed, layout);
        let mut unsettled: HashSet<u128> = HashSet::from([start.key()]);
        let mut exits: HashSet<u128> = HashSet::new();
        let mut stack = vec![start];
        while let Some(p) = stack.pop() {
            if unsettled.len() as u64 > cap {
                break;
            }
            p.legal_moves(Variant::Common, &mut moves);
            for &m in moves.as_slice() {
                let mut child = p;
                child.play(m);
                if child.column0_all_twos() {
                    exits.insert(child.key());
                } else if unsettled.insert(child.key()) {
                    stack.push(child);
                }
            }
        }
        let cut = if stack.is_empty() { "" } else { " (cut)" };
        println!(
            "deal {seed}: {} unsettled positions{cut}, {} settled positions one move beyond",
            unsettled.len(),
            exits.len()
        );
    }
}
