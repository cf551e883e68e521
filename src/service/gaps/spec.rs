//! A stored Gaps job's inputs to the engine: its options and redeals.
//!
//! Invariant: a stored job's values are typed already (parsed once, when the request
//! came in); nothing here re-validates them.

use crate::service::store::NewJob;
use gaps_engine::{PysolDeal, Redeals, SolveOptions, Variant};
use std::time::Duration;

/// The PySolFC game a job was submitted as, if any.
pub(super) fn pysol_deal(spec: &NewJob) -> Option<PysolDeal> {
    spec.pysol.as_ref().and_then(|game| game.0.deal())
}

/// What the solve of a job passes to the solver about redeals: its source's rule
/// ([`gaps_engine::DealSource::redeals`]) for the count it was validated with.
pub(super) fn redeals_of(spec: &NewJob) -> Option<Redeals> {
    spec.source()?.redeals(spec.redeals.get())
}

/// The engine's options for a stored job searched under `variant` on `threads`
/// threads: its values are typed already (the position, variant and algorithm were
/// parsed once, when the request came in).
pub(super) fn solve_options(spec: &NewJob, variant: Variant, threads: usize) -> SolveOptions {
    SolveOptions {
        variant,
        algorithm: spec.algorithm.0,
        max_nodes: spec.limit_nodes.map(|n| n as u64),
        time_limit: Some(Duration::from_millis(spec.limit_time_ms as u64)),
        seed: spec.search_seed as u64,
        memory_limit: spec.table_mb.map(|mb| (mb as usize) << 20),
        probes: spec.limit_probes.map(|p| p as u64),
        threads,
        ..SolveOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::job::Stored;
    use crate::service::store::test_support::new_job;
    use gaps_engine::Algorithm;

    #[test]
    fn a_stored_job_becomes_the_engine_options_it_asked_for() {
        let spec = NewJob {
            variant: Stored(crate::service::job::subject::JobVariant::Engine(
                Variant::Common,
            )),
            algorithm: Stored(Algorithm::Exact),
            limit_nodes: Some(5_000),
            limit_time_ms: 2_500,
            table_mb: Some(3),
            search_seed: 42,
            limit_probes: Some(77),
            ..new_job("a", 1)
        };
        let options = solve_options(&spec, Variant::Common, 2);
        assert_eq!(options.variant, Variant::Common);
        assert_eq!(options.algorithm, Algorithm::Exact);
        assert_eq!(options.max_nodes, Some(5_000));
        assert_eq!(options.time_limit, Some(Duration::from_millis(2_500)));
        assert_eq!(options.memory_limit, Some(3 << 20));
        assert_eq!(options.seed, 42);
        assert_eq!(options.probes, Some(77));
        assert_eq!(options.threads, 2);
        // What a request leaves out stays the engine's default.
        let plain = solve_options(&new_job("b", 1), Variant::Basic, 1);
        assert_eq!(
            (plain.max_nodes, plain.memory_limit, plain.probes),
            (None, None, None)
        );
        assert_eq!(plain.dfs, SolveOptions::default().dfs);
    }
}
