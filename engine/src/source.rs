//! Where a position comes from ([`DealSource`]): the one owner of a deal's starting
//! position, the generator its redeals continue and the rule for how many redeals it
//! may use. The command line, the service, `winrate` and the page all ask it.
//!
//! Invariants:
//! - A source's start and redeal stream are fixed functions of it: the same source
//!   always gives the same position and the same stream.
//! - Redeals need a shuffle: a bare position has none, so it allows none.
//! - The number of redeals is decided by [`DealSource::redeals`] alone: asked, or the
//!   source's own default (a PySolFC game: the game's own number, as PySolFC plays
//!   it; otherwise 0), at most [`MAX_REDEALS`] and at most a PySolFC game's own.
//! - With redeals allowed (even 0 of a PySolFC game) a solve goes over rounds, so its
//!   report says what the first round alone was worth; without, it is a plain solve.

use crate::card::Layout;
use crate::deal::deal;
use crate::position::Position;
use crate::pysol::PysolDeal;
use crate::redeal::RedealStream;
use crate::redeal::{Redeals, RedealsError, MAX_REDEALS};
use crate::variant::Variant;

/// Where a position comes from.
// One is made per request, never per node: `Copy` is worth more than a small size.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DealSource {
    /// This project's deal number `seed` of `layout` (docs/notation.md, "Deals").
    Numbered {
        /// The deal number.
        seed: u64,
        /// The board's size.
        layout: Layout,
    },
    /// A numbered game of PySolFC.
    Pysol(PysolDeal),
    /// A position given as such: it has no shuffle.
    Position(Position),
}

impl DealSource {
    /// The starting position (a PySolFC game's first round, in its own variant).
    pub fn start(&self) -> Position {
        match *self {
            DealSource::Numbered { seed, layout } => deal(seed, layout),
            DealSource::Pysol(game) => game.position(),
            DealSource::Position(position) => position,
        }
    }

    /// The generator a redeal continues, where the deal left it (`None`: no shuffle).
    pub fn redeal_stream(&self) -> Option<RedealStream> {
        match *self {
            DealSource::Numbered { seed, layout } => Some(RedealStream::deal(seed, layout.cells())),
            DealSource::Pysol(game) => Some(RedealStream::pysol(game)),
            DealSource::Position(_) => None,
        }
    }

    /// The variant the source is played in, if it fixes one (a PySolFC game does).
    pub fn own_variant(&self) -> Option<Variant> {
        match self {
            DealSource::Pysol(game) => Some(game.game.variant()),
            _ => None,
        }
    }

    /// Redeals the source allows when none are asked for.
    pub fn default_redeals(&self) -> u8 {
        match self {
            DealSource::Pysol(game) => game.game.own_redeals(),
            _ => 0,
        }
    }

    /// The number of redeals a request under `variant` may use: `asked`, or the
    /// source's default (see the module invariants); `aisleriot` takes none (Aisleriot's
    /// own shuffles cannot be reproduced).
    pub fn redeal_count(&self, asked: Option<u64>, variant: Variant) -> Result<u8, RedealsError> {
        let count = asked.unwrap_or(u64::from(self.default_redeals()));
        if count > 0 && variant == Variant::Aisleriot {
            return Err(RedealsError::Aisleriot(count));
        }
        if count > u64::from(MAX_REDEALS) {
            return Err(RedealsError::TooMany(count));
        }
        if let DealSource::Pysol(deal) = self {
            if count > u64::from(deal.game.own_redeals()) {
                return Err(RedealsError::AboveGame {
                    asked: count,
                    game: deal.game,
                });
            }
        }
        if count > 0 && self.redeal_stream().is_none() {
            return Err(RedealsError::NoShuffle(count));
        }
        Ok(count as u8)
    }

    /// What a solve of this source with `count` redeals passes to the solver: `None`
    /// for a plain solve (no redeals, and not a PySolFC game), else the redeals with
    /// the stream (see the module invariants).
    pub fn redeals(&self, count: u8) -> Option<Redeals> {
        let plays_rounds = count > 0 || matches!(self, DealSource::Pysol(_));
        let stream = self.redeal_stream().filter(|_| plays_rounds)?;
        Some(Redeals { count, stream })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pysol::PysolGame;

    #[test]
    fn each_source_gives_its_start_stream_and_redeal_rule() {
        let layout = Layout::new(4, 13).unwrap();
        let numbered = DealSource::Numbered { seed: 7, layout };
        assert_eq!(numbered.start(), deal(7, layout));
        assert_eq!(numbered.redeal_count(None, Variant::Common), Ok(0));
        assert_eq!(numbered.redeal_count(Some(2), Variant::Common), Ok(2));
        assert_eq!(
            numbered.redeal_count(Some(3), Variant::Common),
            Err(RedealsError::TooMany(3))
        );
        assert!(
            numbered.redeals(0).is_none(),
            "our deals without redeals: a plain solve"
        );
        assert_eq!(numbered.redeals(1).unwrap().count, 1);

        let game = PysolDeal::new(PysolGame::Montana, 12345).unwrap();
        let pysol = DealSource::Pysol(game);
        assert_eq!(pysol.start(), game.position());
        assert_eq!(pysol.own_variant(), Some(Variant::Common));
        assert_eq!(pysol.redeal_count(None, Variant::Common), Ok(MAX_REDEALS));
        assert_eq!(
            pysol.redeals(0).unwrap().count,
            0,
            "rounds, to report the first"
        );

        let position = DealSource::Position(deal(7, layout));
        assert_eq!(position.redeal_count(None, Variant::Common), Ok(0));
        assert_eq!(
            position.redeal_count(Some(1), Variant::Common),
            Err(RedealsError::NoShuffle(1))
        );
        assert!(position.redeals(0).is_none());
        // The same source, the same stream.
        let (mut a, mut b) = (
            pysol.redeal_stream().unwrap(),
            pysol.redeal_stream().unwrap(),
        );
        assert!((0..100).all(|_| a.below(40) == b.below(40)));
    }
}
