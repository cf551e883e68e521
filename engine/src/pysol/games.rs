//! The twelve single-deck Gaps games of PySolFC as data: each game's deck, board, deal,
//! rule for what a gap takes, and redeals, read in `shlomif/PySolFC`
//! `pysollib/games/montana.py` (docs/pysol.md tells the games apart).
//!
//! Invariants:
//! - [`PysolGame::ALL`] lists every game once, in the order of PySolFC's ids, and
//!   [`PysolGame::name`] round-trips through `FromStr` (in `mod.rs`).
//! - A game's `ranks` are PySolFC's rank numbers (0 = Ace .. 12 = King), lowest first;
//!   `row_len` cells a row times 4 rows hold the deck and exactly 4 gaps.
//! - [`PysolGame::engine_form`] is `Some` exactly for the games the engine plays: those
//!   whose gap takes the next rank of the left neighbour's suit (over the game's ranks)
//!   and whose board is a `common` or a `basic` one (see [`EngineForm`]).

use crate::variant::Variant;

/// A PySolFC game of the Gaps family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PysolGame {
    /// #53 "Montana" (also "Gaps").
    Montana,
    /// #63 "Blue Moon" (also "Rangoon").
    BlueMoon,
    /// #116 "Spaces" (also "Addiction").
    Spaces,
    /// #117 "Red Moon".
    RedMoon,
    /// #275 "Galary".
    Galary,
    /// #276 "Free Parking" (was "Moonlight").
    FreeParking,
    /// #380 "Jungle".
    Jungle,
    /// #381 "Spaces and Aces".
    SpacesAndAces,
    /// #706 "Paganini".
    Paganini,
    /// #794 "House of Commons".
    HouseOfCommons,
    /// #795 "Line Up" (also "Pretzel").
    LineUp,
    /// #858 "Station".
    Station,
}

/// How the shuffled deck goes onto the board (`startGame` and `_shuffleHook`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DealShape {
    /// Every card in reading order; a card of the game's space rank goes out of play
    /// and leaves its cell a gap (`Montana.startGame`).
    Montana,
    /// Columns 1.. of each row in reading order, then the Aces, in reading order, to
    /// column 0 of rows 0, 1, 2, 3 (`BlueMoon.startGame`).
    BlueMoon,
    /// The Aces by suit (Clubs, Spades, Hearts, Diamonds) to column 0, column 1 left
    /// empty, the rest into columns 2.. (`RedMoon._shuffleHook`, `startGame`).
    RedMoon,
    /// Columns 1.. of each row in reading order; the Aces stay where they fell and
    /// column 0 is empty (`SpacesAndAces.startGame`).
    SpacesAndAces,
}

/// What a gap outside column 0 takes (column 0 always takes the game's base rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepts {
    /// The next rank of the game's ranks in the left neighbour's suit
    /// (`Montana_RowStack`; `Paganini_RowStack`, whose ranks skip from Ace to Six).
    Successor,
    /// The successor, or the card one rank below the right neighbour in its suit; the
    /// right neighbour of a row's last cell is the next row's first (`Galary_RowStack`).
    SuccessorOrBelowRight,
    /// The next rank after the left neighbour's, of any suit (`Jungle_RowStack`).
    AnySuitSuccessor,
    /// Any card of the left neighbour's suit and a higher rank
    /// (`SpacesAndAces_RowStack`).
    HigherSameSuit,
}

/// Where a redeal leaves the gaps (`getRedealSpaces`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RedealGaps {
    /// The first gathered cell of each row (`Montana_Talon`).
    #[default]
    AfterRun,
    /// Four gathered cells drawn by the game's generator, continuing after the shuffle
    /// (`Spaces_Talon`).
    Random,
    /// The last cell of each row (`Station_Talon`).
    RowEnds,
}

/// A game's data.
#[derive(Clone, Copy, Debug)]
pub struct GameSpec {
    /// The name in the CLI and the API.
    pub name: &'static str,
    /// PySolFC's id.
    pub id: u32,
    /// PySolFC's title.
    pub title: &'static str,
    /// The deck's ranks (PySolFC's numbers, 0 = Ace), lowest first; four suits of each.
    pub ranks: &'static [u8],
    /// Cells a row (`RSTEP`).
    pub row_len: usize,
    /// The rank column 0 takes and every won row starts with (`RBASE`).
    pub base: u8,
    /// The rank dealt out of play ([`DealShape::Montana`] only: `SpaceRank`).
    pub space_rank: Option<u8>,
    /// How the deck is dealt.
    pub shape: DealShape,
    /// What a gap outside column 0 takes.
    pub accepts: Accepts,
    /// Redeals the game allows (`max_rounds - 1`).
    pub redeals: u8,
    /// Where a redeal leaves the gaps.
    pub redeal_gaps: RedealGaps,
}

const ALL_RANKS: [u8; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

const fn spec(name: &'static str, id: u32, title: &'static str) -> GameSpec {
    GameSpec {
        name,
        id,
        title,
        ranks: &ALL_RANKS,
        row_len: 13,
        base: 1,
        space_rank: Some(0),
        shape: DealShape::Montana,
        accepts: Accepts::Successor,
        redeals: 2,
        redeal_gaps: RedealGaps::AfterRun,
    }
}

const MONTANA: GameSpec = spec("montana", 53, "Montana");
const BLUE_MOON: GameSpec = GameSpec {
    row_len: 14,
    base: 0,
    space_rank: None,
    shape: DealShape::BlueMoon,
    ..spec("blue-moon", 63, "Blue Moon")
};
const RED_MOON: GameSpec = GameSpec {
    shape: DealShape::RedMoon,
    ..BLUE_MOON
};

impl PysolGame {
    /// Every game, in the order of their PySolFC ids.
    pub const ALL: [PysolGame; 12] = [
        PysolGame::Montana,
        PysolGame::BlueMoon,
        PysolGame::Spaces,
        PysolGame::RedMoon,
        PysolGame::Galary,
        PysolGame::FreeParking,
        PysolGame::Jungle,
        PysolGame::SpacesAndAces,
        PysolGame::Paganini,
        PysolGame::HouseOfCommons,
        PysolGame::LineUp,
        PysolGame::Station,
    ];

    /// The game's data.
    pub const fn spec(self) -> GameSpec {
        match self {
            PysolGame::Montana => MONTANA,
            PysolGame::BlueMoon => BLUE_MOON,
            PysolGame::Spaces => GameSpec {
                redeal_gaps: RedealGaps::Random,
                ..spec("spaces", 116, "Spaces")
            },
            PysolGame::RedMoon => GameSpec {
                name: "red-moon",
                id: 117,
                title: "Red Moon",
                ..RED_MOON
            },
            PysolGame::Galary => GameSpec {
                name: "galary",
                id: 275,
                title: "Galary",
                accepts: Accepts::SuccessorOrBelowRight,
                ..RED_MOON
            },
            PysolGame::FreeParking => GameSpec {
                accepts: Accepts::SuccessorOrBelowRight,
                ..spec("free-parking", 276, "Free Parking")
            },
            PysolGame::Jungle => GameSpec {
                name: "jungle",
                id: 380,
                title: "Jungle",
                accepts: Accepts::AnySuitSuccessor,
                redeals: 1,
                ..BLUE_MOON
            },
            PysolGame::SpacesAndAces => GameSpec {
                name: "spaces-and-aces",
                id: 381,
                title: "Spaces and Aces",
                shape: DealShape::SpacesAndAces,
                accepts: Accepts::HigherSameSuit,
                redeals: 0,
                ..BLUE_MOON
            },
            PysolGame::Paganini => GameSpec {
                name: "paganini",
                id: 706,
                title: "Paganini",
                ranks: &[0, 5, 6, 7, 8, 9, 10, 11, 12],
                row_len: 10,
                redeals: 1,
                ..BLUE_MOON
            },
            PysolGame::HouseOfCommons => GameSpec {
                ranks: &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
                row_len: 10,
                redeals: 1,
                ..spec("house-of-commons", 794, "House of Commons")
            },
            PysolGame::LineUp => GameSpec {
                ranks: &[0, 1, 2, 3, 4, 5],
                row_len: 6,
                base: 0,
                space_rank: Some(5),
                redeals: 0,
                ..spec("line-up", 795, "Line Up")
            },
            PysolGame::Station => GameSpec {
                redeal_gaps: RedealGaps::RowEnds,
                ..spec("station", 858, "Station")
            },
        }
    }

    /// The name used in the CLI and the API (`montana`, `blue-moon`, ...).
    pub const fn name(self) -> &'static str {
        self.spec().name
    }

    /// PySolFC's own id of the game.
    pub const fn pysol_id(self) -> u32 {
        self.spec().id
    }

    /// How many redeals the game allows.
    pub const fn own_redeals(self) -> u8 {
        self.spec().redeals
    }

    /// How the engine plays the game, if it does (see [`EngineForm`]).
    pub fn engine_form(self) -> Option<EngineForm> {
        let spec = self.spec();
        if spec.accepts != Accepts::Successor {
            return None;
        }
        let variant = match spec.shape {
            DealShape::Montana => Variant::Common,
            DealShape::BlueMoon | DealShape::RedMoon => Variant::Basic,
            DealShape::SpacesAndAces => return None,
        };
        Some(EngineForm { variant })
    }

    /// Whether the engine plays the game (deals are dealt for every game).
    pub fn is_played(self) -> bool {
        self.engine_form().is_some()
    }

    /// Whether the game is played on its own board (`crate::board`): a gap may
    /// take several cards, so it is no `basic` or `common` position.
    pub fn is_board_played(self) -> bool {
        self.spec().accepts != Accepts::Successor
    }

    /// The variant its rounds are played as.
    ///
    /// # Panics
    /// For a game the engine does not play ([`PysolGame::is_played`]).
    pub fn variant(self) -> Variant {
        self.engine_form().expect("a game the engine plays").variant
    }

    /// The names of the games the engine plays, for messages.
    pub fn played_names() -> String {
        let names: Vec<&str> = PysolGame::ALL
            .iter()
            .filter(|g| g.is_played())
            .map(|g| g.name())
            .collect();
        names.join(", ")
    }

    /// The names of every game, for messages.
    pub fn all_names() -> String {
        let names: Vec<&str> = PysolGame::ALL.iter().map(|g| g.name()).collect();
        names.join(", ")
    }
}

/// How the engine plays a game whose gaps take successors: as a position of
/// [`Variant::Common`] (a [`DealShape::Montana`] board: the cards renumbered so that
/// the space rank is the engine's Ace and the base rank its Two) or of
/// [`Variant::Basic`] (a Blue Moon board without its Aces column, each row's suit
/// renamed to the row's index and the ranks numbered in the deck's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineForm {
    /// The variant.
    pub variant: Variant,
}
