//! The `odds jobs` migration: odds jobs as a kind of their own.

use super::*;

/// Stores a Gaps job, a Morpion proof and batches at the schema before odds jobs (whose
/// migration makes `jobs.game` again, with the new kind), upgrades, and reads them back
/// as their kinds: each job as before, the batches as batches of Gaps searches; an odds
/// job then stored and read as one, and every queued job claimed as its kind.
async fn every_kind_survives_the_odds_upgrade(url: &str) {
    use crate::request::rounds::RedealCount;
    use crate::service::job::Game;
    use gaps_engine::{deal, Layout, Variant};

    let old = open_before(url, "odds jobs").await;
    old.insert_job(&new_job("g", 3)).await.unwrap();
    // Today's insert reads its row back with the odds table: the schema's SQL instead.
    for sql in [
        "INSERT INTO jobs (id, game, state, created_by, queue_class, turn)
         VALUES ('m', 'morpion', 'queued', 'lab', 0, 100)",
        "INSERT INTO morpion_proofs (id, variant, record, record_length, from_move,
             limit_nodes, limit_time_ms, threads)
         VALUES ('m', '5T', '{}', 170, 150, 1000, 1000, 1)",
    ] {
        on_pool!(&old, write, |Db, pool, _d| {
            sqlx::query::<Db>(sql).execute(pool).await.map(|_| ())
        })
        .unwrap();
    }
    old_batches(&old).await;
    old.close().await;

    let store = Store::open(url, "normal", 2).await.expect("the upgrade");
    let gaps = store.any_job("g").await.unwrap().expect("g");
    assert_eq!((gaps.game(), gaps.state()), (Game::Gaps, JobState::Queued));
    assert_eq!(store.job("g").await.unwrap().unwrap().spec, new_job("g", 3));
    let read = store.morpion_job("m").await.unwrap().expect("m");
    assert_eq!(
        (read.from_move, read.created_by.as_deref()),
        (150, Some("lab"))
    );
    for id in ["games", "deals"] {
        let batch = store.batch(id).await.unwrap().expect("the batch");
        assert_eq!(batch.spec.odds_samples, None, "{id}");
    }
    let layout = Layout::new(3, 5).unwrap();
    let odds = NewOddsJob {
        id: "o".into(),
        variant: Stored(Variant::Aisleriot),
        position: Stored(deal(4, layout)),
        suits: 3,
        ranks: 5,
        deal_seed: Some(4),
        redeals: RedealCount::new(2).unwrap(),
        played: None,
        samples: 10,
        search_seed: 0,
        limit_nodes: None,
        limit_time_ms: 1000,
        created_by: Some("lab".into()),
        batch_id: None,
    };
    let row = store.insert_odds_job(&odds).await.unwrap();
    assert_eq!((row.spec.clone(), row.cached), (odds, false));
    let mut claimed = Vec::new();
    while let Some(job) = store
        .claim_next(&test_lease(), ClaimScope::Any)
        .await
        .unwrap()
    {
        claimed.push((job.id().to_string(), job.game()));
    }
    claimed.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        claimed,
        [
            ("g".to_string(), Game::Gaps),
            ("m".to_string(), Game::Morpion),
            ("o".to_string(), Game::Odds)
        ]
    );
    assert!(matches!(
        store.any_job("o").await.unwrap(),
        Some(AnyJob::Odds(_))
    ));
    store.close().await;
}

#[tokio::test]
async fn sqlite_every_kind_survives_the_odds_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("old.db").display());
    every_kind_survives_the_odds_upgrade(&url).await;
}

#[tokio::test]
async fn postgres_every_kind_survives_the_odds_upgrade() {
    if let Some(db) = temp_pg_database().await {
        every_kind_survives_the_odds_upgrade(db.url()).await;
    }
}
