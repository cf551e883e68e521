//! Zobrist keys: 128 random bits for every (card, cell) pair.
//!
//! Invariants:
//! - The key of a position is the XOR of `ZOBRIST[cell][card]` over every card on the
//!   board; gaps contribute nothing (they are implied by the cards).
//! - The table is a compile-time constant produced by SplitMix64 from a fixed seed, so
//!   keys are identical across runs, threads and versions; there is no mutable global.
//! - Moving card `c` from `a` to `b` changes the key by `ZOBRIST[a][c] ^ ZOBRIST[b][c]`.
//! - Keys are XOR-linear, so positions related by commuting moves have keys forming
//!   affine families whose low bits cluster; tables therefore index by [`index_hash`], a
//!   nonlinear mix of the whole key, never by raw key bits.

use crate::card::{Card, Cell, CARD_CODES, CELL_SLOTS};

/// A 128-bit position key. The low half indexes tables, the high half verifies.
pub type Key = u128;

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn build_table() -> [[Key; CARD_CODES]; CELL_SLOTS] {
    let mut table = [[0u128; CARD_CODES]; CELL_SLOTS];
    let mut state = 0x6761_7073_5a6f_6272_u64; // "gapsZobr"
    let mut cell = 0;
    while cell < CELL_SLOTS {
        let mut card = 0;
        while card < CARD_CODES {
            let (s1, lo) = splitmix64(state);
            let (s2, hi) = splitmix64(s1);
            state = s2;
            table[cell][card] = ((hi as u128) << 64) | lo as u128;
            card += 1;
        }
        cell += 1;
    }
    table
}

static ZOBRIST: [[Key; CARD_CODES]; CELL_SLOTS] = build_table();

/// The key contribution of `card` standing on `cell`.
#[inline(always)]
pub fn term(card: Card, cell: Cell) -> Key {
    ZOBRIST[cell as usize][card.code() as usize]
}

/// The key change of moving `card` from `from` to `to`.
#[inline(always)]
pub fn move_delta(card: Card, from: Cell, to: Cell) -> Key {
    term(card, from) ^ term(card, to)
}

/// A well-mixed 64-bit index for hash tables (SplitMix64's finalizer over both halves).
#[inline(always)]
pub fn index_hash(key: Key) -> u64 {
    let mut z = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_entries_are_distinct_and_nonzero() {
        let mut seen = std::collections::HashSet::new();
        for row in ZOBRIST.iter() {
            for &k in row.iter() {
                assert_ne!(k, 0);
                assert!(seen.insert(k));
            }
        }
    }

    #[test]
    fn table_is_pinned() {
        // Changing the table silently would change every stored key and bench count.
        assert_eq!(ZOBRIST[0][0] as u64, splitmix64(0x6761_7073_5a6f_6272).1);
    }
}
