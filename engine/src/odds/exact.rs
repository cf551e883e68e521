//! The exact chances on small boards, by expectimax over every shuffle: the best chance
//! a player who does not see the shuffles can have, and the chance of the strategy
//! behind the lower bound (`policy`), for the tests that hold the sampled bounds to
//! them.
//!
//! A round is enumerated whole by the reference search (`exhaustive::explore`: every
//! position reachable, whole positions in a hash set). The best chance of a round with
//! `k` redeals left is 1 if a won position is reachable; else 0 if `k = 0`; else the
//! largest, over the round's positions where a redeal is allowed, of the mean of the
//! best chance with `k - 1` over every arrangement of the gathered cards on the cells
//! after the runs, a gap right after each run (a uniform shuffle deals each arrangement
//! equally often). The strategy's chance is the same mean at the one position it picks
//! (`round::point_order`'s first: most cards kept, then the smaller runs).
//!
//! Invariants: every arrangement is counted once, so the means are exact (up to the
//! rounding of `f64` sums); results are memoised by round start and redeals left, and
//! a redeal's mean by its layout and runs (it depends on nothing else); only for
//! boards whose redeals gather few cards (the caller bounds it: `MAX_GATHERED`).

use super::round::{point_order, runs_of, Runs};
use crate::card::{Card, Layout};
use crate::exhaustive::explore;
use crate::position::Position;
use crate::redeal::{kept_cards, redeal_allowed_at, run_length};
use crate::variant::Variant;
use std::collections::{HashMap, HashSet};

/// The most cards a redeal may gather here: 8! = 40,320 arrangements a redeal.
pub const MAX_GATHERED: usize = 8;

/// Which chance to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Player {
    /// The best a player who does not see the shuffles can do.
    Best,
    /// The strategy behind the lower bound.
    Policy,
}

/// Why an exact chance was not computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExactOddsError {
    /// A redeal of this board may gather more cards than [`MAX_GATHERED`].
    #[error("a redeal may gather {0} cards here; the exact odds take at most {MAX_GATHERED}")]
    TooLarge(usize),
}

/// The exact chances of one variant, memoised.
pub struct ExactOdds {
    variant: Variant,
    rounds: HashMap<(Player, Vec<Option<Card>>, u8), f64>,
    /// By the board's layout too: equal runs on two layouts gather different cards.
    redeals: HashMap<(Player, Layout, Runs, u8), f64>,
}

impl ExactOdds {
    /// Exact chances under `variant`'s rules and redeal rule.
    pub fn new(variant: Variant) -> ExactOdds {
        ExactOdds {
            variant,
            rounds: HashMap::new(),
            redeals: HashMap::new(),
        }
    }

    /// The best chance of winning from `start` with `redeals` left, shuffles unknown.
    pub fn best(&mut self, start: &Position, redeals: u8) -> Result<f64, ExactOddsError> {
        check_size(start)?;
        Ok(self.round(Player::Best, start, redeals))
    }

    /// The chance of the lower bound's strategy (module `policy`) from `start`.
    pub fn policy(&mut self, start: &Position, redeals: u8) -> Result<f64, ExactOddsError> {
        check_size(start)?;
        Ok(self.round(Player::Policy, start, redeals))
    }

    fn round(&mut self, player: Player, start: &Position, left: u8) -> f64 {
        let key = (player, start.to_cells(), left);
        if let Some(&chance) = self.rounds.get(&key) {
            return chance;
        }
        let (positions, won, _) = explore(start, self.variant, usize::MAX);
        let chance = if won {
            1.0
        } else if left == 0 {
            0.0
        } else {
            let variant = self.variant;
            let points = positions.iter().filter(|p| redeal_allowed_at(p, variant));
            match player {
                Player::Best => {
                    let mut best = 0.0f64;
                    let mut seen: HashSet<Runs> = HashSet::new();
                    for point in points {
                        if seen.insert(runs_of(point, self.variant)) {
                            best = best.max(self.redeal(player, point, left));
                        }
                    }
                    best
                }
                Player::Policy => {
                    // The strategy's point: the first in the order its rounds use.
                    let pick = points
                        .map(|p| (kept_cards(p, variant), runs_of(p, variant), p))
                        .min_by(|a, b| point_order((a.0, &a.1), (b.0, &b.1)));
                    pick.map_or(0.0, |(_, _, point)| self.redeal(player, point, left))
                }
            }
        };
        self.rounds.insert(key, chance);
        chance
    }

    /// The mean chance after redealing `point` with `left` redeals (one is used).
    fn redeal(&mut self, player: Player, point: &Position, left: u8) -> f64 {
        let runs = runs_of(point, self.variant);
        let layout = point.layout();
        if let Some(&chance) = self.redeals.get(&(player, layout, runs, left)) {
            return chance;
        }
        let (suits, ranks) = (layout.suits(), layout.ranks());
        let lens: Vec<usize> = (0..suits)
            .map(|row| run_length(point, self.variant, row))
            .collect();
        let mut cards: Vec<Card> = Vec::new();
        let mut cells: Vec<usize> = Vec::new(); // the cells the gathered cards go to
        for (row, &len) in lens.iter().enumerate() {
            for col in len..ranks {
                if let Some(card) = point.at(row, col) {
                    cards.push(card);
                }
                if col > len {
                    cells.push(row * ranks + col);
                }
            }
        }
        debug_assert_eq!(cards.len(), cells.len());
        let mut grid: Vec<Option<Card>> = vec![None; suits * ranks];
        for (row, &len) in lens.iter().enumerate() {
            for col in 0..len {
                grid[row * ranks + col] = point.at(row, col);
            }
        }
        let (mut sum, mut count) = (0.0f64, 0u64);
        permutations(&mut cards, 0, &mut |order| {
            for (&cell, &card) in cells.iter().zip(order) {
                grid[cell] = Some(card);
            }
            let next = Position::from_cells(layout, &grid).expect("a redeal keeps the deck");
            sum += self.round(player, &next, left - 1);
            count += 1;
        });
        let chance = sum / count as f64;
        self.redeals.insert((player, layout, runs, left), chance);
        chance
    }
}

/// Refuses a board whose redeal may gather more than [`MAX_GATHERED`] cards.
fn check_size(start: &Position) -> Result<(), ExactOddsError> {
    let layout: Layout = start.layout();
    let cards = layout.suits() * (layout.ranks() - 1);
    if cards > MAX_GATHERED {
        return Err(ExactOddsError::TooLarge(cards));
    }
    Ok(())
}

/// Calls `visit` with every order of `items[at..]` after `items[..at]` (Heap-free
/// recursion by swaps; each order once).
fn permutations<T: Copy>(items: &mut [T], at: usize, visit: &mut impl FnMut(&[T])) {
    if at + 1 >= items.len() {
        visit(items);
        return;
    }
    for i in at..items.len() {
        items.swap(at, i);
        permutations(items, at + 1, visit);
        items.swap(at, i);
    }
}
