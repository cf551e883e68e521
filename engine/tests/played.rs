//! Games in progress against the plain reference over rounds (`winnable_with_redeals`,
//! `reachable`: whole positions in hash sets): random play on thousands of small deals,
//! with 0, 1 and 2 redeals (redeal steps among the random steps), `basic`, `common`
//! and (first round) `aisleriot`. At every prefix the answer about the rest of the
//! game must agree with the reference, its line must replay from the played state with
//! the redeals left, and a line said to use the fewest redeals must need them; the
//! review of every game must name the first step after which the reference says the
//! game was lost.
use gaps_engine::*;

/// Random steps from `start`: legal moves, and a redeal now and then while one is left.
fn random_steps(
    start: &GameState,
    variant: Variant,
    rng: &mut SplitMix64,
    max: usize,
) -> Vec<PlayedStep> {
    let mut steps = Vec::new();
    let mut state = start.clone();
    for _ in 0..max {
        let mut list = MoveList::<MAX_MOVES>::default();
        state.position.legal_moves(variant, &mut list);
        let can_redeal = state.redeals_left() > 0 && !state.position.is_won(variant);
        let step = if can_redeal && (list.is_empty() || rng.below(6) == 0) {
            PlayedStep::Redeal {
                number: state.redeals_used + 1,
            }
        } else if list.is_empty() {
            break;
        } else {
            let m = list.as_slice()[rng.below(list.len() as u64) as usize];
            PlayedStep::Move {
                card: m.card,
                from: m.from_rc(),
                to: m.to_rc(),
            }
        };
        let line = PlayedLine::replay(state.clone(), variant, None, &[step]).expect("legal");
        state = line.last().clone();
        steps.push(step);
    }
    steps
}

/// The reference's answer for `state` (`None`: too large for it).
fn reference(state: &GameState, variant: Variant) -> Option<bool> {
    match state.redeals() {
        Some(r) => winnable_with_redeals(&state.position, variant, &r.stream, r.count, 100_000),
        None => reachable(&state.position, variant, 100_000).winnable,
    }
}

/// The steps of a solution from a state, in the engine's terms.
fn line_of(report: &SolveReport) -> Vec<Step> {
    let redeal_at = report.rounds.as_ref().map_or(&[][..], |r| &r.redeal_at[..]);
    steps_of(&report.solution, redeal_at)
}

#[test]
fn games_in_progress_agree_with_the_reference() {
    let mut solver = Solver::with_table_bytes(1 << 20);
    let options = |variant| SolveOptions {
        variant,
        ..SolveOptions::default()
    };
    let mut rng = SplitMix64::new(67);
    // [prefixes answered won, lost], reviews [fatal found, still winnable, lost from start]
    let (mut answers, mut reviews) = ([0usize; 2], [0usize; 3]);
    let mut needed_redeal = 0;
    let cases = [(2, 4, 200), (3, 4, 200), (2, 5, 150), (3, 5, 80)];
    for (suits, ranks, deals) in cases {
        let layout = Layout::new(suits, ranks).unwrap();
        for seed in 0..deals {
            let source = DealSource::Numbered { seed, layout };
            for variant in Variant::ALL {
                let counts: &[u8] = if variant == Variant::Aisleriot {
                    &[0]
                } else {
                    &[0, 1, 2]
                };
                for &count in counts {
                    let start = GameState::start(source.start(), source.redeals(count).as_ref());
                    let steps = random_steps(&start, variant, &mut rng, 14);
                    let line = PlayedLine::replay(start, variant, None, &steps).unwrap();
                    let what =
                        format!("deal {seed} {layout} {variant} {count} redeal(s) {steps:?}");
                    let mut truth = Vec::new();
                    let mut lines = Vec::new();
                    for (k, state) in line.states.iter().enumerate() {
                        let Some(expected) = reference(state, variant) else {
                            truth.clear();
                            break;
                        };
                        let rest = solve_rest(
                            &mut solver,
                            state,
                            &options(variant),
                            SolveControls::default(),
                        )
                        .unwrap();
                        let report = &rest.report;
                        let verdict = if expected {
                            Verdict::Solvable
                        } else {
                            Verdict::Unsolvable
                        };
                        assert_eq!(report.verdict, verdict, "{what} after {k} steps");
                        answers[usize::from(!expected)] += 1;
                        if expected {
                            let redeal_at =
                                report.rounds.as_ref().map_or(&[][..], |r| &r.redeal_at[..]);
                            match state.redeals() {
                                Some(r) => verify_with_redeals(
                                    &state.position,
                                    variant,
                                    &r.stream,
                                    r.count,
                                    &report.solution,
                                    redeal_at,
                                )
                                .map(|_| ()),
                                None => verify_solution(&state.position, variant, &report.solution)
                                    .map(|_| ()),
                            }
                            .unwrap_or_else(|e| panic!("{what} after {k} steps: {e}"));
                            let used = redeal_at.len() as u8;
                            // With no limit every search ends: the count is proved fewest.
                            assert!(rest.fewest_redeals, "{what} after {k} steps");
                            if used > 0 {
                                needed_redeal += 1;
                                let r = state.redeals().unwrap();
                                let fewer = winnable_with_redeals(
                                    &state.position,
                                    variant,
                                    &r.stream,
                                    used - 1,
                                    100_000,
                                );
                                assert_eq!(
                                    fewer,
                                    Some(false),
                                    "{what} after {k}: fewer redeals win"
                                );
                            }
                        }
                        truth.push(expected);
                        lines.push(line_of(report));
                    }
                    if truth.is_empty() {
                        continue;
                    }
                    // The review, asking the same solver.
                    let review = review(
                        steps.len(),
                        |k| {
                            let rest = solve_rest(
                                &mut solver,
                                &line.states[k],
                                &options(variant),
                                SolveControls::default(),
                            )
                            .unwrap();
                            match rest.report.verdict {
                                Verdict::Solvable => Answer::Won(line_of(&rest.report)),
                                Verdict::Unsolvable => Answer::Lost,
                                Verdict::Unknown => Answer::Unknown,
                            }
                        },
                        |k, won: &Vec<Step>| {
                            let followed = won
                                .iter()
                                .zip(&line.steps[k..])
                                .take_while(|(a, b)| a.same_as(b))
                                .count();
                            (followed, won[followed..].to_vec())
                        },
                    );
                    let first_lost = truth.iter().position(|&w| !w);
                    match first_lost {
                        None => {
                            assert_eq!(review.fatal_step, None, "{what}");
                            assert!(!review.lost_from_start, "{what}");
                            reviews[1] += 1;
                        }
                        Some(0) => {
                            assert!(review.lost_from_start, "{what}");
                            assert_eq!(review.fatal_step, None, "{what}");
                            reviews[2] += 1;
                        }
                        Some(lost) => {
                            assert_eq!(review.fatal_step, Some(lost - 1), "{what}");
                            // The winning line from just before the fatal step replays.
                            let before = &line.states[lost - 1];
                            let won = review.winning_line.clone().expect("a line");
                            let mut pos = before.position;
                            let mut redeals = before.redeals();
                            for step in &won {
                                match step {
                                    Step::Move(m) => assert!(pos.try_play(variant, *m), "{what}"),
                                    Step::Redeal => {
                                        let r = redeals.as_mut().expect("a stream");
                                        assert!(r.count > 0, "{what}");
                                        r.count -= 1;
                                        pos = redeal(&pos, variant, &mut r.stream).unwrap();
                                    }
                                }
                            }
                            assert!(pos.is_won(variant), "{what}");
                            reviews[0] += 1;
                        }
                    }
                    assert!(review.unknown_states.is_empty(), "{what}");
                    // Few searches: logarithmic in the steps (a search after each line
                    // that followed them, one halving at least between two such).
                    let bound = 2 + 2 * (usize::BITS - steps.len().leading_zeros()) as usize;
                    assert!(
                        review.searches <= bound,
                        "{what}: {} searches",
                        review.searches
                    );
                }
            }
        }
    }
    eprintln!(
        "prefixes won/lost {answers:?}, reviews fatal/still winnable/lost from start {reviews:?}, \
         answers needing a redeal {needed_redeal}"
    );
    assert!(answers.iter().all(|&n| n >= 500), "{answers:?}");
    assert!(reviews.iter().all(|&n| n >= 100), "{reviews:?}");
    assert!(needed_redeal >= 100, "{needed_redeal}");
}

#[test]
fn an_illegal_step_is_named_by_its_index() {
    let layout = Layout::new(3, 5).unwrap();
    let source = DealSource::Numbered { seed: 4, layout };
    let start = GameState::start(source.start(), source.redeals(1).as_ref());
    let mut rng = SplitMix64::new(1);
    let mut steps = random_steps(&start, Variant::Common, &mut rng, 5);
    let bad = steps.len();
    steps.push(PlayedStep::Redeal { number: 2 });
    let err = PlayedLine::replay(start, Variant::Common, None, &steps).unwrap_err();
    assert_eq!(err.index, bad);
}
