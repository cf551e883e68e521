//! An exact set of 128-bit position keys shared by the threads of one search: sharded
//! open addressing with linear probing, two atomic words a slot, nothing ever evicted.
//!
//! Invariants:
//! - A slot is claimed by one compare-and-swap of its low word from 0 to the key's low
//!   word; the claimer then stores the high word. A reader that finds the low word but
//!   not yet the high word waits for it, so a key is reported present only if that same
//!   128-bit key was inserted, and exactly one inserter of a key is told `New`.
//! - Neither word of a stored key is 0 (a 0 word is stored as 1, and the key's shard and
//!   home come from the key so mapped): that merges keys that differ only by such a
//!   word, an extra 128-bit coincidence of probability below `n * 2^-63` that only adds
//!   to the collision bound of the keys themselves, stated with it in `search::exact`.
//! - The keys spread over the shards of a [`ShardPlan`] made for the number of threads.
//!   A shard holds at most 7/8 of its slots (give or take one key per thread racing for
//!   the last room): past that, inserts into it say [`Insert::Full`], and
//!   [`SharedKeySet::grow`] copies the fullest shards into larger ones while no thread
//!   uses the set, at most one shard per thread at a time, so the set never takes more
//!   than its budget. The memory comes zeroed from the allocator, its pages mapped by
//!   a write when a shard is made (`memory::map_for_writing`).

use crate::search::memory::{advise_huge_pages, map_for_writing, prefetch_line};
use crate::search::visited::key_set::Insert;
use crate::search::visited::shards::ShardPlan;
use crate::zobrist::{index_hash, Key};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// One slot: the low and high words of a key (0 = empty).
type Slot = [AtomicU64; 2];

/// One shard: its slots and how many hold a key.
struct Shard {
    slots: Vec<Slot>,
    len: AtomicUsize,
}

impl Shard {
    fn with_slots(slots: usize) -> Shard {
        let mut slots: Vec<Slot> = bytemuck::zeroed_vec(slots);
        advise_huge_pages(&slots);
        map_for_writing(&mut slots);
        Shard {
            slots,
            len: AtomicUsize::new(0),
        }
    }

    /// Copies every key into `bigger` slots (the caller holds the shard alone).
    fn grow(&mut self, plan: &ShardPlan, bigger: usize) {
        let mut fresh = Shard::with_slots(bigger);
        *fresh.len.get_mut() = *self.len.get_mut();
        for slot in &mut self.slots {
            let lo = *slot[0].get_mut();
            if lo == 0 {
                continue;
            }
            let hi = *slot[1].get_mut();
            let mut i = plan.home(index_hash(Key::from(hi) << 64 | Key::from(lo)), bigger);
            while *fresh.slots[i][0].get_mut() != 0 {
                i = if i + 1 == bigger { 0 } else { i + 1 };
            }
            fresh.slots[i] = [AtomicU64::new(lo), AtomicU64::new(hi)];
        }
        *self = fresh;
    }
}

/// The shared set (see the module invariants).
pub struct SharedKeySet {
    shards: Vec<Shard>,
    plan: ShardPlan,
}

impl SharedKeySet {
    /// An empty set that will never take more than `bytes`, grown by `threads` threads,
    /// starting with about `first_slots` slots over all its shards.
    pub fn new(bytes: usize, threads: usize, first_slots: usize) -> Self {
        let plan = ShardPlan::for_budget(bytes, std::mem::size_of::<Slot>(), threads);
        let start = plan.first_slots(first_slots);
        SharedKeySet {
            shards: (0..plan.shards).map(|_| Shard::with_slots(start)).collect(),
            plan,
        }
    }

    /// Bytes of the slots.
    pub fn bytes(&self) -> usize {
        let slots: usize = self.shards.iter().map(|s| s.slots.len()).sum();
        slots * std::mem::size_of::<Slot>()
    }

    /// Keys stored.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.len.load(Ordering::Relaxed))
            .sum()
    }

    /// The key as stored (no zero word) and its index hash.
    #[inline(always)]
    fn mapped(key: Key) -> (u64, u64, u64) {
        let (lo, hi) = ((key as u64).max(1), ((key >> 64) as u64).max(1));
        (lo, hi, index_hash(Key::from(hi) << 64 | Key::from(lo)))
    }

    /// Starts loading the home slot of `key` into cache.
    #[inline(always)]
    pub fn prefetch(&self, key: Key) {
        let (_, _, hash) = Self::mapped(key);
        let shard = &self.shards[self.plan.shard(hash)];
        prefetch_line(&shard.slots[self.plan.home(hash, shard.slots.len())]);
    }

    /// Inserts `key` unless it is present or its shard is full; of several threads
    /// inserting the same key, exactly one is told [`Insert::New`].
    pub fn insert(&self, key: Key) -> Insert {
        let (lo, hi, hash) = Self::mapped(key);
        let shard = &self.shards[self.plan.shard(hash)];
        let n = shard.slots.len();
        let mut i = self.plan.home(hash, n);
        for _ in 0..n {
            let slot = &shard.slots[i];
            let mut found = slot[0].load(Ordering::Acquire);
            if found == 0 {
                if !ShardPlan::has_room(shard.len.load(Ordering::Relaxed), n) {
                    return Insert::Full;
                }
                match slot[0].compare_exchange(0, lo, Ordering::AcqRel, Ordering::Acquire) {
                    Ok(_) => {
                        slot[1].store(hi, Ordering::Release);
                        shard.len.fetch_add(1, Ordering::Relaxed);
                        return Insert::New;
                    }
                    Err(actual) => found = actual,
                }
            }
            if found == lo {
                let mut stored = slot[1].load(Ordering::Acquire);
                while stored == 0 {
                    // The claimer is between its two stores.
                    std::hint::spin_loop();
                    stored = slot[1].load(Ordering::Acquire);
                }
                if stored == hi {
                    return Insert::Present;
                }
            }
            i = if i + 1 == n { 0 } else { i + 1 };
        }
        Insert::Full
    }

    /// Grows every shard at least 3/4 full (so that one growth serves many shards),
    /// on `threads` threads, one shard per thread at a time. Returns false, growing
    /// nothing, when a shard that refuses keys is already at its largest: the set is
    /// then at its memory limit.
    pub fn grow(&mut self, threads: usize) -> bool {
        let plan = self.plan;
        let mut groups: Vec<Vec<(&mut Shard, usize)>> =
            (0..threads.max(1)).map(|_| Vec::new()).collect();
        let mut due = 0;
        for shard in &mut self.shards {
            let (len, n) = (*shard.len.get_mut(), shard.slots.len());
            if len * 4 < n * 3 {
                continue;
            }
            match plan.grown(n) {
                Some(bigger) => {
                    let group = due % groups.len();
                    groups[group].push((shard, bigger));
                    due += 1;
                }
                None if !ShardPlan::has_room(len, n) => return false,
                None => {}
            }
        }
        std::thread::scope(|scope| {
            for group in groups {
                scope.spawn(move || {
                    for (shard, bigger) in group {
                        shard.grow(&plan, bigger);
                    }
                });
            }
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_one_thread_inserts_each_key_and_growth_keeps_them_all() {
        let mut set = SharedKeySet::new(1 << 20, 4, 8);
        let keys: Vec<Key> = (1..20_000u128)
            .map(|k| k * 0x9E37_79B9_7F4A_7C15_F39C)
            .collect();
        let mut news = 0;
        let mut grown = 0;
        loop {
            let (new, full): (usize, bool) = std::thread::scope(|scope| {
                let workers: Vec<_> = (0..4)
                    .map(|_| {
                        let set = &set;
                        let keys = &keys;
                        scope.spawn(move || {
                            let mut new = 0;
                            for &k in keys {
                                match set.insert(k) {
                                    Insert::New => new += 1,
                                    Insert::Present => {}
                                    Insert::Full => return (new, true),
                                }
                            }
                            (new, false)
                        })
                    })
                    .collect();
                workers.into_iter().fold((0, false), |(n, f), w| {
                    let (new, full) = w.join().unwrap();
                    (n + new, f || full)
                })
            });
            news += new;
            if !full {
                break;
            }
            assert!(set.grow(4));
            grown += 1;
        }
        assert!(grown > 3);
        assert_eq!(news, keys.len());
        assert_eq!(set.len(), keys.len());
        assert!(keys.iter().all(|&k| set.insert(k) == Insert::Present));
        assert!(set.bytes() <= 1 << 20);
        // Same low word, another high word: a different key; zero words are stored.
        assert_eq!(set.insert(keys[0] ^ (1 << 100)), Insert::New);
        assert_eq!(set.insert(0), Insert::New);
        assert_eq!(set.insert(1), Insert::Present);
    }

    #[test]
    fn a_full_set_refuses_to_grow_past_its_budget() {
        let mut small = SharedKeySet::new(16 * 64, 1, 8);
        let plan = ShardPlan::for_budget(16 * 64, 16, 1);
        let mut stored = 0;
        for k in 1..1000u128 {
            match small.insert(k << 70 | k) {
                Insert::New => stored += 1,
                Insert::Present => unreachable!(),
                Insert::Full if small.grow(1) => {
                    assert_eq!(small.insert(k << 70 | k), Insert::New);
                    stored += 1;
                }
                Insert::Full => break,
            }
        }
        assert_eq!(stored, plan.capacity());
        assert!(small.bytes() <= 16 * 64);
    }
}
