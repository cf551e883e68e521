//! The kinds of job a lane runs: each kind's room (`service::gaps`, `service::morpion`)
//! implements [`KindPart`] and is registered once when the node starts
//! ([`Parts::with`]), so that the runner, which owns the life of every job (claim,
//! heartbeat, cancel flag, requeue on error, waking of waiters), depends on no kind's
//! room.
//!
//! Invariants: a part runs only the job it is given, on the threads it is given or
//! takes through `Runner::take_threads`, and stores its end under
//! `Runner::finish_retrying`; a runner starts only with a part for every [`Game`], so
//! every claimed job has one.

use super::{LaneKind, Runner};
use crate::service::job::Game;
use crate::service::resources::solver_pool::SolverThread;
use crate::service::store::AnyJob;
use futures_util::future::BoxFuture;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

/// A claimed job as a lane hands it to its kind's part.
#[derive(Clone, Copy)]
pub struct Claimed<'a> {
    /// The job, read as its kind's row.
    pub job: &'a AnyJob,
    /// The lane's solver thread.
    pub solver: &'a SolverThread,
    /// The job's cancel flag (raised by a cancel, a lost lease or a shutdown).
    pub flag: &'a Arc<AtomicBool>,
    /// The nodes it searched so far, written by its heartbeat.
    pub progress: &'a Arc<AtomicU64>,
    /// The lane it runs on.
    pub lane: LaneKind,
}

/// What a lane runs for a claimed job of one kind.
pub trait KindPart: Send + Sync + 'static {
    /// Runs `claimed` to its end; true if it ended here, false if it went back to the
    /// queue, its result was fenced, or it was handed to its parts.
    fn run<'a>(
        &'a self,
        runner: &'a Runner,
        claimed: Claimed<'a>,
    ) -> BoxFuture<'a, sqlx::Result<bool>>;

    /// Ends what this kind left half done when a node stopped (a shared Morpion
    /// proof whose units all ended but that no node concluded); called periodically
    /// (`maintenance`). Nothing by default.
    fn conclude_leftovers<'a>(&'a self, _runner: &'a Runner) -> BoxFuture<'a, sqlx::Result<()>> {
        Box::pin(async { Ok(()) })
    }
}

/// The part of each kind of job, registered when the node starts.
#[derive(Default)]
pub struct Parts(Vec<(Game, Box<dyn KindPart>)>);

impl Parts {
    /// These parts and `part` for the jobs of `game` (its one line of registration).
    pub fn with(mut self, game: Game, part: impl KindPart) -> Parts {
        self.0.retain(|(g, _)| *g != game);
        self.0.push((game, Box::new(part)));
        self
    }

    /// The kinds without a part, if any (a runner refuses to start with one).
    pub fn missing(&self) -> Vec<Game> {
        Game::ALL
            .into_iter()
            .filter(|game| !self.0.iter().any(|(g, _)| g == game))
            .collect()
    }

    /// The part of `game`'s jobs (every kind has one: [`Parts::missing`]).
    pub(super) fn of(&self, game: Game) -> &dyn KindPart {
        self.0
            .iter()
            .find(|(g, _)| *g == game)
            .map(|(_, part)| part.as_ref())
            .expect("the runner starts with a part for every game")
    }

    /// Every registered part.
    pub(super) fn all(&self) -> impl Iterator<Item = &dyn KindPart> {
        self.0.iter().map(|(_, part)| part.as_ref())
    }
}
