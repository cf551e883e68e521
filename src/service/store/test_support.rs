//! What the store's tests share: a queued Gaps job, a lease, finishes, claims that
//! must be of one game, fresh stores on both backends, and PySolFC verdicts as listed.
//!
//! Invariant: compiled for tests only; every store it makes is a fresh database.

use super::testing::{temp_pg_database, TempPgDatabase};
use super::{Finish, NewJob, PysolRange, Store};
use crate::report::{JobStats, StatsJson};
use crate::request::rounds::RedealCount;
use crate::service::job::subject::{JobPosition, JobVariant};
use crate::service::job::Stored;
use gaps_engine::{deal, Algorithm, Layout, Variant, Verdict};

/// A queued `basic` job for deal `seed` of 4 x 5 (distinct seeds: distinct positions).
pub fn new_job(id: &str, seed: u64) -> NewJob {
    NewJob {
        id: id.into(),
        variant: Stored(JobVariant::Engine(Variant::Basic)),
        algorithm: Stored(Algorithm::Auto),
        position: Stored(JobPosition::Engine(deal(seed, Layout::new(4, 5).unwrap()))),
        suits: 4,
        ranks: 5,
        deal_seed: Some(seed as i64),
        limit_nodes: None,
        limit_time_ms: 1000,
        table_mb: None,
        search_seed: 0,
        batch_id: None,
        limit_probes: None,
        threads: 1,
        created_by: None,
        pysol: None,
        redeals: RedealCount::NONE,
        played: None,
        review: false,
    }
}

/// A claim by node `test` with a minute's lease.
pub fn test_lease() -> super::Lease {
    super::Lease {
        node_id: "test".into(),
        duration: std::time::Duration::from_secs(60),
    }
}

impl Store {
    /// [`Store::claim_next`] of a Gaps job (the tests that queue only Gaps jobs).
    pub async fn claim_next_gaps(
        &self,
        lease: &super::Lease,
        scope: super::ClaimScope,
    ) -> sqlx::Result<Option<super::JobRow>> {
        let job = self.claim_next(lease, scope).await?;
        Ok(job.map(|job| job.into_gaps().expect("a Gaps job")))
    }
}

/// Claims the next job of any class, which must be a Morpion job.
pub async fn claim_morpion(store: &Store) -> super::MorpionJobRow {
    let job = store
        .claim_next(&test_lease(), super::ClaimScope::Any)
        .await;
    let job = job.unwrap().expect("a queued job");
    job.into_morpion().expect("a Morpion job")
}

/// A searched finish with `verdict` (10 nodes, 1 ms).
pub fn verdict(verdict: Verdict) -> Finish {
    searched(verdict, 10, 1.0)
}

/// A finish of a `dfs` search with `verdict`, `nodes` and `elapsed_ms`.
pub fn searched(verdict: Verdict, nodes: i64, elapsed_ms: f64) -> Finish {
    Finish::Verdict {
        verdict,
        solution: None,
        stats: JobStats::Searched(StatsJson::default()),
        stopped: None,
        used_algorithm: crate::service::job::subject::JobAlgorithm::Engine(Algorithm::Dfs),
        nodes,
        elapsed_ms,
        cached: false,
        played: None,
    }
}

/// A store on a fresh PostgreSQL database (see [`temp_pg_database`]).
pub async fn temp_pg_store() -> Option<(Store, TempPgDatabase)> {
    let db = temp_pg_database().await?;
    let store = Store::open(db.url(), "normal", 2)
        .await
        .expect("open the PostgreSQL store");
    Some((store, db))
}

/// Runs the store test `body` on SQLite, then on PostgreSQL (see [`temp_pg_store`]).
pub async fn on_both<F, Fut>(body: F)
where
    F: Fn(Store) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let (sqlite, _dir) = temp_store().await;
    body(sqlite).await;
    if let Some((postgres, _db)) = temp_pg_store().await {
        assert_eq!(postgres.backend(), "postgres");
        body(postgres.clone()).await;
        postgres.close().await;
    }
}

/// A store on a fresh file in a temporary directory (kept alive by the guard).
pub async fn temp_store() -> (Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("t.db").display());
    (Store::open(&url, "normal", 2).await.unwrap(), dir)
}

/// The known verdicts of PySolFC games in `range` as the store streams them, in the
/// order listed: (number, verdict).
pub async fn listed(store: &Store, range: PysolRange) -> Vec<(u128, Verdict)> {
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let reader = store.clone();
    let stream = tokio::spawn(async move { reader.stream_pysol_verdicts(range, tx).await });
    let mut out = Vec::new();
    while let Some(page) = rx.recv().await {
        out.extend(
            page.unwrap()
                .iter()
                .map(|row| (row.number.0, row.verdict.0)),
        );
    }
    stream.await.unwrap();
    out
}
