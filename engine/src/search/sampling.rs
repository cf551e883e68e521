//! Iterative sampling (Helmstetter & Cazenave 2003, section 3.2, after Harvey and
//! Ginsberg 1995): play uniformly random legal moves from the start until the game is
//! won or stuck; restart; repeat up to a number of probes.
//!
//! Invariants:
//! - Sampling finds wins and never proves a loss: [`Outcome::NoWin`] means only
//!   that no probe won.
//! - The probes are a pure function of the start, the variant and the seed: the same
//!   seed replays the same probes (the seed is recorded with every result).
//! - A probe never exceeds [`probe_cap`] moves. `basic` has no cycles and its probes end
//!   on their own well below the cap; `common` probes can cycle (a Two moving between
//!   column-0 gaps), and the cap ends them.
//! - No allocation per probe or per move: the line buffer is allocated once per sampler.

use crate::card::Layout;
use crate::deal::SplitMix64;
use crate::moves::Move;
use crate::position::Position;
use crate::search::budget::{Budget, StopReason};
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::tuning::CHECK_INTERVAL;
use crate::variant::Variant;

/// Longest probe: the `basic` bound on moves (`S * (1 + 2 + ... + (R-1))`, paper section
/// 2.3: 312 for 4 x 13), times 4 so that `common` probes, which may repeat positions,
/// can still build every row.
pub fn probe_cap(layout: Layout) -> usize {
    let r = layout.ranks();
    4 * layout.suits() * r * (r - 1) / 2
}

/// A reusable sampler (owns the line buffer).
#[derive(Default)]
pub struct Sampler {
    line: Vec<Move>,
}

impl Sampler {
    /// Runs up to `max_probes` probes from `start` with random moves drawn from `rng`.
    /// `stats.nodes` counts positions entered by probe moves (plus one root per probe),
    /// `stats.probes` the probes started.
    pub fn run(
        &mut self,
        start: &Position,
        variant: Variant,
        max_probes: u64,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome {
        match variant {
            Variant::Basic => self.run_rules::<false>(start, max_probes, rng, budget, stats),
            Variant::Common => self.run_rules::<true>(start, max_probes, rng, budget, stats),
            // Not sampled (`solve::resolve_algorithm` refuses it): nothing proved.
            Variant::Aisleriot => Outcome::NoWin(StopReason::ProbeLimit),
        }
    }

    fn run_rules<const COMMON: bool>(
        &mut self,
        start: &Position,
        max_probes: u64,
        rng: &mut SplitMix64,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Outcome {
        let cap = probe_cap(start.layout());
        self.line.clear();
        self.line.reserve(cap);
        let mut next_check = stats.nodes;
        for _ in 0..max_probes {
            if stats.nodes >= next_check {
                if let Some(reason) = budget.exhausted(stats.nodes) {
                    return Outcome::Stopped(reason);
                }
                next_check = stats.nodes + CHECK_INTERVAL;
            }
            stats.probes += 1;
            stats.nodes += 1;
            let mut pos = *start;
            self.line.clear();
            while self.line.len() < cap {
                // Probe copies are never hashed: moves skip the key update.
                match pos.play_random_unkeyed::<COMMON>(|n| rng.below(n)) {
                    Some(m) => self.line.push(m),
                    None => break,
                }
            }
            stats.nodes += self.line.len() as u64;
            stats.max_depth = stats.max_depth.max(self.line.len() as u64);
            let won = if COMMON {
                pos.is_won_common()
            } else {
                pos.is_won_basic()
            };
            if won {
                stats.wins += 1;
                return Outcome::Won(self.line.clone());
            }
        }
        Outcome::NoWin(StopReason::ProbeLimit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deal::deal;
    use crate::replay::verify_solution;

    #[test]
    fn wins_replay_and_runs_repeat_with_their_seed() {
        let layout = Layout::new(3, 5).unwrap();
        let mut sampler = Sampler::default();
        let mut wins = 0;
        for seed in 0..200 {
            for variant in Variant::CLASSIC {
                let start = deal(seed, layout);
                let run = |sampler: &mut Sampler| {
                    let mut stats = SearchStats::default();
                    let mut rng = SplitMix64::new(seed ^ 77);
                    let out = sampler.run(
                        &start,
                        variant,
                        500,
                        &mut rng,
                        &Budget::unlimited(),
                        &mut stats,
                    );
                    (out, stats)
                };
                let (first, stats) = run(&mut sampler);
                let (second, _) = run(&mut sampler);
                assert_eq!(first, second, "same seed, same probes");
                if let Outcome::Won(line) = first {
                    wins += 1;
                    assert!(stats.probes >= 1);
                    verify_solution(&start, variant, &line).unwrap();
                }
            }
        }
        assert!(wins > 50, "small deals are often won by sampling ({wins})");
    }

    /// `play_random_unkeyed` maps `0..n` one-to-one onto the legal moves, so a uniform
    /// `pick` gives a uniform move.
    #[test]
    fn random_steps_are_a_bijection_onto_the_legal_moves() {
        use crate::moves::MoveList;
        use crate::position::MAX_MOVES;
        let mut rng = SplitMix64::new(9);
        for (suits, ranks) in [(4, 13), (3, 5), (8, 4), (1, 6)] {
            let layout = Layout::new(suits, ranks).unwrap();
            for seed in 0..40 {
                for variant in Variant::CLASSIC {
                    let mut pos = deal(seed, layout);
                    for _ in 0..30 {
                        let mut legal = MoveList::<MAX_MOVES>::default();
                        pos.legal_moves(variant, &mut legal);
                        let mut seen = Vec::new();
                        for k in 0..legal.len() as u64 + 1 {
                            let mut copy = pos;
                            let got = match variant {
                                Variant::Basic => copy.play_random_unkeyed::<false>(|n| {
                                    assert_eq!(n, legal.len() as u64);
                                    k
                                }),
                                Variant::Common => copy.play_random_unkeyed::<true>(|n| {
                                    assert_eq!(n, legal.len() as u64);
                                    k
                                }),
                                Variant::Aisleriot => unreachable!("not sampled"),
                            };
                            if k < legal.len() as u64 {
                                seen.push(got.expect("a move for every index below n"));
                            }
                        }
                        let key = |m: &Move| (m.card.code(), m.from, m.to, m.gap);
                        let mut a: Vec<_> = seen.iter().map(key).collect();
                        let mut b: Vec<_> = legal.as_slice().iter().map(key).collect();
                        a.sort_unstable();
                        b.sort_unstable();
                        assert_eq!(a, b);
                        if legal.is_empty() {
                            break;
                        }
                        let m = legal.as_slice()[rng.below(legal.len() as u64) as usize];
                        pos.play(m);
                    }
                }
            }
        }
    }

    #[test]
    fn limits_stop_sampling() {
        let start = deal(3, Layout::STANDARD);
        let mut stats = SearchStats::default();
        let budget = Budget::new(Some(10_000), None, None);
        let out = Sampler::default().run(
            &start,
            Variant::Common,
            u64::MAX,
            &mut SplitMix64::new(1),
            &budget,
            &mut stats,
        );
        // Either a win came first or the node limit stopped the run.
        if let Outcome::Stopped(reason) = out {
            assert_eq!(reason, StopReason::NodeLimit);
            assert!(stats.nodes < 10_000 + CHECK_INTERVAL + 2 * probe_cap(Layout::STANDARD) as u64);
        }
    }
}
