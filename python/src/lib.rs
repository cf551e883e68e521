//! `gaps._native`: the command line's commands called from Python (docs/python.md).
//!
//! One function, [`call`]: the arguments the `gaps` binary would be given in, the
//! answer its `--json` prints out (`gaps::cli::call`), so that Python accepts and
//! refuses what the binary does with the same words. The package around it
//! (`python/gaps`) turns keywords into those arguments and answers into objects.
//!
//! Invariants: the command runs on a thread of its own while the calling thread waits
//! without the GIL, taking it back about every [`POLL`] to let Python handle a signal
//! (Ctrl-C raises the caller's flag; the command stops at its next check, within
//! about 1024 nodes, and the call raises `KeyboardInterrupt`) and to call `progress`
//! with the deals done; the command's own thread never touches Python.

use gaps::cli::{Answer, CallError, Caller, Subject};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How long the caller waits without the GIL between two looks at Python.
const POLL: Duration = Duration::from_millis(50);

create_exception!(
    _native,
    CallFailed,
    PyException,
    "A call that gave no answer: args (kind, subject, message), kind one of \"usage\", \"input\", \"internal\"."
);

/// Runs the `gaps` command `args` (`["solve", "--deal", "5"]`) and returns
/// `("json", text)` with what its `--json` prints, or `("lines", [...])` for `deal`.
/// `stdin` is what `-` reads; `progress(done)` is called with the deals a run over
/// deals has finished whenever that number changes, and once more at its end.
#[pyfunction]
#[pyo3(signature = (args, stdin=None, progress=None))]
fn call(
    py: Python<'_>,
    args: Vec<String>,
    stdin: Option<String>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<(&'static str, Py<PyAny>)> {
    let cancel = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let caller = Caller {
        cancel: Some(&cancel),
        deals_done: Some(&done),
        stdin: stdin.as_deref(),
    };
    let (answer, interrupted) = std::thread::scope(|scope| {
        let (send, mut receive) = mpsc::channel();
        let args = &args;
        scope.spawn(move || {
            // A panic drops `send` unsent, which ends the wait below; `scope` then
            // raises it again, and PyO3 turns it into Python's `PanicException`.
            let _ = send.send(gaps::cli::call(args, &caller));
        });
        let mut interrupted = None;
        let mut shown = 0;
        let progress = progress.as_ref();
        loop {
            let (back, got) = py.detach(move || {
                let got = receive.recv_timeout(POLL);
                (receive, got)
            });
            receive = back;
            match got {
                Ok(answer) => return (Some(answer), interrupted),
                Err(mpsc::RecvTimeoutError::Disconnected) => return (None, interrupted),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if interrupted.is_some() {
                continue; // stopping: wait for the command to see the flag
            }
            let now = done.load(Ordering::Relaxed);
            let looked = py.check_signals().and_then(|()| match &progress {
                Some(progress) if now != shown => {
                    shown = now;
                    progress.call1((now,)).map(drop)
                }
                _ => Ok(()),
            });
            if let Err(e) = looked {
                cancel.store(true, Ordering::Relaxed);
                interrupted = Some(e);
            }
        }
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    // The last count too, however quickly the run ended.
    if let (Some(progress), Some(Ok(_))) = (&progress, &answer) {
        progress.call1((done.load(Ordering::Relaxed),))?;
    }
    let Some(answer) = answer else {
        unreachable!("a command that sent no answer panicked, and `scope` raised it");
    };
    match answer {
        Ok(Answer::Json(text)) => Ok(("json", text.into_pyobject(py)?.into_any().unbind())),
        Ok(Answer::Lines(lines)) => Ok(("lines", PyList::new(py, lines)?.into_any().unbind())),
        Err(CallError::Usage(message)) => Err(failed("usage", None, &message)),
        Err(CallError::Input { message, subject }) => Err(failed("input", Some(subject), &message)),
        Err(CallError::Cancelled) => Err(failed("internal", None, "stopped by the caller")),
        Err(CallError::Internal(message)) => Err(failed("internal", None, &message)),
    }
}

fn failed(kind: &str, subject: Option<Subject>, message: &str) -> PyErr {
    let subject = match subject {
        Some(Subject::Position) => "position",
        Some(Subject::Game) => "game",
        Some(Subject::Steps) => "steps",
        Some(Subject::Other) | None => "other",
    };
    CallFailed::new_err((kind.to_string(), subject, message.to_string()))
}

/// The commands a call may run.
#[pyfunction]
fn commands() -> Vec<&'static str> {
    gaps::cli::COMMANDS.to_vec()
}

#[pymodule]
#[pyo3(name = "_native")]
fn native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(call, module)?)?;
    module.add_function(wrap_pyfunction!(commands, module)?)?;
    module.add("CallFailed", module.py().get_type::<CallFailed>())?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
