//! An exact visited set that goes on past its memory budget by moving its keys to a
//! store the caller provides (a file on disk in the service and the CLI), keeping in
//! memory only a filter and an index of what it moved.
//!
//! When the in-memory [`KeySet`] is full, [`SpillingSet::spill`] writes every key it
//! holds to the store as a *run*: shard by shard (a key's shard is the one the set
//! gave it), each shard's keys sorted, one fence key in memory every [`FENCE`] keys
//! and a blocked Bloom filter of `SPILL_FILTER_BITS_PER_KEY` bits a key (`tuning`; one 64-byte line
//! per lookup); then it empties the in-memory set and the search goes on. A key is
//! looked up in memory first, then in each run whose filter may hold it: its shard's
//! fences give the one block of the store that would hold it, read and searched.
//!
//! Invariants (what keeps the exact search's proof, `search::exact`):
//! - Exact: a key is reported present only if it was inserted (in memory now, or in a
//!   run, found by reading the very keys written); a filter only skips runs that cannot
//!   hold the key. So a search over this set enters the same positions in the same
//!   order as over a [`KeySet`] that never fills: the same counts, the same line.
//! - A failed read or write of the store never says "present": the set reports
//!   [`Insert::Full`] and remembers the failure, and the search stops at its memory
//!   limit (`unknown`), never with a loss it did not prove.
//! - Memory: the in-memory set gets the budget less the runs' filters and fences (about
//!   1.3 bytes a spilled key) and less a reserve for the next run's filter, so peak
//!   memory stays within the budget; when what is left cannot hold
//!   `SPILL_MIN_HOT_KEYS` keys, or `SPILL_MAX_RUNS` runs are written (`tuning`), the set is
//!   full for good.
//! - Allocation only when a run is written (its filter, its fences), never per key.

use crate::search::memory::Lines;
use crate::search::visited::key_set::{Insert, KeySet};
use crate::search::visited::shards::ShardPlan;
use crate::tuning::{
    SPILL_FILTER_BITS_PER_KEY as FILTER_BITS_PER_KEY, SPILL_MAX_RUNS as MAX_RUNS,
    SPILL_MIN_HOT_KEYS as MIN_HOT_KEYS,
};
use crate::zobrist::{index_hash, Key};
use std::sync::Arc;

/// Keys between two fence keys kept in memory: one read of the store is at most this
/// many keys (4 KiB).
pub const FENCE: usize = 256;

/// Bits set in a filter line for a key.
const FILTER_PROBES: u32 = 6;

/// A failure of the store, with its cause in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("spill store: {0}")]
pub struct SpillError(pub String);

/// Where a spilling set puts its keys: an append-only array of bytes, read back at any
/// offset. One search at a time uses a store; it calls [`SpillStore::clear`] when it
/// starts and when it ends.
pub trait SpillStore: Send + Sync + std::fmt::Debug {
    /// Appends `bytes`, returning the offset where they start.
    fn append(&self, bytes: &[u8]) -> Result<u64, SpillError>;
    /// Fills `buf` with the bytes stored from `offset`.
    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), SpillError>;
    /// Forgets every byte stored.
    fn clear(&self) -> Result<(), SpillError>;
    /// Bytes stored now.
    fn len(&self) -> u64;
    /// True when nothing is stored.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A store in memory: the reference for tests (and a caller with no disk), the same
/// bytes a file would hold.
#[derive(Debug, Default)]
pub struct MemoryStore {
    bytes: std::sync::Mutex<Vec<u8>>,
}

impl SpillStore for MemoryStore {
    fn append(&self, bytes: &[u8]) -> Result<u64, SpillError> {
        let mut held = self
            .bytes
            .lock()
            .map_err(|_| SpillError("poisoned".into()))?;
        let offset = held.len() as u64;
        held.extend_from_slice(bytes);
        Ok(offset)
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), SpillError> {
        let held = self
            .bytes
            .lock()
            .map_err(|_| SpillError("poisoned".into()))?;
        let start = usize::try_from(offset).map_err(|_| SpillError("offset".into()))?;
        let part = held
            .get(start..start + buf.len())
            .ok_or_else(|| SpillError(format!("read past the end at {offset}")))?;
        buf.copy_from_slice(part);
        Ok(())
    }

    fn clear(&self) -> Result<(), SpillError> {
        self.bytes
            .lock()
            .map_err(|_| SpillError("poisoned".into()))?
            .clear();
        Ok(())
    }

    fn len(&self) -> u64 {
        self.bytes.lock().map_or(0, |held| held.len() as u64)
    }
}

/// One shard's sorted keys in a run.
#[derive(Clone, Copy, Default)]
struct Segment {
    /// Byte offset in the store.
    offset: u64,
    /// Keys.
    len: usize,
    /// Index of its first fence in the run's fences.
    first_fence: usize,
}

/// Keys moved to the store at one spill.
struct Run {
    plan: ShardPlan,
    segments: Vec<Segment>,
    /// Every [`FENCE`]-th key of each segment, from its first.
    fences: Vec<Key>,
    filter: Lines<u64, 8>,
}

/// The filter line of a key and the bits to test in it (from a hash independent of
/// the one that chose the key's shard and home slot).
#[inline(always)]
fn filter_place(key: Key, lines: usize) -> (usize, [u32; FILTER_PROBES as usize]) {
    let h = index_hash(key ^ 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834);
    let line = ((u128::from(h) * lines as u128) >> 64) as usize;
    let mut bits = [0u32; FILTER_PROBES as usize];
    let mut g = h.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ (h >> 32);
    for bit in &mut bits {
        *bit = (g & 511) as u32;
        g = g.rotate_right(9);
    }
    (line, bits)
}

impl Run {
    fn filter_bytes(keys: usize) -> usize {
        (keys * FILTER_BITS_PER_KEY).div_ceil(512).max(1) * 64
    }

    /// Memory this run keeps.
    fn bytes(&self) -> usize {
        self.filter.len() * 64
            + self.fences.len() * std::mem::size_of::<Key>()
            + self.segments.len() * std::mem::size_of::<Segment>()
    }

    #[inline(always)]
    fn may_hold(&self, key: Key) -> bool {
        let (line, bits) = filter_place(key, self.filter.len());
        let words = &self.filter[line];
        bits.iter()
            .all(|&b| words[(b >> 6) as usize] & (1 << (b & 63)) != 0)
    }

    fn note(&mut self, key: Key) {
        let (line, bits) = filter_place(key, self.filter.len());
        let words = &mut self.filter[line];
        for b in bits {
            words[(b >> 6) as usize] |= 1 << (b & 63);
        }
    }

    /// Whether the run holds `key` (whose index hash is `hash`), reading one block of
    /// at most [`FENCE`] keys into `block`.
    fn holds(
        &self,
        key: Key,
        hash: u64,
        store: &dyn SpillStore,
        block: &mut [Key; FENCE],
    ) -> Result<bool, SpillError> {
        if !self.may_hold(key) {
            return Ok(false);
        }
        let segment = self.segments[self.plan.shard(hash)];
        let fences = &self.fences[segment.first_fence..][..segment.len.div_ceil(FENCE)];
        let after = fences.partition_point(|&f| f <= key);
        if after == 0 {
            return Ok(false);
        }
        let first = (after - 1) * FENCE;
        let keys = &mut block[..FENCE.min(segment.len - first)];
        let key_bytes = std::mem::size_of::<Key>() as u64;
        store.read(
            segment.offset + first as u64 * key_bytes,
            bytemuck::cast_slice_mut(keys),
        )?;
        Ok(keys.binary_search(&key).is_ok())
    }
}

/// What a spill did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spilled {
    /// The keys are in the store and the in-memory set is empty again.
    Moved,
    /// No room is left for another run (or the store failed): the set stays full.
    NoRoom,
}

/// The set: a [`KeySet`] in memory and the runs it spilled to `store` (none: a full
/// set stays full, as a [`KeySet`] of the whole budget).
pub struct SpillingSet {
    hot: KeySet,
    runs: Vec<Run>,
    store: Option<Arc<dyn SpillStore>>,
    budget: usize,
    block: Box<[Key; FENCE]>,
    failed: Option<SpillError>,
    spilled_keys: u64,
}

impl SpillingSet {
    /// An empty set of at most `bytes` of memory, spilling to `store` (cleared now).
    pub fn new(bytes: usize, store: Option<Arc<dyn SpillStore>>) -> Self {
        let failed = store.as_ref().and_then(|s| s.clear().err());
        let mut set = SpillingSet {
            hot: KeySet::default(),
            runs: Vec::new(),
            store,
            budget: bytes,
            block: Box::new([0; FENCE]),
            failed,
            spilled_keys: 0,
        };
        set.hot.reset(set.hot_budget());
        set
    }

    /// Keys in the set, in memory and in the runs.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.hot.len() + self.spilled_keys as usize
    }

    /// The in-memory set's share: the budget less the runs kept and a reserve for the
    /// filter of the run that will spill it (its keys at 16 bytes a slot, 7/8 full).
    fn hot_budget(&self) -> usize {
        if self.store.is_none() {
            return self.budget;
        }
        let left = self.budget.saturating_sub(self.cold_bytes());
        // A full set holds a key every 16 * 8 / 7 bytes of its budget; a run keeps its
        // filter and a fence every FENCE keys for each, and a segment for each shard
        // (and a filter line of rounding).
        let slot_bytes_a_key = 16.0 * 8.0 / 7.0;
        let run_bytes_a_key = FILTER_BITS_PER_KEY as f64 / 8.0 + 16.0 / FENCE as f64;
        let shards = ShardPlan::for_budget(left, std::mem::size_of::<Key>(), 1).shards;
        let slack = shards * std::mem::size_of::<Segment>() + 64;
        (left.saturating_sub(slack) as f64 / (1.0 + run_bytes_a_key / slot_bytes_a_key)) as usize
    }

    /// Memory the runs keep (filters, fences).
    pub fn cold_bytes(&self) -> usize {
        self.runs.iter().map(Run::bytes).sum()
    }

    /// Memory taken now: the in-memory set's slots and the runs'.
    pub fn bytes(&self) -> usize {
        self.hot.bytes() + self.cold_bytes()
    }

    /// Keys moved to the store so far.
    pub fn spilled_keys(&self) -> u64 {
        self.spilled_keys
    }

    /// Runs written so far.
    #[cfg(test)]
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// The store's failure, if one stopped the set.
    #[cfg(test)]
    pub fn failure(&self) -> Option<&SpillError> {
        self.failed.as_ref()
    }

    /// Starts loading the in-memory home slot of `key` into cache.
    #[inline(always)]
    pub fn prefetch(&self, key: Key) {
        self.hot.prefetch(key);
    }

    /// Inserts `key` unless it is present (in memory or in a run) or there is no room.
    #[inline]
    pub fn insert(&mut self, key: Key) -> Insert {
        if self.failed.is_some() {
            return Insert::Full;
        }
        if let (Some(store), false) = (&self.store, self.runs.is_empty()) {
            if self.hot.contains(key) {
                return Insert::Present;
            }
            let key = key.max(1);
            let hash = index_hash(key);
            for run in &self.runs {
                match run.holds(key, hash, store.as_ref(), &mut self.block) {
                    Ok(false) => {}
                    Ok(true) => return Insert::Present,
                    Err(error) => {
                        self.failed = Some(error);
                        return Insert::Full;
                    }
                }
            }
        }
        self.hot.insert(key)
    }

    /// Moves every in-memory key to the store as a new run, if there is room for one.
    pub fn spill(&mut self) -> Spilled {
        let Some(store) = self.store.clone() else {
            return Spilled::NoRoom;
        };
        if self.failed.is_some() {
            return Spilled::NoRoom;
        }
        let keys = self.hot.len();
        let plan = self.hot.plan();
        let mut run = Run {
            plan,
            segments: vec![Segment::default(); plan.shards],
            fences: Vec::with_capacity(keys.div_ceil(FENCE) + plan.shards),
            filter: Lines::new(Run::filter_bytes(keys) / 64),
        };
        for s in 0..plan.shards {
            let mut slots = self.hot.take_shard(s);
            slots.retain(|&k| k != 0);
            slots.sort_unstable();
            for &key in &slots {
                run.note(key);
            }
            let first_fence = run.fences.len();
            run.fences.extend(slots.iter().step_by(FENCE));
            match store.append(bytemuck::cast_slice(&slots)) {
                Ok(offset) => {
                    run.segments[s] = Segment {
                        offset,
                        len: slots.len(),
                        first_fence,
                    }
                }
                Err(error) => {
                    // The keys taken are gone from memory: the set can no longer tell
                    // them, so it is full for good (never "absent" for a key entered).
                    self.failed = Some(error);
                    return Spilled::NoRoom;
                }
            }
        }
        self.spilled_keys += keys as u64;
        self.runs.push(run);
        let hot = self.hot_budget();
        self.hot.reset(hot);
        if self.hot.capacity() < MIN_HOT_KEYS || self.runs.len() >= MAX_RUNS {
            self.failed = Some(SpillError(format!(
                "the budget of {} bytes holds no more runs",
                self.budget
            )));
            return Spilled::NoRoom;
        }
        Spilled::Moved
    }

    /// Gives back the memory and the store's bytes.
    pub fn release(self) {
        if let Some(store) = &self.store {
            let _ = store.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::visited::key_set::tests::random_keys;

    #[test]
    fn spilled_keys_stay_present_and_absent_ones_stay_absent() {
        let store = Arc::new(MemoryStore::default());
        let mut set = SpillingSet::new(1 << 20, Some(store.clone()));
        let keys = random_keys(7, 300_000);
        let mut spills = 0;
        for &k in &keys {
            loop {
                match set.insert(k) {
                    Insert::New => break,
                    Insert::Present => panic!("random keys are distinct"),
                    Insert::Full => {
                        assert_eq!(set.spill(), Spilled::Moved);
                        spills += 1;
                    }
                }
            }
            assert!(set.bytes() <= 1 << 20);
        }
        assert!(spills >= 3, "{spills}");
        assert_eq!(set.runs(), spills);
        for &k in &keys {
            assert_eq!(set.insert(k), Insert::Present);
        }
        // Keys never inserted are new (the filters' false positives read the store
        // and find nothing), and key 0 is stored as 1 as in the set in memory.
        for &k in &random_keys(8, 20_000) {
            let mut inserted = set.insert(k);
            if inserted == Insert::Full {
                assert_eq!(set.spill(), Spilled::Moved);
                inserted = set.insert(k);
            }
            assert_eq!(inserted, Insert::New);
        }
        assert_eq!(set.insert(0), Insert::New);
        assert_eq!(set.insert(1), Insert::Present);
        assert_eq!(store.len(), set.spilled_keys() * 16);
        set.release();
        assert!(store.is_empty());
    }

    /// A store that fails after `good` appends, or on every read.
    #[derive(Debug)]
    struct Failing {
        inner: MemoryStore,
        good: std::sync::atomic::AtomicUsize,
        reads_fail: bool,
    }

    impl SpillStore for Failing {
        fn append(&self, bytes: &[u8]) -> Result<u64, SpillError> {
            use std::sync::atomic::Ordering::Relaxed;
            if self.good.fetch_sub(1, Relaxed) == 0 {
                self.good.store(0, Relaxed);
                return Err(SpillError("disk full".into()));
            }
            self.inner.append(bytes)
        }
        fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), SpillError> {
            if self.reads_fail {
                return Err(SpillError("bad sector".into()));
            }
            self.inner.read(offset, buf)
        }
        fn clear(&self) -> Result<(), SpillError> {
            self.inner.clear()
        }
        fn len(&self) -> u64 {
            self.inner.len()
        }
    }

    #[test]
    fn a_failing_store_makes_the_set_full_never_wrong() {
        for (good, reads_fail) in [(3, false), (usize::MAX, true)] {
            let store = Arc::new(Failing {
                inner: MemoryStore::default(),
                good: good.into(),
                reads_fail,
            });
            let mut set = SpillingSet::new(1 << 18, Some(store));
            let keys = random_keys(9, 200_000);
            let mut inserted = Vec::new();
            'keys: for &k in &keys {
                loop {
                    match set.insert(k) {
                        Insert::New => {
                            inserted.push(k);
                            break;
                        }
                        Insert::Present => panic!("random keys are distinct"),
                        Insert::Full if set.spill() == Spilled::Moved => {}
                        Insert::Full => break 'keys,
                    }
                }
            }
            assert!(set.failure().is_some());
            // Every key entered is Full or Present, never New: nothing is entered twice.
            assert!(inserted.iter().all(|&k| set.insert(k) != Insert::New));
        }
    }
}
