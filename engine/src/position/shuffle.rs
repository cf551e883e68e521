//! Two-shuffle classes of `common` positions.
//!
//! While column 0 holds at least one gap and one Two, any Two of column 0 may move to
//! any column-0 gap (a legal `common` move that changes nothing outside column 0), so
//! the Twos can be put into every arrangement over column 0's gap-or-Two cells, and
//! back: those arrangements form one strongly connected class, and a search that
//! expands every member of a class once may store one key for the whole class.
//!
//! Invariant: [`Position::shuffle_class_key`] is the same for exactly the members of one
//! class (up to 128-bit key coincidences): it is the Zobrist key of the member whose
//! Twos stand in suit order down those cells, a real position of the class.

use super::{Position, GAP};
use crate::card::{cell, col_of, Card, Cell, MAX_SUITS};
use crate::moves::Move;
use crate::zobrist::{self, Key};

impl Position {
    /// The key of this position's Two-shuffle class (see the module doc), or `None` when
    /// column 0 holds no gap or no Two (a class of one).
    #[inline]
    pub(crate) fn shuffle_class_key(&self) -> Option<Key> {
        self.class_key_with(
            self.key,
            |at| self.cells[at as usize],
            |two| self.place[two.code() as usize],
        )
    }

    /// The class key of the position after the legal move `m`, without playing it:
    /// equal to `shuffle_class_key` of the child (the tests compare them). The exact
    /// searches use it to load the visited-set slot a child will be looked up under.
    #[inline]
    pub(crate) fn shuffle_class_key_after(&self, m: Move) -> Option<Key> {
        let content = |at: Cell| match at {
            _ if at == m.to => m.card.code(),
            _ if at == m.from => GAP,
            _ => self.cells[at as usize],
        };
        let place = |two: Card| {
            if two == m.card {
                m.to
            } else {
                self.place[two.code() as usize]
            }
        };
        self.class_key_with(self.key_after(m), content, place)
    }

    /// The class key of a position whose key is `key`, whose cells hold `content` and
    /// whose Twos stand at `place`, on this position's layout.
    #[inline(always)]
    fn class_key_with(
        &self,
        key: Key,
        content: impl Fn(Cell) -> u8,
        place: impl Fn(Card) -> Cell,
    ) -> Option<Key> {
        let suits = self.layout.suits();
        let mut open: [Cell; MAX_SUITS] = [0; MAX_SUITS];
        let (mut cells, mut gaps) = (0, 0);
        for row in 0..suits {
            let at = cell(row, 0);
            let v = content(at);
            let gap = v == GAP;
            if gap || v & 15 == 1 {
                open[cells] = at;
                cells += 1;
                gaps += usize::from(gap);
            }
        }
        if gaps == 0 || gaps == cells {
            return None;
        }
        let mut key = key;
        let mut next = 0;
        for suit in 0..suits {
            let two = Card::new(suit as u8, 1);
            let at = place(two);
            if col_of(at) == 0 {
                key ^= zobrist::move_delta(two, at, open[next]);
                next += 1;
            }
        }
        Some(key)
    }

    /// The moves of this position, a member of a Two-shuffle class, whose child is in a
    /// class that every member of this class reaches (the same class from each), given
    /// `column0_gaps`, the gaps of this position's column 0. They are the moves other
    /// than shuffle moves that fill no column-1 gap and leave column 0 a gap (and a
    /// Two):
    /// - a move to a gap in column 2 or beyond depends only on columns 1 and beyond,
    ///   where all members agree, so each member has it; the children agree outside
    ///   column 0, and their column-0 gap-or-Two cells and Twos are the same, so they are
    ///   arrangements of one class (a card leaving column 0 is not a Two: a Two only
    ///   moves into column 0);
    /// - a Two moved into a column-0 gap: every member has as many gaps, so each has
    ///   such a move; the children have the same gap-or-Two cells and Twos, one class
    ///   while a gap is left.
    ///
    /// A move to a column-1 gap places the successor of that row's column-0 card, which
    /// differs between members, and a child without a gap has no class: those children
    /// are each a position of their own.
    #[inline(always)]
    pub(crate) fn leads_to_a_shared_class(&self, m: Move, column0_gaps: usize) -> bool {
        let to = col_of(m.to);
        to >= 2 || (to == 0 && col_of(m.from) != 0 && column0_gaps > 1)
    }

    /// The gaps in column 0.
    #[inline(always)]
    pub(crate) fn column0_gaps(&self) -> usize {
        self.gaps().iter().filter(|&&g| col_of(g) == 0).count()
    }
}

/// Whether `m` moves a Two from a column-0 cell to a column-0 gap: a move within a
/// Two-shuffle class.
#[inline(always)]
pub(crate) fn is_shuffle_move(m: Move) -> bool {
    m.card.rank() == 1 && col_of(m.from) == 0 && col_of(m.to) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::deal;
    use crate::moves::MoveList;
    use crate::position::MAX_MOVES;
    use crate::variant::Variant;
    use std::collections::{HashMap, HashSet};

    /// Every position reachable from `start` (at most `cap`).
    fn space(start: &Position, cap: usize) -> Vec<Position> {
        let mut seen = HashSet::from([start.key()]);
        let mut todo = vec![*start];
        let mut all = Vec::new();
        let mut moves = MoveList::<MAX_MOVES>::default();
        while let Some(p) = todo.pop() {
            all.push(p);
            p.legal_moves(Variant::Common, &mut moves);
            for &m in moves.as_slice() {
                let mut c = p;
                c.play(m);
                if seen.len() < cap && seen.insert(c.key()) {
                    todo.push(c);
                }
            }
        }
        all
    }

    #[test]
    fn class_keys_name_exactly_the_shuffle_classes() {
        for (suits, ranks, seed) in [(3, 5, 1), (4, 4, 2), (4, 4, 5), (3, 6, 4)] {
            let start = deal(seed, Layout::new(suits, ranks).unwrap());
            let all = space(&start, 2_000_000);
            assert!(all.len() < 2_000_000, "the whole space");
            let by_key: HashMap<Key, &Position> = all.iter().map(|p| (p.key(), p)).collect();
            let mut classes: HashMap<Key, Vec<Key>> = HashMap::new();
            for p in &all {
                let Some(k) = p.shuffle_class_key() else {
                    continue;
                };
                classes.entry(k).or_default().push(p.key());
                // The class key is a member's key when that member was reached (it is
                // reachable whenever any member is).
                assert!(by_key.contains_key(&k), "{suits}x{ranks} {seed}");
                // Shuffle moves stay in the class; other moves leave it.
                let mut moves = MoveList::<MAX_MOVES>::default();
                p.legal_moves(Variant::Common, &mut moves);
                for &m in moves.as_slice() {
                    let mut c = *p;
                    c.play(m);
                    assert_eq!(c.shuffle_class_key() == Some(k), is_shuffle_move(m));
                }
            }
            // The class key after a move, computed without playing it, is the child's.
            for p in &all {
                let mut moves = MoveList::<MAX_MOVES>::default();
                p.legal_moves(Variant::Common, &mut moves);
                for &m in moves.as_slice() {
                    let mut c = *p;
                    c.play(m);
                    assert_eq!(p.shuffle_class_key_after(m), c.shuffle_class_key());
                }
            }
            assert!(
                classes.values().any(|v| v.len() > 1),
                "{suits}x{ranks} {seed}"
            );
            // A move that leads to a shared class leads to a class that every member
            // reaches by some move (so the frame that opened the class tries it).
            let child_classes = |p: &Position| -> HashSet<Option<Key>> {
                let mut moves = MoveList::<MAX_MOVES>::default();
                p.legal_moves(Variant::Common, &mut moves);
                moves
                    .as_slice()
                    .iter()
                    .map(|&m| p.shuffle_class_key_after(m))
                    .collect()
            };
            let mut shared = 0;
            for members in classes.values().filter(|v| v.len() > 1) {
                let reached: Vec<_> = members.iter().map(|k| child_classes(by_key[k])).collect();
                for k in members {
                    let p = by_key[k];
                    let mut moves = MoveList::<MAX_MOVES>::default();
                    p.legal_moves(Variant::Common, &mut moves);
                    let gaps = p.column0_gaps();
                    for &m in moves.as_slice() {
                        if !p.leads_to_a_shared_class(m, gaps) {
                            continue;
                        }
                        shared += 1;
                        let class = p.shuffle_class_key_after(m);
                        assert!(class.is_some(), "{suits}x{ranks} {seed}: {m:?}");
                        assert!(reached.iter().all(|r| r.contains(&class)), "{m:?}");
                    }
                }
            }
            assert!(shared > 0, "{suits}x{ranks} {seed}");
            // Moves of a suit's card to one row's column-1 gap lead, from every member of
            // a class that has one, into one class (the exact searches try such a move
            // from the first frame of the class that has it: `OpenClasses::claim`).
            let mut column1 = 0;
            for members in classes.values().filter(|v| v.len() > 1) {
                let mut child_class: HashMap<(usize, u8), Option<Key>> = HashMap::new();
                for k in members {
                    let p = by_key[k];
                    let mut moves = MoveList::<MAX_MOVES>::default();
                    p.legal_moves(Variant::Common, &mut moves);
                    for &m in moves.as_slice().iter().filter(|m| col_of(m.to) == 1) {
                        let class = p.shuffle_class_key_after(m);
                        assert!(class.is_some(), "{suits}x{ranks} {seed}: {m:?}");
                        let claim = (crate::card::row_of(m.to), m.card.suit());
                        let first = *child_class.entry(claim).or_insert(class);
                        column1 += 1;
                        assert_eq!(first, class, "{suits}x{ranks} {seed}: {m:?}");
                    }
                }
            }
            assert!(column1 > 0, "{suits}x{ranks} {seed}");
            // Members of a class differ only in column 0.
            for members in classes.values() {
                let first = by_key[&members[0]];
                for k in members {
                    let p = by_key[k];
                    for r in 0..suits {
                        for c in 1..ranks {
                            assert_eq!(p.at(r, c), first.at(r, c));
                        }
                    }
                }
            }
        }
    }
}
