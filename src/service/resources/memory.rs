//! The node's memory budget as jobs and deepening draw from it: how much a search
//! draws (`draw_mb`), and the draw itself, given back when dropped (`MemoryDraw`).
//!
//! Invariant: the same request always draws the same memory (a job waits for it rather
//! than run with less), so a stored `unknown` means the same search whenever it is read
//! back; the in-use gauge counts exactly the draws alive.

use crate::service::resources::metrics::Metrics;
use gaps_engine::{sized_memory, Algorithm, Variant};
use std::time::Duration;
use tokio::sync::SemaphorePermit;

/// The MiB a search of `algorithm` on `variant` within `time_ms` on `threads` threads
/// draws from the node's `search_memory_mb` while it runs: for a search that runs the
/// exact search (`exact`, `auto` on `common`), its `table_mb`, else memory sized by its
/// time limit (`gaps_engine::sized_memory`), never more than the whole; `None` for the
/// searches that use only their thread's table. Jobs and deepening both draw this.
pub(crate) fn draw_mb(
    algorithm: Algorithm,
    variant: Variant,
    time_ms: u64,
    threads: usize,
    table_mb: Option<i64>,
    search_memory_mb: usize,
) -> Option<usize> {
    let time_limit = Some(Duration::from_millis(time_ms));
    let available = search_memory_mb.saturating_mul(1 << 20);
    let sized = sized_memory(algorithm, variant, time_limit, threads, available)?;
    let mb = table_mb.map_or(sized >> 20, |mb| mb as usize);
    // Validation caps a request at the whole; a row stored under a larger configuration
    // gets the whole rather than waiting forever.
    Some(mb.clamp(1, search_memory_mb.max(1)))
}

/// Memory drawn from the node's budget, given back (and counted out of the in-use
/// gauge) when dropped.
pub(crate) struct MemoryDraw<'a> {
    _permit: SemaphorePermit<'a>,
    bytes: i64,
    metrics: &'a Metrics,
}

impl<'a> MemoryDraw<'a> {
    pub(crate) fn new(permit: SemaphorePermit<'a>, mb: usize, metrics: &'a Metrics) -> Self {
        let bytes = i64::try_from(mb << 20).unwrap_or(i64::MAX);
        metrics.search_memory_in_use.inc_by(bytes);
        MemoryDraw {
            _permit: permit,
            bytes,
            metrics,
        }
    }
}

impl Drop for MemoryDraw<'_> {
    fn drop(&mut self) {
        self.metrics.search_memory_in_use.dec_by(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_searches_draw_memory_sized_by_their_time_and_never_more_than_the_whole() {
        let job = |variant, algorithm, table_mb, time_ms| (variant, algorithm, table_mb, time_ms);
        let whole = 16 << 10;
        let draw =
            |(variant, algorithm, table_mb, time_ms): &(Variant, Algorithm, Option<i64>, u64)| {
                draw_mb(*algorithm, *variant, *time_ms, 1, *table_mb, whole)
            };
        // Searches on their thread's table draw nothing (`auto` on `basic` is
        // depth-first search).
        assert_eq!(
            draw(&job(Variant::Basic, Algorithm::Auto, None, 60_000)),
            None
        );
        assert_eq!(
            draw(&job(Variant::Common, Algorithm::Dfs, Some(8), 60_000)),
            None
        );
        assert_eq!(
            draw(&job(Variant::Common, Algorithm::Hybrid, None, 60_000)),
            None
        );
        // The exact search, alone or in `auto` on `common`: its own table_mb...
        assert_eq!(
            draw(&job(Variant::Common, Algorithm::Exact, Some(512), 1_000)),
            Some(512)
        );
        assert_eq!(
            draw(&job(Variant::Common, Algorithm::Auto, Some(48), 60_000)),
            Some(48)
        );
        // ...else sized by its time limit, as the engine sizes it...
        let sized = |ms: u64| {
            let time = Some(Duration::from_millis(ms));
            sized_memory(Algorithm::Auto, Variant::Common, time, 1, whole << 20).unwrap() >> 20
        };
        assert_eq!(
            draw(&job(Variant::Common, Algorithm::Auto, None, 10_000)),
            Some(sized(10_000))
        );
        assert_eq!(
            draw(&job(Variant::Basic, Algorithm::Exact, None, 100)),
            Some(sized(100))
        );
        assert!(sized(100) < sized(10_000));
        // ...within the whole (a row stored under a larger configuration).
        assert_eq!(
            draw(&job(
                Variant::Common,
                Algorithm::Exact,
                Some(1 << 20),
                1_000
            )),
            Some(whole)
        );
        assert_eq!(
            draw(&job(Variant::Common, Algorithm::Auto, None, 3_600_000)),
            Some(whole)
        );
        assert_eq!(
            draw(&job(Variant::Common, Algorithm::Exact, Some(0), 1_000)),
            Some(1)
        );
    }
}
