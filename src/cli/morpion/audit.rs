//! `gaps morpion prove --state FILE --audit N`: spot-checks a proof's state file by
//! searching some of its stored units again.
//!
//! A unit's node count is deterministic (with `dfs_it`, the positions entered below
//! its frontier node, the units before it counting as searched), and so is the length
//! of its longest line; a stored unit that disagrees was not written by this engine's
//! search of that unit. Invariants: the file is only read; the units are picked by a
//! seeded partial shuffle of the stored ones (the same seed, the same units); an audit
//! cut short by a limit checks nothing and says so; any disagreement exits non-zero.

use super::input_error;
use super::state::Stored;
use gaps_engine::morpion::board::Board;
use gaps_engine::morpion::endgame::{search_frontier, EndgameOptions, Frontier, UnitResult};
use gaps_engine::SplitMix64;
use serde::Serialize;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// What to audit.
pub(super) struct Audit {
    /// Units to search again (all the stored ones when it is at least their number).
    pub units: usize,
    pub seed: u64,
    pub json: bool,
}

/// One audited unit.
#[derive(Serialize)]
struct Checked {
    unit: usize,
    stored_nodes: u64,
    nodes: u64,
    stored_length: usize,
    length: usize,
}

impl Checked {
    fn agrees(&self) -> bool {
        self.stored_nodes == self.nodes && self.stored_length == self.length
    }
}

/// `--audit --json`.
#[derive(Serialize)]
struct AuditJson<'a> {
    state: String,
    seed: u64,
    units: usize,
    /// Nodes above the split: with every unit's count, the proof's count.
    frontier_nodes: u64,
    stored: usize,
    audited: usize,
    agreed: usize,
    /// The audited units' node counts, summed.
    nodes: u64,
    elapsed_ms: u64,
    nodes_per_second: f64,
    disagreed: Vec<&'a Checked>,
}

impl Audit {
    /// Searches the picked units again on `options.threads` threads and compares.
    pub(super) fn run(
        &self,
        board: &Board,
        frontier: &Frontier,
        options: &EndgameOptions,
        stored: &Stored,
        path: &Path,
    ) -> anyhow::Result<()> {
        if self.units == 0 {
            return Err(input_error("--audit must be at least 1"));
        }
        let mut picked: Vec<usize> = (0..stored.results.len())
            .filter(|&i| stored.results[i].is_some())
            .collect();
        if picked.is_empty() {
            return Err(input_error(format!(
                "{} holds no finished unit to audit",
                path.display()
            )));
        }
        let n = self.units.min(picked.len());
        let mut rng = SplitMix64::new(self.seed);
        for k in 0..n {
            let j = k + (rng.next_u64() % (picked.len() - k) as u64) as usize;
            picked.swap(k, j);
        }
        picked.truncate(n);
        picked.sort_unstable();
        // Every other unit counts as searched, so only the picked ones are searched.
        let placeholder = UnitResult {
            nodes: 0,
            line: Vec::new(),
            complete: true,
        };
        let mut todo = vec![Some(placeholder); frontier.units.len()];
        for &i in &picked {
            todo[i] = None;
        }
        let started = Instant::now();
        let counter = AtomicU64::new(0);
        let (results, stop) = search_frontier(
            board,
            frontier,
            options,
            todo,
            None,
            Some(&counter),
            &|_, _| {},
        );
        let elapsed = started.elapsed();
        if let Some(reason) = stop {
            anyhow::bail!(
                "the audit stopped early ({}) after {} nodes: nothing was checked",
                reason.name(),
                counter.load(Ordering::Relaxed)
            );
        }
        let checked: Vec<Checked> = picked
            .iter()
            .map(|&i| {
                let again = results[i].as_ref().expect("a picked unit was searched");
                let before = stored.results[i].as_ref().expect("picked among the stored");
                Checked {
                    unit: i,
                    stored_nodes: before.nodes,
                    nodes: again.nodes,
                    stored_length: stored.lengths[i].expect("stored with its length"),
                    length: again.line.len(),
                }
            })
            .collect();
        let nodes: u64 = checked.iter().map(|c| c.nodes).sum();
        let disagreed: Vec<&Checked> = checked.iter().filter(|c| !c.agrees()).collect();
        let seconds = elapsed.as_secs_f64();
        let report = AuditJson {
            state: path.display().to_string(),
            seed: self.seed,
            units: frontier.units.len(),
            frontier_nodes: frontier.nodes,
            stored: stored.count,
            audited: checked.len(),
            agreed: checked.len() - disagreed.len(),
            nodes,
            elapsed_ms: elapsed.as_millis() as u64,
            nodes_per_second: (nodes as f64 / seconds.max(1e-9)).round(),
            disagreed,
        };
        if self.json {
            outln!("{}", serde_json::to_string(&report)?);
        } else {
            for c in &checked {
                let verdict = if c.agrees() { "agrees" } else { "DISAGREES" };
                outln!(
                    "unit {}: {} nodes, line {} (stored: {} nodes, line {}): {verdict}",
                    c.unit,
                    c.nodes,
                    c.length,
                    c.stored_nodes,
                    c.stored_length
                );
            }
            outln!(
                "{} of {} audited units agree ({} stored of {}); {} nodes in {:.1} s",
                report.agreed,
                report.audited,
                report.stored,
                report.units,
                nodes,
                seconds
            );
        }
        if report.agreed < report.audited {
            anyhow::bail!(
                "{} of {} audited units disagree with {}",
                report.audited - report.agreed,
                report.audited,
                path.display()
            );
        }
        Ok(())
    }
}
