//! The background loops of a node, each running until shutdown beside the lanes:
//! `batch_filler` (a posted batch's jobs inserted in chunks, again at every start),
//! `deepen` (stored `unknown` verdicts searched again while the solver threads are
//! idle) and `maintenance` (expired leases taken back, the SQLite WAL kept bounded, old
//! jobs deleted, other nodes' announcements heard).
//!
//! Invariant: a loop does its CPU work on the runner's solver threads, never on the
//! async runtime, and every write of a loop goes through the store's short
//! transactions, so a loop stopped at any point leaves nothing half done.

pub mod batch_filler;
pub mod deepen;
pub mod maintenance;
