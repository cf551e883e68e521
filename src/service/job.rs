//! The typed job: its state machine and the typed values a job carries from the edge to
//! the database and back.
//!
//! Invariants:
//! - A job moves `queued -> running -> done | failed | cancelled` (or `queued ->
//!   cancelled`, and `running -> queued` when a shutdown or a crash interrupts it);
//!   [`JobState::is_final`] states are never left. The store enforces the moves with
//!   conditional updates (`WHERE state = ...`).
//! - Variants, algorithms, verdicts, stop reasons and positions are the engine's types
//!   everywhere in the service; they become text only at the SQL boundary, through
//!   [`Stored`] (the engine's `Display` to write, its `FromStr` to read: a stored value
//!   the engine does not know is a decode error, never a silent default), and at the
//!   HTTP boundary, in the JSON views of `model`.

use serde::{Deserialize, Serialize};
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::sqlite::{Sqlite, SqliteArgumentValue, SqliteTypeInfo, SqliteValueRef};
use std::fmt::Display;
use std::str::FromStr;
use utoipa::ToSchema;

/// Where a job is in its life (see the module invariants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type, ToSchema)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum JobState {
    /// Accepted and waiting for a solver thread.
    Queued,
    /// Claimed by a solver thread.
    Running,
    /// Ended with a verdict.
    Done,
    /// The engine failed (never a limit: limits end `done` with `unknown`).
    Failed,
    /// A user cancelled it.
    Cancelled,
}

impl JobState {
    /// Every state, in the order of the life of a job.
    pub const ALL: [JobState; 5] = [
        JobState::Queued,
        JobState::Running,
        JobState::Done,
        JobState::Failed,
        JobState::Cancelled,
    ];

    /// The public name (as in JSON and in the database).
    pub fn name(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
        }
    }

    /// True once the job can no longer change.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            JobState::Done | JobState::Failed | JobState::Cancelled
        )
    }
}

impl Display for JobState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for JobState {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        JobState::ALL
            .into_iter()
            .find(|state| state.name() == s)
            .ok_or_else(|| {
                format!("unknown state {s:?} (expected queued, running, done, failed or cancelled)")
            })
    }
}

/// An engine value stored as its text: written with `Display`, read back with `FromStr`
/// (the only place where such a value is text inside the service).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored<T>(pub T);

impl<T> sqlx::Type<Sqlite> for Stored<T> {
    fn type_info() -> SqliteTypeInfo {
        <str as sqlx::Type<Sqlite>>::type_info()
    }
    fn compatible(ty: &SqliteTypeInfo) -> bool {
        <str as sqlx::Type<Sqlite>>::compatible(ty)
    }
}

impl<'q, T: Display> sqlx::Encode<'q, Sqlite> for Stored<T> {
    fn encode_by_ref(&self, buf: &mut Vec<SqliteArgumentValue<'q>>) -> Result<IsNull, BoxDynError> {
        <String as sqlx::Encode<'q, Sqlite>>::encode(self.0.to_string(), buf)
    }
}

impl<'r, T> sqlx::Decode<'r, Sqlite> for Stored<T>
where
    T: FromStr,
    T::Err: Display,
{
    fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
        let text = <&str as sqlx::Decode<'r, Sqlite>>::decode(value)?;
        text.parse()
            .map(Stored)
            .map_err(|e| format!("stored value {text:?}: {e}").into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_names_round_trip_and_final_states_are_the_three_ends() {
        for state in JobState::ALL {
            assert_eq!(state.name().parse::<JobState>(), Ok(state));
            assert_eq!(
                serde_json::to_string(&state).unwrap(),
                format!("\"{}\"", state.name())
            );
        }
        let finals: Vec<_> = JobState::ALL.into_iter().filter(|s| s.is_final()).collect();
        assert_eq!(
            finals,
            [JobState::Done, JobState::Failed, JobState::Cancelled]
        );
        assert!("finished".parse::<JobState>().is_err());
    }
}
