//! A job of any game, read as its game's row ([`AnyJob`]).
//!
//! Invariant: a row of `jobs` is read as the type of its `game` (and, for a part of
//! another job, of that part) only: a Morpion job's row has no Gaps board, so it is
//! never decoded as a [`JobRow`], a Gaps job is never read as a proof or as odds, and
//! a unit of a shared proof never as a proof.

use super::morpion::MorpionJobRow;
use super::morpion_units::MorpionUnitRow;
use super::odds::OddsJobRow;
use super::rows::{Claim, JobLife, JobRow};
use crate::service::job::{Game, JobState};

/// A job of any game, read as its game's row.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyJob {
    Gaps(Box<JobRow>),
    Morpion(Box<MorpionJobRow>),
    /// A unit of a shared Morpion proof (a part of that job).
    MorpionUnit(Box<MorpionUnitRow>),
    /// The odds of a Gaps game whose shuffles are unknown.
    Odds(Box<OddsJobRow>),
}

impl AnyJob {
    pub fn id(&self) -> &str {
        match self {
            AnyJob::Gaps(row) => &row.spec.id,
            AnyJob::Morpion(row) => &row.id,
            AnyJob::MorpionUnit(row) => &row.id,
            AnyJob::Odds(row) => &row.spec.id,
        }
    }

    pub fn game(&self) -> Game {
        match self {
            AnyJob::Gaps(_) => Game::Gaps,
            AnyJob::Morpion(_) | AnyJob::MorpionUnit(_) => Game::Morpion,
            AnyJob::Odds(_) => Game::Odds,
        }
    }

    /// Its life: the columns every kind of job has.
    pub fn life(&self) -> &JobLife {
        match self {
            AnyJob::Gaps(row) => &row.life,
            AnyJob::Morpion(row) => &row.life,
            AnyJob::MorpionUnit(row) => &row.life,
            AnyJob::Odds(row) => &row.life,
        }
    }

    pub fn state(&self) -> JobState {
        self.life().state
    }

    /// True once the job can no longer change.
    pub fn is_final(&self) -> bool {
        self.state().is_final()
    }

    /// The client that created it.
    pub fn created_by(&self) -> Option<&str> {
        match self {
            AnyJob::Gaps(row) => row.spec.created_by.as_deref(),
            AnyJob::Morpion(row) => row.created_by.as_deref(),
            AnyJob::MorpionUnit(row) => row.created_by.as_deref(),
            AnyJob::Odds(row) => row.spec.created_by.as_deref(),
        }
    }

    /// The claim it is held under (as read).
    pub fn claim(&self) -> Claim {
        self.life().claim(self.id())
    }

    /// Its place in the queue's order: class, turn, seq.
    pub fn queue_key(&self) -> (i64, i64, i64) {
        self.life().queue_key()
    }

    /// The `seq` a list's cursor names.
    pub fn seq(&self) -> i64 {
        self.life().seq
    }

    /// The Gaps job, if it is one.
    pub fn into_gaps(self) -> Option<JobRow> {
        match self {
            AnyJob::Gaps(row) => Some(*row),
            AnyJob::Morpion(_) | AnyJob::MorpionUnit(_) | AnyJob::Odds(_) => None,
        }
    }

    /// The Morpion job, if it is one.
    pub fn into_morpion(self) -> Option<MorpionJobRow> {
        match self {
            AnyJob::Morpion(row) => Some(*row),
            AnyJob::Gaps(_) | AnyJob::MorpionUnit(_) | AnyJob::Odds(_) => None,
        }
    }
}

/// Reads the `game` column of a row of `jobs`, to decode the row as its game's type.
#[derive(sqlx::FromRow)]
pub(super) struct GameOf {
    pub game: Game,
    /// The job it is a part of, if any.
    pub parent_id: Option<String>,
}

/// A row of [`ANY_JOB_SELECT`] as its game's type.
pub(super) fn decode_any<'r, R: sqlx::Row>(row: &'r R) -> sqlx::Result<AnyJob>
where
    GameOf: sqlx::FromRow<'r, R>,
    JobRow: sqlx::FromRow<'r, R>,
    MorpionJobRow: sqlx::FromRow<'r, R>,
    MorpionUnitRow: sqlx::FromRow<'r, R>,
    OddsJobRow: sqlx::FromRow<'r, R>,
{
    use sqlx::FromRow;
    let of = GameOf::from_row(row)?;
    Ok(match (of.game, of.parent_id) {
        (Game::Gaps, _) => AnyJob::Gaps(Box::new(JobRow::from_row(row)?)),
        (Game::Morpion, None) => AnyJob::Morpion(Box::new(MorpionJobRow::from_row(row)?)),
        (Game::Morpion, Some(_)) => AnyJob::MorpionUnit(Box::new(MorpionUnitRow::from_row(row)?)),
        (Game::Odds, _) => AnyJob::Odds(Box::new(OddsJobRow::from_row(row)?)),
    })
}
