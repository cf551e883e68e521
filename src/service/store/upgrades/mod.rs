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
use super::{
    AnyJob, ClaimScope, KeyState, NewOddsJob, PysolCounts, PysolRange, Store, POSTGRES_MIGRATOR,
    SQLITE_MIGRATOR,
};
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
        .claim_next_gaps(&test_lease(), ClaimScope::Any)
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

mod game_numbers;
mod idempotency;
mod lifecycle;
mod odds;
