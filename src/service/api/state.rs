//! What every handler can reach: the node's shared parts, cloned into each request.
//!
//! Invariant: the state holds handles only (each part is shared through an `Arc` or
//! is a pool handle), so cloning it per request costs a few reference counts.

use super::access::Access;
use super::wait_slots::WaitSlots;
use crate::service::config::Config;
use crate::service::loops::batch_filler::BatchFiller;
use crate::service::resources::metrics::Metrics;
use crate::service::runner::Runner;
use crate::service::store::Store;
use std::sync::Arc;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Validated configuration.
    pub config: Arc<Config>,
    /// The database.
    pub store: Store,
    /// The job runner (lanes, cancellation, waiting).
    pub runner: Arc<Runner>,
    /// Inserts the jobs of posted batches.
    pub batches: Arc<BatchFiller>,
    /// Metrics registry.
    pub metrics: Arc<Metrics>,
    /// Tokens and rate limits.
    pub access: Arc<Access>,
    /// The bound on requests waiting for a job.
    pub waits: Arc<WaitSlots>,
}
