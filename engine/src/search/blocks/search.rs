//! The block search itself: extend a block in every gap, test its far corner, mark its
//! edges in the box table, and search the children on each face, depth first.
//! The invariants that make an exhausted search a proof are in the module doc of
//! `blocks`.

use super::block::Block;
use super::face::{classify, Action, Part};
use super::table::BoxStore;
use super::transpositions;
use crate::card::{Card, Cell, MAX_SUITS};
use crate::moves::Move;
use crate::position::Position;
use crate::search::budget::{Budget, StopReason};
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use crate::tuning::CHECK_INTERVAL;
use crate::zobrist::{move_delta, Key};

/// Options of a block search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockOptions {
    /// Search the whole space instead of stopping at the first win.
    pub complete: bool,
    /// Use the transposition table of boxes.
    pub table: bool,
    /// The gap slot whose face is searched first in every block (the others follow in
    /// slot order, wrapping around): threads of a parallel search differ here.
    pub first_face: usize,
    /// Incremental transpositions between the faces of a block (one thread only; see
    /// `transpositions`).
    pub transpositions: bool,
}

impl Default for BlockOptions {
    fn default() -> Self {
        BlockOptions {
            complete: false,
            table: true,
            first_face: 0,
            transpositions: false,
        }
    }
}

/// A read-only view of an entered block, for observers (tests, statistics).
pub struct BlockView<'a> {
    block: &'a Block,
}

impl BlockView<'_> {
    /// The position where no sequence has been played.
    pub fn start(&self) -> &Position {
        &self.block.start
    }
    /// The sequence of moves of gap slot `x` (slots as in `start().gaps()`).
    pub fn sequence(&self, x: usize) -> impl Iterator<Item = Move> + '_ {
        (1..=self.block.len[x] as usize).map(move |i| self.block.step(x, i))
    }
    /// Number of positions in the block.
    pub fn volume(&self) -> u64 {
        self.block.volume()
    }
}

/// Receives every block the search enters.
pub trait BlockObserver {
    /// Called once per entered block, after its extension.
    fn entered(&mut self, block: BlockView<'_>);
}

impl BlockObserver for () {
    #[inline(always)]
    fn entered(&mut self, _: BlockView<'_>) {}
}

/// A reusable block searcher: owns its arena of blocks (one per depth), its work list
/// of face parts and the move path, all kept between searches.
pub struct BlockSearch {
    blocks: Vec<Block>,
    parts: Vec<Part>,
    deferred: Vec<(Part, u8, Cell)>,
    path: Vec<Move>,
}

impl Default for BlockSearch {
    fn default() -> Self {
        BlockSearch {
            blocks: Vec::with_capacity(64),
            parts: Vec::with_capacity(256),
            deferred: Vec::with_capacity(256),
            path: Vec::with_capacity(1024),
        }
    }
}

/// Whether the search goes on after a block.
enum Flow {
    Go,
    Won(Vec<Move>),
    Stop(StopReason),
}

/// The state of one search.
struct Run<'a, 'b, T: BoxStore, O: BlockObserver> {
    blocks: &'a mut Vec<Block>,
    parts: &'a mut Vec<Part>,
    /// Face moves whose child another thread is searching (parallel search only): tried
    /// again, to help, once the block's other faces are done.
    deferred: &'a mut Vec<(Part, u8, Cell)>,
    path: &'a mut Vec<Move>,
    table: Option<&'a mut T>,
    options: BlockOptions,
    budget: &'a Budget<'b>,
    stats: &'a mut SearchStats,
    observer: &'a mut O,
    next_check: u64,
    first_win: Option<Vec<Move>>,
}

impl BlockSearch {
    /// Searches every position reachable from `start` under the `basic` rules. `table`
    /// must be cleared by the caller when a fresh search is wanted.
    pub fn search<T: BoxStore, O: BlockObserver>(
        &mut self,
        start: &Position,
        table: Option<&mut T>,
        options: BlockOptions,
        budget: &Budget,
        stats: &mut SearchStats,
        observer: &mut O,
    ) -> Outcome {
        if self.blocks.is_empty() {
            self.blocks.push(Block::new(*start));
        }
        self.blocks[0].reset(*start);
        self.parts.clear();
        self.deferred.clear();
        self.path.clear();
        let mut run = Run {
            blocks: &mut self.blocks,
            parts: &mut self.parts,
            deferred: &mut self.deferred,
            path: &mut self.path,
            table: if options.table { table } else { None },
            options,
            budget,
            stats,
            observer,
            next_check: CHECK_INTERVAL,
            first_win: None,
        };
        let flow = run.enter(0, true);
        if let Some(t) = run.table.as_deref() {
            run.stats.stored += t.stored();
            run.stats.replaced += t.replaced();
            run.stats.table_bytes = run.stats.table_bytes.max(t.active_bytes() as u64);
        }
        let first_win = run.first_win.take();
        self.parts.clear();
        self.deferred.clear();
        self.path.clear();
        match flow {
            Flow::Won(line) => Outcome::Won(line),
            Flow::Stop(reason) => Outcome::Stopped(reason),
            Flow::Go => first_win.map_or(Outcome::Exhausted, Outcome::Won),
        }
    }
}

/// The extents of a box, one byte per gap ranked by its cell (see [`table`](super::table)).
#[inline(always)]
fn canonical_extents(gap_cells: &[Cell], extents: &[u8]) -> u64 {
    let mut bytes = [0u8; MAX_SUITS];
    for (x, &c) in gap_cells.iter().enumerate() {
        let rank = gap_cells.iter().filter(|&&o| o < c).count();
        bytes[rank] = extents[x];
    }
    u64::from_le_bytes(bytes)
}

/// The extents of a stored box per gap slot of a position whose gaps stand on
/// `gap_cells` (the inverse of [`canonical_extents`]).
#[inline(always)]
fn slot_extents(gap_cells: &[Cell], canonical: u64) -> [u8; MAX_SUITS] {
    let bytes = canonical.to_le_bytes();
    let mut extents = [0u8; MAX_SUITS];
    for (x, &c) in gap_cells.iter().enumerate() {
        extents[x] = bytes[gap_cells.iter().filter(|&&o| o < c).count()];
    }
    extents
}

impl<T: BoxStore, O: BlockObserver> Run<'_, '_, T, O> {
    /// Extends the block at `depth`, counts and marks it, tests it for a win and
    /// searches the children on each of its faces. A `fresh` block is extended without
    /// looking at the table: the root (the caller cleared the table, unless threads of a
    /// parallel search share it, and then they must all build the same root block, or a
    /// later thread would find the first one's marks and stop at once) and a block that
    /// another thread is searching, entered to help.
    fn enter(&mut self, depth: usize, fresh: bool) -> Flow {
        if let Some(t) = self.table.as_deref_mut() {
            t.begin_block(depth);
        }
        let flow = self.search_block(depth, fresh);
        if let Some(t) = self.table.as_deref_mut() {
            t.end_block(depth);
        }
        flow
    }

    fn search_block(&mut self, depth: usize, fresh: bool) -> Flow {
        let gaps = self.blocks[depth].gaps();
        let block = &mut self.blocks[depth];
        let table = self.table.as_deref().filter(|_| !fresh);
        if let Some(t) = table {
            // Each gap's first lookup is known now: start loading them all at once.
            for x in 0..gaps {
                if let Some(key) = block.next_extension_key(x) {
                    t.prefetch(key);
                }
            }
        }
        for x in 0..gaps {
            block.extend(x, |key, cells, extents| {
                table.is_some_and(|t| t.covers(key, canonical_extents(cells, extents)))
            });
        }
        let block = &self.blocks[depth];
        self.stats.blocks += 1;
        self.stats.nodes = self.stats.nodes.saturating_add(block.volume());
        let deepest =
            self.path.len() + block.len[..gaps].iter().map(|&l| l as usize).sum::<usize>();
        self.stats.max_depth = self.stats.max_depth.max(deepest as u64);
        if self.stats.nodes >= self.next_check {
            self.next_check = (self.stats.nodes / CHECK_INTERVAL + 1) * CHECK_INTERVAL;
            if let Some(reason) = self.budget.exhausted(self.stats.nodes) {
                return Flow::Stop(reason);
            }
        }
        if let Some(table) = self.table.as_deref_mut() {
            mark_edges(table, block);
        }
        self.observer.entered(BlockView { block });
        if block.far_corner_won() {
            self.stats.wins += 1;
            let mut line = self.path.clone();
            for x in 0..gaps {
                line.extend((1..=block.len[x] as usize).map(|i| block.step(x, i)));
            }
            if !self.options.complete {
                return Flow::Won(line);
            }
            self.first_win.get_or_insert(line);
        }
        let (base, deferred) = (self.parts.len(), self.deferred.len());
        let mut flow = Flow::Go;
        for face in 0..gaps {
            let x = (face + self.options.first_face) % gaps;
            self.parts.push(Part::face(&self.blocks[depth], x));
            flow = self.search_parts(depth, base);
            if !matches!(flow, Flow::Go) {
                break;
            }
        }
        while matches!(flow, Flow::Go) && self.deferred.len() > deferred {
            let (part, code, from) = self.deferred.pop().expect("non-empty deferred list");
            flow = self.child(depth, &part, code, from, true);
            if matches!(flow, Flow::Go) {
                flow = self.search_parts(depth, base); // what the table did not cover
            }
        }
        self.parts.truncate(base);
        self.deferred.truncate(deferred);
        flow
    }

    /// Searches the face parts of the block at `depth` on the work list above `base`.
    #[inline(always)]
    fn search_parts(&mut self, depth: usize, base: usize) -> Flow {
        while self.parts.len() > base {
            let part = self.parts.pop().expect("non-empty work list");
            match classify(&self.blocks[depth], &part) {
                Action::Split { y, at, drop_at } => part.split(y, at, drop_at, self.parts),
                Action::NoMove => {}
                Action::Move { code, from } => {
                    if transpositions::transposes(&self.blocks[depth], &part, code, from) {
                        self.stats.it_cuts += 1;
                        continue;
                    }
                    match self.child(depth, &part, code, from, false) {
                        Flow::Go => {}
                        other => return other,
                    }
                }
            }
        }
        Flow::Go
    }

    /// Builds the child block of `part` (gap `part.x` plays `code` from `from`), and
    /// enters it unless the table shows all its positions were entered before. When
    /// the box that shows it belongs to a block another thread is searching, the child
    /// is deferred the first time, and entered to help the second (`help`).
    #[inline(always)]
    fn child(&mut self, depth: usize, part: &Part, code: u8, from: Cell, help: bool) -> Flow {
        if self.blocks.len() <= depth + 1 {
            let start = self.blocks[depth].start;
            self.blocks.push(Block::new(start));
        }
        let (done, rest) = self.blocks.split_at_mut(depth + 1);
        let parent = &done[depth];
        let child = &mut rest[0];
        let x = part.x as usize;
        let gaps = parent.gaps();
        let mark = self.path.len();
        let mut pos = parent.start;
        for y in 0..gaps {
            let upto = if y == x { parent.len[x] } else { part.lo[y] };
            for i in 1..=upto as usize {
                let m = parent.step(y, i);
                pos.play(m);
                self.path.push(m);
            }
        }
        let m = Move {
            card: Card::from_code(code),
            from,
            to: parent.traj[x][parent.len[x] as usize],
            gap: x as u8,
        };
        pos.play(m);
        self.path.push(m);
        if let Some(t) = self.table.as_deref() {
            t.prefetch(pos.key()); // loads while the child's trajectories are copied
        }
        child.reset(pos);
        debug_assert!(
            (0..gaps).filter(|&y| y != x).all(|y| !parent.traj[y]
                [part.lo[y] as usize..=part.hi[y] as usize]
                .contains(&from)),
            "the cell emptied by a face move lies on a ranged trajectory"
        );
        for y in (0..gaps).filter(|&y| y != x) {
            child.set_trajectory(
                y,
                &parent.traj[y][part.lo[y] as usize..=part.hi[y] as usize],
            );
        }
        // `(extents, busy)`: a box stored for the child's start, and whether the block
        // that stored it is being searched by another thread right now.
        let found = self.table.as_deref().and_then(|t| t.claim(pos.key()));
        if let Some((_, true)) = found {
            if !help {
                self.path.truncate(mark);
                self.deferred.push((*part, code, from));
                return Flow::Go;
            }
            // Helping: enter the whole child, extended as if the table were empty (the
            // other thread's marks would stop its extension at once).
        } else if let Some((stored, false)) = found {
            let stored = slot_extents(pos.gaps(), stored);
            self.path.truncate(mark);
            self.stats.tt_hits += 1;
            // The stored box covers the child's positions up to `stored`; what lies
            // beyond is searched as smaller parts of the same face, each with its own
            // first position (and table lookup).
            let mut rest = *part;
            for y in (0..gaps).filter(|&y| y != x) {
                let span = rest.hi[y] - rest.lo[y];
                if span > stored[y] {
                    let mut piece = rest;
                    piece.lo[y] = rest.lo[y] + stored[y] + 1;
                    self.parts.push(piece);
                    rest.hi[y] = rest.lo[y] + stored[y];
                }
            }
            return Flow::Go;
        }
        if self.options.transpositions {
            // Only for a child that is entered: most children are cut by the table.
            let face_rank = |y: usize| (y + gaps - self.options.first_face) % gaps;
            let earlier = |y: usize| face_rank(y) < face_rank(x);
            child.skip = transpositions::inherit(parent, part, m, earlier);
        }
        let helping = found.is_some();
        let flow = self.enter(depth + 1, helping);
        self.path.truncate(mark);
        flow
    }
}

/// Stores the boxes starting on the edges of `block`: its start with the whole block,
/// and each position reached by `k` moves of one gap alone with the rest beyond it.
/// The edge keys are walked twice, first to prefetch every bucket, then to store: the
/// stores' cache misses then overlap instead of queueing (a key costs a few XORs).
fn mark_edges(table: &mut impl BoxStore, block: &Block) {
    let gaps = block.gaps();
    let start = block.start.key();
    table.prefetch(start);
    for_each_edge(block, |key, _| table.prefetch(key));
    let mut cells = [0 as Cell; MAX_SUITS];
    for (x, c) in cells.iter_mut().enumerate().take(gaps) {
        *c = block.traj[x][0];
    }
    table.store(start, canonical_extents(&cells[..gaps], &block.len[..gaps]));
    for_each_edge(block, |key, (x, k)| {
        let mut extents = block.len;
        extents[x] = block.len[x] - k as u8;
        cells[x] = block.traj[x][k];
        table.store(key, canonical_extents(&cells[..gaps], &extents[..gaps]));
        if k == block.len[x] as usize {
            cells[x] = block.traj[x][0];
        }
    });
}

/// Calls `visit(key, (x, k))` for each position reached from the start of `block` by
/// `k >= 1` moves of gap `x` alone.
#[inline(always)]
fn for_each_edge(block: &Block, mut visit: impl FnMut(Key, (usize, usize))) {
    let start = block.start.key();
    for x in 0..block.gaps() {
        let mut key = start;
        for k in 1..=block.len[x] as usize {
            let m = block.step(x, k);
            key ^= move_delta(m.card, m.from, m.to);
            visit(key, (x, k));
        }
    }
}
