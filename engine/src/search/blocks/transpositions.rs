//! Incremental transpositions between the faces of a block (Helmstetter and Cazenave's (2004) idea, applied
//! to block search, which Helmstetter and Cazenave (2003) report they could not combine with).
//!
//! The faces of a block are searched one after the other. Say face `y` was searched
//! before face `x`, and `x` plays `m` on a part of its face. On the positions `R` of that
//! part where `y` has also played its whole sequence, `y`'s face move `m'` is the same
//! everywhere (checked with [`classify`]), and if `m'` commutes with `m`, then for every
//! position `Q` reached from `R` by `m` and then moves that all commute with `m'`:
//! `Q·m' = R·m'·m·...`, a position reachable from `R·m'`, which lies in a child of face
//! `y` already searched. So in the child of `m` the move `m'` of gap `y` is *known to
//! transpose*: `y`'s sequence is not extended by it ([`Block::extend`]), and a face part
//! of `y` whose move is `m'` is skipped where every move since the child's start
//! commutes with `m'`.
//!
//! A known move is handed on to a grandchild when it commutes with the grandchild's face
//! move and with every move of the child up to the far end of the grandchild's part (a
//! superset of the moves played before any of its positions), and its gap's trajectory
//! still ends on the move's cell; otherwise it is dropped. So each known move `t` of a
//! block keeps the invariant: some position `A` with `A·t` searched (its child block
//! entered, covered by the table, or itself skipped this way) leads to the block's
//! start by moves that all commute with `t`.
//!
//! Why an exhausted search still proves the deal lost: as with Helmstetter and Cazenave's (2004) incremental
//! transpositions (and Godefroid's sleep sets) only moves are skipped, never
//! positions. A skipped `Q·m'` is reachable from `R·m'`, whose subtree was searched
//! before the skip, so that search reaches it, and a `basic` game is acyclic, so the
//! justifications cannot go round in a circle. That is Helmstetter and Cazenave's (2004) argument for
//! depth-first search; here it is a sketch, not a proof, because a box may also cover
//! positions of a block still being searched (an ancestor), which finishes later. The
//! coverage tests check the conclusion directly: with and without transpositions,
//! every reachable position lies in an entered block (`engine/tests/blocks.rs`).
//!
//! Only for one thread: a parallel search's threads finish faces in different orders,
//! and a skip must rest on a subtree finished before it.

use super::block::Block;
use super::face::{classify, Action, Part};
use crate::card::{Card, Cell, MAX_SUITS};
use crate::moves::Move;
use crate::search::dfs::gaps_game::gaps_commute;

/// Whether the move of gap `part.x` on `part` (`code` from `from`) is known to
/// transpose: it is the gap's known move, and every move of the block played before a
/// position of the part commutes with it. Only the moves below each gap's range need a
/// test: a face move commutes with the moves inside the part's ranges ([`classify`]
/// answered `Move`), so the answer is the same on the whole part.
#[inline]
pub(crate) fn transposes(block: &Block, part: &Part, code: u8, from: Cell) -> bool {
    let x = part.x as usize;
    let Some(t) = block.skip[x] else {
        return false;
    };
    if t.card.code() != code || t.from != from || t.to != block.traj[x][block.len[x] as usize] {
        return false;
    }
    debug_assert!((0..block.gaps()).filter(|&y| y != x).all(|y| {
        (part.lo[y] + 1..=part.hi[y]).all(|i| gaps_commute(t, block.step(y, i as usize)))
    }));
    (0..block.gaps())
        .filter(|&y| y != x)
        .all(|y| first_conflict(block, y, part.lo[y], t).is_none())
}

/// The known moves of the child that `parent`'s face `part` (gap `part.x`) builds with
/// move `m`; `earlier(y)`: gap `y`'s face was searched before this one.
pub(crate) fn inherit(
    parent: &Block,
    part: &Part,
    m: Move,
    earlier: impl Fn(usize) -> bool,
) -> [Option<Move>; MAX_SUITS] {
    let x = part.x as usize;
    let mut skip = [None; MAX_SUITS];
    for y in (0..parent.gaps()).filter(|&y| y != x) {
        let len = parent.len[y];
        if part.hi[y] != len {
            continue; // the child's trajectory of `y` ends before the move's cell
        }
        let end = parent.traj[y][len as usize];
        // A face searched before this one: its move where `y` has played everything.
        let fresh = earlier(y)
            .then(|| {
                let mut region = *part;
                region.x = y as u8;
                region.lo[y] = len;
                match classify(parent, &region) {
                    Action::Move { code, from } => Some(Move {
                        card: Card::from_code(code),
                        from,
                        to: end,
                        gap: y as u8,
                    }),
                    _ => None,
                }
            })
            .flatten()
            .filter(|&t| gaps_commute(t, m));
        // Or a known move of the parent that commutes with everything played since.
        let handed = || {
            parent.skip[y].filter(|&t| {
                t.to == end
                    && gaps_commute(t, m)
                    && (0..parent.gaps())
                        .filter(|&z| z != y)
                        .all(|z| first_conflict(parent, z, part.hi[z], t).is_none())
            })
        };
        skip[y] = fresh.or_else(handed);
    }
    skip
}

/// The first move of gap `y`'s sequence, among moves `1..=upto`, that does not commute
/// with `t`.
#[inline]
fn first_conflict(block: &Block, y: usize, upto: u8, t: Move) -> Option<u8> {
    (1..=upto).find(|&i| !gaps_commute(t, block.step(y, i as usize)))
}
