//! What a request asks, checked once for the command line and the HTTP API alike.
//!
//! Each front door (`cli`, `service::model`) gathers what it was given into the types
//! here and calls their one check; a refusal names the field it is about as a
//! [`Field`], which each front door spells its own way (`--probes`, `limits.probes`),
//! and carries the same words after it. Nothing here knows of either front door.
//!
//! Invariant: a rule that both front doors apply is written here once: `board` holds
//! the rules of PySolFC's games played on their own boards, `rounds` a request's
//! variant beside a PySolFC game and its redeals, [`deal_number`] the bound of our
//! numbered deals, `odds` the samples and redeals of the odds with unknown shuffles.

pub mod board;
pub mod odds;
pub mod rounds;

/// The largest of our numbered deals, on the command line as over HTTP: 2^63-1 (the
/// store keeps a deal's number in a signed 64-bit column, and the command line takes
/// the numbers the service takes).
pub const MAX_DEAL_NUMBER: u64 = i64::MAX as u64;

/// Our numbered deal `number`, or why it is not one (the words both front doors print
/// after their name of the field).
pub fn deal_number(number: u128) -> Result<u64, String> {
    u64::try_from(number)
        .ok()
        .filter(|&n| n <= MAX_DEAL_NUMBER)
        .ok_or_else(|| format!("our deals are numbered 0 to 2^63-1 (got {number})"))
}

/// A field of a request, as a refusal names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Variant,
    Algorithm,
    Probes,
    Threads,
    Redeals,
    Samples,
    Pysol,
}

impl Field {
    /// The command line's flag for it.
    pub fn flag(self) -> &'static str {
        match self {
            Field::Variant => "--variant",
            Field::Algorithm => "--algorithm",
            Field::Probes => "--probes",
            Field::Threads => "--search-threads",
            Field::Redeals => "--redeals",
            Field::Samples => "--samples",
            Field::Pysol => "--pysol",
        }
    }

    /// The JSON field of a job or batch request that holds it.
    pub fn json(self) -> &'static str {
        match self {
            Field::Variant => "variant",
            Field::Algorithm => "algorithm",
            Field::Probes => "limits.probes",
            Field::Threads => "limits.threads",
            Field::Redeals => "redeals",
            Field::Samples => "odds.samples",
            Field::Pysol => "pysol",
        }
    }
}

/// A request refused: the field it is about and why, in words both front doors print
/// after their name of the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", field.json())]
pub struct Refusal {
    pub field: Field,
    pub message: String,
}

impl Refusal {
    fn new(field: Field, message: String) -> Refusal {
        Refusal { field, message }
    }

    /// As the command line prints it (`--probes: ...`).
    pub fn for_cli(&self) -> String {
        format!("{}: {}", self.field.flag(), self.message)
    }

    /// As the HTTP API's problem detail gives it (`limits.probes: ...`).
    pub fn for_api(&self) -> String {
        format!("{}: {}", self.field.json(), self.message)
    }
}
