//! Parallel block search: several threads search from the same
//! root, each taking the faces of every block from its own first face, and share one
//! box table ([`SharedBoxTable`]). A block's boxes are stored when it is entered, so a
//! thread skips the children another thread has entered (or is searching) and the
//! threads split the tree between them as they go, with no work queue (the "lazy SMP"
//! of chess engines, here for an exhaustive search).
//!
//! Why an exhausted parallel search proves the deal lost: each thread keeps the
//! single-thread argument (see `blocks`) except that a box that lets it skip a child may
//! have been stored by another thread's block. That block was entered, and its thread
//! searches all of the block's children unless it stops early (a win or a limit). The
//! search answers `Exhausted` only when every thread exhausted its own search, so then
//! every entered block, whichever thread entered it, was searched to the end, and the
//! induction of `blocks` goes through unchanged. A win from any thread is a win (the
//! caller replays it).
//!
//! Limits: the node limit is split evenly between the threads; the deadline and the
//! cancel flag hold for all; the first thread that stops early (a win outside complete
//! mode, or a limit) raises a flag that stops the others.

use super::search::{BlockObserver, BlockOptions, BlockSearch};
use super::shared_table::SharedBoxTable;
use crate::position::Position;
use crate::search::budget::Budget;
use crate::search::budget::MAX_THREADS;
use crate::search::outcome::Outcome;
use crate::search::stats::SearchStats;
use std::sync::atomic::{AtomicBool, Ordering};

/// Searches every position reachable from `start` under the `basic` rules with one
/// thread per observer (1..=[`MAX_THREADS`] of them; each sees the blocks its thread
/// enters), all sharing `table`, which must have been cleared by the caller. `stats`
/// receives the sum of the threads' counts.
pub fn search_parallel<O: BlockObserver + Send>(
    start: &Position,
    table: &SharedBoxTable,
    options: BlockOptions,
    budget: &Budget,
    stats: &mut SearchStats,
    observers: &mut [O],
) -> Outcome {
    let threads = observers.len();
    assert!(
        (1..=MAX_THREADS).contains(&threads),
        "block search threads must be in 1..={MAX_THREADS}"
    );
    let halt = AtomicBool::new(false);
    let gaps = start.gaps().len();
    let spent = stats.nodes;
    let results: Vec<(Outcome, SearchStats, bool)> = std::thread::scope(|scope| {
        let workers: Vec<_> = observers
            .iter_mut()
            .enumerate()
            .map(|(t, observer)| {
                let halt = &halt;
                scope.spawn(move || {
                    let budget = budget.shared_by(threads, spent, halt);
                    let options = BlockOptions {
                        first_face: t * gaps / threads,
                        transpositions: false, // each skip must rest on a finished subtree
                        ..options
                    };
                    let mut own = SearchStats::default();
                    let mut boxes = table.handle(t);
                    let outcome = BlockSearch::default().search(
                        start,
                        Some(&mut boxes),
                        options,
                        &budget,
                        &mut own,
                        observer,
                    );
                    let stops_all = match outcome {
                        Outcome::Won(_) => !options.complete,
                        // A block search never ends `NoWin`; were one to, it proved
                        // nothing, so it must not let the others end `Exhausted`.
                        Outcome::Stopped(_) | Outcome::NoWin(_) => true,
                        Outcome::Exhausted => false,
                    };
                    // Only the first thread to stop says why: the others were halted.
                    let first = stops_all && !halt.swap(true, Ordering::Relaxed);
                    (outcome, own, first)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a block search thread panicked"))
            .collect()
    });
    for (_, own, _) in &results {
        stats.absorb(own);
    }
    let mut stopped = None;
    for (outcome, _, first) in results {
        match outcome {
            Outcome::Won(line) => return Outcome::Won(line),
            Outcome::Stopped(reason) | Outcome::NoWin(reason) if first || stopped.is_none() => {
                stopped = Some(reason);
            }
            Outcome::Stopped(_) | Outcome::NoWin(_) | Outcome::Exhausted => {}
        }
    }
    stopped.map_or(Outcome::Exhausted, Outcome::Stopped)
}
