//! `gaps hints`: the latency of a verdict and a hint for games in progress, the
//! benchmark of docs/performance.md ("Games in progress"). Positions come from random play of
//! PySolFC games (a fixed seed: the same positions every run): game `1 + i % games`,
//! `i`'s number of random steps drawn in `0..=max_steps`, each step a legal move drawn
//! uniformly, or now and then a redeal while one is left; each position is answered
//! like `gaps solve --played` (the rest of the game, with the redeals left), one after
//! another, every search on the threads `--search-threads` gives it (a game played on
//! its own board: played on the board, its rest searched by the board search, on one
//! thread). With `--review`, games are played at random until stuck and reviewed
//! instead (a game on its own board after at most [`BOARD_REVIEW_STEPS`] steps).
//!
//! Invariants: a position's answer is timed from the steps' replay to the replayed
//! line, as a request would wait; `--out` keeps one line a position, appended as it
//! ends, and a run goes on from the positions its file holds.

use super::{input_error, SearchArgs};
use crate::played::{answer_game, GameInProgress, Rest};
use crate::report::StepJson;
use anyhow::Context;
use clap::Args;
use gaps_engine::{
    BoardDeal, DealSource, GameState, Move, MoveList, PlayedLine, PlayedStep, PysolDeal, PysolGame,
    SolveControls, Solver, SplitMix64, Verdict, MAX_MOVES,
};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The most random steps before a review of a game played on its own board.
const BOARD_REVIEW_STEPS: usize = 60;

#[derive(Args, Debug)]
pub struct HintsCmd {
    #[command(flatten)]
    search: SearchArgs,
    /// The PySolFC game (`montana`, `blue-moon`, ...; those played on their own boards,
    /// `galary`, ..., are played and answered on the board).
    #[arg(long, default_value = "montana")]
    game: String,
    /// Games 1..=N.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// Positions answered.
    #[arg(long, default_value_t = 10_000)]
    positions: u64,
    /// The most random steps before a position.
    #[arg(long, default_value_t = 60)]
    max_steps: u64,
    /// Seed of the random play.
    #[arg(long, default_value_t = 67)]
    play_seed: u64,
    /// Review games played at random until stuck, instead of answering positions.
    #[arg(long)]
    review: bool,
    /// Keep one CSV line a position here, and go on from the positions it holds.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

/// One answered position.
struct Answered {
    index: u64,
    game: u64,
    steps: usize,
    verdict: Verdict,
    ms: f64,
    /// A review: whether its fatal step (or that nothing was lost) was decided.
    decided: bool,
    /// Why the answer took its time: redeals left at the position, redeals in the
    /// answer's line, the round's own verdict and whether the count is proved the
    /// fewest (a solve; empty for a review).
    detail: String,
}

pub fn run(cmd: HintsCmd) -> anyhow::Result<()> {
    let game = PysolGame::named(&cmd.game).map_err(|e| input_error(format!("--game: {e}")))?;
    if cmd.games == 0 || cmd.positions == 0 {
        return Err(input_error("--games and --positions must be at least 1"));
    }
    let on_board = game.is_board_played();
    let options = if on_board {
        // Its positions are games in progress, which `exact` does not search.
        let (options, _) = super::board::board_options(
            &cmd.search,
            game,
            &format!("pysol game {game}"),
            crate::machine::default_search_memory_bytes(),
            None,
            true,
        )?;
        options
    } else {
        cmd.search.lone_options(game.variant())?
    };
    // A board game's search keeps its own memory: no table for it.
    let table_bytes = if on_board {
        0
    } else {
        cmd.search.table_bytes()
    };
    let mut solver = Solver::with_table_bytes(table_bytes);
    let mut done: HashMap<u64, Answered> = match &cmd.out {
        Some(path) => read_out(path)?,
        None => HashMap::new(),
    };
    let mut out = match &cmd.out {
        Some(path) => {
            let fresh = !path.exists();
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("opening {}", path.display()))?;
            if fresh {
                writeln!(
                    file,
                    "index,game,steps,verdict,ms,decided,redeals_left,line_redeals,first_round,fewest"
                )?;
            }
            Some(file)
        }
        None => None,
    };
    let began = Instant::now();
    for index in 0..cmd.positions {
        if done.contains_key(&index) {
            continue;
        }
        let number = 1 + index % cmd.games;
        let bad_number = |e: gaps_engine::PysolError| input_error(format!("--game: {e}"));
        // Each position its own stream of random steps: the same whatever ran before.
        let mut rng = SplitMix64::new(cmd.play_seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let steps = match (cmd.review, on_board) {
            (true, false) => usize::MAX,
            // A board game's moves can often be undone (a card one below its right
            // neighbour goes back where it came from): random play may never be stuck.
            // And its positions stay unknown more often, each unknown costing the
            // review a search: a short game keeps a review within minutes.
            (true, true) => BOARD_REVIEW_STEPS,
            (false, _) => rng.below(cmd.max_steps + 1) as usize,
        };
        let redeals = game.own_redeals();
        let (played, started, in_progress) = if on_board {
            let deal = BoardDeal::new(game, u128::from(number)).map_err(bad_number)?;
            let played = random_board_play(deal, steps, &mut rng);
            let started = Instant::now();
            let in_progress = GameInProgress::replay_board(deal, redeals, &played);
            (played, started, in_progress)
        } else {
            let deal = PysolDeal::new(game, u128::from(number)).map_err(bad_number)?;
            let source = DealSource::Pysol(deal);
            let played = random_play(source, game.variant(), redeals, steps, &mut rng);
            let started = Instant::now();
            let in_progress = GameInProgress::replay(source, game.variant(), redeals, &played);
            (played, started, in_progress)
        };
        let in_progress = in_progress.context("random play replays")?;
        let answer = answer_game(
            &in_progress,
            cmd.review,
            &mut solver,
            &options,
            SolveControls::default(),
        )?;
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let decided = match &answer.answer.review {
            Some(r) => r.fatal_step.is_some() || r.still_winnable || r.lost_from_start,
            None => answer.verdict != Verdict::Unknown,
        };
        let left = answer.answer.played.redeals_left;
        let fewest = answer.answer.played.fewest_redeals;
        let detail = match answer.rest.as_ref() {
            Some(Rest::Engine(rest)) => {
                let rounds = rest.report.rounds.as_ref();
                format!(
                    "{left},{},{},{fewest}",
                    rounds.map_or(0, |r| r.redeal_at.len()),
                    rounds.and_then(|r| r.first_round).map_or("", |v| v.name()),
                )
            }
            Some(Rest::Board(rest)) => format!(
                "{left},{},{},{fewest}",
                rest.report.rounds_used() - 1,
                rest.report.first_round.name(),
            ),
            None => ",,,".to_string(),
        };
        let answered = Answered {
            index,
            game: number,
            steps: played.len(),
            verdict: answer.verdict,
            ms,
            decided,
            detail,
        };
        if let Some(file) = out.as_mut() {
            writeln!(
                file,
                "{},{},{},{},{:.3},{},{}",
                answered.index,
                answered.game,
                answered.steps,
                answered.verdict.name(),
                answered.ms,
                answered.decided,
                answered.detail
            )?;
            file.flush()?;
        }
        done.insert(index, answered);
    }
    summarize(&cmd, &done, began.elapsed())
}

/// Random play of `steps` steps at most from `source`'s deal: a legal move drawn
/// uniformly, or (one time in 20, or when no move is left) a redeal while one is left;
/// it stops early when stuck or won.
fn random_play(
    source: DealSource,
    variant: gaps_engine::Variant,
    redeals: u8,
    steps: usize,
    rng: &mut SplitMix64,
) -> Vec<StepJson> {
    let start = gaps_engine::GameState::start(source.start(), source.redeals(redeals).as_ref());
    let mut state = start;
    let mut played = Vec::new();
    while played.len() < steps && !state.position.is_won(variant) {
        let mut list = MoveList::<MAX_MOVES>::default();
        state.position.legal_moves(variant, &mut list);
        let Some(step) = random_step(list.as_slice(), &state, rng) else {
            break;
        };
        let line = PlayedLine::replay(state, variant, None, &[step]).expect("a legal step");
        state = line.last().clone();
        played.push(step);
    }
    // The engine's own position is the board for the games played as a variant but
    // Blue Moon's shape; the steps are given on the board as a player gives them.
    let map = match source {
        DealSource::Pysol(deal) => Some(deal.board_map()),
        _ => None,
    };
    crate::played::canonical_steps(&played)
        .into_iter()
        .map(|step| match (step, &map) {
            (StepJson::Move(m), Some(map)) => StepJson::Move(crate::report::MoveJson {
                card: gaps_engine::parse_card(&m.card)
                    .flatten()
                    .map_or(m.card.clone(), |c| map.board_card(c).to_string()),
                from: [m.from[0], map.board_col(m.from[1])],
                to: [m.to[0], map.board_col(m.to[1])],
            }),
            (step, _) => step,
        })
        .collect()
}

/// The next step of random play from `state`, whose legal moves are `moves`: a redeal
/// (one time in 20, or when no move is left) while one is left, else a move drawn
/// uniformly; `None` when stuck.
fn random_step<P: Clone>(
    moves: &[Move],
    state: &GameState<P>,
    rng: &mut SplitMix64,
) -> Option<PlayedStep> {
    if state.redeals_left() > 0 && (moves.is_empty() || rng.below(20) == 0) {
        return Some(PlayedStep::Redeal {
            number: state.redeals_used + 1,
        });
    }
    if moves.is_empty() {
        return None;
    }
    let m = moves[rng.below(moves.len() as u64) as usize];
    Some(PlayedStep::Move {
        card: m.card,
        from: m.from_rc(),
        to: m.to_rc(),
    })
}

/// Random play on a board game's own board, as [`random_play`] plays the others: up to
/// `steps` steps from game `deal`'s deal, with its own redeals.
fn random_board_play(deal: BoardDeal, steps: usize, rng: &mut SplitMix64) -> Vec<StepJson> {
    let mut state = deal
        .game_state(deal.game.own_redeals())
        .expect("the game's own redeals");
    let mut played = Vec::new();
    while played.len() < steps && !state.position.is_won() {
        let mut list = MoveList::default();
        state.position.moves(&mut list);
        let Some(step) = random_step(list.as_slice(), &state, rng) else {
            break;
        };
        let line = PlayedLine::replay_board(state, &[step]).expect("a legal step");
        state = line.last().clone();
        played.push(step);
    }
    crate::played::canonical_steps(&played)
}

/// The lines an earlier run left in `path`.
fn read_out(path: &PathBuf) -> anyhow::Result<HashMap<u64, Answered>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(HashMap::new());
    };
    let mut done = HashMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let parsed = (|| -> Option<Answered> {
            Some(Answered {
                index: f.first()?.parse().ok()?,
                game: f.get(1)?.parse().ok()?,
                steps: f.get(2)?.parse().ok()?,
                verdict: f.get(3)?.parse().ok()?,
                ms: f.get(4)?.parse().ok()?,
                decided: f.get(5)?.parse().ok()?,
                detail: f.get(6..).map(|rest| rest.join(",")).unwrap_or_default(),
            })
        })();
        // A line cut by a stop is run again.
        if let Some(answered) = parsed {
            done.insert(answered.index, answered);
        }
    }
    Ok(done)
}

/// Prints the latency percentiles and the verdicts.
fn summarize(
    cmd: &HintsCmd,
    done: &HashMap<u64, Answered>,
    elapsed: Duration,
) -> anyhow::Result<()> {
    let mut ms: Vec<f64> = done.values().map(|a| a.ms).collect();
    ms.sort_by(f64::total_cmp);
    let n = ms.len();
    let at = |q: f64| ms[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
    let within = |limit: f64| ms.iter().filter(|&&t| t <= limit).count() as f64 / n as f64;
    let count = |v: Verdict| done.values().filter(|a| a.verdict == v).count();
    let decided = done.values().filter(|a| a.decided).count();
    let mean_steps = done.values().map(|a| a.steps).sum::<usize>() as f64 / n as f64;
    let games = done.values().map(|a| a.game).max().unwrap_or(0);
    let json = serde_json::json!({
        "game": cmd.game, "games": games, "positions": n, "review": cmd.review,
        "mean_steps": mean_steps,
        "solvable": count(Verdict::Solvable), "unsolvable": count(Verdict::Unsolvable),
        "unknown": count(Verdict::Unknown), "decided": decided,
        "p50_ms": at(0.50), "p95_ms": at(0.95), "p99_ms": at(0.99), "max_ms": ms[n - 1],
        "within_1s": within(1000.0), "within_5s": within(5000.0),
        "elapsed_ms": elapsed.as_secs_f64() * 1e3,
    });
    if cmd.json {
        outln!("{json}");
        return Ok(());
    }
    let what = if cmd.review { "reviews" } else { "positions" };
    outln!(
        "{n} {what} of {} games 1..{}: {} solvable, {} unsolvable, {} unknown; {} decided; {:.1} steps played on average",
        cmd.game, cmd.games, count(Verdict::Solvable), count(Verdict::Unsolvable),
        count(Verdict::Unknown), decided, mean_steps
    );
    outln!(
        "latency: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms; within 1 s {:.1}%, within 5 s {:.1}%",
        at(0.50), at(0.95), at(0.99), ms[n - 1], 100.0 * within(1000.0), 100.0 * within(5000.0)
    );
    Ok(())
}
