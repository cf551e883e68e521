//! The two rule variants (docs/notation.md).
//!
//! Invariant: the names accepted by [`Variant::from_str`] are exactly the public
//! `basic` and `common` (case-insensitive), and [`Variant::name`] round-trips them.

use std::fmt;
use std::str::FromStr;

/// Which column-0 rule is in force.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Variant {
    /// Aces fixed left of column 0: a gap in column 0 of row `i` takes the Two of suit `i`.
    #[default]
    Basic,
    /// Aces removed: a gap in column 0 takes any Two; rows may end up in any suit.
    Common,
}

impl Variant {
    /// The public name.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Basic => "basic",
            Variant::Common => "common",
        }
    }
    /// Both variants.
    pub const ALL: [Variant; 2] = [Variant::Basic, Variant::Common];
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A variant name that is neither `basic` nor `common`.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("unknown variant {0:?} (expected \"basic\" or \"common\")")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "basic" => Ok(Variant::Basic),
            "common" => Ok(Variant::Common),
            _ => Err(UnknownVariant(s.to_string())),
        }
    }
}
