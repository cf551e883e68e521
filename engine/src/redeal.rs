//! Redeals: PySolFC's Montana rule for gathering, shuffling and dealing again the cards
//! that are not in a row's run, and the generator stream each game shuffles them with.
//!
//! The rule (read in `shlomif/PySolFC`: `pysollib/games/montana.py`
//! `Montana_Talon.dealCards`, `pysollib/move.py` `AShuffleStackMove`;
//! docs/engine.md says more):
//! - A row's **run** is the longest prefix of its cells, from column 0, that holds a
//!   Two and then the next ranks of the Two's suit (`basic`: the Two of the row's own
//!   suit; so a `basic` run is the row's cards on their home cells). The last column
//!   never belongs to a run.
//! - Every cell after a run is **gathered**, rows top to bottom, left to right; the
//!   cards on them are put on the talon in that order (the last one on top).
//! - The talon is shuffled as PySolFC shuffles a stack: for `n` from its last index
//!   down to 1, swap cards `n` and `randint(0, n)` of the game's generator, continuing
//!   the stream that dealt the game (so a redeal consumes one draw per gathered card but
//!   one, and the next redeal goes on from there).
//! - Some gathered cells stay gaps, one per suit, where the game's rule
//!   ([`RedealGaps`], carried by the stream) puts them: the first gathered cell of each
//!   row (Montana and most games), the last cell of each row (Station), or cells drawn
//!   from the gathered ones by the generator's `choice`, after the shuffle, until that
//!   many differ (Spaces). Every other gathered cell, in the same order, takes the
//!   talon's top card.
//!
//! Where a redeal may be taken is the variant's ([`redeal_allowed_at`]): PySolFC lets
//! its player redeal at any position reached; GNOME Aisleriot (`games/gaps.scm`,
//! `redeal-needed?` and `collect-and-deal`) only when no move is left, and then
//! gathers, shuffles and deals back with a gap after each run as Montana does.
//!
//! Invariants: a redeal keeps every run and the layout's gaps count; it is a function
//! of the position and of the stream's state only; a won position cannot be redealt.

use crate::card::{Card, CELL_SLOTS, MAX_RANKS, MAX_SUITS};
use crate::deal::SplitMix64;
use crate::moves::MoveList;
use crate::position::{Position, MAX_MOVES};
use crate::pysol::{MsRandom, PysolDeal, PysolGame, PythonMt, RedealGaps, PYSOL_MT_FROM};
use crate::variant::Variant;

/// The redeals a solve may use: how many, and the stream that shuffles them.
#[derive(Clone, Debug)]
pub struct Redeals {
    /// Redeals allowed (PySolFC: 2).
    pub count: u8,
    /// The game's generator where its deal left it.
    pub stream: RedealStream,
}

/// The most redeals a request may ask for (PySolFC's Montana allows two).
pub const MAX_REDEALS: u8 = 2;

/// Why a number of redeals cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RedealsError {
    /// More than [`MAX_REDEALS`].
    #[error("at most {MAX_REDEALS} redeals (got {0})")]
    TooMany(u64),
    /// More redeals than the PySolFC game allows.
    #[error("{game} allows {allowed} redeal(s) (got {asked})", allowed = game.own_redeals())]
    AboveGame {
        /// Redeals asked for.
        asked: u64,
        /// The game.
        game: crate::pysol::PysolGame,
    },
    /// Redeals under `aisleriot`, which plays its first round only.
    #[error("aisleriot plays the first round only: Aisleriot's own redeals cannot be reproduced (got {0} redeal(s))")]
    Aisleriot(u64),
    /// Redeals for a deal whose generator is unknown (a position given as text).
    #[error("{0} redeal(s) need the deal's shuffle, and a position has none")]
    NoShuffle(u64),
}

/// How a game redeals: the generator that dealt it, continued, and where its redeals
/// leave the gaps. `Clone` is how a search tries several redeal points from one state.
#[derive(Clone, Debug)]
pub struct RedealStream {
    rng: Rng,
    gaps: RedealGaps,
    /// The gathered cards are put in card order before the shuffle (a sampled stream:
    /// its redeal is then a function of the runs alone, not of where the other cards
    /// lay; see [`RedealStream::sampled`]).
    sorted_talon: bool,
}

#[derive(Clone, Debug)]
enum Rng {
    /// PySolFC game numbers below 32000: the Microsoft generator.
    PysolMs(MsRandom),
    /// PySolFC game numbers from 32000: Python's Mersenne Twister (boxed: 2.5 KB).
    PysolMt(Box<PythonMt>),
    /// This project's numbered deals: SplitMix64 seeded with the deal number.
    Deal(SplitMix64),
}

impl RedealStream {
    /// The stream of PySolFC game `deal` after its deal: the game's generator, reset
    /// to the game number, advanced by the draws of the deal's shuffle (one for each
    /// card of the deck but one; no game's `_shuffleHook` draws), with the game's rule
    /// for the gaps.
    pub fn pysol(deal: PysolDeal) -> RedealStream {
        RedealStream::pysol_game(deal.game, deal.number)
    }

    /// [`RedealStream::pysol`] for any of the twelve games and a number PySolFC deals
    /// (the caller has checked it).
    pub(crate) fn pysol_game(game: PysolGame, number: u128) -> RedealStream {
        let rng = if number < PYSOL_MT_FROM {
            Rng::PysolMs(MsRandom::new(number as u32))
        } else {
            Rng::PysolMt(Box::new(PythonMt::new(number)))
        };
        let spec = game.spec();
        let mut stream = RedealStream {
            rng,
            gaps: spec.redeal_gaps,
            sorted_talon: false,
        };
        for n in (1..4 * spec.ranks.len()).rev() {
            stream.below(n + 1);
        }
        stream
    }

    /// The stream of this project's deal number `seed` of `cards` cards (aces included)
    /// after its deal: SplitMix64 seeded with `seed`, advanced by the deal's `cards - 1`
    /// draws (see `deal`); gaps after the runs, as in Montana.
    pub fn deal(seed: u64, cards: usize) -> RedealStream {
        let mut rng = SplitMix64::new(seed);
        for n in (1..cards).rev() {
            rng.below(n as u64 + 1);
        }
        RedealStream {
            rng: Rng::Deal(rng),
            gaps: RedealGaps::AfterRun,
            sorted_talon: false,
        }
    }

    /// One sequence of shuffles drawn at random, for a game whose shuffles are unknown
    /// (the odds): SplitMix64 seeded with `seed`, gaps after the runs (Montana's and
    /// Aisleriot's rule), and the gathered cards put in card order before each shuffle.
    /// A uniform shuffle deals every arrangement of the gathered cards equally often
    /// whatever their order on the talon, so sorting them changes no chance; it makes
    /// a redeal depend on the runs alone, so that a player who knew these shuffles in
    /// advance could not also pick a redeal by where the other cards lie (an upper
    /// bound of the odds stays that of the shuffles, not of the talon's order).
    pub fn sampled(seed: u64) -> RedealStream {
        RedealStream {
            rng: Rng::Deal(SplitMix64::new(seed)),
            gaps: RedealGaps::AfterRun,
            sorted_talon: true,
        }
    }

    /// A number in `0..n`, PySolFC's `randint(0, n - 1)` of the generator (so also
    /// `choice` of a list of `n`).
    pub fn below(&mut self, n: usize) -> usize {
        match &mut self.rng {
            Rng::PysolMs(rng) => rng.below(n),
            Rng::PysolMt(rng) => rng.below(n),
            Rng::Deal(rng) => rng.below(n as u64) as usize,
        }
    }

    /// The same generator, its redeals leaving the gaps by `gaps` (to play a PySolFC
    /// game's rule on this project's deals, as the tests do).
    pub fn with_gaps(self, gaps: RedealGaps) -> RedealStream {
        RedealStream { gaps, ..self }
    }

    /// Where this game's redeals leave the gaps.
    pub fn gaps(&self) -> RedealGaps {
        self.gaps
    }
}

/// How many cells of `row`, from column 0, form its run under `variant` (see the module
/// doc); never the whole row.
pub fn run_length(pos: &Position, variant: Variant, row: usize) -> usize {
    let ranks = pos.layout().ranks();
    let Some(first) = pos.at(row, 0) else {
        return 0;
    };
    let starts = first.rank() == 1 && (variant.any_two() || first.suit() as usize == row);
    if !starts {
        return 0;
    }
    let mut len = 1;
    while len < ranks - 1 && pos.at(row, len) == Some(Card::new(first.suit(), len as u8 + 1)) {
        len += 1;
    }
    len
}

/// How many cards a redeal of `pos` keeps in place: the sum of the runs.
pub fn kept_cards(pos: &Position, variant: Variant) -> usize {
    (0..pos.layout().suits())
        .map(|row| run_length(pos, variant, row))
        .sum()
}

/// Whether a redeal may be taken at `pos` under `variant`'s rule: anywhere but a won
/// position under `basic` and `common` (PySolFC's Montana); under `aisleriot` only when
/// no move is left. Aisleriot counts the gaps after a gap or a King outside column 0
/// and redeals when that is every gap, which is exactly "no move": a gap in column 0
/// always takes a Two (one is outside column 0 while a column-0 cell is empty, and
/// is not in a run), and a gap after any other card takes its successor, which is
/// never in a run (docs/notation.md, "Redeals whose shuffles are unknown").
pub fn redeal_allowed_at(pos: &Position, variant: Variant) -> bool {
    if pos.is_won(variant) {
        return false;
    }
    match variant {
        Variant::Basic | Variant::Common => true,
        Variant::Aisleriot => {
            let mut moves = MoveList::<MAX_MOVES>::default();
            pos.legal_moves(variant, &mut moves);
            moves.as_slice().is_empty()
        }
    }
}

/// What one redeal did, for a replay to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redealt {
    /// The position after the redeal.
    pub position: Position,
    /// The cards gathered, in the order they went on the talon (the last on top).
    pub gathered: Vec<Card>,
}

/// Redeals `pos` under `variant` with `stream` (advanced by the shuffle), or `None`
/// when nothing would be gathered (the game is won: PySolFC deals nothing then).
pub fn redeal(pos: &Position, variant: Variant, stream: &mut RedealStream) -> Option<Position> {
    let mut talon = [Card::default(); TALON];
    let (runs, count) = gather(pos, variant, stream, &mut talon);
    (count > 0).then(|| deal_again(pos, &runs, &mut talon[..count], stream))
}

/// [`redeal`], also returning the gathered cards.
pub fn redeal_shown(
    pos: &Position,
    variant: Variant,
    stream: &mut RedealStream,
) -> Option<Redealt> {
    let mut talon = [Card::default(); TALON];
    let (runs, count) = gather(pos, variant, stream, &mut talon);
    let gathered = talon[..count].to_vec();
    (count > 0).then(|| Redealt {
        position: deal_again(pos, &runs, &mut talon[..count], stream),
        gathered,
    })
}

/// The most cards a talon holds.
const TALON: usize = MAX_SUITS * MAX_RANKS;

/// Puts the cards after each run on `talon` in PySolFC's order (in card order for a
/// sampled stream); returns the runs and how many cards were gathered.
fn gather(
    pos: &Position,
    variant: Variant,
    stream: &RedealStream,
    talon: &mut [Card; TALON],
) -> ([usize; MAX_SUITS], usize) {
    let layout = pos.layout();
    let mut runs = [0usize; MAX_SUITS];
    let mut count = 0;
    for (row, run) in runs.iter_mut().enumerate().take(layout.suits()) {
        *run = run_length(pos, variant, row);
        for col in *run..layout.ranks() {
            if let Some(card) = pos.at(row, col) {
                talon[count] = card;
                count += 1;
            }
        }
    }
    if stream.sorted_talon {
        talon[..count].sort_unstable();
    }
    (runs, count)
}

/// Shuffles the gathered `talon` and deals it again after the `runs` of `pos`, leaving
/// the gaps where the stream's rule puts them.
fn deal_again(
    pos: &Position,
    runs: &[usize; MAX_SUITS],
    talon: &mut [Card],
    stream: &mut RedealStream,
) -> Position {
    let layout = pos.layout();
    let (suits, ranks) = (layout.suits(), layout.ranks());
    let mut cells = deal_gathered(&runs[..suits], ranks, talon, stream);
    for row in 0..suits {
        for col in 0..runs[row] {
            cells[row * ranks + col] = pos.at(row, col);
        }
    }
    Position::from_cells(layout, &cells[..suits * ranks])
        .expect("a redeal keeps the deck and the layout's gaps")
}

/// The part of a redeal every board shares: shuffles the gathered `talon` with
/// `stream` and deals it onto the cells after the `runs` (one a row; cell `(row, col)`
/// is entry `row * row_len + col`), leaving one gap a row where the stream's rule puts
/// them. The entries of the runs' own cells are `None`: the caller copies them.
pub(crate) fn deal_gathered(
    runs: &[usize],
    row_len: usize,
    talon: &mut [Card],
    stream: &mut RedealStream,
) -> [Option<Card>; CELL_SLOTS] {
    // `AShuffleStackMove`: n from the last index down to 1, swap n and randint(0, n).
    for n in (1..talon.len()).rev() {
        let j = stream.below(n + 1);
        talon.swap(n, j);
    }
    let suits = runs.len();
    // The gathered cells (`stacks`), rows top to bottom, left to right.
    let mut stacks = [0usize; CELL_SLOTS];
    let mut gathered = 0;
    for (row, &run) in runs.iter().enumerate() {
        for col in run..row_len {
            stacks[gathered] = row * row_len + col;
            gathered += 1;
        }
    }
    let stacks = &stacks[..gathered];
    let mut is_gap = [false; CELL_SLOTS];
    match stream.gaps() {
        RedealGaps::AfterRun => (0..suits).for_each(|row| is_gap[row * row_len + runs[row]] = true),
        RedealGaps::RowEnds => {
            (0..suits).for_each(|row| is_gap[row * row_len + row_len - 1] = true)
        }
        RedealGaps::Random => {
            // `Spaces_Talon.getRedealSpaces`: `choice(stacks)` until `suits` distinct.
            let mut chosen = 0;
            while chosen < suits {
                let cell = stacks[stream.below(stacks.len())];
                if !std::mem::replace(&mut is_gap[cell], true) {
                    chosen += 1;
                }
            }
        }
    }
    let mut cells = [None; CELL_SLOTS];
    let mut top = talon.len();
    for &cell in stacks.iter().filter(|&&cell| !is_gap[cell]) {
        top -= 1;
        cells[cell] = Some(talon[top]);
    }
    debug_assert_eq!(top, 0, "every gathered card is dealt again");
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::{deal, deal_cards};
    use crate::notation::parse_position;

    #[test]
    fn the_deal_stream_continues_the_deal() {
        // The stream after deal 9's shuffle is SplitMix64(9) after 51 draws.
        let layout = Layout::STANDARD;
        let mut stream = RedealStream::deal(9, layout.cells());
        let mut rng = SplitMix64::new(9);
        let mut deck: Vec<Card> = layout.deck().collect();
        for i in (1..deck.len()).rev() {
            deck.swap(i, rng.below(i as u64 + 1) as usize);
        }
        assert_eq!(deck, deal_cards(9, layout));
        assert_eq!(stream.below(1000), rng.below(1000) as usize);
    }

    #[test]
    fn runs_follow_the_variant() {
        let pos = parse_position("2H 3H 4H --/2S 3S -- 4S/2D -- 3D 4D").unwrap();
        let common: Vec<usize> = (0..3)
            .map(|r| run_length(&pos, Variant::Common, r))
            .collect();
        let basic: Vec<usize> = (0..3)
            .map(|r| run_length(&pos, Variant::Basic, r))
            .collect();
        // The last column never counts; `basic` row 0 is Spades, row 1 Hearts.
        assert_eq!(common, [3, 2, 1]);
        assert_eq!(basic, [0, 0, 1]);
    }

    #[test]
    fn a_redeal_keeps_the_runs_and_leaves_a_gap_after_each() {
        let layout = Layout::STANDARD;
        for seed in 0..200 {
            let start = deal(seed, layout);
            for variant in Variant::ALL {
                let mut stream = RedealStream::deal(seed, layout.cells());
                let after = redeal(&start, variant, &mut stream).unwrap();
                for row in 0..4 {
                    let run = run_length(&start, variant, row);
                    for col in 0..run {
                        assert_eq!(after.at(row, col), start.at(row, col));
                    }
                    assert_eq!(after.at(row, run), None, "deal {seed} row {row}");
                    assert!(run_length(&after, variant, row) >= run);
                }
            }
        }
    }

    #[test]
    fn a_won_game_is_not_redealt() {
        let layout = Layout::new(2, 4).unwrap();
        let won = parse_position("2S 3S 4S --/2H 3H 4H --").unwrap();
        let mut stream = RedealStream::deal(1, layout.cells());
        assert_eq!(redeal(&won, Variant::Basic, &mut stream), None);
        assert_eq!(redeal(&won, Variant::Common, &mut stream), None);
    }

    #[test]
    fn the_pysol_stream_is_the_games_generator_after_its_deal() {
        // Game 1 (Microsoft generator): its deal drew 51 times, then the stream goes on.
        let deal = PysolDeal::new(PysolGame::Montana, 1).unwrap();
        let mut stream = RedealStream::pysol(deal);
        let mut rng = MsRandom::new(1);
        for _ in 0..51 {
            rng.draw();
        }
        assert_eq!(stream.below(1 << 15), rng.draw() as usize);
    }
}
