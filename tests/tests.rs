//! The service's and the command line's integration tests, one test binary with a
//! module per concern (as ripgrep does): the shared helpers (`support`: the router on a
//! temporary store through `oneshot`; `process`: the real binary as a child process)
//! are compiled once, and the whole suite links once. Run one concern with
//! `cargo test --test integration api::` (a module's path is a prefix of its tests'
//! names). Where a new test goes: `docs/testing.md`.

mod process;
mod support;

mod api;
mod api_access;
mod api_algorithms;
mod api_bad_input;
mod api_batch_games;
mod api_board_played;
mod api_events;
mod api_fair;
mod api_idempotency;
mod api_morpion;
mod api_odds;
mod api_page;
mod api_played;
mod api_postgres;
mod api_pysol_boards;
mod api_pysol_lists;
mod api_redeals;
mod api_verdicts;
mod cli;
mod cli_board_played;
mod cli_morpion;
mod cli_odds;
mod cli_played;
mod cli_pysol;
mod cli_pysol_boards;
mod cli_redeals;
mod cli_spill;
mod cli_winrate;
mod deepen;
mod e2e;
mod e2e_nodes;
mod faults;
mod fuzz_corpus;
mod imports;
mod openapi;
mod pysol;
mod requests;
