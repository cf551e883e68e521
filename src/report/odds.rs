//! The public JSON of the odds with unknown shuffles (`gaps odds --json`).
//!
//! Invariant: field names are public (docs/cli.md, "gaps odds"); additions are fine,
//! renames are not. Fractions are in `[0, 1]`; `lower.ci95[0] <= upper.ci95[1]`.

use super::MoveJson;
use gaps_engine::{format_position, Advice, OddsReport, Position, Tally, Variant};
use serde::Serialize;

/// One bound's samples and interval.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct BoundJson {
    /// Samples won (each line replayed).
    pub won: u32,
    /// Samples proved lost.
    pub lost: u32,
    /// Samples left undecided within the limits: lost for the lower bound, won for
    /// the upper one.
    pub unknown: u32,
    /// The bound's estimate: `won / samples` (lower), `(won + unknown) / samples`
    /// (upper).
    pub rate: f64,
    /// Its 95% Wilson interval.
    pub ci95: [f64; 2],
}

impl BoundJson {
    fn new(tally: Tally, counted: u32, interval: (f64, f64)) -> BoundJson {
        let samples = tally.samples();
        BoundJson {
            won: tally.won,
            lost: tally.lost,
            unknown: tally.unknown,
            rate: if samples == 0 {
                0.0
            } else {
                f64::from(counted) / f64::from(samples)
            },
            ci95: [interval.0, interval.1],
        }
    }
}

/// What the lower bound's strategy plays next.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum AdviceJson {
    /// The position is won.
    Won,
    /// Play this move.
    Move {
        #[serde(rename = "move")]
        mv: MoveJson,
    },
    /// Redeal now.
    Redeal,
    /// No advice: no redeal left and no win found.
    None,
}

/// The answer of `gaps odds`.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct OddsJson {
    /// The position the odds are of.
    pub position: String,
    pub variant: String,
    /// Redeals left.
    pub redeals: u8,
    /// Samples asked for.
    pub samples: u32,
    /// Seed of the sampled shuffles.
    pub shuffle_seed: u64,
    /// The exact chance, when known without sampling (1: the round in play is won; 0:
    /// no redeal left and the round proved lost).
    pub exact: Option<f64>,
    /// The strategy that does not see the shuffles (docs/engine.md, "Odds").
    pub lower: BoundJson,
    /// The same shuffles known in advance.
    pub upper: BoundJson,
    /// The round in play searched alone: true (won), false (proved lost), null.
    pub round_won: Option<bool>,
    /// Distinct redeals the round in play offers, as far as it was enumerated.
    pub redeal_points: usize,
    /// Whether every position of the round in play was enumerated.
    pub round_complete: bool,
    /// Cards kept in place by the strategy's first redeal.
    pub redeal_kept: Option<usize>,
    /// The strategy's next step.
    pub advice: AdviceJson,
    pub nodes: u64,
    pub elapsed_ms: f64,
    /// Why sampling ended before every sample, if it did (`node_limit`, `time_limit`,
    /// `cancelled`).
    pub stopped: Option<String>,
    /// With `--exact` (small boards): the best chance, by expectimax over every
    /// shuffle, and the lower bound's strategy's own chance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_odds: Option<ExactJson>,
}

/// The exact chances of a small board.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub struct ExactJson {
    /// The best chance of a player who does not see the shuffles.
    pub best: f64,
    /// The chance of the lower bound's strategy.
    pub strategy: f64,
}

impl OddsJson {
    /// The JSON of `report`, the odds of `start` under `variant` with `redeals` left.
    pub fn new(
        start: &Position,
        variant: Variant,
        redeals: u8,
        samples: u32,
        report: &OddsReport,
    ) -> OddsJson {
        let (lower, upper) = (report.lower, report.upper);
        OddsJson {
            position: format_position(start),
            variant: variant.to_string(),
            redeals,
            samples,
            shuffle_seed: report.shuffle_seed,
            exact: report.exact,
            lower: BoundJson::new(lower, lower.won, report.lower_interval()),
            upper: BoundJson::new(upper, upper.won + upper.unknown, report.upper_interval()),
            round_won: report.round_won,
            redeal_points: report.redeal_points,
            round_complete: report.round_complete,
            redeal_kept: report.redeal_kept,
            advice: match report.advice {
                Advice::Won => AdviceJson::Won,
                Advice::Play(m) => AdviceJson::Move { mv: m.into() },
                Advice::RedealNow => AdviceJson::Redeal,
                Advice::None => AdviceJson::None,
            },
            nodes: report.nodes,
            elapsed_ms: report.elapsed.as_secs_f64() * 1e3,
            stopped: report.stopped.map(|reason| reason.to_string()),
            exact_odds: None,
        }
    }
}
