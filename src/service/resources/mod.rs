//! What a node has and shares between its jobs: `solver_pool` (the solver threads,
//! each with its own engine solver), `memory` (the node's memory budget, drawn by each
//! search and given back when it ends) and `metrics` (the Prometheus registry).
//!
//! Invariant: each resource is bounded when the node starts (threads, megabytes) and
//! a job holds its share only while it runs.

pub mod memory;
pub mod metrics;
pub mod solver_pool;
