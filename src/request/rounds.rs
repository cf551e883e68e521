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

/// The redeals of a request for `source` under `variant`: `asked`, or the source's
/// default.
pub fn redeal_count(
    asked: Option<u64>,
    source: &DealSource,
    variant: Variant,
) -> Result<u8, Refusal> {
    source.redeal_count(asked, variant).map_err(|e| {
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
    })
}
