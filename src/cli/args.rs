//! Search options shared by `solve`, `winrate` and `bench`, and their validation.
//!
//! Invariant: [`SearchArgs::options`] either returns options the engine accepts or an
//! [`InputError`](super::InputError) that says which option is wrong.

use super::input_error;
use clap::Args;
use gaps_engine::DEFAULT_TABLE_BYTES;
use gaps_engine::MAX_SEARCH_THREADS;
use gaps_engine::{Algorithm, DfsOptions, Layout, SolveOptions, Variant};
use std::time::Duration;

/// Largest transposition table a single solver may ask for (MiB).
pub const MAX_TABLE_MB: usize = 16 * 1024;

/// The size of numbered deals.
#[derive(Args, Debug, Clone)]
pub struct BoardArgs {
    /// Number of suits (rows), 1..=8.
    #[arg(long, default_value_t = 4)]
    pub suits: usize,
    /// Number of ranks (columns), 3..=13.
    #[arg(long, default_value_t = 13)]
    pub ranks: usize,
}

impl BoardArgs {
    /// The layout, validated.
    pub fn layout(&self) -> anyhow::Result<Layout> {
        Layout::new(self.suits, self.ranks).map_err(|e| input_error(e.to_string()))
    }
}

/// Search parameters.
#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    /// Rules: basic or common.
    #[arg(long, default_value = "basic")]
    pub variant: String,
    /// auto, dfs, sampling, hybrid, blocks, assign or exact.
    #[arg(long, default_value = "auto")]
    pub algorithm: String,
    /// Node limit per position (reaching it gives `unknown`).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Time limit per position in milliseconds (reaching it gives `unknown`).
    #[arg(long = "time-ms")]
    pub time_ms: Option<u64>,
    /// Transposition-table budget per solver, in MiB (default: 2 for basic, 64 for
    /// common; see docs/engine.md).
    #[arg(long = "table-mb")]
    pub table_mb: Option<usize>,
    /// Disable the transposition table (`exact`: store settled `common` positions in the
    /// visited set instead of deciding them by depth-first search with a table).
    #[arg(long = "no-table")]
    pub no_table: bool,
    /// Disable incremental transpositions (also in the depth-first searches of settled
    /// `common` positions inside `exact`).
    #[arg(long = "no-it")]
    pub no_it: bool,
    /// Search the whole space instead of stopping at the first win.
    #[arg(long)]
    pub complete: bool,
    /// Do not reduce: no stubborn sets (`basic`, and settled `common` positions), and in
    /// `exact` one key per position instead of one per Two-shuffle class. A slower
    /// search, to check a loss without these reductions.
    #[arg(long = "no-reduce")]
    pub no_reduce: bool,
    /// Prune dead positions (a card that can never move again stands off its place):
    /// fewer nodes, slower nodes (see docs/performance.md).
    #[arg(long = "prune-dead")]
    pub prune_dead: bool,
    /// Seed for randomised algorithms.
    #[arg(long = "search-seed", default_value_t = 0)]
    pub search_seed: u64,
    /// Random probes for sampling.
    #[arg(long)]
    pub probes: Option<u64>,
    /// Threads of each search: `--algorithm blocks`, `exact` and `hybrid`, and `auto` on
    /// `common` (see docs/engine.md).
    #[arg(long = "search-threads", default_value_t = 1)]
    pub search_threads: usize,
}

impl SearchArgs {
    /// The variant, validated.
    pub fn variant(&self) -> anyhow::Result<Variant> {
        self.variant
            .parse()
            .map_err(|e| input_error(format!("--variant: {e}")))
    }

    /// Engine options, validated; `variant` overrides `--variant` (JSON lines).
    pub fn options(&self, variant: Variant) -> anyhow::Result<SolveOptions> {
        let algorithm: Algorithm = self
            .algorithm
            .parse()
            .map_err(|e| input_error(format!("--algorithm: {e}")))?;
        if self.nodes == Some(0) {
            return Err(input_error("--nodes must be at least 1"));
        }
        if self.time_ms == Some(0) {
            return Err(input_error("--time-ms must be at least 1"));
        }
        if self.probes == Some(0) {
            return Err(input_error("--probes must be at least 1"));
        }
        if self
            .table_mb
            .is_some_and(|mb| !(1..=MAX_TABLE_MB).contains(&mb))
        {
            return Err(input_error(format!(
                "--table-mb must be between 1 and {MAX_TABLE_MB}"
            )));
        }
        if self.probes.is_some()
            && !matches!(
                gaps_engine::resolve_algorithm(algorithm, variant),
                Ok(Algorithm::Sampling | Algorithm::Auto)
            )
        {
            return Err(input_error(format!(
                "--probes applies to sampling, and to auto on common; not to {algorithm} on {variant}"
            )));
        }
        // The engine decides which variants an algorithm supports; the message names them.
        if gaps_engine::resolve_algorithm(algorithm, variant).is_err() {
            let supported: Vec<&str> = Variant::ALL
                .into_iter()
                .filter(|&v| gaps_engine::resolve_algorithm(algorithm, v).is_ok())
                .map(Variant::name)
                .collect();
            return Err(input_error(format!(
                "--algorithm {algorithm} works only with the {} variant",
                supported.join(" or ")
            )));
        }
        if self.search_threads == 0 || self.search_threads > MAX_SEARCH_THREADS {
            return Err(input_error(format!(
                "--search-threads must be between 1 and {MAX_SEARCH_THREADS}"
            )));
        }
        if self.search_threads > 1
            && !gaps_engine::resolve_algorithm(algorithm, variant)
                .is_ok_and(gaps_engine::runs_on_threads)
        {
            return Err(input_error(format!(
                "--search-threads above 1 applies to --algorithm blocks, exact and hybrid, and to auto on common, not to {algorithm} on {variant}"
            )));
        }
        Ok(SolveOptions {
            variant,
            algorithm,
            dfs: DfsOptions {
                table: !self.no_table,
                incremental: !self.no_it,
                complete: self.complete,
                reduce: !self.no_reduce,
                prune_dead: self.prune_dead,
            },
            max_nodes: self.nodes,
            time_limit: self.time_ms.map(Duration::from_millis),
            seed: self.search_seed,
            table_limit: self.table_mb.map(|mb| mb << 20),
            probes: self.probes,
            threads: self.search_threads,
        })
    }

    /// Transposition-table allocation in bytes (each solve may use less, see
    /// `SolveOptions::table_limit`).
    pub fn table_bytes(&self) -> usize {
        self.table_mb.map_or(DEFAULT_TABLE_BYTES, |mb| mb << 20)
    }
}
