//! Search algorithms and their shared parts (limits, outcomes, statistics, memory).
//!
//! Invariant: nothing here does I/O, logs, or keeps global state; every table is owned
//! by the search (or solver) that created it.
//!
//! The map, bottom up; a family imports from the ground, from the families above it in
//! this list and from `crate::tuning` (the tuning constants), never from `crate::solve`:
//! - the ground: `budget` (node, time and cancel limits, [`budget::StopReason`]),
//!   `pause` (a running search parked and let go on), `outcome`, `stats`, `memory`
//!   (cache-line allocations: the engine's only `unsafe`);
//! - `dfs`: the [`dfs::game::Game`] trait, depth-first search with a transposition
//!   table and incremental transpositions (`dfs_it`), its path set and table, and the
//!   Gaps rules as a game;
//! - `visited`: exact sets of 128-bit keys that never forget (one thread, shared, and
//!   one thread's set that spills to a store the caller gives);
//! - `sampling`: iterative sampling (random probes);
//! - `hybrid`: breadth-first search with a probe per node;
//! - `assign`: the suit assignments of a `common` deal, each a `basic` game;
//! - `blocks`: block search, its box tables, on one thread or several;
//! - `exact`: the exhaustive search over Two-shuffle classes, with settled positions
//!   decided by depth-first searches, on one thread or several;
//! - `rounds`: every position of one round, unpruned, as the redeal points of a search
//!   with redeals (`solve::rounds` runs that search).

pub mod assign;
pub mod blocks;
pub mod budget;
pub mod dfs;
pub mod exact;
pub mod hybrid;
mod memory;
pub mod outcome;
pub mod pause;
pub mod rounds;
pub mod sampling;
pub mod stats;
pub mod visited;
