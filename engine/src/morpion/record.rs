//! Morpion records: MSR JSON and Pentasol text, read, replayed and written.
//!
//! MSR (`{"variant": "5T", "moves": [{"x", "y", "dir", "pos"}, ...]}`) uses the
//! board's own record coordinates: the cross spans 0..=9, `pos` is the new dot's index
//! in its line from the line's smaller-x end (smaller y for `V`). Pentasol lines read
//! `(col,row) D ±n`: `D` is one of `- | / \`, `n` the distance from the new dot to the
//! line's centre, positive towards larger x (larger y for `|`); an optional first line
//! `(col,row)` alone gives the point of the cross's north-west inner corner (record
//! (3, 3)); without it columns and rows are record coordinates. `#` starts a comment.
//!
//! Invariants: a [`Record`] is only text decoded; [`Record::replay`] is the single
//! place that decides legality, naming the first illegal move (1-based) and why.

use super::board::{Board, Dir, Illegal, MorpionVariant, Move};
use serde::{Deserialize, Serialize};

/// One recorded move, as written (not yet checked).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RecordMove {
    /// Column of the new dot.
    pub x: i32,
    /// Row of the new dot (growing downwards).
    pub y: i32,
    /// Direction code: `H`, `V`, `DP` or `DN`.
    #[serde(with = "dir_code")]
    pub dir: Dir,
    /// Index of the new dot in its line (0..=4).
    pub pos: u8,
}

impl From<Move> for RecordMove {
    fn from(m: Move) -> Self {
        let (x, y) = m.dot();
        RecordMove {
            x,
            y,
            dir: m.dir(),
            pos: m.pos(),
        }
    }
}

mod dir_code {
    use super::Dir;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(dir: &Dir, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(dir.code())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Dir, D::Error> {
        let code = String::deserialize(d)?;
        Dir::from_code(&code).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown direction {code:?} (expected H, V, DP or DN)"
            ))
        })
    }
}

/// The text format a record came in (answers are written in the same one).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RecordFormat {
    /// MSR JSON.
    Msr,
    /// Pentasol text, with the column and row of the cross's north-west inner corner.
    Pentasol {
        /// Column of record x = 3.
        column: i32,
        /// Row of record y = 3.
        row: i32,
    },
}

/// A decoded record: its variant (when the text names one), moves and provenance.
#[derive(Clone, PartialEq, Debug)]
pub struct Record {
    /// The variant the text names (`None` for Pentasol, which names none).
    pub variant: Option<MorpionVariant>,
    /// The moves, in play order.
    pub moves: Vec<RecordMove>,
    /// The format read.
    pub format: RecordFormat,
    /// Who set the record, when the text says.
    pub author: Option<String>,
}

/// Why a record was refused.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum RecordError {
    /// Neither JSON nor Pentasol text.
    #[error("unknown record format: expected MSR JSON (an object with \"variant\" and \"moves\") or Pentasol text (lines like \"(30,28) - +2\")")]
    UnknownFormat,
    /// JSON that is not an MSR record.
    #[error("bad MSR record: {0}")]
    Json(String),
    /// A Pentasol line that does not parse.
    #[error("bad Pentasol line {line}: {reason}")]
    Pentasol {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A variant this engine does not play.
    #[error("unsupported variant {0:?}: only 5T and 5D are played")]
    Variant(String),
    /// The variant asked for differs from the record's own.
    #[error("the record is a {record} game, not {asked}")]
    VariantMismatch {
        /// The record's variant.
        record: &'static str,
        /// The variant asked for.
        asked: &'static str,
    },
    /// A move that cannot be played.
    #[error("move {number} ({text}) is illegal in {variant}: {reason}")]
    Illegal {
        /// 1-based move number.
        number: usize,
        /// The move as the record writes it.
        text: String,
        /// The variant replayed.
        variant: &'static str,
        /// Why.
        reason: Illegal,
    },
}

#[derive(Deserialize)]
struct MsrFile {
    variant: String,
    moves: Vec<RecordMove>,
    #[serde(default)]
    author: Option<String>,
}

impl Record {
    /// Decodes MSR JSON or Pentasol text (told apart by the first non-blank character).
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        match text.trim_start().chars().next() {
            Some('{') => Self::parse_msr(text),
            Some('(') | Some('#') => Self::parse_pentasol(text),
            _ => Err(RecordError::UnknownFormat),
        }
    }

    fn parse_msr(text: &str) -> Result<Record, RecordError> {
        let file: MsrFile =
            serde_json::from_str(text).map_err(|e| RecordError::Json(e.to_string()))?;
        let variant = MorpionVariant::from_code(&file.variant)
            .ok_or_else(|| RecordError::Variant(file.variant.clone()))?;
        Ok(Record {
            variant: Some(variant),
            moves: file.moves,
            format: RecordFormat::Msr,
            author: file.author,
        })
    }

    fn parse_pentasol(text: &str) -> Result<Record, RecordError> {
        let mut reference = None;
        let mut raw = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |reason: &str| RecordError::Pentasol {
                line: index + 1,
                reason: reason.to_owned(),
            };
            let rest = line.strip_prefix('(').ok_or_else(|| bad("expected '('"))?;
            let (coords, rest) = rest.split_once(')').ok_or_else(|| bad("missing ')'"))?;
            let (c, r) = coords.split_once(',').ok_or_else(|| bad("missing ','"))?;
            let column: i32 = c.trim().parse().map_err(|_| bad("bad column"))?;
            let row: i32 = r.trim().parse().map_err(|_| bad("bad row"))?;
            let rest = rest.trim();
            if rest.is_empty() {
                if reference.is_some() || !raw.is_empty() {
                    return Err(bad("a point without a direction after the first line"));
                }
                reference = Some((column, row));
                continue;
            }
            let mut chars = rest.chars();
            let dir = match chars.next() {
                Some('-') => Dir::H,
                Some('|') => Dir::V,
                Some('/') => Dir::DP,
                Some('\\') => Dir::DN,
                _ => return Err(bad("the direction must be one of - | / \\")),
            };
            let offset = chars.as_str().trim();
            let centre: i32 = if offset.is_empty() {
                0
            } else {
                offset
                    .strip_prefix('+')
                    .unwrap_or(offset)
                    .parse()
                    .map_err(|_| bad("bad distance to the line's centre"))?
            };
            if !(-2..=2).contains(&centre) {
                return Err(bad("the distance to the line's centre must be -2 to 2"));
            }
            raw.push((column, row, dir, centre));
        }
        if raw.is_empty() {
            return Err(RecordError::UnknownFormat);
        }
        let (column, row) = reference.unwrap_or((3, 3));
        let moves = raw
            .into_iter()
            .map(|(c, r, dir, centre)| RecordMove {
                x: c - column + 3,
                y: r - row + 3,
                dir,
                pos: (2 - centre) as u8,
            })
            .collect();
        Ok(Record {
            variant: None,
            moves,
            format: RecordFormat::Pentasol { column, row },
            author: None,
        })
    }

    /// The variant to replay: `asked` if given (it must match a variant the record
    /// names), else the record's own, else 5T.
    pub fn variant_for(
        &self,
        asked: Option<MorpionVariant>,
    ) -> Result<MorpionVariant, RecordError> {
        match (self.variant, asked) {
            (Some(record), Some(asked)) if record != asked => Err(RecordError::VariantMismatch {
                record: record.code(),
                asked: asked.code(),
            }),
            (_, Some(v)) | (Some(v), None) => Ok(v),
            (None, None) => Ok(MorpionVariant::T5),
        }
    }

    /// Plays the first `count` moves from the cross (every move checked); the board and
    /// the moves as played.
    pub fn replay(&self, variant: MorpionVariant, count: usize) -> Result<Board, RecordError> {
        let mut board = Board::new(variant);
        for (index, rm) in self.moves.iter().take(count).enumerate() {
            let m = board
                .find_move(rm.x, rm.y, rm.dir, rm.pos)
                .map_err(|reason| RecordError::Illegal {
                    number: index + 1,
                    text: self.format_move(*rm),
                    variant: variant.code(),
                    reason,
                })?;
            board.play(m);
        }
        Ok(board)
    }

    /// One move in this record's format: MSR as `x,y DIR pos`, Pentasol as its line.
    pub fn format_move(&self, m: RecordMove) -> String {
        match self.format {
            RecordFormat::Msr => format!("x={} y={} dir={} pos={}", m.x, m.y, m.dir.code(), m.pos),
            RecordFormat::Pentasol { column, row } => pentasol_move(m, column, row),
        }
    }
}

/// A move as a Pentasol line, the cross's north-west inner corner at `(column, row)`.
pub fn pentasol_move(m: RecordMove, column: i32, row: i32) -> String {
    let symbol = match m.dir {
        Dir::H => '-',
        Dir::V => '|',
        Dir::DP => '/',
        Dir::DN => '\\',
    };
    let centre = 2 - m.pos as i32;
    let sign = if centre > 0 { "+" } else { "" };
    format!(
        "({},{}) {symbol} {sign}{centre}",
        m.x + column - 3,
        m.y + row - 3
    )
}

/// Pentasol text of a whole game: a comment, the reference point, one move a line.
pub fn pentasol_text(moves: &[RecordMove], column: i32, row: i32) -> String {
    let mut out = format!("# Morpion Solitaire game, Pentasol format\n({column},{row})\n");
    for &m in moves {
        out.push_str(&pentasol_move(m, column, row));
        out.push('\n');
    }
    out
}
