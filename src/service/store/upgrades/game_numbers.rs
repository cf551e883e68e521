//! The `game numbers` migration: PySolFC game numbers kept as text, up to 10^20.

use super::*;

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
