//! What the joint searches of settled children know of each board: the assignments
//! of column 0 under which it is lost, and those under which it is won.
//!
//! Invariants: a direct-mapped array of 32-byte entries, allocated once from a byte
//! budget. An entry names its board by the full 128-bit board key, so an answer is
//! only ever read for the board it was written for (the table's collision bound). A
//! bit of `lost` is set only for an assignment found dead or by a joint search that
//! ended exhausted; a bit of `won` only for one whose won line was found. An entry may
//! be overwritten by another board's: that board's children are then decided again
//! (more work, never a wrong answer).

use crate::search::memory::prefetch_line;
use crate::zobrist::{index_hash, Key};

#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Entry {
    board: Key,
    lost: u32,
    won: u32,
}

/// Boards' known verdicts by assignment (see the module invariants).
pub(crate) struct BoardMemo {
    entries: Vec<Entry>,
}

impl BoardMemo {
    /// A memo of at most `bytes` (a power of two of entries, at least one).
    pub fn with_budget(bytes: usize) -> BoardMemo {
        let fit = (bytes / std::mem::size_of::<Entry>()).max(1);
        let count = 1usize << (usize::BITS - 1 - fit.leading_zeros());
        BoardMemo {
            entries: vec![Entry::default(); count],
        }
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Entry>()
    }

    #[inline(always)]
    fn slot(&self, board: Key) -> usize {
        index_hash(board) as usize & (self.entries.len() - 1)
    }

    /// Starts loading the entry of `board`.
    #[inline(always)]
    pub fn prefetch(&self, board: Key) {
        prefetch_line(&self.entries[self.slot(board)]);
    }

    /// The assignments known lost and known won for `board` (both empty if unknown).
    #[inline(always)]
    pub fn get(&self, board: Key) -> (u32, u32) {
        let e = &self.entries[self.slot(board)];
        if e.board == board.max(1) {
            (e.lost, e.won)
        } else {
            (0, 0)
        }
    }

    /// Records what is known of `board`, replacing its slot's entry.
    #[inline(always)]
    pub fn put(&mut self, board: Key, lost: u32, won: u32) {
        let slot = self.slot(board);
        self.entries[slot] = Entry {
            board: board.max(1),
            lost,
            won,
        };
    }
}
