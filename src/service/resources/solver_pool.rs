//! Solver threads: plain OS threads, each owning one engine [`Solver`] (and so one
//! transposition table, allocated once), fed one solve at a time.
//!
//! Invariants: no solve ever runs on the async runtime; a thread holds at most one
//! solve; a panicking solve is reported as an error and the thread's solver is rebuilt,
//! so one bad solve cannot poison the next. A solver thread runs at the
//! [`SolverPriority`] it was given, and the threads a solve starts inherit it (Linux
//! threads inherit their creator's policy and nice value), so searches that fill every
//! core do not delay the HTTP workers, the heartbeats or a local database server.

use crate::played::{answer_game, GameAnswer, GameInProgress};
use crate::service::config::SolverPriority;
use crate::spill::FileStore;
use gaps_engine::{
    Algorithm, BoardDeal, BoardReport, PauseGate, Position, Redeals, SolveControls, SolveOptions,
    SolveReport, Solver, SpillStore,
};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::mpsc;
use std::sync::Arc;
use tokio::sync::oneshot;

/// How a running solve is steered from outside its thread (either kind of solve).
pub struct Steering {
    /// Raised to stop the solve early (it then ends `unknown`, `cancelled`).
    pub cancel: Arc<AtomicBool>,
    /// Nodes searched so far, published by the engine about every 1024 nodes.
    pub progress: Arc<AtomicU64>,
    /// Parks the search while paused (a batch job giving way to a single job).
    pub pause: Option<Arc<PauseGate>>,
}

impl Steering {
    /// The engine's view of it.
    fn controls(&self) -> SolveControls<'_> {
        SolveControls {
            cancel: Some(&self.cancel),
            progress: Some(&self.progress),
            pause: self.pause.as_deref(),
            spill: None,
        }
    }
}

/// One solve to run.
pub struct SolveWork {
    /// The start position.
    pub position: Position,
    /// Algorithm, variant and limits.
    pub options: SolveOptions,
    /// The redeals the search may use, with the deal's generator (`None`: its first
    /// round only).
    pub redeals: Option<Redeals>,
    /// Its cancel flag, progress counter and pause gate.
    pub steering: Steering,
}

/// A solve's report, or the engine's error (or panic) as text.
pub type SolveResult = Result<SolveReport, String>;

/// One solve of a PySolFC game played on its own board (its search is the board
/// search, on the thread's own memory: the thread's table is not used).
pub struct BoardWork {
    /// The game.
    pub deal: BoardDeal,
    /// Redeals the search may use (at most the game's own).
    pub redeals: u8,
    /// Node, time and memory limits (the rest does not apply).
    pub options: SolveOptions,
    /// Its cancel flag, progress counter and pause gate.
    pub steering: Steering,
}

/// A board solve's report, or the engine's error (or panic) as text.
pub type BoardResult = Result<BoardReport, String>;

/// One answer about a game in progress: the rest of it, or its review (on the thread's
/// solver, as a solve).
pub struct PlayedWork {
    /// The game, its steps checked.
    pub game: GameInProgress,
    /// Whether to review the steps rather than answer about the rest only.
    pub review: bool,
    /// Algorithm, variant and limits (of each search of a review).
    pub options: SolveOptions,
    /// Its cancel flag, progress counter and pause gate.
    pub steering: Steering,
}

/// The answer about a game in progress, or the engine's error (or panic) as text.
pub type PlayedResult = Result<GameAnswer, String>;

/// Work of a kind of job of its own on the thread's solver (the odds of a game): it
/// sends its own result and says whether it panicked (its solver is then rebuilt).
type OnSolver = Box<dyn FnOnce(&mut Solver) -> bool + Send>;

// One in flight per solver thread: the size of its largest variant does not matter.
#[allow(clippy::large_enum_variant)]
enum Request {
    Engine(SolveWork, oneshot::Sender<SolveResult>),
    Board(BoardWork, oneshot::Sender<BoardResult>),
    Played(PlayedWork, oneshot::Sender<PlayedResult>),
    With(OnSolver),
}

impl SolverPriority {
    /// Applies this priority to the calling thread. Lowering a thread's priority needs
    /// no privilege; where the platform refuses, the thread keeps its priority.
    pub(crate) fn apply_to_current_thread(self) -> Result<(), String> {
        use thread_priority::{
            set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy,
            ThreadPriority, ThreadSchedulePolicy,
        };
        let policy = match self {
            SolverPriority::Normal => return Ok(()),
            SolverPriority::Low => NormalThreadSchedulePolicy::Other,
            SolverPriority::Idle => NormalThreadSchedulePolicy::Idle,
        };
        set_thread_priority_and_policy(
            thread_native_id(),
            ThreadPriority::Min,
            ThreadSchedulePolicy::Normal(policy),
        )
        .map_err(|e| format!("{e:?}"))
    }
}

/// Handle to one solver thread; dropping it ends the thread after its current solve.
pub struct SolverThread {
    requests: mpsc::Sender<Request>,
}

impl SolverThread {
    /// Starts a thread named `name` at `priority` whose solver has a `table_bytes` table
    /// and spills a full exact visited set to a file in `spill_dir`, if given.
    pub fn spawn(
        name: String,
        table_bytes: usize,
        priority: SolverPriority,
        spill_dir: Option<PathBuf>,
    ) -> std::io::Result<SolverThread> {
        Self::spawn_with(name, table_bytes, priority, spill_dir, false)
    }

    /// [`SolverThread::spawn`], but its solver (and so its table) is made for each solve
    /// and dropped after it: a thread that solves now and then holds no table between.
    pub fn spawn_per_solve(
        name: String,
        table_bytes: usize,
        priority: SolverPriority,
        spill_dir: Option<PathBuf>,
    ) -> std::io::Result<SolverThread> {
        Self::spawn_with(name, table_bytes, priority, spill_dir, true)
    }

    fn spawn_with(
        name: String,
        table_bytes: usize,
        priority: SolverPriority,
        spill_dir: Option<PathBuf>,
        per_solve: bool,
    ) -> std::io::Result<SolverThread> {
        let (requests, inbox) = mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name(name.clone())
            .spawn(move || {
                if let Err(e) = priority.apply_to_current_thread() {
                    tracing::warn!(thread = %name, ?priority, error = %e,
                    "could not lower the solver thread's priority; it keeps the default");
                }
                let new_solver = || {
                    let mut solver = Solver::with_table_bytes(table_bytes);
                    // Checked at start (`Config::validate`): a failure now (the disk
                    // gone) leaves this solver stopping at its memory limit instead.
                    match FileStore::for_solver(spill_dir.as_deref()) {
                        Ok(store) => solver.spill_to(store),
                        Err(e) => tracing::warn!(thread = %name, error = %e,
                            "no spill file; exact searches stop when their set is full"),
                    }
                    solver
                };
                let mut kept = (!per_solve).then(new_solver);
                while let Ok(request) = inbox.recv() {
                    // A board search does not use the solver: it is made for the others.
                    // The receiver may be gone (its task was dropped): nothing to do.
                    match request {
                        Request::Engine(work, reply) => {
                            let solver = kept.get_or_insert_with(new_solver);
                            let _ = reply.send(on_solver(solver, &new_solver, |solver| {
                                solver.solve_controlled(
                                    &work.position,
                                    &work.options,
                                    work.redeals.as_ref(),
                                    work.steering.controls(),
                                )
                            }));
                        }
                        Request::Played(work, reply) => {
                            // A board game's answer is the board search's, on the memory
                            // its job drew: the thread's table is not made for it (the
                            // smallest stands in for the solver it does not use).
                            let stand_in = || Solver::with_table_bytes(0);
                            let mut unused = None;
                            let solver = if matches!(work.game, GameInProgress::Board { .. }) {
                                unused.insert(stand_in())
                            } else {
                                kept.get_or_insert_with(new_solver)
                            };
                            let _ = reply.send(on_solver(solver, &new_solver, |solver| {
                                answer_game(
                                    &work.game,
                                    work.review,
                                    solver,
                                    &work.options,
                                    work.steering.controls(),
                                )
                            }));
                        }
                        Request::With(work) => {
                            let solver = kept.get_or_insert_with(new_solver);
                            if work(solver) {
                                *solver = new_solver();
                            }
                        }
                        Request::Board(work, reply) => {
                            // The exhaustive search of a board game's round spills
                            // to a file of its own, made for this solve (the board
                            // search keeps no set that could).
                            let exhaustive = work.options.algorithm == Algorithm::Exact;
                            let store = exhaustive
                                .then(|| FileStore::for_solver(spill_dir.as_deref()))
                                .and_then(|made| made.unwrap_or_else(|e| {
                                    tracing::warn!(thread = %name, error = %e,
                                    "no spill file; the board's exhaustive search stops when its set is full");
                                    None
                                }));
                            let _ = reply.send(solve_board(&work, store.as_ref()));
                        }
                    }
                    if per_solve {
                        kept = None;
                    }
                }
            })?;
        Ok(SolverThread { requests })
    }

    /// Runs a board solve on this thread and waits (asynchronously) for its result.
    pub async fn solve_board(&self, work: BoardWork) -> BoardResult {
        self.ask(|reply| Request::Board(work, reply)).await
    }

    /// Runs `work` on this thread and waits (asynchronously) for its result.
    pub async fn solve(&self, work: SolveWork) -> SolveResult {
        self.ask(|reply| Request::Engine(work, reply)).await
    }

    /// Answers about a game in progress on this thread, and waits for the answer.
    pub async fn answer_played(&self, work: PlayedWork) -> PlayedResult {
        self.ask(|reply| Request::Played(work, reply)).await
    }

    /// Runs `work` on this thread's solver and waits for its result (a panic is an
    /// error, after which the solver is rebuilt).
    pub async fn with_solver<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Solver) -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        self.ask(|reply| {
            Request::With(Box::new(move |solver: &mut Solver| {
                let outcome = catch_unwind(AssertUnwindSafe(|| work(solver)));
                let panicked = outcome.is_err();
                let result = outcome.unwrap_or_else(|_| Err("the solver panicked".to_string()));
                let _ = reply.send(result);
                panicked
            }))
        })
        .await
    }

    /// Sends the request `make` builds around its reply channel, and waits for the
    /// reply.
    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, String>>) -> Request,
    ) -> Result<T, String> {
        let stopped = || "the solver thread has stopped".to_string();
        let (reply, answer) = oneshot::channel();
        self.requests.send(make(reply)).map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }
}

/// Runs `search` on the thread's `solver`: the engine's error as text, and a panic as an
/// error after which the solver is rebuilt (`new_solver`), so that nothing it held
/// outlives the search that broke.
fn on_solver<T, E: std::fmt::Display>(
    solver: &mut Solver,
    new_solver: &impl Fn() -> Solver,
    search: impl FnOnce(&mut Solver) -> Result<T, E>,
) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(|| search(solver))) {
        Ok(Ok(report)) => Ok(report),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => {
            *solver = new_solver();
            Err("the solver panicked".to_string())
        }
    }
}

/// Runs a board solve, a panic reported as an error (the search holds nothing that
/// outlives it).
fn solve_board(work: &BoardWork, spill: Option<&Arc<dyn SpillStore>>) -> BoardResult {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let controls = SolveControls {
            spill,
            ..work.steering.controls()
        };
        work.deal.solve(work.redeals, &work.options, controls)
    }));
    match outcome {
        Ok(Ok(report)) => Ok(report),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("the board search panicked".to_string()),
    }
}
