//! The review of a played game: the first step after which it could no longer be won.
//!
//! Whether the rest of a game can be won is monotone along the steps played: a state
//! from which the game can be won was reached through states from which it could be
//! won (the played steps lead from each to the next), and a lost state stays lost
//! whatever is played after it (every later state is reached from it). So the prefixes
//! are winnable up to some state `k` and lost from `k + 1` on, and step `k` is the fatal
//! one. The review is a binary search for `k`:
//! - the last state first (winnable: nothing was lost, one search), then the deal (lost:
//!   lost from the start, two searches);
//! - then the state nearest the middle of the interval between the last state known
//!   winnable and the first known lost, until they are neighbours: about `log2(n)`
//!   searches for `n` steps;
//! - a winning line that follows the played steps for `j` steps shows the `j` states
//!   after it winnable too, without a search (a player who follows the hints), and
//!   the state where the player left it is searched next (not twice in a row: at most
//!   one such search per halving): the step that left a winning line is the likeliest
//!   to have lost;
//! - an unknown answer says nothing: the next search takes the nearest state not asked
//!   yet, so unknowns cost one search each, and when every state between the bounds is
//!   unknown the review ends undecided, those states listed.
//!
//! Invariant: a fatal step is reported only between a state answered winnable (with
//! its line) and the next state answered lost, both by the caller's searches.

use std::collections::BTreeSet;

/// What a search said of a state: won with a line from it, lost, or not known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer<L> {
    /// Winnable; a winning line from the state.
    Won(L),
    /// Lost, proved.
    Lost,
    /// A limit came first.
    Unknown,
}

/// What a review found. States are numbered by the steps before them (`0` is the deal,
/// `k` the state after step `k - 1`), steps from 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Review<L> {
    /// The step after which the game could no longer be won: between a winnable and a
    /// lost state (`None`: not lost, lost from the deal, or not decided).
    pub fatal_step: Option<usize>,
    /// The deal itself was lost.
    pub lost_from_start: bool,
    /// A winning line from the state before the fatal step (or from the last state,
    /// when the game can still be won).
    pub winning_line: Option<L>,
    /// The last state known winnable (from an answer or a line that followed the steps).
    pub winnable_through: Option<usize>,
    /// The first state known lost.
    pub lost_from: Option<usize>,
    /// States asked about whose answer stayed unknown and that the bounds do not decide.
    pub unknown_states: Vec<usize>,
    /// Searches made.
    pub searches: usize,
}

/// Reviews a game of `steps` played steps: `ask(k)` searches state `k`; `follow(k,
/// line)` says for how many played steps from state `k` a winning `line` from it
/// follows them (at most `steps - k`), and the rest of the line after them.
pub fn review<L: Clone>(
    steps: usize,
    mut ask: impl FnMut(usize) -> Answer<L>,
    mut follow: impl FnMut(usize, &L) -> (usize, L),
) -> Review<L> {
    let mut known = Bounds {
        won: None,
        lost: None,
        unknown: BTreeSet::new(),
        asked: BTreeSet::new(),
        followed: false,
        suspected: false,
    };
    known.ask(steps, &mut ask, &mut follow);
    if known.low() != Some(steps) && steps > 0 {
        known.ask(0, &mut ask, &mut follow);
    }
    while known.low() != Some(steps) && known.lost != Some(0) {
        // The state nearest the middle between the bounds, not asked yet.
        let from = known.low().map_or(0, |w| w + 1);
        let to = known.lost.unwrap_or(steps + 1);
        // After a line that followed the played steps, the state where the player left
        // it is the first suspect; otherwise the middle.
        // (Never twice in a row, so the searches stay logarithmic.)
        let suspect = std::mem::take(&mut known.followed) && !known.suspected;
        known.suspected = suspect;
        let middle = if suspect { from } else { (from + to) / 2 };
        let next = (from..to)
            .filter(|s| !known.asked.contains(s))
            .min_by_key(|&s| s.abs_diff(middle));
        let Some(next) = next else {
            break;
        };
        known.ask(next, &mut ask, &mut follow);
    }
    known.finish(steps)
}

/// What the searches so far say.
struct Bounds<L> {
    /// The last state known winnable, with a winning line from it.
    won: Option<(usize, L)>,
    /// The first state known lost.
    lost: Option<usize>,
    /// States answered unknown.
    unknown: BTreeSet<usize>,
    /// States searched.
    asked: BTreeSet<usize>,
    /// Whether the last answer was a line that followed the played steps.
    followed: bool,
    /// Whether the last search was of such a suspect.
    suspected: bool,
}

impl<L: Clone> Bounds<L> {
    fn low(&self) -> Option<usize> {
        self.won.as_ref().map(|(w, _)| *w)
    }

    fn ask(
        &mut self,
        state: usize,
        ask: &mut impl FnMut(usize) -> Answer<L>,
        follow: &mut impl FnMut(usize, &L) -> (usize, L),
    ) {
        self.asked.insert(state);
        self.followed = false;
        match ask(state) {
            Answer::Won(line) => {
                let (followed, rest) = follow(state, &line);
                let reached = state + followed;
                self.followed = followed > 0;
                if self.low().is_none_or(|w| reached > w) {
                    self.won = Some((reached, rest));
                }
            }
            Answer::Lost => self.lost = Some(self.lost.map_or(state, |l| l.min(state))),
            Answer::Unknown => {
                self.unknown.insert(state);
            }
        }
    }

    fn finish(self, steps: usize) -> Review<L> {
        let low = self.low();
        let lost = self.lost;
        let fatal_step = match (low, lost) {
            (Some(w), Some(l)) if l == w + 1 => Some(w),
            _ => None,
        };
        let still_winnable = low == Some(steps);
        let between = |s: &&usize| low.is_none_or(|w| **s > w) && lost.is_none_or(|l| **s < l);
        Review {
            fatal_step,
            lost_from_start: lost == Some(0),
            winning_line: self
                .won
                .filter(|_| fatal_step.is_some() || still_winnable)
                .map(|(_, line)| line),
            winnable_through: low,
            lost_from: lost,
            unknown_states: self.unknown.iter().filter(between).copied().collect(),
            searches: self.asked.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A review of `truth` (per state: `Some(winnable)`, `None` unknown), with lines that
    /// follow the played steps for `follows` steps.
    fn run(truth: &[Option<bool>], follows: usize) -> Review<usize> {
        let steps = truth.len() - 1;
        review(
            steps,
            |s| match truth[s] {
                Some(true) => Answer::Won(s),
                Some(false) => Answer::Lost,
                None => Answer::Unknown,
            },
            |s, _| {
                // A winning line cannot pass a lost state.
                let winnable = (s..=steps).take_while(|&t| truth[t] != Some(false)).count();
                let j = follows.min(winnable - 1);
                (j, s + j)
            },
        )
    }

    #[test]
    fn finds_the_fatal_step_in_few_searches() {
        for steps in 1..70usize {
            for fatal in 0..steps {
                let truth: Vec<Option<bool>> = (0..=steps).map(|s| Some(s <= fatal)).collect();
                let r = run(&truth, 0);
                assert_eq!(r.fatal_step, Some(fatal), "{steps} {fatal}");
                assert_eq!(r.winning_line, Some(fatal));
                assert!(!r.lost_from_start);
                let bound = 2 + (usize::BITS - steps.leading_zeros()) as usize;
                assert!(r.searches <= bound, "{steps} {fatal}: {}", r.searches);
            }
        }
    }

    #[test]
    fn a_game_still_winnable_or_lost_from_the_deal() {
        let r = run(&[Some(true); 9], 0);
        assert_eq!(
            (r.fatal_step, r.searches, r.winning_line),
            (None, 1, Some(8))
        );
        let r = run(&[Some(false); 9], 0);
        assert!(r.lost_from_start);
        assert_eq!((r.fatal_step, r.searches), (None, 2));
        let r = run(&[Some(true)], 0);
        assert_eq!((r.fatal_step, r.searches), (None, 1));
    }

    #[test]
    fn lines_that_follow_the_steps_save_searches() {
        let mut truth = vec![Some(true); 31];
        truth.extend([Some(false); 10]);
        let r = run(&truth, 100);
        // The deal's line follows every step up to the loss: 3 searches at most.
        assert_eq!(r.fatal_step, Some(30));
        assert!(r.searches <= 3, "{}", r.searches);
    }

    #[test]
    fn unknowns_cost_a_search_each_and_may_leave_it_undecided() {
        // Winnable through 5, lost from 6; states 3..=8 unknown.
        let truth: Vec<Option<bool>> = (0..=12)
            .map(|s| {
                if (3..=8).contains(&s) {
                    None
                } else {
                    Some(s <= 5)
                }
            })
            .collect();
        let r = run(&truth, 0);
        assert_eq!(r.fatal_step, None);
        assert_eq!(r.winnable_through, Some(2));
        assert_eq!(r.lost_from, Some(9));
        assert_eq!(r.unknown_states, vec![3, 4, 5, 6, 7, 8]);
        assert_eq!(r.winning_line, None);
        // One unknown beside a decided pair changes nothing.
        let truth: Vec<Option<bool>> = (0..=12)
            .map(|s| if s == 2 { None } else { Some(s <= 5) })
            .collect();
        let r = run(&truth, 0);
        assert_eq!(r.fatal_step, Some(5));
        assert!(r.unknown_states.is_empty());
        // The last state unknown, nothing lost: undecided.
        let mut truth = vec![Some(true); 6];
        truth.push(None);
        let r = run(&truth, 0);
        assert_eq!((r.fatal_step, r.lost_from), (None, None));
        assert_eq!(r.unknown_states, vec![6]);
    }
}
