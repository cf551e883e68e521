//! Block search for the `basic` variant (Helmstetter and Cazenave 2003, section 4): the game splits into one
//! subgame per gap; a block is a start position with one move sequence per gap, all
//! independent, standing for every combination of their prefixes. The search extends a
//! block in each subgame while the sequences stay independent, then builds child
//! blocks on each face and searches them, depth first.
//!
//! Why an exhausted search proves the deal lost:
//! - Every position of a block is legal and reachable (`block` invariants), and only
//!   the far corner of a block can be won (a won position has no move), so testing the
//!   far corner tests the whole block.
//! - Inside a block, a gap that has not played its whole sequence has exactly one move
//!   (the `basic` rule: one card fits a gap), the next of its sequence. Every other
//!   move is made on a face and lands in a child block (`face`).
//! - A child is skipped only if the table holds a box, stored by a block already
//!   entered, that contains every position of the child ([`table`]). The paper skips a
//!   child whenever its first position is marked; we do not, because the rest of the
//!   child need not lie in the marking block. So the positions of entered blocks
//!   contain every reachable position: by induction on the longest path from the root,
//!   a reachable position's predecessor lies in an entered block, and the position
//!   itself in that block or in one of its children, entered or covered.
//! - With transpositions (one thread), a face part is also skipped when its move is
//!   known to transpose (`transpositions`): its positions are reachable from a child
//!   searched before, whose search enters them. The coverage tests check the
//!   conclusion with and without them.
//! - Table marks (Helmstetter and Cazenave 2003, 4.7): each entered block stores the boxes starting on its
//!   four (`S`) edges, the positions reached by one sequence alone, each with the
//!   extents of the rest of the block beyond it.
//!
//! Engine rules: no allocation per block once the arena is as deep as the search (it
//! is kept between searches), limits are checked whenever the position count crosses a
//! multiple of [`CHECK_INTERVAL`](crate::tuning::CHECK_INTERVAL), and on return the
//! search holds no state that a next search could see.

mod block;
mod extension;
mod face;
mod parallel;
mod search;
mod shared_table;
mod solver;
mod table;
mod transpositions;

pub use parallel::search_parallel;
pub use search::{BlockObserver, BlockOptions, BlockSearch, BlockView};
pub use shared_table::SharedBoxTable;
pub use solver::BlockSolver;
pub use table::BoxTable;
