//! Numbered deals: a documented, version-stable shuffle.
//!
//! Invariants (pinned by tests; changing any of them renumbers every deal):
//! - The deck is listed suit by suit in the order `S H D C E F G I`, ranks `A..top`.
//! - The generator is SplitMix64 seeded with the deal number; `uniform(n)` is
//!   `(next() as u128 * n as u128) >> 64`.
//! - The shuffle is Fisher-Yates from the last card down: for `i = n-1 .. 1`, swap card
//!   `i` with card `uniform(i + 1)`.
//! - The shuffled deck is dealt in reading order: row 0 columns `0..R`, then row 1, ...

use crate::card::{Card, Layout};
use crate::position::Position;

/// The SplitMix64 generator (Steele, Lea and Flood), also used for search seeds.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting at `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (multiply-shift; bias below `n / 2^64`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// The full deal number `seed` (aces included), in reading order.
pub fn deal_cards(seed: u64, layout: Layout) -> Vec<Card> {
    let mut deck: Vec<Card> = layout.deck().collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..deck.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        deck.swap(i, j);
    }
    deck
}

/// The starting position of deal number `seed`: the deal with its aces taken out.
pub fn deal(seed: u64, layout: Layout) -> Position {
    let cells: Vec<Option<Card>> = deal_cards(seed, layout).into_iter().map(Some).collect();
    Position::from_cells(layout, &cells).expect("a shuffled full deck is a valid deal")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::{format_cells, format_position};

    #[test]
    fn splitmix_matches_the_reference_sequence() {
        // Reference values of SplitMix64 from seed 0 (as in Vigna's splitmix64.c).
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(g.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn deal_numbers_are_pinned() {
        let layout = Layout::new(4, 13).unwrap();
        let cells: Vec<_> = deal_cards(1, layout).into_iter().map(Some).collect();
        // If this changes, every published deal number changes meaning.
        assert_eq!(format_cells(layout, &cells), PINNED_DEAL_1);
        let small = deal(7, Layout::new(2, 4).unwrap());
        assert_eq!(format_position(&small), PINNED_2X4_DEAL_7);
    }

    const PINNED_DEAL_1: &str = "9C 7C QD 4C AS 8D QC JD 6S 5D 7H JS 3H/7D QS AC TS 5S 2D 8S 5C KH TH AD 5H AH/2S 9S 4S 2H 6D 3S KC 8C 3D 6C 7S 3C 8H/6H QH 4H 9D KS JH 2C TD JC 9H TC KD 4D";
    const PINNED_2X4_DEAL_7: &str = "4H -- 3H 2S/3S 2H -- 4S";
}
