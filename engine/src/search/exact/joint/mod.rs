//! The settled children of one board, searched together: one depth-first search for
//! every arrangement of column 0's Twos at once (`SettledReductions::joint`).
//!
//! A settled `common` position is a *board* (every cell but column 0) and an
//! *assignment* `π` (the suit of the Two in each row's column 0, a permutation). The
//! exact search reaches the settled children of a Two-shuffle class as one board under
//! every assignment (`suits!` of them), and each is its own `basic` game. Those games
//! have the same moves except the moves into a column-1 gap: under `π` the gap of row
//! `r` takes the Three of suit `π(r)` only. So this game's state is a board and a set
//! `mask` of assignments (a bit per permutation): a move into a column-1 gap is legal
//! when some assignment of `mask` allows it, and keeps only those; every other move
//! keeps `mask`. A state `(board, mask)` stands for the positions `(board, π)`, `π` in
//! `mask`.
//!
//! Invariants, and why a verdict from it is a verdict of each `(board, π)`:
//! - Every move from `(board, mask)` is, for each `π` of the mask it leads to, a legal
//!   move of the position `(board, π)`, and every legal move of a position `(board, π)`
//!   with `π` in `mask` is one of them (with `π` kept). So the states reachable from
//!   `(board0, mask0)` with `π` in their mask are exactly the positions reachable from
//!   `(board0, π)`, for each `π` of `mask0`, and the game is acyclic (each line is a
//!   line of one acyclic settled game).
//! - A state is won when its board is won under some assignment of its mask; that
//!   board is then terminal (every gap right of a King). A win found is a line of moves
//!   legal under the won assignment (which lies in the mask of every state on it), from
//!   `(board0, π)`.
//! - The position kept is the board under the representative `rep`, the lowest
//!   assignment of `mask` (column 0 is rewritten when `rep` leaves the mask), so the
//!   state is a function of `(board, mask)` and `Position`'s tests read a real position.
//!   The key is the board's Zobrist key (the position's key without column 0) XOR a
//!   128-bit mix of `mask`: equal states have equal keys, and two states that differ
//!   collide only as two random 128-bit keys do (the table's bound).
//! - Memory by board, not by state (`search::exact::joint::table`): a state searched to
//!   the end without a win adds its mask to its board's lost assignments
//!   ([`Game::remember_lost`]), and a state entered keeps only the assignments of its
//!   mask not known lost there ([`Game::recall`]), or is skipped when none is left.
//!   Each dropped assignment `π` is a lost position `(board, π)`, so the narrowed state
//!   is won exactly when the state was, and everything reachable from a dropped
//!   position is lost too (which keeps incremental transpositions sound, as for a
//!   table hit). A board reached under another mask, from another class or by column-1
//!   moves in another order, is searched only for the assignments new to it. The
//!   search runs without a transposition table: a state searched before has its whole
//!   mask known lost.
//! - Stubborn sets: a key move is taken only in a row on whose suit every assignment of
//!   the mask agrees. There it is `basic`'s key move under each of them (the row's Two
//!   and run never move; no other assignment of the mask can take the row's Three
//!   away, since each puts that suit in this row), it keeps the mask, and so do the
//!   moves the set adds (none enters column 1), so Valmari's conditions hold in this
//!   game as in each `basic` one (`position::stubborn`).
//! - Incremental transpositions: two moves commute here when they commute on the board
//!   and some assignment allows both (the masks they lead to meet); both orders then
//!   reach the same board and the same mask.

pub(crate) mod memo;
pub(crate) mod table;

use self::table::BoardTable;
use crate::card::{cell, col_of, row_of, Card};
use crate::moves::Move;
use crate::position::Position;
use crate::search::dfs::game::{Game, MoveSet};
use crate::search::dfs::gaps_game::gaps_commute;
use crate::zobrist::{self, Key};

/// Most rows (suits) this game handles: their permutations must fit in a `u32` mask.
pub(crate) const MAX_JOINT_SUITS: usize = 4;
const MAX_PERMS: usize = 24;
/// Most moves: one per gap, except that a column-1 gap takes a Three of each suit.
const MAX_JOINT_MOVES: usize = MAX_JOINT_SUITS * MAX_JOINT_SUITS;

/// The permutations of `suits` suits over as many rows, and what the game reads of
/// them. Built once per searcher.
#[derive(Clone, Copy)]
pub(crate) struct Assignments {
    suits: usize,
    count: usize,
    /// `suit_of[p][r]`: the suit of row `r` under permutation `p`.
    suit_of: [[u8; MAX_JOINT_SUITS]; MAX_PERMS],
    /// `row_suit[r][s]`: the permutations that give row `r` suit `s`.
    row_suit: [[u32; MAX_JOINT_SUITS]; MAX_JOINT_SUITS],
    /// The Zobrist terms of column 0 under each permutation.
    column0_key: [Key; MAX_PERMS],
    /// Permutation index by `sum(suit_r << 2r)`, `u8::MAX` if not a permutation.
    index: [u8; 256],
}

impl Assignments {
    /// The assignments of a layout with `suits` rows, if there are at most
    /// [`MAX_JOINT_SUITS`].
    pub fn new(suits: usize) -> Option<Assignments> {
        if suits == 0 || suits > MAX_JOINT_SUITS {
            return None;
        }
        let mut a = Assignments {
            suits,
            count: 0,
            suit_of: [[0; MAX_JOINT_SUITS]; MAX_PERMS],
            row_suit: [[0; MAX_JOINT_SUITS]; MAX_JOINT_SUITS],
            column0_key: [0; MAX_PERMS],
            index: [u8::MAX; 256],
        };
        // Every suits-digit number in base `suits` whose digits are distinct, in
        // increasing order: index 0 is the identity.
        let total = suits.pow(suits as u32);
        for n in 0..total {
            let mut digits = [0u8; MAX_JOINT_SUITS];
            let mut rest = n;
            for d in digits.iter_mut().take(suits) {
                *d = (rest % suits) as u8;
                rest /= suits;
            }
            let distinct = (0..suits).all(|i| (0..i).all(|j| digits[i] != digits[j]));
            if !distinct {
                continue;
            }
            let p = a.count;
            a.count += 1;
            a.suit_of[p] = digits;
            let mut code = 0;
            for (r, &s) in digits.iter().enumerate().take(suits) {
                a.row_suit[r][s as usize] |= 1 << p;
                a.column0_key[p] ^= zobrist::term(Card::new(s, 1), cell(r, 0));
                code |= usize::from(s) << (2 * r);
            }
            a.index[code] = p as u8;
        }
        Some(a)
    }

    /// How many assignments there are.
    #[cfg(test)]
    pub fn count(&self) -> usize {
        self.count
    }

    /// Every assignment.
    pub fn all(&self) -> u32 {
        ((1u64 << self.count) - 1) as u32
    }

    /// The assignment that gives each row `r` the suit `suit_of_row(r)`, `None` if
    /// those suits are not a permutation.
    #[inline(always)]
    fn find(&self, suit_of_row: impl Fn(usize) -> u8) -> Option<usize> {
        let code = (0..self.suits).fold(0, |code, r| code | usize::from(suit_of_row(r)) << (2 * r));
        let p = self.index[code];
        (p != u8::MAX).then_some(usize::from(p))
    }

    /// The assignment whose suits by row are those of the cards in column `col` of
    /// `pos` (a permutation of the suits).
    fn of_column(&self, pos: &Position, col: usize) -> usize {
        self.find(|r| pos.raw_cell(cell(r, col)) >> 4)
            .expect("the column holds one card of each suit")
    }

    /// The assignment of the settled position `pos` (column 0 all Twos).
    pub fn of(&self, pos: &Position) -> usize {
        self.of_column(pos, 0)
    }

    /// The assignment of the position that the settling move `m` makes from `parent`
    /// (column 0 all Twos but the gap `m.to`).
    pub fn after_settling(&self, parent: &Position, m: Move) -> usize {
        self.find(|r| {
            let c = cell(r, 0);
            if c == m.to {
                m.card.suit()
            } else {
                parent.raw_cell(c) >> 4
            }
        })
        .expect("a settling move completes column 0's Twos")
    }

    /// The board key of a settled position of assignment `p`: its key without column 0.
    pub fn board_key(&self, key: Key, p: usize) -> Key {
        key ^ self.column0_key[p]
    }

    /// The assignments under which the board of the settled `pos` is dead
    /// (`Position::dead_arrangements`: `is_dead_common` under each).
    pub fn dead(&self, pos: &Position) -> u32 {
        pos.dead_arrangements(&self.row_suit[..self.suits], self.all())
    }

    /// The suits by row of assignment `p`.
    pub fn suits_of(&self, p: usize) -> &[u8] {
        &self.suit_of[p][..self.suits]
    }
}

/// A 128-bit mix of an assignment mask, XORed into board keys.
#[inline(always)]
fn mask_hash(mask: u32) -> Key {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let m = u64::from(mask);
    (Key::from(mix(m ^ 0x5851_F42D_4C95_7F2D)) << 64) | Key::from(mix(m ^ 0x1405_7B7E_F767_814F))
}

/// A move of the joint game: the board move and the masks before and after it.
/// Equality is the board move's: the same move in a later state.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct JointMove {
    pub m: Move,
    before: u32,
    after: u32,
}

impl PartialEq for JointMove {
    fn eq(&self, other: &Self) -> bool {
        self.m == other.m
    }
}
impl Eq for JointMove {}

/// The moves of one state, inline.
#[derive(Clone, Copy, Default)]
pub(crate) struct JointMoves {
    len: u8,
    list: [JointMove; MAX_JOINT_MOVES],
}

impl AsRef<[JointMove]> for JointMoves {
    fn as_ref(&self) -> &[JointMove] {
        &self.list[..self.len as usize]
    }
}

impl MoveSet<JointMove> for JointMoves {}

impl JointMoves {
    #[inline(always)]
    fn push(&mut self, m: JointMove) {
        self.list[self.len as usize] = m;
        self.len += 1;
    }
}

/// The joint game (module invariants). Reused across searches: [`JointGame::reset`];
/// its table of lost boards is kept across them.
pub(crate) struct JointGame {
    pos: Position,
    mask: u32,
    rep: usize,
    assignments: Assignments,
    lost: BoardTable,
}

impl JointGame {
    /// A game over `assignments`, at `start` (settled) with the mask of its own
    /// assignment, remembering lost boards in `lost`.
    pub fn new(start: Position, assignments: Assignments, lost: BoardTable) -> JointGame {
        let rep = assignments.of(&start);
        JointGame {
            pos: start,
            mask: 1 << rep,
            rep,
            assignments,
            lost,
        }
    }

    /// The table of lost boards.
    pub fn lost_boards(&self) -> &BoardTable {
        &self.lost
    }

    /// Records that `board` is lost under the assignments of `lost` (found lost by
    /// another proof, such as the dead test).
    pub fn remember_lost_board(&mut self, board: Key, lost: u32) {
        self.lost.add_lost(board, lost);
    }

    /// Starts again at the board of the settled `start`, with the assignments of
    /// `mask` (not empty).
    pub fn reset(&mut self, start: &Position, mask: u32) {
        debug_assert!(mask != 0 && mask & !self.assignments.all() == 0);
        self.pos = *start;
        self.rep = self.assignments.of(start);
        self.mask = mask;
        self.set_rep(mask.trailing_zeros() as usize);
    }

    /// The assignment under which the board that `line` reaches from the settled
    /// `start` is won (the line a search of this game returned).
    pub fn won_assignment_after(&self, start: &Position, line: &[JointMove]) -> usize {
        let mut pos = *start;
        for j in line {
            pos.play(j.m);
        }
        self.assignments.of_column(&pos, 1)
    }

    /// Rewrites column 0 under assignment `p`.
    #[inline]
    fn set_rep(&mut self, p: usize) {
        if p != self.rep {
            self.rep = p;
            self.pos
                .rearrange_column0_twos(self.assignments.suits_of(p));
        }
    }

    /// The rows whose suit every assignment of the mask agrees on, as a bit mask.
    #[inline(always)]
    fn agreed_rows(&self) -> u32 {
        let mut rows = 0;
        let a = &self.assignments;
        for (r, &suit) in a.suits_of(self.rep).iter().enumerate() {
            let same = a.row_suit[r][suit as usize];
            rows |= u32::from(self.mask & !same == 0) << r;
        }
        rows
    }

    #[inline(always)]
    fn board(&self) -> Key {
        self.assignments.board_key(self.pos.key(), self.rep)
    }
}

impl Game for JointGame {
    type Move = JointMove;
    type Moves = JointMoves;
    const ACYCLIC: bool = true;

    #[inline(always)]
    fn key(&self) -> Key {
        self.board() ^ mask_hash(self.mask)
    }
    fn key_from_scratch(&self) -> Key {
        self.assignments.board_key(self.pos.compute_key(), self.rep) ^ mask_hash(self.mask)
    }
    #[inline(always)]
    fn is_won(&self) -> bool {
        let pos = &self.pos;
        let last = pos.layout().top_rank() as usize;
        if pos.gaps().iter().any(|&g| col_of(g) != last) {
            return false;
        }
        for r in 0..self.assignments.suits {
            let three = pos.raw_cell(cell(r, 1));
            // A Three (rank code 2) followed by its suit up to the King.
            if three & 0x8F != 2
                || (2..last).any(|c| pos.raw_cell(cell(r, c)) != three + c as u8 - 1)
            {
                return false;
            }
        }
        // Each row holds one suit's run, so column 1 holds one Three of each suit.
        self.mask >> self.assignments.of_column(pos, 1) & 1 == 1
    }
    #[inline(always)]
    fn generate(&self, out: &mut JointMoves) {
        out.len = 0;
        let pos = &self.pos;
        let a = &self.assignments;
        for (slot, &g) in pos.gaps().iter().enumerate() {
            debug_assert!(col_of(g) != 0, "a settled position has no column-0 gap");
            // The card of code `code` into this gap, leaving the assignments `after`.
            let mut push = |code: u8, after: u32| {
                out.push(JointMove {
                    m: Move {
                        card: Card::from_code(code),
                        from: pos.place_of(code),
                        to: g,
                        gap: slot as u8,
                    },
                    before: self.mask,
                    after,
                })
            };
            if col_of(g) == 1 {
                let row = row_of(g);
                for s in 0..a.suits {
                    let after = self.mask & a.row_suit[row][s];
                    if after != 0 {
                        push(Card::new(s as u8, 2).code(), after);
                    }
                }
            } else if let Some(code) = pos.successor_code(pos.raw_cell(g - 1)) {
                push(code, self.mask);
            }
        }
    }
    #[inline(always)]
    fn key_after(&self, m: JointMove) -> Key {
        self.board() ^ zobrist::move_delta(m.m.card, m.m.from, m.m.to) ^ mask_hash(m.after)
    }
    #[inline(always)]
    fn play(&mut self, m: JointMove) {
        self.pos.play(m.m);
        if m.after != m.before {
            self.mask = m.after;
            self.set_rep(m.after.trailing_zeros() as usize);
        }
    }
    #[inline(always)]
    fn unplay(&mut self, m: JointMove) {
        self.pos.unplay(m.m);
        // `recall` may have narrowed the mask further than the move did.
        if self.mask != m.before {
            self.mask = m.before;
            self.set_rep(m.before.trailing_zeros() as usize);
        }
    }
    /// Narrows the mask to the assignments not known lost on this board.
    #[inline(always)]
    fn recall(&mut self) -> bool {
        let rest = self.mask & !self.lost.lost(self.board());
        if rest == 0 {
            return false;
        }
        if rest != self.mask {
            self.mask = rest;
            self.set_rep(rest.trailing_zeros() as usize);
        }
        true
    }
    #[inline(always)]
    fn remember_lost(&mut self) {
        self.lost.add_lost(self.board(), self.mask);
    }
    #[inline(always)]
    fn prefetch_recall(&self, m: JointMove) {
        // Column 0 is not part of the board, so the board after `m` does not depend on
        // the representative the move may switch to.
        self.lost
            .prefetch(self.board() ^ zobrist::move_delta(m.m.card, m.m.from, m.m.to));
    }
    #[inline(always)]
    fn commute(a: JointMove, b: JointMove) -> bool {
        gaps_commute(a.m, b.m) & (a.after & b.after != 0)
    }
    #[inline(always)]
    fn stubborn(&self, moves: &JointMoves) -> Option<u64> {
        let list = moves.as_ref();
        let mut plain = [Move::default(); MAX_JOINT_MOVES];
        let agreed = self.agreed_rows();
        let mut seeds = 0u64;
        for (i, jm) in list.iter().enumerate() {
            plain[i] = jm.m;
            seeds |= u64::from(agreed >> row_of(jm.m.to) & 1) << i;
        }
        if seeds == 0 {
            return None;
        }
        self.pos
            .stubborn_moves::<true>(&plain[..list.len()], moves.legal(), seeds)
    }
}

#[cfg(test)]
mod tests;
