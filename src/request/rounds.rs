//! The rounds a request asks for: the variant of a PySolFC game's first round (a named
//! variant may only repeat it) and the redeals of a deal source (the engine's one rule,
//! [`DealSource::redeal_count`]), with the words both front doors print.
//!
//! Invariant: the command line and the API refuse the same variants and redeals here,
//! with the same words after their own name of the field.

use super::{Field, Refusal};
use gaps_engine::{DealSource, PysolGame, RedealsError, Variant, MAX_REDEALS};

/// The variant of PySolFC `game`'s first round (the game named `what` in the message:
/// `pysol montana:5`, `pysol game montana`): a named variant may only repeat it.
pub fn pysol_variant(
    game: PysolGame,
    what: &dyn std::fmt::Display,
    named: Option<Variant>,
) -> Result<Variant, Refusal> {
    let variant = game.variant();
    match named {
        Some(named) if named != variant => Err(Refusal::new(
            Field::Variant,
            format!("{named} contradicts {what}, whose first round is {variant}"),
        )),
        _ => Ok(variant),
    }
}

/// Redeals a search may use, 0 ..= [`MAX_REDEALS`]: made by [`redeal_count`] (or
/// [`RedealCount::new`]) and carried as itself from the request to the stored job and
/// the search, so no reader narrows an integer (the service stores it as an integer
/// and checks it again when it reads a row).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct RedealCount(u8);

impl RedealCount {
    /// The first round only.
    pub const NONE: RedealCount = RedealCount(0);

    /// `count` redeals, if no more than [`MAX_REDEALS`].
    pub fn new(count: u8) -> Result<RedealCount, RedealsError> {
        if count <= MAX_REDEALS {
            Ok(RedealCount(count))
        } else {
            Err(RedealsError::TooMany(u64::from(count)))
        }
    }

    /// The count, as the engine takes it.
    pub fn get(self) -> u8 {
        self.0
    }

    /// Whether the search goes over rounds (its verdict is then the deal's).
    pub fn any(self) -> bool {
        self.0 > 0
    }
}

/// The redeals of a request for `source` under `variant`: `asked`, or the source's
/// default.
pub fn redeal_count(
    asked: Option<u64>,
    source: &DealSource,
    variant: Variant,
) -> Result<RedealCount, Refusal> {
    let count = source.redeal_count(asked, variant).map_err(|e| {
        let message = match e {
            RedealsError::TooMany(got) => {
                format!(
                    "between 0 and {MAX_REDEALS} (PySolFC's Montana allows two redeals; got {got})"
                )
            }
            e @ (RedealsError::AboveGame { .. } | RedealsError::Aisleriot(_)) => e.to_string(),
            RedealsError::NoShuffle(got) => format!(
                "{got} redeal(s) need the deal's shuffle, which a position alone does not \
                 have: give a numbered deal or a PySolFC game"
            ),
        };
        Refusal::new(Field::Redeals, message)
    })?;
    Ok(RedealCount::new(count).expect("the engine bounds redeals by MAX_REDEALS"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redeal_count_holds_zero_to_max_redeals_only() {
        assert_eq!(RedealCount::default(), RedealCount::NONE);
        assert!(!RedealCount::NONE.any());
        for n in 0..=MAX_REDEALS {
            let count = RedealCount::new(n).unwrap();
            assert_eq!(count.get(), n);
            assert_eq!(count.any(), n > 0);
        }
        assert_eq!(
            RedealCount::new(MAX_REDEALS + 1),
            Err(RedealsError::TooMany(u64::from(MAX_REDEALS) + 1))
        );
        assert_eq!(
            serde_json::to_string(&RedealCount::new(2).unwrap()).unwrap(),
            "2"
        );
    }
}
