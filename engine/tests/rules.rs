//! Rules edge cases (docs/notation.md, "The game").
use crate::common;
use common::pos;
use gaps_engine::*;

fn moves(p: &Position, v: Variant) -> Vec<String> {
    let mut list = MoveList::<MAX_MOVES>::default();
    p.legal_moves(v, &mut list);
    let mut out: Vec<String> = list.as_slice().iter().map(|m| format!("{m:?}")).collect();
    out.sort();
    out
}

#[test]
fn a_gap_right_of_a_top_card_is_dead() {
    // 4 ranks: top rank is 4. Gap at (0,1) is right of 4S: nothing may go there.
    let p = pos("4S -- 2S 3S/2H -- 3H 4H");
    assert_eq!(moves(&p, Variant::Basic), vec!["3H (1,2)->(1,1)"]);
    assert!(moves(&p, Variant::Basic)
        .iter()
        .all(|m| !m.ends_with("(0,1)")));
    assert!(moves(&p, Variant::Common)
        .iter()
        .all(|m| !m.ends_with("(0,1)")));
}

#[test]
fn a_gap_right_of_a_gap_is_dead() {
    let p = pos("2S -- -- 3S/2H 3H 4H 4S");
    // (0,1) takes 3S; (0,2) has a gap on its left.
    assert_eq!(moves(&p, Variant::Basic), vec!["3S (0,3)->(0,1)"]);
}

#[test]
fn column_zero_depends_on_the_variant() {
    let p = pos("-- 3S 4S 2H/-- 3H 4H 2S");
    // basic: row 0 takes 2S, row 1 takes 2H.
    assert_eq!(
        moves(&p, Variant::Basic),
        vec!["2H (0,3)->(1,0)", "2S (1,3)->(0,0)"]
    );
    // common: each column-0 gap takes any Two.
    assert_eq!(
        moves(&p, Variant::Common),
        vec![
            "2H (0,3)->(0,0)",
            "2H (0,3)->(1,0)",
            "2S (1,3)->(0,0)",
            "2S (1,3)->(1,0)"
        ]
    );
}

#[test]
fn twos_move_between_column_zero_gaps_in_common_only() {
    let p = pos("2S -- 3S 4S/-- 2H 3H 4H");
    let common = moves(&p, Variant::Common);
    assert!(common.contains(&"2S (0,0)->(1,0)".to_string()));
    assert!(!moves(&p, Variant::Basic)
        .iter()
        .any(|m| m.starts_with("2S")));
}

#[test]
fn won_detection_in_each_variant() {
    let basic_won = pos("2S 3S 4S --/2H 3H 4H --");
    assert!(basic_won.is_won(Variant::Basic));
    assert!(basic_won.is_won(Variant::Common));
    let swapped = pos("2H 3H 4H --/2S 3S 4S --");
    assert!(
        !swapped.is_won(Variant::Basic),
        "basic needs suit i in row i"
    );
    assert!(
        swapped.is_won(Variant::Common),
        "common allows any suit per row"
    );
    let gap_inside = pos("2S 3S -- 4S/2H 3H 4H --");
    assert!(!gap_inside.is_won(Variant::Basic) && !gap_inside.is_won(Variant::Common));
    let mixed = pos("2S 3H 4S --/2H 3S 4H --");
    assert!(!mixed.is_won(Variant::Common));
    // Won positions have no moves (every gap sits right of a top card).
    assert!(moves(&swapped, Variant::Common).is_empty());
}

#[test]
fn solved_positions_and_trivial_wins() {
    let mut solver = Solver::with_table_bytes(1 << 16);
    let won = pos("2S 3S 4S --/2H 3H 4H --");
    let r = solver.solve(&won, &SolveOptions::default(), None).unwrap();
    assert_eq!(r.verdict, Verdict::Solvable);
    assert!(r.solution.is_empty());
    let one = pos("2S 3S -- 4S/2H 3H 4H --");
    let r = solver.solve(&one, &SolveOptions::default(), None).unwrap();
    assert_eq!(r.verdict, Verdict::Solvable);
    assert_eq!(r.solution.len(), 1);
    let dead = pos("2S 4S -- 3S/2H 3H 4H --");
    let r = solver.solve(&dead, &SolveOptions::default(), None).unwrap();
    assert_eq!(r.verdict, Verdict::Unsolvable);
}

/// The legal moves of `p` read off the rules cell by cell, the slow way.
fn moves_by_the_rules(p: &Position, v: Variant) -> Vec<String> {
    let layout = p.layout();
    let mut out = Vec::new();
    for row in 0..layout.suits() {
        for col in 0..layout.ranks() {
            if p.at(row, col).is_some() {
                continue;
            }
            let fillers: Vec<Card> = if col == 0 {
                match v {
                    Variant::Basic => vec![Card::new(row as u8, 1)],
                    Variant::Common => (0..layout.suits()).map(|s| Card::new(s as u8, 1)).collect(),
                    // Aisleriot: a Two in column 0 heads its run and never moves again.
                    Variant::Aisleriot => (0..layout.suits())
                        .map(|s| Card::new(s as u8, 1))
                        .filter(|&two| p.find(two).is_some_and(|(_, c)| c != 0))
                        .collect(),
                }
            } else {
                match p.at(row, col - 1) {
                    Some(left) if left.rank() < layout.top_rank() => vec![left.successor()],
                    _ => Vec::new(),
                }
            };
            for card in fillers {
                let (fr, fc) = p.find(card).expect("every non-ace card is on the board");
                out.push(format!("{card} ({fr},{fc})->({row},{col})"));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn play_unplay_restores_and_keys_stay_incremental() {
    let mut rng = SplitMix64::new(99);
    for seed in 0..300 {
        let layout = Layout::new(1 + seed as usize % 8, 3 + seed as usize % 11).unwrap();
        for variant in Variant::ALL {
            let start = deal(seed, layout);
            let mut p = start;
            let mut line = Vec::new();
            let mut list = MoveList::<MAX_MOVES>::default();
            for _ in 0..200 {
                assert_eq!(moves(&p, variant), moves_by_the_rules(&p, variant), "{p:?}");
                p.legal_moves(variant, &mut list);
                if list.is_empty() {
                    break;
                }
                let m = list[rng.below(list.len() as u64) as usize];
                p.play(m);
                p.check_invariants();
                line.push(m);
            }
            for &m in line.iter().rev() {
                p.unplay(m);
                p.check_invariants();
            }
            assert_eq!(p, start);
            assert_eq!(p.key(), start.key());
        }
    }
}

#[test]
fn a_watched_solve_publishes_its_node_count() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let progress = AtomicU64::new(0);
    let start = deal(0, Layout::STANDARD);
    let options = SolveOptions {
        variant: Variant::Common,
        max_nodes: Some(50_000),
        ..SolveOptions::default()
    };
    let r = Solver::with_table_bytes(1 << 20)
        .solve_watched(&start, &options, None, Some(&progress))
        .unwrap();
    let seen = progress.load(Ordering::Relaxed);
    assert!(
        seen > 0 && seen <= r.stats.nodes,
        "{seen} of {}",
        r.stats.nodes
    );
}
