//! The `lifecycle` migration: jobs of every kind moved to the lifecycle table and
//! the tables of their kinds.

use super::*;

/// Rows of every kind of job as the schema before the jobs table held the life only
/// wrote them (a kind's columns in `jobs`): a batch of three deals (two done, one
/// queued), a PySolFC game, a game in progress, a cached answer, a Morpion proof
/// shared in two units (one done, one queued).
async fn old_jobs_of_every_kind(store: &Store) {
    let gaps = |id: &'static str, seed: u64, more: &'static str, values: &'static str| {
        let store = store.clone();
        async move {
            let job = new_job(id, seed);
            on_pool!(&store, write, |Db, pool, _d| {
                sqlx::query::<Db>(&format!(
                    "INSERT INTO jobs (id, variant, algorithm, position, suits, ranks,
                         deal_seed, limit_time_ms{more})
                     VALUES ($1, 'basic', 'auto', $2, 4, 5, $3, 1000{values})"
                ))
                .bind(id)
                .bind(job.position)
                .bind(seed as i64)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
            })
            .unwrap();
        }
    };
    on_pool!(store, write, |Db, pool, _d| {
        sqlx::query::<Db>(
            "INSERT INTO batches (id, variant, algorithm, suits, ranks, seed, count,
                 limit_time_ms, materialized)
             VALUES ('b', 'basic', 'auto', 4, 5, 0, 3, 1000, 3)",
        )
        .execute(pool)
        .await
        .map(|done| done.rows_affected())
    })
    .unwrap();
    let done = ", state, verdict, used_algorithm, nodes, elapsed_ms, node_id, attempts, \
                batch_id, queue_class, turn";
    gaps(
        "b0",
        0,
        done,
        ", 'done', 'solvable', 'dfs', 10, 1.5, 'n1', 1, 'b', 1, 0",
    )
    .await;
    gaps(
        "b1",
        1,
        done,
        ", 'done', 'unsolvable', 'dfs', 20, 2.5, 'n1', 1, 'b', 1, 1",
    )
    .await;
    gaps(
        "b2",
        2,
        ", state, batch_id, queue_class, turn",
        ", 'queued', 'b', 1, 2",
    )
    .await;
    gaps(
        "played",
        3,
        ", state, played, review, redeals",
        ", 'queued', '[]', TRUE, 1",
    )
    .await;
    gaps(
        "cached",
        4,
        ", state, verdict, used_algorithm, nodes, elapsed_ms, cached, limit_nodes, threads",
        ", 'done', 'unsolvable', 'dfs', 0, 0, TRUE, 500, 2",
    )
    .await;
    on_pool!(store, write, |Db, pool, _d| async {
        sqlx::query::<Db>(
            "INSERT INTO jobs (id, game, state, variant, algorithm, position, suits, ranks,
                 limit_nodes, limit_time_ms, threads, created_by, queue_class, turn)
             VALUES ('m', 'morpion', 'running', '5D', 'endgame', '', 0, 0, 1000, 5000, 2,
                 'lab', 0, 0)",
        )
        .execute(pool)
        .await?;
        sqlx::query::<Db>(
            "INSERT INTO morpion_proofs (id, record, record_length, from_move, split_units,
                 units_total, split_depth, frontier_nodes, units)
             VALUES ('m', 'rec', 80, 70, 2, 2, 1, 3, 2)",
        )
        .execute(pool)
        .await?;
        for (unit, state, nodes) in [(0_i64, "done", Some(7_i64)), (1, "queued", None)] {
            sqlx::query::<Db>(
                "INSERT INTO jobs (id, game, state, variant, algorithm, position, suits,
                     ranks, limit_nodes, limit_time_ms, threads, created_by, queue_class,
                     turn, parent_id, nodes)
                 VALUES ($1, 'morpion', $2, '5D', 'endgame', '', 0, 0, 1000, 5000, 1, 'lab',
                     1, $3, 'm', $4)",
            )
            .bind(format!("m-u{unit}"))
            .bind(state)
            .bind(10 + unit)
            .bind(nodes)
            .execute(pool)
            .await?;
            sqlx::query::<Db>(
                "INSERT INTO morpion_units (id, unit, complete, line) VALUES ($1, $2, $3, $4)",
            )
            .bind(format!("m-u{unit}"))
            .bind(unit)
            .bind((unit == 0).then_some(true))
            .bind((unit == 0).then(|| sqlx::types::Json(Vec::<serde_json::Value>::new())))
            .execute(pool)
            .await?;
        }
        Ok::<_, sqlx::Error>(())
    }
    .await)
    .unwrap();
    old_game(store, 5, "montana", 7, Verdict::Solvable).await;
}

/// Stores jobs of every kind at the schema before the jobs table held the life only,
/// upgrades, and reads them back with the same meaning: each job's own columns, the
/// batch's counts, the win rates; the queued jobs are claimed and a finish still moves
/// the batch's counts.
async fn jobs_of_every_kind_survive_the_lifecycle_upgrade(url: &str) {
    let old = open_before(url, "lifecycle").await;
    old_jobs_of_every_kind(&old).await;
    let rates_before = old.win_rate_counts().await.unwrap();
    let pysol_before = old.pysol_win_rate_counts().await.unwrap();
    let counts_before = old.batch_counts("b").await.unwrap();
    old.close().await;

    let store = Store::open(url, "normal", 2).await.expect("the upgrade");
    assert_eq!(store.win_rate_counts().await.unwrap(), rates_before);
    assert_eq!(store.pysol_win_rate_counts().await.unwrap(), pysol_before);
    let counts = store.batch_counts("b").await.unwrap();
    assert_eq!(counts, counts_before);
    assert_eq!(
        (
            counts.queued,
            counts.done,
            counts.solvable,
            counts.unsolvable
        ),
        (1, 2, 1, 1)
    );

    let b0 = store.job("b0").await.unwrap().expect("b0");
    assert_eq!(b0.spec, {
        let mut job = new_job("b0", 0);
        job.batch_id = Some("b".into());
        job
    });
    assert_eq!(
        (
            b0.verdict.map(|v| v.0),
            b0.life.nodes,
            b0.life.elapsed_ms,
            b0.life.node_id.as_deref()
        ),
        (Some(Verdict::Solvable), Some(10), Some(1.5), Some("n1"))
    );
    assert_eq!(
        (b0.life.state, b0.life.queue_class, b0.life.attempts),
        (JobState::Done, 1, 1)
    );
    let played = store.job("played").await.unwrap().expect("played");
    assert_eq!(
        (
            played.spec.played.map(|p| p.0.len()),
            played.spec.review,
            played.spec.redeals.get()
        ),
        (Some(0), true, 1)
    );
    let cached = store.job("cached").await.unwrap().expect("cached");
    assert_eq!(
        (cached.cached, cached.spec.limit_nodes, cached.spec.threads),
        (true, Some(500), 2)
    );
    let pysol = store
        .job("montana-7")
        .await
        .unwrap()
        .expect("a PySolFC job");
    assert_eq!(
        (
            pysol.spec.pysol.map(|p| p.0.to_string()),
            pysol.verdict.map(|v| v.0)
        ),
        (Some("montana:7".into()), Some(Verdict::Solvable))
    );

    let proof = store.morpion_job("m").await.unwrap().expect("the proof");
    assert_eq!(
        (
            proof.variant.0.to_string(),
            proof.limit_nodes,
            proof.limit_time_ms,
            proof.threads,
            proof.created_by.as_deref(),
            proof.units_total
        ),
        ("5D".into(), Some(1000), 5000, 2, Some("lab"), Some(2))
    );
    assert!(
        store.job("m").await.unwrap().is_none(),
        "a proof is no Gaps job"
    );
    let units = store.units_of("m").await.unwrap();
    assert_eq!(
        units
            .iter()
            .map(|u| (
                u.unit,
                u.limit_nodes,
                u.limit_time_ms,
                u.complete,
                u.life.nodes
            ))
            .collect::<Vec<_>>(),
        [
            (0, Some(1000), 5000, Some(true), Some(7)),
            (1, Some(1000), 5000, None, None)
        ]
    );

    // The queued jobs, each read as its kind; finishing the batch's deal counts.
    let mut claimed = Vec::new();
    while let Some(job) = store
        .claim_next(&test_lease(), ClaimScope::Any)
        .await
        .unwrap()
    {
        claimed.push(job);
    }
    let mut ids: Vec<&str> = claimed.iter().map(|job| job.id()).collect();
    ids.sort();
    assert_eq!(ids, ["b2", "m-u1", "played"]);
    let b2 = claimed
        .into_iter()
        .find(|job| job.id() == "b2")
        .and_then(|job| job.into_gaps())
        .expect("b2 is a Gaps job");
    assert!(store
        .finish(&b2, &verdict(Verdict::Solvable))
        .await
        .unwrap());
    let counts = store.batch_counts("b").await.unwrap();
    assert_eq!(
        (counts.queued, counts.running, counts.done, counts.solvable),
        (0, 0, 3, 2)
    );
    store.close().await;
}

#[tokio::test]
async fn sqlite_jobs_of_every_kind_survive_the_lifecycle_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("old.db").display());
    jobs_of_every_kind_survive_the_lifecycle_upgrade(&url).await;
}

#[tokio::test]
async fn postgres_jobs_of_every_kind_survive_the_lifecycle_upgrade() {
    if let Some(db) = temp_pg_database().await {
        jobs_of_every_kind_survive_the_lifecycle_upgrade(db.url()).await;
    }
}
