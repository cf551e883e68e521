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
        let suits = self.layout.suits();
        let mut open: [Cell; MAX_SUITS] = [0; MAX_SUITS];
        let (mut cells, mut gaps) = (0, 0);
        for row in 0..suits {
            let at = cell(row, 0);
            let v = self.cells[at as usize];
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
        let mut key = self.key;
        let mut next = 0;
        for suit in 0..suits {
            let two = Card::new(suit as u8, 1);
            let at = self.place[two.code() as usize];
            if col_of(at) == 0 {
                key ^= zobrist::move_delta(two, at, open[next]);
                next += 1;
            }
        }
        Some(key)
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
            assert!(
                classes.values().any(|v| v.len() > 1),
                "{suits}x{ranks} {seed}"
            );
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
