//! The text form of an answer (`gaps solve` without `--json`), shared by the
//! engine's positions (`solve`) and the games played on their own boards (`board`).
//!
//! Invariant: it writes only what the answer's JSON holds (the same fields, in words),
//! so the two forms never disagree.

use crate::report::{SolveJson, StepJson};
use std::io::Write;

/// A step in words: `5H (1,2) -> (0,3)`, or `redeal 1`; cells are (row, column)
/// counted from 0, as in the JSON.
pub fn step_words(step: &StepJson) -> String {
    match step {
        StepJson::Move(m) => format!(
            "{} ({},{}) -> ({},{})",
            m.card, m.from[0], m.from[1], m.to[0], m.to[1]
        ),
        StepJson::Redeal { redeal } => format!("redeal {redeal}"),
    }
}

/// A step of a line as `gaps solve` numbers it (`  12. 5H (1,2) -> (0,3)`), moves
/// counted from 1.
pub fn numbered_step(number: usize, step: &StepJson) -> String {
    match step {
        StepJson::Move(_) => format!("{number:4}. {}", step_words(step)),
        StepJson::Redeal { .. } => format!("      {}", step_words(step)),
    }
}

/// The text form of an answer (`gaps solve` without `--json`). A game played on its
/// own board has its board as its position: it is written once.
pub fn print_text(out: &mut impl Write, json: &SolveJson) -> std::io::Result<()> {
    if let Some(pysol) = &json.pysol {
        writeln!(out, "pysol: {}:{}", pysol.game, pysol.number)?;
        writeln!(out, "board: {}", pysol.board)?;
    }
    if json.pysol.as_ref().is_none_or(|p| p.board != json.position) {
        writeln!(out, "position: {}", json.position)?;
    }
    writeln!(out, "variant: {}", json.variant)?;
    if let Some(played) = &json.played {
        writeln!(out, "played: {} steps", played.played_steps)?;
        let reached = played
            .played_board
            .as_ref()
            .unwrap_or(&played.played_position);
        writeln!(out, "played_position: {reached}")?;
        writeln!(out, "redeals_left: {}", played.redeals_left)?;
    }
    writeln!(out, "verdict: {}", json.verdict)?;
    if let Some(played) = &json.played {
        match played.board_hint.as_ref().or(played.hint.as_ref()) {
            Some(hint) => writeln!(out, "hint: {}", step_words(hint))?,
            None if json.verdict == "solvable" => writeln!(out, "hint: none, the game is won")?,
            None => writeln!(out, "hint: none, no winning line is known from here")?,
        }
    }
    if let Some(reason) = json.stopped {
        writeln!(out, "stopped: {reason}")?;
    }
    if json.verdict == "solvable" {
        // A Blue Moon game is shown as PySolFC shows it: its solution too (its own
        // suits, columns counted from the Aces' column 0); `--json` has both.
        let on_board = json.pysol.as_ref().and_then(|p| p.board_solution.as_ref());
        let moves = on_board.unwrap_or(&json.solution);
        let whose = if on_board.is_some() {
            " (on the board)"
        } else {
            ""
        };
        let count = moves
            .iter()
            .filter(|s| matches!(s, StepJson::Move(_)))
            .count();
        writeln!(out, "solution{whose}: {count} moves")?;
        let redealt = json.rounds.as_ref().map_or(&[][..], |r| &r.redealt[..]);
        let (mut number, mut redeals) = (0, 0);
        for step in moves {
            match step {
                StepJson::Move(_) => {
                    number += 1;
                    writeln!(out, "{}", numbered_step(number, step))?;
                }
                StepJson::Redeal { redeal } => {
                    // The line's own redeals, whatever their numbers (a game in progress
                    // numbers them on from the ones played).
                    let shown = &redealt[redeals];
                    redeals += 1;
                    let dealt = shown.board.as_ref().unwrap_or(&shown.position);
                    writeln!(
                        out,
                        "      redeal {redeal}: {} cards gathered, dealt {dealt}",
                        shown.gathered.len()
                    )?;
                }
            }
        }
    }
    if let Some(rounds) = &json.rounds {
        writeln!(
            out,
            "rounds: redeals={} used={} first_round={} redeal_points={} lost_rounds={}",
            rounds.redeals,
            rounds.used,
            rounds.first_round,
            rounds.redeal_points,
            rounds.lost_rounds
        )?;
    }
    let s = &json.stats;
    writeln!(
        out,
        "stats: algorithm={} nodes={} expanded={} blocks={} stored={} tt_hits={} it_cuts={} reduced={} dead_cuts={} path_cuts={} max_depth={} elapsed_ms={:.3} nodes/s={:.0} table_bytes={}",
        json.algorithm, s.nodes, s.expanded, s.blocks, s.stored, s.tt_hits, s.it_cuts, s.reduced, s.dead_cuts, s.path_cuts, s.max_depth, s.elapsed_ms, s.nodes_per_second, s.table_bytes
    )
}
