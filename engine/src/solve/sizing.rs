//! How much memory a solve gets when its request names none: sized by its time limit,
//! within what the caller can give ([`sized_memory`]). The caller (the CLI, the
//! service) knows the machine and its other solves; the engine knows what a search can
//! fill in a given time.
//!
//! Invariants: the size is never above `available` and never below
//! [`MIN_SIZED_BYTES`] unless `available` is; an explicit memory limit is never
//! replaced (callers size only requests that name none); searches grow their sets and
//! tables as they fill them, so a large size costs nothing until it is used.

use super::names::Algorithm;
use super::options::resolve_algorithm;
use crate::tuning::{DEFAULT_TABLE_BYTES, MEMORY_PER_THREAD_SECOND};
use crate::variant::Variant;
use std::time::Duration;

/// The least memory a sized solve gets: the solver's default table.
pub const MIN_SIZED_BYTES: usize = DEFAULT_TABLE_BYTES;

/// The memory limit to give a solve of `algorithm` on `variant` on `threads` threads
/// within `time_limit` whose request names none, out of `available` bytes:
/// `tuning::MEMORY_PER_THREAD_SECOND` for each second of the time limit and each thread (all
/// of `available` without a time limit), at least
/// [`MIN_SIZED_BYTES`], at most `available`. `None` for the algorithms whose memory is
/// their solver's table (depth-first, block, sampling, suit-assignment and
/// breadth-first searches, and `auto` on `basic`, which is depth-first search): only
/// the exact search, alone or as `auto`'s prover on `common`, fills more.
pub fn sized_memory(
    algorithm: Algorithm,
    variant: Variant,
    time_limit: Option<Duration>,
    threads: usize,
    available: usize,
) -> Option<usize> {
    if !sizes_memory(algorithm, variant) {
        return None;
    }
    let by_time = time_limit.map_or(usize::MAX, |limit| {
        let per_second = MEMORY_PER_THREAD_SECOND as f64 * threads.max(1) as f64;
        let bytes = limit.as_secs_f64() * per_second;
        if bytes >= usize::MAX as f64 {
            usize::MAX
        } else {
            bytes as usize
        }
    });
    Some(by_time.max(MIN_SIZED_BYTES).min(available))
}

/// Whether a solve of `algorithm` on `variant` runs the exact search (`exact`, or
/// `auto` on `common`), so that its memory is sized ([`sized_memory`]) rather than its
/// solver's table.
pub fn sizes_memory(algorithm: Algorithm, variant: Variant) -> bool {
    matches!(
        resolve_algorithm(algorithm, variant),
        Ok(Algorithm::Exact | Algorithm::Auto)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: usize = 1 << 30;

    #[test]
    fn the_exact_searches_get_memory_for_their_time_within_what_is_available() {
        let sized = |algorithm, variant, ms: Option<u64>, available| {
            sized_memory(
                algorithm,
                variant,
                ms.map(Duration::from_millis),
                1,
                available,
            )
        };
        let (auto, exact) = (Algorithm::Auto, Algorithm::Exact);
        // A second of a thread buys MEMORY_PER_THREAD_SECOND; a short search gets the
        // floor.
        assert_eq!(
            sized(auto, Variant::Common, Some(10_000), 64 * GIB),
            Some(10 * MEMORY_PER_THREAD_SECOND)
        );
        let two_threads = sized_memory(
            auto,
            Variant::Common,
            Some(Duration::from_secs(10)),
            2,
            64 * GIB,
        );
        assert_eq!(two_threads, Some(20 * MEMORY_PER_THREAD_SECOND));
        assert_eq!(
            sized(exact, Variant::Basic, Some(1_000), 64 * GIB),
            Some(MEMORY_PER_THREAD_SECOND.max(MIN_SIZED_BYTES))
        );
        assert_eq!(
            sized(auto, Variant::Common, Some(100), 64 * GIB),
            Some(MIN_SIZED_BYTES)
        );
        // Never above what is available, even below the floor; all of it without a limit.
        assert_eq!(
            sized(auto, Variant::Common, Some(3_600_000), GIB),
            Some(GIB)
        );
        assert_eq!(
            sized(auto, Variant::Common, Some(100), 1 << 20),
            Some(1 << 20)
        );
        assert_eq!(sized(exact, Variant::Common, None, 3 * GIB), Some(3 * GIB));
        assert_eq!(
            sized(exact, Variant::Common, Some(u64::MAX), 3 * GIB),
            Some(3 * GIB)
        );
        // Searches whose memory is their solver's table are not sized.
        for algorithm in [
            Algorithm::Dfs,
            Algorithm::Sampling,
            Algorithm::Hybrid,
            Algorithm::Blocks,
            Algorithm::Assign,
        ] {
            assert_eq!(sized(algorithm, Variant::Common, Some(60_000), GIB), None);
        }
        assert_eq!(sized(auto, Variant::Basic, Some(60_000), GIB), None);
    }
}
