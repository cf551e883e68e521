//! Migrations run on a database of the schema before them, on both backends: the rows
//! written by the code of that schema are read back by today's code, with the same
//! meaning.
//!
//! Invariant: compiled for tests only; the database before a migration is made by
//! today's migrations before it (sqlx checks at the upgrade that they are the same
//! ones), and its rows by the store's code where that code writes no new column or
//! table, else by SQL of that schema.

use super::test_support::{listed, new_job, test_lease, verdict};
use super::testing::temp_pg_database;
use super::{PysolCounts, PysolRange, Store, POSTGRES_MIGRATOR, SQLITE_MIGRATOR};
use crate::service::job::{GameNumberKey, JobState, Stored};
use gaps_engine::{Verdict, PYSOL_MAX_NUMBER};
use sqlx::migrate::Migrator;
use std::borrow::Cow;

/// The migrations of `all` before the one named `name` (its file name after the
/// version, `game_numbers` read as "game numbers").
fn before(all: &Migrator, name: &str) -> Migrator {
    let at = all
        .migrations
        .iter()
        .position(|m| m.description == name)
        .unwrap_or_else(|| panic!("no migration named {name:?}"));
    Migrator {
        migrations: Cow::Owned(all.migrations[..at].to_vec()),
        ignore_missing: all.ignore_missing,
        locking: all.locking,
        no_tx: all.no_tx,
    }
}

/// The store at `url` with the migrations before the one named `name`.
async fn open_before(url: &str, name: &str) -> Store {
    let sqlite = before(&SQLITE_MIGRATOR, name);
    let postgres = before(&POSTGRES_MIGRATOR, name);
    Store::open_migrated(url, "normal", 2, &sqlite, &postgres, false)
        .await
        .expect("open the store at the schema before the migration")
}

/// A PySolFC job `game:number` (deal `seed`'s position: distinct seeds, distinct
/// positions), claimed and finished with `verdict_of`.
async fn game(store: &Store, seed: u64, game: &str, number: u128, verdict_of: Verdict) {
    let mut job = new_job(&format!("{game}-{number}"), seed);
    job.deal_seed = None;
    job.pysol = Some(format!("{game}:{number}").parse().expect("a PySolFC game"));
    store.insert_job(&job).await.unwrap();
    let claimed = store
        .claim_next_gaps(&test_lease(), super::ClaimScope::Any)
        .await
        .unwrap()
        .expect("the job just queued");
    assert!(store.finish(&claimed, &verdict(verdict_of)).await.unwrap());
}

/// A PySolFC job `game:number` done with `verdict_of` and its known verdict, written by
/// SQL of the schemas before the jobs table held the life only (a Gaps job's columns
/// in `jobs`), as `game` writes it today.
async fn old_game(store: &Store, seed: u64, game: &str, number: u128, verdict_of: Verdict) {
    let job = new_job(&format!("{game}-{number}"), seed);
    let pysol = format!("{game}:{number}");
    on_pool!(store, write, |Db, pool, _d| async {
        sqlx::query::<Db>(
            "INSERT INTO jobs (id, state, variant, algorithm, position, suits, ranks,
                 limit_time_ms, pysol, verdict, used_algorithm, nodes, elapsed_ms)
             VALUES ($1, 'done', 'basic', 'auto', $2, 4, 5, 1000, $3, $4, 'dfs', 10, 1.0)",
        )
        .bind(&job.id)
        .bind(job.position)
        .bind(&pysol)
        .bind(Stored(verdict_of))
        .execute(pool)
        .await?;
        sqlx::query::<Db>(
            "INSERT INTO verdicts (variant, position, suits, ranks, verdict, algorithm, nodes,
                 elapsed_ms, limit_time_ms, job_id)
             VALUES ('basic', $1, 4, 5, $2, 'dfs', 10, 1.0, 1000, $3)",
        )
        .bind(job.position)
        .bind(Stored(verdict_of))
        .bind(&job.id)
        .execute(pool)
        .await
        .map(|done| done.rows_affected())
    }
    .await)
    .unwrap();
}

/// The known verdicts of `game` over all of PySolFC's numbers, in the order listed.
async fn listed_all(store: &Store, game: &str) -> Vec<(u128, Verdict)> {
    let range = PysolRange {
        game: game.into(),
        from: 1,
        to: PYSOL_MAX_NUMBER,
        verdict: None,
    };
    listed(store, range).await
}

/// A batch of PySolFC games and one of numbered deals, written as the schema before
/// the migration held them (a batch of games kept its first number in `seed`).
async fn old_batches(store: &Store) {
    let insert = |id: &'static str, seed: i64, game: Option<&'static str>| {
        let store = store.clone();
        async move {
            on_pool!(&store, write, |Db, pool, _d| {
                sqlx::query::<Db>(
                    "INSERT INTO batches (id, variant, algorithm, suits, ranks, seed, count,
                         limit_time_ms, pysol_game)
                     VALUES ($1, 'common', 'auto', 4, 13, $2, 3, 1000, $3)",
                )
                .bind(id)
                .bind(seed)
                .bind(game)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
            })
            .unwrap();
        }
    };
    insert("games", 5, Some("montana")).await;
    insert("deals", 7, None).await;
}

/// Stores PySolFC games and batches at the schema before the game numbers became text,
/// upgrades, and reads them back: the same listing and counts, batches of games with
/// their first number, numbers up to 10^20 taken after, in number order.
async fn game_numbers_survive_the_upgrade(url: &str) {
    let old = open_before(url, "game numbers").await;
    old_game(&old, 1, "montana", 12, Verdict::Solvable).await;
    old_game(&old, 2, "montana", 9, Verdict::Unsolvable).await;
    old_game(&old, 4, "blue-moon", 3, Verdict::Solvable).await;
    old_batches(&old).await;
    let numbers_before: Vec<(String, i64)> = on_pool!(&old, read, |Db, pool, _d| {
        sqlx::query_as::<Db, (String, i64)>(
            "SELECT game, number FROM pysol_games ORDER BY game, number",
        )
        .fetch_all(pool)
        .await
    })
    .unwrap();
    assert_eq!(
        numbers_before,
        [
            ("blue-moon".into(), 3),
            ("montana".into(), 9),
            ("montana".into(), 12)
        ]
    );
    let counts_before = old.pysol_win_rate_counts().await.unwrap();
    old.close().await;

    let store = Store::open(url, "normal", 2).await.expect("the upgrade");
    assert_eq!(
        listed_all(&store, "montana").await,
        [(9, Verdict::Unsolvable), (12, Verdict::Solvable)]
    );
    assert_eq!(
        listed_all(&store, "blue-moon").await,
        [(3, Verdict::Solvable)]
    );
    assert_eq!(store.pysol_win_rate_counts().await.unwrap(), counts_before);
    let games = store.batch("games").await.unwrap().unwrap();
    assert_eq!(
        (games.spec.seed, games.spec.pysol_from),
        (0, Some(GameNumberKey(5)))
    );
    let deals = store.batch("deals").await.unwrap().unwrap();
    assert_eq!((deals.spec.seed, deals.spec.pysol_from), (7, None));

    // Numbers no integer column holds, beside the old ones, counted and listed in order.
    game(&store, 5, "montana", PYSOL_MAX_NUMBER, Verdict::Solvable).await;
    game(
        &store,
        6,
        "montana",
        i64::MAX as u128 + 1,
        Verdict::Solvable,
    )
    .await;
    assert_eq!(
        listed_all(&store, "montana").await,
        [
            (9, Verdict::Unsolvable),
            (12, Verdict::Solvable),
            (i64::MAX as u128 + 1, Verdict::Solvable),
            (PYSOL_MAX_NUMBER, Verdict::Solvable),
        ]
    );
    let montana = store.pysol_win_rate_counts().await.unwrap();
    assert!(montana.contains(&PysolCounts {
        game: "montana".into(),
        games: 4,
        solvable: 3,
        unsolvable: 1,
        unknown: 0,
    }));
    store.close().await;
}

#[tokio::test]
async fn sqlite_game_numbers_survive_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("old.db").display());
    game_numbers_survive_the_upgrade(&url).await;
}

#[tokio::test]
async fn postgres_game_numbers_survive_the_upgrade() {
    if let Some(db) = temp_pg_database().await {
        game_numbers_survive_the_upgrade(db.url()).await;
    }
}

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
        .claim_next(&test_lease(), super::ClaimScope::Any)
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

/// Stores a Gaps job, a Morpion proof and batches at the schema before odds jobs (whose
/// migration makes `jobs.game` again, with the new kind), upgrades, and reads them back
/// as their kinds: each job as before, the batches as batches of Gaps searches; an odds
/// job then stored and read as one, and every queued job claimed as its kind.
async fn every_kind_survives_the_odds_upgrade(url: &str) {
    use super::{AnyJob, NewOddsJob};
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
        .claim_next(&test_lease(), super::ClaimScope::Any)
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
    assert_eq!(key, super::KeyState::Reserved);
    store.settle_key("lab", "jobs", "k", "g").await.unwrap();
    assert_eq!(
        store.reserve_key("lab", "jobs", "k", "d").await.unwrap(),
        super::KeyState::Answered("g".into())
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
