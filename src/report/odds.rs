//! The public JSON of the odds with unknown shuffles (`gaps odds --json`).
//!
//! Invariant: field names are public (docs/cli.md, "gaps odds"); additions are fine,
//! renames are not. Fractions are in `[0, 1]`; `odds.lower.ci95_low <=
//! odds.upper.ci95_high`.

use super::{MoveJson, StepJson};
use gaps_engine::{format_position, Advice, OddsReport, Position, Tally, Variant, Z_95};
use serde::{Deserialize, Serialize};

/// One bound's samples and interval.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct BoundJson {
    /// The bound's estimate: `won / samples` (lower), `(won + unknown) / samples`
    /// (upper); the exact chance when it is known.
    pub chance: f64,
    /// Its 95% Wilson interval.
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// Samples played.
    pub samples: u32,
    /// Samples left undecided within the limits: lost for the lower bound, won for
    /// the upper one.
    pub unknown: u32,
    /// Samples won (each line replayed).
    pub won: u32,
    /// Samples proved lost.
    pub lost: u32,
}

impl BoundJson {
    /// The bound of `tally` counting `counted` samples as won; `unsampled` is the bound
    /// when no sample was played (0 below, 1 above: nothing is known).
    fn new(
        tally: Tally,
        counted: u32,
        interval: (f64, f64),
        exact: Option<f64>,
        unsampled: f64,
    ) -> BoundJson {
        let samples = tally.samples();
        BoundJson {
            chance: match (exact, samples) {
                (Some(p), _) => p,
                (None, 0) => unsampled,
                (None, n) => f64::from(counted) / f64::from(n),
            },
            ci95_low: interval.0,
            ci95_high: interval.1,
            samples,
            unknown: tally.unknown,
            won: tally.won,
            lost: tally.lost,
        }
    }
}

/// The strategy behind the lower bound, in words.
pub const POLICY: &str = "in each round, play its win if a search of the round alone finds one; \
     else redeal at the position of the round whose redeal keeps the most cards in place \
     (then the smaller runs), found by a search of the round by cards kept";

/// The odds: both bounds, the exact chance where it is known, the strategy's next step.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct OddsPart {
    /// The strategy of the lower bound.
    pub policy: String,
    /// That strategy over the sampled shuffles.
    pub lower: BoundJson,
    /// A player who knows the same sampled shuffles in advance.
    pub upper: BoundJson,
    /// The chance where it is known exactly: 1 when the round in play is won, 0 when no
    /// redeal is left and it is proved lost, the expectimax value on small boards.
    pub exact: Option<f64>,
    /// The strategy's next step: a move, or `{"redeal": k}`; `null` when the game is
    /// won or no line is known.
    pub hint: Option<StepJson>,
    /// On small boards: the chance of the strategy itself, by expectimax.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_policy: Option<f64>,
}

/// The answer of `gaps odds`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct OddsJson {
    /// The position the odds are of (after the played steps, for a game in progress).
    pub position: String,
    pub variant: String,
    /// Redeals left.
    pub redeals: u8,
    /// Samples asked for.
    pub samples: u32,
    /// Seed of the sampled shuffles.
    pub shuffle_seed: u64,
    pub odds: OddsPart,
    /// The round in play searched alone: true (won), false (proved lost), null.
    pub round_won: Option<bool>,
    /// Distinct redeals the round in play offers, as far as it was enumerated.
    pub redeal_points: usize,
    /// Whether every position of the round in play was enumerated.
    pub round_complete: bool,
    /// Cards kept in place by the strategy's first redeal.
    pub redeal_kept: Option<usize>,
    pub nodes: u64,
    pub elapsed_ms: f64,
    /// Why sampling ended before every sample, if it did (`node_limit`, `time_limit`,
    /// `cancelled`).
    pub stopped: Option<String>,
}

/// The exact chances of a small board: the best, and the strategy's own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactChances {
    pub best: f64,
    pub policy: f64,
}

impl OddsJson {
    /// The JSON of `report`, the odds of `start` under `variant` with `redeals` left
    /// of a game that allows `allowed` (the next redeal is number `allowed - redeals +
    /// 1`), with the exact chances of a small board.
    pub fn new(
        start: &Position,
        variant: Variant,
        redeals: u8,
        allowed: u8,
        samples: u32,
        report: &OddsReport,
        small: Option<ExactChances>,
    ) -> OddsJson {
        let (lower, upper) = (report.lower, report.upper);
        let exact = report.exact.or(small.map(|s| s.best));
        OddsJson {
            position: format_position(start),
            variant: variant.to_string(),
            redeals,
            samples,
            shuffle_seed: report.shuffle_seed,
            odds: OddsPart {
                policy: POLICY.to_string(),
                lower: BoundJson::new(lower, lower.won, report.lower_interval(), report.exact, 0.0),
                upper: BoundJson::new(
                    upper,
                    upper.won + upper.unknown,
                    report.upper_interval(),
                    report.exact,
                    1.0,
                ),
                exact,
                hint: match report.advice {
                    Advice::Won | Advice::None => None,
                    Advice::Play(m) => Some(StepJson::Move(MoveJson::from(m))),
                    Advice::RedealNow => Some(StepJson::Redeal {
                        redeal: allowed.saturating_sub(redeals) + 1,
                    }),
                },
                exact_policy: small.map(|s| s.policy),
            },
            round_won: report.round_won,
            redeal_points: report.redeal_points,
            round_complete: report.round_complete,
            redeal_kept: report.redeal_kept,
            nodes: report.nodes,
            elapsed_ms: report.elapsed.as_secs_f64() * 1e3,
            stopped: report.stopped.map(|reason| reason.to_string()),
        }
    }
}

/// The mean of `n` deals' rates whose sum is `sum` and sum of squares `squares`, with
/// its normal 95% interval over the deals (the standard error of the rates, which holds
/// both the spread of the deals and the sampling of each), clamped to [0, 1]: how a
/// bound is given over many deals (`gaps odds --deals`, a batch of odds jobs).
pub fn mean_over_deals(n: u64, sum: f64, squares: f64) -> (f64, [f64; 2]) {
    let d = n.max(1) as f64;
    let mean = sum / d;
    let var = ((squares - d * mean * mean) / (d - 1.0).max(1.0)).max(0.0);
    let half = Z_95 * (var / d).sqrt();
    (mean, [(mean - half).max(0.0), (mean + half).min(1.0)])
}

#[cfg(test)]
mod tests {
    use super::mean_over_deals;

    #[test]
    fn the_mean_over_deals_has_the_normal_interval_of_its_rates() {
        let rates = [0.5, 0.75, 1.0, 1.0];
        let (sum, squares) = (rates.iter().sum(), rates.iter().map(|r| r * r).sum());
        let (mean, [low, high]) = mean_over_deals(4, sum, squares);
        assert!((mean - 0.8125).abs() < 1e-12);
        // Sample variance 0.05729..., standard error 0.11968..., times 1.96.
        assert!((high - 1.0).abs() < 1e-12, "clamped to 1");
        assert!(
            (low - (0.8125 - 1.959_963_984_540_054 * (0.057_291_666_666_666_664_f64 / 4.0).sqrt()))
                .abs()
                < 1e-9
        );
        assert_eq!(mean_over_deals(1, 0.25, 0.0625), (0.25, [0.25, 0.25]));
        assert_eq!(mean_over_deals(0, 0.0, 0.0), (0.0, [0.0, 0.0]));
    }
}
