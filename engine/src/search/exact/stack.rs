//! The stack of an exact search (`search::exact`, `search::exact::parallel`): the frames
//! of the current line, each a position, its moves and how many of them were tried.
//!
//! Invariants: `frames[..depth]` is the current line; `frames[depth]`, when it exists,
//! is the spare slot where the next child is played ([`ExactStack::play_child`]) and
//! becomes the top frame in place when the child is kept ([`ExactStack::push_spare`]).
//! So a position is copied once, from its parent into the slot, and a move list is
//! built where it stays, where a frame assembled in a local (a position and a move
//! list, about 450 bytes) was copied again when pushed: `perf` put 5.9% of an exact
//! search's samples in `memmove` before, 4.5% after, with the time within the spread of
//! runs.

use crate::moves::{Move, MoveList};
use crate::position::{Position, MAX_MOVES};
use crate::search::exact::classes::{frame_moves, FrameEntry, FrameRules, OpenClasses};
use crate::zobrist::Key;

/// One position on the current line: the position, its moves and which to try next.
pub(crate) struct Frame {
    pub position: Position,
    pub moves: MoveList<MAX_MOVES>,
    /// Moves tried so far.
    pub tried: usize,
    /// Index of the first move to try (`< moves.len()`, or 0); the frame tries its
    /// moves from there, round the list (threads of a parallel search start apart).
    pub first: usize,
    /// How the position was entered: the move from the frame below (unused at the
    /// root), its Two-shuffle class (or `NO_CLASS`), and whether this frame opened that
    /// class (then it closes when the frame is popped).
    pub entry: FrameEntry,
}

impl Frame {
    /// The next move to try, counted as tried; `None` when all are.
    #[inline(always)]
    pub fn next_move(&mut self) -> Option<Move> {
        let len = self.moves.len();
        if self.tried == len {
            return None;
        }
        // `first + tried` wraps at most once: no division.
        let mut i = self.first + self.tried;
        if i >= len {
            i -= len;
        }
        self.tried += 1;
        Some(self.moves[i])
    }

    /// The `j`-th move still to try (`j < moves.len() - tried`).
    #[inline]
    fn untried(&self, j: usize) -> Move {
        let len = self.moves.len();
        let mut i = self.first + self.tried + j;
        if i >= len {
            i -= len;
        }
        self.moves[i]
    }
}

/// The frames of the current line and a spare slot above them (see the module doc).
#[derive(Default)]
pub(crate) struct ExactStack {
    frames: Vec<Frame>,
    depth: usize,
}

impl ExactStack {
    /// Frames on the line.
    pub fn len(&self) -> usize {
        self.depth
    }

    /// The top frame, if the line is not empty.
    #[inline(always)]
    pub fn top_mut(&mut self) -> Option<&mut Frame> {
        self.depth.checked_sub(1).map(|top| &mut self.frames[top])
    }

    /// Pops the top frame (its slot becomes the spare).
    #[inline(always)]
    pub fn pop(&mut self) {
        self.depth -= 1;
    }

    /// Puts `position` in the spare slot (a root, to be pushed by
    /// [`ExactStack::push_spare`]).
    pub fn set_spare(&mut self, position: &Position) {
        if self.frames.len() == self.depth {
            self.add_slot(*position);
        }
        self.frames[self.depth].position = *position;
    }

    /// Plays `m` from the top frame's position into the spare slot and returns the child.
    #[inline(always)]
    pub fn play_child(&mut self, m: Move) -> &Position {
        let parent = self.depth - 1;
        if self.frames.len() == self.depth {
            self.add_slot(self.frames[parent].position);
        }
        let (line, spare) = self.frames.split_at_mut(self.depth);
        let child = &mut spare[0].position;
        child.copy_from(&line[parent].position);
        child.play(m);
        child
    }

    /// The position in the spare slot (the child last played, or the root set).
    #[inline(always)]
    pub fn spare(&self) -> &Position {
        &self.frames[self.depth].position
    }

    /// Makes the spare slot the top frame, entered as `entry`, its moves built in place
    /// by `build` from its position, tried from index `first_of(len)` on.
    #[inline(always)]
    pub fn push_spare(
        &mut self,
        entry: FrameEntry,
        build: impl FnOnce(&Position, &mut MoveList<MAX_MOVES>),
        first_of: impl FnOnce(usize) -> usize,
    ) {
        let frame = &mut self.frames[self.depth];
        build(&frame.position, &mut frame.moves);
        frame.tried = 0;
        frame.first = first_of(frame.moves.len());
        frame.entry = entry;
        self.depth += 1;
    }

    /// Makes the spare slot the top frame of an exact search, entered as `entry` (its
    /// class one of `classes`), with the moves
    /// [`frame_moves`] gives it under `rules`
    /// (`prefetch` as there), tried from index `first_of(len)` on. Both exact searches
    /// push the positions they expand through this.
    #[inline(always)]
    pub fn push_expanded(
        &mut self,
        entry: FrameEntry,
        classes: &mut OpenClasses,
        rules: FrameRules,
        prefetch: impl FnMut(Key),
        first_of: impl FnOnce(usize) -> usize,
    ) {
        self.push_spare(
            entry,
            |position, moves| frame_moves(position, entry, classes, rules, moves, prefetch),
            first_of,
        );
    }

    /// The moves from the root to the top frame's position, then `last`.
    pub fn line(&self, last: Move) -> Vec<Move> {
        let mut line: Vec<Move> = self.frames[1..self.depth]
            .iter()
            .map(|f| f.entry.via)
            .collect();
        line.push(last);
        line
    }

    /// Work sharing (`search::exact::sharing`): takes out of the lowest frame on the line
    /// that can spare any the last half (rounded up) of its untried moves that
    /// `can_give` accepts, and returns that frame's position, those moves and the moves
    /// from the root to it. The top frame spares only half of two or more (the thread
    /// goes on with the rest); a lower frame spares one of one, since the thread is
    /// busy above it. The frame keeps its other untried moves, in their order.
    pub fn split_lowest(
        &mut self,
        can_give: impl Fn(&Frame, Move) -> bool,
    ) -> Option<(Position, MoveList<MAX_MOVES>, Vec<Move>)> {
        for k in 0..self.depth {
            let frame = &self.frames[k];
            let untried = frame.moves.len() - frame.tried;
            let givable = (0..untried)
                .filter(|&j| can_give(frame, frame.untried(j)))
                .count();
            let give = if k + 1 < self.depth {
                givable.div_ceil(2)
            } else {
                givable / 2
            };
            if give == 0 {
                continue;
            }
            let (mut kept, mut given) = (MoveList::default(), MoveList::default());
            let mut seen = 0;
            for j in 0..untried {
                let m = frame.untried(j);
                if can_give(frame, m) {
                    seen += 1;
                    if seen > givable - give {
                        given.push(m);
                        continue;
                    }
                }
                kept.push(m);
            }
            let line = self.frames[1..=k].iter().map(|f| f.entry.via).collect();
            let frame = &mut self.frames[k];
            frame.moves = kept;
            frame.first = 0;
            frame.tried = 0;
            return Some((frame.position, given, line));
        }
        None
    }

    /// Allocates a slot for a line deeper than any before (`filler` stands in until the
    /// slot is overwritten).
    #[cold]
    fn add_slot(&mut self, filler: Position) {
        self.frames.push(Frame {
            position: filler,
            moves: MoveList::default(),
            tried: 0,
            first: 0,
            entry: FrameEntry {
                via: Move::default(),
                class: 0,
                opens_class: false,
                class_key: None,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Layout;
    use crate::deal::deal;
    use crate::variant::Variant;

    fn push_legal(stack: &mut ExactStack, via: Move, first: usize) {
        let entry = FrameEntry {
            via,
            class: 0,
            opens_class: false,
            class_key: None,
        };
        stack.push_spare(
            entry,
            |p, moves| p.legal_moves(Variant::Common, moves),
            |len| first.min(len.saturating_sub(1)),
        );
    }

    #[test]
    fn frames_try_every_move_once_from_their_first_and_lines_follow_the_stack() {
        let start = deal(3, Layout::new(4, 6).unwrap());
        let mut stack = ExactStack::default();
        stack.set_spare(&start);
        push_legal(&mut stack, Move::default(), 1);
        let mut expected = MoveList::<MAX_MOVES>::default();
        start.legal_moves(Variant::Common, &mut expected);
        assert!(expected.len() >= 2, "the test needs a choice");
        let top = stack.top_mut().unwrap();
        let tried: Vec<Move> = std::iter::from_fn(|| top.next_move()).collect();
        let mut want: Vec<Move> = expected.as_slice()[1..].to_vec();
        want.push(expected[0]);
        assert_eq!(tried, want);

        // A child played into the spare slot and pushed: the line names its move, and
        // the slot's position is the parent's with that move played.
        let m = expected[0];
        let child = *stack.play_child(m);
        let mut played = start;
        played.play(m);
        assert_eq!(child.key(), played.key());
        assert_eq!(stack.spare().key(), played.key());
        push_legal(&mut stack, m, 0);
        assert_eq!(stack.len(), 2);
        let next = stack.top_mut().unwrap().moves[0];
        assert_eq!(stack.line(next), vec![m, next]);
        // Popping leaves the parent on top, its position untouched by the child's slot.
        stack.pop();
        let again = *stack.play_child(expected[1]);
        let mut other = start;
        other.play(expected[1]);
        assert_eq!(again.key(), other.key());
        assert_eq!(stack.len(), 1);
        stack.pop();
        assert!(stack.top_mut().is_none());
    }

    #[test]
    fn a_split_moves_untried_moves_out_of_the_lowest_frame_that_can_spare_them() {
        let start = deal(3, Layout::new(4, 6).unwrap());
        let mut stack = ExactStack::default();
        stack.set_spare(&start);
        push_legal(&mut stack, Move::default(), 0);
        let all: Vec<Move> = stack.top_mut().unwrap().moves.as_slice().to_vec();
        assert!(all.len() >= 3, "the test needs three moves");
        // The top frame alone: half of its untried moves, the last ones.
        let first = stack.top_mut().unwrap().next_move().unwrap();
        let untried = all.len() - 1;
        let (position, given, line) = stack.split_lowest(|_, _| true).unwrap();
        assert_eq!(position.key(), start.key());
        assert!(line.is_empty());
        assert_eq!(given.as_slice(), &all[1 + untried - untried / 2..]);
        let top = stack.top_mut().unwrap();
        let kept: Vec<Move> = std::iter::from_fn(|| top.next_move()).collect();
        assert_eq!(kept, &all[1..1 + untried - untried / 2]);

        // A frame below the top spares its one untried move; moves `can_give` refuses
        // stay.
        let mut stack = ExactStack::default();
        stack.set_spare(&start);
        push_legal(&mut stack, Move::default(), 0);
        let top = stack.top_mut().unwrap();
        for _ in 0..all.len() - 2 {
            top.next_move();
        }
        stack.play_child(first);
        push_legal(&mut stack, first, 0);
        let refused = all[all.len() - 2];
        let (_, given, line) = stack.split_lowest(|_, m| m != refused).unwrap();
        assert_eq!(given.as_slice(), &[all[all.len() - 1]]);
        assert!(line.is_empty());
        stack.pop();
        let top = stack.top_mut().unwrap();
        assert_eq!(top.next_move(), Some(refused));
        assert_eq!(top.next_move(), None);
    }
}
