//! `gaps odds --deals N`: the odds of many numbered deals, one line a deal in `--out`
//! (appended and flushed as each deal ends, so a run stopped anywhere goes on from the
//! deals its file holds), and the figures over all of them.
//!
//! Invariants: a deal counts once however often the file holds it; the deals are
//! shared among `--jobs` threads, each with its own solver; a line is written only for
//! a deal whose answer was not stopped by a limit of the whole answer.
//!
//! Over all deals, each bound is the mean of the deals' rates (a deal that is exact
//! counts its exact chance), with a normal 95% interval over the deals: the standard
//! error of the deals' rates, which holds both the spread of the deals and the
//! sampling of each.

use super::input_error;
use crate::report::odds::mean_over_deals;
use anyhow::Context;
use gaps_engine::{deal, odds, Layout, OddsOptions, OddsReport, Solver};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The `--out` file's header.
pub const HEADER: &str = "deal,exact,lower_won,lower_lost,lower_unknown,upper_won,upper_lost,upper_unknown,round_won,redeal_kept,nodes,seconds";

/// One deal's line.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub deal: u64,
    pub exact: Option<f64>,
    /// Won, lost, unknown samples of the lower bound, then of the upper one.
    pub lower: [u32; 3],
    pub upper: [u32; 3],
    pub round_won: Option<bool>,
    pub redeal_kept: Option<usize>,
    pub nodes: u64,
    pub seconds: f64,
}

impl Row {
    fn of(deal: u64, report: &OddsReport) -> Row {
        let tally = |t: gaps_engine::Tally| [t.won, t.lost, t.unknown];
        Row {
            deal,
            exact: report.exact,
            lower: tally(report.lower),
            upper: tally(report.upper),
            round_won: report.round_won,
            redeal_kept: report.redeal_kept,
            nodes: report.nodes,
            seconds: report.elapsed.as_secs_f64(),
        }
    }

    fn line(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_default();
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{:.3}",
            self.deal,
            opt(self.exact.map(|p| p.to_string())),
            self.lower[0],
            self.lower[1],
            self.lower[2],
            self.upper[0],
            self.upper[1],
            self.upper[2],
            opt(self.round_won.map(|w| w.to_string())),
            opt(self.redeal_kept.map(|k| k.to_string())),
            self.nodes,
            self.seconds
        )
    }

    fn parse(line: &str) -> Option<Row> {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 12 {
            return None;
        }
        fn opt(s: &str) -> Option<&str> {
            (!s.is_empty()).then_some(s)
        }
        let n = |s: &str| s.parse::<u32>().ok();
        Some(Row {
            deal: f[0].parse().ok()?,
            exact: match opt(f[1]) {
                Some(s) => Some(s.parse().ok()?),
                None => None,
            },
            lower: [n(f[2])?, n(f[3])?, n(f[4])?],
            upper: [n(f[5])?, n(f[6])?, n(f[7])?],
            round_won: match opt(f[8]) {
                Some(s) => Some(s.parse().ok()?),
                None => None,
            },
            redeal_kept: match opt(f[9]) {
                Some(s) => Some(s.parse().ok()?),
                None => None,
            },
            nodes: f[10].parse().ok()?,
            seconds: f[11].parse().ok()?,
        })
    }

    /// The deal's rate under each bound (an exact deal: its chance for both).
    fn rates(&self) -> (f64, f64) {
        if let Some(p) = self.exact {
            return (p, p);
        }
        let samples = self.lower.iter().sum::<u32>().max(1) as f64;
        let upper = (self.upper[0] + self.upper[2]) as f64;
        (self.lower[0] as f64 / samples, upper / samples)
    }
}

/// The figures over all deals.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct TableJson {
    pub deals: usize,
    /// Deals whose chance is exact (their round in play won, or lost with no redeal).
    pub exact: usize,
    pub lower: f64,
    pub lower_ci95: [f64; 2],
    pub upper: f64,
    pub upper_ci95: [f64; 2],
    /// Samples left undecided, by the lower and the upper bound.
    pub unknown_samples: [u64; 2],
    pub nodes: u64,
    /// Seconds of search, summed over the deals.
    pub search_seconds: f64,
}

impl TableJson {
    fn of(rows: &BTreeMap<u64, Row>) -> TableJson {
        let mean_ci = |values: Vec<f64>| {
            let squares = values.iter().map(|v| v * v).sum();
            mean_over_deals(values.len() as u64, values.iter().sum(), squares)
        };
        let (lower, lower_ci95) = mean_ci(rows.values().map(|r| r.rates().0).collect());
        let (upper, upper_ci95) = mean_ci(rows.values().map(|r| r.rates().1).collect());
        TableJson {
            deals: rows.len(),
            exact: rows.values().filter(|r| r.exact.is_some()).count(),
            lower,
            lower_ci95,
            upper,
            upper_ci95,
            unknown_samples: [
                rows.values().map(|r| u64::from(r.lower[2])).sum(),
                rows.values().map(|r| u64::from(r.upper[2])).sum(),
            ],
            nodes: rows.values().map(|r| r.nodes).sum(),
            search_seconds: rows.values().map(|r| r.seconds).sum(),
        }
    }
}

/// The rows a file already holds (none if it does not exist), checking its header.
fn read_rows(path: &Path) -> anyhow::Result<BTreeMap<u64, Row>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut lines = text.lines();
    match lines.next() {
        None => return Ok(BTreeMap::new()),
        Some(HEADER) => {}
        Some(other) => {
            return Err(input_error(format!(
                "--out: {} is not a file of gaps odds (its header is {other:?})",
                path.display()
            )))
        }
    }
    Ok(lines
        .filter_map(Row::parse)
        .map(|row| (row.deal, row))
        .collect())
}

/// Runs deals `from..from + count` of `layout` under `options` on `jobs` threads,
/// appending to `out`; returns every row of the deals asked (old and new).
pub fn run_table(
    options: &OddsOptions,
    layout: Layout,
    from: u64,
    count: u64,
    jobs: usize,
    out: &Path,
    table_bytes: usize,
) -> anyhow::Result<TableJson> {
    let mut rows = read_rows(out)?;
    let todo: Vec<u64> = (from..from + count)
        .filter(|d| !rows.contains_key(d))
        .collect();
    let fresh = !out.exists() || std::fs::metadata(out)?.len() == 0;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .with_context(|| format!("opening {}", out.display()))?;
    if fresh {
        writeln!(file, "{HEADER}")?;
    }
    let file = Mutex::new(file);
    let next = AtomicU64::new(0);
    let found: Mutex<Vec<Row>> = Mutex::new(Vec::new());
    let began = Instant::now();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let workers: Vec<_> = (0..jobs.max(1))
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<()> {
                    let mut solver = Solver::with_table_bytes(table_bytes);
                    loop {
                        let at = next.fetch_add(1, Ordering::Relaxed) as usize;
                        let Some(&number) = todo.get(at) else {
                            return Ok(());
                        };
                        let start = deal(number, layout);
                        let report = odds(&mut solver, &start, options, None, None)
                            .map_err(super::solve::engine_error)?;
                        if report.stopped.is_some() {
                            continue;
                        }
                        let row = Row::of(number, &report);
                        let mut f = file.lock().expect("no writer panics");
                        writeln!(f, "{}", row.line())?;
                        f.flush()?;
                        drop(f);
                        eprintln!(
                            "deal {number}: lower {:.3} upper {:.3} ({:.1} s, {:.0} s in all)",
                            row.rates().0,
                            row.rates().1,
                            row.seconds,
                            began.elapsed().as_secs_f64()
                        );
                        found.lock().expect("no writer panics").push(row);
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().expect("a worker does not panic")?;
        }
        Ok(())
    })?;
    for row in found.into_inner().expect("no writer panics") {
        rows.insert(row.deal, row);
    }
    rows.retain(|d, _| (from..from + count).contains(d));
    Ok(TableJson::of(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_reads_back_as_written() {
        for row in [
            Row {
                deal: 7,
                exact: Some(1.0),
                lower: [0, 0, 0],
                upper: [0, 0, 0],
                round_won: Some(true),
                redeal_kept: None,
                nodes: 12,
                seconds: 0.5,
            },
            Row {
                deal: 9,
                exact: None,
                lower: [60, 38, 2],
                upper: [97, 0, 3],
                round_won: None,
                redeal_kept: Some(31),
                nodes: 123_456,
                seconds: 3.25,
            },
        ] {
            assert_eq!(Row::parse(&row.line()), Some(row.clone()));
        }
        let rows: BTreeMap<u64, Row> = [
            Row::parse("1,1,0,0,0,0,0,0,true,,5,0.001").unwrap(),
            Row::parse("2,,50,50,0,90,0,10,,20,5,1.000").unwrap(),
        ]
        .into_iter()
        .map(|r| (r.deal, r))
        .collect();
        let table = TableJson::of(&rows);
        assert_eq!((table.deals, table.exact), (2, 1));
        assert!((table.lower - 0.75).abs() < 1e-12 && (table.upper - 1.0).abs() < 1e-12);
        assert!(table.lower_ci95[0] < 0.75 && table.lower_ci95[1] > 0.75);
    }
}
