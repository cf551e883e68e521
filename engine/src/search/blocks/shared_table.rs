//! A box table that the threads of one parallel block search share (see `parallel`).
//!
//! Invariants:
//! - An entry means what it means in the single-thread [`BoxTable`](super::table::BoxTable):
//!   a block that was entered (by any thread) contains every position of the box. Lookups
//!   and stores use the same four-bucket probe window, keep the larger box of a key and,
//!   when the window is full, evict its smallest box.
//! - An entry is four 64-bit words, read and written by any thread at any time with
//!   relaxed atomic operations: `key_lo ^ extents`, `key_hi ^ owner`, `extents`,
//!   `owner`. A reader decodes the key from all four, so an entry half written by
//!   another thread, or made of the words of two writes, decodes to another key: two
//!   writes of the same key decode to it only if their extents and owners are equal, and
//!   words of writes of other keys decode to a given key with odds of about 2^-128. So a
//!   lookup never answers extents that were not stored for its key, and racing stores
//!   may lose a box but never invent one. Keys are the full 128-bit Zobrist keys
//!   (0 = empty), as in the single-thread table.
//! - The owner names the block that stored the box: its thread, its depth and a serial
//!   number. Each thread publishes the serial of the block it is searching at each depth
//!   (and 0 once it left it), so another thread can tell a box of a block still being
//!   searched ("busy": worth helping) from a finished one. That answer only schedules
//!   work: skipping a child covered by any box is sound either way (see `parallel`).
//! - The whole budget is allocated (zeroed, mapped lazily) at construction and never
//!   grows: growing would move entries under the other threads.
//!   [`SharedBoxTable::clear`] zeroes it again after a search used it.

use super::table::{improves, volume, BoxStore};
use crate::search::budget::MAX_THREADS;
use crate::search::memory::{buckets_for, prefetch_line, Lines};
use crate::zobrist::{index_hash, Key};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

const SLOTS: usize = 2;
const WORDS: usize = 4;
const MAX_PROBE: usize = 4;

/// Depths whose blocks publish their serials; deeper blocks store owner 0, never busy.
const TRACKED_DEPTHS: usize = 1024;
const SERIAL_BITS: u32 = 40;

/// One cache line: two entries of four words.
type Bucket = [AtomicU64; SLOTS * WORDS];

/// A fixed-size map from position keys to box extents that threads share (see the
/// module invariants).
pub struct SharedBoxTable {
    buckets: Lines<AtomicU64, { SLOTS * WORDS }>,
    /// Per thread and depth, the owner tag of the block being searched there, or 0.
    searching: Vec<AtomicU64>,
    used: AtomicBool,
}

/// What a store did.
enum Stored {
    /// The key was new in its window.
    New,
    /// The key was new and took the slot of the smallest box of a full window.
    Evicted,
    /// The key was there (its box kept or enlarged).
    Known,
}

impl SharedBoxTable {
    /// A table of at most `bytes` bytes ([`SharedBoxTable::size_for`]).
    pub fn with_budget(bytes: usize) -> Self {
        // Zeroed by the allocator and mapped as it is first touched, as the single-thread
        // table (building it bucket by bucket took 0.9 s per GiB).
        let buckets = Lines::with_budget(bytes);
        SharedBoxTable {
            buckets,
            searching: (0..MAX_THREADS * TRACKED_DEPTHS)
                .map(|_| AtomicU64::new(0))
                .collect(),
            used: AtomicBool::new(false),
        }
    }

    /// The size of a table made with a budget of `bytes`: a power of two of 64-byte
    /// buckets, at least one.
    pub fn size_for(bytes: usize) -> usize {
        let bucket = std::mem::size_of::<Bucket>();
        buckets_for(bytes, bucket, usize::MAX) * bucket
    }

    /// Size in bytes.
    pub fn capacity_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Forgets every box (if a search used the table since the last clear).
    pub fn clear(&mut self) {
        if std::mem::take(self.used.get_mut()) {
            for word in self.buckets.iter_mut().flat_map(|b| b.iter_mut()) {
                *word.get_mut() = 0;
            }
            for word in &mut self.searching {
                *word.get_mut() = 0;
            }
        }
    }

    /// The handle of thread `thread` (below [`MAX_THREADS`]; one handle per thread),
    /// counting its own stores.
    pub fn handle(&self, thread: usize) -> SharedBoxes<'_> {
        assert!(thread < MAX_THREADS, "thread {thread} out of range");
        self.used.store(true, Relaxed);
        SharedBoxes {
            table: self,
            thread,
            owner: 0,
            serial: 0,
            stored: 0,
            replaced: 0,
        }
    }

    /// Whether `owner` names a block that a thread other than `me` is searching now.
    #[inline]
    fn busy_elsewhere(&self, owner: u64, me: usize) -> bool {
        let thread = (owner >> 56) as usize;
        if thread == 0 || thread - 1 == me {
            return false;
        }
        let depth = (owner >> SERIAL_BITS) as usize & 0xffff;
        depth < TRACKED_DEPTHS
            && self.searching[(thread - 1) * TRACKED_DEPTHS + depth].load(Relaxed) == owner
    }

    #[inline(always)]
    fn home(&self, key: Key) -> usize {
        index_hash(key) as usize & (self.buckets.len() - 1)
    }

    /// The key, extents and owner of entry `slot` of bucket `b` (key 0: empty, or torn).
    #[inline(always)]
    fn read(&self, b: usize, slot: usize) -> (Key, u64, u64) {
        let words = &self.buckets[b][slot * WORDS..];
        let (lo, hi, extents, owner) = (
            words[0].load(Relaxed),
            words[1].load(Relaxed),
            words[2].load(Relaxed),
            words[3].load(Relaxed),
        );
        let key = Key::from(lo ^ extents) | Key::from(hi ^ owner) << 64;
        (key, extents, owner)
    }

    #[inline(always)]
    fn write(&self, b: usize, slot: usize, key: Key, extents: u64, owner: u64) {
        let words = &self.buckets[b][slot * WORDS..];
        words[0].store(key as u64 ^ extents, Relaxed);
        words[1].store((key >> 64) as u64 ^ owner, Relaxed);
        words[2].store(extents, Relaxed);
        words[3].store(owner, Relaxed);
    }

    /// The extents and owner stored for `key`.
    #[inline]
    fn get(&self, key: Key) -> Option<(u64, u64)> {
        let key = key.max(1);
        let (home, mask) = (self.home(key), self.buckets.len() - 1);
        for step in 0..MAX_PROBE.min(self.buckets.len()) {
            for slot in 0..SLOTS {
                match self.read((home + step) & mask, slot) {
                    (k, extents, owner) if k == key => return Some((extents, owner)),
                    (0, _, _) => return None,
                    _ => {}
                }
            }
        }
        None
    }

    #[inline]
    fn store(&self, key: Key, extents: u64, owner: u64) -> Stored {
        let key = key.max(1); // 0 marks an empty slot; aliasing 0 with 1 has odds 2^-127
        let (home, mask) = (self.home(key), self.buckets.len() - 1);
        let (mut at, mut least) = ((home, 0), u64::MAX);
        for step in 0..MAX_PROBE.min(self.buckets.len()) {
            let b = (home + step) & mask;
            for slot in 0..SLOTS {
                let (k, old, _) = self.read(b, slot);
                if k == key {
                    if improves(extents, old) {
                        self.write(b, slot, key, extents, owner);
                    }
                    return Stored::Known;
                }
                if k == 0 {
                    self.write(b, slot, key, extents, owner);
                    return Stored::New;
                }
                let v = volume(old);
                if v < least {
                    (at, least) = ((b, slot), v);
                }
            }
        }
        // Evict the smallest box of the window: a large box saves more work.
        self.write(at.0, at.1, key, extents, owner);
        Stored::Evicted
    }
}

/// One thread's use of a [`SharedBoxTable`]: the table's boxes, this thread's counts.
pub struct SharedBoxes<'a> {
    table: &'a SharedBoxTable,
    thread: usize,
    /// The owner tag of the block whose boxes are being stored (0: untracked).
    owner: u64,
    serial: u64,
    stored: u64,
    replaced: u64,
}

impl BoxStore for SharedBoxes<'_> {
    #[inline(always)]
    fn prefetch(&self, key: Key) {
        prefetch_line(&self.table.buckets[self.table.home(key.max(1))]);
    }
    #[inline]
    fn get(&self, key: Key) -> Option<u64> {
        self.table.get(key).map(|(extents, _)| extents)
    }
    #[inline]
    fn claim(&self, key: Key) -> Option<(u64, bool)> {
        let (extents, owner) = self.table.get(key)?;
        Some((extents, self.table.busy_elsewhere(owner, self.thread)))
    }
    #[inline]
    fn begin_block(&mut self, depth: usize) {
        self.serial = (self.serial + 1) & ((1 << SERIAL_BITS) - 1);
        self.owner = 0;
        if depth < TRACKED_DEPTHS && self.serial != 0 {
            self.owner =
                (self.thread as u64 + 1) << 56 | (depth as u64) << SERIAL_BITS | self.serial;
            self.table.searching[self.thread * TRACKED_DEPTHS + depth].store(self.owner, Relaxed);
        }
    }
    #[inline]
    fn end_block(&mut self, depth: usize) {
        if depth < TRACKED_DEPTHS {
            self.table.searching[self.thread * TRACKED_DEPTHS + depth].store(0, Relaxed);
        }
    }
    #[inline]
    fn store(&mut self, key: Key, extents: u64) {
        match self.table.store(key, extents, self.owner) {
            Stored::New => self.stored += 1,
            Stored::Evicted => {
                self.stored += 1;
                self.replaced += 1;
            }
            Stored::Known => {}
        }
    }
    fn stored(&self) -> u64 {
        self.stored
    }
    fn replaced(&self) -> u64 {
        self.replaced
    }
    fn active_bytes(&self) -> usize {
        self.table.capacity_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::tests::{check_covers_only_inside, check_evicts_smallest_first, ext};
    use super::*;

    #[test]
    fn answers_like_the_single_thread_table() {
        let table = SharedBoxTable::with_budget(1 << 16);
        check_covers_only_inside(&mut table.handle(0));
    }

    #[test]
    fn a_torn_entry_answers_nothing() {
        let table = SharedBoxTable::with_budget(1 << 16);
        let key: Key = 0xfeed_beef_0000_0000_0000_0000_0000_0001;
        table.store(key, ext([1, 0, 0, 0, 0, 0, 0, 0]), 0);
        let b = (0..table.buckets.len())
            .find(|&b| table.read(b, 0).0 == key)
            .expect("stored in slot 0 of its home");
        // Another thread's write of larger extents for the same key, caught halfway.
        table.buckets[b][2].store(ext([9, 9, 0, 0, 0, 0, 0, 0]), Relaxed);
        assert_eq!(table.get(key), None);
    }

    #[test]
    fn a_box_is_busy_for_other_threads_while_its_block_is_searched() {
        let table = SharedBoxTable::with_budget(1 << 16);
        let (mut first, mut second) = (table.handle(0), table.handle(1));
        let key: Key = 0x0123_4567_89ab_cdef_0123_4567_89ab_cdef;
        second.begin_block(3);
        second.store(key, ext([1, 0, 0, 0, 0, 0, 0, 0]));
        assert_eq!(
            first.claim(key),
            Some((ext([1, 0, 0, 0, 0, 0, 0, 0]), true))
        );
        assert_eq!(
            second.claim(key),
            Some((ext([1, 0, 0, 0, 0, 0, 0, 0]), false))
        );
        second.begin_block(4); // a child: the block at depth 3 is still searched
        assert_eq!(first.claim(key).map(|c| c.1), Some(true));
        second.end_block(4);
        second.end_block(3);
        assert_eq!(first.claim(key).map(|c| c.1), Some(false));
        // A later block at the same depth is another block.
        second.begin_block(3);
        assert_eq!(first.claim(key).map(|c| c.1), Some(false));
        first.begin_block(0);
        first.store(key ^ 1, 0);
        assert_eq!(second.claim(key ^ 1), Some((0, true)));
    }

    #[test]
    fn a_full_table_evicts_its_smallest_boxes_first() {
        let table = SharedBoxTable::with_budget(256);
        check_evicts_smallest_first(&mut table.handle(0));
    }

    #[test]
    fn threads_storing_at_once_never_invent_a_box() {
        // Two threads store the same keys with different extents; every answer must be
        // one of the two stored boxes.
        let table = SharedBoxTable::with_budget(1 << 12);
        let keys: Vec<Key> = (1..2_000u128)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835))
            .collect();
        let (small, large) = (ext([1, 2, 0, 0, 0, 0, 0, 0]), ext([2, 1, 0, 0, 0, 0, 0, 0]));
        std::thread::scope(|s| {
            for (thread, extents) in [small, large].into_iter().enumerate() {
                let (table, keys) = (&table, &keys);
                s.spawn(move || {
                    let mut boxes = table.handle(thread);
                    for _ in 0..20 {
                        for &k in keys {
                            boxes.store(k, extents);
                            if let Some(got) = boxes.get(k) {
                                assert!(got == small || got == large, "{got:x}");
                            }
                        }
                    }
                });
            }
        });
    }
}
