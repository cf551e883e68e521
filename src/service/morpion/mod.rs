//! Morpion Solitaire in the service (docs/morpion.md, "Where it is available"): what a
//! lane runs for a claimed proof (`proof`), proofs shared between nodes, split into
//! units that every node's lanes search (`shared`), and what both use (`work`).
//! The JSON shapes of a proof job are with every job's, in `model`.
//!
//! Invariants:
//! - A Morpion job lives the life of every job (the runner's lanes claim it from the
//!   one queue, renew its lease, cancel, wait for and take it back as any other, and so
//!   for each unit of a shared proof); only what it runs and stores is its own. Its record, K, split and result are in the
//!   store's `morpion_proofs`, reached through `store::MorpionJobRow`.
//! - This room depends on the runner and the store; neither depends on it. Its front
//!   door: [`Proofs`], registered with the runner at start as Morpion's `KindPart`.

mod proof;
mod shared;
mod work;

pub use proof::Proofs;
pub use shared::MAX_UNITS;
