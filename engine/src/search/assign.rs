//! Suit assignments for `common`: a win-finder that runs the `basic` engine.
//!
//! Choose which suit each row will end with (a permutation `row_suit`) and let a Two
//! into a column-0 gap only in the row of its suit. That game is a restriction of
//! `common` (each of its moves is a `common` move, and its goal is a `common` goal),
//! and after renaming suit `row_suit[r]` to suit `r` it is exactly the `basic` game
//! (row `r` takes the Two of suit `r` in column 0, as if its ace stood left of it).
//! So the `basic` depth-first search, with its stubborn sets and incremental
//! transpositions, searches each assignment in a few milliseconds, and a win it finds,
//! renamed back, is a win of the `common` position.
//!
//! Invariants:
//! - Renaming is a bijection on cards that keeps ranks, so successors stay successors
//!   and the cells of every move are unchanged; [`Assignment::card_back`] undoes it.
//! - Only wins are concluded. A loss under every assignment proves nothing: `common`
//!   may park a Two in another row's column 0 for a while, which no assignment allows.
//! - [`assignments`] lists every permutation exactly once.

use crate::card::{Card, MAX_SUITS};
use crate::moves::Move;
use crate::position::Position;
pub use crate::tuning::AssignmentCaps;
use crate::variant::Variant;

/// A suit for every row: row `r` is to hold suit `row_suit[r]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Assignment {
    row_suit: [u8; MAX_SUITS],
    suits: u8,
}

impl Assignment {
    /// The position with suit `row_suit[r]` renamed to suit `r`, as a `basic` position.
    pub fn rename(&self, pos: &Position) -> Position {
        let mut row_of_suit = [0u8; MAX_SUITS];
        for (row, &suit) in self.row_suit[..self.suits as usize].iter().enumerate() {
            row_of_suit[suit as usize] = row as u8;
        }
        let cells: Vec<Option<Card>> = pos
            .to_cells()
            .into_iter()
            .map(|c| c.map(|card| Card::new(row_of_suit[card.suit() as usize], card.rank())))
            .collect();
        Position::from_cells(pos.layout(), &cells)
            .expect("renaming suits keeps a position legal: same cells, same ranks")
    }

    /// The card of the original position that `card` of the renamed one stands for.
    pub fn card_back(&self, card: Card) -> Card {
        Card::new(self.row_suit[card.suit() as usize], card.rank())
    }

    /// The `common` moves from `start` that a line of `basic` moves from the renamed
    /// position stands for: same cells, suits renamed back, each move taken from the
    /// `common` move list as it is replayed (so its gap slot is `start`'s). A move that
    /// is not legal there (impossible for a line of the renamed game) ends the line
    /// as it is, for the caller's replay check to reject.
    pub fn line_back(&self, start: &Position, line: &[Move]) -> Vec<Move> {
        let mut pos = *start;
        let mut back = Vec::with_capacity(line.len());
        for &m in line {
            let card = self.card_back(m.card);
            match pos.find_legal(Variant::Common, card, m.from, m.to) {
                Some(legal) => {
                    pos.play(legal);
                    back.push(legal);
                }
                None => {
                    back.push(Move { card, ..m });
                    break;
                }
            }
        }
        back
    }
}

/// Every assignment of the position's suits to its rows, the likeliest first: those
/// agreeing with more of the Twos already standing in column 0 (a Two there fixes its
/// row's suit unless it moves again), then in lexicographic order.
pub fn assignments(pos: &Position) -> Vec<Assignment> {
    let suits = pos.layout().suits();
    let mut all = Vec::new();
    let mut row_suit: Vec<u8> = (0..suits as u8).collect();
    loop {
        let mut a = Assignment {
            row_suit: [0; MAX_SUITS],
            suits: suits as u8,
        };
        a.row_suit[..suits].copy_from_slice(&row_suit);
        all.push(a);
        if !next_permutation(&mut row_suit) {
            break;
        }
    }
    let agreeing = |a: &Assignment| {
        (0..suits)
            .filter(|&row| {
                pos.at(row, 0)
                    .is_some_and(|c| c.rank() == 1 && c.suit() == a.row_suit[row])
            })
            .count()
    };
    all.sort_by_key(|a| std::cmp::Reverse(agreeing(a)));
    all
}

/// Steps `v` to the next permutation in lexicographic order; false after the last.
fn next_permutation(v: &mut [u8]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        return false;
    };
    let j = (i..v.len())
        .rev()
        .find(|&j| v[j] > v[i - 1])
        .expect("v[i] itself is larger");
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::deal;

    #[test]
    fn every_permutation_once() {
        for suits in 1..=6 {
            let layout = Layout::new(suits, 5).unwrap();
            let all = assignments(&deal(suits as u64, layout));
            let mut seen: Vec<Vec<u8>> = all.iter().map(|a| a.row_suit[..suits].to_vec()).collect();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), (1..=suits).product::<usize>());
            assert_eq!(all.len(), seen.len());
        }
    }

    #[test]
    fn renaming_back_restores_every_card() {
        let layout = Layout::new(4, 7).unwrap();
        let pos = deal(3, layout);
        for a in assignments(&pos) {
            let renamed = a.rename(&pos);
            for row in 0..4 {
                for col in 0..7 {
                    assert_eq!(
                        renamed.at(row, col).map(|c| a.card_back(c)),
                        pos.at(row, col)
                    );
                }
            }
        }
    }
}
