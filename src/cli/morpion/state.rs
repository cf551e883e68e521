//! The state file of a resumable proof (`gaps morpion prove --state FILE`).
//!
//! Format: a header line pinning what the unit numbers refer to (variant, K, a SHA-256
//! of the kept moves, method, split depth, unit count, frontier nodes), then one line
//! per finished unit, `index nodes length [moves]`: its node count, the length of its
//! longest line from the split root, and that line's moves (`x,y,DIR,pos`) only when
//! it is longer than the rest of the record.
//!
//! Invariants: a file made for another proof is refused; each unit's line is written
//! in one write and flushed, so a kill leaves at most a partial last line, which a
//! resume cuts off (the unit is searched again) and a read-only load ignores (an audit
//! never writes the file, so it can read one a running proof is appending to); a unit
//! stored twice keeps its last line.

use super::input_error;
use anyhow::Context as _;
use gaps_engine::morpion::board::{Board, Dir, MorpionVariant, Move};
use gaps_engine::morpion::endgame::{Frontier, Method, UnitResult};
use gaps_engine::morpion::record::{Record, RecordMove};
use std::path::Path;

/// What a state file holds.
pub(super) struct Stored {
    /// Each unit's result (`None`: not stored); its `line` holds moves only when it is
    /// longer than the rest of the record.
    pub results: Vec<Option<UnitResult>>,
    /// Each stored unit's longest line length, from the split root.
    pub lengths: Vec<Option<usize>>,
    /// Units stored.
    pub count: usize,
}

/// How a state file is read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Load {
    /// To resume the proof: a missing file is an empty one, a partial last line is cut.
    Resume,
    /// To read only: a missing file is an error, a partial last line is skipped.
    ReadOnly,
}

/// The state file's first line: what its unit numbers refer to.
pub(super) fn header(
    record: &Record,
    variant: MorpionVariant,
    from: usize,
    method: Method,
    frontier: &Frontier,
) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for m in &record.moves[..from] {
        hash.update(compact_move(*m).as_bytes());
        hash.update(b" ");
    }
    format!(
        "# gaps morpion prove state v1 variant={} from={from} prefix-sha256={} method={} split-depth={} units={} frontier-nodes={}",
        variant.code(),
        hex::encode(hash.finalize()),
        method.name(),
        frontier.depth,
        frontier.units.len(),
        frontier.nodes
    )
}

/// The line stored for unit `index` once it is searched whole (newline included).
pub(super) fn unit_line(index: usize, result: &UnitResult, remainder: usize) -> String {
    let moves = if result.line.len() > remainder {
        result
            .line
            .iter()
            .map(|&m| compact_move(RecordMove::from(m)))
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        String::new()
    };
    format!("{index} {} {} {moves}\n", result.nodes, result.line.len())
}

/// The units the state file at `path` holds; a file made for another proof is refused.
pub(super) fn load(
    path: &Path,
    base: &Board,
    header: &str,
    frontier: &Frontier,
    remainder: usize,
    mode: Load,
) -> anyhow::Result<Stored> {
    let mut stored = Stored {
        results: vec![None; frontier.units.len()],
        lengths: vec![None; frontier.units.len()],
        count: 0,
    };
    let mut text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && mode == Load::Resume => {
            return Ok(stored)
        }
        Err(e) => {
            return Err(input_error(format!("cannot read {}: {e}", path.display())));
        }
    };
    if !text.is_empty() && !text.ends_with('\n') {
        // A run stopped (or is) in the middle of writing a line: that unit counts as
        // not stored. A resume cuts the partial line so the next one starts on its own.
        let whole = text.rfind('\n').map_or(0, |i| i + 1);
        text.truncate(whole);
        if mode == Load::Resume {
            std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .and_then(|file| file.set_len(whole as u64))
                .with_context(|| format!("cutting the partial last line of {}", path.display()))?;
        }
    }
    let mut lines = text.lines();
    match lines.next() {
        None => return Ok(stored),
        Some(first) if first == header => {}
        Some(first) => {
            return Err(input_error(format!(
                "{} was made for another proof:\n  it has: {first}\n  this is: {header}",
                path.display()
            )))
        }
    }
    for (number, line) in lines.enumerate() {
        let bad = || {
            input_error(format!(
                "{} line {}: not `index nodes length [moves]`",
                path.display(),
                number + 2
            ))
        };
        let mut fields = line.splitn(4, ' ');
        let index: usize = fields.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
        let nodes: u64 = fields.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
        let length: usize = fields.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
        if index >= stored.results.len() {
            return Err(bad());
        }
        let line = if length > remainder {
            // Only lines longer than the record's are kept; replay them from the
            // split root to recover the moves.
            parse_line(fields.next().unwrap_or(""), base, frontier, index)
                .filter(|line| line.len() == length)
                .ok_or_else(bad)?
        } else {
            Vec::new()
        };
        if stored.results[index].is_none() {
            stored.count += 1;
        }
        stored.results[index] = Some(UnitResult {
            nodes,
            line,
            complete: true,
        });
        stored.lengths[index] = Some(length);
    }
    Ok(stored)
}

/// The moves of a stored line (`x,y,DIR,pos` each, from the split root), replayed on
/// `base` through the unit's own path; `None` if one does not parse or is illegal.
fn parse_line(text: &str, base: &Board, frontier: &Frontier, index: usize) -> Option<Vec<Move>> {
    let unit = &frontier.units[index];
    let moves: Vec<&str> = text.split_whitespace().collect();
    if moves.len() < unit.path.len() {
        return None;
    }
    let mut board = base.clone();
    let mut out = Vec::with_capacity(moves.len());
    for text in &moves {
        let mut fields = text.split(',');
        let x: i32 = fields.next()?.parse().ok()?;
        let y: i32 = fields.next()?.parse().ok()?;
        let dir = Dir::from_code(fields.next()?)?;
        let pos: u8 = fields.next()?.parse().ok()?;
        let m = board.find_move(x, y, dir, pos).ok()?;
        board.play(m);
        out.push(m);
    }
    (out[..unit.path.len()] == unit.path[..]).then_some(out)
}

/// A move as `x,y,DIR,pos` (the state file's form).
fn compact_move(m: RecordMove) -> String {
    format!("{},{},{},{}", m.x, m.y, m.dir.code(), m.pos)
}
