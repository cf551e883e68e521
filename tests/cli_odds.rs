//! `gaps odds` on the command line: bad input refused with exit 2 and a message naming
//! the flag; a won round is certain; a lost one gives two bounds in order, with the
//! strategy's next step legal where it is played; the answer is repeatable by seed.
use crate::cli::gaps_json;
use gaps_engine::{deal, Layout, Position, Variant};
use serde_json::Value;

fn odds(args: &[&str]) -> (Option<i32>, Value, String) {
    gaps_json(&[&["odds", "--json"], args].concat())
}

#[test]
fn bad_odds_requests_are_refused_with_exit_2() {
    for (args, needle) in [
        (vec!["--deal", "5", "--samples", "0"], "--samples"),
        (vec!["--deal", "5", "--samples", "1000001"], "--samples"),
        (vec!["--deal", "5", "--redeals", "3"], "--redeals"),
        (vec!["--deal", "5", "--round-nodes", "0"], "--round-nodes"),
        (vec!["--pysol", "montana:5"], "--pysol"),
        (vec!["--deal", "5", "--variant", "klondike"], "--variant"),
        (vec!["2S 3S --/2H 3H"], "invalid position"),
        (
            vec!["--deal", "5", "--played", "/nonexistent/steps.json"],
            "--played",
        ),
    ] {
        let (code, _, stderr) = odds(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

/// The move of a hint, played on `start`: legal under `variant`.
fn hint_is_legal(start: &Position, variant: Variant, m: &Value) -> bool {
    let cell = |v: &Value| (v[0].as_u64().unwrap() as u8) << 4 | v[1].as_u64().unwrap() as u8;
    let card = gaps_engine::parse_card(m["card"].as_str().unwrap())
        .unwrap()
        .expect("a card");
    start
        .find_legal(variant, card, cell(&m["from"]), cell(&m["to"]))
        .is_some()
}

#[test]
fn the_odds_of_small_deals_are_bounded_in_order_and_repeatable() {
    let layout = Layout::new(3, 5).unwrap();
    let (mut certain, mut bounded, mut small_bounded) = (0, 0, 0);
    for seed in 0..30u64 {
        for variant in [Variant::Common, Variant::Aisleriot] {
            let seed_text = seed.to_string();
            let args = [
                "--deal",
                &seed_text,
                "--suits",
                "3",
                "--ranks",
                "5",
                "--variant",
                variant.name(),
                "--samples",
                "40",
                "--algorithm",
                "dfs",
            ];
            if seed < 3 {
                // 3x5 gathers up to 12 cards, too many for the exact odds; 2x5 at most 8.
                let small = seed.to_string();
                let small_args = [
                    "--deal",
                    &small,
                    "--suits",
                    "2",
                    "--ranks",
                    "5",
                    "--variant",
                    variant.name(),
                    "--samples",
                    "400",
                    "--algorithm",
                    "dfs",
                ];
                let (code, s, stderr) = odds(&small_args);
                assert_eq!(code, Some(0), "{stderr}");
                let o = &s["odds"];
                let best = o["exact"].as_f64().unwrap();
                small_bounded += usize::from(o["lower"]["samples"] == 400);
                let strategy = o["exact_policy"].as_f64().unwrap();
                assert!(strategy <= best + 1e-9, "{s}");
                assert!(
                    o["lower"]["ci95_low"].as_f64().unwrap() <= best + 1e-9,
                    "{s}"
                );
                assert!(
                    o["upper"]["ci95_high"].as_f64().unwrap() >= best - 1e-9,
                    "{s}"
                );
            }
            let (code, v, stderr) = odds(&args);
            assert_eq!(code, Some(0), "{args:?}: {stderr}");
            let start = deal(seed, layout);
            assert_eq!(v["redeals"], 2);
            let o = &v["odds"];
            assert!(o["exact_policy"].is_null(), "3x5 is not small: {v}");
            if o["exact"] == 1.0 {
                certain += 1;
                assert_eq!(v["round_won"], true);
                assert!(hint_is_legal(&start, variant, &v["odds"]["hint"]), "{v}");
                continue;
            }
            bounded += 1;
            let (lower, upper) = (&o["lower"], &o["upper"]);
            let total = |b: &Value| {
                b["won"].as_u64().unwrap()
                    + b["lost"].as_u64().unwrap()
                    + b["unknown"].as_u64().unwrap()
            };
            assert_eq!((total(lower), total(upper)), (40, 40), "{v}");
            assert_eq!(lower["samples"], 40, "{v}");
            assert!(lower["chance"].as_f64() <= upper["chance"].as_f64(), "{v}");
            assert!(
                lower["ci95_low"].as_f64() <= upper["ci95_high"].as_f64(),
                "{v}"
            );
            assert!(
                o["policy"].as_str().is_some_and(|p| p.contains("redeal")),
                "{v}"
            );
            let hint = &o["hint"];
            if hint.get("redeal").is_some() {
                assert_eq!(hint["redeal"], 1, "{v}: the first of two redeals");
            } else {
                assert!(hint_is_legal(&start, variant, hint), "{v}");
            }
            let (_, again, _) = odds(&args);
            assert_eq!(again["odds"], v["odds"], "repeatable");
        }
    }
    assert!(certain >= 5 && bounded >= 5, "{certain} {bounded}");
    assert!(
        small_bounded >= 1,
        "a small board that is sampled: {small_bounded}"
    );
}

#[test]
fn a_table_of_deals_resumes_from_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("odds.csv");
    let out_text = out.to_str().unwrap();
    // Deals 17..19 are won in their first round: exact, and quick.
    let args = [
        "--variant",
        "common",
        "--deals",
        "3",
        "--from",
        "17",
        "--samples",
        "10",
        "--out",
        out_text,
    ];
    let (code, v, stderr) = odds(&args);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        (v["deals"].as_u64(), v["exact"].as_u64()),
        (Some(3), Some(3)),
        "{v}"
    );
    assert_eq!(v["lower"], 1.0);
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written.lines().count(), 4, "{written}");
    assert!(
        written
            .lines()
            .skip(1)
            .all(|l| l.split(',').nth(1) == Some("1")),
        "{written}"
    );
    let (code, again, _) = odds(&args);
    assert_eq!(code, Some(0));
    assert_eq!(again["deals"], 3);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        written,
        "nothing searched again"
    );
    std::fs::write(&out, "deal,verdict\n").unwrap();
    let (code, _, stderr) = odds(&args);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--out"), "{stderr}");
}

#[test]
fn a_game_in_progress_is_the_position_its_steps_reach() {
    let dir = tempfile::tempdir().unwrap();
    let layout = Layout::new(3, 5).unwrap();
    let start = deal(4, layout);
    let mut moves = gaps_engine::MoveList::<{ gaps_engine::MAX_MOVES }>::default();
    start.legal_moves(Variant::Common, &mut moves);
    let first = moves.as_slice()[0];
    let mut now = start;
    now.play(first);
    let step = serde_json::to_value(gaps::report::MoveJson::from(first)).unwrap();
    let file = dir.path().join("played.json");
    std::fs::write(&file, serde_json::json!([step]).to_string()).unwrap();
    let base = [
        "--deal",
        "4",
        "--suits",
        "3",
        "--ranks",
        "5",
        "--variant",
        "common",
        "--samples",
        "20",
    ];
    let (code, v, stderr) = odds(&[&base[..], &["--played", file.to_str().unwrap()]].concat());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(v["position"], gaps_engine::format_position(&now), "{v}");
    assert_eq!(v["redeals"], 2);
    // A redeal step of a bare position cannot be replayed: its shuffle is unknown.
    std::fs::write(&file, r#"[{"redeal": 1}]"#).unwrap();
    let text = gaps_engine::format_position(&start);
    let (code, _, stderr) = odds(&[
        "--variant",
        "common",
        "--played",
        file.to_str().unwrap(),
        &text,
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--played"), "{stderr}");
}
