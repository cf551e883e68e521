//! The `idempotency keys` migration: the table of keys beside the jobs.

use super::*;

/// A database of the schema before idempotency keys keeps its jobs, and takes keys.
async fn jobs_survive_the_idempotency_upgrade(url: &str) {
    let old = open_before(url, "idempotency keys").await;
    old.insert_job(&new_job("g", 3)).await.unwrap();
    old_batches(&old).await;
    old.close().await;
    let store = Store::open(url, "normal", 2).await.expect("the upgrade");
    assert_eq!(store.job("g").await.unwrap().unwrap().spec, new_job("g", 3));
    for id in ["games", "deals"] {
        assert!(store.batch(id).await.unwrap().is_some(), "{id}");
    }
    let key = store.reserve_key("lab", "jobs", "k", "d").await.unwrap();
    assert_eq!(key, KeyState::Reserved);
    store.settle_key("lab", "jobs", "k", "g").await.unwrap();
    assert_eq!(
        store.reserve_key("lab", "jobs", "k", "d").await.unwrap(),
        KeyState::Answered("g".into())
    );
    store.close().await;
}

#[tokio::test]
async fn sqlite_jobs_survive_the_idempotency_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("old.db").display());
    jobs_survive_the_idempotency_upgrade(&url).await;
}

#[tokio::test]
async fn postgres_jobs_survive_the_idempotency_upgrade() {
    if let Some(db) = temp_pg_database().await {
        jobs_survive_the_idempotency_upgrade(db.url()).await;
    }
}
