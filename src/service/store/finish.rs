//! The end of a job's search: a running job finished with its verdict, cancelled or
//! failed, and a verdict recorded where later jobs find it (`verdicts` for a position,
//! `redeal_verdicts` for a deal with redeals, the effort aggregates).
//!
//! Invariants: every statement runs in the one transaction that ends the job, fenced
//! on `state = 'running'` and the job's lease token, so a job is finished once and by
//! its holder; a known verdict is only ever replaced when it is `unknown`; a game in
//! progress's verdict is kept with the job only (it is about the position its steps
//! reach, not its deal's).

use super::jobs::{redeal_kind, redeal_source};
use super::rows::{Finish, JobRow};
use super::{in_transaction, Store};
use crate::report::JobStats;
use crate::service::job::{JobState, Stored};
use sqlx::types::Json;

/// Records a deal's verdict with redeals in `redeal_verdicts`, inside `$tx`.
macro_rules! record_redeal_verdict {
    ($db:ty, $tx:expr, $d:expr, $job:expr, $verdict:expr, $solution:expr, $stats:expr,
     $nodes:expr, $elapsed_ms:expr) => {{
        let rounds = match $stats {
            JobStats::Searched(s) => s.rounds.clone().unwrap_or_default(),
            JobStats::Cached(_) => Default::default(),
        };
        sqlx::query::<$db>(&format!(
            "INSERT INTO redeal_verdicts (source, kind, variant, suits, ranks,
                 redeals, position, verdict, solution, rounds_used, first_round,
                 nodes, elapsed_ms, job_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
                 $14)
             ON CONFLICT (source, variant, redeals) DO UPDATE SET
                 position = excluded.position, verdict = excluded.verdict,
                 solution = excluded.solution,
                 rounds_used = excluded.rounds_used,
                 first_round = excluded.first_round, nodes = excluded.nodes,
                 elapsed_ms = excluded.elapsed_ms, job_id = excluded.job_id,
                 updated_at = {now}
             WHERE redeal_verdicts.verdict = 'unknown'",
            now = $d.now
        ))
        .bind(redeal_source(&$job.spec))
        .bind(redeal_kind(&$job.spec))
        .bind($job.spec.variant)
        .bind($job.spec.suits)
        .bind($job.spec.ranks)
        .bind($job.spec.redeals)
        .bind($job.spec.position)
        .bind(Stored(*$verdict))
        .bind($solution.as_ref().map(Json))
        .bind(rounds.used as i64)
        .bind(rounds.first_round)
        .bind($nodes)
        .bind($elapsed_ms)
        .bind(&$job.spec.id)
        .execute(&mut *$tx)
        .await?;
    }};
}

/// Records a position's verdict in `verdicts` and the search's effort, inside `$tx`.
macro_rules! record_position_verdict {
    ($db:ty, $tx:expr, $d:expr, $job:expr, $verdict:expr, $solution:expr,
     $used_algorithm:expr, $nodes:expr, $elapsed_ms:expr) => {{
        sqlx::query::<$db>(&format!(
            "INSERT INTO verdicts (variant, position, suits, ranks, verdict, solution,
                 algorithm, nodes, elapsed_ms, limit_nodes, limit_time_ms, job_id,
                 limit_probes, requested_algorithm, table_mb, threads)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                 $15, $16)
             ON CONFLICT (variant, position) DO UPDATE SET
                 verdict = excluded.verdict, solution = excluded.solution,
                 algorithm = excluded.algorithm, nodes = excluded.nodes,
                 elapsed_ms = excluded.elapsed_ms, limit_nodes = excluded.limit_nodes,
                 limit_time_ms = excluded.limit_time_ms, job_id = excluded.job_id,
                 limit_probes = excluded.limit_probes,
                 requested_algorithm = excluded.requested_algorithm,
                 table_mb = excluded.table_mb, threads = excluded.threads,
                 updated_at = {now}
             WHERE verdicts.verdict = 'unknown'",
            now = $d.now
        ))
        .bind($job.spec.variant)
        .bind($job.spec.position)
        .bind($job.spec.suits)
        .bind($job.spec.ranks)
        .bind(Stored(*$verdict))
        .bind($solution.as_ref().map(Json))
        .bind(Stored(*$used_algorithm))
        .bind($nodes)
        .bind($elapsed_ms)
        .bind($job.spec.limit_nodes)
        .bind($job.spec.limit_time_ms)
        .bind(&$job.spec.id)
        .bind($job.spec.limit_probes)
        .bind($job.spec.algorithm)
        .bind($job.spec.table_mb)
        .bind($job.spec.threads)
        .execute(&mut *$tx)
        .await?;
        super::stats::record_effort!(
            $db,
            $tx,
            $d,
            (
                $job.spec.variant,
                $job.spec.suits,
                $job.spec.ranks,
                Stored(*$used_algorithm),
                Stored(*$verdict)
            ),
            *$nodes,
            *$elapsed_ms
        );
    }};
}

impl Store {
    /// Ends a running job; a verdict is also recorded as the position's known verdict.
    /// Returns false if the job was not running (nothing changed).
    pub async fn finish(&self, job: &JobRow, finish: &Finish) -> sqlx::Result<bool> {
        in_transaction!(self, |Db, tx, d| {
            let changed = match finish {
                Finish::Verdict {
                    verdict,
                    solution,
                    stats,
                    stopped,
                    used_algorithm,
                    nodes,
                    elapsed_ms,
                    cached,
                    played,
                } => {
                    let done = sqlx::query::<Db>(&format!(
                        "UPDATE jobs SET state = 'done', stopped = $1, nodes = $2,
                             elapsed_ms = $3, finished_at = {now}
                         WHERE id = $4 AND state = 'running'
                             AND lease_token IS NOT DISTINCT FROM $5",
                        now = d.now
                    ))
                    .bind(stopped.map(Stored))
                    .bind(nodes)
                    .bind(elapsed_ms)
                    .bind(&job.spec.id)
                    .bind(&job.life.lease_token)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected()
                        == 1;
                    if done {
                        sqlx::query::<Db>(
                            "UPDATE gaps_searches SET verdict = $1, solution = $2, stats = $3,
                                 used_algorithm = $4, cached = $5, played_answer = $6
                             WHERE id = $7",
                        )
                        .bind(Stored(*verdict))
                        .bind(solution.as_ref().map(Json))
                        .bind(Json(stats))
                        .bind(Stored(*used_algorithm))
                        .bind(cached)
                        .bind(played.as_deref().map(Json))
                        .bind(&job.spec.id)
                        .execute(&mut *tx)
                        .await?;
                    }
                    // A game in progress's verdict is about the position its steps
                    // reach, not its deal's: it is kept with the job only.
                    let done_deal = done && job.spec.played.is_none();
                    if done_deal && job.spec.redeals.any() {
                        record_redeal_verdict!(
                            Db, tx, d, job, verdict, solution, stats, nodes, elapsed_ms
                        );
                    } else if done_deal && !cached {
                        record_position_verdict!(
                            Db,
                            tx,
                            d,
                            job,
                            verdict,
                            solution,
                            used_algorithm,
                            nodes,
                            elapsed_ms
                        );
                    }
                    done
                }
                // A running job has no statistics and no error yet, so what a finish
                // does not give stays empty.
                Finish::Cancelled { .. } | Finish::Failed { .. } => {
                    let (state, stats, error) = match finish {
                        Finish::Cancelled { stats } => (JobState::Cancelled, stats.as_ref(), None),
                        Finish::Failed { error } => (JobState::Failed, None, Some(error)),
                        Finish::Verdict { .. } => unreachable!("matched above"),
                    };
                    let ended = sqlx::query::<Db>(&format!(
                        "UPDATE jobs SET state = $1, error = COALESCE($2, error),
                             finished_at = {now}
                         WHERE id = $3 AND state = 'running'
                             AND lease_token IS NOT DISTINCT FROM $4",
                        now = d.now
                    ))
                    .bind(state)
                    .bind(error)
                    .bind(&job.spec.id)
                    .bind(&job.life.lease_token)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected()
                        == 1;
                    if let (true, Some(stats)) = (ended, stats) {
                        sqlx::query::<Db>("UPDATE gaps_searches SET stats = $1 WHERE id = $2")
                            .bind(Json(stats))
                            .bind(&job.spec.id)
                            .execute(&mut *tx)
                            .await?;
                    }
                    ended
                }
            };
            tx.commit().await?;
            Ok(changed)
        })
    }
}
