//! An exact set of 128-bit position keys for breadth-first search: open addressing with
//! linear probing, 16 bytes a slot, nothing ever evicted.
//!
//! Invariants:
//! - A key is reported present only if that same 128-bit key was inserted (exact, so a
//!   search that drains its queue has really seen every position it stored). Slot value
//!   0 means empty; the key 0 is stored as 1, which adds one more 128-bit coincidence to
//!   the collision bound and nothing else.
//! - The table never holds more than 7/8 of its slots, never grows beyond the slot
//!   count given to [`KeySet::reset`], and says [`Insert::Full`] rather than exceed it.
//! - Buckets come from a nonlinear mix of the key (raw Zobrist keys of related positions
//!   share low bits), mapped onto any slot count by multiply-shift.

use crate::search::memory::{advise_huge_pages, prefetch_line};
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

/// Slots a fresh search starts with (grows by doubling).
const INITIAL_SLOTS: usize = 1 << 14;

/// The set.
#[derive(Default)]
pub struct KeySet {
    slots: Vec<Key>,
    len: usize,
    max_slots: usize,
}

impl KeySet {
    /// Empties the set and limits it to `max_slots` slots (16 bytes each).
    pub fn reset(&mut self, max_slots: usize) {
        self.max_slots = max_slots.max(8);
        let start = INITIAL_SLOTS.min(self.max_slots);
        self.slots.truncate(start);
        self.slots.fill(0);
        self.slots.resize(start, 0);
        self.len = 0;
    }

    /// Bytes the slots take now.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Key>()
    }

    /// Keys stored.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no key is stored.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many keys the set can hold at its size limit.
    #[cfg(test)]
    pub fn capacity_limit(&self) -> usize {
        self.max_slots / 8 * 7
    }

    #[inline(always)]
    fn home(key: Key, slots: usize) -> usize {
        ((u128::from(index_hash(key)) * slots as u128) >> 64) as usize
    }

    /// Starts loading the home slot of `key` into cache, so that the lookups of several
    /// siblings overlap their cache misses (as in the transposition table).
    #[inline(always)]
    pub fn prefetch(&self, key: Key) {
        prefetch_line(&self.slots[Self::home(key.max(1), self.slots.len())]);
    }

    /// Linear probing from the home slot of `key` (already mapped off 0): `Ok(slot)`
    /// where it is stored, or `Err(slot)` of the first empty slot on its way.
    #[inline(always)]
    fn probe(&self, key: Key) -> Result<usize, usize> {
        let n = self.slots.len();
        let mut i = Self::home(key, n);
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

    /// Whether `key` is stored.
    #[inline]
    pub fn contains(&self, key: Key) -> bool {
        self.probe(key.max(1)).is_ok()
    }

    /// Inserts `key` unless it is present or the set is full.
    #[inline]
    pub fn insert(&mut self, key: Key) -> Insert {
        let key = key.max(1);
        let n = self.slots.len();
        let Err(i) = self.probe(key) else {
            return Insert::Present;
        };
        if (self.len + 1) * 8 > n * 7 {
            if n >= self.max_slots {
                return Insert::Full;
            }
            self.grow();
            self.place(key);
        } else {
            self.slots[i] = key;
        }
        self.len += 1;
        Insert::New
    }

    /// Stores `key`, known to be absent, in the first empty slot of its probe run.
    fn place(&mut self, key: Key) {
        if let Err(i) = self.probe(key) {
            self.slots[i] = key;
        }
    }

    fn grow(&mut self) {
        let bigger = (self.slots.len() * 2).min(self.max_slots);
        let fresh = vec![0; bigger];
        advise_huge_pages(&fresh);
        let old = std::mem::replace(&mut self.slots, fresh);
        for key in old.into_iter().filter(|&k| k != 0) {
            self.place(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deal::SplitMix64;

    #[test]
    fn exact_membership_growth_and_limit() {
        let mut set = KeySet::default();
        set.reset(1000);
        let mut rng = SplitMix64::new(4);
        let keys: Vec<Key> = (0..2000)
            .map(|_| (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64()))
            .collect();
        let mut stored = Vec::new();
        for &k in &keys {
            match set.insert(k) {
                Insert::New => stored.push(k),
                Insert::Full => break,
                Insert::Present => panic!("random keys are distinct"),
            }
        }
        assert_eq!(stored.len(), set.capacity_limit());
        assert_eq!(set.len(), stored.len());
        assert!(stored.iter().all(|&k| set.contains(k)));
        assert!(stored.iter().all(|&k| set.insert(k) == Insert::Present));
        assert!(!set.contains(keys[stored.len()]));
        // Keys differing in one bit anywhere are told apart; key 0 works.
        set.reset(1 << 10);
        assert_eq!(set.insert(0), Insert::New);
        assert_eq!(set.insert(0), Insert::Present);
        for bit in 1..128 {
            assert_eq!(set.insert(1u128 << bit), Insert::New, "bit {bit}");
        }
        assert_eq!(set.len(), 128);
        set.reset(1 << 10);
        assert!(set.is_empty() && !set.contains(2));
    }
}
