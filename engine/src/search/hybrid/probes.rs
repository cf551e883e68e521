//! The random probes of the hybrid search (`search::hybrid`), made on the searching
//! thread or handed to helper threads.
//!
//! Invariants:
//! - The probe of node `index` draws from its own generator, seeded from the search's
//!   seed and `index` alone ([`node_rng`]), so whether a node's probe wins does not
//!   depend on which thread makes it, nor when.
//! - The search hands nodes over in index order. The answer is the win of the lowest
//!   index: a probe is skipped only when a win of a lower index is already known, and
//!   the expansion stops once some win is known (every node of a lower index has been
//!   handed over by then). So, unless a limit stops the search, one thread and several
//!   find the same winning node and the same solution.
//! - Helpers take batches of [`PROBE_BATCH`] nodes from a bounded queue; when it is full, the
//!   searching thread probes the batch itself, so the queue never outgrows
//!   `QUEUED_PER_HELPER` batches per helper and the threads share the work.

use crate::deal::SplitMix64;
use crate::moves::Move;
use crate::position::Position;
use crate::search::budget::Budget;
use crate::search::outcome::Outcome;
use crate::search::sampling::Sampler;
use crate::search::stats::SearchStats;
use crate::tuning::{PROBE_BATCH, QUEUED_PER_HELPER};
use crate::variant::Variant;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

/// No win known yet (above every node index).
const NO_WIN: u32 = u32::MAX;

/// The generator of node `index`'s probe, from the search's seed `base`.
pub fn node_rng(base: u64, index: u32) -> SplitMix64 {
    SplitMix64::new(SplitMix64::new(base ^ u64::from(index)).next_u64())
}

/// Runs node `index`'s probe from `pos` with its own generator (see [`node_rng`]); the
/// probe's moves if it won.
fn probe_node(
    sampler: &mut Sampler,
    variant: Variant,
    base: u64,
    index: u32,
    pos: &Position,
    stats: &mut SearchStats,
) -> Option<Vec<Move>> {
    let mut rng = node_rng(base, index);
    match sampler.run(pos, variant, 1, &mut rng, &Budget::unlimited(), stats) {
        Outcome::Won(line) => Some(line),
        _ => None,
    }
}

/// Where the breadth-first loop sends each node to be probed.
pub trait ProbeSink {
    /// Takes node `index`, at `pos`; true once a win is known (the loop then stops
    /// expanding).
    fn take(&mut self, index: u32, pos: &Position, stats: &mut SearchStats) -> bool;
    /// Nodes counted by other threads' probes so far (for the node limit).
    fn outside_nodes(&self) -> u64;
}

/// Probes every node at once on the searching thread.
pub struct InlineProbes<'a> {
    pub sampler: &'a mut Sampler,
    pub variant: Variant,
    pub base: u64,
    /// The first win: its node and the probe's moves.
    pub won: Option<(u32, Vec<Move>)>,
}

impl ProbeSink for InlineProbes<'_> {
    fn take(&mut self, index: u32, pos: &Position, stats: &mut SearchStats) -> bool {
        let won = probe_node(self.sampler, self.variant, self.base, index, pos, stats);
        if let Some(line) = won {
            self.won = Some((index, line));
            return true;
        }
        false
    }

    fn outside_nodes(&self) -> u64 {
        0
    }
}

/// What the searching thread and its helpers share.
pub struct Shared {
    queue: Mutex<VecDeque<Vec<(u32, Position)>>>,
    ready: Condvar,
    /// Emptied batches, for the searching thread to fill again.
    free: Mutex<Vec<Vec<(u32, Position)>>>,
    /// The lowest winning node known and its probe's moves.
    best: Mutex<Option<(u32, Vec<Move>)>>,
    /// The index of `best` (or `NO_WIN`), read without the lock.
    best_index: AtomicU32,
    /// No more batches will come.
    closed: AtomicBool,
    /// The search stopped on a limit: helpers stop at once.
    halt: AtomicBool,
    /// Nodes counted by the helpers' probes.
    helper_nodes: AtomicU64,
    variant: Variant,
    base: u64,
}

impl Shared {
    /// Shared state of a search on `variant` from seed `base`.
    pub fn new(variant: Variant, base: u64) -> Self {
        Shared {
            queue: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
            free: Mutex::new(Vec::new()),
            best: Mutex::new(None),
            best_index: AtomicU32::new(NO_WIN),
            closed: AtomicBool::new(false),
            halt: AtomicBool::new(false),
            helper_nodes: AtomicU64::new(0),
            variant,
            base,
        }
    }

    /// The lowest winning node found and its probe's moves.
    pub fn take_best(&self) -> Option<(u32, Vec<Move>)> {
        self.best
            .lock()
            .expect("no thread panics holding it")
            .take()
    }

    /// Sets `flag` under the queue's lock and wakes every helper (a helper checks the
    /// flags under that lock before it waits, so none misses the wake-up).
    fn raise(&self, flag: &AtomicBool) {
        let _queue = self.queue.lock().expect("no thread panics holding it");
        flag.store(true, Ordering::Relaxed);
        self.ready.notify_all();
    }

    /// Probes `nodes` (see the module invariants).
    fn probe(&self, nodes: &[(u32, Position)], sampler: &mut Sampler, stats: &mut SearchStats) {
        for (index, pos) in nodes {
            if *index > self.best_index.load(Ordering::Relaxed) || self.halt.load(Ordering::Relaxed)
            {
                continue;
            }
            if let Some(line) = probe_node(sampler, self.variant, self.base, *index, pos, stats) {
                let mut best = self.best.lock().expect("no thread panics holding it");
                if best.as_ref().is_none_or(|(known, _)| index < known) {
                    *best = Some((*index, line));
                    self.best_index.store(*index, Ordering::Relaxed);
                }
            }
        }
    }

    /// A helper thread: probes batches until the queue is closed and empty, or halted.
    pub fn help(&self, sampler: &mut Sampler) -> SearchStats {
        let mut stats = SearchStats::default();
        loop {
            let batch = {
                let mut queue = self.queue.lock().expect("no thread panics holding it");
                loop {
                    if self.halt.load(Ordering::Relaxed) {
                        break None;
                    }
                    if let Some(batch) = queue.pop_front() {
                        break Some(batch);
                    }
                    if self.closed.load(Ordering::Relaxed) {
                        break None;
                    }
                    queue = self.ready.wait(queue).expect("no thread panics holding it");
                }
            };
            let Some(mut batch) = batch else {
                return stats;
            };
            let before = stats.nodes;
            self.probe(&batch, sampler, &mut stats);
            self.helper_nodes
                .fetch_add(stats.nodes - before, Ordering::Relaxed);
            batch.clear();
            self.free
                .lock()
                .expect("no thread panics holding it")
                .push(batch);
        }
    }
}

/// The searching thread's side: fills batches and queues them for `helpers` helpers.
pub struct QueuedProbes<'a> {
    pub shared: &'a Shared,
    /// The searching thread's own sampler, for the batches it probes itself.
    pub sampler: &'a mut Sampler,
    pub helpers: usize,
    batch: Vec<(u32, Position)>,
}

impl<'a> QueuedProbes<'a> {
    /// The searching thread's side of `shared`, with `helpers` helpers.
    pub fn new(shared: &'a Shared, sampler: &'a mut Sampler, helpers: usize) -> Self {
        QueuedProbes {
            shared,
            sampler,
            helpers,
            batch: Vec::with_capacity(PROBE_BATCH),
        }
    }

    /// Queues the current batch for the helpers, or probes it here when the queue is
    /// full.
    fn flush(&mut self, stats: &mut SearchStats) {
        if self.batch.is_empty() {
            return;
        }
        let mut queue = self
            .shared
            .queue
            .lock()
            .expect("no thread panics holding it");
        if queue.len() >= QUEUED_PER_HELPER * self.helpers {
            drop(queue);
            self.shared.probe(&self.batch, self.sampler, stats);
            self.batch.clear();
            return;
        }
        // Lock order: `queue`, then `free` (a helper never holds `free` while it waits
        // for `queue`).
        let next = self
            .shared
            .free
            .lock()
            .expect("no thread panics holding it")
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(PROBE_BATCH));
        queue.push_back(std::mem::replace(&mut self.batch, next));
        self.shared.ready.notify_one();
    }

    /// Hands over the last batch, closes the queue and probes what is left in it
    /// beside the helpers (unless `halted`: then the helpers stop at once).
    pub fn finish(&mut self, halted: bool, stats: &mut SearchStats) {
        if halted {
            self.shared.raise(&self.shared.halt);
            return;
        }
        self.flush(stats);
        self.shared.raise(&self.shared.closed);
        loop {
            let batch = self
                .shared
                .queue
                .lock()
                .expect("no thread panics holding it")
                .pop_front();
            let Some(batch) = batch else {
                return;
            };
            self.shared.probe(&batch, self.sampler, stats);
        }
    }
}

impl ProbeSink for QueuedProbes<'_> {
    fn take(&mut self, index: u32, pos: &Position, stats: &mut SearchStats) -> bool {
        self.batch.push((index, *pos));
        if self.batch.len() == PROBE_BATCH {
            self.flush(stats);
        }
        self.shared.best_index.load(Ordering::Relaxed) != NO_WIN
    }

    fn outside_nodes(&self) -> u64 {
        self.shared.helper_nodes.load(Ordering::Relaxed)
    }
}
