//! The public names: verdicts, algorithms and stop reasons, with their stable spellings.
//!
//! Invariant: `name()` and `FromStr` are inverse on every variant of each type
//! (`Algorithm::ALL` lists the algorithms), and the names are the documented ones (docs/engine.md).

use crate::search::budget::StopReason;
use std::fmt;
use std::str::FromStr;

/// The outcome of a solve, as documented (docs/notation.md).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Verdict {
    /// A solution was found and replayed.
    Solvable,
    /// The search was exhaustive: no sequence of moves wins.
    Unsolvable,
    /// A limit was reached first.
    Unknown,
}

impl Verdict {
    /// Every verdict.
    pub const ALL: [Verdict; 3] = [Verdict::Solvable, Verdict::Unsolvable, Verdict::Unknown];

    /// The public name.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Solvable => "solvable",
            Verdict::Unsolvable => "unsolvable",
            Verdict::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of a closed set of public names.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("unknown {kind} {name:?}")]
pub struct UnknownName {
    /// What was being named ("verdict", "stop reason").
    pub kind: &'static str,
    /// The text given.
    pub name: String,
}

impl FromStr for Verdict {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownName {
                kind: "verdict",
                name: s.to_string(),
            })
    }
}

impl FromStr for StopReason {
    type Err = UnknownName;
    /// The inverse of [`StopReason::name`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StopReason::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| UnknownName {
                kind: "stop reason",
                name: s.to_string(),
            })
    }
}

/// The algorithms (docs/engine.md).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
pub enum Algorithm {
    /// The best the engine has for the variant.
    #[default]
    Auto,
    /// Exact depth-first search.
    Dfs,
    /// Iterative sampling (finds wins, never proves a loss).
    Sampling,
    /// Breadth-first search with a random probe per node.
    Hybrid,
    /// Block search (`basic` only).
    Blocks,
    /// Suit assignments (`common` only): the `basic` search under each choice of a
    /// suit per row; finds wins, never proves a loss (`search::assign`).
    Assign,
    /// Exhaustive depth-first search with an exact visited set that grows to the memory
    /// budget and never forgets a position (`search::exact`).
    Exact,
}

impl Algorithm {
    /// The public name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Dfs => "dfs",
            Algorithm::Sampling => "sampling",
            Algorithm::Hybrid => "hybrid",
            Algorithm::Blocks => "blocks",
            Algorithm::Assign => "assign",
            Algorithm::Exact => "exact",
        }
    }
    /// Every algorithm name.
    pub const ALL: [Algorithm; 7] = [
        Algorithm::Auto,
        Algorithm::Dfs,
        Algorithm::Sampling,
        Algorithm::Hybrid,
        Algorithm::Blocks,
        Algorithm::Assign,
        Algorithm::Exact,
    ];
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm name that is not defined.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error(
    "unknown algorithm {0:?} (expected one of auto, dfs, sampling, hybrid, blocks, assign, exact)"
)]
pub struct UnknownAlgorithm(pub String);

impl FromStr for Algorithm {
    type Err = UnknownAlgorithm;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownAlgorithm(s.to_string()))
    }
}

#[cfg(test)]
mod name_tests {
    use super::*;

    #[test]
    fn names_and_parsing_are_inverse() {
        for v in Verdict::ALL {
            assert_eq!(v.name().parse::<Verdict>(), Ok(v));
        }
        for r in StopReason::ALL {
            assert_eq!(r.name().parse::<StopReason>(), Ok(r));
        }
        for a in Algorithm::ALL {
            assert_eq!(a.name().parse::<Algorithm>(), Ok(a));
        }
        assert!("won".parse::<Verdict>().is_err());
        assert!("tired".parse::<StopReason>().is_err());
    }
}
