//! The search with redeals against the plain reference over rounds
//! (`winnable_with_redeals`: every position of every round, whole positions in hash
//! sets), on thousands of small deals of both variants with one and two redeals, each
//! deal redealt by its own stream, under each of PySolFC's rules for where a redeal
//! leaves the gaps (after the runs; at the rows' ends, Station; drawn, Spaces). Every verdict must agree, every solution must replay
//! with its redeals, and the deals must include wins that need a redeal and losses
//! proved with every redeal used (so the comparison has something to compare).
use gaps_engine::*;

fn solve(
    solver: &mut Solver,
    start: &Position,
    variant: Variant,
    redeals: &Redeals,
) -> SolveReport {
    let options = SolveOptions {
        variant,
        ..SolveOptions::default()
    };
    solver
        .solve_with_redeals(start, &options, redeals, None, None)
        .expect("solve")
}

#[test]
fn the_search_over_rounds_agrees_with_the_plain_reference() {
    let mut solver = Solver::with_table_bytes(1 << 20);
    // [won in round one, won needing a redeal, lost with every redeal]
    let mut kinds = [0usize; 3];
    let cases = [(2, 4, 1500), (3, 4, 1500), (2, 5, 600), (3, 5, 200)];
    for ((suits, ranks, deals), gaps) in cases.into_iter().flat_map(|case| {
        [
            RedealGaps::AfterRun,
            RedealGaps::RowEnds,
            RedealGaps::Random,
        ]
        .map(|gaps| (case, gaps))
    }) {
        let layout = Layout::new(suits, ranks).unwrap();
        // The first rule on every deal, the others on a third of them.
        let deals = if gaps == RedealGaps::AfterRun {
            deals
        } else {
            deals / 3
        };
        for seed in 0..deals {
            let start = deal(seed, layout);
            for variant in Variant::CLASSIC {
                for count in 1..=MAX_REDEALS {
                    let redeals = Redeals {
                        count,
                        stream: RedealStream::deal(seed, layout.cells()).with_gaps(gaps),
                    };
                    let Some(expected) =
                        winnable_with_redeals(&start, variant, &redeals.stream, count, 200_000)
                    else {
                        continue;
                    };
                    let report = solve(&mut solver, &start, variant, &redeals);
                    let what =
                        format!("deal {seed} {layout} {variant} with {count} redeals ({gaps:?})");
                    let expected_verdict = if expected {
                        Verdict::Solvable
                    } else {
                        Verdict::Unsolvable
                    };
                    assert_eq!(report.verdict, expected_verdict, "{what}");
                    let rounds = report.rounds.as_ref().unwrap();
                    if expected {
                        verify_with_redeals(
                            &start,
                            variant,
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
    }
    eprintln!("won in round one, won with a redeal, lost: {kinds:?}");
    assert!(kinds.iter().all(|&k| k >= 100), "{kinds:?}");
}

#[test]
fn a_redeal_step_where_none_is_allowed_is_refused() {
    let layout = Layout::new(2, 4).unwrap();
    let start = deal(3, layout);
    let stream = RedealStream::deal(3, layout.cells());
    assert!(matches!(
        verify_with_redeals(&start, Variant::Common, &stream, 0, &[], &[0]),
        Err(ReplayError::NoRedealLeft {
            redeal: 1,
            allowed: 0
        })
    ));
    assert!(matches!(
        verify_with_redeals(&start, Variant::Common, &stream, 2, &[], &[0, 0, 0]),
        Err(ReplayError::NoRedealLeft {
            redeal: 3,
            allowed: 2
        })
    ));
    // A redeal placed after a move that is not there.
    assert!(matches!(
        verify_with_redeals(&start, Variant::Common, &stream, 2, &[], &[4]),
        Err(ReplayError::RedealNotPossible {
            redeal: 1,
            after: 4
        })
    ));
}
