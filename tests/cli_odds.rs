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
        (vec!["--deal", "5", "--exact"], "--exact"),
    ] {
        let (code, _, stderr) = odds(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

/// The move of an advice, played on `start`: legal under `variant`.
fn advice_is_legal(start: &Position, variant: Variant, advice: &Value) -> bool {
    let m = &advice["move"];
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
    let (mut certain, mut bounded) = (0, 0);
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
            let (code, v, stderr) = odds(&args);
            assert_eq!(code, Some(0), "{args:?}: {stderr}");
            let start = deal(seed, layout);
            assert_eq!(v["redeals"], 2);
            if v["exact"] == 1.0 {
                certain += 1;
                assert_eq!(v["round_won"], true);
                assert!(advice_is_legal(&start, variant, &v["advice"]), "{v}");
                continue;
            }
            bounded += 1;
            let (lower, upper) = (&v["lower"], &v["upper"]);
            let total = |b: &Value| {
                b["won"].as_u64().unwrap()
                    + b["lost"].as_u64().unwrap()
                    + b["unknown"].as_u64().unwrap()
            };
            assert_eq!((total(lower), total(upper)), (40, 40), "{v}");
            assert!(lower["rate"].as_f64() <= upper["rate"].as_f64(), "{v}");
            assert!(
                lower["ci95"][0].as_f64() <= upper["ci95"][1].as_f64(),
                "{v}"
            );
            match v["advice"]["kind"].as_str() {
                Some("move") => assert!(advice_is_legal(&start, variant, &v["advice"]), "{v}"),
                Some("redeal") => {}
                other => panic!("{args:?}: advice {other:?}"),
            }
            let (_, again, _) = odds(&args);
            assert_eq!(
                (&again["lower"], &again["upper"]),
                (lower, upper),
                "repeatable"
            );
        }
    }
    assert!(certain >= 5 && bounded >= 5, "{certain} {bounded}");
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
