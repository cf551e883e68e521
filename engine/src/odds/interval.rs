//! The Wilson score interval of a binomial proportion: the interval every win rate of
//! the project is given with, and each bound of the odds.
//!
//! Invariant: for `n > 0` the interval lies in `[0, 1]` and holds `successes / n`; for
//! `n = 0` it is the whole `[0, 1]` (nothing is known).

/// The normal quantile of a two-sided 95% interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval of `successes` out of `n` at normal quantile `z` (as
/// fractions; `(0, 1)` for `n = 0`).
pub fn wilson(successes: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = successes as f64 / n;
    let z2n = z * z / n;
    let center = (p + z2n / 2.0) / (1.0 + z2n);
    let half = z * (p * (1.0 - p) / n + z2n / (4.0 * n)).sqrt() / (1.0 + z2n);
    // At the ends the interval reaches 0 or 1 exactly (rounding would leave 1 - 1e-16).
    let lo = if successes == 0 {
        0.0
    } else {
        (center - half).max(0.0)
    };
    let hi = if p == 1.0 {
        1.0
    } else {
        (center + half).min(1.0)
    };
    (lo, hi)
}

/// The 95% Wilson interval.
pub fn wilson_95(successes: u64, n: u64) -> (f64, f64) {
    wilson(successes, n, Z_95)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_known_values() {
        // 248 of 1000: 0.2225 .. 0.2754 (the standard Wilson interval).
        let (lo, hi) = wilson_95(248, 1000);
        assert!(
            (lo - 0.2225).abs() < 5e-4 && (hi - 0.2754).abs() < 5e-4,
            "{lo} {hi}"
        );
        assert_eq!(wilson_95(0, 0), (0.0, 1.0));
        let (lo, hi) = wilson_95(0, 10);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.25 && hi < 0.35);
        let (lo, hi) = wilson_95(10, 10);
        assert!(lo > 0.65 && lo < 0.75 && hi == 1.0);
    }
}
