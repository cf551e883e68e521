//! An exact set of 128-bit position keys for the searches that keep every position
//! (exact, breadth-first): sharded open addressing with linear probing, 16 bytes a
//! slot, nothing ever evicted.
//!
//! Invariants:
//! - A key is reported present only if that same 128-bit key was inserted (exact, so a
//!   search that drains its queue has really seen every position it stored). Slot value
//!   0 means empty; the key 0 is stored as 1, which adds one more 128-bit coincidence to
//!   the collision bound and nothing else.
//! - The keys spread over the shards of a [`ShardPlan`]; each shard grows by doubling
//!   on its own, never holds more than 7/8 of its slots and never grows past the plan's
//!   largest size: the set then says [`Insert::Full`]. Growing copies one shard, so the
//!   set never takes more than the budget given to [`KeySet::reset`], and at its limit
//!   it holds about one key for every 18 bytes of that budget.
//! - Buckets come from a nonlinear mix of the key (raw Zobrist keys of related positions
//!   share low bits), mapped onto any slot count by multiply-shift.

use crate::search::memory::{advise_huge_pages, map_for_writing, prefetch_line};
use crate::search::visited::shards::ShardPlan;
use crate::tuning::VISITED_FIRST_SLOTS;
use crate::zobrist::{index_hash, Key};

/// What an insertion did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Insert {
    /// The key was new and is now stored.
    New,
    /// The key was already there.
    Present,
    /// The key is new but the set is at its size limit; nothing was stored.
    Full,
}

/// One shard: its slots and how many hold a key.
#[derive(Default)]
struct Shard {
    slots: Vec<Key>,
    len: usize,
}

impl Shard {
    /// Linear probing from `home` for `key` (already mapped off 0): `Ok(slot)` where it
    /// is stored, or `Err(slot)` of the first empty slot on its way.
    #[inline(always)]
    fn probe(&self, key: Key, home: usize) -> Result<usize, usize> {
        let n = self.slots.len();
        let mut i = home;
        loop {
            let s = self.slots[i];
            if s == key {
                return Ok(i);
            }
            if s == 0 {
                return Err(i);
            }
            i = if i + 1 == n { 0 } else { i + 1 };
        }
    }

    /// Stores `key`, known to be absent, in the first empty slot from `home`.
    #[inline(always)]
    fn place(&mut self, key: Key, home: usize) {
        if let Err(i) = self.probe(key, home) {
            self.slots[i] = key;
        }
    }
}

/// The set.
#[derive(Default)]
pub struct KeySet {
    shards: Vec<Shard>,
    plan: ShardPlan,
    len: usize,
    slots: usize,
}

impl KeySet {
    /// Empties the set and limits it to `bytes` (its peak, while a shard grows).
    pub fn reset(&mut self, bytes: usize) {
        self.plan = ShardPlan::for_budget(bytes, std::mem::size_of::<Key>(), 1);
        let start = self.plan.first_slots(VISITED_FIRST_SLOTS);
        self.shards.resize_with(self.plan.shards, Shard::default);
        for shard in &mut self.shards {
            shard.slots.truncate(start);
            shard.slots.fill(0);
            shard.slots.resize(start, 0);
            shard.len = 0;
        }
        self.len = 0;
        self.slots = start * self.plan.shards;
    }

    /// Bytes the slots take now.
    pub fn bytes(&self) -> usize {
        self.slots * std::mem::size_of::<Key>()
    }

    /// The shards' shape.
    pub(crate) fn plan(&self) -> ShardPlan {
        self.plan
    }

    /// Most keys the set can hold (every shard at its largest, 7/8 full).
    pub(crate) fn capacity(&self) -> usize {
        self.plan.capacity()
    }

    /// Takes the slots of shard `s` out, zeros and keys alike, leaving the shard with no
    /// memory: for a caller that moves every shard's keys elsewhere and then calls
    /// [`KeySet::reset`] (until then, `len` and lookups are stale).
    pub(crate) fn take_shard(&mut self, s: usize) -> Vec<Key> {
        let slots = std::mem::take(&mut self.shards[s].slots);
        self.slots -= slots.len();
        self.shards[s].len = 0;
        slots
    }

    /// Keys stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no key is stored.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where `key` (already mapped off 0) lives: its shard and home slot there.
    #[inline(always)]
    fn place_of(&self, key: Key) -> (usize, usize) {
        let hash = index_hash(key);
        let shard = self.plan.shard(hash);
        (shard, self.plan.home(hash, self.shards[shard].slots.len()))
    }

    /// Starts loading the home slot of `key` into cache, so that the lookups of several
    /// siblings overlap their cache misses (as in the transposition table).
    #[inline(always)]
    pub fn prefetch(&self, key: Key) {
        let (shard, home) = self.place_of(key.max(1));
        prefetch_line(&self.shards[shard].slots[home]);
    }

    /// Whether `key` is stored.
    #[inline]
    pub fn contains(&self, key: Key) -> bool {
        let key = key.max(1);
        let (shard, home) = self.place_of(key);
        self.shards[shard].probe(key, home).is_ok()
    }

    /// Inserts `key` unless it is present or the set is full.
    #[inline]
    pub fn insert(&mut self, key: Key) -> Insert {
        let key = key.max(1);
        let hash = index_hash(key);
        let s = self.plan.shard(hash);
        let shard = &mut self.shards[s];
        let Err(i) = shard.probe(key, self.plan.home(hash, shard.slots.len())) else {
            return Insert::Present;
        };
        if ShardPlan::has_room(shard.len, shard.slots.len()) {
            shard.slots[i] = key;
        } else {
            let Some(bigger) = self.plan.grown(shard.slots.len()) else {
                return Insert::Full;
            };
            self.grow(s, bigger);
            self.shards[s].place(key, self.plan.home(hash, bigger));
        }
        self.shards[s].len += 1;
        self.len += 1;
        Insert::New
    }

    /// Copies shard `s` into `bigger` slots.
    fn grow(&mut self, s: usize, bigger: usize) {
        let mut fresh = vec![0; bigger];
        advise_huge_pages(&fresh);
        map_for_writing(&mut fresh);
        let old = std::mem::replace(&mut self.shards[s].slots, fresh);
        self.slots += bigger - old.len();
        let shard = &mut self.shards[s];
        for key in old.into_iter().filter(|&k| k != 0) {
            shard.place(key, self.plan.home(index_hash(key), bigger));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::deal::SplitMix64;

    /// `n` keys drawn from `seed` (distinct but by a 128-bit coincidence).
    pub(crate) fn random_keys(seed: u64, n: usize) -> Vec<Key> {
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|_| (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64()))
            .collect()
    }

    #[test]
    fn exact_membership_growth_and_limit() {
        for bytes in [16_000, 3 << 20, 40 << 20] {
            let mut set = KeySet::default();
            set.reset(bytes);
            let plan = ShardPlan::for_budget(bytes, 16, 1);
            let keys = random_keys(4, plan.capacity() + 1000);
            let mut stored = Vec::new();
            for &k in &keys {
                match set.insert(k) {
                    Insert::New => stored.push(k),
                    Insert::Full => break,
                    Insert::Present => panic!("random keys are distinct"),
                }
                assert!(set.bytes() <= bytes);
            }
            // Full only when a shard is at its largest: uneven shards stop a little
            // short of the plan's capacity.
            assert!(stored.len() <= plan.capacity());
            assert!(stored.len() * 100 >= plan.capacity() * 90, "{bytes}");
            assert_eq!(set.len(), stored.len());
            assert!(stored.iter().all(|&k| set.contains(k)));
            assert!(stored.iter().all(|&k| set.insert(k) == Insert::Present));
            assert!(!set.contains(keys[stored.len()]));
        }
    }

    #[test]
    fn keys_one_bit_apart_and_key_zero() {
        let mut set = KeySet::default();
        set.reset(1 << 16);
        assert_eq!(set.insert(0), Insert::New);
        assert_eq!(set.insert(0), Insert::Present);
        for bit in 1..128 {
            assert_eq!(set.insert(1u128 << bit), Insert::New, "bit {bit}");
        }
        assert_eq!(set.len(), 128);
        set.reset(1 << 16);
        assert!(set.is_empty() && !set.contains(2));
        // Reused with another shard count.
        set.reset(1 << 28);
        assert!(set.is_empty() && set.insert(5) == Insert::New && set.contains(5));
    }
}
