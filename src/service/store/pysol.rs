//! PySolFC games: the game numbers jobs were submitted as, their known verdicts in
//! number order, and their win rates apart from our own numbering.
//!
//! Invariants (kept by triggers, migrations `sqlite/0012` and `postgres/0010`):
//! - `pysol_games` holds every (game, number) a job was ever submitted as, with the
//!   variant and canonical position it stands for, written in the transaction that
//!   inserts the job and never deleted; its verdict is that position's row of
//!   `verdicts`.
//! - `pysol_totals` counts, per game, the numbers whose position has a verdict, by
//!   verdict; every change of `verdicts` or `pysol_games` adjusts it in its own
//!   transaction, so it always equals a count over the join.
//! - A listing reads a page of [`LIST_PAGE`] numbers per query (keyset on the number)
//!   and hands it on whole, so a list of any length holds no connection or snapshot
//!   while the client reads and needs constant memory.

use super::{on_pool, Store};
use crate::service::job::subject::{JobAlgorithm, JobVariant};
use crate::service::job::{GameNumberKey, Stored};
use gaps_engine::Verdict;

/// Numbers read per query of a listing.
const LIST_PAGE: i64 = 1000;

/// Verdict counts of one PySolFC game over its numbers with a known verdict.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq, Eq)]
pub struct PysolCounts {
    pub game: String,
    pub games: i64,
    pub solvable: i64,
    pub unsolvable: i64,
    pub unknown: i64,
}

/// The known verdict of one PySolFC game number.
#[derive(Clone, Debug, sqlx::FromRow, PartialEq)]
pub struct PysolVerdict {
    pub number: GameNumberKey,
    pub variant: Stored<JobVariant>,
    pub position: String,
    pub verdict: Stored<Verdict>,
    pub algorithm: Stored<JobAlgorithm>,
    pub nodes: i64,
    pub elapsed_ms: f64,
    pub job_id: String,
    /// The time limit of the search that gave it.
    pub limit_time_ms: i64,
}

/// Which known verdicts of a game to list: numbers `from ..= to`, optionally one verdict.
#[derive(Clone, Debug)]
pub struct PysolRange {
    pub game: String,
    pub from: u128,
    pub to: u128,
    pub verdict: Option<Verdict>,
}

/// Verdict counts of deals with redeals, by what they count under.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RedealCounts {
    pub kind: String,
    pub variant: String,
    pub suits: i64,
    pub ranks: i64,
    pub redeals: i64,
    pub solvable: i64,
    pub unsolvable: i64,
    pub unknown: i64,
}

impl Store {
    /// Verdict counts of the deals searched with redeals, per kind, variant, size and
    /// number of redeals (a scan: these verdicts are few next to the positions').
    pub async fn redeal_win_rate_counts(&self) -> sqlx::Result<Vec<RedealCounts>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, RedealCounts>(
                "SELECT kind, variant, suits, ranks, redeals,
                     CAST(SUM(CASE WHEN verdict = 'solvable' THEN 1 ELSE 0 END) AS BIGINT)
                         AS solvable,
                     CAST(SUM(CASE WHEN verdict = 'unsolvable' THEN 1 ELSE 0 END) AS BIGINT)
                         AS unsolvable,
                     CAST(SUM(CASE WHEN verdict = 'unknown' THEN 1 ELSE 0 END) AS BIGINT)
                         AS unknown
                 FROM redeal_verdicts GROUP BY kind, variant, suits, ranks, redeals
                 ORDER BY kind, variant, suits, ranks, redeals",
            )
            .fetch_all(pool)
            .await
        })
    }

    /// Verdict counts per PySolFC game (games with at least one known verdict).
    pub async fn pysol_win_rate_counts(&self) -> sqlx::Result<Vec<PysolCounts>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, PysolCounts>(
                "SELECT game, CAST(SUM(games) AS BIGINT) AS games,
                     CAST(SUM(solvable) AS BIGINT) AS solvable,
                     CAST(SUM(unsolvable) AS BIGINT) AS unsolvable,
                     CAST(SUM(unknown) AS BIGINT) AS unknown
                 FROM pysol_totals GROUP BY game HAVING SUM(games) > 0 ORDER BY game",
            )
            .fetch_all(pool)
            .await
        })
    }

    /// Sends the known verdicts of `range` in number order, a page per query and per
    /// message, until the range ends or the receiver is dropped. A failed read is sent,
    /// then ends it.
    pub async fn stream_pysol_verdicts(
        &self,
        range: PysolRange,
        out: tokio::sync::mpsc::Sender<sqlx::Result<Vec<PysolVerdict>>>,
    ) {
        let mut next = range.from;
        while next <= range.to {
            let rows = match self.pysol_verdict_page(&range, next).await {
                Ok(rows) => rows,
                Err(e) => {
                    let _ = out.send(Err(e)).await;
                    return;
                }
            };
            let Some(GameNumberKey(last)) = rows.last().map(|row| row.number) else {
                return;
            };
            let full = rows.len() as i64 == LIST_PAGE;
            if out.send(Ok(rows)).await.is_err() || !full || last >= range.to {
                return;
            }
            next = last + 1;
        }
    }

    /// Up to [`LIST_PAGE`] known verdicts of `range` from number `from` on.
    async fn pysol_verdict_page(
        &self,
        range: &PysolRange,
        from: u128,
    ) -> sqlx::Result<Vec<PysolVerdict>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, PysolVerdict>(
                "SELECT p.number, p.variant, p.position, v.verdict, v.algorithm, v.nodes,
                     v.elapsed_ms, v.job_id, v.limit_time_ms
                 FROM pysol_games p
                 JOIN verdicts v ON v.variant = p.variant AND v.position = p.position
                 WHERE p.game = $1 AND p.number >= $2 AND p.number <= $3
                     AND (CAST($4 AS TEXT) IS NULL OR v.verdict = $4)
                 ORDER BY p.number LIMIT $5",
            )
            .bind(&range.game)
            .bind(GameNumberKey(from))
            .bind(GameNumberKey(range.to))
            .bind(range.verdict.map(|v| v.name()))
            .bind(LIST_PAGE)
            .fetch_all(pool)
            .await
        })
    }
}

#[cfg(test)]
mod pysol_tests {
    use super::super::test_support::{listed, new_job, on_both, test_lease, verdict};
    use super::{PysolCounts, PysolRange, LIST_PAGE};
    use crate::service::job::Stored;
    use gaps_engine::{Variant, Verdict, PYSOL_MAX_NUMBER};

    /// A queued job for PySolFC `game:number`, standing for deal `seed`'s position.
    fn game_job(id: &str, seed: u64, game: &str, number: u128) -> super::super::NewJob {
        let mut job = new_job(id, seed);
        job.deal_seed = None;
        job.pysol = Some(format!("{game}:{number}").parse().expect("a PySolFC game"));
        job
    }

    fn range(from: u128, to: u128, verdict: Option<Verdict>) -> PysolRange {
        PysolRange {
            game: "montana".into(),
            from,
            to,
            verdict,
        }
    }

    /// The totals equal a count over the join through every kind of change: a game
    /// submitted before its position has a verdict, after, twice, an `unknown`
    /// replaced, and the same position as another game.
    #[tokio::test]
    async fn game_totals_and_listings_follow_jobs_and_verdicts() {
        on_both(|store| async move {
            // Numbers 5 and 6 of montana; 7 is the same position as 5; blue-moon 1
            // is yet another game of the position of 5.
            for (id, seed, game, number) in [
                ("a", 1, "montana", 5),
                ("b", 2, "montana", 6),
                ("c", 1, "montana", 7),
                ("d", 1, "blue-moon", 1),
                ("e", 1, "montana", 5),
            ] {
                store
                    .insert_job(&game_job(id, seed, game, number))
                    .await
                    .unwrap();
            }
            assert!(store.pysol_win_rate_counts().await.unwrap().is_empty());
            // Claims go in order of submission: a wins, b is unknown, and c, d, e (the
            // position of a) change nothing.
            for outcome in [Verdict::Solvable, Verdict::Unknown]
                .into_iter()
                .chain([Verdict::Solvable; 3])
            {
                let job = store
                    .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                    .await
                    .unwrap()
                    .unwrap();
                store.finish(&job, &verdict(outcome)).await.unwrap();
            }
            let counts = |games, solvable, unknown| PysolCounts {
                game: "montana".into(),
                games,
                solvable,
                unsolvable: 0,
                unknown,
            };
            let both = store.pysol_win_rate_counts().await.unwrap();
            assert_eq!(both.len(), 2, "{both:?}");
            assert_eq!(both[0].game, "blue-moon");
            assert_eq!((both[0].games, both[0].solvable), (1, 1));
            assert_eq!(both[1], counts(3, 2, 1));
            assert_eq!(
                listed(&store, range(1, 100, None)).await,
                vec![
                    (5, Verdict::Solvable),
                    (6, Verdict::Unknown),
                    (7, Verdict::Solvable)
                ]
            );
            // The unknown of number 6 replaced by a win; a new number of a known
            // position counts at once.
            let mut again = game_job("f", 2, "montana", 6);
            again.limit_time_ms *= 2;
            store.insert_job(&again).await.unwrap();
            store
                .insert_job(&game_job("g", 2, "montana", 9))
                .await
                .unwrap();
            assert_eq!(
                store.pysol_win_rate_counts().await.unwrap()[1],
                counts(4, 2, 2)
            );
            let job = store
                .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                job.spec.pysol.map(|p| p.0.to_string()).as_deref(),
                Some("montana:6")
            );
            store
                .finish(&job, &verdict(Verdict::Solvable))
                .await
                .unwrap();
            assert_eq!(
                store.pysol_win_rate_counts().await.unwrap()[1],
                counts(4, 4, 0)
            );
            assert_eq!(
                listed(&store, range(6, 7, Some(Verdict::Solvable))).await,
                vec![(6, Verdict::Solvable), (7, Verdict::Solvable)]
            );
            assert!(listed(&store, range(1, 100, Some(Verdict::Unknown)))
                .await
                .is_empty());
            let row = {
                let (tx, mut rx) = tokio::sync::mpsc::channel(1);
                store.stream_pysol_verdicts(range(9, 9, None), tx).await;
                rx.recv().await.unwrap().unwrap().remove(0)
            };
            assert_eq!(
                (row.variant, row.number.0),
                (
                    Stored(crate::service::job::subject::JobVariant::Engine(
                        Variant::Basic
                    )),
                    9
                )
            );
        })
        .await;
    }

    /// A listing longer than a page reads on from where each page stopped, in number
    /// order across numbers of every length (one above 2^63-1 among them), and ends at
    /// PySolFC's largest number.
    #[tokio::test]
    async fn a_listing_crosses_pages_and_ends_at_the_largest_number() {
        on_both(|store| async move {
            let n = LIST_PAGE + 5;
            for k in 0..n {
                let number = match k {
                    k if k == n - 1 => PYSOL_MAX_NUMBER,
                    k if k == n - 2 => i64::MAX as u128 + 1,
                    k => 10 + 2 * k as u128,
                };
                let job = game_job(&format!("j{k}"), k as u64, "montana", number);
                store.insert_job(&job).await.unwrap();
                let job = store
                    .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
                    .await
                    .unwrap()
                    .unwrap();
                store
                    .finish(&job, &verdict(Verdict::Unsolvable))
                    .await
                    .unwrap();
            }
            let all = listed(&store, range(1, PYSOL_MAX_NUMBER, None)).await;
            assert_eq!(all.len() as i64, n);
            assert_eq!(all[0].0, 10);
            assert_eq!(all[n as usize - 3].0, 10 + 2 * (n as u128 - 3));
            assert_eq!(all[n as usize - 2].0, i64::MAX as u128 + 1);
            assert_eq!(all[n as usize - 1].0, PYSOL_MAX_NUMBER);
            assert!(all.windows(2).all(|w| w[0].0 < w[1].0));
            assert_eq!(listed(&store, range(11, 13, None)).await.len(), 1);
        })
        .await;
    }
}
