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
}

/// Estimates the positions reachable from `board` with `probes` probes.
pub fn estimate(board: &mut Board, probes: u64, seed: u64) -> Estimate {
    let mut rng = SplitMix64::new(seed);
    let reach = board.variant().reach();
    let root = board.legal_moves();
    let (mut sum, mut sum_sq, mut max_depth) = (0f64, 0f64, 0usize);
    let mut path: Vec<Move> = Vec::new();
    let mut list = Vec::with_capacity(256);
    let mut next = Vec::with_capacity(256);
    for _ in 0..probes {
        list.clear();
        list.extend_from_slice(&root);
        let mut known = vec![false; list.len()];
        let (mut weight, mut total) = (1f64, 1f64);
        loop {
            let open: Vec<usize> = (0..list.len()).filter(|&i| !known[i]).collect();
            if open.is_empty() {
                break;
            }
            weight *= open.len() as f64;
            total += weight;
            let chosen = open[rng.below(open.len() as u64) as usize];
            let m = list[chosen];
            next.clear();
            let mut next_known = Vec::with_capacity(list.len());
            for (j, &t) in list.iter().enumerate() {
                if j != chosen && t.compatible(m, reach) {
                    next.push(t);
                    next_known.push(known[j] || j < chosen);
                }
            }
            board.play(m);
            path.push(m);
            let len = next.len();
            next.resize(len + 64, Move::default());
            let end = board.moves_through(m, &mut next, len).unwrap_or(next.len());
            next.truncate(end);
            next_known.resize(end, false);
            std::mem::swap(&mut list, &mut next);
            known = next_known;
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
    }
}
