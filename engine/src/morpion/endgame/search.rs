//! The depth-first endgame search: every continuation of a position, the longest kept.
//!
//! Three methods share one recursion ([`Method`]): `dfs_it` keeps with each node the
//! set T of moves known to lead to positions already searched (Helmstetter and
//! Cazenave 2004) and skips them; plain DFS searches the whole tree; DFS with a table
//! skips positions whose key a fixed-size table holds.
//!
//! Invariants:
//! - Move lists are incremental: a child's list is the parent's moves compatible with
//!   the move played ([`Move::compatible`]), in the parent's order, then the moves
//!   through the new dot. Buffers are allocated once per searcher (no allocation per
//!   node); a list longer than [`LIST_CAPACITY`] or a path deeper than [`MAX_DEPTH`]
//!   marks the search incomplete instead of growing.
//! - In Morpion every transposition is a permutation of commuting moves, so with
//!   `dfs_it` each position reachable from the root is entered exactly once: the node
//!   count of a complete search is the number of distinct positions (root included).
//! - A skipped subtree was completely searched before, so the longest line is still
//!   found; the best line is copied only when strictly longer (the first found stays).
//! - The limits are checked every `CHECK_INTERVAL` nodes; a stop is an outcome.

use crate::morpion::board::{Board, Move};
use crate::search::budget::{Budget, StopReason};
use crate::tuning::CHECK_INTERVAL;
use std::sync::atomic::{AtomicU64, Ordering};

/// Most moves a position's list may hold.
pub const LIST_CAPACITY: usize = 128;
/// Most moves a search may play below its root.
pub const MAX_DEPTH: usize = 400;

/// How transpositions are handled.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Method {
    /// Incremental transpositions, no table.
    Incremental,
    /// No transposition detection: the whole tree.
    Plain,
    /// A table of searched positions' keys (sized once), no incremental transpositions.
    Table,
}

impl Method {
    /// The stable name (`it`, `plain`, `table`).
    pub fn name(self) -> &'static str {
        match self {
            Method::Incremental => "it",
            Method::Plain => "plain",
            Method::Table => "table",
        }
    }

    /// The method of a name.
    pub fn from_name(name: &str) -> Option<Method> {
        [Method::Incremental, Method::Plain, Method::Table]
            .into_iter()
            .find(|m| m.name() == name)
    }
}

/// The list and T of the child reached by `parent[i]`, just played on `board`: the
/// parent's moves compatible with it, in order (keeping their T bits), then the moves
/// through its new dot. Writes `out` and returns the length, the child's T and whether
/// every move fitted (`parent` holds at most [`LIST_CAPACITY`] moves).
#[inline(always)]
pub(super) fn child_list(
    board: &mut Board,
    parent: &[Move],
    known: u128,
    i: usize,
    out: &mut [Move],
) -> (usize, u128, bool) {
    let (m, reach) = (parent[i], board.variant().reach());
    // Branch-free compaction: each parent move is written at `len`, which advances
    // only when the move is kept, and its T bit is set only then. Lists of at most 64
    // moves (nearly all) keep T in 64-bit words: 128-bit variable shifts cost several
    // instructions each.
    let mut len = 0;
    let child_known = if parent.len() <= 64 {
        let (known, mut child_known) = (known as u64, 0u64);
        for (j, &t) in parent.iter().enumerate() {
            let keep = j != i && t.compatible(m, reach);
            out[len] = t;
            child_known |= (known >> j & keep as u64) << len;
            len += keep as usize;
        }
        u128::from(child_known)
    } else {
        let mut child_known = 0u128;
        for (j, &t) in parent.iter().enumerate() {
            let keep = j != i && t.compatible(m, reach);
            out[len] = t;
            child_known |= (known >> j & keep as u128) << len;
            len += keep as usize;
        }
        child_known
    };
    match board.moves_through(m, out, len) {
        Some(len) => (len, child_known, true),
        None => (out.len(), child_known, false),
    }
}

/// A mask of the `n` lowest bits (`n <= 128`).
#[inline(always)]
pub(super) fn low_bits(n: usize) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1 << n) - 1
    }
}

/// What one search found.
#[derive(Clone, Debug, Default)]
pub struct Found {
    /// Positions entered (the root included).
    pub nodes: u64,
    /// The longest continuation found from the root.
    pub line: Vec<Move>,
    /// Why the search stopped early (`None`: it ran to the end).
    pub stop: Option<StopReason>,
    /// Whether a list or the path outgrew its buffer or a dot left the grid (the
    /// search is then not a proof).
    pub truncated: bool,
}

impl Found {
    /// Whether every continuation was searched.
    pub fn complete(&self) -> bool {
        self.stop.is_none() && !self.truncated
    }
}

/// A set of keys of searched positions, sized once: a slot per key's low bits,
/// replaced on collision (a lost key only costs a search again).
struct KeyTable {
    slots: Vec<u64>,
    mask: usize,
}

impl KeyTable {
    fn new(bytes: usize) -> KeyTable {
        let len = (bytes / 8).max(1).next_power_of_two();
        KeyTable {
            slots: vec![0; len],
            mask: len - 1,
        }
    }

    fn contains(&self, key: u64) -> bool {
        self.slots[key as usize & self.mask] == key
    }

    fn insert(&mut self, key: u64) {
        self.slots[key as usize & self.mask] = key;
    }
}

/// A searcher: its buffers, sized once, reused from search to search.
pub struct Searcher {
    lists: Vec<Move>,
    path: Vec<Move>,
    table: Option<KeyTable>,
}

struct Run<'s, 'b> {
    board: &'s mut Board,
    lists: &'s mut [Move],
    path: &'s mut Vec<Move>,
    table: Option<&'s mut KeyTable>,
    method: Method,
    budget: &'s Budget<'b>,
    counter: Option<&'s AtomicU64>,
    nodes: u64,
    next_check: u64,
    best: Vec<Move>,
    stop: Option<StopReason>,
    truncated: bool,
}

impl Searcher {
    /// A searcher; `table_bytes` sizes the key table of [`Method::Table`] (0: none).
    pub fn new(table_bytes: usize) -> Searcher {
        Searcher {
            lists: vec![Move::default(); (MAX_DEPTH + 1) * LIST_CAPACITY],
            path: Vec::with_capacity(MAX_DEPTH),
            table: (table_bytes > 0).then(|| KeyTable::new(table_bytes)),
        }
    }

    /// Searches every continuation of `board` (left as it was). `moves` are its legal
    /// moves and `known` the bit mask over them of moves leading to positions already
    /// searched (`dfs_it`'s T; only read by [`Method::Incremental`]). `counter`, when
    /// given, is advanced by the nodes searched as the search goes (for progress).
    pub fn search(
        &mut self,
        board: &mut Board,
        moves: &[Move],
        known: u128,
        method: Method,
        budget: &Budget<'_>,
        counter: Option<&AtomicU64>,
    ) -> Found {
        let truncated = moves.len() > LIST_CAPACITY;
        let n = moves.len().min(LIST_CAPACITY);
        self.lists[..n].copy_from_slice(&moves[..n]);
        self.path.clear();
        let table = match method {
            Method::Table => self.table.as_mut(),
            _ => None,
        };
        assert!(
            method != Method::Table || table.is_some(),
            "a table search needs a searcher with a table"
        );
        let mut run = Run {
            board,
            lists: &mut self.lists,
            path: &mut self.path,
            table,
            method,
            budget,
            counter,
            nodes: 0,
            next_check: CHECK_INTERVAL,
            best: Vec::new(),
            stop: None,
            truncated,
        };
        if let Some(t) = run.table.as_deref_mut() {
            t.insert(run.board.key());
        }
        run.node(
            0,
            n,
            if method == Method::Incremental {
                known
            } else {
                0
            },
        );
        if let Some(counter) = counter {
            counter.fetch_add(run.nodes % CHECK_INTERVAL, Ordering::Relaxed);
        }
        let overflowed = run.board.overflowed();
        Found {
            nodes: run.nodes,
            line: run.best,
            stop: run.stop,
            truncated: run.truncated || overflowed,
        }
    }
}

impl Run<'_, '_> {
    fn node(&mut self, depth: usize, n: usize, mut known: u128) {
        self.nodes += 1;
        if self.nodes >= self.next_check {
            self.next_check += CHECK_INTERVAL;
            if let Some(counter) = self.counter {
                counter.fetch_add(CHECK_INTERVAL, Ordering::Relaxed);
            }
            #[cfg(debug_assertions)]
            assert_eq!(self.board.key(), self.board.key_from_scratch());
            if let Some(reason) = self.budget.exhausted(self.nodes) {
                self.stop = Some(reason);
                return;
            }
        }
        if self.path.len() > self.best.len() {
            self.best.clear();
            self.best.extend_from_slice(self.path);
        }
        if depth == MAX_DEPTH {
            self.truncated |= n > 0;
            return;
        }
        let (base, child) = (depth * LIST_CAPACITY, (depth + 1) * LIST_CAPACITY);
        // The moves not in T, lowest first (T only gains moves already passed).
        let mut open = low_bits(n) & !known;
        while open != 0 {
            let i = open.trailing_zeros() as usize;
            open &= open - 1;
            let m = self.lists[base + i];
            if let Some(table) = self.table.as_deref_mut() {
                let key = self.board.key() ^ m.key();
                if table.contains(key) {
                    continue;
                }
                table.insert(key);
            }
            self.board.play(m);
            let (parents, children) = self.lists.split_at_mut(child);
            let parent = &parents[base..base + n];
            let out = &mut children[..LIST_CAPACITY];
            let (len, child_known, complete) = child_list(self.board, parent, known, i, out);
            self.truncated |= !complete;
            self.path.push(m);
            self.node(depth + 1, len, child_known);
            self.path.pop();
            self.board.unplay(m);
            if self.stop.is_some() {
                return;
            }
            if self.method == Method::Incremental {
                known |= 1 << i;
            }
        }
    }
}
