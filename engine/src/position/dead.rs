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
            crate::variant::Variant::Common => self.is_dead_common(),
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
        // Two words rather than a `u128`: a variable shift of a `u128` costs a branch
        // and several instructions on every test.
        let mut seen = [0u64; CARD_CODES / 64];
        seen[usize::from(code >> 6)] = 1 << (code & 63);
        let mut stack = [0u8; CARD_CODES];
        stack[0] = code;
        let mut len = 1;
        let mut column0_seen = false;
        macro_rules! visit {
            ($c:expr) => {{
                let c: u8 = $c;
                let word = &mut seen[usize::from(c >> 6)];
                if *word >> (c & 63) & 1 == 0 {
                    *word |= 1 << (c & 63);
                    stack[len] = c;
                    len += 1;
                }
            }};
        }
        while len > 0 {
            len -= 1;
            let c = stack[len];
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
                        visit!(target);
                    }
                } else {
                    let target = self.cells[cell(c as usize >> 4, 0) as usize];
                    if target & GAP != 0 {
                        return true;
                    }
                    visit!(target);
                }
            } else {
                visit!(c - 1);
                let pred = self.place[c as usize - 1];
                if col_of(pred) != self.top as usize {
                    let target = self.cells[pred as usize + 1];
                    if target & GAP != 0 {
                        return true;
                    }
                    visit!(target);
                }
            }
        }
        false
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
