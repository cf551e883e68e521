//! Memory for the engine's tables (the depth-first transposition table, the box
//! table of block search, its shared version, and the visited sets of the exact search):
//! cache-line buckets allocated once from a byte budget, prefetch hints, huge-page advice.
//!
//! Every `unsafe` block of the engine is in this file, each with its `SAFETY:` note and
//! the measured gain that pays for it:
//! - the bucket views of [`Lines`]: 3.3% fewer instructions than the bounds-checked
//!   safe view on every table lookup (cachegrind, `gaps bench --deals 30`);
//! - [`prefetch_line`]: about 5% on `basic` 4x13 deals 0..199 (depth-first table), and
//!   6x13 deal 0 block search with 1 GiB from 7.4-8.5 s to 5.1-5.4 s (box table);
//! - [`advise_huge_pages`]: 25% faster on 100 4x13 deals (fewer TLB misses); the
//!   visited sets of the exact search too: `common` deal 24's proof 127 to 113 s.
//!
//! Invariants: a [`Lines`] is one zeroed allocation whose buckets each sit on their own
//! 64-byte cache line and which is never resized; its length is a power of two chosen
//! by [`buckets_for`], so a table never grows past its budget.

/// Zeroed 64-byte buckets of `N` words `W`, each on a cache line of its own. The
/// allocator hands out large blocks 16 bytes past a page boundary, so a plain `Vec` of
/// 64-byte buckets would split every bucket across two lines (two cache misses for one
/// lookup); this one allocates a line more and starts at the first line boundary. The
/// memory comes zeroed from the allocator (`calloc`), mapped as it is first touched.
pub(crate) struct Lines<W, const N: usize> {
    words: Vec<W>,
    start: usize,
    len: usize,
}

impl<W: bytemuck::Zeroable, const N: usize> Lines<W, N> {
    /// `len` zeroed buckets.
    pub fn new(len: usize) -> Self {
        let word = std::mem::size_of::<W>();
        assert!(N * word == 64 && std::mem::align_of::<W>() == word);
        let words: Vec<W> = bytemuck::zeroed_vec(len * N + N - 1);
        // Words are aligned to their size, so the gap to the next line is whole words.
        let start = (words.as_ptr() as usize).wrapping_neg() % 64 / word;
        assert!(start < N && start + len * N <= words.len());
        Lines { words, start, len }
    }
}

impl<W: bytemuck::Zeroable, const N: usize> Lines<W, N> {
    /// The buckets a budget of `bytes` pays for ([`buckets_for`]: a power of two, at
    /// least one), zeroed, and advised onto huge pages: the constructor of every table.
    pub fn with_budget(bytes: usize) -> Self {
        let lines = Self::new(buckets_for(
            bytes,
            std::mem::size_of::<[W; N]>(),
            usize::MAX,
        ));
        advise_huge_pages(&lines[..]);
        lines
    }
}

// The two views below are what every table lookup goes through. Written safely
// (`words[start..][..len * N].as_chunks()`), their bounds checks and division cost 3.3%
// more instructions on `gaps bench --deals 30` (cachegrind: 2.825G against 2.735G).
impl<W, const N: usize> std::ops::Deref for Lines<W, N> {
    type Target = [[W; N]];
    #[inline(always)]
    fn deref(&self) -> &[[W; N]] {
        #[allow(unsafe_code)]
        // SAFETY: `new` made `words` hold `start + len * N` words (`N - 1` more than
        // `len * N`, and `start < N`), so the `len` arrays of `N` words from `start` are
        // in bounds; `[W; N]` is laid out as `N` consecutive `W`s with the alignment of
        // `W`, which the words have; the slice borrows `self`, so `words` (never resized)
        // outlives it.
        unsafe {
            std::slice::from_raw_parts(
                self.words.as_ptr().add(self.start).cast::<[W; N]>(),
                self.len,
            )
        }
    }
}

impl<W, const N: usize> std::ops::DerefMut for Lines<W, N> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [[W; N]] {
        #[allow(unsafe_code)]
        // SAFETY: as in `deref`; the mutable borrow of `self` makes the slice unique.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.words.as_mut_ptr().add(self.start).cast::<[W; N]>(),
                self.len,
            )
        }
    }
}

/// The number of buckets of `bucket_bytes` that `bytes` pays for, rounded down to a
/// power of two, at least one and at most `max` (itself a power of two).
pub(crate) fn buckets_for(bytes: usize, bucket_bytes: usize, max: usize) -> usize {
    let wanted = (bytes / bucket_bytes).clamp(1, max);
    1usize << (usize::BITS - 1 - wanted.leading_zeros())
}

/// Starts loading the cache line of `target` without waiting for it: several table
/// probes can then overlap their cache misses instead of paying them one after another.
#[inline(always)]
pub(crate) fn prefetch_line<T>(target: &T) {
    let line: *const T = target;
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: `_mm_prefetch` only hints the cache; it never faults, reads no value
    // into the program and writes nothing. The pointer comes from a live reference,
    // and SSE is part of the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(line.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = line;
}

/// Asks Linux to back the table with transparent huge pages. Table lookups are random
/// accesses over megabytes, so with 4 KiB pages most of them also miss the TLB; measured
/// on 100 4x13 deals, huge pages made the search 25% faster. Purely advisory: if the
/// kernel says no, nothing changes.
#[cfg(target_os = "linux")]
pub(crate) fn advise_huge_pages<T>(buckets: &[T]) {
    const PAGE: usize = 4096;
    let start = buckets.as_ptr() as usize;
    let end = start + std::mem::size_of_val(buckets);
    let aligned = start.next_multiple_of(PAGE);
    if end <= aligned + PAGE {
        return;
    }
    let len = (end - aligned) / PAGE * PAGE;
    #[allow(unsafe_code)]
    // SAFETY: the range lies inside the live allocation behind `buckets` (rounded inward
    // to page boundaries), and MADV_HUGEPAGE only changes how the kernel backs those
    // pages, never their contents or validity. The result is ignored on purpose.
    unsafe {
        libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn advise_huge_pages<T>(_: &[T]) {}

/// Maps every page of `items`, fresh from the allocator and zeroed, by writing a zero
/// into it. A page whose first access is a read (a probe of an open-addressing set) is
/// mapped to the shared zero page, and the write that follows must then flush that
/// mapping from every core the process runs on: `perf` put 5% of a two-thread exact
/// search's samples in those flushes (`common` deal 24, 2-2.5 s of system time a run,
/// 0.5 s with this). The store goes through `black_box` so that it is not dropped as
/// writing what the allocator already zeroed.
pub(crate) fn map_for_writing<T: bytemuck::Zeroable>(items: &mut [T]) {
    const PAGE: usize = 4096;
    let stride = (PAGE / std::mem::size_of::<T>().max(1)).max(1);
    for item in items.iter_mut().step_by(stride) {
        *std::hint::black_box(item) = T::zeroed();
    }
}
