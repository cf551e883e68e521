//! Solver threads: plain OS threads, each owning one engine [`Solver`] (and so one
//! transposition table, allocated once), fed one solve at a time.
//!
//! Invariants: no solve ever runs on the async runtime; a thread holds at most one
//! solve; a panicking solve is reported as an error and the thread's solver is rebuilt,
//! so one bad solve cannot poison the next.

use gaps_engine::{Position, SolveOptions, SolveReport, Solver};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::mpsc;
use std::sync::Arc;
use tokio::sync::oneshot;

/// One solve to run.
pub struct SolveWork {
    /// The start position.
    pub position: Position,
    /// Algorithm, variant and limits.
    pub options: SolveOptions,
    /// Raised to stop the solve early (it then ends `unknown`, `cancelled`).
    pub cancel: Arc<AtomicBool>,
    /// Nodes searched so far, published by the engine about every 1024 nodes.
    pub progress: Arc<AtomicU64>,
}

/// A solve's report, or the engine's error (or panic) as text.
pub type SolveResult = Result<SolveReport, String>;

type Request = (SolveWork, oneshot::Sender<SolveResult>);

/// Handle to one solver thread; dropping it ends the thread after its current solve.
pub struct SolverThread {
    requests: mpsc::Sender<Request>,
}

impl SolverThread {
    /// Starts a thread named `name` whose solver has a `table_bytes` table.
    pub fn spawn(name: String, table_bytes: usize) -> std::io::Result<SolverThread> {
        let (requests, inbox) = mpsc::channel::<Request>();
        std::thread::Builder::new().name(name).spawn(move || {
            let mut solver = Solver::with_table_bytes(table_bytes);
            while let Ok((work, reply)) = inbox.recv() {
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    solver.solve_watched(
                        &work.position,
                        &work.options,
                        Some(&work.cancel),
                        Some(&work.progress),
                    )
                }));
                let result = match outcome {
                    Ok(Ok(report)) => Ok(report),
                    Ok(Err(e)) => Err(e.to_string()),
                    Err(_) => {
                        solver = Solver::with_table_bytes(table_bytes);
                        Err("the solver panicked".to_string())
                    }
                };
                // The receiver may be gone (its task was dropped): nothing to do.
                let _ = reply.send(result);
            }
        })?;
        Ok(SolverThread { requests })
    }

    /// Runs `work` on this thread and waits (asynchronously) for its result.
    pub async fn solve(&self, work: SolveWork) -> SolveResult {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send((work, reply))
            .map_err(|_| "the solver thread has stopped".to_string())?;
        answer
            .await
            .map_err(|_| "the solver thread has stopped".to_string())?
    }
}
