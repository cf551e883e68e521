//! PySolFC's deals checked card for card against PyPI's `pysol_cards` (the generators
//! PySolFC imports): `tests/pysol/oracle.py` lays out Montana and Blue Moon from them,
//! and every layout must equal the engine's. Installs `pysol_cards` (pinned) into
//! `target/pysol-cards-venv` on first use. Without Python or PyPI the test says so and
//! passes, except under `CI=true`, where that is a failure.
use gaps_engine::{PysolDeal, PysolGame, SplitMix64, PYSOL_MAX_NUMBER, PYSOL_MT_FROM};
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

#[test]
fn layouts_match_pysol_cards() {
    let python = match oracle_python() {
        Ok(p) => p,
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("the PySolFC oracle is required under CI=true: {why}")
        }
        Err(why) => {
            eprintln!("skipped: no PySolFC oracle ({why})");
            return;
        }
    };
    let numbers = numbers();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pysol/oracle.py");
    let mut child = Command::new(python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the oracle starts");
    let input: String = numbers.iter().map(|n| format!("{n}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "the oracle failed");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), numbers.len());
    for (line, &number) in lines.iter().zip(&numbers) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields[0], number.to_string());
        let montana = PysolDeal::new(PysolGame::Montana, number).unwrap();
        assert_eq!(montana.board_text(), fields[1], "montana:{number}");
        let blue_moon = PysolDeal::new(PysolGame::BlueMoon, number).unwrap();
        assert_eq!(blue_moon.board_text(), fields[2], "blue-moon:{number}");
    }
}
