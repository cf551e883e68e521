//! How the exact visited sets spread over shards, so that they can fill their memory
//! budget: a set that grows by doubling one array needs the old and the new array at
//! once, so its last array can take only a third to a half of the budget; a set made of
//! many shards grows one shard at a time, and only the shards in transit need room twice.
//!
//! Invariants:
//! - A key's shard is the top bits of its index hash and its home slot in the shard
//!   comes from the bits below them (multiply-shift, any slot count), so the two are
//!   independent and every shard gets an even share of the keys.
//! - With `spare` shards in transit at most (one for a single thread, one a thread for
//!   a parallel growth), the shards at their largest plus the spare ones fit the budget:
//!   `(shards + spare) * max_slots * slot_bytes <= bytes` (shards of at least 8 slots
//!   aside, when the budget is tiny).
//! - A shard holds at most 7/8 of its slots (see [`ShardPlan::has_room`]).

use crate::tuning::{MAX_SHARDS, MIN_SHARDS, MIN_SHARD_BYTES, SHARD_BYTES};

/// The shape of a sharded set under a memory budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardPlan {
    /// Number of shards, a power of two.
    pub shards: usize,
    /// Most slots a shard may grow to.
    pub max_slots: usize,
}

impl Default for ShardPlan {
    fn default() -> Self {
        ShardPlan {
            shards: 1,
            max_slots: 8,
        }
    }
}

impl ShardPlan {
    /// The plan for a set of `slot_bytes` slots that must never take more than `bytes`,
    /// growing at most `spare` shards at a time.
    pub fn for_budget(bytes: usize, slot_bytes: usize, spare: usize) -> ShardPlan {
        let by_size = bytes.div_ceil(SHARD_BYTES).next_power_of_two();
        let at_least = (bytes / MIN_SHARD_BYTES).clamp(1, MIN_SHARDS);
        let at_least = 1 << (usize::BITS - 1 - at_least.leading_zeros());
        let shards = by_size.max(at_least).min(MAX_SHARDS);
        let max_slots = (bytes / slot_bytes / (shards + spare.max(1))).max(8);
        ShardPlan { shards, max_slots }
    }

    /// The shard of a key whose index hash is `hash`.
    #[inline(always)]
    pub fn shard(&self, hash: u64) -> usize {
        ((u128::from(hash) * self.shards as u128) >> 64) as usize
    }

    /// The home slot, in a shard of `slots` slots, of a key whose index hash is `hash`:
    /// from the bits below those that chose the shard.
    #[inline(always)]
    pub fn home(&self, hash: u64, slots: usize) -> usize {
        let below = hash.wrapping_mul(self.shards as u64);
        ((u128::from(below) * slots as u128) >> 64) as usize
    }

    /// Whether a shard of `slots` slots holding `len` keys may take one more.
    #[inline(always)]
    pub fn has_room(len: usize, slots: usize) -> bool {
        (len + 1) * 8 <= slots * 7
    }

    /// The size a full shard of `slots` slots grows to, or `None` at its largest.
    pub fn grown(&self, slots: usize) -> Option<usize> {
        (slots < self.max_slots).then(|| (slots * 2).min(self.max_slots))
    }

    /// The slots each shard starts with when the whole set starts with about `total`.
    pub fn first_slots(&self, total: usize) -> usize {
        (total / self.shards).clamp(8, self.max_slots.max(8))
    }

    /// Most keys the set can hold: every shard at its largest, 7/8 full.
    pub fn capacity(&self) -> usize {
        self.shards * (self.max_slots * 7 / 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_fill_the_budget_and_keys_spread_evenly() {
        let gib = 1usize << 30;
        let plan = ShardPlan::for_budget(16 * gib, 16, 1);
        assert_eq!(plan.shards, 512);
        assert!((plan.shards + 1) * plan.max_slots * 16 <= 16 * gib);
        // About 938M keys in 16 GiB (17.9 bytes a key at the limit), twice what one
        // doubled array of a power-of-two size allowed (469.8M).
        assert!(plan.capacity() > 930_000_000, "{}", plan.capacity());
        let two = ShardPlan::for_budget(16 * gib, 16, 2);
        assert!((two.shards + 2) * two.max_slots * 16 <= 16 * gib);
        let tiny = ShardPlan::for_budget(4096, 16, 1);
        assert_eq!(
            tiny,
            ShardPlan {
                shards: 1,
                max_slots: 128
            }
        );

        // Shards and homes are uniform and independent.
        let plan = ShardPlan::for_budget(256 << 20, 16, 1);
        assert_eq!(plan.shards, 64);
        assert!(plan.capacity() > 14_000_000);
        let plan = ShardPlan::for_budget(2 << 20, 16, 1);
        assert_eq!(plan.shards, 8);
        let mut counts = [[0u32; 4]; 8];
        for i in 0..80_000u64 {
            let hash = crate::zobrist::index_hash(u128::from(i) * 0x1_0000_0001);
            counts[plan.shard(hash)][plan.home(hash, 4)] += 1;
        }
        for row in counts {
            for c in row {
                assert!((2200..2800).contains(&c), "{counts:?}");
            }
        }
        assert_eq!(plan.grown(plan.max_slots), None);
        assert_eq!(plan.grown(8), Some(16));
        assert_eq!(plan.grown(plan.max_slots - 1), Some(plan.max_slots));
    }
}
