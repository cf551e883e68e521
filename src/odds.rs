//! The odds with unknown shuffles of a deal or a game in progress, answered the same
//! way by `gaps odds` and by an odds job (docs/engine.md, "Odds"; docs/http.md, "Odds
//! jobs").
//!
//! Invariants: a game in progress is replayed under its rules from its deal before
//! anything is searched (an illegal step is refused, naming it); its played redeals
//! replay with the deal's own generator where it has one (our numbered deals under
//! PySolFC's rule), and elsewhere a played line holds moves only, since no one knows
//! the shuffle a redeal made there. The answer is the engine's report in the public
//! shape, with the exact chances on boards small enough for them.

use crate::played::{GameInProgress, PlayedInputError};
use crate::report::odds::{ExactChances, OddsJson};
use crate::report::StepJson;
use gaps_engine::{
    odds, DealSource, ExactOdds, ExactOddsError, OddsOptions, Position, SolveError, Solver, Variant,
};
use std::sync::atomic::{AtomicBool, AtomicU64};

/// Memory of each round's search when a request names none: the rounds are searched
/// one at a time for at most their own node budget, so the time limit does not size it.
pub const ROUND_MEMORY_BYTES: usize = 512 << 20;

/// A game whose odds are asked: where it stands and the redeals it has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OddsGame {
    /// The position the odds are of (after the played steps).
    pub position: Position,
    pub variant: Variant,
    /// Redeals the game allows in all.
    pub redeals: u8,
    /// Redeals left at `position`.
    pub left: u8,
}

impl OddsGame {
    /// The game of `source` under `variant` with `redeals` in all, after `played` (if
    /// given): its steps replayed under the rules (see the module invariants).
    pub fn new(
        source: DealSource,
        variant: Variant,
        redeals: u8,
        played: Option<&[StepJson]>,
    ) -> Result<OddsGame, PlayedInputError> {
        let Some(steps) = played else {
            return Ok(OddsGame {
                position: source.start(),
                variant,
                redeals,
                left: redeals,
            });
        };
        let replayable =
            matches!(source, DealSource::Numbered { .. }) && variant != Variant::Aisleriot;
        let allowed = if replayable { redeals } else { 0 };
        let game = GameInProgress::replay(source, variant, allowed, steps)?;
        let position = game.position_now().expect("an engine game has a position");
        Ok(OddsGame {
            position,
            variant,
            redeals,
            left: redeals - game.redeals_used(game.steps().len()),
        })
    }

    /// The odds of this game: `options` (its rules and budgets; its `redeals` are this
    /// game's redeals left) on `solver`, stopped by `cancel`, its nodes published to
    /// `progress`.
    pub fn answer(
        &self,
        solver: &mut Solver,
        options: &OddsOptions,
        cancel: Option<&AtomicBool>,
        progress: Option<&AtomicU64>,
    ) -> Result<OddsJson, SolveError> {
        let options = OddsOptions {
            redeals: self.left,
            ..*options
        };
        // The exact chances where the board is small enough (`ExactOdds` refuses others).
        let mut exact = ExactOdds::new(self.variant);
        let small = match exact.best(&self.position, self.left) {
            Ok(best) => Some(ExactChances {
                best,
                policy: exact
                    .policy(&self.position, self.left)
                    .expect("the same board, within the size"),
            }),
            Err(ExactOddsError::TooLarge(_)) => None,
        };
        let report = odds(solver, &self.position, &options, cancel, progress)?;
        Ok(OddsJson::new(
            &self.position,
            self.variant,
            self.left,
            self.redeals,
            options.samples,
            &report,
            small,
        ))
    }
}
