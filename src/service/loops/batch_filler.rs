//! Batch filling: a batch (of numbered deals or of PySolFC games) is stored as its specification and a count of the jobs
//! inserted so far (`materialized`); the filler inserts the missing jobs, a chunk per
//! transaction, when the batch is posted and again at every start.
//!
//! Invariants: one filler runs at a time in a process (a lock), and on PostgreSQL the
//! store's `add_batch_jobs` only advances a batch from the offset it read, so two nodes
//! never insert the same jobs; a stop between chunks loses nothing (the next start goes
//! on from `materialized`). Each chunk wakes the lanes and the other nodes.

use crate::service::job::subject::{JobPosition, JobPysol, JobVariant};
use crate::service::job::Stored;
use crate::service::resources::metrics::Metrics;
use crate::service::runner::Runner;
use crate::service::store::{Announce, BatchJobs, BatchRow, NewJob, NewOddsJob, Store};
use gaps_engine::{deal, Layout, PysolGame};
use std::ops::Range;
use std::sync::Arc;

/// Jobs of a batch inserted per transaction.
const BATCH_CHUNK: usize = 1000;

/// Inserts the jobs of unfinished batches (see the module doc).
pub struct BatchFiller {
    runner: Arc<Runner>,
    store: Store,
    metrics: Arc<Metrics>,
    filling: tokio::sync::Mutex<()>,
}

impl BatchFiller {
    /// A filler that stops between chunks once `runner` shuts down.
    pub fn new(runner: Arc<Runner>, store: Store, metrics: Arc<Metrics>) -> BatchFiller {
        BatchFiller {
            runner,
            store,
            metrics,
            filling: tokio::sync::Mutex::new(()),
        }
    }

    /// Inserts the missing jobs of every unfinished batch, a chunk per transaction.
    pub async fn fill_batches(&self) -> sqlx::Result<()> {
        let _one_filler = self.filling.lock().await;
        for batch in self.store.unfinished_batches().await? {
            self.fill_batch(&batch).await?;
        }
        Ok(())
    }

    async fn fill_batch(&self, batch: &BatchRow) -> sqlx::Result<()> {
        let Ok(layout) = Layout::new(batch.spec.suits as usize, batch.spec.ranks as usize) else {
            tracing::error!(batch = %batch.spec.id, "batch with an invalid size; not filled");
            return Ok(());
        };
        let game = match batch.spec.pysol_game.as_deref().map(PysolGame::named) {
            None => None,
            Some(Ok(game)) => Some(game),
            Some(Err(_)) => {
                tracing::error!(batch = %batch.spec.id, "batch of an unknown PySolFC game; not filled");
                return Ok(());
            }
        };
        let mut offset = batch.materialized;
        while offset < batch.spec.count && !self.runner.is_shutting_down() {
            let end = (offset + BATCH_CHUNK as i64).min(batch.spec.count);
            let (odds, gaps);
            let jobs = match batch.spec.odds_samples {
                Some(samples) => {
                    odds = odds_jobs(batch, layout, samples, offset..end);
                    BatchJobs::Odds(&odds)
                }
                None => {
                    gaps = gaps_jobs(batch, layout, game, offset..end);
                    BatchJobs::Gaps(&gaps)
                }
            };
            if !self
                .store
                .add_batch_jobs(&batch.spec.id, offset, jobs)
                .await?
            {
                break; // Someone else advanced this batch.
            }
            self.metrics.jobs_submitted.inc_by((end - offset) as u64);
            offset = end;
            self.runner.notify_new_work();
            self.store.announce(Announce::Work);
        }
        Ok(())
    }
}

/// The odds jobs `range` of `batch` (of numbered deals of `layout`).
fn odds_jobs(batch: &BatchRow, layout: Layout, samples: i64, range: Range<i64>) -> Vec<NewOddsJob> {
    range
        .map(|k| {
            let seed = batch.spec.seed + k;
            let JobVariant::Engine(variant) = batch.spec.variant.0 else {
                unreachable!("validated: an odds batch has an engine variant")
            };
            NewOddsJob {
                id: uuid::Uuid::now_v7().to_string(),
                variant: Stored(variant),
                position: Stored(deal(seed as u64, layout)),
                suits: batch.spec.suits,
                ranks: batch.spec.ranks,
                deal_seed: Some(seed),
                redeals: batch.spec.redeals,
                played: None,
                samples,
                search_seed: 0,
                limit_nodes: batch.spec.limit_nodes,
                limit_time_ms: batch.spec.limit_time_ms,
                created_by: batch.spec.created_by.clone(),
                batch_id: Some(batch.spec.id.clone()),
            }
        })
        .collect()
}

/// The Gaps jobs `range` of `batch` (numbered deals of `layout`, or games of `game`).
fn gaps_jobs(
    batch: &BatchRow,
    layout: Layout,
    game: Option<PysolGame>,
    range: Range<i64>,
) -> Vec<NewJob> {
    range
        .map(|k| {
            let seed = batch.spec.seed + k;
            let (position, deal_seed, pysol) = match game {
                Some(game) => {
                    let number = batch.spec.pysol_from.map_or(0, |from| from.0);
                    let game = JobPysol::new(game, number + k as u128)
                        .expect("validated: 1 <= number <= 10^20, a game solved");
                    let position = match game {
                        JobPysol::Position(deal) => JobPosition::Engine(deal.position()),
                        JobPysol::Board(deal) => JobPosition::Board(deal),
                    };
                    (position, None, Some(Stored(game)))
                }
                None => (
                    JobPosition::Engine(deal(seed as u64, layout)),
                    Some(seed),
                    None,
                ),
            };
            NewJob {
                id: uuid::Uuid::now_v7().to_string(),
                variant: batch.spec.variant,
                algorithm: batch.spec.algorithm,
                position: Stored(position),
                suits: batch.spec.suits,
                ranks: batch.spec.ranks,
                deal_seed,
                limit_nodes: batch.spec.limit_nodes,
                limit_time_ms: batch.spec.limit_time_ms,
                table_mb: None,
                search_seed: 0,
                batch_id: Some(batch.spec.id.clone()),
                limit_probes: batch.spec.limit_probes,
                threads: batch.spec.threads,
                created_by: batch.spec.created_by.clone(),
                pysol,
                redeals: batch.spec.redeals,
                played: None,
                review: false,
            }
        })
        .collect()
}
