//! The engine's integration tests, through `gaps_engine` and its `internals` only: one
//! test binary with a module per concern, the shared helpers (`common`) compiled once.
//! Run one concern with `cargo test -p gaps-engine --test integration cross_check::`.
//! Where a new test goes: `docs/testing.md`.

mod common;

mod aisleriot;
mod blocks;
mod board_frozen;
mod board_played;
mod cross_check;
mod dead;
mod morpion;
mod notation_props;
mod odds;
mod played;
mod pysol_boards;
mod reachable;
mod redeals;
mod rules;
