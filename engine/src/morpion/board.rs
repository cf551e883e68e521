//! The Morpion Solitaire board: the 36-dot Greek cross, moves, legality, make/unmake.
//!
//! Rules (docs/morpion.md): a move places one new dot on an empty point and draws a line
//! of five consecutive dots through it (horizontal, vertical or diagonal) whose other
//! four dots are already drawn. In 5T two lines in the same direction may share at most
//! one dot, an end of both (no shared unit segment); in 5D they may share none.
//!
//! Invariants:
//! - Points live on a fixed 64x64 grid (`index = y * 64 + x`) with the cross at
//!   27..=36 on both axes; record coordinates are grid coordinates minus [`ORIGIN`].
//!   Every dot stays inside the inner square `MARGIN..GRID - MARGIN`, so a line
//!   through a dot never wraps around the grid; a move that would place a dot outside
//!   it is not generated and raises [`Board::overflowed`] (the search then claims no
//!   proof). No record game comes within 20 points of that edge.
//! - Each direction's lines are bit rows: `dots[dir][line]` has bit `t` set when the
//!   point at place `t` of that line holds a dot, and `used[dir][line]` bit `t` when
//!   the point is used in that direction: in 5T by the unit segment that starts at it,
//!   in 5D by a line through it. A line starting at place `s` covers places
//!   `s..s + reach` (reach 4 in 5T, 5 in 5D) and is legal only if none is used. So two
//!   moves legal in one position stay legal after each other iff they place different
//!   dots and cover disjoint places of their line ([`Move::compatible`]), and then
//!   both orders reach the same board.
//! - `unplay(m)` exactly undoes `play(m)` (the bits it set were clear before).

/// Side of the square grid.
pub const GRID: usize = 64;
/// Grid coordinate of record coordinate 0 (the cross spans record 0..=9).
pub const ORIGIN: i32 = 27;
/// Rows and columns at each edge where no dot may be placed.
pub const MARGIN: usize = 4;

/// Moves a game can have at most (Flammenkamp's bound for 5T is lower); sizes buffers.
pub const MAX_GAME: usize = 512;

/// A line direction, in the record formats' convention: `H` steps (1, 0), `V` (0, 1),
/// `DP` (1, -1) and `DN` (1, 1), y growing downwards.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Dir {
    /// Horizontal.
    H,
    /// Vertical.
    V,
    /// Diagonal rising to the right.
    DP,
    /// Diagonal falling to the right.
    DN,
}

impl Dir {
    /// Every direction, in index order.
    pub const ALL: [Dir; 4] = [Dir::H, Dir::V, Dir::DP, Dir::DN];

    /// The MSR code (`H`, `V`, `DP`, `DN`).
    pub fn code(self) -> &'static str {
        match self {
            Dir::H => "H",
            Dir::V => "V",
            Dir::DP => "DP",
            Dir::DN => "DN",
        }
    }

    /// The direction of an MSR code.
    pub fn from_code(code: &str) -> Option<Dir> {
        Dir::ALL.into_iter().find(|d| d.code() == code)
    }

    /// The unit step in record coordinates.
    pub fn delta(self) -> (i32, i32) {
        match self {
            Dir::H => (1, 0),
            Dir::V => (0, 1),
            Dir::DP => (1, -1),
            Dir::DN => (1, 1),
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    fn step(self) -> isize {
        let (dx, dy) = self.delta();
        dy as isize * GRID as isize + dx as isize
    }
}

/// The two rule variants with lines of five dots.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum MorpionVariant {
    /// Touching: parallel lines may share one end dot.
    T5,
    /// Disjoint: parallel lines may share no dot.
    D5,
}

impl MorpionVariant {
    /// The code used by records and the CLI (`5T`, `5D`).
    pub fn code(self) -> &'static str {
        match self {
            MorpionVariant::T5 => "5T",
            MorpionVariant::D5 => "5D",
        }
    }

    /// The variant of a code, either order, any case (`5T`, `t5`).
    pub fn from_code(code: &str) -> Option<MorpionVariant> {
        match code.to_ascii_uppercase().as_str() {
            "5T" | "T5" => Some(MorpionVariant::T5),
            "5D" | "D5" => Some(MorpionVariant::D5),
            _ => None,
        }
    }

    /// Cells a line marks used: 4 segments (5T) or 5 dots (5D).
    pub fn reach(self) -> u8 {
        match self {
            MorpionVariant::T5 => 4,
            MorpionVariant::D5 => 5,
        }
    }
}

impl std::fmt::Display for MorpionVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl std::str::FromStr for MorpionVariant {
    type Err = String;
    /// As [`MorpionVariant::from_code`].
    fn from_str(code: &str) -> Result<Self, Self::Err> {
        MorpionVariant::from_code(code).ok_or_else(|| format!("{code:?} is not 5T or 5D"))
    }
}

/// One move: the new dot and the line through it. Equal moves are the same move in
/// any position.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug, Hash)]
pub struct Move {
    dot: u16,
    start: u16,
    /// Direction index in the low 2 bits, the line's number among parallel lines above.
    lane: u16,
    /// Coordinate of the start along the line (x, or y for vertical lines).
    t: u8,
    /// Index of the new dot within the line (0..5, from the start).
    pos: u8,
}

impl Move {
    fn new(dot: usize, start: usize, dir: Dir, pos: u8) -> Move {
        let (x, y) = (start % GRID, start / GRID);
        let (line, t) = match dir {
            Dir::H => (y, x),
            Dir::V => (x, y),
            Dir::DP => (x + y, x),
            Dir::DN => (x + GRID - y, x),
        };
        Move {
            dot: dot as u16,
            start: start as u16,
            lane: (line << 2 | dir.index()) as u16,
            t: t as u8,
            pos,
        }
    }

    /// The new dot, in record coordinates.
    pub fn dot(self) -> (i32, i32) {
        to_record(self.dot as usize)
    }

    /// The line's direction.
    pub fn dir(self) -> Dir {
        Dir::ALL[(self.lane & 3) as usize]
    }

    /// Index of the new dot within the line, from the line's smaller-x end (smaller y
    /// for vertical lines).
    pub fn pos(self) -> u8 {
        self.pos
    }

    /// The five dots of the line, start first, in record coordinates.
    pub fn line(self) -> [(i32, i32); 5] {
        let (x, y) = to_record(self.start as usize);
        let (dx, dy) = self.dir().delta();
        std::array::from_fn(|k| (x + k as i32 * dx, y + k as i32 * dy))
    }

    /// Whether two moves legal in one position stay legal after each other (and then
    /// commute): different new dots, and no used cell in common.
    #[inline(always)]
    pub fn compatible(self, other: Move, reach: u8) -> bool {
        self.dot != other.dot && (self.lane != other.lane || self.t.abs_diff(other.t) >= reach)
    }

    /// A 64-bit key of the move (its Zobrist value): positions are keyed by the XOR
    /// of their moves' keys.
    pub fn key(self) -> u64 {
        let packed = (self.dot as u64) << 32 | (self.start as u64) << 8 | self.lane as u64 & 3;
        crate::deal::SplitMix64::new(packed ^ 0x6d6f_7270_696f_6e00).next_u64()
    }
}

fn to_record(index: usize) -> (i32, i32) {
    (
        (index % GRID) as i32 - ORIGIN,
        (index / GRID) as i32 - ORIGIN,
    )
}

fn to_index(x: i32, y: i32) -> Option<usize> {
    let (gx, gy) = (x + ORIGIN, y + ORIGIN);
    let inner = MARGIN as i32..(GRID - MARGIN) as i32;
    (inner.contains(&gx) && inner.contains(&gy)).then(|| gy as usize * GRID + gx as usize)
}

/// The record coordinates of the 36 dots of the starting cross, row by row.
pub fn cross() -> Vec<(i32, i32)> {
    // The outline of a plus sign whose arms are four points wide: the points of the
    // 10x10 square on its outer edges (within an arm) or on the arm boundaries
    // x, y = 3 or 6 (outside the centre square).
    let arm = |v: i32| (3..=6).contains(&v);
    let outside = |v: i32| v <= 3 || v >= 6;
    let mut dots = Vec::with_capacity(36);
    for y in 0..=9 {
        for x in 0..=9 {
            let on = ((y == 0 || y == 9) && arm(x))
                || ((x == 0 || x == 9) && arm(y))
                || ((x == 3 || x == 6) && outside(y))
                || ((y == 3 || y == 6) && outside(x));
            if on {
                dots.push((x, y));
            }
        }
    }
    dots
}

/// For the nine points around a dot along a line (bit k: place k - 4 holds a dot),
/// bit i: the five points from place i - 4 hold exactly four dots.
static ONE_EMPTY: [u8; 512] = one_empty_table();
/// For the nine places around a dot (bit k: place k - 4 is used), bit i: a line of
/// 5T starting at place i - 4 uses no used place.
static FREE_T5: [u8; 512] = free_table(4);
/// The same in 5D.
static FREE_D5: [u8; 512] = free_table(5);

const fn one_empty_table() -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut around: usize = 0;
    while around < 512 {
        let mut i = 0;
        while i < 5 {
            if (around >> i & 0x1f).count_ones() == 4 {
                table[around] |= 1 << i;
            }
            i += 1;
        }
        around += 1;
    }
    table
}

const fn free_table(reach: u32) -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut used: usize = 0;
    while used < 512 {
        let mut i = 0;
        while i < 5 {
            if used >> i & ((1 << reach) - 1) == 0 {
                table[used] |= 1 << i;
            }
            i += 1;
        }
        used += 1;
    }
    table
}

/// The line of `dir` through grid point `(x, y)` and the point's place along it.
#[inline(always)]
fn line_of(dir: usize, x: usize, y: usize) -> (usize, usize) {
    match dir {
        0 => (y, x),
        1 => (x, y),
        2 => (x + y, x),
        _ => (x + GRID - y, x),
    }
}

/// The grid point at place `t` of line `line` of `dir` (inverse of [`line_of`]).
#[inline(always)]
fn point_of(dir: usize, line: usize, t: usize) -> (usize, usize) {
    match dir {
        0 => (t, line),
        1 => (line, t),
        2 => (t, line.wrapping_sub(t)),
        _ => (t, (t + GRID).wrapping_sub(line)),
    }
}

/// A board: the dots drawn and the cells used by lines, with the moves played.
///
/// Both are kept as bit rows along each direction's lines (`dots[dir][line]` bit `t`:
/// the point at place `t` of that line holds a dot; `used` likewise), so the nine
/// points around a dot along a direction are one shift and a mask.
#[derive(Clone, Debug)]
pub struct Board {
    variant: MorpionVariant,
    reach_mask: u64,
    free: &'static [u8; 512],
    dots: [[u64; 2 * GRID]; 4],
    used: [[u64; 2 * GRID]; 4],
    played: Vec<Move>,
    key: u64,
    overflowed: bool,
}

impl Board {
    /// The starting cross.
    pub fn new(variant: MorpionVariant) -> Board {
        let mut board = Board {
            variant,
            reach_mask: (1 << variant.reach()) - 1,
            free: match variant {
                MorpionVariant::T5 => &FREE_T5,
                MorpionVariant::D5 => &FREE_D5,
            },
            dots: [[0; 2 * GRID]; 4],
            used: [[0; 2 * GRID]; 4],
            played: Vec::with_capacity(2 * MAX_GAME),
            key: 0,
            overflowed: false,
        };
        for (x, y) in cross() {
            let index = to_index(x, y).expect("the cross is inside the grid");
            board.set_dot(index, true);
        }
        board
    }

    #[inline(always)]
    fn set_dot(&mut self, index: usize, on: bool) {
        debug_assert!(index < GRID * GRID);
        let index = index & (GRID * GRID - 1);
        let (x, y) = (index % GRID, index / GRID);
        for dir in 0..4 {
            let (line, t) = line_of(dir, x, y);
            if on {
                self.dots[dir][line] |= 1 << t;
            } else {
                self.dots[dir][line] &= !(1 << t);
            }
        }
    }

    #[inline(always)]
    fn dot_at(&self, index: usize) -> bool {
        self.dots[0][index / GRID] >> (index % GRID) & 1 != 0
    }

    /// The rule variant.
    pub fn variant(&self) -> MorpionVariant {
        self.variant
    }

    /// The moves played, in order.
    pub fn played(&self) -> &[Move] {
        &self.played
    }

    /// The position's key: the XOR of its moves' keys (order free, as positions are).
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The key recomputed from the moves played.
    pub fn key_from_scratch(&self) -> u64 {
        self.played.iter().fold(0, |k, m| k ^ m.key())
    }

    /// Whether a move was not generated because its dot fell outside the grid.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Whether the point (record coordinates) holds a dot.
    pub fn has_dot(&self, x: i32, y: i32) -> bool {
        to_index(x, y).is_some_and(|i| self.dot_at(i))
    }

    /// Every dot drawn, in record coordinates.
    pub fn dots(&self) -> Vec<(i32, i32)> {
        (0..GRID * GRID)
            .filter(|&i| self.dot_at(i))
            .map(to_record)
            .collect()
    }

    /// The move placing `(x, y)` on the line in `dir` where the dot has index `pos`, if
    /// it is legal here; `Err` says why not.
    pub fn find_move(&self, x: i32, y: i32, dir: Dir, pos: u8) -> Result<Move, Illegal> {
        if pos >= 5 {
            return Err(Illegal::Position);
        }
        let (dx, dy) = dir.delta();
        let (sx, sy) = (x - pos as i32 * dx, y - pos as i32 * dy);
        let dot = to_index(x, y).ok_or(Illegal::OffGrid)?;
        let start = to_index(sx, sy).ok_or(Illegal::OffGrid)?;
        to_index(sx + 4 * dx, sy + 4 * dy).ok_or(Illegal::OffGrid)?;
        if self.dot_at(dot) {
            return Err(Illegal::Occupied);
        }
        for k in 0..5 {
            let cell = (start as isize + k * dir.step()) as usize;
            if cell != dot && !self.dot_at(cell) {
                let (mx, my) = to_record(cell);
                return Err(Illegal::MissingDot(mx, my));
            }
        }
        let m = Move::new(dot, start, dir, pos);
        if self.used[dir.index()][m.lane as usize >> 2] >> m.t & self.reach_mask != 0 {
            return Err(Illegal::Overlap);
        }
        Ok(m)
    }

    /// Plays a legal move.
    #[inline]
    pub fn play(&mut self, m: Move) {
        self.set_dot(m.dot as usize, true);
        let (dir, line) = (
            (m.lane & 3) as usize,
            (m.lane >> 2) as usize & (2 * GRID - 1),
        );
        self.used[dir][line] |= self.reach_mask << m.t;
        self.key ^= m.key();
        self.played.push(m);
    }

    /// Undoes the last move, `m`.
    #[inline]
    pub fn unplay(&mut self, m: Move) {
        debug_assert_eq!(self.played.last(), Some(&m));
        self.set_dot(m.dot as usize, false);
        let (dir, line) = (
            (m.lane & 3) as usize,
            (m.lane >> 2) as usize & (2 * GRID - 1),
        );
        self.used[dir][line] &= !(self.reach_mask << m.t);
        self.key ^= m.key();
        self.played.pop();
    }

    /// Every legal move, computed from scratch, in a fixed order (by new dot, then
    /// direction, then position in the line).
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        for dot in 0..GRID * GRID {
            let (x, y) = to_record(dot);
            if self.dot_at(dot) || to_index(x, y).is_none() {
                continue;
            }
            for dir in Dir::ALL {
                for pos in 0..5 {
                    if let Ok(m) = self.find_move(x, y, dir, pos) {
                        out.push(m);
                    }
                }
            }
        }
        out
    }

    /// Appends to `out` (from `len`) the legal moves whose line passes through the dot
    /// of `last`, the move just played; these are exactly the legal moves that were not
    /// legal before it. Returns the new length, or `None` if they did not all fit in
    /// `out` (those beyond are dropped).
    #[inline]
    pub fn moves_through(&mut self, last: Move, out: &mut [Move], len: usize) -> Option<usize> {
        // Every dot is below GRID * GRID: the mask lets the compiler drop the bounds
        // checks of the line rows (a line index is below 2 * GRID).
        let p = last.dot as usize & (GRID * GRID - 1);
        let (px, py) = (p % GRID, p / GRID);
        // One copy of the direction's code each (the direction a constant in it).
        let mut complete = true;
        let len = self.through_dir::<0>(px, py, out, len, &mut complete);
        let len = self.through_dir::<1>(px, py, out, len, &mut complete);
        let len = self.through_dir::<2>(px, py, out, len, &mut complete);
        let len = self.through_dir::<3>(px, py, out, len, &mut complete);
        complete.then_some(len)
    }

    /// [`Board::moves_through`] along direction `DIR`.
    #[inline(always)]
    fn through_dir<const DIR: usize>(
        &mut self,
        px: usize,
        py: usize,
        out: &mut [Move],
        mut len: usize,
        complete: &mut bool,
    ) -> usize {
        let inner = MARGIN..GRID - MARGIN;
        let (line, t) = line_of(DIR, px, py);
        // Bit k: the point at place t - 4 + k of the line (p is bit 4).
        let around = (self.dots[DIR][line] >> (t - 4) & 0x1ff) as usize;
        let used = (self.used[DIR][line] >> (t - 4) & 0x1ff) as usize;
        // Bit i: the line starting at place t - 4 + i has exactly one empty point
        // and no used place (both from a table of the nine points around p).
        let mut lines = ONE_EMPTY[around] & self.free[used];
        while lines != 0 {
            let i = lines.trailing_zeros() as usize;
            lines &= lines - 1;
            let window = around >> i & 0x1f;
            let s = t - 4 + i;
            let empty = (!window & 0x1f).trailing_zeros() as usize;
            let (x, y) = point_of(DIR, line, s + empty);
            if !inner.contains(&x) || !inner.contains(&y) {
                self.overflowed = true;
                continue;
            }
            if len == out.len() {
                *complete = false;
                continue;
            }
            let (sx, sy) = point_of(DIR, line, s);
            out[len] = Move {
                dot: (y * GRID + x) as u16,
                start: (sy * GRID + sx) as u16,
                lane: (line << 2 | DIR) as u16,
                t: s as u8,
                pos: empty as u8,
            };
            len += 1;
        }
        len
    }
}

/// Why a recorded move cannot be played.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum Illegal {
    /// The new dot's index in the line is not 0..=4.
    #[error("its position in the line must be 0 to 4")]
    Position,
    /// The line leaves the board this engine searches.
    #[error("its line lies outside the searched grid")]
    OffGrid,
    /// The new dot is already drawn.
    #[error("its dot is already drawn")]
    Occupied,
    /// Another dot of the line is not drawn.
    #[error("the line's dot ({0}, {1}) is not drawn")]
    MissingDot(i32, i32),
    /// The line overlaps a parallel line more than the variant allows.
    #[error("its line overlaps a parallel line more than the variant allows")]
    Overlap,
}
