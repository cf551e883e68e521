//! The Gaps kind of job: what a Gaps job searches, as the service keeps it
//! (`subject`: the rules, the start, the PySolFC game it was asked as and the search
//! that answered).
//!
//! Invariant: a Gaps job's subject is typed once, at the edge, and carried typed to
//! the store and back; the engine sees it only through its public API.

pub mod subject;
