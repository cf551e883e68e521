//! The joint searches of settled children against the reference search, one
//! assignment at a time, on thousands of settled positions of small boards.

use super::*;
use crate::card::Layout;
use crate::deal::{deal, SplitMix64};
use crate::exhaustive::reachable;
use crate::moves::MoveList;
use crate::position::MAX_MOVES;
use crate::replay::verify_solution;
use crate::search::budget::Budget;
use crate::search::exact::options::SettledReductions;
use crate::search::exact::settled::SettledSearch;
use crate::search::stats::SearchStats;
use crate::variant::Variant;

/// Settled `common` positions met by random lines from small deals.
fn settled_positions(layout: Layout, deals: u64) -> Vec<Position> {
    let mut rng = SplitMix64::new(11);
    let mut out = Vec::new();
    let mut list = MoveList::<MAX_MOVES>::default();
    for seed in 0..deals {
        let mut p = deal(seed, layout);
        for _ in 0..200 {
            if p.column0_all_twos() {
                out.push(p);
                break;
            }
            p.legal_moves(Variant::Common, &mut list);
            if list.is_empty() {
                break;
            }
            p.play(list[rng.below(list.len() as u64) as usize]);
        }
    }
    out
}

#[test]
fn assignments_are_the_permutations_and_name_column_zero() {
    for suits in 1..=MAX_JOINT_SUITS {
        let a = Assignments::new(suits).unwrap();
        assert_eq!(a.count(), (1..=suits).product::<usize>());
        assert_eq!(a.all().count_ones() as usize, a.count());
        for p in 0..a.count() {
            let mut seen = [false; MAX_JOINT_SUITS];
            for &s in a.suits_of(p) {
                assert!(!std::mem::replace(&mut seen[s as usize], true));
            }
        }
    }
    assert!(Assignments::new(MAX_JOINT_SUITS + 1).is_none());
    for start in settled_positions(Layout::new(4, 5).unwrap(), 200) {
        let a = Assignments::new(4).unwrap();
        let mut p = start;
        for q in 0..a.count() {
            p.rearrange_column0_twos(a.suits_of(q));
            assert_eq!(a.of(&p), q);
            assert_eq!(p.key(), p.compute_key());
            // The board key does not depend on the arrangement.
            assert_eq!(
                a.board_key(p.key(), q),
                a.board_key(start.key(), a.of(&start))
            );
        }
    }
}

/// Every assignment of every board, decided by joint searches (in an order that
/// starts at a different assignment each time, with an ample budget and with one so
/// small that the memo and table forget), equals the reference verdict; every win
/// replays.
#[test]
fn joint_verdicts_equal_the_reference_for_every_assignment() {
    let mut checked = 0;
    let mut won = 0;
    let mut several_won = 0;
    for (suits, ranks, deals) in [
        (2, 6, 1000),
        (3, 5, 1000),
        (3, 6, 1000),
        (4, 4, 1000),
        (4, 5, 400),
    ] {
        let layout = Layout::new(suits, ranks).unwrap();
        let a = Assignments::new(suits).unwrap();
        for bytes in [4096, 8 << 20] {
            let mut search = SettledSearch::with_table_bytes(bytes, SettledReductions::ALL);
            for (n, start) in settled_positions(layout, deals).into_iter().enumerate() {
                let mut wins = 0;
                for k in 0..a.count() {
                    let q = (k + n) % a.count();
                    let mut child = start;
                    child.rearrange_column0_twos(a.suits_of(q));
                    let reference = reachable(&child, Variant::Common, usize::MAX);
                    let mut stats = SearchStats::default();
                    match search.decide(&child, &Budget::unlimited(), &mut stats) {
                        Ok(Some(line)) => {
                            assert_eq!(reference.winnable, Some(true), "{layout} deal {n} q {q}");
                            verify_solution(&child, Variant::Common, &line).unwrap();
                            wins += 1;
                        }
                        Ok(None) => {
                            assert_eq!(reference.winnable, Some(false), "{layout} deal {n} q {q}");
                        }
                        Err(reason) => panic!("{layout} deal {n} q {q}: {reason:?}"),
                    }
                    checked += 1;
                }
                won += usize::from(wins > 0);
                several_won += usize::from(wins > 1);
            }
        }
    }
    // The check meets wins, and boards won under more than one assignment (where a
    // joint search finds another child's win first).
    eprintln!("{checked} children, {won} boards won, {several_won} under several assignments");
    assert!(checked > 20_000, "{checked}");
    assert!(won > 50 && several_won > 10, "{won} {several_won}");
}

/// The dead assignments of a board, found at once (`Assignments::dead`), are those
/// under which the settled position is dead by the test of each arrangement, on boards
/// met along random lines past settling (4x13 included).
#[test]
fn dead_assignments_equal_the_dead_test_of_each_arrangement() {
    let mut rng = SplitMix64::new(5);
    let mut list = MoveList::<MAX_MOVES>::default();
    let (mut boards, mut some_dead, mut mixed) = (0, 0, 0);
    for (suits, ranks, deals) in [
        (2, 6, 1500),
        (3, 5, 1500),
        (4, 5, 1500),
        (4, 8, 1500),
        (4, 13, 1500),
    ] {
        let layout = Layout::new(suits, ranks).unwrap();
        let a = Assignments::new(suits).unwrap();
        for seed in 0..deals {
            let mut p = deal(seed, layout);
            for _ in 0..600 {
                if p.column0_all_twos() {
                    let expected = (0..a.count()).fold(0u32, |mask, q| {
                        let mut probe = p;
                        probe.rearrange_column0_twos(a.suits_of(q));
                        mask | u32::from(probe.is_dead_common()) << q
                    });
                    assert_eq!(a.dead(&p), expected, "{suits}x{ranks} deal {seed}: {p:?}");
                    boards += 1;
                    some_dead += usize::from(expected != 0);
                    mixed += usize::from(expected != 0 && expected != a.all());
                }
                p.legal_moves(Variant::Common, &mut list);
                if list.is_empty() {
                    break;
                }
                p.play(list[rng.below(list.len() as u64) as usize]);
            }
        }
    }
    assert!(
        boards > 10_000 && some_dead > 1_000 && mixed > 1_000,
        "{boards} {some_dead} {mixed}"
    );
}
