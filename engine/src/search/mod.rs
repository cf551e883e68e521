//! Search algorithms and their shared parts (limits, statistics, tables).
//!
//! Invariant: nothing here does I/O, logs, or keeps global state; every table is owned
//! by the solver that created it.

pub mod assign;
pub mod blocks;
pub mod budget;
pub mod dfs;
pub mod exact;
pub(crate) mod exact_classes;
mod exact_joint;
mod exact_joint_memo;
mod exact_joint_table;
pub mod exact_parallel;
pub(crate) mod exact_settled;
pub(crate) mod exact_sharing;
pub(crate) mod exact_stack;
pub mod game;
pub mod gaps_game;
pub mod hybrid;
pub mod hybrid_probes;
pub mod key_set;
mod memory;
pub mod outcome;
pub mod path;
pub mod sampling;
mod shards;
pub mod shared_key_set;
pub mod stats;
pub mod table;
