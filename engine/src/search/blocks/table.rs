//! The transposition table of block search: for a position, the extents of a box of
//! positions starting there that a searched block contains.
//!
//! Invariants:
//! - An entry `(key, extents)` means: a block that was entered contains every position
//!   reached from the position of `key` by at most `extents[r]` moves of the gap of
//!   rank `r` (gaps ranked by their cell, so the labels depend only on the position), in
//!   any order. In `basic` every gap has at most one move, so such a box is a function
//!   of the position and the extents alone, whichever block stored it.
//! - [`BoxTable::covers`] answers true only for a box inside a stored one (every extent
//!   at most the stored one), so a child block is skipped only if all of its positions
//!   were already entered: that is what keeps block search complete (see `blocks`).
//! - Memory is one allocation of `capacity` 64-byte buckets (two entries each) made at
//!   construction and touched as used; a search uses the first `active` buckets,
//!   doubling when three quarters full, up to its limit. Keys are the full 128-bit
//!   Zobrist keys (0 = empty), with the same aliasing bound as the depth-first table:
//!   below `n^2 / 2^129` for `n` stored positions.
//! - At the limit, a full probe window replaces its smallest box (by positions): that
//!   loses a box (more work later) but never invents one. Evicting the smallest rather
//!   than a random entry of the home bucket cut 6x13 deal 0 with 128 MiB from 1,568M
//!   to 313M positions (docs/performance.md).

use crate::search::memory::{buckets_for, prefetch_line, Lines};
use crate::tuning::BLOCK_TABLE_FIRST_BUCKETS;
use crate::zobrist::{index_hash, Key};

const SLOTS: usize = 2;
const MAX_PROBE: usize = 4;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Two entries, each a 128-bit key then its extents (one byte per gap rank) widened to
/// 128 bits: plain integers, so the allocation is zeroed memory that the kernel maps
/// lazily, as for the depth-first table.
type Bucket = [u128; 2 * SLOTS];

/// What block search needs of a box table: the single-thread [`BoxTable`] or one
/// thread's handle on a [`SharedBoxTable`](super::shared_table::SharedBoxTable). Both
/// keep this module's invariants: a lookup never answers a box larger than one stored
/// for its key, and a store may lose boxes but never invents one.
pub trait BoxStore {
    /// Starts loading the home bucket of `key`, so that several lookups or stores can
    /// overlap their cache misses (they dominate block search on a large table).
    fn prefetch(&self, key: Key);
    /// The extents of the box stored for `key`, if any.
    fn get(&self, key: Key) -> Option<u64>;
    /// Records that a searched block contains the box of `extents` starting at `key`.
    fn store(&mut self, key: Key, extents: u64);
    /// Boxes stored (new keys) since the last clear, by this user of the table.
    fn stored(&self) -> u64;
    /// Entries overwritten because the budget was full, by this user of the table.
    fn replaced(&self) -> u64;
    /// Bytes in use by the current search.
    fn active_bytes(&self) -> usize;

    /// The extents stored for `key` and whether the block that stored them is being
    /// searched by another thread now (never, with one thread).
    #[inline]
    fn claim(&self, key: Key) -> Option<(u64, bool)> {
        self.get(key).map(|extents| (extents, false))
    }
    /// The search entered a block at `depth`; the boxes stored until the next call
    /// belong to it.
    #[inline(always)]
    fn begin_block(&mut self, _depth: usize) {}
    /// The search left the block at `depth` (searched, or stopped).
    #[inline(always)]
    fn end_block(&mut self, _depth: usize) {}

    /// Whether a stored box starting at `key` contains the box of `extents`.
    #[inline]
    fn covers(&self, key: Key, extents: u64) -> bool {
        self.get(key)
            .is_some_and(|stored| dominates(stored, extents))
    }
}

/// Whether every byte of `big` is at least the byte of `small` (bytes below 128).
#[inline(always)]
pub(super) fn dominates(big: u64, small: u64) -> bool {
    ((big | HIGH_BITS) - small) & HIGH_BITS == HIGH_BITS
}

/// Whether a box of `new` extents should replace a stored box of `old` extents for
/// the same key: it is not inside the old one, and contains it or holds more positions.
#[inline(always)]
pub(super) fn improves(new: u64, old: u64) -> bool {
    !dominates(old, new) && (dominates(new, old) || volume(new) > volume(old))
}

/// Positions in a box of these extents (the product of `extent + 1`).
pub(super) fn volume(extents: u64) -> u64 {
    extents
        .to_le_bytes()
        .iter()
        .fold(1u64, |v, &e| v.saturating_mul(u64::from(e) + 1))
}

/// A fixed-budget map from position keys to box extents (see the module invariants).
pub struct BoxTable {
    buckets: Lines<u128, { 2 * SLOTS }>,
    limit: usize,
    active: usize,
    occupied: usize,
    stored: u64,
    replaced: u64,
    rehash: Vec<(Key, u64)>,
}

impl BoxTable {
    /// A table using at most `bytes` bytes (a power of two of buckets, at least one).
    pub fn with_budget(bytes: usize) -> Self {
        let buckets = Lines::with_budget(bytes);
        let capacity = buckets.len();
        BoxTable {
            buckets,
            limit: capacity,
            active: capacity.min(BLOCK_TABLE_FIRST_BUCKETS),
            occupied: 0,
            stored: 0,
            replaced: 0,
            rehash: Vec::new(),
        }
    }

    /// Budgeted size in bytes.
    pub fn capacity_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Forgets everything and lets the next search use at most `bytes` of the budget.
    pub fn clear_with_limit(&mut self, bytes: usize) {
        self.buckets[..self.active].fill([0; 2 * SLOTS]);
        self.limit = buckets_for(bytes, std::mem::size_of::<Bucket>(), self.buckets.len());
        self.active = self.limit.min(BLOCK_TABLE_FIRST_BUCKETS);
        self.occupied = 0;
        self.stored = 0;
        self.replaced = 0;
    }

    /// Doubles the active part (up to the limit) and re-inserts every entry.
    #[cold]
    fn grow(&mut self) {
        self.rehash.clear();
        for bucket in &mut self.buckets[..self.active] {
            self.rehash.extend(
                bucket
                    .chunks_exact(2)
                    .filter(|e| e[0] != 0)
                    .map(|e| (e[0], e[1] as u64)),
            );
            *bucket = [0; 2 * SLOTS];
        }
        self.active = (self.active * 2).min(self.limit);
        self.occupied = 0;
        let entries = std::mem::take(&mut self.rehash);
        let (mask, window) = (self.active - 1, MAX_PROBE.min(self.active));
        let buckets = &mut *self.buckets;
        for &(key, extents) in &entries {
            let home = index_hash(key) as usize & mask;
            let placed = (0..window).any(|step| {
                let bucket = &mut buckets[(home + step) & mask];
                match bucket.chunks_exact_mut(2).find(|e| e[0] == 0) {
                    Some(e) => {
                        e[0] = key;
                        e[1] = u128::from(extents);
                        true
                    }
                    None => false,
                }
            });
            // Dropping an entry only costs a re-search.
            self.occupied += usize::from(placed);
        }
        self.rehash = entries;
    }
}

impl BoxStore for BoxTable {
    fn stored(&self) -> u64 {
        self.stored
    }
    fn replaced(&self) -> u64 {
        self.replaced
    }
    fn active_bytes(&self) -> usize {
        self.active * std::mem::size_of::<Bucket>()
    }

    #[inline(always)]
    fn prefetch(&self, key: Key) {
        let home = index_hash(key.max(1)) as usize & (self.active - 1);
        prefetch_line(&self.buckets[home]);
    }

    #[inline]
    fn get(&self, key: Key) -> Option<u64> {
        let key = key.max(1);
        let mask = self.active - 1;
        let home = index_hash(key) as usize & mask;
        let buckets = &*self.buckets;
        for step in 0..MAX_PROBE.min(self.active) {
            for e in buckets[(home + step) & mask].chunks_exact(2) {
                if e[0] == key {
                    return Some(e[1] as u64);
                }
                if e[0] == 0 {
                    return None;
                }
            }
        }
        None
    }

    /// An existing box for the key is kept if it is larger (by positions), else replaced.
    #[inline]
    fn store(&mut self, key: Key, extents: u64) {
        let key = key.max(1); // 0 marks an empty slot; aliasing 0 with 1 has odds 2^-127
        if self.occupied * 4 >= self.active * SLOTS * 3 && self.active < self.limit {
            self.grow();
        }
        loop {
            let mask = self.active - 1;
            let home = index_hash(key) as usize & mask;
            let buckets = &mut *self.buckets;
            for step in 0..MAX_PROBE.min(self.active) {
                for e in buckets[(home + step) & mask].chunks_exact_mut(2) {
                    if e[0] == key {
                        if improves(extents, e[1] as u64) {
                            e[1] = u128::from(extents);
                        }
                        return;
                    }
                    if e[0] == 0 {
                        e[0] = key;
                        e[1] = u128::from(extents);
                        self.occupied += 1;
                        self.stored += 1;
                        return;
                    }
                }
            }
            if self.active < self.limit {
                self.grow();
                continue;
            }
            // Evict the smallest box of the probe window: a large box saves more work.
            let (mut at, mut slot, mut least) = (home, 0, u64::MAX);
            for step in 0..MAX_PROBE.min(self.active) {
                let b = (home + step) & mask;
                for s in [0, 2] {
                    let v = volume(self.buckets[b][s + 1] as u64);
                    if v < least {
                        (at, slot, least) = (b, s, v);
                    }
                }
            }
            self.buckets[at][slot] = key;
            self.buckets[at][slot + 1] = u128::from(extents);
            self.stored += 1;
            self.replaced += 1;
            return;
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::search::blocks) fn ext(bytes: [u8; 8]) -> u64 {
        u64::from_le_bytes(bytes)
    }

    #[test]
    fn dominance_is_bytewise() {
        assert!(dominates(
            ext([3, 0, 5, 0, 0, 0, 0, 0]),
            ext([3, 0, 4, 0, 0, 0, 0, 0])
        ));
        assert!(!dominates(
            ext([3, 0, 5, 0, 0, 0, 0, 0]),
            ext([4, 0, 0, 0, 0, 0, 0, 0])
        ));
        assert!(!dominates(
            ext([0, 0, 0, 0, 0, 0, 0, 1]),
            ext([0, 0, 0, 0, 0, 0, 0, 2])
        ));
        assert!(dominates(ext([127; 8]), ext([127; 8])));
        assert!(!dominates(0, ext([0, 0, 0, 0, 0, 0, 1, 0])));
        assert_eq!(volume(ext([1, 2, 0, 0, 0, 0, 0, 0])), 6);
    }

    /// A box covers exactly the boxes inside it; a larger box for the same key replaces
    /// a smaller one, a smaller one does not replace it; `boxes` must start empty.
    pub(in crate::search::blocks) fn check_covers_only_inside(boxes: &mut impl BoxStore) {
        let key: Key = 0x1234_5678_9abc_def0_1111_2222_3333_4444;
        assert!(!boxes.covers(key, 0));
        boxes.store(key, ext([2, 1, 0, 0, 0, 0, 0, 0]));
        assert!(boxes.covers(key, ext([2, 1, 0, 0, 0, 0, 0, 0])));
        assert!(boxes.covers(key, ext([1, 1, 0, 0, 0, 0, 0, 0])));
        assert!(boxes.covers(key, ext([1, 0, 0, 0, 0, 0, 0, 0])));
        assert!(!boxes.covers(key, ext([0, 2, 0, 0, 0, 0, 0, 0])));
        assert!(!boxes.covers(key ^ 1, 0));
        boxes.store(key, ext([3, 3, 0, 0, 0, 0, 0, 0]));
        boxes.store(key, ext([0, 0, 1, 0, 0, 0, 0, 0]));
        assert!(boxes.covers(key, ext([3, 3, 0, 0, 0, 0, 0, 0])));
        assert!(!boxes.covers(key, ext([0, 0, 1, 0, 0, 0, 0, 0])));
        assert_eq!(boxes.stored(), 1);
    }

    #[test]
    fn covers_only_boxes_inside_a_stored_one() {
        check_covers_only_inside(&mut BoxTable::with_budget(1 << 16));
    }

    /// Stores a large box, then 199 one-position boxes into `boxes` (a 256-byte
    /// table: four buckets, one probe window holding all eight entries); the large box
    /// must survive.
    pub(in crate::search::blocks) fn check_evicts_smallest_first(boxes: &mut impl BoxStore) {
        let big: Key = 0xfeed_beef_0000_0000_0000_0000_0000_0001;
        boxes.store(big, ext([5, 5, 5, 0, 0, 0, 0, 0]));
        for i in 1..200u128 {
            boxes.store(i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835), 0);
        }
        assert!(boxes.replaced() > 0);
        assert!(boxes.covers(big, ext([5, 5, 5, 0, 0, 0, 0, 0])));
    }

    #[test]
    fn a_full_table_evicts_its_smallest_boxes_first() {
        check_evicts_smallest_first(&mut BoxTable::with_budget(256));
    }

    #[test]
    fn keeps_entries_across_growth_and_respects_the_budget() {
        let mut t = BoxTable::with_budget(4 << 20);
        let keys: Vec<Key> = (1..20_000u128)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835))
            .collect();
        for &k in &keys {
            t.store(k, ext([1, 0, 0, 0, 0, 0, 0, 0]));
        }
        assert!(keys.iter().all(|&k| t.covers(k, 1)));
        assert_eq!(t.replaced(), 0);
        assert!(t.active_bytes() <= t.capacity_bytes());
        let mut small = BoxTable::with_budget(256);
        for &k in &keys {
            small.store(k, 0);
        }
        assert!(small.replaced() > 0);
        assert_eq!(small.active_bytes(), 256);
    }
}
