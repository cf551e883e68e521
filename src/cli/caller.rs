//! Who runs a command: a terminal (the `gaps` binary), or a program that calls it
//! through [`super::call`] (the Python package) and steers it while it runs.
//!
//! Invariant: a command run with [`Caller::TERMINAL`] behaves exactly as the binary
//! always has (standard input for `-`, a progress bar on a terminal, no way to stop
//! it but a signal); what a program gives instead only replaces those three things and
//! never changes what is searched or answered.

use anyhow::Context;
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What a command gets from whoever runs it, besides its arguments.
#[derive(Clone, Copy, Debug, Default)]
pub struct Caller<'a> {
    /// Raised to stop the command: its searches end `unknown`, stopped `cancelled`,
    /// and a run over deals hands out no more deals.
    pub cancel: Option<&'a AtomicBool>,
    /// Counts the deals a run over deals has finished (resumed ones included), for the
    /// caller's own progress; given, no progress bar is drawn.
    pub deals_done: Option<&'a AtomicU64>,
    /// What `-` reads (a position, played steps) instead of standard input.
    pub stdin: Option<&'a str>,
}

impl<'a> Caller<'a> {
    /// The `gaps` binary on a terminal or in a pipe.
    pub const TERMINAL: Caller<'static> = Caller {
        cancel: None,
        deals_done: None,
        stdin: None,
    };

    /// Whether the caller has asked the command to stop.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// Whether a progress bar may be drawn (on a terminal, for the binary only).
    pub fn draws_progress(&self) -> bool {
        self.deals_done.is_none()
            && self.stdin.is_none()
            && std::io::IsTerminal::is_terminal(&std::io::stderr())
    }

    /// Counts one finished deal (or `n`).
    pub fn deals_finished(&self, n: u64) {
        if let Some(done) = self.deals_done {
            done.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Everything `-` names: the caller's text, or standard input read to its end
    /// (`what` names it in the error).
    pub fn read_stdin(&self, what: &str) -> anyhow::Result<String> {
        if let Some(text) = self.stdin {
            return Ok(text.to_string());
        }
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .with_context(|| format!("reading {what} from standard input"))?;
        Ok(text)
    }
}

/// The caller stopped the command before it finished: what it had done is not an
/// answer.
#[derive(Debug, thiserror::Error)]
#[error("stopped by the caller")]
pub struct Cancelled;
