//! An exact set of 128-bit position keys shared by the threads of one search: open
//! addressing with linear probing, two atomic words a slot, nothing ever evicted.
//!
//! Invariants:
//! - A slot is claimed by one compare-and-swap of its low word from 0 to the key's low
//!   word; the claimer then stores the high word. A reader that finds the low word but
//!   not yet the high word waits for it, so a key is reported present only if that same
//!   128-bit key was inserted, and exactly one inserter of a key is told `New`.
//! - Neither word of a stored key is 0 (a 0 word is stored as 1): that merges keys that
//!   differ only by such a word, an extra 128-bit coincidence of probability below
//!   `n * 2^-63` that only adds to the collision bound of the keys themselves, stated
//!   with it in `search::exact`.
//! - The slot count is fixed when the set is made (a power of two) and at most 7/8 of it
//!   is used: past that, inserts say [`Insert::Full`]; [`SharedKeySet::grown`] copies
//!   every key into a larger set while no thread uses it. The memory comes zeroed from
//!   the allocator and pages are mapped as they are first touched.

use crate::search::key_set::Insert;
use crate::search::memory::{advise_huge_pages, prefetch_line};
use crate::zobrist::{index_hash, Key};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// One slot: the low and high words of a key (0 = empty).
type Slot = [AtomicU64; 2];

/// The shared set (see the module invariants).
pub struct SharedKeySet {
    slots: Vec<Slot>,
    len: AtomicUsize,
}

impl SharedKeySet {
    /// A set of the largest power of two of 16-byte slots that `bytes` pays for.
    #[cfg(test)]
    pub fn with_budget(bytes: usize) -> Self {
        use crate::search::memory::buckets_for;
        let size = std::mem::size_of::<Slot>();
        Self::with_slots(buckets_for(bytes, size, usize::MAX).max(8))
    }

    /// A set of `slots` slots, a power of two (at least 8).
    pub fn with_slots(slots: usize) -> Self {
        assert!(slots.is_power_of_two() && slots >= 8, "slots: {slots}");
        let slots: Vec<Slot> = bytemuck::zeroed_vec(slots);
        advise_huge_pages(&slots);
        SharedKeySet {
            slots,
            len: AtomicUsize::new(0),
        }
    }

    /// A set of `slots` slots holding every key of this one, copied by `threads`
    /// threads (no search may use this one meanwhile: the caller holds it by value).
    pub fn grown(self, slots: usize, threads: usize) -> Self {
        let bigger = Self::with_slots(slots);
        let chunk = self.slots.len().div_ceil(threads.max(1));
        std::thread::scope(|scope| {
            for part in self.slots.chunks(chunk) {
                let bigger = &bigger;
                scope.spawn(move || {
                    for slot in part {
                        let lo = slot[0].load(Ordering::Relaxed);
                        if lo != 0 {
                            let hi = slot[1].load(Ordering::Relaxed);
                            let _ = bigger.insert(Key::from(hi) << 64 | Key::from(lo));
                        }
                    }
                });
            }
        });
        bigger
    }

    /// Slots.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Bytes of the slots.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>()
    }

    /// Keys stored.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    #[inline(always)]
    fn words(key: Key) -> (u64, u64) {
        ((key as u64).max(1), ((key >> 64) as u64).max(1))
    }

    #[inline(always)]
    fn home(&self, key: Key) -> usize {
        index_hash(key) as usize & (self.slots.len() - 1)
    }

    /// Starts loading the home slot of `key` into cache.
    #[inline(always)]
    pub fn prefetch(&self, key: Key) {
        prefetch_line(&self.slots[self.home(key)]);
    }

    /// Inserts `key` unless it is present or the set is full; of several threads
    /// inserting the same key, exactly one is told [`Insert::New`].
    pub fn insert(&self, key: Key) -> Insert {
        let (lo, hi) = Self::words(key);
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        for _ in 0..self.slots.len() {
            let slot = &self.slots[i];
            let mut found = slot[0].load(Ordering::Acquire);
            if found == 0 {
                if self.len.load(Ordering::Relaxed) * 8 >= self.slots.len() * 7 {
                    return Insert::Full;
                }
                match slot[0].compare_exchange(0, lo, Ordering::AcqRel, Ordering::Acquire) {
                    Ok(_) => {
                        slot[1].store(hi, Ordering::Release);
                        self.len.fetch_add(1, Ordering::Relaxed);
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
            i = (i + 1) & mask;
        }
        Insert::Full
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_one_thread_inserts_each_key_and_the_set_stops_at_seven_eighths() {
        let set = SharedKeySet::with_budget(1 << 20);
        let keys: Vec<Key> = (1..20_000u128)
            .map(|k| k * 0x9E37_79B9_7F4A_7C15_F39C)
            .collect();
        let news: usize = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        keys.iter()
                            .filter(|&&k| set.insert(k) == Insert::New)
                            .count()
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).sum()
        });
        assert_eq!(news, keys.len());
        assert_eq!(set.len(), keys.len());
        assert!(keys.iter().all(|&k| set.insert(k) == Insert::Present));
        // Same low word, another high word: a different key.
        assert_eq!(set.insert(keys[0] ^ (1 << 100)), Insert::New);

        let small = SharedKeySet::with_budget(16 * 64);
        let stored = (1..100u128)
            .filter(|&k| small.insert(k << 70 | k) == Insert::New)
            .count();
        assert_eq!(stored, 56);
        assert_eq!(small.insert(12345 << 70), Insert::Full);
    }
}
