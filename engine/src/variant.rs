//! The rule variants (docs/notation.md).
//!
//! Invariant: the names accepted by [`Variant::from_str`] are exactly the public
//! `basic`, `common` and `aisleriot` (case-insensitive), and [`Variant::name`]
//! round-trips them.

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
    /// GNOME Aisleriot's Gaps: `common`, except that no card of a row's run from column
    /// 0 ever moves again. Only a Two in column 0 could have moved (every other card of
    /// a run stands right of its predecessor, the one cell it may go to), so these are
    /// `common`'s moves without a Two leaving column 0.
    Aisleriot,
}

impl Variant {
    /// The public name.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Basic => "basic",
            Variant::Common => "common",
            Variant::Aisleriot => "aisleriot",
        }
    }
    /// Every variant.
    pub const ALL: [Variant; 3] = [Variant::Basic, Variant::Common, Variant::Aisleriot];
    /// The two variants every algorithm searches (`aisleriot` is searched by `dfs`).
    pub const CLASSIC: [Variant; 2] = [Variant::Basic, Variant::Common];
    /// Whether a gap in column 0 takes any Two (`common` and `aisleriot`).
    pub const fn any_two(self) -> bool {
        !matches!(self, Variant::Basic)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A variant name that is neither `basic` nor `common`.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("unknown variant {0:?} (expected \"basic\", \"common\" or \"aisleriot\")")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "basic" => Ok(Variant::Basic),
            "common" => Ok(Variant::Common),
            "aisleriot" => Ok(Variant::Aisleriot),
            _ => Err(UnknownVariant(s.to_string())),
        }
    }
}
