//! A game in progress answered from the store without a search, by an earlier answer
//! about the same game after fewer of its steps (`played::answer_from_earlier`): a
//! player who follows the hint, or plays on after a loss, is answered at once.
//!
//! Invariants: only exact answers of the same deal, rules and redeals serve (the store's
//! `played_candidates`), and only answers about the rest of the game (not reviews); the
//! longest earlier prefix is tried first; a line served is the earlier line's rest,
//! replayed from the state the steps reached.

use crate::played::{answer_from_earlier, EarlierAnswer, PlayedAnswer};
use crate::service::store::{answered_by, Finish, JobRow, NewJob};

/// How `job` (a game in progress, not a review) ends when one of `rows` decides it.
pub(super) fn finish_from_earlier(job: &NewJob, rows: &[JobRow]) -> Option<Finish> {
    let played = job.played.as_ref()?;
    let mut rows: Vec<&JobRow> = rows
        .iter()
        .filter(|row| {
            row.spec
                .played
                .as_ref()
                .is_some_and(|p| p.0.len() < played.0.len() && played.0.starts_with(&p.0))
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    rows.sort_by_key(|row| std::cmp::Reverse(row.spec.played.as_ref().map_or(0, |p| p.0.len())));
    let (_, game) = super::plan::game_in_progress(job)?;
    rows.into_iter().find_map(|row| {
        let solution = row.solution.as_ref().map_or(&[][..], |s| &s.0[..]);
        let earlier = EarlierAnswer {
            played: &row.spec.played.as_ref()?.0,
            verdict: row.verdict.as_ref()?.0,
            solution,
            fewest_redeals: row
                .played_answer
                .as_ref()
                .is_some_and(|a| a.0.played.fewest_redeals),
        };
        let (verdict, rest, fields) = answer_from_earlier(&game, &played.0, &earlier)?;
        let played = PlayedAnswer {
            played: fields,
            review: None,
        };
        Some(answered_by(row, verdict, Some(rest), Some(played)))
    })
}
