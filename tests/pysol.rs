//! PySolFC's deals checked card for card against PyPI's `pysol_cards` (the generators
//! PySolFC imports): `tests/pysol/oracle.py` lays out each of the twelve Gaps games
//! from them, and every layout must equal the engine's. Installs `pysol_cards` (pinned) into
//! `target/pysol-cards-venv` on first use. Without Python or PyPI the test says so and
//! passes, except under `CI=true`, where that is a failure.
//!
//! Redeals are checked the same way: `tests/pysol/redeal_oracle.py` runs PySolFC's
//! `dealCards` with the game's generator on boards the engine reached by random play,
//! and its boards after its redeals (one or two, as the game allows) must equal the
//! engine's.
use gaps_engine::{
    pysol_board, redeal, MoveList, Position, PysolDeal, PysolGame, RedealStream, SplitMix64,
    MAX_MOVES, PYSOL_MAX_NUMBER, PYSOL_MT_FROM,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PYSOL_CARDS: &str = "pysol_cards==0.24.0";

/// The venv's Python with `pysol_cards` importable, or why there is none.
fn oracle_python() -> Result<PathBuf, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join("target").join("pysol-cards-venv");
    let python = venv.join("bin").join("python");
    let importable = |python: &Path| {
        Command::new(python)
            .args(["-c", "import pysol_cards.random"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if importable(&python) {
        return Ok(python);
    }
    let run = |cmd: &mut Command| -> Result<(), String> {
        let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{cmd:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    };
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    run(Command::new(&python).args(["-m", "pip", "install", "--quiet", PYSOL_CARDS]))?;
    if importable(&python) {
        Ok(python)
    } else {
        Err("pysol_cards installed but not importable".into())
    }
}

/// Game numbers in both generators' ranges: the first thousands, both sides of the
/// boundary, powers of two where the seed grows a word, the largest numbers, and a
/// fixed sample of the whole range.
fn numbers() -> Vec<u128> {
    let mut numbers: Vec<u128> = (1..=2500).collect();
    numbers.extend(PYSOL_MT_FROM - 1000..PYSOL_MT_FROM + 1000);
    for bits in [31u32, 32, 33, 63, 64, 65] {
        let p = 1u128 << bits;
        numbers.extend(p - 3..p + 3);
    }
    numbers.extend(PYSOL_MAX_NUMBER - 50..=PYSOL_MAX_NUMBER);
    let mut rng = SplitMix64::new(53);
    for _ in 0..2000 {
        let wide = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
        numbers.push(PYSOL_MT_FROM + wide % (PYSOL_MAX_NUMBER - PYSOL_MT_FROM + 1));
    }
    numbers
}

/// Runs `script` (under tests/pysol) on `input` and returns its output lines, or `None`
/// when there is no oracle outside CI.
fn run_oracle(script: &str, input: String) -> Option<Vec<String>> {
    let python = match oracle_python() {
        Ok(p) => p,
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("the PySolFC oracle is required under CI=true: {why}")
        }
        Err(why) => {
            eprintln!("skipped: no PySolFC oracle ({why})");
            return None;
        }
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pysol")
        .join(script);
    let mut child = Command::new(python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the oracle starts");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "the oracle failed");
    let text = String::from_utf8(out.stdout).unwrap();
    Some(text.lines().map(str::to_string).collect())
}

/// The games in the order of oracle.py's columns.
const ORACLE_GAMES: [&str; 12] = [
    "montana",
    "blue-moon",
    "spaces",
    "red-moon",
    "galary",
    "free-parking",
    "jungle",
    "spaces-and-aces",
    "paganini",
    "house-of-commons",
    "line-up",
    "station",
];

#[test]
fn layouts_match_pysol_cards() {
    let numbers = numbers();
    let input: String = numbers.iter().map(|n| format!("{n}\n")).collect();
    let Some(lines) = run_oracle("oracle.py", input) else {
        return;
    };
    assert_eq!(lines.len(), numbers.len());
    for (line, &number) in lines.iter().zip(&numbers) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields[0], number.to_string());
        assert_eq!(fields.len(), 1 + ORACLE_GAMES.len());
        for (name, expected) in ORACLE_GAMES.iter().zip(&fields[1..]) {
            let game = PysolGame::named(name).unwrap();
            let board = pysol_board(game, number).unwrap().to_string();
            assert_eq!(board, *expected, "{game}:{number}");
            if let Ok(deal) = PysolDeal::new(game, number) {
                // A game the engine plays: its position shows as the same board.
                assert_eq!(deal.board_of(&deal.position()), board, "{deal}");
            }
        }
    }
}

/// `pos` after up to `steps` random legal moves of `variant`.
fn wander(
    pos: &Position,
    variant: gaps_engine::Variant,
    steps: usize,
    rng: &mut SplitMix64,
) -> Position {
    let mut pos = *pos;
    let mut moves = MoveList::<MAX_MOVES>::default();
    for _ in 0..steps {
        pos.legal_moves(variant, &mut moves);
        if moves.is_empty() {
            break;
        }
        pos.play(moves[rng.below(moves.len() as u64) as usize]);
    }
    pos
}

#[test]
fn redeals_match_pysolfc() {
    // Games on both sides of the generators' boundary and across the range; the boards
    // redealt are reached by random play (long and short walks, so runs of every length).
    let mut rng = SplitMix64::new(54);
    let mut numbers: Vec<u128> = (1..=600).collect();
    numbers.extend(PYSOL_MT_FROM - 200..PYSOL_MT_FROM + 200);
    for _ in 0..600 {
        numbers
            .push(PYSOL_MT_FROM + u128::from(rng.next_u64()) % (PYSOL_MAX_NUMBER - PYSOL_MT_FROM));
    }
    numbers.push(PYSOL_MAX_NUMBER);
    let mut cases = Vec::new();
    let mut input = String::new();
    let redealt = PysolGame::ALL
        .into_iter()
        .filter(|g| g.is_played() && g.own_redeals() > 0);
    let redealt: Vec<PysolGame> = redealt.collect();
    for &number in &numbers {
        for &game in &redealt {
            let deal = PysolDeal::new(game, number).unwrap();
            let variant = game.variant();
            let steps = [0, 5, 40, 400][(number % 4) as usize];
            let first = wander(&deal.position(), variant, steps, &mut rng);
            let mut stream = RedealStream::pysol(deal);
            let Some(after_first) = redeal(&first, variant, &mut stream) else {
                continue;
            };
            // A game with one redeal is checked on its one; the oracle's second redeal
            // is then of the first's result, which the engine redeals the same way.
            let second = wander(&after_first, variant, steps, &mut rng);
            let Some(after_second) = redeal(&second, variant, &mut stream) else {
                continue;
            };
            input.push_str(&format!(
                "{game}\t{number}\t{}\t{}\n",
                deal.board_of(&first),
                deal.board_of(&second)
            ));
            cases.push((deal, after_first, after_second));
        }
    }
    let Some(lines) = run_oracle("redeal_oracle.py", input) else {
        return;
    };
    assert_eq!(lines.len(), cases.len());
    assert!(cases.len() > 10_000, "{} cases", cases.len());
    for (line, (deal, first, second)) in lines.iter().zip(&cases) {
        let expected = format!("{}\t{}", deal.board_of(first), deal.board_of(second));
        assert_eq!(*line, expected, "{deal}");
    }
}
