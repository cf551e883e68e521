//! The typed job: its state machine and the typed values a job carries from the edge to
//! the database and back.
//!
//! Invariants:
//! - A job moves `queued -> running -> done | failed | cancelled` (or `queued ->
//!   cancelled`, and `running -> queued` when a shutdown or a crash interrupts it);
//!   [`JobState::is_final`] states are never left. The store enforces the moves with
//!   conditional updates (`WHERE state = ...`).
//! - Variants, algorithms, verdicts, stop reasons and positions are typed everywhere in
//!   the service (the engine's types, or `subject`'s, which add the PySolFC games
//!   played on their own boards); they become text only at the SQL boundary, through
//!   [`Stored`] (the engine's `Display` to write, its `FromStr` to read: a stored value
//!   the engine does not know is a decode error, never a silent default), and at the
//!   HTTP boundary, in the JSON views of `model`.

pub mod subject;

use crate::request::rounds::RedealCount;
use gaps_engine::MAX_REDEALS;
use serde::{Deserialize, Serialize};
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::Database;
use std::fmt::Display;
use std::str::FromStr;
use utoipa::ToSchema;

/// Where a job is in its life (see the module invariants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
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

/// The kind of job: what its search is, and which table holds what only that kind has
/// (`gaps_searches`, `odds_jobs`, `morpion_proofs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Game {
    /// A Gaps search (a position, a numbered deal or a PySolFC game).
    Gaps,
    /// A Morpion Solitaire endgame proof.
    Morpion,
    /// The odds of a Gaps deal or game in progress whose shuffles are unknown.
    Odds,
}

impl Game {
    /// Every game, in the order the API lists them.
    pub const ALL: [Game; 3] = [Game::Gaps, Game::Morpion, Game::Odds];

    /// The public name (as in JSON, the `game` filter and the database).
    pub fn name(self) -> &'static str {
        match self {
            Game::Gaps => "gaps",
            Game::Morpion => "morpion",
            Game::Odds => "odds",
        }
    }
}

impl Display for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Game {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Game::ALL
            .into_iter()
            .find(|game| game.name() == s)
            .ok_or_else(|| format!("unknown game {s:?} (expected gaps, morpion or odds)"))
    }
}

/// An engine value stored as its text: written with `Display`, read back with `FromStr`
/// (the only place where such a value is text inside the service).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored<T>(pub T);

/// Text in the database, on every backend: written with `Display`, read with `FromStr`.
macro_rules! stored_as_text {
    ($ty:ty $(, generic $t:ident)?; $value:ident => $inner:expr) => {
        impl<DB: Database $(, $t)?> sqlx::Type<DB> for $ty
        where
            str: sqlx::Type<DB>,
        {
            fn type_info() -> DB::TypeInfo {
                <str as sqlx::Type<DB>>::type_info()
            }
            fn compatible(ty: &DB::TypeInfo) -> bool {
                <str as sqlx::Type<DB>>::compatible(ty)
            }
        }

        impl<'q, DB: Database $(, $t: Display)?> sqlx::Encode<'q, DB> for $ty
        where
            String: sqlx::Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as Database>::ArgumentBuffer<'q>,
            ) -> Result<IsNull, BoxDynError> {
                let $value = self;
                <String as sqlx::Encode<'q, DB>>::encode($inner.to_string(), buf)
            }
        }

        impl<'r, DB: Database $(, $t)?> sqlx::Decode<'r, DB> for $ty
        where
            &'r str: sqlx::Decode<'r, DB>,
            $($t: FromStr, <$t as FromStr>::Err: Display,)?
        {
            fn decode(value: <DB as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
                let text = <&str as sqlx::Decode<'r, DB>>::decode(value)?;
                text.parse()
                    .map_err(|e| format!("stored value {text:?}: {e}").into())
            }
        }
    };
}

/// A redeal count is an integer column on every backend, checked again when read.
impl<DB: Database> sqlx::Type<DB> for RedealCount
where
    i64: sqlx::Type<DB>,
{
    fn type_info() -> DB::TypeInfo {
        <i64 as sqlx::Type<DB>>::type_info()
    }
    fn compatible(ty: &DB::TypeInfo) -> bool {
        <i64 as sqlx::Type<DB>>::compatible(ty)
    }
}

impl<'q, DB: Database> sqlx::Encode<'q, DB> for RedealCount
where
    i64: sqlx::Encode<'q, DB>,
{
    fn encode_by_ref(
        &self,
        buf: &mut <DB as Database>::ArgumentBuffer<'q>,
    ) -> Result<IsNull, BoxDynError> {
        <i64 as sqlx::Encode<'q, DB>>::encode(i64::from(self.get()), buf)
    }
}

impl<'r, DB: Database> sqlx::Decode<'r, DB> for RedealCount
where
    i64: sqlx::Decode<'r, DB>,
{
    fn decode(value: <DB as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        let stored = <i64 as sqlx::Decode<'r, DB>>::decode(value)?;
        u8::try_from(stored)
            .ok()
            .and_then(|count| RedealCount::new(count).ok())
            .ok_or_else(|| format!("stored redeals {stored}: at most {MAX_REDEALS}").into())
    }
}

/// A PySolFC game number as a column holds it: its decimal digits zero-padded to 21
/// (the length of 10^20, PySolFC's largest), so that text order is number order on
/// every backend; a number is text because PySolFC's reach 10^20, above the 2^63-1 of
/// SQLite's and PostgreSQL's integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct GameNumberKey(pub u128);

impl Display for GameNumberKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:021}", self.0)
    }
}

impl FromStr for GameNumberKey {
    type Err = gaps_engine::PysolError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        gaps_engine::parse_game_number_digits(s).map(GameNumberKey)
    }
}

stored_as_text!(Stored<T>, generic T; stored => stored.0);
stored_as_text!(GameNumberKey; key => key);
stored_as_text!(JobState; state => state);
stored_as_text!(Game; game => game);

impl<T: FromStr> FromStr for Stored<T> {
    type Err = T::Err;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(Stored)
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

    #[test]
    fn game_number_keys_sort_as_their_numbers_up_to_pysols_largest() {
        let numbers = [1u128, 9, 10, 99, 4_600_000_000_000, i64::MAX as u128 + 1];
        let numbers = numbers.into_iter().chain([gaps_engine::PYSOL_MAX_NUMBER]);
        let keys: Vec<String> = numbers.map(|n| GameNumberKey(n).to_string()).collect();
        assert!(keys.iter().all(|key| key.len() == 21));
        assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(
            "100000000000000000000".parse::<GameNumberKey>().unwrap(),
            GameNumberKey(gaps_engine::PYSOL_MAX_NUMBER)
        );
        assert_eq!("000000000000000000042".parse(), Ok(GameNumberKey(42)));
        for bad in ["0", "100000000000000000001", "", "-1", "12a"] {
            assert!(bad.parse::<GameNumberKey>().is_err(), "{bad}");
        }
    }
}
