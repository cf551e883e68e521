//! The PySolFC games played on their own boards (Galary, Free Parking, Jungle, Spaces
//! and Aces; docs/pysol.md): `gaps solve --pysol`, and each deal of `gaps winrate` and
//! `gaps winnable`, through the engine's board search (`solve_pysol_board`).
//!
//! Invariant: a report made here for the runs over many deals ([`board_report`]) holds
//! the line's moves on PySolFC's board, replayed there by the engine; it is only tallied
//! and written to `--out` files, never shown as a position's solution.

use super::{input_error, SearchArgs};
use crate::report::SolveJson;
use gaps_engine::{
    parse_game_number, solve_pysol_board, Algorithm, BoardReport, BoardSolveError, BoardStep,
    DfsOptions, PysolGame, RoundsReport, SolveOptions, SolveReport, SpillStore,
};
use std::sync::Arc;

/// The game and number `--pysol` names, if it is a game played on its own board.
pub fn board_game(pysol: Option<&str>) -> anyhow::Result<Option<(PysolGame, u128)>> {
    let Some(text) = pysol else {
        return Ok(None);
    };
    let (game, number) =
        parse_game_number(text).map_err(|e| input_error(format!("--pysol: {e}")))?;
    Ok(game.is_board_played().then_some((game, number)))
}

/// The limits of a board search from the search arguments: nodes, time and memory
/// (`--table-mb`, else `available` bytes), and its search: `auto` (the board search) or
/// `exact` (the exhaustive search of a round without redeals; the engine refuses it
/// with redeals). The board search has no variant, so `--variant` is refused, and so
/// is any other `--algorithm`.
pub fn board_options(
    search: &SearchArgs,
    game: PysolGame,
    available: u64,
) -> anyhow::Result<SolveOptions> {
    if let Some(variant) = &search.variant {
        return Err(input_error(format!(
            "--variant {variant}: {game} is played on its own board (docs/pysol.md), under its own rule"
        )));
    }
    let algorithm = match search.algorithm.as_str() {
        "auto" => Algorithm::Auto,
        "exact" => Algorithm::Exact,
        other => {
            return Err(input_error(format!(
                "--algorithm {other}: {game} is searched by its board search (auto) or \
                 its exhaustive search of a round without redeals (exact)"
            )))
        }
    };
    let options = search.options_within(gaps_engine::Variant::Common, available)?;
    let memory = search
        .table_mb
        .map(|mb| mb << 20)
        .unwrap_or_else(|| usize::try_from(available).unwrap_or(usize::MAX));
    Ok(SolveOptions {
        max_nodes: options.max_nodes,
        time_limit: options.time_limit,
        memory_limit: Some(memory),
        seed: options.seed,
        algorithm,
        ..SolveOptions::default()
    })
}

/// Solves game `number` of `game` with `redeals` (refusing more than the game's own).
pub fn solve_board(
    game: PysolGame,
    number: u128,
    redeals: u8,
    options: &SolveOptions,
    spill: Option<&Arc<dyn SpillStore>>,
) -> anyhow::Result<BoardReport> {
    let controls = gaps_engine::SolveControls {
        spill,
        ..Default::default()
    };
    solve_pysol_board(game, number, redeals, options, controls).map_err(|e| match e {
        BoardSolveError::InvalidLine(_) => anyhow::Error::new(e),
        other => input_error(other.to_string()),
    })
}

/// `gaps solve --pysol GAME:N` for a game played on its own board.
pub fn run_solve(
    search: &SearchArgs,
    game: PysolGame,
    number: u128,
    redeals: Option<u8>,
    json: bool,
) -> anyhow::Result<()> {
    let options = board_options(search, game, crate::machine::default_search_memory_bytes())?;
    let redeals = redeals.unwrap_or(game.own_redeals());
    let store = crate::spill::FileStore::for_solver(search.spill_dir.as_deref())
        .map_err(|e| input_error(format!("--spill-dir: {e}")))?;
    let report = solve_board(game, number, redeals, &options, store.as_ref())?;
    let out = SolveJson::of_board(game, number, &report);
    if json {
        outln!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    super::text::print_text(&mut std::io::stdout().lock(), &out)?;
    Ok(())
}

/// A board search's report in the form the runs over many deals tally and write
/// (see the module invariant): its search (`auto`, or `exact`), the rounds when it had
/// redeals.
pub fn board_report(report: &BoardReport) -> SolveReport {
    let mut solution = Vec::new();
    let mut redeal_at = Vec::new();
    for step in &report.steps {
        match *step {
            BoardStep::Move(m) => solution.push(m),
            BoardStep::Redeal => redeal_at.push(solution.len()),
        }
    }
    SolveReport {
        verdict: report.verdict,
        solution,
        stats: report.stats,
        algorithm: report.algorithm,
        stopped: report.stopped,
        seed: report.seed,
        dfs: DfsOptions::default(),
        threads: 1,
        rounds: (report.redeals > 0).then(|| RoundsReport {
            redeals: report.redeals,
            redeal_at,
            first_round: Some(report.first_round),
            redeal_points: 0,
            lost_rounds: 0,
            redealt: Vec::new(),
        }),
    }
}

/// The options of each deal, the deals solved at once (one a core by default: the
/// board search runs on one thread) and the redeals, for a run over many deals of
/// `game` (`gaps winrate`, `gaps winnable`).
pub fn board_run(
    search: &SearchArgs,
    threads: Option<usize>,
    game: PysolGame,
    redeals: Option<u8>,
) -> anyhow::Result<(SolveOptions, usize, u8)> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = match threads {
        Some(0) => return Err(input_error("--threads must be at least 1")),
        Some(n) => n,
        None => cores,
    };
    let available = crate::machine::default_search_memory_bytes() / threads as u64;
    let options = board_options(search, game, available)?;
    let redeals = redeals.unwrap_or(game.own_redeals());
    if redeals > game.own_redeals() {
        return Err(input_error(format!(
            "--redeals {redeals}: {game} allows {} redeal(s)",
            game.own_redeals()
        )));
    }
    Ok((options, threads, redeals))
}
