//! Unit tests of the crate-internal board helpers against their slow definitions, on
//! positions reached by random play from random deals of every size.

use super::{Position, MAX_MOVES};
use crate::card::{cell, Layout};
use crate::deal::{deal, SplitMix64};
use crate::moves::MoveList;
use crate::variant::Variant;

/// Positions met on random lines of play (both variants, every layout).
fn random_positions() -> Vec<Position> {
    let mut rng = SplitMix64::new(7);
    let mut out = Vec::new();
    let mut list = MoveList::<MAX_MOVES>::default();
    for seed in 0..200u64 {
        let layout = Layout::new(1 + seed as usize % 8, 3 + seed as usize % 11).unwrap();
        for variant in Variant::ALL {
            let mut p = deal(seed, layout);
            for _ in 0..150 {
                out.push(p);
                p.legal_moves(variant, &mut list);
                if list.is_empty() {
                    break;
                }
                p.play(list[rng.below(list.len() as u64) as usize]);
            }
        }
    }
    out
}

#[test]
fn run_length_counts_the_twos_threes_and_so_on_from_column_zero() {
    let mut longest = 0;
    for p in random_positions() {
        let layout = p.layout();
        for row in 0..layout.suits() {
            for suit in 0..layout.suits() as u8 {
                let slow = (0..layout.ranks())
                    .take_while(|&k| p.raw_cell(cell(row, k)) == (suit << 4) + 1 + k as u8)
                    .count();
                assert_eq!(
                    p.run_length(row, suit),
                    slow,
                    "row {row} suit {suit} in {p:?}"
                );
                longest = longest.max(slow);
            }
        }
    }
    // The sample reaches long runs, so the comparison is not only about short ones.
    assert!(longest >= 10, "longest run {longest}");
}

#[test]
fn a_move_extends_a_run_when_the_run_from_column_zero_then_reaches_its_cell() {
    let mut list = MoveList::<MAX_MOVES>::default();
    let (mut extending, mut other) = (0, 0);
    for p in random_positions() {
        p.legal_moves(Variant::Common, &mut list);
        for &m in list.as_slice() {
            let (row, col) = m.to_rc();
            let mut child = p;
            child.play(m);
            // Slow definition: after the move, column 0 holds a Two and the run of
            // its suit from there covers the cell the card went to.
            let slow = child.at(row, 0).is_some_and(|two| {
                col > 0 && two.rank() == 1 && child.run_length(row, two.suit()) > col
            });
            assert_eq!(p.extends_run(m), slow, "{m:?} in {p:?}");
            if slow {
                extending += 1;
            } else {
                other += 1;
            }
        }
    }
    assert!(
        extending > 100 && other > 100,
        "{extending} extending, {other} other"
    );
}

#[test]
fn settles_by_names_exactly_the_common_moves_into_a_settled_position() {
    let mut list = MoveList::<MAX_MOVES>::default();
    let mut settling = 0;
    for p in random_positions() {
        if p.column0_all_twos() {
            continue;
        }
        let twos = p.column0_twos();
        p.legal_moves(Variant::Common, &mut list);
        for &m in list.as_slice() {
            let mut child = p;
            child.play(m);
            assert_eq!(
                p.settles_by(m, twos),
                child.column0_all_twos(),
                "{m:?} in {p:?}"
            );
            settling += usize::from(child.column0_all_twos());
        }
    }
    assert!(
        settling > 100,
        "only {settling} settling moves in the sample"
    );
}
