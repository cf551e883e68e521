//! The search of a board played as it stands: each round by the best-first search
//! of `best_first.rs` (a search without redeals by one per order of its rule,
//! `portfolio.rs`), the redeals on top of it; and the engine's depth-first search
//! (`crate::search::dfs`, table and path set) as a second search of a first round.
//!
//! What of the engine's search holds here, and what is not used (docs/engine.md,
//! "PySolFC's games played on their own boards", says why):
//! - Used: a set of every position reached (keys), and in the depth-first search the
//!   transposition table (keys stored on entry) and the path set. Both searches are
//!   then reachability searches of a cyclic graph: a search that ends without a win
//!   has reached every reachable position, and `Lost` is exact.
//! - Not used: incremental transpositions, stubborn sets, the engine's dead positions,
//!   settled positions (none is declared: [`Game::SETTLES`] is false), since their
//!   proofs assume that a gap takes at most one card, the successor of its left
//!   neighbour. The best-first search's last round cuts the positions with a card
//!   frozen out of place (`frozen.rs`), whose proof holds for every rule here.
//!
//! Rounds: a redeal may be taken in any position reached (PySolFC allows it at any
//! time), so with `k` redeals left a round is lost only when its search is exhausted
//! and every redeal from every position of it is lost with `k - 1`. The redeal of each
//! position the round kept is computed, and the distinct results (the board and the
//! number of cards kept, which fixes the stream's state) are searched in turn, those
//! keeping most cards first. A round stopped by its entry cap still has its kept
//! positions' redeals tried (a win found so is a win), but can then end `Unknown` at
//! best. With redeals the whole search is made in passes, the first round's cap
//! growing from [`FIRST_CAP`] by [`CAP_GROWTH`] up to a third of the memory's
//! positions (a round, the next one and the candidates are kept at once): a game whose
//! first round is too large to search in its time still has its redeals tried, as a
//! player would, and the last pass is exact. Before the passes, restarts of the first
//! round alone (`restarts.rs`) run for [`FIRST_RESTARTS`] positions: a first round
//! won is a game won as played, and they win most first rounds within a second. Their
//! frozen-card cut is sound there (it cuts positions from which no line of the round
//! wins, and they look only for a win of the round); what they prove lost is left to
//! the passes.
//!
//! Invariant: every line returned replays from the start it was asked about.

use super::best_first::{Round, RoundEnd};
use super::exhaustive::DepthFirstRound;
use super::portfolio::{restarts_of_round, search_last_round};
use super::position::{BoardPosition, BOARD_MAX_MOVES};
use crate::moves::Step;
use crate::moves::{Move, MoveList};
use crate::redeal::RedealStream;
use crate::search::budget::{Budget, StopReason};
use crate::search::dfs::game::Game;
use crate::search::dfs::table::TranspositionTable;
use crate::search::dfs::{DepthFirst, DfsOptions};
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::search::visited::spill::SpillStore;
use crate::solve::Verdict;
use crate::tuning::CHECK_INTERVAL;
use crate::zobrist::Key;
use std::collections::HashSet;
use std::sync::Arc;

/// A board as a [`Game`] of the generic depth-first search.
pub struct BoardGame {
    /// The current position.
    pub position: BoardPosition,
}

impl Game for BoardGame {
    type Move = Move;
    type Moves = MoveList<BOARD_MAX_MOVES>;
    const ACYCLIC: bool = false;
    const SETTLES: bool = false;

    #[inline(always)]
    fn key(&self) -> Key {
        self.position.key()
    }
    fn key_from_scratch(&self) -> Key {
        self.position.compute_key()
    }
    #[inline(always)]
    fn is_won(&self) -> bool {
        self.position.is_won()
    }
    #[inline(always)]
    fn generate(&self, out: &mut Self::Moves) {
        self.position.moves(out);
        self.position.order_moves(out);
    }
    #[inline(always)]
    fn key_after(&self, m: Move) -> Key {
        self.position.key_after(m)
    }
    #[inline(always)]
    fn play(&mut self, m: Move) {
        self.position.play(m)
    }
    #[inline(always)]
    fn unplay(&mut self, m: Move) {
        self.position.unplay(m)
    }
    /// Never called (no position is settled); `false` is always sound.
    fn commute(_: Move, _: Move) -> bool {
        false
    }
}

/// How a board search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardOutcome {
    /// A winning line from the start (moves and redeals).
    Won(Vec<Step>),
    /// No line with the redeals allowed wins (exact).
    Lost,
    /// A limit stopped the search first.
    Unknown(StopReason),
}

impl BoardOutcome {
    /// The verdict this end gives.
    pub fn verdict(&self) -> Verdict {
        match self {
            BoardOutcome::Won(_) => Verdict::Solvable,
            BoardOutcome::Lost => Verdict::Unsolvable,
            BoardOutcome::Unknown(_) => Verdict::Unknown,
        }
    }
}

impl From<RoundEnd> for BoardOutcome {
    /// How a search of a round without redeals ended, as the outcome of the game.
    fn from(end: RoundEnd) -> BoardOutcome {
        match end {
            RoundEnd::Won(line) => BoardOutcome::Won(line.into_iter().map(Step::Move).collect()),
            RoundEnd::Exhausted => BoardOutcome::Lost,
            RoundEnd::Stopped(reason) => BoardOutcome::Unknown(reason),
        }
    }
}

/// Positions the restarts of a first round reach before a search with redeals goes on
/// to its passes (about 0.05 s: they win most first rounds within it, and a game the
/// passes win at once is delayed little).
const FIRST_RESTARTS: u64 = 1 << 16;

/// Positions a round keeps in the first pass of a search with redeals.
const FIRST_CAP: usize = 1 << 20;
/// How much the cap grows from one pass to the next (the passes before the last cost
/// at most a third of it).
const CAP_GROWTH: usize = 4;

/// A searcher of boards: owns its table and stack between searches.
pub struct BoardSearcher {
    dfs: DepthFirst<BoardGame>,
    table: TranspositionTable,
    /// Most positions a round's enumeration keeps (its memory bound).
    max_entries: usize,
    /// The memory the exhaustive search's set and stack may take.
    memory_bytes: usize,
    /// What the restarts of a round without redeals draw their tie-breaks from.
    seed: u64,
    /// Where the exhaustive search's set moves its keys when full (`None`: it stops).
    store: Option<Arc<dyn SpillStore>>,
}

/// About how many bytes one position kept by a round's search takes (its entry, its
/// key in the set, its place in the queue).
const BYTES_PER_ENTRY: usize = 112;

impl BoardSearcher {
    /// A searcher whose rounds keep at most about `bytes` of positions (the
    /// depth-first search's table gets as much; its pages are only touched when used).
    pub fn with_memory(bytes: usize) -> BoardSearcher {
        BoardSearcher {
            dfs: DepthFirst::default(),
            table: TranspositionTable::with_budget(bytes),
            max_entries: (bytes / BYTES_PER_ENTRY).max(1024),
            memory_bytes: bytes.max(1 << 16),
            seed: 0,
            store: None,
        }
    }

    /// The same searcher, its exhaustive search spilling a full set to `store`
    /// (`search::visited::spill`) instead of stopping.
    pub fn with_spill(self, store: Option<Arc<dyn SpillStore>>) -> BoardSearcher {
        BoardSearcher { store, ..self }
    }

    /// The same searcher, its restarts' tie-breaks drawn from `seed` (`restarts.rs`).
    pub fn with_seed(self, seed: u64) -> BoardSearcher {
        BoardSearcher { seed, ..self }
    }

    /// Searches `start` with `redeals` redeals drawn from `stream` (`None`: none).
    pub fn solve(
        &mut self,
        start: &BoardPosition,
        stream: Option<&RedealStream>,
        redeals: u8,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> BoardOutcome {
        self.solve_rounds(start, stream, redeals, budget, stats).0
    }

    /// [`BoardSearcher::solve`], also returning what the first round alone was found
    /// to be (`Unknown` when its search stopped before the end).
    pub fn solve_rounds(
        &mut self,
        start: &BoardPosition,
        stream: Option<&RedealStream>,
        redeals: u8,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> (BoardOutcome, Verdict) {
        let left = if stream.is_some() { redeals } else { 0 };
        if left == 0 {
            // A round without redeals: the searches of `portfolio.rs` share it.
            let end = search_last_round(start, self.max_entries, self.seed, budget, stats);
            let outcome = BoardOutcome::from(end);
            let verdict = outcome.verdict();
            return (outcome, verdict);
        }
        // Restarts of the first round first: a first round won is won as played (a
        // round they exhaust is searched again below, a small one).
        match restarts_of_round(
            start,
            FIRST_RESTARTS,
            self.max_entries,
            self.seed,
            budget,
            stats,
        ) {
            Some(RoundEnd::Won(line)) => {
                let line = line.into_iter().map(Step::Move).collect();
                return (BoardOutcome::Won(line), Verdict::Solvable);
            }
            Some(RoundEnd::Stopped(reason)) => {
                return (BoardOutcome::Unknown(reason), Verdict::Unknown)
            }
            Some(RoundEnd::Exhausted) | None => {}
        }
        // With redeals, the rounds are searched again with ever more positions kept
        // a round (see the module doc): a round too large for the cap still has its
        // redeals tried, and the last pass keeps as many as the memory allows.
        // A round, the next one (half as many) and the redeal candidates are kept at
        // once: the rounds get a third of the memory's positions.
        let most = (self.max_entries / 3).max(1024);
        let mut cap = FIRST_CAP.min(most);
        loop {
            let (outcome, first) = rounds(start, stream, left, cap, budget, stats);
            match outcome {
                BoardOutcome::Unknown(StopReason::MemoryLimit) if cap < most => {
                    cap = (cap * CAP_GROWTH).min(most);
                }
                _ => return (outcome, first),
            }
        }
    }

    /// A round without redeals by the exhaustive search (`exhaustive.rs`): a win, a
    /// loss proved by reaching every position of the round that can still win, or a
    /// stop (`MemoryLimit` when its set of keys is full).
    pub fn solve_exhaustively(
        &mut self,
        start: &BoardPosition,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> BoardOutcome {
        let end = match DepthFirstRound::start(start, self.memory_bytes, self.store.clone(), stats)
        {
            Err(end) => end,
            Ok(mut search) => loop {
                if let Some(end) = search.run(u64::MAX, budget, stats) {
                    stats.spilled += search.spilled_keys();
                    break end;
                }
            },
        };
        BoardOutcome::from(end)
    }

    /// The positions of the round from `start` (no redeal), each counted once, and how
    /// many of them are won; or the limit that stopped the count.
    pub fn count_round(
        &mut self,
        start: &BoardPosition,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> Result<(u64, u64), StopReason> {
        let before = (stats.nodes, stats.wins);
        let mut search =
            DepthFirstRound::counting(start, self.memory_bytes, self.store.clone(), stats);
        loop {
            let end = search.run(u64::MAX, budget, stats);
            if end.is_some() {
                stats.spilled += search.spilled_keys();
            }
            match end {
                None => {}
                Some(RoundEnd::Stopped(reason)) => return Err(reason),
                Some(_) => return Ok((stats.nodes - before.0, stats.wins - before.1)),
            }
        }
    }

    /// The first round alone by the engine's depth-first search (a second search,
    /// which the tests hold against the best-first one and the reference).
    pub fn solve_depth_first(
        &mut self,
        start: &BoardPosition,
        budget: &Budget,
        stats: &mut SearchStats,
    ) -> BoardOutcome {
        self.table.clear_with_limit(usize::MAX);
        let options = DfsOptions {
            table: true,
            incremental: false,
            complete: false,
            reduce: false,
            prune_dead: false,
        };
        let mut game = BoardGame { position: *start };
        match self
            .dfs
            .search(&mut game, Some(&mut self.table), options, budget, stats)
        {
            Outcome::Won(line) => BoardOutcome::Won(line.into_iter().map(Step::Move).collect()),
            Outcome::Exhausted => BoardOutcome::Lost,
            Outcome::NoWin(reason) | Outcome::Stopped(reason) => BoardOutcome::Unknown(reason),
        }
    }
}

/// `start` with `left` redeals from `stream`, keeping at most `cap` positions of its
/// round (see the module doc); also what its round alone was found to be.
fn rounds(
    start: &BoardPosition,
    stream: Option<&RedealStream>,
    left: u8,
    cap: usize,
    budget: &Budget,
    stats: &mut SearchStats,
) -> (BoardOutcome, Verdict) {
    let (round, end) = Round::search(start, cap, left == 0, budget, stats);
    let (exhausted, first) = match end {
        RoundEnd::Won(line) => {
            let line = line.into_iter().map(Step::Move).collect();
            return (BoardOutcome::Won(line), Verdict::Solvable);
        }
        RoundEnd::Exhausted => (true, Verdict::Unsolvable),
        // Only the entry cap leaves time to try redeals from the positions kept.
        RoundEnd::Stopped(StopReason::MemoryLimit) => (false, Verdict::Unknown),
        RoundEnd::Stopped(reason) => return (BoardOutcome::Unknown(reason), Verdict::Unknown),
    };
    let stream = match stream {
        Some(stream) if left > 0 => stream,
        _ if exhausted => return (BoardOutcome::Lost, first),
        _ => return (BoardOutcome::Unknown(StopReason::MemoryLimit), first),
    };
    // The distinct redeals: a board and the cards kept (which fix how far the stream
    // went), tried keeping most cards first.
    let mut seen: HashSet<(Key, usize)> = HashSet::new();
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    for at in 0..round.len() {
        let pos = round.position(at);
        let kept = pos.kept_cards();
        let mut next = stream.clone();
        if let Some(after) = pos.redeal(&mut next) {
            if seen.insert((after.key(), kept)) {
                candidates.push((kept, at));
            }
        }
        if at % CHECK_INTERVAL as usize == 0 {
            if let Some(reason) = budget.exhausted(stats.nodes) {
                return (BoardOutcome::Unknown(reason), first);
            }
        }
    }
    drop(seen);
    candidates.sort_by_key(|&(kept, at)| (std::cmp::Reverse(kept), at));
    let mut complete = exhausted;
    for (_, at) in candidates {
        // Dealt again rather than kept from the pass above: a candidate is two words,
        // its board 56 bytes packed, and most rounds end before their last candidate.
        let mut next = stream.clone();
        let after = round
            .position(at)
            .redeal(&mut next)
            .expect("a candidate redeals");
        // The round's positions stay kept meanwhile: the next round gets half as many.
        match rounds(
            &after,
            Some(&next),
            left - 1,
            (cap / 2).max(1024),
            budget,
            stats,
        )
        .0
        {
            BoardOutcome::Won(rest) => {
                let mut line: Vec<Step> = round.line_to(at).into_iter().map(Step::Move).collect();
                line.push(Step::Redeal);
                line.extend(rest);
                return (BoardOutcome::Won(line), first);
            }
            BoardOutcome::Lost => {}
            BoardOutcome::Unknown(StopReason::MemoryLimit) => complete = false,
            // A shared limit ends everything.
            BoardOutcome::Unknown(reason) => return (BoardOutcome::Unknown(reason), first),
        }
    }
    if complete {
        (BoardOutcome::Lost, first)
    } else {
        (BoardOutcome::Unknown(StopReason::MemoryLimit), first)
    }
}
