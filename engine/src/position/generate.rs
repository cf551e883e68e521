//! Move generation: the legal moves of a position under each variant's rule
//! (docs/notation.md), written without branches where the outcome is a coin flip to
//! the branch predictor.
//!
//! Invariants: every move listed is legal (its card stands on `from`, `to` is a gap
//! and takes the card under the variant's rule), and every legal move is listed once;
//! a `basic` list holds one entry per gap slot (`SlotMoves`), the others at most
//! `MAX_MOVES` moves.

use super::{Position, GAP, MAX_MOVES};
use crate::card::{col_of, Card, Cell, CARD_CODES};
use crate::moves::{Move, MoveList, SlotMoves};
use crate::variant::Variant;

impl Position {
    /// The card that may fill the gap at `g` when `g` is not in column 0 (`None` if the
    /// left neighbour is a gap or a top card).
    #[inline(always)]
    pub(super) fn successor_for(&self, g: Cell) -> Option<Card> {
        self.successor_code(self.cells[g as usize - 1])
            .map(Card::from_code)
    }

    /// The code of the card that may stand right of the raw cell value `left` (`None`
    /// for a gap or a top card).
    #[inline(always)]
    pub(crate) fn successor_code(&self, left: u8) -> Option<u8> {
        self.has_successor(left).then_some(left + 1)
    }

    /// Whether a card may stand right of the raw cell value `left`: it is a card and not
    /// a top card. Computed without branches (`&`), for the branch-free generator.
    #[inline(always)]
    pub(super) fn has_successor(&self, left: u8) -> bool {
        (left & GAP == 0) & ((left & 15) != self.top)
    }

    /// Appends the legal moves of the `basic` variant (at most one per gap).
    #[inline(always)]
    pub fn basic_moves<const N: usize>(&self, out: &mut MoveList<N>) {
        let mut slots = SlotMoves::default();
        self.basic_slot_moves(&mut slots);
        out.clear();
        for m in slots.iter_legal() {
            out.push(m);
        }
    }

    /// The legal moves of the `basic` variant, by gap slot (see `SlotMoves`).
    #[inline(always)]
    pub fn basic_slot_moves(&self, out: &mut SlotMoves) {
        let (mut legal_mask, mut homing_mask) = (0u8, 0u8);
        for slot in 0..self.layout.suits() {
            let g = self.gaps[slot];
            // Whether a gap takes a card is a coin flip to the branch predictor, so the
            // entry is written either way and only marked legal when it is. A column-0
            // gap takes its row's Two, code `g + 1` (the ace "left of it" has code `g`).
            let (code, legal) = if col_of(g) == 0 {
                (g + 1, true)
            } else {
                let left = self.cells[g as usize - 1];
                (
                    left.wrapping_add(1) & (CARD_CODES as u8 - 1),
                    self.has_successor(left),
                )
            };
            out.set(Move {
                card: Card::from_code(code),
                from: self.place[code as usize],
                to: g,
                gap: slot as u8,
            });
            legal_mask |= u8::from(legal) << slot;
            // A card's `basic` home cell is `code - 1`.
            homing_mask |= u8::from(code == g + 1) << slot;
        }
        out.finish(self.layout.suits(), legal_mask, homing_mask);
    }

    /// Appends the legal moves of the `common` variant (any Two into a column-0 gap).
    #[inline(always)]
    pub fn common_moves<const N: usize>(&self, out: &mut MoveList<N>) {
        self.any_two_moves::<false, N>(out)
    }

    /// The `aisleriot` moves: `common`'s without a Two leaving column 0 (a Two there
    /// heads its row's run, which never moves again).
    #[inline(always)]
    pub fn aisleriot_moves<const N: usize>(&self, out: &mut MoveList<N>) {
        self.any_two_moves::<true, N>(out)
    }

    /// The moves of the variants whose column 0 takes any Two; with `FIXED_TWOS`, no
    /// Two leaves column 0.
    #[inline(always)]
    fn any_two_moves<const FIXED_TWOS: bool, const N: usize>(&self, out: &mut MoveList<N>) {
        out.clear();
        let suits = self.layout.suits();
        for slot in 0..suits {
            let g = self.gaps[slot];
            if col_of(g) == 0 {
                for s in 0..suits {
                    let two = Card::new(s as u8, 1);
                    let from = self.place[two.code() as usize];
                    if !(FIXED_TWOS && col_of(from) == 0) {
                        out.push(Move {
                            card: two,
                            from,
                            to: g,
                            gap: slot as u8,
                        });
                    }
                }
            } else if let Some(card) = self.successor_for(g) {
                out.push(Move {
                    card,
                    from: self.place[card.code() as usize],
                    to: g,
                    gap: slot as u8,
                });
            }
        }
    }

    /// The legal moves under `variant`.
    pub fn legal_moves(&self, variant: Variant, out: &mut MoveList<MAX_MOVES>) {
        match variant {
            Variant::Basic => self.basic_moves(out),
            Variant::Common => self.common_moves(out),
            Variant::Aisleriot => self.aisleriot_moves(out),
        }
    }
}
