//! Statistics: win-rate counts over distinct positions and the search effort of
//! searched jobs, both read from aggregates kept up to date as the data changes.
//!
//! Invariants:
//! - Win rates count each (variant, canonical position) once: `win_rate_totals` is kept
//!   by triggers on `verdicts` (migrations), in the transaction of every change.
//! - Effort counts each searched (not cached) `done` job once: [`record_effort`] runs in
//!   the transaction that finishes the job, and [`Store::rebuild_pending_aggregates`]
//!   recounts everything under a lock that makes concurrent finishes wait, so no job is
//!   counted twice or missed.
//! - Every aggregate value is the sum of its rows over `shard`: on PostgreSQL each change
//!   goes to one of `Dialect::aggregate_shards` rows, so concurrent finishes seldom
//!   wait for one row's lock; SQLite (one writer) has shard 0 only.
//! - Counts, sums and means are exact; medians are read from histograms in buckets of
//!   1/16 octave of `1 + x`, so a median is within a factor 2^(1/32) (2.2%) of `1 + x`
//!   for the true median `x`.

use super::{in_transaction, on_pool, Store};
use crate::service::job::subject::{JobAlgorithm, JobVariant};
use crate::service::job::Stored;
use futures_util::TryStreamExt;
use gaps_engine::Verdict;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

/// Verdict counts of one (variant, suits, ranks).
#[derive(Clone, Debug, sqlx::FromRow, PartialEq, Eq)]
pub struct WinRateCounts {
    pub variant: Stored<JobVariant>,
    pub suits: i64,
    pub ranks: i64,
    pub deals: i64,
    pub solvable: i64,
    pub unsolvable: i64,
    pub unknown: i64,
}

/// Search effort of one (variant, suits, ranks, algorithm, verdict) over the searched
/// (not cached) jobs that ended with that verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct EffortRow {
    pub variant: Stored<JobVariant>,
    pub suits: i64,
    pub ranks: i64,
    pub algorithm: Stored<JobAlgorithm>,
    pub verdict: Stored<Verdict>,
    pub jobs: i64,
    pub mean_nodes: f64,
    pub median_nodes: f64,
    pub mean_ms: f64,
    pub median_ms: f64,
}

/// Buckets per octave of the effort histograms.
const BUCKETS_PER_OCTAVE: f64 = 16.0;

/// The histogram bucket of a nodes or milliseconds value: `floor(16 log2(1 + x))`.
pub(crate) fn effort_bucket(x: f64) -> i64 {
    (BUCKETS_PER_OCTAVE * (1.0 + x.max(0.0)).log2()).floor() as i64
}

/// The value a bucket stands for: the geometric middle of its range of `1 + x`.
fn bucket_value(bucket: i64) -> f64 {
    ((bucket as f64 + 0.5) / BUCKETS_PER_OCTAVE).exp2() - 1.0
}

/// The median (the middle value, or the mean of the two middle values) of the values
/// counted by `histogram`: (bucket, count) pairs in increasing bucket order.
fn histogram_median(histogram: &[(i64, i64)]) -> f64 {
    let n: i64 = histogram.iter().map(|&(_, count)| count).sum();
    let value_at = |rank: i64| {
        let mut seen = 0;
        for &(bucket, count) in histogram {
            seen += count;
            if seen >= rank {
                return bucket_value(bucket);
            }
        }
        f64::NAN
    };
    (value_at((n + 1) / 2) + value_at((n + 2) / 2)) / 2.0
}

/// Medians of each effort group as last read, with the group's job count then: they
/// stay valid while `effort_totals` shows the same count (every finish adds one), so a
/// request reads the histograms of changed groups only. Shared by the store's clones.
#[derive(Debug, Default)]
pub(crate) struct MedianCache(Mutex<HashMap<EffortKey, Medians>>);

#[derive(Clone, Copy, Debug)]
struct Medians {
    jobs: i64,
    nodes: f64,
    ms: f64,
}

/// Above this many changed groups, one request reads the whole histogram at once
/// rather than group by group.
const GROUP_READS: usize = 8;

/// The group of a job's effort: variant, suits, ranks, algorithm used, verdict.
type EffortKey = (String, i64, i64, String, String);

/// A shard for one change under dialect `d`: random, from the random bits of a v7 UUID.
pub(crate) fn random_shard(d: &super::Dialect) -> i64 {
    (uuid::Uuid::now_v7().as_u128() as u64 % d.aggregate_shards) as i64
}

/// Adds one searched job to the effort aggregates, inside the transaction `tx` that
/// finishes it, in a random shard of dialect `$d`. The key is the job's [`EffortKey`]
/// values, in order.
macro_rules! record_effort {
    ($db:ty, $tx:expr, $d:expr,
     ($variant:expr, $suits:expr, $ranks:expr, $algorithm:expr, $verdict:expr),
     $nodes:expr, $ms:expr) => {{
        let shard = $crate::service::store::stats::random_shard(&$d);
        sqlx::query::<$db>(
            "INSERT INTO effort_totals AS t
                 (variant, suits, ranks, algorithm, verdict, shard, jobs, sum_nodes, sum_ms)
             VALUES ($1, $2, $3, $4, $5, $8, 1, $6, $7)
             ON CONFLICT (variant, suits, ranks, algorithm, verdict, shard) DO UPDATE SET
                 jobs = t.jobs + 1, sum_nodes = t.sum_nodes + excluded.sum_nodes,
                 sum_ms = t.sum_ms + excluded.sum_ms",
        )
        .bind($variant)
        .bind($suits)
        .bind($ranks)
        .bind($algorithm)
        .bind($verdict)
        .bind($nodes)
        .bind($ms)
        .bind(shard)
        .execute(&mut *$tx)
        .await?;
        sqlx::query::<$db>(
            "INSERT INTO effort_histogram AS h
                 (variant, suits, ranks, algorithm, verdict, measure, bucket, shard, jobs)
             VALUES ($1, $2, $3, $4, $5, 'nodes', $6, $8, 1),
                 ($1, $2, $3, $4, $5, 'ms', $7, $8, 1)
             ON CONFLICT (variant, suits, ranks, algorithm, verdict, measure, bucket, shard)
             DO UPDATE SET jobs = h.jobs + 1",
        )
        .bind($variant)
        .bind($suits)
        .bind($ranks)
        .bind($algorithm)
        .bind($verdict)
        .bind($crate::service::store::stats::effort_bucket($nodes as f64))
        .bind($crate::service::store::stats::effort_bucket($ms))
        .bind(shard)
        .execute(&mut *$tx)
        .await?;
    }};
}
pub(crate) use record_effort;

impl Store {
    /// Verdict counts per (variant, suits, ranks) over distinct positions.
    pub async fn win_rate_counts(&self) -> sqlx::Result<Vec<WinRateCounts>> {
        on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, WinRateCounts>(
                "SELECT variant, suits, ranks, CAST(SUM(deals) AS BIGINT) AS deals,
                     CAST(SUM(solvable) AS BIGINT) AS solvable,
                     CAST(SUM(unsolvable) AS BIGINT) AS unsolvable,
                     CAST(SUM(unknown) AS BIGINT) AS unknown
                 FROM win_rate_totals GROUP BY variant, suits, ranks HAVING SUM(deals) > 0
                 ORDER BY variant, suits, ranks",
            )
            .fetch_all(pool)
            .await
        })
    }

    /// Effort per (variant, suits, ranks, algorithm, verdict): counts and means from the
    /// totals, medians from the histograms of the groups that changed since the last
    /// read (see `MedianCache`).
    pub async fn effort(&self) -> sqlx::Result<Vec<EffortRow>> {
        let totals = on_pool!(self, read, |Db, pool, _d| {
            sqlx::query_as::<Db, EffortTotals>(
                "SELECT variant, suits, ranks, algorithm, verdict,
                     CAST(SUM(jobs) AS BIGINT) AS jobs,
                     CAST(SUM(sum_nodes) AS BIGINT) AS sum_nodes,
                     CAST(SUM(sum_ms) AS DOUBLE PRECISION) AS sum_ms
                 FROM effort_totals GROUP BY variant, suits, ranks, algorithm, verdict
                 HAVING SUM(jobs) > 0 ORDER BY variant, suits, ranks, algorithm, verdict",
            )
            .fetch_all(pool)
            .await?
        });
        let changed: Vec<EffortKey> = {
            let cache = self.medians.0.lock().expect("median cache");
            totals
                .iter()
                .filter(|t| !matches!(cache.get(&t.key()), Some(m) if m.jobs == t.jobs))
                .map(EffortTotals::key)
                .collect()
        };
        let fresh = self.read_medians(&changed).await?;
        let mut cache = self.medians.0.lock().expect("median cache");
        cache.extend(fresh);
        totals
            .into_iter()
            .map(|t| {
                let medians = cache.get(&t.key()).copied();
                let median = |pick: fn(&Medians) -> f64| medians.as_ref().map_or(f64::NAN, pick);
                Ok(EffortRow {
                    variant: parse_stored(&t.variant)?,
                    suits: t.suits,
                    ranks: t.ranks,
                    algorithm: parse_stored(&t.algorithm)?,
                    verdict: parse_stored(&t.verdict)?,
                    jobs: t.jobs,
                    mean_nodes: t.sum_nodes as f64 / t.jobs as f64,
                    median_nodes: median(|m| m.nodes),
                    mean_ms: t.sum_ms / t.jobs as f64,
                    median_ms: median(|m| m.ms),
                })
            })
            .collect()
    }

    /// The medians of the groups `keys` from their histograms: group by group when they
    /// are few, else the whole histogram in one read.
    async fn read_medians(&self, keys: &[EffortKey]) -> sqlx::Result<Vec<(EffortKey, Medians)>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        const COLUMNS: &str =
            "SELECT variant, suits, ranks, algorithm, verdict, measure, bucket, jobs
             FROM effort_histogram";
        const ORDER: &str = "ORDER BY variant, suits, ranks, algorithm, verdict, measure, bucket";
        let mut rows: Vec<HistogramRow> = Vec::new();
        if keys.len() > GROUP_READS {
            rows = on_pool!(self, read, |Db, pool, _d| {
                sqlx::query_as::<Db, HistogramRow>(&format!("{COLUMNS} {ORDER}"))
                    .fetch_all(pool)
                    .await?
            });
        } else {
            for (variant, suits, ranks, algorithm, verdict) in keys {
                let group = on_pool!(self, read, |Db, pool, _d| {
                    sqlx::query_as::<Db, HistogramRow>(&format!(
                        "{COLUMNS} WHERE variant = $1 AND suits = $2 AND ranks = $3
                             AND algorithm = $4 AND verdict = $5 {ORDER}"
                    ))
                    .bind(variant)
                    .bind(suits)
                    .bind(ranks)
                    .bind(algorithm)
                    .bind(verdict)
                    .fetch_all(pool)
                    .await?
                });
                rows.extend(group);
            }
        }
        let mut groups: BTreeMap<EffortKey, [Vec<(i64, i64)>; 2]> = BTreeMap::new();
        for (variant, suits, ranks, algorithm, verdict, measure, bucket, jobs) in rows {
            let histograms = groups
                .entry((variant, suits, ranks, algorithm, verdict))
                .or_default();
            histograms[usize::from(measure == "ms")].push((bucket, jobs));
        }
        Ok(groups
            .into_iter()
            .map(|(key, [nodes, ms])| {
                let medians = Medians {
                    jobs: nodes.iter().map(|&(_, count)| count).sum(),
                    nodes: histogram_median(&nodes),
                    ms: histogram_median(&ms),
                };
                (key, medians)
            })
            .collect())
    }

    /// Rebuilds the aggregates a migration marked pending (`pending_rebuilds`) from the
    /// jobs, once, whichever node opens the store first. On PostgreSQL the effort tables
    /// are locked first, so a concurrent finish waits and is counted after the rebuild,
    /// never twice.
    pub(crate) async fn rebuild_pending_aggregates(&self) -> sqlx::Result<()> {
        in_transaction!(self, |Db, tx, d| {
            let pending = sqlx::query::<Db>("DELETE FROM pending_rebuilds WHERE name = 'effort'")
                .execute(&mut *tx)
                .await?
                .rows_affected()
                > 0;
            if pending {
                if !d.lock_effort.is_empty() {
                    sqlx::query::<Db>(d.lock_effort).execute(&mut *tx).await?;
                }
                sqlx::query::<Db>("DELETE FROM effort_totals")
                    .execute(&mut *tx)
                    .await?;
                sqlx::query::<Db>("DELETE FROM effort_histogram")
                    .execute(&mut *tx)
                    .await?;
                let mut groups: BTreeMap<EffortKey, EffortSums> = BTreeMap::new();
                {
                    let mut jobs = sqlx::query_as::<Db, (String, i64, i64, String, String, i64, f64)>(
                        "SELECT g.variant, g.suits, g.ranks, g.used_algorithm, g.verdict, j.nodes,
                             j.elapsed_ms
                         FROM jobs j JOIN gaps_searches g ON g.id = j.id
                         WHERE j.state = 'done' AND g.cached = FALSE
                             AND j.nodes IS NOT NULL AND j.elapsed_ms IS NOT NULL
                             AND g.used_algorithm IS NOT NULL AND g.verdict IS NOT NULL",
                    )
                    .fetch(&mut *tx);
                    while let Some((variant, suits, ranks, algorithm, verdict, nodes, ms)) =
                        jobs.try_next().await?
                    {
                        groups
                            .entry((variant, suits, ranks, algorithm, verdict))
                            .or_default()
                            .add(nodes, ms);
                    }
                }
                for ((variant, suits, ranks, algorithm, verdict), sums) in &groups {
                    sqlx::query::<Db>(
                        "INSERT INTO effort_totals
                             (variant, suits, ranks, algorithm, verdict, shard, jobs, sum_nodes,
                                 sum_ms)
                         VALUES ($1, $2, $3, $4, $5, 0, $6, $7, $8)",
                    )
                    .bind(variant)
                    .bind(suits)
                    .bind(ranks)
                    .bind(algorithm)
                    .bind(verdict)
                    .bind(sums.jobs)
                    .bind(sums.nodes)
                    .bind(sums.ms)
                    .execute(&mut *tx)
                    .await?;
                    for ((measure, bucket), jobs) in &sums.histogram {
                        sqlx::query::<Db>(
                            "INSERT INTO effort_histogram
                                 (variant, suits, ranks, algorithm, verdict, measure, bucket,
                                     shard, jobs)
                             VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8)",
                        )
                        .bind(variant)
                        .bind(suits)
                        .bind(ranks)
                        .bind(algorithm)
                        .bind(verdict)
                        .bind(measure)
                        .bind(bucket)
                        .bind(jobs)
                        .execute(&mut *tx)
                        .await?;
                    }
                }
            }
            tx.commit().await
        })
    }
}

/// The effort of one group, summed in memory by a rebuild.
#[derive(Default)]
struct EffortSums {
    jobs: i64,
    nodes: i64,
    ms: f64,
    /// Jobs per (measure, bucket).
    histogram: BTreeMap<(&'static str, i64), i64>,
}

impl EffortSums {
    fn add(&mut self, nodes: i64, ms: f64) {
        self.jobs += 1;
        self.nodes += nodes;
        self.ms += ms;
        *self
            .histogram
            .entry(("nodes", effort_bucket(nodes as f64)))
            .or_default() += 1;
        *self.histogram.entry(("ms", effort_bucket(ms))).or_default() += 1;
    }
}

/// A stored name read back as its type.
fn parse_stored<T: std::str::FromStr>(text: &str) -> sqlx::Result<Stored<T>>
where
    T::Err: std::fmt::Display,
{
    text.parse()
        .map(Stored)
        .map_err(|e| sqlx::Error::Decode(format!("stored value {text:?}: {e}").into()))
}

/// One histogram row: the group's key, the measure (`nodes` or `ms`), bucket, count.
type HistogramRow = (String, i64, i64, String, String, String, i64, i64);

/// A row of `effort_totals`.
#[derive(sqlx::FromRow)]
struct EffortTotals {
    variant: String,
    suits: i64,
    ranks: i64,
    algorithm: String,
    verdict: String,
    jobs: i64,
    sum_nodes: i64,
    sum_ms: f64,
}

impl EffortTotals {
    fn key(&self) -> EffortKey {
        (
            self.variant.clone(),
            self.suits,
            self.ranks,
            self.algorithm.clone(),
            self.verdict.clone(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{new_job, on_both, searched, test_lease, verdict};
    use super::super::{on_pool, Deepened, Store};
    use super::*;

    /// The win-rate counts as a pass over every known verdict would give them.
    async fn counted_from_verdicts(store: &Store) -> Vec<WinRateCounts> {
        on_pool!(store, read, |Db, pool, _d| {
            sqlx::query_as::<Db, WinRateCounts>(
                "SELECT variant, suits, ranks, COUNT(*) AS deals,
                     COUNT(*) FILTER (WHERE verdict = 'solvable') AS solvable,
                     COUNT(*) FILTER (WHERE verdict = 'unsolvable') AS unsolvable,
                     COUNT(*) FILTER (WHERE verdict = 'unknown') AS unknown
                 FROM verdicts GROUP BY variant, suits, ranks ORDER BY variant, suits, ranks",
            )
            .fetch_all(pool)
            .await
            .unwrap()
        })
    }

    async fn finish_new(store: &Store, id: &str, seed: u64, finish: &super::super::Finish) {
        store.insert_job(&new_job(id, seed)).await.unwrap();
        let job = store
            .claim_next_gaps(&test_lease(), crate::service::store::ClaimScope::Any)
            .await
            .unwrap()
            .unwrap();
        assert!(store.finish(&job, finish).await.unwrap());
    }

    #[tokio::test]
    async fn win_rate_totals_follow_every_verdict_change() {
        on_both(|store| async move {
            assert!(store.win_rate_counts().await.unwrap().is_empty());
            let steps = [
                (0, Verdict::Solvable),
                (1, Verdict::Unknown),
                (2, Verdict::Unsolvable),
                (1, Verdict::Unknown), // unknown over unknown: still one deal
                (1, Verdict::Unsolvable), // replaces the unknown
                (1, Verdict::Solvable), // an exact verdict is never replaced
                (3, Verdict::Unknown),
                (0, Verdict::Unknown), // a later unknown leaves the win in place
            ];
            for (k, (seed, v)) in steps.into_iter().enumerate() {
                finish_new(&store, &format!("j{k}"), seed, &verdict(v)).await;
                assert_eq!(
                    store.win_rate_counts().await.unwrap(),
                    counted_from_verdicts(&store).await,
                    "after step {k}"
                );
            }
            // Deepening settles deal 3's unknown.
            let from = store.next_to_deepen(10_000).await.unwrap().unwrap();
            let found = Deepened {
                verdict: Verdict::Solvable,
                solution: None,
                algorithm: gaps_engine::Algorithm::Dfs,
                nodes: 5,
                elapsed_ms: 1.0,
                limits: from.clone(),
                run_id: "deepen-1".into(),
            };
            assert!(store.record_deepened(&from, &found).await.unwrap());
            let counts = store.win_rate_counts().await.unwrap();
            assert_eq!(counts, counted_from_verdicts(&store).await);
            assert_eq!(
                (
                    counts[0].deals,
                    counts[0].solvable,
                    counts[0].unsolvable,
                    counts[0].unknown
                ),
                (4, 2, 2, 0)
            );
        })
        .await;
    }

    #[tokio::test]
    async fn effort_means_are_exact_and_medians_within_the_bucket_bound() {
        on_both(|store| async move {
            let finishes = [
                (Verdict::Unsolvable, 1, 4.0),
                (Verdict::Unsolvable, 5, 1.0),
                (Verdict::Unsolvable, 3, 2.0),
                (Verdict::Unsolvable, 10, 8.0),
                (Verdict::Solvable, 7, 0.5),
                (Verdict::Unknown, 100, 30.0),
                (Verdict::Unknown, 1, 10.0),
                (Verdict::Unknown, 50, 20.0),
            ];
            for (k, (verdict, nodes, ms)) in finishes.into_iter().enumerate() {
                finish_new(
                    &store,
                    &format!("j{k}"),
                    k as u64,
                    &searched(verdict, nodes, ms),
                )
                .await;
            }
            let effort = store.effort().await.unwrap();
            assert_eq!(effort.len(), 3);
            let (solvable, unknown, unsolvable) = (&effort[0], &effort[1], &effort[2]);
            let close = |estimate: f64, exact: f64| {
                (1.0 + estimate) / (1.0 + exact) <= 1.0222
                    && (1.0 + exact) / (1.0 + estimate) <= 1.0222
            };
            assert_eq!((solvable.verdict.0, solvable.jobs), (Verdict::Solvable, 1));
            assert!(close(solvable.median_nodes, 7.0) && close(solvable.median_ms, 0.5));
            assert_eq!(
                (unsolvable.verdict.0, unsolvable.jobs),
                (Verdict::Unsolvable, 4)
            );
            assert_eq!(unsolvable.mean_nodes, 4.75);
            assert_eq!(unsolvable.mean_ms, 3.75);
            // The mean of the two middle buckets' values: (3 + 5) / 2 and (2 + 4) / 2,
            // each within the bound.
            assert!(unsolvable.median_nodes > 3.9 && unsolvable.median_nodes < 4.1);
            assert!(unsolvable.median_ms > 2.9 && unsolvable.median_ms < 3.1);
            assert_eq!((unknown.verdict.0, unknown.jobs), (Verdict::Unknown, 3));
            assert!(close(unknown.median_nodes, 50.0) && close(unknown.median_ms, 20.0));

            // A rebuild from the jobs (as after the migration) gives the same figures.
            on_pool!(store, write, |Db, pool, _d| {
                sqlx::query::<Db>("INSERT INTO pending_rebuilds (name) VALUES ('effort')")
                    .execute(pool)
                    .await
                    .unwrap();
                sqlx::query::<Db>("DELETE FROM effort_histogram")
                    .execute(pool)
                    .await
                    .unwrap();
            });
            store.rebuild_pending_aggregates().await.unwrap();
            store.medians.0.lock().unwrap().clear();
            assert_eq!(store.effort().await.unwrap(), effort);

            // A later finish changes its group's median on the next read.
            let more = searched(Verdict::Solvable, 1000, 0.5);
            finish_new(&store, "later", 99, &more).await;
            let solvable = store.effort().await.unwrap()[0].clone();
            assert_eq!(solvable.jobs, 2);
            assert!(close(solvable.median_nodes, 503.5), "{solvable:?}");
        })
        .await;
    }

    #[test]
    fn a_bucket_stands_for_its_values_within_a_thirty_second_of_an_octave() {
        let bound = 2f64.powf(1.0 / 32.0) * (1.0 + 1e-12);
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut values = vec![0.0, 0.5, 1.0, 2.0, 1e3, 1e9, 1e15];
        values.extend((0..100_000).map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 10_000_000_000) as f64 / (1 + state % 1000) as f64
        }));
        for x in values {
            let ratio = (1.0 + bucket_value(effort_bucket(x))) / (1.0 + x);
            assert!(ratio <= bound && 1.0 / ratio <= bound, "{x}: ratio {ratio}");
        }
    }
}
