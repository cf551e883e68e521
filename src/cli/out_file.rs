//! The totals of a run over many deals ([`Tally`]) and the `--out` files of `gaps
//! winrate` and `gaps winnable`: one line a deal (its
//! verdict, nodes, time, algorithm, why it stopped; in a run over rounds also the
//! rounds its solution plays and what its first round's own search found), appended
//! and flushed as each deal ends, so that a run stopped anywhere goes on from the
//! deals its file holds.
//!
//! Invariants: a file holds one kind of run (its header says which: first round, or
//! over rounds), and a run refuses a file of the other kind; a deal counts once,
//! however often the file holds it.

use super::input_error;
use anyhow::Context;
use gaps_engine::{SearchStats, SolveReport, Verdict};
use std::collections::{BTreeSet, HashSet};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// Totals of a run over many deals.
#[derive(Default, Debug, Clone)]
pub struct Tally {
    pub solvable: u64,
    pub unsolvable: u64,
    pub unknown: u64,
    pub nodes: u64,
    pub max_nodes: u64,
    pub max_time: Duration,
    pub times: Vec<Duration>,
    /// Won deals by the rounds their solution plays (1, 2, 3), in a run over rounds.
    pub won_in_rounds: [u64; 3],
    /// What the first round's own search found (solvable, unsolvable, unknown), in a
    /// run over rounds.
    pub first_round: [u64; 3],
}

/// What a deal's solve over rounds found: rounds its solution plays (0: none), and its
/// first round's verdict.
pub(super) type RoundsSeen = Option<(usize, Verdict)>;

fn verdict_index(verdict: Verdict) -> usize {
    match verdict {
        Verdict::Solvable => 0,
        Verdict::Unsolvable => 1,
        Verdict::Unknown => 2,
    }
}

impl Tally {
    pub(super) fn add(&mut self, verdict: Verdict, stats: &SearchStats, rounds: RoundsSeen) {
        if let Some((used, first)) = rounds {
            if (1..=3).contains(&used) && verdict == Verdict::Solvable {
                self.won_in_rounds[used - 1] += 1;
            }
            self.first_round[verdict_index(first)] += 1;
        }
        match verdict {
            Verdict::Solvable => self.solvable += 1,
            Verdict::Unsolvable => self.unsolvable += 1,
            Verdict::Unknown => self.unknown += 1,
        }
        self.nodes += stats.nodes;
        self.max_nodes = self.max_nodes.max(stats.nodes);
        self.max_time = self.max_time.max(stats.elapsed);
        self.times.push(stats.elapsed);
    }
    pub(super) fn merge(&mut self, other: Tally) {
        self.solvable += other.solvable;
        self.unsolvable += other.unsolvable;
        self.unknown += other.unknown;
        self.nodes += other.nodes;
        self.max_nodes = self.max_nodes.max(other.max_nodes);
        self.max_time = self.max_time.max(other.max_time);
        self.times.extend(other.times);
        for i in 0..3 {
            self.won_in_rounds[i] += other.won_in_rounds[i];
            self.first_round[i] += other.first_round[i];
        }
    }
}

/// The header of an `--out` file.
pub(super) const OUT_HEADER: &str = "deal,verdict,nodes,seconds,algorithm,stopped";
/// The header of an `--out` file of a run over rounds: also the rounds the solution
/// plays (0 without one) and what the first round's own search found.
pub(super) const ROUNDS_HEADER: &str =
    "deal,verdict,nodes,seconds,algorithm,stopped,rounds,first_round";

/// What an `--out` file holds of deals `first..first+count`.
#[derive(Default)]
pub(super) struct OutFile {
    /// Their totals.
    pub tally: Tally,
    /// The deals it holds.
    pub done: HashSet<u128>,
    /// Those it holds as won.
    pub won: BTreeSet<u128>,
}

/// The rounds part of a report, as a tally counts it.
pub(super) fn rounds_seen(report: &SolveReport) -> RoundsSeen {
    let rounds = report.rounds.as_ref()?;
    let used = if report.verdict == Verdict::Solvable {
        rounds.rounds_used()
    } else {
        0
    };
    Some((used, rounds.first_round.unwrap_or(Verdict::Unknown)))
}

/// An `--out` file's line for deal `number` (with the rounds columns in a run over
/// rounds).
pub(super) fn out_line(number: u128, report: &SolveReport, over_rounds: bool) -> String {
    let mut line = format!(
        "{number},{},{},{:.3},{},{}",
        report.verdict.name(),
        report.stats.nodes,
        report.stats.elapsed.as_secs_f64(),
        report.algorithm.name(),
        report.stopped.map_or("", |s| s.name())
    );
    if let Some((used, first)) = rounds_seen(report).filter(|_| over_rounds) {
        line.push_str(&format!(",{used},{}", first.name()));
    }
    line.push('\n');
    line
}

/// The deals of `first..first+count` an `--out` file holds; an absent file holds none.
pub(super) fn read_out(
    path: &Path,
    header: &str,
    first: u128,
    count: u64,
) -> anyhow::Result<OutFile> {
    let mut held = OutFile::default();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(held),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    if text.lines().next().is_some_and(|first| first != header) {
        return Err(input_error(format!(
            "{} holds another kind of run (its header is not `{header}`): rounds and \
             first-round runs go to different files",
            path.display()
        )));
    }
    for (n, line) in text.lines().enumerate().skip(1) {
        let bad = || {
            input_error(format!(
                "{} line {}: not a winrate line",
                path.display(),
                n + 1
            ))
        };
        let fields: Vec<&str> = line.split(',').collect();
        let [deal, verdict, nodes, seconds, ..] = fields[..] else {
            return Err(bad());
        };
        let rounds = match fields[..] {
            [_, _, _, _, _, _, used, first_round] => Some((
                used.parse().map_err(|_| bad())?,
                first_round.parse().map_err(|_| bad())?,
            )),
            _ if header == ROUNDS_HEADER => return Err(bad()),
            _ => None,
        };
        let deal: u128 = deal.parse().map_err(|_| bad())?;
        let verdict: Verdict = verdict.parse().map_err(|_| bad())?;
        let stats = SearchStats {
            nodes: nodes.parse().map_err(|_| bad())?,
            elapsed: Duration::try_from_secs_f64(seconds.parse().map_err(|_| bad())?)
                .map_err(|_| bad())?,
            ..SearchStats::default()
        };
        if (first..first + u128::from(count)).contains(&deal) && held.done.insert(deal) {
            held.tally.add(verdict, &stats, rounds);
            if verdict == Verdict::Solvable {
                held.won.insert(deal);
            }
        }
    }
    Ok(held)
}

/// The `--out` file opened for appending, its header written if it is new.
pub(super) fn open_out(path: &Path, header: &str) -> anyhow::Result<Mutex<std::fs::File>> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    if file.metadata()?.len() == 0 {
        writeln!(file, "{header}")?;
    }
    Ok(Mutex::new(file))
}
