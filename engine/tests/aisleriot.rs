//! `aisleriot` (GNOME Aisleriot's Gaps: no card of a row's run from column 0 ever moves
//! again) checked on its own: a breadth-first reference written here, from `common`'s
//! moves with Aisleriot's rule applied in the test (a card in its row's run is not
//! picked up: `button-pressed` in Aisleriot's `games/gaps.scm` only lets the cells after
//! the run go), must agree with the engine's `aisleriot` moves position for position,
//! and with the depth-first search's verdicts. The rule must matter: some deals are won
//! under `common` and lost under `aisleriot`, never the other way round.
use gaps_engine::*;
use std::collections::{HashSet, VecDeque};

/// How many cells of `row`, from column 0, hold a Two and then its suit in order.
fn run(pos: &Position, row: usize) -> usize {
    let Some(first) = pos.at(row, 0).filter(|c| c.rank() == 1) else {
        return 0;
    };
    let ranks = pos.layout().ranks();
    (0..ranks - 1)
        .take_while(|&c| pos.at(row, c) == Some(Card::new(first.suit(), c as u8 + 1)))
        .count()
}

/// Every position reachable under Aisleriot's rule, breadth-first; and whether one is won.
fn reference(start: &Position, limit: usize) -> Option<(usize, bool)> {
    reference_round(start, limit).map(|(seen, won)| (seen.len(), won))
}

/// The positions of [`reference`], themselves.
fn reference_round(start: &Position, limit: usize) -> Option<(Vec<Position>, bool)> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut queue = VecDeque::from([*start]);
    seen.insert(format_position(start));
    let mut order = vec![*start];
    let mut won = false;
    let mut moves = MoveList::<MAX_MOVES>::default();
    while let Some(pos) = queue.pop_front() {
        won |= pos.is_won(Variant::Common);
        pos.legal_moves(Variant::Common, &mut moves);
        for &m in moves.as_slice() {
            let (row, col) = ((m.from >> 4) as usize, (m.from & 15) as usize);
            if col < run(&pos, row) {
                continue; // a card of its row's run never moves again
            }
            let mut child = pos;
            child.play(m);
            if seen.insert(format_position(&child)) {
                if seen.len() > limit {
                    return None;
                }
                order.push(child);
                queue.push_back(child);
            }
        }
    }
    Some((order, won))
}

/// Aisleriot's `redeal-needed?` (`games/gaps.scm`), read apart from the engine: every
/// gap is blocked, that is outside column 0 and after a gap or a King.
fn redeal_needed(pos: &Position) -> bool {
    let layout = pos.layout();
    let king = layout.ranks() as u8 - 1; // the top rank (rank 0 is the Ace)
    let blocked = pos
        .gaps()
        .iter()
        .filter(|&&gap| {
            let (row, col) = ((gap >> 4) as usize, (gap & 15) as usize);
            col != 0 && pos.at(row, col - 1).is_none_or(|left| left.rank() == king)
        })
        .count();
    blocked == layout.suits()
}

/// Whether `start` is won with at most `redeals` redeals by Aisleriot's rules: moves as
/// [`reference`], a redeal only where [`redeal_needed`], shuffled by `stream`.
fn reference_with_redeals(
    start: &Position,
    stream: &RedealStream,
    redeals: u8,
    limit: usize,
) -> Option<bool> {
    let (positions, won) = reference_round(start, limit)?;
    if won {
        return Some(true);
    }
    let mut unknown = false;
    for point in positions.iter().filter(|p| redeals > 0 && redeal_needed(p)) {
        let mut next_stream = stream.clone();
        let next = redeal(point, Variant::Aisleriot, &mut next_stream)?;
        match reference_with_redeals(&next, &next_stream, redeals - 1, limit) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => unknown = true,
        }
    }
    (!unknown).then_some(false)
}

#[test]
fn aisleriot_redeals_only_when_no_move_is_left() {
    let mut solver = Solver::with_table_bytes(16 << 20);
    // [won in round one, won needing a redeal, lost with every redeal]
    let mut kinds = [0u32; 3];
    for (suits, ranks, deals) in [(2, 4, 500), (3, 4, 400), (2, 5, 300)] {
        let layout = Layout::new(suits, ranks).unwrap();
        for seed in 0..deals {
            let start = deal(seed, layout);
            for count in 1..=MAX_REDEALS {
                let redeals = Redeals {
                    count,
                    stream: RedealStream::deal(seed, layout.cells()),
                };
                let what = format!("{layout} deal {seed} with {count} redeal(s)");
                let Some(won) = reference_with_redeals(&start, &redeals.stream, count, 100_000)
                else {
                    continue;
                };
                let options = SolveOptions {
                    variant: Variant::Aisleriot,
                    ..SolveOptions::default()
                };
                let report = solver
                    .solve_with_redeals(&start, &options, &redeals, None, None)
                    .unwrap();
                let expected = if won {
                    Verdict::Solvable
                } else {
                    Verdict::Unsolvable
                };
                assert_eq!(report.verdict, expected, "{what}");
                let rounds = report.rounds.unwrap();
                if won {
                    verify_with_redeals(
                        &start,
                        Variant::Aisleriot,
                        &redeals.stream,
                        count,
                        &report.solution,
                        &rounds.redeal_at,
                    )
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                    kinds[usize::from(!rounds.redeal_at.is_empty())] += 1;
                } else {
                    kinds[2] += 1;
                }
            }
        }
    }
    eprintln!("won in round one, won with a redeal, lost: {kinds:?}");
    assert!(kinds.iter().all(|&k| k >= 50), "{kinds:?}");
}

#[test]
fn aisleriot_moves_agree_with_the_rule_written_apart() {
    let mut solver = Solver::with_table_bytes(16 << 20);
    // [won under both, won under common only, lost under both]
    let mut kinds = [0u32; 3];
    for (suits, ranks, deals) in [
        (2, 4, 600),
        (3, 4, 600),
        (2, 5, 400),
        (3, 5, 400),
        (4, 4, 300),
    ] {
        let layout = Layout::new(suits, ranks).unwrap();
        for seed in 0..deals {
            let start = deal(seed, layout);
            let what = format!("{layout} deal {seed}");
            let Some((positions, won)) = reference(&start, 400_000) else {
                continue;
            };
            let engine = reachable(&start, Variant::Aisleriot, 400_000);
            assert_eq!(engine.positions, positions, "{what}");
            assert_eq!(engine.winnable, Some(won), "{what}");
            let options = SolveOptions {
                variant: Variant::Aisleriot,
                ..SolveOptions::default()
            };
            let report = solver.solve(&start, &options, None).unwrap();
            assert_eq!(report.verdict == Verdict::Solvable, won, "{what}");
            assert_eq!(report.algorithm, Algorithm::Dfs, "{what}: auto is dfs here");
            let common = reachable(&start, Variant::Common, 4_000_000).winnable;
            match (won, common) {
                (true, Some(true)) => kinds[0] += 1,
                (false, Some(true)) => kinds[1] += 1,
                (false, Some(false)) => kinds[2] += 1,
                (true, other) => panic!("{what}: won under aisleriot, {other:?} under common"),
                (false, None) => {}
            }
        }
    }
    eprintln!("won under both, under common only, lost under both: {kinds:?}");
    assert!(kinds.iter().all(|&k| k >= 20), "{kinds:?}");
}

#[test]
fn aisleriot_refuses_what_it_cannot_play() {
    let start = deal(3, Layout::new(3, 5).unwrap());
    for algorithm in [
        Algorithm::Exact,
        Algorithm::Hybrid,
        Algorithm::Sampling,
        Algorithm::Blocks,
        Algorithm::Assign,
    ] {
        let options = SolveOptions {
            variant: Variant::Aisleriot,
            algorithm,
            ..SolveOptions::default()
        };
        assert!(
            Solver::with_table_bytes(1 << 20)
                .solve(&start, &options, None)
                .is_err(),
            "{algorithm}"
        );
    }
    let source = DealSource::Numbered {
        seed: 3,
        layout: Layout::new(3, 5).unwrap(),
    };
    assert_eq!(source.redeal_count(None, Variant::Aisleriot), Ok(0));
    assert_eq!(
        source.redeal_count(Some(1), Variant::Aisleriot),
        Err(RedealsError::Aisleriot(1))
    );
}
