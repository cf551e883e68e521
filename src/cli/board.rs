//! The PySolFC games played on their own boards (Galary, Free Parking, Jungle, Spaces
//! and Aces; docs/pysol.md): `gaps solve --pysol`, and each deal of `gaps winrate` and
//! `gaps winnable`, through the engine's board search (`solve_pysol_board`).
//!
//! Invariant: a report made here for the runs over many deals ([`board_report`]) holds
//! the line's moves on PySolFC's board, replayed there by the engine; it is only tallied
//! and written to `--out` files, never shown as a position's solution.

use super::caller::Caller;
use super::{input_error, refused, SearchArgs, Subject};
use crate::report::SolveJson;
use crate::request::board::BoardAsk;
use gaps_engine::{
    parse_game_number, solve_pysol_board, BoardReport, BoardSolveError, DfsOptions, PysolGame,
    RoundsReport, SolveOptions, SolveReport, SpillStore, Step,
};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The game and number `--pysol` names, if it is a game played on its own board.
pub fn board_game(pysol: Option<&str>) -> anyhow::Result<Option<(PysolGame, u128)>> {
    let Some(text) = pysol else {
        return Ok(None);
    };
    let (game, number) =
        parse_game_number(text).map_err(|e| refused(Subject::Game, format!("--pysol: {e}")))?;
    Ok(game.is_board_played().then_some((game, number)))
}

/// The options of a board search from the search arguments, and its redeals: the
/// game's rules (`crate::request::board`, the rules the API applies too: no variant,
/// `auto` or `exact`, one thread, no probes, at most the game's redeals, `exact` only
/// from the deal with none), then nodes, time and memory (`--table-mb`, else `available`
/// bytes). The flags that tune the variants' searches are refused: the board search
/// has none of them. `what` names the request in messages as the API does
/// (`pysol galary:3` for a game, `pysol game galary` for a run over its games).
pub fn board_options(
    search: &SearchArgs,
    game: PysolGame,
    what: &str,
    available: u64,
    redeals: Option<u8>,
    played: bool,
) -> anyhow::Result<(SolveOptions, u8)> {
    let ask = BoardAsk {
        variant: search.variant.as_deref(),
        algorithm: Some(search.algorithm.as_str()),
        probes: search.probes,
        threads: search.search_threads.map(|t| t as u64),
        redeals: redeals.map(u64::from),
        played,
    };
    let choice = ask
        .check(game, what)
        .map_err(|refusal| input_error(refusal.for_cli()))?;
    for (flag, given) in [
        ("--no-table", search.no_table),
        ("--no-it", search.no_it),
        ("--complete", search.complete),
        ("--no-reduce", search.no_reduce),
        ("--prune-dead", search.prune_dead),
    ] {
        if given {
            return Err(input_error(format!(
                "{flag}: {game} is searched by its board search, which this flag does not tune"
            )));
        }
    }
    let options = search.options_within(gaps_engine::Variant::Common, available)?;
    let memory = search
        .table_mb
        .map(|mb| mb << 20)
        .unwrap_or_else(|| usize::try_from(available).unwrap_or(usize::MAX));
    let options = SolveOptions {
        max_nodes: options.max_nodes,
        time_limit: options.time_limit,
        memory_limit: Some(memory),
        seed: options.seed,
        algorithm: choice.algorithm,
        ..SolveOptions::default()
    };
    Ok((options, choice.redeals.get()))
}

/// Solves game `number` of `game` with `redeals` (refusing more than the game's own),
/// spilling its exhaustive search to `spill` and stopped by `cancel`, if given.
pub fn solve_board(
    game: PysolGame,
    number: u128,
    redeals: u8,
    options: &SolveOptions,
    spill: Option<&Arc<dyn SpillStore>>,
    cancel: Option<&AtomicBool>,
) -> anyhow::Result<BoardReport> {
    let controls = gaps_engine::SolveControls {
        spill,
        cancel,
        ..Default::default()
    };
    solve_pysol_board(game, number, redeals, options, controls).map_err(|e| match e {
        BoardSolveError::InvalidLine(_) => anyhow::Error::new(e),
        other => input_error(other.to_string()),
    })
}

/// The answer of `gaps solve --pysol GAME:N` for a game played on its own board.
pub fn answer(
    search: &SearchArgs,
    game: PysolGame,
    number: u128,
    redeals: Option<u8>,
    caller: &Caller,
) -> anyhow::Result<SolveJson> {
    let (options, redeals) = board_options(
        search,
        game,
        &format!("pysol {game}:{number}"),
        crate::machine::default_search_memory_bytes(),
        redeals,
        false,
    )?;
    let store = super::args::spill_store(search.spill_dir.as_deref())?;
    let report = solve_board(
        game,
        number,
        redeals,
        &options,
        store.as_ref(),
        caller.cancel,
    )?;
    Ok(SolveJson::of_board(game, number, &report))
}

/// A board search's report in the form the runs over many deals tally and write
/// (see the module invariant): its search (`auto`, or `exact`), the rounds when it had
/// redeals.
pub fn board_report(report: &BoardReport) -> SolveReport {
    let mut solution = Vec::new();
    let mut redeal_at = Vec::new();
    for step in &report.steps {
        match *step {
            Step::Move(m) => solution.push(m),
            Step::Redeal => redeal_at.push(solution.len()),
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
    let what = format!("pysol game {game}");
    let (options, redeals) = board_options(search, game, &what, available, redeals, false)?;
    Ok((options, threads, redeals))
}
