//! Breadth-first search with one random probe per node (Helmstetter & Cazenave 2003,
//! section 3.3): the breadth-first part spreads the probes over the search space and,
//! when it exhausts the space within its memory budget, proves the deal lost.
//!
//! Invariants:
//! - Each stored node is 8 bytes (parent index and the move that reached it); a node's
//!   position is its parent's plus one move (the parent is cached or rebuilt by replay
//!   from the start), so memory is bounded by the node records plus an exact
//!   [`KeySet`] of their 128-bit keys (collision bound as for the transposition table:
//!   below `n^2 / 2^129`).
//! - The seen set is exact (nothing is ever evicted), so a breadth-first search that
//!   empties its queue without a win and without refusing any node has visited every
//!   reachable position: the deal is lost. Cycles (`common`) need no special care.
//! - When the budget is full, new positions are no longer stored, the nodes already
//!   stored are still probed, and a run without a win ends `MemoryLimit`, never a loss.
//! - Buffers are owned by the searcher and reused: no allocation per node once they have
//!   grown to the budget.

pub mod probes;

use crate::deal::SplitMix64;
use crate::moves::{Move, MoveList};
use crate::position::{Position, MAX_MOVES};
use crate::search::budget::{Budget, StopReason};
use crate::search::hybrid::probes::{InlineProbes, ProbeSink, QueuedProbes, Shared};
use crate::search::outcome::Outcome;
use crate::search::sampling::Sampler;
use crate::search::stats::SearchStats;
use crate::search::visited::key_set::{Insert, KeySet};
use crate::tuning::CHECK_INTERVAL;
use crate::variant::Variant;

/// How a memory budget of `bytes` is split: seven tenths for the key set (16 bytes a
/// slot, filled to 7/8, and one shard's growth), three tenths for the 8-byte node
/// records; about 26 bytes per stored position (10.1M positions in 256 MiB).
fn split_budget(bytes: usize) -> (usize, usize) {
    let key_bytes = bytes / 10 * 7;
    let positions = (bytes / 24).max(1);
    (key_bytes, positions)
}

/// A reusable hybrid searcher.
#[derive(Default)]
pub struct HybridSearch {
    seen: KeySet,
    nodes: Vec<(u32, Move)>,
    path: Vec<Move>,
    sampler: Sampler,
    /// The samplers of helper threads (one per helper, kept for the next search).
    helpers: Vec<Sampler>,
}

const ROOT: u32 = u32::MAX;

/// How the breadth-first loop ended.
enum LoopEnd {
    /// A limit of the budget.
    Limit(StopReason),
    /// A probe won (the sink knows which).
    Won,
    /// Every stored node was expanded (some children refused when the budget was full).
    Done { refused: bool },
}

impl HybridSearch {
    /// Searches from `start` within `memory_bytes` of keys and node records; with
    /// `threads` above 1, helper threads make the probes beside this one (module
    /// `probes`: the same verdict and solution as on one thread unless a limit
    /// stops the search). The probes' generators are seeded from one draw of `rng`.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        start: &Position,
        variant: Variant,
        memory_bytes: usize,
        threads: usize,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome {
        let base = rng.next_u64();
        let mut sampler = std::mem::take(&mut self.sampler);
        let helpers = threads.saturating_sub(1);
        let (end, won) = if helpers == 0 {
            let mut sink = InlineProbes {
                sampler: &mut sampler,
                variant,
                base,
                won: None,
            };
            let end = self.breadth_first(start, variant, memory_bytes, budget, stats, &mut sink);
            (end, sink.won)
        } else {
            self.helpers.resize_with(helpers, Sampler::default);
            let shared = Shared::new(variant, base);
            let mut helper_samplers = std::mem::take(&mut self.helpers);
            let end = std::thread::scope(|scope| {
                let handles: Vec<_> = helper_samplers
                    .iter_mut()
                    .map(|s| {
                        let shared = &shared;
                        scope.spawn(move || shared.help(s))
                    })
                    .collect();
                let mut sink = QueuedProbes::new(&shared, &mut sampler, helpers);
                let end =
                    self.breadth_first(start, variant, memory_bytes, budget, stats, &mut sink);
                sink.finish(matches!(end, LoopEnd::Limit(_)), stats);
                for handle in handles {
                    stats.absorb(&handle.join().expect("a probe thread does not panic"));
                }
                end
            });
            self.helpers = helper_samplers;
            (end, shared.take_best())
        };
        self.sampler = sampler;
        if let Some((index, line)) = won {
            self.rebuild(start, index as usize);
            let mut moves = self.path.clone();
            moves.extend_from_slice(&line);
            return Outcome::Won(moves);
        }
        match end {
            LoopEnd::Limit(reason) => Outcome::Stopped(reason),
            LoopEnd::Won => unreachable!("a won loop leaves its win with the sink"),
            LoopEnd::Done { refused: true } => Outcome::Stopped(StopReason::MemoryLimit),
            LoopEnd::Done { refused: false } => Outcome::Exhausted,
        }
    }

    /// The breadth-first loop: stores new positions while the budget allows, and hands
    /// every stored node to `sink` to be probed, in index order.
    fn breadth_first<S: ProbeSink>(
        &mut self,
        start: &Position,
        variant: Variant,
        memory_bytes: usize,
        budget: &Budget,
        stats: &mut SearchStats,
        sink: &mut S,
    ) -> LoopEnd {
        let (key_bytes, max_positions) = split_budget(memory_bytes);
        let max_positions = max_positions.clamp(1, u32::MAX as usize - 1);
        self.seen.reset(key_bytes);
        self.nodes.clear();
        self.seen.insert(start.key());
        // The root is node 0; its record is never replayed.
        self.nodes.push((ROOT, Move::default()));
        let mut refused = false;
        let mut moves = MoveList::<MAX_MOVES>::default();
        let mut next_check = stats.nodes;
        let mut head = 0usize;
        // The last parent's position (index, position, depth), and where each BFS layer
        // starts in `nodes` (depth is monotone in the index).
        let mut cached: Option<(u32, Position, u64)> = None;
        let mut layers: Vec<usize> = vec![0];
        while head < self.nodes.len() {
            // Also every 256 nodes: with helpers probing, this thread may store nothing
            // for a long while.
            if stats.nodes >= next_check || head.is_multiple_of(256) {
                if let Some(reason) = budget.exhausted(stats.nodes + sink.outside_nodes()) {
                    return LoopEnd::Limit(reason);
                }
                next_check = stats.nodes + CHECK_INTERVAL;
            }
            // Siblings are stored next to each other, so the parent's position is
            // usually the cached one and the node costs one move, not a full replay.
            let (parent, m) = self.nodes[head];
            let (pos, depth) = if parent == ROOT {
                (*start, 0)
            } else {
                let (index, mut at, parent_depth) = cached.unwrap_or((0, *start, 0));
                let parent_depth = if index == parent {
                    parent_depth
                } else {
                    self.walk(&mut at, index, parent_depth, parent, &layers)
                };
                cached = Some((parent, at, parent_depth));
                at.play(m);
                (at, parent_depth + 1)
            };
            stats.expanded += 1;
            stats.max_depth = stats.max_depth.max(depth);
            // One probe from this node (a won node is its own zero-move probe).
            if sink.take(head as u32, &pos, stats) {
                return LoopEnd::Won;
            }
            if !refused {
                pos.legal_moves(variant, &mut moves);
                let mut keys = [0; MAX_MOVES];
                for (k, &m) in keys.iter_mut().zip(moves.as_slice()) {
                    *k = pos.key_after(m);
                    self.seen.prefetch(*k);
                }
                for (&m, &key) in moves.as_slice().iter().zip(&keys) {
                    if self.nodes.len() >= max_positions {
                        if self.seen.contains(key) {
                            stats.tt_hits += 1;
                            continue;
                        }
                        refused = true;
                        break;
                    }
                    match self.seen.insert(key) {
                        Insert::Present => {
                            stats.tt_hits += 1;
                            continue;
                        }
                        Insert::Full => {
                            refused = true;
                            break;
                        }
                        Insert::New => {}
                    }
                    if layers.len() as u64 == depth + 1 {
                        layers.push(self.nodes.len());
                    }
                    self.nodes.push((head as u32, m));
                    stats.stored += 1;
                    stats.nodes += 1;
                }
            }
            head += 1;
        }
        LoopEnd::Done { refused }
    }

    /// Moves `at`, the position of node `from` (at depth `from_depth`), to the position
    /// of node `to`, through their closest common ancestor (consecutive parents in
    /// breadth-first order are usually close relatives); returns `to`'s depth.
    fn walk(
        &mut self,
        at: &mut Position,
        from: u32,
        from_depth: u64,
        to: u32,
        layers: &[usize],
    ) -> u64 {
        let depth_of = |i: u32| (layers.partition_point(|&start| start <= i as usize) - 1) as u64;
        let to_depth = depth_of(to);
        debug_assert_eq!(depth_of(from), from_depth);
        let (mut a, mut da, mut b, mut db) = (from, from_depth, to, to_depth);
        self.path.clear();
        while db > da {
            let (parent, m) = self.nodes[b as usize];
            self.path.push(m);
            b = parent;
            db -= 1;
        }
        while a != b {
            if da > db {
                let (parent, m) = self.nodes[a as usize];
                at.unplay(m);
                a = parent;
                da -= 1;
            } else {
                let (pa, ma) = self.nodes[a as usize];
                let (pb, mb) = self.nodes[b as usize];
                at.unplay(ma);
                self.path.push(mb);
                a = pa;
                b = pb;
                da -= 1;
                db -= 1;
            }
        }
        for &m in self.path.iter().rev() {
            at.play(m);
        }
        to_depth
    }

    /// The position of node `index`, with its moves from the start left in `self.path`.
    fn rebuild(&mut self, start: &Position, index: usize) -> Position {
        self.path.clear();
        let mut i = index;
        while self.nodes[i].0 != ROOT {
            let (parent, m) = self.nodes[i];
            self.path.push(m);
            i = parent as usize;
        }
        self.path.reverse();
        let mut pos = *start;
        for &m in &self.path {
            pos.play(m);
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::deal;
    use crate::exhaustive::reachable;
    use crate::replay::verify_solution;

    #[test]
    fn verdicts_match_the_reference_and_wins_replay() {
        let mut search = HybridSearch::default();
        for (suits, ranks, variant) in [
            (3, 5, Variant::Common),
            (4, 5, Variant::Basic),
            (2, 7, Variant::Common),
        ] {
            let layout = Layout::new(suits, ranks).unwrap();
            for seed in 0..150 {
                let start = deal(seed, layout);
                let reference = reachable(&start, variant, 3_000_000).winnable.unwrap();
                let mut stats = SearchStats::default();
                let out = search.run(
                    &start,
                    variant,
                    256 << 20,
                    1,
                    &mut SplitMix64::new(seed),
                    &Budget::unlimited(),
                    &mut stats,
                );
                match out {
                    Outcome::Won(line) => {
                        assert!(reference, "{variant} {layout} {seed}");
                        verify_solution(&start, variant, &line).unwrap();
                    }
                    Outcome::Exhausted => assert!(!reference, "{variant} {layout} {seed}"),
                    Outcome::Stopped(r) | Outcome::NoWin(r) => panic!("stopped: {r:?}"),
                }
            }
        }
    }

    #[test]
    fn helper_threads_find_the_same_verdict_and_solution() {
        let (mut one, mut two, mut three) = Default::default();
        let mut searches: [&mut HybridSearch; 3] = [&mut one, &mut two, &mut three];
        let mut wins = 0;
        for (suits, ranks, variant, memory) in [
            (3, 5, Variant::Common, 256 << 20),
            (4, 5, Variant::Basic, 256 << 20),
            // Small enough that some searches fill it (`memory_limit` on every count).
            (3, 6, Variant::Common, 2_000 * 24),
        ] {
            let layout = Layout::new(suits, ranks).unwrap();
            for seed in 0..300 {
                let start = deal(seed, layout);
                let outcomes: Vec<Outcome> = searches
                    .iter_mut()
                    .enumerate()
                    .map(|(i, search)| {
                        let mut stats = SearchStats::default();
                        let mut rng = SplitMix64::new(seed);
                        search.run(
                            &start,
                            variant,
                            memory,
                            i + 1,
                            &mut rng,
                            &Budget::unlimited(),
                            &mut stats,
                        )
                    })
                    .collect();
                assert_eq!(outcomes[0], outcomes[1], "{variant} {layout} {seed}");
                assert_eq!(outcomes[0], outcomes[2], "{variant} {layout} {seed}");
                if let Outcome::Won(line) = &outcomes[0] {
                    verify_solution(&start, variant, line).unwrap();
                    wins += 1;
                }
            }
        }
        assert!(wins > 100, "{wins}");
    }

    #[test]
    fn a_small_budget_never_claims_a_loss() {
        let mut search = HybridSearch::default();
        let layout = Layout::new(3, 6).unwrap();
        for seed in 0..100 {
            let start = deal(seed, layout);
            let mut stats = SearchStats::default();
            let out = search.run(
                &start,
                Variant::Common,
                20 * 24,
                1,
                &mut SplitMix64::new(1),
                &Budget::unlimited(),
                &mut stats,
            );
            if out == Outcome::Exhausted {
                // Only when the whole space fits in 20 positions.
                assert!(reachable(&start, Variant::Common, 1000).positions <= 20);
            }
        }
    }
}
