//! The runner's unit tests: stored jobs become the engine's options; waits for
//! permits end with them or with the flag.

use super::*;
use crate::service::job::Stored;
use crate::service::store::test_support::new_job;
use crate::service::store::NewJob;
use gaps_engine::{Algorithm, SolveOptions, Variant};
use std::sync::atomic::AtomicUsize;

#[test]
fn a_stored_job_becomes_the_engine_options_it_asked_for() {
    let spec = NewJob {
        variant: Stored(crate::service::gaps::subject::JobVariant::Engine(
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
    let options = spec::solve_options(&spec, Variant::Common, 2);
    assert_eq!(options.variant, Variant::Common);
    assert_eq!(options.algorithm, Algorithm::Exact);
    assert_eq!(options.max_nodes, Some(5_000));
    assert_eq!(options.time_limit, Some(Duration::from_millis(2_500)));
    assert_eq!(options.memory_limit, Some(3 << 20));
    assert_eq!(options.seed, 42);
    assert_eq!(options.probes, Some(77));
    assert_eq!(options.threads, 2);
    // What a request leaves out stays the engine's default.
    let plain = spec::solve_options(&new_job("b", 1), Variant::Basic, 1);
    assert_eq!(
        (plain.max_nodes, plain.memory_limit, plain.probes),
        (None, None, None)
    );
    assert_eq!(plain.dfs, SolveOptions::default().dfs);
}

#[tokio::test]
async fn a_wait_for_permits_ends_with_them_or_with_the_flag_and_nudges_meanwhile() {
    let pool = Semaphore::new(2);
    let flag = AtomicBool::new(false);
    let nudges = AtomicUsize::new(0);
    let count = || {
        nudges.fetch_add(1, Ordering::SeqCst);
    };
    // Free permits: taken at once, no nudge.
    let held = wait_for(&pool, 2, &flag, &count)
        .await
        .expect("free permits");
    assert_eq!(pool.available_permits(), 0);
    assert_eq!(nudges.load(Ordering::SeqCst), 0);
    // None free: every 200 ms a nudge (here the nudge frees them) until they come.
    let give_back = || {
        if nudges.fetch_add(1, Ordering::SeqCst) == 1 {
            pool.add_permits(1);
        }
    };
    let one = wait_for(&pool, 1, &flag, &give_back).await;
    assert!(one.is_some());
    assert_eq!(nudges.load(Ordering::SeqCst), 2);
    // None free and the flag raised: the wait ends holding nothing.
    flag.store(true, Ordering::SeqCst);
    assert!(wait_for(&pool, 1, &flag, &count).await.is_none());
    drop((held, one));
    assert_eq!(pool.available_permits(), 3);
}
