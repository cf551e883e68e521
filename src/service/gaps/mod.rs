//! The Gaps kind of job as a node runs it: `run` (the kind's part of the runner:
//! answered from the store or searched, and its end stored), `plan` (the search a job
//! gets and the memory and threads it draws), `spec` (a stored job's engine options
//! and redeals) and `earlier` (a game in progress answered by an earlier answer).
//! What a Gaps job searches, as the store keeps it, is `job::subject`.
//!
//! Invariant: everything here reads a stored job, typed when the request came in, and
//! re-validates nothing; every winning line is replayed by the engine before it is
//! stored.

mod earlier;
mod plan;
pub mod run;
mod spec;

pub use run::GapsSearches;
