//! Text notation (docs/notation.md): parsing with located errors, and the
//! canonical one-line form.
//!
//! Invariants:
//! - `parse_position(&format_position(p)) == p` for every position `p`.
//! - Parsing never panics: every malformed input yields a [`ParseError`] that names the
//!   problem and, where it has one, its place (1-based row and column).

use crate::card::{Card, Layout, SizeError, MAX_RANKS, MAX_SUITS, RANK_CHARS, SUIT_CHARS};
use crate::position::{Position, PositionError};
use std::collections::HashMap;
use std::fmt::Write;

/// Why a text is not a position. Rows and columns in messages are 1-based.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ParseError {
    /// Nothing but whitespace and separators.
    #[error("empty position: expected rows of cards separated by '/' or newlines")]
    Empty,
    /// A token that is neither a card nor a gap.
    #[error("unknown token {token:?} at row {row}, column {col}: expected a card like 5H or TD, or a gap '--'")]
    UnknownToken {
        /// The token as written.
        token: String,
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
    },
    /// A row whose length differs from the first row's.
    #[error("ragged rows: row {row} has {found} cells but row 1 has {expected}")]
    RaggedRows {
        /// 1-based row.
        row: usize,
        /// Length of the first row.
        expected: usize,
        /// Length of this row.
        found: usize,
    },
    /// Too many or too few rows or columns.
    #[error("{0}")]
    SizeOutOfRange(#[from] SizeError),
    /// A card that does not exist in a deck of this size.
    #[error("card {card} at row {row}, column {col} is not in a {layout} deck")]
    CardOutsideDeck {
        /// The card.
        card: Card,
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
        /// The deck size implied by the text.
        layout: Layout,
    },
    /// The same card twice (so another card is missing).
    #[error("duplicate card {card} at row {row}, column {col} (first seen at row {first_row}, column {first_col}){}", missing_note(missing))]
    DuplicateCard {
        /// The card.
        card: Card,
        /// 1-based row of the second occurrence.
        row: usize,
        /// 1-based column of the second occurrence.
        col: usize,
        /// 1-based row of the first occurrence.
        first_row: usize,
        /// 1-based column of the first occurrence.
        first_col: usize,
        /// The cards of the deck that are absent.
        missing: Vec<Card>,
    },
    /// An ace in a text that also has gaps.
    #[error("ace {card} at row {row}, column {col}: a position with gaps must not contain aces (a full deal has no gaps)")]
    AceInPosition {
        /// The ace.
        card: Card,
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
    },
    /// A position with the wrong number of gaps.
    #[error(
        "wrong number of gaps: a {layout} position needs exactly {expected} gaps, found {found}{}",
        missing_note(missing)
    )]
    WrongGapCount {
        /// The size.
        layout: Layout,
        /// One gap per suit.
        expected: usize,
        /// Gaps given.
        found: usize,
        /// The non-ace cards of the deck that are absent.
        missing: Vec<Card>,
    },
    /// A grid rejected by [`Position::from_cells`] (not reachable after the checks above,
    /// kept so that parsing can never panic).
    #[error(transparent)]
    Position(#[from] PositionError),
}

fn missing_note(cards: &[Card]) -> String {
    if cards.is_empty() {
        return String::new();
    }
    let list: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
    format!("; missing: {}", list.join(" "))
}

/// Parses one token: `Some(card)`, or `None` for a gap.
pub fn parse_card(token: &str) -> Option<Option<Card>> {
    if token == "--" || token == ".." {
        return Some(None);
    }
    let mut chars = token.chars().map(|c| c.to_ascii_uppercase());
    let suit_char = chars.next_back()?;
    let suit = SUIT_CHARS.iter().position(|&s| s == suit_char)?;
    let rank_text: String = chars.collect();
    let rank = match rank_text.as_str() {
        "10" => 9,
        r => {
            let mut it = r.chars();
            let (Some(c), None) = (it.next(), it.next()) else {
                return None;
            };
            RANK_CHARS.iter().position(|&x| x == c)?
        }
    };
    Some(Some(Card::new(suit as u8, rank as u8)))
}

/// Parses a deal (all cards, aces become gaps) or a position (exactly `suits` gaps).
/// Rows are separated by `/` or newlines, cells by whitespace; case is ignored.
pub fn parse_position(text: &str) -> Result<Position, ParseError> {
    let rows: Vec<Vec<&str>> = text
        .split(['/', '\n'])
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .filter(|cells| !cells.is_empty())
        .collect();
    if rows.is_empty() {
        return Err(ParseError::Empty);
    }
    let mut grid = Vec::with_capacity(rows.len() * rows[0].len());
    for (r, row) in rows.iter().enumerate() {
        for (c, token) in row.iter().enumerate() {
            match parse_card(token) {
                Some(cell) => grid.push(cell),
                None => {
                    return Err(ParseError::UnknownToken {
                        token: token.chars().take(16).collect(),
                        row: r + 1,
                        col: c + 1,
                    })
                }
            }
        }
    }
    let ranks = rows[0].len();
    if let Some((r, row)) = rows.iter().enumerate().find(|(_, row)| row.len() != ranks) {
        if rows.len() <= MAX_SUITS && ranks <= MAX_RANKS {
            return Err(ParseError::RaggedRows {
                row: r + 1,
                expected: ranks,
                found: row.len(),
            });
        }
    }
    let layout = Layout::new(rows.len(), ranks)?;
    let at = |i: usize| (i / ranks + 1, i % ranks + 1);
    let gaps = grid.iter().filter(|c| c.is_none()).count();
    let mut first_seen: HashMap<Card, usize> = HashMap::new();
    let mut duplicate = None;
    for (i, card) in grid.iter().enumerate() {
        let Some(card) = *card else { continue };
        let (row, col) = at(i);
        if !layout.contains(card) {
            return Err(ParseError::CardOutsideDeck {
                card,
                row,
                col,
                layout,
            });
        }
        if gaps > 0 && card.rank() == 0 {
            return Err(ParseError::AceInPosition { card, row, col });
        }
        match first_seen.get(&card) {
            Some(&first) => duplicate = duplicate.or(Some((card, i, first))),
            None => {
                first_seen.insert(card, i);
            }
        }
    }
    // A full deal counts its aces; a position must not hold them.
    let missing: Vec<Card> = layout
        .deck()
        .filter(|c| !first_seen.contains_key(c) && (gaps == 0 || c.rank() != 0))
        .collect();
    if gaps > 0 && gaps != layout.suits() {
        return Err(ParseError::WrongGapCount {
            layout,
            expected: layout.suits(),
            found: gaps,
            missing,
        });
    }
    if let Some((card, i, first)) = duplicate {
        let ((row, col), (first_row, first_col)) = (at(i), at(first));
        return Err(ParseError::DuplicateCard {
            card,
            row,
            col,
            first_row,
            first_col,
            missing,
        });
    }
    // Every card is in the deck, distinct and the gap count is right, so by counting
    // the deck is complete and `from_cells` cannot fail.
    debug_assert!(missing.is_empty());
    Ok(Position::from_cells(layout, &grid)?)
}

/// Formats cells in reading order: cells joined by one space, rows by `/`, gaps `--`.
pub fn format_cells(layout: Layout, cells: &[Option<Card>]) -> String {
    let mut out = String::with_capacity(cells.len() * 3 + layout.suits());
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 {
            out.push(if i % layout.ranks() == 0 { '/' } else { ' ' });
        }
        match cell {
            Some(card) => write!(out, "{card}").expect("writing to a String"),
            None => out.push_str("--"),
        }
    }
    out
}

/// The canonical one-line form of a position.
pub fn format_position(pos: &Position) -> String {
    format_cells(pos.layout(), &pos.to_cells())
}

/// A position shows itself in canonical notation (here, so that `position` does not
/// depend on `notation`).
impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&format_position(self))
    }
}

/// Canonical notation, as [`format_position`].
impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&format_position(self))
    }
}

/// Parses a deal or a position, as [`parse_position`].
impl std::str::FromStr for Position {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_position(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "3S 2H -- 2S/3H -- 4H 4S";

    #[test]
    fn parses_and_round_trips_a_small_position() {
        let p = parse_position(SMALL).unwrap();
        assert_eq!(format_position(&p), SMALL);
        let lower = parse_position("3s 2h .. 2s\n3h .. 4h 4s\n").unwrap();
        assert_eq!(p, lower);
    }

    #[test]
    fn accepts_ten_and_a_full_deal() {
        let deal = "AS 2S 3S/AH 2H 3H";
        let p = parse_position(deal).unwrap();
        assert_eq!(format_position(&p), "-- 2S 3S/-- 2H 3H");
        let c = parse_card("10d").unwrap().unwrap();
        assert_eq!(c.to_string(), "TD");
    }

    #[test]
    fn every_error_names_the_problem_and_place() {
        use ParseError::*;
        let e = |s: &str| parse_position(s).unwrap_err();
        assert_eq!(e("  / \n"), Empty);
        assert!(matches!(
            e("3S 2H XX 2S/3H -- 4H 4S"),
            UnknownToken { row: 1, col: 3, .. }
        ));
        assert!(matches!(
            e("3S 2H -- 2S/3H -- 4H"),
            RaggedRows {
                row: 2,
                expected: 4,
                found: 3
            }
        ));
        assert!(matches!(e("2S -- / 2H --"), SizeOutOfRange(_)));
        assert!(matches!(
            e("3S 2H -- 2S/3H -- 4H 5S"),
            CardOutsideDeck { row: 2, col: 4, .. }
        ));
        assert!(matches!(
            e("3S 2H -- 2S/3H -- 4H 3S"),
            DuplicateCard {
                row: 2,
                col: 4,
                first_row: 1,
                first_col: 1,
                ..
            }
        ));
        assert!(matches!(
            e("3S 2H AS 2S/3H -- 4H 4S"),
            AceInPosition { row: 1, col: 3, .. }
        ));
        assert!(matches!(
            e("3S 2H -- 2S/3H -- 4H --"),
            WrongGapCount {
                expected: 2,
                found: 3,
                ..
            }
        ));
        let dup = e("3S 2H -- 2S/3H -- 4H 3S").to_string();
        assert!(
            dup.contains("duplicate card 3S") && dup.contains("missing: 4S"),
            "{dup}"
        );
        let gaps = e("3S 2H -- 2S/3H -- 4H --").to_string();
        assert!(gaps.contains("missing: 4S"), "{gaps}");
    }
}
