//! The fuzz targets' properties (`fuzz/properties.rs`) on every committed corpus input
//! and every regression input (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`),
//! under plain `cargo test`: no libFuzzer, no nightly compiler. An input that once
//! crashed a target is kept in `fuzz/regressions/` and so tested on every run.

#[path = "../fuzz/properties.rs"]
mod properties;

use std::path::Path;

/// Runs `property` on every file under `fuzz/corpus/<target>` and
/// `fuzz/regressions/<target>`; returns how many there were.
fn run_inputs(target: &str, property: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut count = 0;
    for folder in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(folder).join(target)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| property(&data));
            assert!(
                outcome.is_ok(),
                "{} fails the {target} property",
                path.display()
            );
            count += 1;
        }
    }
    count
}

#[test]
fn notation_corpus() {
    assert!(run_inputs("notation", properties::notation) >= 8);
}

#[test]
fn request_json_corpus() {
    assert!(run_inputs("request_json", properties::request_json) >= 9);
}

#[test]
fn replay_corpus() {
    assert!(run_inputs("replay", properties::replay) >= 7);
}
