//! The odds of winning when the shuffles of the redeals are unknown (GNOME Aisleriot,
//! real cards, every Gaps whose generator no one can reproduce): a lower bound, an
//! upper bound, and the exact chance where it is known (docs/engine.md, "Odds").
//!
//! - **Lower bound**: a strategy that decides where to redeal without seeing the
//!   shuffles to come (`policy`), played on `samples` sampled sequences of shuffles;
//!   its rate of wins, with a Wilson interval, estimates a chance that no player can
//!   beat only by luck, so it is at most the best chance. It also gives the next step.
//! - **Upper bound**: on the same sequences, a player who knows them in advance
//!   (`clairvoyant`): at least as good as any player on every sample.
//! - **Exact**: 1 when the round in play is won without a redeal, 0 when no redeal is
//!   left and the round is proved lost; on small boards, by expectimax over every
//!   shuffle ([`ExactOdds`]).
//!
//! A redeal may be taken where the variant allows one (`redeal::redeal_allowed_at`:
//! anywhere under PySolFC's Montana rule, `basic` and `common`; only with no move left
//! under `aisleriot`), and deals the gathered cards back with a gap after each run.
//!
//! Invariants: sample `i`'s shuffles come from a stream seeded by the `i`-th draw of
//! SplitMix64 seeded with `shuffle_seed`, so an answer is repeatable and both bounds
//! see the same shuffles; every sampled win is replayed under its rules, redeals
//! included, before it is counted; a sample whose search stays undecided counts as lost
//! for the lower bound and as won for the upper one, and the report says how many
//! there were; on every sample the lower bound's player wins only if the upper
//! bound's does (so `lower.won <= upper.won + upper.unknown`, sample by sample).

mod clairvoyant;
mod exact;
mod interval;
mod policy;
mod round;

pub use exact::{ExactOdds, ExactOddsError, MAX_GATHERED};
pub use interval::{wilson, wilson_95, Z_95};

use crate::deal::SplitMix64;
use crate::moves::Move;
use crate::position::Position;
use crate::redeal::RedealStream;
use crate::search::budget::{Budget, StopReason};
use crate::solve::{SolveError, SolveOptions, Solver};
use policy::{Sample, SampleEnd};
use round::{analyse, RoundLimits, RoundVerdict};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Nodes of each round's own search, by default.
pub const DEFAULT_ROUND_NODES: u64 = 1 << 21;
/// Nodes of the own search of the round in play, by default: it is searched once for
/// every sample, so it can be searched longer (a win found there makes the answer
/// exact, and spares every sample).
pub const DEFAULT_FIRST_ROUND_NODES: u64 = 1 << 25;
/// Positions of a round enumerated for its redeal points, by default.
pub const DEFAULT_ROUND_POINTS: usize = 1 << 18;
/// Nodes of the upper bound's search of one sample, by default.
pub const DEFAULT_SAMPLE_NODES: u64 = 1 << 23;

/// What to compute.
#[derive(Clone, Copy, Debug)]
pub struct OddsOptions {
    /// The rules (`variant`), each round's search (`algorithm`, `memory_limit`,
    /// `threads`, `seed`), and the limits of the whole answer (`max_nodes`,
    /// `time_limit`, over every sample).
    pub solve: SolveOptions,
    /// Redeals left.
    pub redeals: u8,
    /// Sequences of shuffles sampled.
    pub samples: u32,
    /// Seed of the sampled shuffles (recorded in the report).
    pub shuffle_seed: u64,
    /// Nodes of each later round's own search ([`DEFAULT_ROUND_NODES`]).
    pub round_nodes: u64,
    /// Nodes of the own search of the round in play ([`DEFAULT_FIRST_ROUND_NODES`]).
    pub first_round_nodes: u64,
    /// Positions of a round enumerated for its redeal points ([`DEFAULT_ROUND_POINTS`]).
    pub round_points: usize,
    /// Nodes of the upper bound's search of one sample ([`DEFAULT_SAMPLE_NODES`]).
    pub sample_nodes: u64,
}

impl OddsOptions {
    /// The defaults for `variant` with `redeals` left and `samples` samples.
    pub fn new(solve: SolveOptions, redeals: u8, samples: u32) -> OddsOptions {
        OddsOptions {
            solve,
            redeals,
            samples,
            shuffle_seed: 0,
            round_nodes: DEFAULT_ROUND_NODES,
            first_round_nodes: DEFAULT_FIRST_ROUND_NODES,
            round_points: DEFAULT_ROUND_POINTS,
            sample_nodes: DEFAULT_SAMPLE_NODES,
        }
    }
}

/// How the samples of one bound ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Won (each line replayed).
    pub won: u32,
    /// Proved lost.
    pub lost: u32,
    /// Undecided within the limits.
    pub unknown: u32,
}

impl Tally {
    /// Samples counted.
    pub fn samples(&self) -> u32 {
        self.won + self.lost + self.unknown
    }

    fn add(&mut self, end: &SampleEnd) {
        match end {
            SampleEnd::Won { .. } => self.won += 1,
            SampleEnd::Lost => self.lost += 1,
            SampleEnd::Unknown => self.unknown += 1,
        }
    }
}

/// What the player who follows the lower bound's strategy does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// The position is won already.
    Won,
    /// Play this move (of a winning line when the round is won, else towards the
    /// position to redeal at).
    Play(Move),
    /// Redeal now.
    RedealNow,
    /// Nothing to advise: no redeal is left and no win was found.
    None,
}

/// The answer.
#[derive(Clone, Debug, PartialEq)]
pub struct OddsReport {
    /// The exact chance, when known without sampling.
    pub exact: Option<f64>,
    /// The lower bound's samples (its strategy, shuffles unseen).
    pub lower: Tally,
    /// The upper bound's samples (the same shuffles, known in advance).
    pub upper: Tally,
    /// The next step of the lower bound's strategy.
    pub advice: Advice,
    /// The round in play, searched alone: won, lost, or undecided (`None`).
    pub round_won: Option<bool>,
    /// Distinct redeals the round in play offers (as far as it was enumerated).
    pub redeal_points: usize,
    /// Every position of the round in play was enumerated for its redeals.
    pub round_complete: bool,
    /// Cards kept in place by the redeal the lower bound's strategy takes first.
    pub redeal_kept: Option<usize>,
    /// Nodes searched, over every sample.
    pub nodes: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Why sampling stopped before every sample was played, if it did.
    pub stopped: Option<StopReason>,
    /// The seed of the sampled shuffles.
    pub shuffle_seed: u64,
}

impl OddsReport {
    /// The lower bound's 95% interval: its wins over its samples (an undecided sample
    /// counted as lost); `exact` when known.
    pub fn lower_interval(&self) -> (f64, f64) {
        match self.exact {
            Some(p) => (p, p),
            None => wilson_95(u64::from(self.lower.won), u64::from(self.lower.samples())),
        }
    }

    /// The upper bound's 95% interval: its wins and undecided samples over its samples.
    pub fn upper_interval(&self) -> (f64, f64) {
        match self.exact {
            Some(p) => (p, p),
            None => wilson_95(
                u64::from(self.upper.won + self.upper.unknown),
                u64::from(self.upper.samples()),
            ),
        }
    }
}

/// The odds from `start` under `options` (module doc). `cancel` stops it (the report
/// then holds the samples played), `progress` receives the nodes searched so far.
pub fn odds(
    solver: &mut Solver,
    start: &Position,
    options: &OddsOptions,
    cancel: Option<&AtomicBool>,
    progress: Option<&AtomicU64>,
) -> Result<OddsReport, SolveError> {
    let began = Instant::now();
    let solve = SolveOptions {
        max_nodes: None,
        time_limit: None,
        ..options.solve
    };
    let budget = Budget::new(options.solve.max_nodes, options.solve.time_limit, cancel);
    let limits = RoundLimits {
        nodes: options.round_nodes,
        points: options.round_points,
    };
    let mut report = OddsReport {
        exact: None,
        lower: Tally::default(),
        upper: Tally::default(),
        advice: Advice::None,
        round_won: None,
        redeal_points: 0,
        round_complete: false,
        redeal_kept: None,
        nodes: 0,
        elapsed: Duration::ZERO,
        stopped: None,
        shuffle_seed: options.shuffle_seed,
    };
    let first_limits = RoundLimits {
        nodes: options.first_round_nodes,
        ..limits
    };
    let first = match analyse(
        solver,
        &solve,
        start,
        options.redeals,
        first_limits,
        &budget,
        0,
    )? {
        Ok(round) => round,
        Err(reason) => {
            report.stopped = Some(reason);
            report.elapsed = began.elapsed();
            return Ok(report);
        }
    };
    report.nodes = first.nodes;
    report.redeal_points = first.points.len();
    report.round_complete = first.complete;
    match &first.verdict {
        RoundVerdict::Won(line) => {
            report.exact = Some(1.0);
            report.round_won = Some(true);
            report.advice = line.first().map_or(Advice::Won, |&m| Advice::Play(m));
        }
        RoundVerdict::Lost if options.redeals == 0 => {
            report.exact = Some(0.0);
            report.round_won = Some(false);
        }
        verdict => {
            report.round_won = (*verdict == RoundVerdict::Lost).then_some(false);
            if let Some(point) = first.points.first() {
                report.redeal_kept = Some(point.kept);
                report.advice = point
                    .line
                    .first()
                    .map_or(Advice::RedealNow, |&m| Advice::Play(m));
            }
        }
    }
    if report.exact.is_some() || options.redeals == 0 {
        report.elapsed = began.elapsed();
        return Ok(report);
    }
    let mut seeds = SplitMix64::new(options.shuffle_seed);
    for _ in 0..options.samples {
        let stream = RedealStream::sampled(seeds.next_u64());
        let sample = Sample {
            options: &solve,
            start,
            first: &first,
            redeals: options.redeals,
            stream: &stream,
            budget: &budget,
        };
        let (lower, nodes) = policy::play_sample(solver, &sample, limits, report.nodes)?;
        report.nodes += nodes;
        let lower = match lower {
            Ok(end) => end,
            Err(reason) => {
                report.stopped = Some(reason);
                break;
            }
        };
        let upper = if matches!(lower, SampleEnd::Won { .. }) {
            lower.clone()
        } else {
            let (upper, nodes) =
                clairvoyant::solve_sample(solver, &sample, options.sample_nodes, report.nodes)?;
            report.nodes += nodes;
            match upper {
                Ok(end) => end,
                Err(reason) => {
                    report.stopped = Some(reason);
                    break;
                }
            }
        };
        report.lower.add(&lower);
        report.upper.add(&upper);
        if let Some(p) = progress {
            p.store(report.nodes, Ordering::Relaxed);
        }
    }
    report.elapsed = began.elapsed();
    Ok(report)
}
