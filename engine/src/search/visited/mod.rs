//! Exact sets of 128-bit position keys for the searches that keep every position they
//! enter (the exact search, breadth-first search): nothing is ever evicted, so a key
//! found present was inserted before (up to a coincidence of two 128-bit keys).
//!
//! - `shards`: how a set spreads over shards so that it can fill its budget;
//! - `key_set`: the set of one thread, growing one shard at a time;
//! - `shared_key_set`: the set that several threads insert into at once;
//! - `spill`: the set of one thread that goes on past its budget by moving its keys to
//!   a store the caller gives (a file), over a `key_set`.

pub mod key_set;
pub(crate) mod shards;
pub mod shared_key_set;
pub mod spill;
