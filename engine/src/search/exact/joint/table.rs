//! The joint searches' memory of lost states, by board: for each board, the
//! assignments of column 0 under which it is known lost (`search::exact::joint`).
//!
//! A joint state is a board and a mask of assignments, and the same board is reached
//! under different masks (each Two-shuffle class leaves out its own dead assignments,
//! and moves into column 1 narrow the mask in different orders). A table keyed by the
//! state would search a board again for every new mask; keyed by the board, a search
//! entering `(board, mask)` only goes on with the assignments of `mask` not yet known
//! lost there, and gives up at once when there are none.
//!
//! Invariants:
//! - One allocation of 64-byte buckets made at construction (`Lines`, huge pages,
//!   mapped as first touched), three entries a bucket: three full 128-bit board keys
//!   (0 = empty) and their lost masks. The table uses the first `active` buckets (a
//!   power of two), starting at [`JOINT_TABLE_FIRST_BUCKETS`] and doubling when a new board finds
//!   its bucket full, up to the allocation: a small search touches little memory, a
//!   large one gets the whole budget, and no entry is replaced before then. An entry
//!   lives in its home bucket, `index_hash(board) & (active - 1)`, only, so a lookup
//!   reads one cache line; a doubling moves each entry whose next hash bit is set to
//!   the bucket `active` above (never used before, so empty), keeping every entry.
//! - A bit is set in an entry's mask only for an assignment under which that board was
//!   searched to the end without a win (or was lost for another proved reason):
//!   [`BoardTable::add_lost`] is called with such masks only, and bits are only ever
//!   added to the entry of the same board. An entry names its board by the full
//!   128-bit key, so a mask is read for another board only if two boards' keys are
//!   equal (the transposition table's bound, `n^2 / 2^129` for `n` boards stored).
//! - A full bucket has one entry replaced (round robin, the cursor in the bucket's
//!   last word): that forgets what was known of a board (more work later), never
//!   invents a loss.

use crate::search::memory::{prefetch_line, Lines};
use crate::tuning::JOINT_TABLE_FIRST_BUCKETS;
use crate::zobrist::{index_hash, Key};

const ENTRIES: usize = 3;
/// Word holding the masks of entries 0 and 1; the next holds entry 2's and the cursor.
const MASKS: usize = 2 * ENTRIES;

/// Lost assignments by board (see the module invariants).
pub(crate) struct BoardTable {
    buckets: Lines<u64, 8>,
    active: usize,
    stored: u64,
    replaced: u64,
}

impl BoardTable {
    /// A table of at most `bytes` (a power of two of 64-byte buckets, at least one).
    pub fn with_budget(bytes: usize) -> BoardTable {
        let buckets = Lines::with_budget(bytes);
        BoardTable {
            active: buckets.len().min(JOINT_TABLE_FIRST_BUCKETS),
            buckets,
            stored: 0,
            replaced: 0,
        }
    }

    /// Bytes of the buckets in use (the most the table has touched).
    pub fn bytes(&self) -> usize {
        self.active * 64
    }

    /// Boards written in a free entry, and entries replaced, since construction.
    #[cfg(test)]
    pub fn counts(&self) -> (u64, u64) {
        (self.stored, self.replaced)
    }

    /// Entries replaced (boards forgotten) since construction.
    pub fn replaced(&self) -> u64 {
        self.replaced
    }

    #[inline(always)]
    fn bucket(&self, board: Key) -> usize {
        index_hash(board) as usize & (self.active - 1)
    }

    /// Doubles the buckets in use, moving the entries that now belong above.
    fn grow(&mut self) {
        let active = self.active;
        for i in 0..active {
            for e in 0..ENTRIES {
                let board = key_of(&self.buckets[i], e);
                if board == 0 || index_hash(board) as usize & active == 0 {
                    continue;
                }
                let mask = mask_of(&self.buckets[i], e);
                set_entry(&mut self.buckets[i], e, 0, 0);
                set_entry(&mut self.buckets[i + active], e, board, mask);
            }
        }
        self.active = 2 * active;
    }

    /// Starts loading the bucket of `board`.
    #[inline(always)]
    pub fn prefetch(&self, board: Key) {
        prefetch_line(&self.buckets[self.bucket(board)]);
    }

    /// The assignments known lost for `board` (empty if it is unknown).
    #[inline(always)]
    pub fn lost(&self, board: Key) -> u32 {
        let board = board.max(1);
        let b = &self.buckets[self.bucket(board)];
        (0..ENTRIES)
            .find(|&e| key_of(b, e) == board)
            .map_or(0, |e| mask_of(b, e))
    }

    /// Adds `lost` to the assignments known lost for `board`.
    #[inline(always)]
    pub fn add_lost(&mut self, board: Key, lost: u32) {
        let board = board.max(1);
        let mut home = self.bucket(board);
        let b = &self.buckets[home];
        if let Some(e) = (0..ENTRIES).find(|&e| key_of(b, e) == board) {
            let b = &mut self.buckets[home];
            set_mask(b, e, mask_of(b, e) | lost);
            return;
        }
        // A full home bucket doubles the table while the budget allows.
        while (0..ENTRIES).all(|e| key_of(&self.buckets[home], e) != 0)
            && self.active < self.buckets.len()
        {
            self.grow();
            home = self.bucket(board);
        }
        let b = &mut self.buckets[home];
        let e = match (0..ENTRIES).find(|&e| key_of(b, e) == 0) {
            Some(free) => {
                self.stored += 1;
                free
            }
            None => {
                self.replaced += 1;
                let cursor = (b[MASKS + 1] >> 32) as usize;
                b[MASKS + 1] =
                    (b[MASKS + 1] & 0xFFFF_FFFF) | (((cursor + 1) % ENTRIES) as u64) << 32;
                cursor
            }
        };
        set_entry(b, e, board, lost);
    }
}

#[inline(always)]
fn key_of(b: &[u64; 8], e: usize) -> Key {
    Key::from(b[2 * e]) | Key::from(b[2 * e + 1]) << 64
}

#[inline(always)]
fn mask_of(b: &[u64; 8], e: usize) -> u32 {
    (b[MASKS + e / 2] >> (32 * (e % 2))) as u32
}

/// Writes entry `e`: its board key (0 empties it) and its mask.
#[inline(always)]
fn set_entry(b: &mut [u64; 8], e: usize, board: Key, mask: u32) {
    b[2 * e] = board as u64;
    b[2 * e + 1] = (board >> 64) as u64;
    set_mask(b, e, mask);
}

#[inline(always)]
fn set_mask(b: &mut [u64; 8], e: usize, mask: u32) {
    let word = &mut b[MASKS + e / 2];
    let shift = 32 * (e % 2);
    *word = (*word & !(0xFFFF_FFFF << shift)) | u64::from(mask) << shift;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_accumulate_by_board_and_a_full_bucket_forgets_but_never_invents() {
        // One bucket: every board shares it.
        let mut t = BoardTable::with_budget(64);
        assert_eq!(t.bytes(), 64);
        let boards: Vec<Key> = (1..=4u128).map(|i| i << 70 | i).collect();
        assert_eq!(t.lost(boards[0]), 0);
        t.add_lost(boards[0], 0b0101);
        t.add_lost(boards[0], 0b1000);
        t.add_lost(boards[1], 1 << 23);
        t.add_lost(boards[2], 0b10);
        assert_eq!(t.lost(boards[0]), 0b1101);
        assert_eq!(t.lost(boards[1]), 1 << 23);
        assert_eq!(t.lost(boards[2]), 0b10);
        assert_eq!(t.counts(), (3, 0));
        // A fourth board replaces the first (round robin), whose masks are then unknown.
        t.add_lost(boards[3], 0b111);
        assert_eq!(t.counts(), (3, 1));
        assert_eq!(t.lost(boards[0]), 0);
        assert_eq!(t.lost(boards[3]), 0b111);
        assert_eq!(t.lost(boards[1]), 1 << 23);
        assert_eq!(t.lost(boards[2]), 0b10);
        // The next replacement takes the second entry, not the one just written.
        t.add_lost(boards[0], 1);
        assert_eq!(t.lost(boards[1]), 0);
        assert_eq!((t.lost(boards[0]), t.lost(boards[3])), (1, 0b111));
    }

    #[test]
    fn doubling_keeps_every_entry() {
        let mut t = BoardTable::with_budget(4 << 20);
        assert_eq!(t.bytes(), JOINT_TABLE_FIRST_BUCKETS * 64);
        let mut rng = crate::deal::SplitMix64::new(7);
        let boards: Vec<(Key, u32)> = (0..60_000u32)
            .map(|i| {
                let board = Key::from(rng.next_u64()) << 64 | Key::from(rng.next_u64());
                (board, (i % (1 << 24)) | 1)
            })
            .collect();
        for &(board, mask) in &boards {
            t.add_lost(board, mask);
            // Nothing is replaced before the table has grown to its budget.
            assert!(t.counts().1 == 0 || t.bytes() == 4 << 20);
        }
        assert_eq!(t.bytes(), 4 << 20, "grown to the budget");
        let forgotten = boards.iter().filter(|&&(b, _)| t.lost(b) == 0).count();
        assert!(boards.iter().all(|&(b, m)| [0, m].contains(&t.lost(b))));
        assert_eq!(forgotten as u64, t.counts().1);
        // At the budget, 60,000 boards in 65,536 buckets of three: about 1.7% land in a
        // bucket already full.
        assert!(forgotten < 1_500, "{forgotten}");
    }
}
