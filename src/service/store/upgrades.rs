//! Migrations run on a database of the schema before them, on both backends: the rows
//! written by the code of that schema are read back by today's code, with the same
//! meaning.
//!
//! Invariant: compiled for tests only; the database before a migration is made by
//! today's migrations before it (sqlx checks at the upgrade that they are the same
//! ones), and its rows by the store's code where that code writes no new column, else
//! by SQL of that schema.

use super::test_support::{listed, new_job, test_lease, verdict};
use super::testing::temp_pg_database;
use super::{PysolCounts, PysolRange, Store, POSTGRES_MIGRATOR, SQLITE_MIGRATOR};
use crate::service::job::GameNumberKey;
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
    Store::open_migrated(url, "normal", 2, &sqlite, &postgres)
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
    game(&old, 1, "montana", 12, Verdict::Solvable).await;
    game(&old, 2, "montana", 9, Verdict::Unsolvable).await;
    game(&old, 4, "blue-moon", 3, Verdict::Solvable).await;
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
