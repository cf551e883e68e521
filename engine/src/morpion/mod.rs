//! Morpion Solitaire (5T and 5D), the second game of Helmstetter and Cazenave's
//! incremental transpositions: its rules ([`board`]), its records ([`record`]) and
//! endgame proofs ([`endgame`]).
//!
//! Invariants: nothing here does I/O or keeps global state; the Gaps modules do not
//! depend on this one (it borrows only the budget, the check interval and SplitMix64).

pub mod board;
pub mod endgame;
pub mod record;

#[cfg(test)]
mod tests;
