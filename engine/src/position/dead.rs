//! Dead positions: a card that can never move again, standing where no won position
//! has it, means the game cannot be won from here.
//!
//! The frozen set is a greatest fixpoint. A card `c` *may move* (is not frozen) if
//! 1. it can move now: the cell it would go to is a gap; or
//! 2. its predecessor `c - 1` may move (then a gap may open right of it elsewhere); or
//! 3. the card on the cell `c` would go to (right of `c - 1`) may move and leave a gap.
//!
//! For a Two the cell it would go to is column 0 of its own row (`basic`: the ace there
//! is fixed) or any column-0 cell (`common`); a card whose predecessor stands in the last
//! column has no such cell. The "may move" set is the least set closed under 1-3 (a
//! worklist from the cards movable now); every other card is *frozen*.
//!
//! Invariant (why no frozen card ever moves, so pruning dead positions keeps
//! `unsolvable` exact): suppose some sequence of moves moves a frozen card, and look at
//! the first such move, of card `c`. No frozen card moved before it. If `c` is a Two, its
//! target cells held frozen cards (else 1 or 3 would apply) which have not moved, so no
//! target is a gap. Otherwise `c - 1` is frozen (else 2), still on its cell `q`; the cell
//! `q + 1` exists (else `c` could never move) and held a frozen card (else 1 or 3) that
//! has not moved, or `c` itself, so it is not a gap. Either way `c` cannot move: a
//! contradiction. Frozen sets are closed under predecessors (by 2).
//!
//! A position is *dead* if a frozen card stands where no won position has it:
//! - `basic`: off its home cell (`code - 1`);
//! - `common`: a Two outside column 0, or another card not directly right of its
//!   predecessor (in a won `common` position every Two is in column 0 and every other
//!   card directly right of its predecessor, which is also frozen and stays put).
//!
//! No won position is reachable from a dead position: pruning it loses no win, so a
//! search that prunes dead positions and finds no win still proves `unsolvable`. It
//! does change the count of a complete (space-counting) search, which must not prune.

use super::{Position, GAP};
use crate::card::{cell, col_of, row_of, Card, CARD_CODES};

impl Position {
    /// The cards that can never move again, as a bit mask over card codes (see the
    /// module invariant); `COMMON` selects the column-0 rule.
    #[inline]
    pub fn frozen_cards<const COMMON: bool>(&self) -> u128 {
        let suits = self.layout.suits() as u8;
        let top = self.top;
        let mut may = MayMove::default();
        let twos_for = |may: &mut MayMove, row: usize| {
            if COMMON {
                (0..suits).for_each(|s| may.add(Card::new(s, 1).code()));
            } else {
                may.add(Card::new(row as u8, 1).code());
            }
        };
        // Rule 1: the cards movable now.
        for &g in self.gaps() {
            if col_of(g) == 0 {
                twos_for(&mut may, row_of(g));
            } else if let Some(card) = self.successor_for(g) {
                may.add(card.code());
            }
        }
        let mut next = 0;
        while next < may.len {
            let code = may.queue[next];
            next += 1;
            // Rule 2: the successor of a card that may move may move.
            if code & 15 != top {
                may.add(code + 1);
            }
            // Rule 3: the card that would fill this card's cell may move.
            let at = self.place[code as usize];
            if col_of(at) == 0 {
                twos_for(&mut may, row_of(at));
            } else {
                let left = self.cells[at as usize - 1];
                if left & GAP == 0 && left & 15 != top {
                    may.add(left + 1);
                }
            }
        }
        self.deck_mask() & !may.set
    }

    /// Bit mask over the codes of the cards on the board (all but the aces).
    fn deck_mask(&self) -> u128 {
        let ranks = ((1u128 << (self.top + 1)) - 1) & !1; // ranks 1..=top
        (0..self.layout.suits()).fold(0, |m, s| m | ranks << (16 * s))
    }

    /// Whether the position is dead under `variant`'s rules (see the module invariant).
    #[inline]
    pub fn is_dead_under(&self, variant: crate::variant::Variant) -> bool {
        match variant {
            crate::variant::Variant::Basic => self.is_dead_basic(),
            // `aisleriot` plays a subset of `common`'s moves: a position lost under
            // `common` is lost under it too.
            crate::variant::Variant::Common | crate::variant::Variant::Aisleriot => {
                self.is_dead_common()
            }
        }
    }

    /// Whether the position is dead under the `basic` rules (see the module invariant).
    #[inline]
    pub fn is_dead_basic(&self) -> bool {
        self.is_dead::<false>()
    }

    /// Whether the position is dead under the `common` rules (see the module invariant).
    #[inline]
    pub fn is_dead_common(&self) -> bool {
        self.is_dead::<true>()
    }

    /// [`Position::is_dead_basic`] of this position, reached by a move of `moved` from
    /// a position that is not dead under the `basic` rules (the tests compare the two).
    #[inline]
    pub fn is_dead_basic_after(&self, moved: Card) -> bool {
        self.is_dead_after::<false>(moved)
    }

    /// [`Position::is_dead_common`] of this position, reached by a move of `moved` from
    /// a position that is not dead under the `common` rules (the tests compare the two).
    #[inline]
    pub fn is_dead_common_after(&self, moved: Card) -> bool {
        self.is_dead_after::<true>(moved)
    }

    /// The dead test of a child of a position known not to be dead, usually one short
    /// search instead of one a row. Why it is exact: the move filled one gap, the cell
    /// `moved` went to, and opened one where it stood; in the "may move" rules above the
    /// opened gap only adds ways to a gap, and every card whose target was the filled
    /// cell now finds `moved` there instead (rule 3). A way through `moved` enters it
    /// from its successor (rule 2) or from a card whose target held it (now the opened
    /// gap). The cards whose placement in a won position can have changed are `moved`
    /// (now where it may go) and its successor (which may move if `moved` may). So:
    /// - if `moved` may still move, every card that may move in the parent still may,
    ///   and every frozen misplaced card here would have been one in the parent, which
    ///   is not dead;
    /// - unless `moved` is a `common` Two, the filled cell was the target of `moved`
    ///   alone (a cell right of a card, or in `basic` the column-0 cell of a Two's own
    ///   row), so only `moved` lost its way to a gap. If its successor may move (or it
    ///   has none), every card that may move in the parent, but `moved`, still may; and
    ///   `moved` is not misplaced: in `common` it stands right of its predecessor; in
    ///   `basic` it is a Two on its home cell, or it stands right of its predecessor,
    ///   which is frozen if `moved` is, so on its home cell (the parent is not dead).
    ///
    /// Otherwise the full test.
    #[inline]
    fn is_dead_after<const COMMON: bool>(&self, moved: Card) -> bool {
        let code = moved.code();
        if COMMON && moved.rank() == 1 {
            return !self.may_move::<COMMON>(code) && self.is_dead::<COMMON>();
        }
        if code & 15 == self.top {
            return false;
        }
        !self.may_move::<COMMON>(code + 1) && self.is_dead::<COMMON>()
    }

    /// The dead test without computing the whole frozen set. Each row has a *frontier*:
    /// the cell right of its run of placed cards (`basic`: cards on their home cells from
    /// column 0; `common`: a Two in column 0 and its successors). Some frozen card is
    /// misplaced iff some frontier holds a frozen card: take the lowest misplaced card of
    /// a frozen one's suit; its predecessors are placed and frozen, so its target cell
    /// (right of its predecessor, or column 0 for a Two: `common` then has a column-0
    /// cell that holds a frozen non-Two, as not every Two is in column 0) is a frontier,
    /// and that cell holds a frozen card (else it could move). Conversely a card on a
    /// frontier is misplaced. "May move" is reachability, along rules 2 and 3 backwards,
    /// from a card to one that can move now, so each frontier is one search.
    fn is_dead<const COMMON: bool>(&self) -> bool {
        let ranks = self.top as usize + 1;
        for row in 0..self.layout.suits() {
            let first = self.cells[cell(row, 0) as usize];
            let run_start = if COMMON {
                first
            } else {
                Card::new(row as u8, 1).code()
            };
            if run_start & GAP != 0 || run_start & 15 != 1 {
                if first & GAP == 0 && !self.may_move::<COMMON>(first) {
                    return true;
                }
                continue;
            }
            let mut col = 0;
            while col < ranks - 1 && self.cells[cell(row, col) as usize] == run_start + col as u8 {
                col += 1;
            }
            if col == ranks - 1 {
                continue;
            }
            let frontier = self.cells[cell(row, col) as usize];
            if frontier & GAP == 0 && !self.may_move::<COMMON>(frontier) {
                return true;
            }
        }
        false
    }

    /// Whether `code` may move (see the module invariant): a search from it along "its
    /// predecessor may move" and "the card on its target cell may move" for a card that
    /// can move now.
    fn may_move<const COMMON: bool>(&self, code: u8) -> bool {
        let suits = self.layout.suits();
        let mut search = Worklist::from(code);
        let mut column0_seen = false;
        while let Some(c) = search.pop() {
            if c & 15 == 1 {
                if COMMON {
                    // Every Two has the same targets: look at them once.
                    if column0_seen {
                        continue;
                    }
                    column0_seen = true;
                    for row in 0..suits {
                        let target = self.cells[cell(row, 0) as usize];
                        if target & GAP != 0 {
                            return true;
                        }
                        search.visit(target);
                    }
                } else {
                    let target = self.cells[cell(c as usize >> 4, 0) as usize];
                    if target & GAP != 0 {
                        return true;
                    }
                    search.visit(target);
                }
            } else if self.steps_from_above_two(c, &mut search) {
                return true;
            }
        }
        false
    }

    /// Rules 2 and 3 for the card `c`, not a Two: visits its predecessor and the card on
    /// its target cell (right of the predecessor, if that is not in the last column);
    /// true if that cell is a gap (`c` can move now).
    #[inline(always)]
    fn steps_from_above_two(&self, c: u8, search: &mut Worklist) -> bool {
        search.visit(c - 1);
        let pred = self.place[c as usize - 1];
        if col_of(pred) == self.top as usize {
            return false;
        }
        let target = self.cells[pred as usize + 1];
        if target & GAP != 0 {
            return true;
        }
        search.visit(target);
        false
    }

    /// The arrangements of column 0's Twos under which this settled `common` position
    /// (column 0 all Twos) is dead, as a mask: `row_suit[r][s]` is the mask of the
    /// arrangements that put the Two of suit `s` in row `r` (each arrangement puts one
    /// suit in each row; one entry a row), and `all` the mask of every arrangement.
    /// Equal to [`Position::is_dead_common`] of each arrangement (the tests compare
    /// them), for the cost of a few searches instead of one test per arrangement.
    ///
    /// Why: in a settled position every Two is in column 0 and frozen, and reaching a
    /// Two in the "may move" search leads only to the other Twos. The arrangement
    /// changes one kind of step: the target of the Three of suit `s` is column 1 of the
    /// row that holds the Two of `s`. So the search from a card, with the Threes'
    /// targets left out, tells whether it may move under every arrangement
    /// ([`Position::settled_reach`]), or else which Threes it reaches; a Three of `s`
    /// may move under the arrangements where the card in column 1 of `s`'s row is a
    /// gap or may move. That is a least fixpoint over the four Threes, computed as
    /// masks over the arrangements. Row `r`'s frontier (module `is_dead`) is its
    /// column-1 card unless that card is the Three of the suit the arrangement puts in
    /// row `r`; then it is the first cell after the run of that suit.
    pub(crate) fn dead_arrangements(&self, row_suit: &[[u32; 4]], all: u32) -> u32 {
        let rows = row_suit.len();
        debug_assert!(rows == self.layout.suits() && rows <= 4);
        debug_assert!(self.column0_all_twos(), "a settled position");
        let ranks = self.top as usize + 1;
        if ranks <= 2 {
            // Column 0 all Twos and every row complete at once: nothing is misplaced.
            return 0;
        }
        let column1: [u8; 4] = std::array::from_fn(|r| {
            if r < rows {
                self.cells[cell(r, 1) as usize]
            } else {
                GAP
            }
        });
        let reach: [(bool, u8); 4] = std::array::from_fn(|r| {
            if column1[r] & GAP == 0 {
                self.settled_reach(column1[r])
            } else {
                (true, 0)
            }
        });
        // The arrangements under which a card with `reach` may move, given `threes[s]`,
        // those under which the Three of suit `s` may.
        let may = |reach: (bool, u8), threes: &[u32; 4]| -> u32 {
            if reach.0 {
                return all;
            }
            (0..rows)
                .filter(|&s| reach.1 >> s & 1 != 0)
                .fold(0, |m, s| m | threes[s])
        };
        let mut threes = [0u32; 4];
        loop {
            let mut next = [0u32; 4];
            for r in 0..rows {
                // A gap in column 1 of row `r` counts as "may move" (`reach.0`).
                let column1_may = may(reach[r], &threes);
                for (s, three) in next.iter_mut().enumerate().take(rows) {
                    *three |= row_suit[r][s] & column1_may;
                }
            }
            if next == threes {
                break;
            }
            threes = next;
        }
        let mut dead = 0;
        for r in 0..rows {
            let y = column1[r];
            if y & GAP != 0 {
                continue;
            }
            // Arrangements under which the column-1 card is the frontier: all but
            // those that continue row `r`'s run with it.
            let mut misplaced = all;
            if y & 15 == 2 {
                let s = usize::from(y >> 4);
                misplaced &= !row_suit[r][s];
                let two = Card::new(s as u8, 1).code();
                let mut col = 2;
                while col < ranks - 1 && self.cells[cell(r, col) as usize] == two + col as u8 {
                    col += 1;
                }
                let frontier = self.cells[cell(r, col) as usize];
                if col < ranks - 1 && frontier & GAP == 0 {
                    let reach = self.settled_reach(frontier);
                    dead |= row_suit[r][s] & !may(reach, &threes);
                }
            }
            dead |= misplaced & !may(reach[r], &threes);
        }
        dead & all
    }

    /// The "may move" search of [`Position::may_move`] in a settled `common` position,
    /// from `code`, with the Threes' targets left out: whether a card that can move now
    /// was reached, and the suits (bits) of the Threes reached (Twos lead nowhere: their
    /// targets are column 0, all Twos).
    fn settled_reach(&self, code: u8) -> (bool, u8) {
        let mut search = Worklist::from(code);
        let mut threes = 0u8;
        while let Some(c) = search.pop() {
            match c & 15 {
                1 => {}
                2 => threes |= 1 << (c >> 4),
                _ => {
                    if self.steps_from_above_two(c, &mut search) {
                        return (true, threes);
                    }
                }
            }
        }
        (false, threes)
    }
}

/// The depth-first worklist of a "may move" search from one card: the cards seen (two
/// words rather than a `u128`: a variable shift of a `u128` costs a branch and several
/// instructions on every test) and those still to look at.
struct Worklist {
    seen: [u64; CARD_CODES / 64],
    stack: [u8; CARD_CODES],
    len: usize,
}

impl Worklist {
    #[inline(always)]
    fn from(code: u8) -> Worklist {
        let mut search = Worklist {
            seen: [0; CARD_CODES / 64],
            stack: [0; CARD_CODES],
            len: 0,
        };
        search.visit(code);
        search
    }

    /// Adds `c` to look at, unless it was seen before.
    #[inline(always)]
    fn visit(&mut self, c: u8) {
        let word = &mut self.seen[usize::from(c >> 6)];
        if *word >> (c & 63) & 1 == 0 {
            *word |= 1 << (c & 63);
            self.stack[self.len] = c;
            self.len += 1;
        }
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<u8> {
        self.len = self.len.checked_sub(1)?;
        Some(self.stack[self.len])
    }
}

/// The worklist of cards that may move: a set and the order they joined it.
struct MayMove {
    set: u128,
    queue: [u8; CARD_CODES],
    len: usize,
}

impl Default for MayMove {
    fn default() -> Self {
        MayMove {
            set: 0,
            queue: [0; CARD_CODES],
            len: 0,
        }
    }
}

impl MayMove {
    #[inline(always)]
    fn add(&mut self, code: u8) {
        if self.set >> code & 1 == 0 {
            self.set |= 1 << code;
            self.queue[self.len] = code;
            self.len += 1;
        }
    }
}
