//! The runner's unit tests: waits for permits end with them or with the flag.

use super::wait::wait_for;
use super::*;
use std::sync::atomic::AtomicUsize;

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
