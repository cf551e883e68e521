//! The parts of other rooms that the lanes run: what a claimed job of a game other
//! than Gaps runs (the Morpion room's proofs and units), plugged in when the runner
//! starts, so that the runner, which owns the life of every job, depends on no game's
//! room.
//!
//! Invariant: a part runs only the job it is given, on the threads it takes through
//! `Runner::take_threads`, and stores its end under `Runner::finish_retrying`; the
//! claim, heartbeat, cancel flag, requeue on error and the waking of waiters stay the
//! lane's.

use super::Runner;
use crate::service::store::{MorpionJobRow, MorpionUnitRow};
use futures_util::future::BoxFuture;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

/// A claimed Morpion job: a proof, or a unit of a shared proof.
#[derive(Clone, Copy, Debug)]
pub enum MorpionClaim<'a> {
    Proof(&'a MorpionJobRow),
    Unit(&'a MorpionUnitRow),
}

/// What a lane runs for a claimed Morpion job: the Morpion room plugs it in when the
/// runner starts (`service::morpion`), so the runner, which owns the life of every
/// job, does not depend on that room.
pub trait MorpionPart: Send + Sync + 'static {
    /// Runs the claimed `job` (on a single lane when `single_lane`) with `flag` its
    /// cancel flag and `progress` its node count; true if it ended here, false if it
    /// went back to the queue, its result was fenced, or it was handed to its parts.
    fn run<'a>(
        &'a self,
        runner: &'a Runner,
        job: MorpionClaim<'a>,
        flag: &'a Arc<AtomicBool>,
        progress: &'a Arc<AtomicU64>,
        single_lane: bool,
    ) -> BoxFuture<'a, sqlx::Result<bool>>;

    /// Concludes the shared proofs whose units all ended but that no node concluded
    /// (the one that stored the last unit stopped first, or a unit failed); called
    /// periodically (`maintenance`).
    fn conclude_leftovers<'a>(&'a self, runner: &'a Runner) -> BoxFuture<'a, sqlx::Result<()>>;
}
