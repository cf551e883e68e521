//! The transposition table: a set of visited position keys, allocated once from a byte
//! budget and owned by its solver.
//!
//! Invariants:
//! - Memory is one allocation of `capacity` 64-byte buckets (4 full 128-bit keys each),
//!   each on its own cache line (`Lines`), made at construction; pages are touched
//!   only as the table is used. Buckets are
//!   chosen by [`index_hash`] (keys' own low bits cluster). A search uses the first
//!   `active` buckets (a power of two), starting small and doubling when an insertion
//!   finds its bucket pair full (below) or three quarters of the active slots are used,
//!   up to the budget. `active` never exceeds `capacity`, so the table never grows past its
//!   budget.
//! - A key lives in its home bucket, `index_hash(key) & (active - 1)`, or, if that was
//!   full when it was stored, in the neighbour bucket `home ^ 1` (the other half of an
//!   aligned 128-byte pair). Slots are never emptied before a clear or a regrowth, so a
//!   lookup whose home bucket has a free slot proves the key absent after reading one
//!   cache line. When both buckets are full the table doubles (splitting each pair in
//!   place, keeping every key: [`TranspositionTable::grow`]) while the budget allows;
//!   at the budget an entry of the home bucket is replaced: that loses an entry (more
//!   work later) but never invents one. Insertions map the memory of the next doubling
//!   ahead of it, a page at a time, so a doubling does not pay for it all at once.
//! - Neighbour buckets are used while the table is at most half full (so an ample
//!   table loses no entry to an unlucky bucket); beyond that, lookups and stores use
//!   the home bucket only and a full one has an entry replaced, because in a crowded
//!   table reading the neighbour would cost a second cache line on most lookups. Keys
//!   stored in neighbours earlier are then no longer found (and may be stored twice):
//!   more work, never a false hit. Linear probing over windows of 8 buckets read 8 lines on
//!   every miss once the table was full (docs/performance.md, "Tried, not adopted").
//! - Entries store the full 128-bit key (0 = empty), so a false hit needs two distinct
//!   positions with equal 128-bit Zobrist keys. With keys modelled as uniform random, a
//!   search storing `n` positions aliases two of them with probability below
//!   `n^2 / 2^129`: under 1.5e-15 for `n = 10^12` positions (days of search).
//! - `clear` costs time proportional to the buckets the previous search used.

use crate::search::memory::{buckets_for, prefetch_line, Lines};
use crate::tuning::DFS_TABLE_FIRST_BUCKETS;
use crate::zobrist::{index_hash, Key};

const SLOTS: usize = 4;

type Bucket = [Key; SLOTS];

/// A key with its bucket hash computed once (prefetch and probe share it).
#[derive(Clone, Copy, Debug)]
pub struct Hashed {
    key: Key,
    hash: u64,
}

impl Hashed {
    /// Hashes `key` for table use.
    #[inline(always)]
    pub fn new(key: Key) -> Self {
        let key = key.max(1); // 0 marks an empty slot; aliasing 0 with 1 has odds 2^-127
        Hashed {
            key,
            hash: index_hash(key),
        }
    }
}

/// A fixed-budget set of position keys (see the module invariants).
pub struct TranspositionTable {
    buckets: Lines<Key, SLOTS>,
    limit: usize,
    active: usize,
    occupied: usize,
    stored: u64,
    replaced: u64,
    /// Buckets `[0, touched)` have been written at least once since allocation, so their
    /// pages are mapped (see [`TranspositionTable::touch_ahead`]).
    touched: usize,
}

impl TranspositionTable {
    /// Bytes per bucket.
    pub const BUCKET_BYTES: usize = std::mem::size_of::<Bucket>();

    /// A table using at most `bytes` bytes (rounded down to a power of two of buckets,
    /// at least one bucket).
    pub fn with_budget(bytes: usize) -> Self {
        let buckets = Lines::with_budget(bytes);
        let capacity = buckets.len();
        TranspositionTable {
            limit: capacity,
            buckets,
            active: capacity.min(DFS_TABLE_FIRST_BUCKETS),
            occupied: 0,
            stored: 0,
            replaced: 0,
            touched: 0,
        }
    }

    /// Budgeted size in bytes.
    pub fn capacity_bytes(&self) -> usize {
        self.buckets.len() * Self::BUCKET_BYTES
    }
    /// Budgeted number of entries.
    #[cfg(test)]
    pub fn capacity_entries(&self) -> usize {
        self.buckets.len() * SLOTS
    }
    /// Bytes in use by the current search.
    pub fn active_bytes(&self) -> usize {
        self.active * Self::BUCKET_BYTES
    }
    /// Keys stored since the last clear (including ones later replaced).
    pub fn stored(&self) -> u64 {
        self.stored
    }
    /// Entries overwritten because the budget was full.
    pub fn replaced(&self) -> u64 {
        self.replaced
    }

    /// Forgets everything (cost proportional to what the last search used).
    #[cfg(test)]
    pub fn clear(&mut self) {
        self.clear_with_limit(usize::MAX);
    }

    /// Forgets everything and lets the next search use at most `bytes` of the budget
    /// (at least one bucket). A smaller table can be faster: it stays in cache.
    pub fn clear_with_limit(&mut self, bytes: usize) {
        self.buckets[..self.active].fill([0; SLOTS]);
        self.limit = buckets_for(bytes, Self::BUCKET_BYTES, self.buckets.len());
        self.active = self.limit.min(DFS_TABLE_FIRST_BUCKETS);
        self.occupied = 0;
        self.stored = 0;
        self.replaced = 0;
    }

    /// Starts loading the home bucket of `h` into cache, so that the lookups of several
    /// siblings overlap their cache misses (the bucket load is the search's largest
    /// single cost). Measured on basic 4x13 deals 0..199, alternating runs with and
    /// without it: about 5% faster. A plain load through `black_box` instead blocks and
    /// gained nothing.
    #[inline(always)]
    pub fn prefetch(&self, h: Hashed) {
        let home = h.hash as usize & (self.active - 1);
        prefetch_line(&self.buckets[home]);
    }

    /// Returns true if `key` was already present; otherwise inserts it and returns false.
    #[inline(always)]
    pub fn probe_or_insert(&mut self, key: Key) -> bool {
        self.probe_or_insert_hashed(Hashed::new(key))
    }

    /// [`Self::probe_or_insert`] with the hash already computed.
    #[inline(always)]
    pub fn probe_or_insert_hashed(&mut self, h: Hashed) -> bool {
        let key = h.key;
        if self.occupied * 4 >= self.active * SLOTS * 3 && self.active < self.limit {
            self.grow();
        }
        loop {
            let home = h.hash as usize & (self.active - 1);
            let pair = self.occupied * 2 < self.active * SLOTS;
            match find_or_insert(&mut self.buckets, home, key, pair) {
                Slot::Found => return true,
                Slot::Inserted => {
                    self.occupied += 1;
                    self.stored += 1;
                    if self.touched < self.next_active() {
                        self.touch_ahead();
                    }
                    return false;
                }
                Slot::Full if self.active < self.limit => self.grow(),
                Slot::Full => {
                    self.buckets[home][(key >> 126) as usize] = key;
                    self.stored += 1;
                    self.replaced += 1;
                    return false;
                }
            }
        }
    }

    /// Maps one more page of the part the next doubling will use, by writing a zero
    /// into a bucket of it, so that the doubling finds its memory mapped. On this
    /// project's machine the first touch of fresh memory costs about 2 s a GiB with both
    /// cores at it (perf: the kernel zeroing pages): 1.2 of the 1.4 s that
    /// doubling a 512 MiB table took in one go, with no deadline check in between. A
    /// 4 KiB page holds 64 whole buckets, so touching every 64th maps every page, and
    /// one page an insertion maps the next half after `active / 64` insertions, long
    /// before a doubling is due (usually some `active / 2` insertions after the last).
    #[inline(never)]
    fn touch_ahead(&mut self) {
        const BUCKETS_PER_PAGE: usize = 4096 / TranspositionTable::BUCKET_BYTES;
        let next = self.touched.max(self.active);
        if next < self.next_active() {
            self.buckets[next][0] = 0;
            self.touched = next + BUCKETS_PER_PAGE;
        } else {
            self.touched = next; // at the limit: nothing left to map
        }
    }

    /// The active part after the next doubling.
    #[inline(always)]
    fn next_active(&self) -> usize {
        (self.active * 2).min(self.limit)
    }

    /// Doubles the active part (up to the limit) in place. A key's home bucket `h` at the
    /// old size becomes `h` or `h + old` at the new one (one more bit of its hash), and
    /// a key sits in its home or the home's neighbour `h ^ 1`; so the keys of an aligned
    /// pair `(b, b ^ 1)` all move within `b`, `b ^ 1`, `b + old` and `(b + old) ^ 1`,
    /// two pairs of 8 slots each for at most 8 keys, and no key is ever dropped. The
    /// pass reads the old half and writes both halves in order, into memory mapped
    /// ahead ([`Self::touch_ahead`]), with no buffer outside the budget.
    #[cold]
    fn grow(&mut self) {
        let old = self.active;
        self.active = self.next_active();
        if self.active == old {
            return;
        }
        let mask = self.active - 1;
        for pair in (0..old).step_by(2) {
            let mut keys = [0; 2 * SLOTS];
            for (half, bucket) in [pair, pair + 1]
                .into_iter()
                .filter(|&b| b < old)
                .enumerate()
            {
                keys[half * SLOTS..][..SLOTS].copy_from_slice(&self.buckets[bucket]);
                self.buckets[bucket] = [0; SLOTS];
            }
            for key in keys.into_iter().filter(|&k| k != 0) {
                let home = index_hash(key) as usize & mask;
                // `Found`: a key stored twice (in its neighbour while pairs were in use,
                // later in its home) is kept once. `Full` cannot happen (see above).
                match find_or_insert(&mut self.buckets, home, key, true) {
                    Slot::Inserted => {}
                    Slot::Found | Slot::Full => self.occupied -= 1,
                }
            }
        }
    }
}

/// What [`find_or_insert`] did.
enum Slot {
    Found,
    Inserted,
    Full,
}

/// Finds `key` in its home bucket or, if that is full and `pair` allows, in the
/// neighbour bucket `home ^ 1`; if absent, stores it in the first free slot seen.
#[inline(always)]
fn find_or_insert(buckets: &mut [Bucket], home: usize, key: Key, pair: bool) -> Slot {
    for bucket in [home, home ^ 1].into_iter().take(1 + usize::from(pair)) {
        for slot in buckets[bucket].iter_mut() {
            if *slot == key {
                return Slot::Found;
            }
            if *slot == 0 {
                *slot = key;
                return Slot::Inserted;
            }
        }
    }
    Slot::Full
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_keys_across_growth_and_respects_the_budget() {
        let mut tt = TranspositionTable::with_budget(8 << 20);
        assert_eq!(tt.capacity_bytes(), 8 << 20);
        let keys: Vec<Key> = (1..30_000u128)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835))
            .collect();
        for &k in &keys {
            assert!(!tt.probe_or_insert(k));
        }
        for &k in &keys {
            assert!(tt.probe_or_insert(k), "lost a key below the budget");
        }
        assert_eq!(tt.occupied, keys.len(), "a growth lost or doubled a count");
        assert!(tt.active_bytes() > DFS_TABLE_FIRST_BUCKETS * TranspositionTable::BUCKET_BYTES);
        assert!(tt.active_bytes() <= tt.capacity_bytes());
        assert_eq!(tt.replaced(), 0);
        tt.clear();
        assert!(!tt.probe_or_insert(keys[0]));
    }

    #[test]
    fn a_full_bucket_pair_grows_the_table_instead_of_replacing() {
        let mut tt = TranspositionTable::with_budget(8 << 20);
        // Twenty keys with the same home bucket at the starting size.
        let mask = (DFS_TABLE_FIRST_BUCKETS - 1) as u64;
        let keys: Vec<Key> = (1..u128::MAX)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835))
            .filter(|&k| index_hash(k) & mask == 7)
            .take(20)
            .collect();
        for &k in &keys {
            assert!(!tt.probe_or_insert(k));
        }
        assert!(keys.iter().all(|&k| tt.probe_or_insert(k)));
        assert_eq!(tt.replaced(), 0);
        assert!(tt.active_bytes() > DFS_TABLE_FIRST_BUCKETS * TranspositionTable::BUCKET_BYTES);
    }

    #[test]
    fn a_full_table_replaces_instead_of_growing() {
        let mut tt = TranspositionTable::with_budget(64 * 4);
        for k in 1..1000u128 {
            tt.probe_or_insert(k * 0x1_0000_0001);
        }
        assert_eq!(tt.capacity_entries(), 16);
        assert!(tt.replaced() > 0);
        assert_eq!(tt.active_bytes(), 256);
    }
}
