//! Command-line interface (README, "Command line"): argument parsing and dispatch.
//!
//! Invariants: bad input of any kind exits with code 2 and a message naming the
//! problem; internal failures exit with code 1; results go to stdout, progress and
//! diagnostics to stderr. A closed standard output (`gaps bench | head`) ends the
//! command quietly with code 0: every result line is written with `outln!`, which
//! returns the write error instead of panicking like `println!`.

/// `println!` that returns a write error from the enclosing function (which must return
/// `anyhow::Result`) instead of panicking on a closed pipe.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

mod args;
mod backup;
mod bench;
mod blocks_table;
mod board;
mod call;
mod caller;
mod count;
mod deal;
mod health;
mod hints;
mod morpion;
mod odds;
mod odds_table;
mod out_file;
mod played;
mod results;
mod serve;
mod solve;
mod table1;
mod text;
mod winnable;
mod winrate;
mod worker;

use clap::{Parser, Subcommand};
use std::fmt;
use std::process::ExitCode;

pub use args::SearchArgs;
pub use call::{call, Answer, CallError, COMMANDS};
pub use caller::Caller;

/// Bad input from the user (exit code 2), as opposed to an internal failure.
#[derive(Debug)]
pub struct InputError {
    /// What the binary prints after `error: `.
    pub message: String,
    /// What part of the input it is about (the Python package's exception class).
    pub subject: Subject,
}

/// What part of a command's input a refusal is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// The position given (`invalid position: ...`).
    Position,
    /// The PySolFC game or number named (`--pysol: ...`).
    Game,
    /// The played steps (`--played ...`): not steps, or a step the rules refuse.
    Steps,
    /// Anything else: a flag, a limit, a combination of them.
    Other,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for InputError {}

/// The configuration (defaults, then `file`, then `GAPS_*` variables) with the
/// database URL replaced by `database` when given; a bad configuration is bad input.
pub fn load_config(
    file: Option<&std::path::Path>,
    database: Option<String>,
) -> anyhow::Result<crate::service::config::Config> {
    let mut config =
        crate::service::config::Config::load(file).map_err(|e| input_error(e.to_string()))?;
    if let Some(url) = database {
        config.database.url = url;
    }
    Ok(config)
}

/// Shorthand for a bad-input error.
pub fn input_error(message: impl Into<String>) -> anyhow::Error {
    refused(Subject::Other, message)
}

/// A bad-input error about `subject`.
pub fn refused(subject: Subject, message: impl Into<String>) -> anyhow::Error {
    InputError {
        message: message.into(),
        subject,
    }
    .into()
}

#[derive(Parser, Debug)]
#[command(
    name = "gaps",
    version,
    about = "Solver for the solitaire card game Gaps (Montana)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the HTTP service (the default when no subcommand is given).
    Serve(serve::ServeCmd),
    /// Run jobs from a shared database without the HTTP API.
    Worker(worker::WorkerCmd),
    /// Print a batch's results from the database (NDJSON, or CSV).
    Results(results::ResultsCmd),
    /// Write a consistent copy of a live SQLite database to a new file.
    Backup(backup::BackupCmd),
    /// Ask a running node's `/healthz` (exit 0 when it answers 200): a container's
    /// health check.
    Health(health::HealthCmd),
    /// Solve one position (argument or standard input), or a JSON-lines batch.
    Solve(solve::SolveCmd),
    /// The chance of winning a deal or position when the redeals' shuffles are
    /// unknown: a lower bound, an upper bound, and the next step.
    Odds(odds::OddsCmd),
    /// Review a played game: the first step after which it could no longer be won.
    Review(played::ReviewCmd),
    /// Print a numbered deal.
    Deal(deal::DealCmd),
    /// Count the positions reachable from a position, exactly (what a proof must visit).
    Count(count::CountCmd),
    /// Solve a range of numbered deals on all cores and report the win rate.
    Winrate(winrate::WinrateCmd),
    /// List the winnable game numbers of a PySolFC game (as played, with its redeals),
    /// for an "always solvable" version of it.
    Winnable(winnable::WinnableCmd),
    /// The latency of a verdict and a hint for games in progress (random play of PySolFC
    /// games), or of reviews.
    Hints(hints::HintsCmd),
    /// Search a fixed deal set and print a deterministic node count and speed.
    Bench(bench::BenchCmd),
    /// Morpion Solitaire endgame proofs (the paper's second game).
    Morpion(morpion::MorpionCmd),
    /// Reproduce the paper's Table 1: iterative sampling success rate against probes.
    Table1(table1::Table1Cmd),
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        // A game in progress is its own command's, so that `solve` knows nothing of it.
        Some(Command::Solve(cmd)) if cmd.played.is_some() => played::run_solve(cmd),
        Some(Command::Solve(cmd)) => solve::run(cmd),
        Some(Command::Review(cmd)) => played::run_review(cmd),
        Some(Command::Odds(cmd)) => odds::run(cmd),
        Some(Command::Deal(cmd)) => deal::run(cmd),
        Some(Command::Count(cmd)) => count::run(cmd),
        Some(Command::Winrate(cmd)) => winrate::run(cmd),
        Some(Command::Winnable(cmd)) => winnable::run(cmd),
        Some(Command::Bench(cmd)) => bench::run(cmd),
        Some(Command::Hints(cmd)) => hints::run(cmd),
        Some(Command::Serve(cmd)) => serve::run(cmd),
        Some(Command::Worker(cmd)) => worker::run(cmd),
        Some(Command::Results(cmd)) => results::run(cmd),
        Some(Command::Backup(cmd)) => backup::run(cmd),
        Some(Command::Health(cmd)) => health::run(cmd),
        Some(Command::Table1(cmd)) => table1::run(cmd),
        Some(Command::Morpion(cmd)) => morpion::run(cmd),
        None => serve::run(serve::ServeCmd::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) if e.is::<InputError>() => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Whether `e` is a write to a standard output whose reader has gone (`| head`): not a
/// failure of ours, and nothing is left to tell anyone.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        let kind = cause
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| cause.downcast_ref::<serde_json::Error>()?.io_error_kind());
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}
