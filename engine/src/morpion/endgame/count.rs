//! The reference count of positions: every position reachable from a board, each
//! stored whole (its set of moves) in a hash set, by breadth-first search.
//!
//! Invariant: it shares nothing with the depth-first search but the board's move
//! generation from scratch, so equal counts check the incremental lists, the
//! commutation rule and the claim that `dfs_it` enters each position once.

use crate::morpion::board::{Board, Move};
use std::collections::HashSet;

/// The number of distinct positions reachable from `board` (itself included), or
/// `None` if there are more than `limit`.
pub fn count_positions(board: &Board, limit: usize) -> Option<u64> {
    let start: Vec<Move> = Vec::new();
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    seen.insert(Vec::new());
    let mut layer = vec![start];
    let mut count = 1u64;
    while !layer.is_empty() {
        let mut next = Vec::new();
        for moves in &layer {
            let mut here = board.clone();
            for &m in moves {
                here.play(m);
            }
            for m in here.legal_moves() {
                let mut child = moves.clone();
                child.push(m);
                let mut id: Vec<u32> = child.iter().map(move_id).collect();
                id.sort_unstable();
                if seen.insert(id) {
                    count += 1;
                    if seen.len() > limit {
                        return None;
                    }
                    next.push(child);
                }
            }
        }
        layer = next;
    }
    Some(count)
}

/// A move's identity: its new dot, direction and the dot's index in the line.
fn move_id(m: &Move) -> u32 {
    let (x, y) = m.dot();
    ((x + 128) as u32) << 20 | ((y + 128) as u32) << 8 | (m.dir() as u32) << 4 | m.pos() as u32
}
