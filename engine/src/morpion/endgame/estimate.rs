//! The size of a `dfs_it` search before it is run: Knuth's (1975) estimator on the
//! tree that `dfs_it` walks (each position once), from random root-to-leaf probes.
//!
//! A probe descends by a child chosen uniformly among the moves not in T; the child's
//! T is what `dfs_it` would give it (the compatible moves among T and the siblings
//! before it), so the tree sampled is exactly the searched one. The sum over a probe
//! of the products of the branching factors met is an unbiased estimate of the node
//! count; the mean over probes and its standard error are reported.
//!
//! Invariants: randomness only from the explicit seed; the board is left as given.

use super::search::{child_list, low_bits, LIST_CAPACITY};
use crate::deal::SplitMix64;
use crate::morpion::board::{Board, Move};

/// An estimate of a search's node count.
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    /// Mean estimate of the number of positions.
    pub nodes: f64,
    /// Standard error of the mean.
    pub std_error: f64,
    /// Probes made.
    pub probes: u64,
    /// The deepest probe (moves below the root).
    pub max_depth: usize,
    /// Whether a list outgrew [`LIST_CAPACITY`] (the tree sampled then lacks moves).
    pub truncated: bool,
}

/// Estimates the positions reachable from `board` with `probes` probes.
pub fn estimate(board: &mut Board, probes: u64, seed: u64) -> Estimate {
    let mut rng = SplitMix64::new(seed);
    let mut root = board.legal_moves();
    let mut truncated = root.len() > LIST_CAPACITY;
    root.truncate(LIST_CAPACITY);
    let (mut sum, mut sum_sq, mut max_depth) = (0f64, 0f64, 0usize);
    let mut path: Vec<Move> = Vec::new();
    let mut list = vec![Move::default(); LIST_CAPACITY];
    let mut next = vec![Move::default(); LIST_CAPACITY];
    for _ in 0..probes {
        list[..root.len()].copy_from_slice(&root);
        let (mut len, mut known) = (root.len(), 0u128);
        let (mut weight, mut total) = (1f64, 1f64);
        loop {
            let open = low_bits(len) & !known;
            if open == 0 {
                break;
            }
            weight *= open.count_ones() as f64;
            total += weight;
            let mut chosen = rng.below(open.count_ones() as u64);
            let mut rest = open;
            while chosen > 0 {
                rest &= rest - 1;
                chosen -= 1;
            }
            let i = rest.trailing_zeros() as usize;
            // dfs_it reaches this child after its earlier siblings: they are in its T.
            let known_then = known | low_bits(i);
            board.play(list[i]);
            path.push(list[i]);
            let (child_len, child_known, complete) =
                child_list(board, &list[..len], known_then, i, &mut next);
            truncated |= !complete;
            std::mem::swap(&mut list, &mut next);
            (len, known) = (child_len, child_known);
        }
        max_depth = max_depth.max(path.len());
        while let Some(m) = path.pop() {
            board.unplay(m);
        }
        sum += total;
        sum_sq += total * total;
    }
    let n = probes.max(1) as f64;
    let mean = sum / n;
    let variance = (sum_sq / n - mean * mean).max(0.0);
    Estimate {
        nodes: mean,
        std_error: (variance / n).sqrt(),
        probes,
        max_depth,
        truncated,
    }
}
