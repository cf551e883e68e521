//! The odds of a game whose shuffles are unknown, as a request asks them (`gaps odds`,
//! a job's `"odds": {"samples": N}`): how many samples, and how many redeals.
//!
//! Invariant: the command line and the API accept and refuse the same odds requests
//! here, with the same words after their own name of the field. A redeal needs no
//! generator here (its shuffle is what is sampled), so a bare position may have
//! redeals, under every variant, `aisleriot` included.

use super::rounds::RedealCount;
use super::{Field, Refusal};
use gaps_engine::MAX_REDEALS;

/// The most samples an answer takes.
pub const MAX_SAMPLES: u32 = 1_000_000;

/// Samples when a request names none.
pub const DEFAULT_SAMPLES: u32 = 100;

/// Redeals left when a request names none: PySolFC Montana's two.
pub const DEFAULT_REDEALS: u8 = 2;

/// What an odds request asks beside its position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OddsAsk {
    /// Sequences of shuffles sampled (default [`DEFAULT_SAMPLES`]).
    pub samples: Option<u64>,
    /// Redeals of the game (default [`DEFAULT_REDEALS`]).
    pub redeals: Option<u64>,
    /// Whether the position is a PySolFC game's (refused: its shuffles are known).
    pub pysol: bool,
}

/// An odds request, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OddsChoice {
    pub samples: u32,
    pub redeals: RedealCount,
}

impl OddsAsk {
    /// The samples and redeals asked, or the refusal naming the field.
    pub fn check(&self) -> Result<OddsChoice, Refusal> {
        if self.pysol {
            return Err(Refusal::new(
                Field::Pysol,
                "a PySolFC game's shuffles are known (its generator): solve it with its \
                 redeals for the exact answer; the odds take a numbered deal or a position"
                    .into(),
            ));
        }
        let samples = self.samples.unwrap_or(u64::from(DEFAULT_SAMPLES));
        let samples = u32::try_from(samples)
            .ok()
            .filter(|n| (1..=MAX_SAMPLES).contains(n))
            .ok_or_else(|| {
                Refusal::new(
                    Field::Samples,
                    format!("1 to {MAX_SAMPLES} (got {samples})"),
                )
            })?;
        let redeals = self.redeals.unwrap_or(u64::from(DEFAULT_REDEALS));
        let redeals = u8::try_from(redeals)
            .ok()
            .and_then(|n| RedealCount::new(n).ok())
            .ok_or_else(|| {
                Refusal::new(
                    Field::Redeals,
                    format!("between 0 and {MAX_REDEALS} (got {redeals})"),
                )
            })?;
        Ok(OddsChoice { samples, redeals })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_and_redeals_are_checked_with_their_defaults() {
        let ok = OddsAsk::default().check().unwrap();
        assert_eq!((ok.samples, ok.redeals.get()), (100, 2));
        let asked = OddsAsk {
            samples: Some(1),
            redeals: Some(0),
            pysol: false,
        };
        assert_eq!(asked.check().unwrap().redeals, RedealCount::NONE);
        for (samples, redeals, pysol, field) in [
            (Some(0), None, false, Field::Samples),
            (Some(1_000_001), None, false, Field::Samples),
            (Some(u64::MAX), None, false, Field::Samples),
            (None, Some(3), false, Field::Redeals),
            (None, Some(256), false, Field::Redeals),
            (None, None, true, Field::Pysol),
        ] {
            let ask = OddsAsk {
                samples,
                redeals,
                pysol,
            };
            assert_eq!(ask.check().unwrap_err().field, field, "{ask:?}");
        }
    }
}
