//! Search options shared by `solve`, `winrate` and `bench`, and their validation.
//!
//! Invariant: [`SearchArgs::options`] either returns options the engine accepts or an
//! [`InputError`](super::InputError) that says which option is wrong.

use super::input_error;
use crate::machine::default_search_memory_bytes;
use crate::request::rounds;
use clap::Args;
use gaps_engine::DealSource;
use gaps_engine::{
    check_request, runs_on_threads, sized_memory, Algorithm, DfsOptions, Layout, Limit, PysolDeal,
    PysolGame, SolveOptions, Variant, MAX_SEARCH_THREADS,
};
use gaps_engine::{Solver, DEFAULT_TABLE_BYTES};
use std::time::Duration;

/// One of our deal numbers on the command line (`--deal`, `deal --seed`): decimal
/// digits, 0 to 2^63-1 as over HTTP (`request::deal_number`).
pub fn parse_our_deal_number(text: &str) -> Result<u64, String> {
    let number = text
        .parse::<u128>()
        .map_err(|_| format!("{text:?} is not a deal number (decimal digits)"))?;
    crate::request::deal_number(number)
}

/// The flag that sets `limit` in `solve`, `winrate` and `bench`.
pub fn flag(limit: Limit) -> String {
    match limit {
        Limit::Nodes => "--nodes",
        Limit::TimeMs => "--time-ms",
        Limit::TableMb => "--table-mb",
        Limit::Probes => "--probes",
        Limit::Threads => "--search-threads",
    }
    .to_string()
}

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

/// A `--variant` flag's value, if given, validated.
pub fn named_variant(flag: Option<&str>) -> anyhow::Result<Option<Variant>> {
    flag.map(|v| v.parse())
        .transpose()
        .map_err(|e| input_error(format!("--variant: {e}")))
}

/// The variant of PySolFC `game`'s first round (named `what` in the message, as
/// `pysol montana:5`): a `--variant` flag may only repeat it (`crate::request::rounds`).
pub fn pysol_variant(
    named: Option<Variant>,
    game: PysolGame,
    what: &str,
) -> anyhow::Result<Variant> {
    rounds::pysol_variant(game, &what, named).map_err(|refusal| input_error(refusal.for_cli()))
}

/// The redeals of a solve of `source` under `variant`: `flag` (`--redeals`) or the
/// source's default, by the rule the API applies too (`crate::request::rounds`).
pub fn redeal_count(flag: Option<u8>, source: &DealSource, variant: Variant) -> anyhow::Result<u8> {
    rounds::redeal_count(flag.map(u64::from), source, variant)
        .map(|count| count.get())
        .map_err(|refusal| input_error(refusal.for_cli()))
}

/// Search parameters.
#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    /// Rules: basic, common or aisleriot [default: basic; with `--pysol`, the game's].
    #[arg(long)]
    pub variant: Option<String>,
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
    /// `common` (see docs/engine.md). Default: every core for `solve`, and for `winrate`
    /// on a search that runs the exact search (one deal at a time); 1 otherwise.
    #[arg(long = "search-threads")]
    pub search_threads: Option<usize>,
    /// Directory for a scratch file where the exact search on one thread moves its
    /// visited set when the set fills its memory, and goes on (docs/engine.md, "A visited
    /// set on disk"); without it a full set stops at `memory_limit`.
    #[arg(long = "spill-dir", value_name = "DIR")]
    pub spill_dir: Option<std::path::PathBuf>,
}

impl SearchArgs {
    /// The variant, validated.
    pub fn variant(&self) -> anyhow::Result<Variant> {
        Ok(named_variant(self.variant.as_deref())?.unwrap_or(Variant::Basic))
    }

    /// The variant of a PySolFC game's first round: `--variant` may only repeat it.
    pub fn variant_of(&self, deal: PysolDeal) -> anyhow::Result<Variant> {
        self.variant_of_game(deal.game, &format!("pysol {deal}"))
    }

    /// [`SearchArgs::variant_of`] for `game`, named `what` in the message.
    pub fn variant_of_game(&self, game: PysolGame, what: &str) -> anyhow::Result<Variant> {
        pysol_variant(named_variant(self.variant.as_deref())?, game, what)
    }

    /// Engine options, validated; `variant` overrides `--variant` (JSON lines). Without
    /// `--table-mb`, an exact search (`exact`, `auto` on `common`) gets memory for its
    /// time limit out of the machine's default share (`machine`).
    pub fn options(&self, variant: Variant) -> anyhow::Result<SolveOptions> {
        self.options_within(variant, default_search_memory_bytes())
    }

    /// [`SearchArgs::options`] for a search that has the machine to itself (`solve`):
    /// without `--search-threads`, a search that runs on threads gets every core.
    pub fn lone_options(&self, variant: Variant) -> anyhow::Result<SolveOptions> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let default_threads = cores.min(MAX_SEARCH_THREADS);
        self.options_with(variant, default_search_memory_bytes(), default_threads)
    }

    /// [`SearchArgs::options`] with `available` bytes for a search that names no
    /// `--table-mb` (a share of the machine when several searches run at once).
    pub fn options_within(&self, variant: Variant, available: u64) -> anyhow::Result<SolveOptions> {
        self.options_with(variant, available, 1)
    }

    /// The options, a search that runs on threads getting `default_threads` unless
    /// `--search-threads` names a number.
    fn options_with(
        &self,
        variant: Variant,
        available: u64,
        default_threads: usize,
    ) -> anyhow::Result<SolveOptions> {
        let algorithm: Algorithm = self
            .algorithm
            .parse()
            .map_err(|e| input_error(format!("--algorithm: {e}")))?;
        let checked = |limit: Limit, value: Option<u64>| {
            value
                .map(|v| limit.check(v, None))
                .transpose()
                .map_err(|e| input_error(e.message(flag)))
        };
        checked(Limit::Nodes, self.nodes)?;
        checked(Limit::TimeMs, self.time_ms)?;
        checked(Limit::Probes, self.probes)?;
        checked(Limit::TableMb, self.table_mb.map(|mb| mb as u64))?;
        let threads = self.search_threads.unwrap_or_else(|| {
            match check_request(algorithm, variant, None, 1) {
                Ok(resolved) if runs_on_threads(resolved) => default_threads,
                _ => 1,
            }
        });
        checked(Limit::Threads, Some(threads as u64))?;
        check_request(algorithm, variant, self.probes, threads as u64)
            .map_err(|e| input_error(e.message(flag)))?;
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
            memory_limit: self.table_mb.map(|mb| mb << 20).or_else(|| {
                let available = usize::try_from(available).unwrap_or(usize::MAX);
                let time_limit = self.time_ms.map(Duration::from_millis);
                sized_memory(algorithm, variant, time_limit, threads, available)
            }),
            probes: self.probes,
            threads,
        })
    }

    /// Transposition-table allocation in bytes (each solve may use less, see
    /// `SolveOptions::memory_limit`).
    pub fn table_bytes(&self) -> usize {
        self.table_mb.map_or(DEFAULT_TABLE_BYTES, |mb| mb << 20)
    }

    /// A solver with [`SearchArgs::table_bytes`], spilling to a file in `--spill-dir`
    /// when one is named (a directory where no file can be made is refused).
    pub fn solver(&self) -> anyhow::Result<Solver> {
        let mut solver = Solver::with_table_bytes(self.table_bytes());
        solver.spill_to(spill_store(self.spill_dir.as_deref())?);
        Ok(solver)
    }
}

/// A spill file in `dir` (`--spill-dir`), or none without one; a directory where no
/// file can be made is bad input naming the flag.
pub fn spill_store(
    dir: Option<&std::path::Path>,
) -> anyhow::Result<Option<std::sync::Arc<dyn gaps_engine::SpillStore>>> {
    crate::spill::FileStore::for_solver(dir).map_err(|e| input_error(format!("--spill-dir: {e}")))
}
