//! The odds with unknown shuffles held to the exact chances on small boards: the best
//! chance by expectimax over every shuffle (`ExactOdds::best`) must lie between the
//! sampled lower and upper bounds (within their 95% intervals, as often as intervals
//! do), the exact chance of the lower bound's strategy (`ExactOdds::policy`) can never
//! exceed the best one, and the sampled lower bound must be an unbiased estimate of
//! that strategy's chance over hundreds of deals. Both variants' redeal rules (PySolFC's
//! anywhere under `common`, Aisleriot's only when no move is left), one and two redeals.
use gaps_engine::*;

const SAMPLES: u32 = 200;

struct Case {
    what: String,
    best: f64,
    policy: f64,
    report: OddsReport,
}

fn cases(
    layout: Layout,
    deals: u64,
    redeals: u8,
    variant: Variant,
    algorithm: Algorithm,
) -> Vec<Case> {
    let mut solver = Solver::with_table_bytes(1 << 20);
    let mut exact = ExactOdds::new(variant);
    let mut out = Vec::new();
    for seed in 0..deals {
        let start = deal(seed, layout);
        let what = format!("{layout} deal {seed} {variant} with {redeals} redeal(s)");
        let best = exact.best(&start, redeals).unwrap();
        let policy = exact.policy(&start, redeals).unwrap();
        let options = OddsOptions {
            shuffle_seed: seed ^ 0x5eed,
            ..OddsOptions::new(
                SolveOptions {
                    variant,
                    algorithm,
                    ..SolveOptions::default()
                },
                redeals,
                SAMPLES,
            )
        };
        let report = odds(&mut solver, &start, &options, None, None).unwrap();
        out.push(Case {
            what,
            best,
            policy,
            report,
        });
    }
    out
}

fn check(cases: &[Case]) -> (usize, usize) {
    let mut sampled = 0usize;
    let mut misses = 0usize;
    let (mut wins, mut expected, mut variance) = (0f64, 0f64, 0f64);
    for case in cases {
        let (what, report) = (&case.what, &case.report);
        assert!(
            case.policy <= case.best + 1e-9,
            "{what}: the strategy's chance {} above the best {}",
            case.policy,
            case.best
        );
        if let Some(p) = report.exact {
            assert_eq!(p, case.best, "{what}: exact");
            assert_eq!(p, case.policy, "{what}: exact, the strategy");
            continue;
        }
        sampled += 1;
        let (lower, upper) = (report.lower, report.upper);
        assert_eq!(lower.samples(), SAMPLES, "{what}");
        assert_eq!(upper.samples(), SAMPLES, "{what}");
        assert_eq!(
            lower.unknown + upper.unknown,
            0,
            "{what}: a small board is decided"
        );
        assert!(lower.won <= upper.won, "{what}: {lower:?} {upper:?}");
        let (lo, _) = report.lower_interval();
        let (_, hi) = report.upper_interval();
        if lo > case.best + 1e-9 || hi < case.best - 1e-9 {
            misses += 1;
            eprintln!("{what}: best {} outside [{lo}, {hi}]", case.best);
        }
        wins += f64::from(lower.won);
        expected += case.policy * f64::from(SAMPLES);
        variance += case.policy * (1.0 - case.policy) * f64::from(SAMPLES);
    }
    // The strategy's sampled wins against its exact chance, over every sampled deal.
    let z = (wins - expected) / variance.max(1.0).sqrt();
    assert!(
        z.abs() < 4.0,
        "sampled wins {wins} against {expected} expected (z = {z:.2})"
    );
    (sampled, misses)
}

#[test]
fn the_sampled_bounds_hold_the_exact_chance_on_small_boards() {
    let mut sampled = 0;
    let mut misses = 0;
    // [deals whose best chance is strictly between 0 and 1, whose strategy is not best]
    let mut kinds = [0usize; 2];
    // Each round searched by `dfs` (exhaustive, and quick on boards this small), and by
    // `auto` on one set: the default, whose portfolio costs more a round.
    let sets = [
        (2, 4, 300, 1, Algorithm::Dfs),
        (2, 4, 300, 2, Algorithm::Dfs),
        (3, 3, 200, 2, Algorithm::Dfs),
        (2, 5, 60, 1, Algorithm::Dfs),
        (2, 4, 40, 2, Algorithm::Auto),
    ];
    for variant in [Variant::Common, Variant::Aisleriot] {
        for (suits, ranks, deals, redeals, algorithm) in sets {
            let layout = Layout::new(suits, ranks).unwrap();
            let cases = cases(layout, deals, redeals, variant, algorithm);
            for case in &cases {
                kinds[0] += usize::from(case.best > 0.0 && case.best < 1.0);
                kinds[1] += usize::from(case.policy < case.best - 1e-9);
            }
            let (s, m) = check(&cases);
            sampled += s;
            misses += m;
        }
    }
    eprintln!("sampled {sampled}, outside the bounds {misses}, kinds {kinds:?}");
    assert!(sampled >= 300, "{sampled}");
    assert!(kinds.iter().all(|&k| k >= 20), "{kinds:?}");
    // Each bound's interval misses a true value at most 2.5% of the time: 5% in all.
    assert!(misses * 20 <= sampled, "{misses} of {sampled}");
}

#[test]
fn a_won_round_is_certain_and_a_lost_last_round_hopeless() {
    let layout = Layout::new(2, 4).unwrap();
    let mut solver = Solver::with_table_bytes(1 << 20);
    let mut seen = [false; 2];
    for seed in 0..200 {
        let start = deal(seed, layout);
        let won = reachable(&start, Variant::Common, 100_000)
            .winnable
            .unwrap();
        let options = OddsOptions::new(
            SolveOptions {
                variant: Variant::Common,
                ..SolveOptions::default()
            },
            0,
            50,
        );
        let report = odds(&mut solver, &start, &options, None, None).unwrap();
        assert_eq!(
            report.exact,
            Some(if won { 1.0 } else { 0.0 }),
            "deal {seed}"
        );
        assert_eq!(report.lower.samples(), 0);
        match report.advice {
            Advice::Play(m) => {
                assert!(won);
                let mut pos = start;
                assert!(
                    pos.try_play(Variant::Common, m),
                    "deal {seed}: advice is legal"
                );
            }
            Advice::None => assert!(!won),
            other => panic!("deal {seed}: {other:?}"),
        }
        seen[usize::from(won)] = true;
    }
    assert_eq!(seen, [true, true]);
}

#[test]
fn the_exact_odds_refuse_large_boards() {
    let start = deal(1, Layout::new(4, 13).unwrap());
    assert_eq!(
        ExactOdds::new(Variant::Common).best(&start, 2),
        Err(ExactOddsError::TooLarge(48))
    );
}
