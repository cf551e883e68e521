//! `gaps solve`: one position (argument or stdin) or a JSON-lines batch.
//!
//! Invariant: in `--jsonl` mode every input line yields exactly one output line, in
//! order; a bad line yields `{"error": ...}` and the batch goes on.

use super::args::redeal_count;
use super::caller::Caller;
use super::{input_error, refused, SearchArgs, Subject};
use crate::report::{redeals_shown, PysolJson, SolveJson};
use anyhow::Context;
use clap::Args;
use gaps_engine::{
    parse_position, sizes_memory, DealSource, Layout, Position, PysolDeal, Redeals, SolveControls,
    SolveError, SolveOptions, SolveReport, Solver, Variant,
};
use serde::Deserialize;
use std::io::{BufRead, Write};

#[derive(Args, Debug)]
pub struct SolveCmd {
    #[command(flatten)]
    pub(super) search: SearchArgs,
    /// Print one JSON object.
    #[arg(long, conflicts_with = "jsonl")]
    pub(super) json: bool,
    /// Read JSON lines `{"position": ..., "variant": ...}` on stdin, write one result per line.
    #[arg(long)]
    pub(super) jsonl: bool,
    /// Redeals the player may use, 0..=2 (default: 2 for `--pysol`, as PySolFC plays
    /// its games; 0 otherwise). Needs `--deal` or `--pysol`: a redeal is shuffled by the
    /// deal's own generator (docs/engine.md, "Redeals").
    #[arg(long)]
    pub(super) redeals: Option<u8>,
    /// The steps played since the deal (a JSON array of solution steps on the board
    /// the game is shown on; `-` reads standard input): the answer is about the rest of
    /// the game, with the redeals left (docs/notation.md, "A game in progress").
    #[arg(long, conflicts_with = "jsonl")]
    pub(super) played: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub(super) input: PositionInput,
}

/// Where a single position comes from: a numbered deal, the arguments, or standard input.
#[derive(Args, Debug)]
pub struct PositionInput {
    /// Numbered deal N instead of a given position.
    #[arg(long = "deal", conflicts_with = "position", value_parser = super::args::parse_our_deal_number)]
    deal: Option<u64>,
    /// A game of PySolFC instead of a given position: `montana:N`, `blue-moon:N`, ... (its
    /// first round; see docs/notation.md, "PySolFC's deals").
    #[arg(long, conflicts_with_all = ["position", "deal"])]
    pysol: Option<String>,
    /// Suits of the numbered deal.
    #[arg(long, default_value_t = 4, requires = "deal")]
    suits: usize,
    /// Ranks of the numbered deal.
    #[arg(long, default_value_t = 13, requires = "deal")]
    ranks: usize,
    /// The position (quote it, or pass its cells as several arguments); `-` or nothing
    /// reads standard input.
    #[arg(allow_hyphen_values = true)]
    position: Vec<String>,
}

impl PositionInput {
    /// `--pysol` as given.
    pub fn pysol_text(&self) -> Option<&str> {
        self.pysol.as_deref()
    }

    /// The PySolFC game asked for, if any.
    pub fn pysol(&self) -> anyhow::Result<Option<PysolDeal>> {
        self.pysol
            .as_deref()
            .map(|text| {
                text.parse::<PysolDeal>()
                    .map_err(|e| refused(Subject::Game, format!("--pysol: {e}")))
            })
            .transpose()
    }

    /// Where the position comes from: `--pysol`, `--deal` or the position itself (`-`
    /// or nothing: what the caller's standard input holds).
    pub fn source(&self, caller: &Caller) -> anyhow::Result<DealSource> {
        if let Some(deal) = self.pysol()? {
            return Ok(DealSource::Pysol(deal));
        }
        if let Some(seed) = self.deal {
            let layout =
                Layout::new(self.suits, self.ranks).map_err(|e| input_error(e.to_string()))?;
            return Ok(DealSource::Numbered { seed, layout });
        }
        let text = if self.position.is_empty() || self.position == ["-"] {
            caller.read_stdin("the position")?
        } else {
            self.position.join(" ")
        };
        let position = parse_position(&text)
            .map_err(|e| refused(Subject::Position, format!("invalid position: {e}")))?;
        Ok(DealSource::Position(position))
    }

    /// The position, parsed, or what is wrong with it (for the binary).
    pub fn read(&self) -> anyhow::Result<Position> {
        Ok(self.source(&Caller::TERMINAL)?.start())
    }
}

pub fn run(cmd: SolveCmd) -> anyhow::Result<()> {
    if cmd.jsonl {
        return run_jsonl(&cmd.search, cmd.redeals);
    }
    let json = answer(&cmd, &Caller::TERMINAL)?;
    print_answer(&json, cmd.json)
}

/// The answer of `gaps solve` about one position (not `--jsonl`, not `--played`): what
/// `--json` prints.
pub fn answer(cmd: &SolveCmd, caller: &Caller) -> anyhow::Result<SolveJson> {
    if let Some((game, number)) = super::board::board_game(cmd.input.pysol.as_deref())? {
        return super::board::answer(&cmd.search, game, number, cmd.redeals, caller);
    }
    let source = cmd.input.source(caller)?;
    let pysol = match source {
        DealSource::Pysol(deal) => Some(deal),
        _ => None,
    };
    let variant = match pysol {
        Some(deal) => cmd.search.variant_of(deal)?,
        None => cmd.search.variant()?,
    };
    let options = cmd.search.lone_options(variant)?;
    let count = redeal_count(cmd.redeals, &source, variant)?;
    let start = source.start();
    let mut solver = cmd.search.solver()?;
    let redeals = source.redeals(count);
    let controls = SolveControls {
        cancel: caller.cancel,
        ..SolveControls::default()
    };
    let report = solver
        .solve_controlled(&start, &options, redeals.as_ref(), controls)
        .map_err(engine_error)?;
    Ok(solve_json(&start, &options, &report, pysol))
}

/// Prints an answer as one JSON line, or as text.
pub fn print_answer(json: &SolveJson, as_json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if as_json {
        serde_json::to_writer(&mut out, json)?;
        writeln!(out)?;
    } else {
        super::text::print_text(&mut out, json)?;
    }
    Ok(())
}

/// Solves `start`, over rounds when its source allows redeals
/// ([`DealSource::redeals`]).
fn solve_one(
    solver: &mut Solver,
    start: &Position,
    options: &SolveOptions,
    redeals: Option<&Redeals>,
) -> Result<SolveReport, SolveError> {
    solver.solve_controlled(start, options, redeals, SolveControls::default())
}

/// The JSON of one solve: the report, its memory, the PySolFC view and the redeals.
fn solve_json(
    start: &Position,
    options: &SolveOptions,
    report: &SolveReport,
    pysol: Option<PysolDeal>,
) -> SolveJson {
    let mut json = with_memory(SolveJson::new(start, options.variant, report), options);
    json.pysol = pysol.map(|deal| PysolJson::new(deal, report));
    if let Some(rounds) = json.rounds.as_mut() {
        rounds.redealt = redeals_shown(report, pysol);
    }
    json
}

/// Maps engine refusals to bad input and replay failures to internal errors.
pub fn engine_error(e: SolveError) -> anyhow::Error {
    match e {
        SolveError::InvalidSolution(_) => anyhow::Error::new(e),
        other => input_error(other.to_string()),
    }
}

/// One line of `--jsonl`: a position, or a PySolFC game as `--pysol` names it
/// (`"montana:5"`, solved under the game's variant, which `variant` may only repeat).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonLine {
    #[serde(default)]
    position: Option<String>,
    #[serde(default)]
    pysol: Option<String>,
    #[serde(default)]
    variant: Option<String>,
    /// Redeals (0..=2), falling back to `--redeals`, then to the source's default.
    #[serde(default)]
    redeals: Option<u8>,
}

fn run_jsonl(search: &SearchArgs, redeals: Option<u8>) -> anyhow::Result<()> {
    let default_variant = search.variant()?;
    search.lone_options(default_variant)?; // reject bad options before reading anything
    let mut solver = search.solver()?;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line.context("reading standard input")?;
        if line.trim().is_empty() {
            continue;
        }
        let result = solve_line(&mut solver, search, default_variant, redeals, &line);
        match result {
            Ok(json) => serde_json::to_writer(&mut out, &json)?,
            Err(message) => serde_json::to_writer(
                &mut out,
                &serde_json::json!({ "error": message, "line": n + 1 }),
            )?,
        }
        writeln!(out)?;
        out.flush()?;
    }
    Ok(())
}

fn solve_line(
    solver: &mut Solver,
    search: &SearchArgs,
    default_variant: Variant,
    redeals: Option<u8>,
    line: &str,
) -> Result<SolveJson, String> {
    let request: JsonLine =
        serde_json::from_str(line).map_err(|e| format!("invalid JSON line: {e}"))?;
    let named = request
        .variant
        .map(|v| v.parse::<Variant>().map_err(|e| e.to_string()))
        .transpose()?;
    let (start, variant, game) = match (&request.position, &request.pysol) {
        (Some(text), None) => (
            parse_position(text).map_err(|e| format!("invalid position: {e}"))?,
            named.unwrap_or(default_variant),
            None,
        ),
        (None, Some(text)) => {
            let game: PysolDeal = text.parse().map_err(|e| format!("pysol: {e}"))?;
            let variant = game.game.variant();
            if named.is_some_and(|named| named != variant) {
                return Err(format!(
                    "variant: {} contradicts pysol {game}, whose first round is {variant}",
                    named.expect("checked")
                ));
            }
            (game.position(), variant, Some(game))
        }
        _ => return Err("give one of `position` and `pysol` (\"montana:N\")".into()),
    };
    let options = search.lone_options(variant).map_err(|e| e.to_string())?;
    let source = match game {
        Some(game) => DealSource::Pysol(game),
        None => DealSource::Position(start),
    };
    let count = redeal_count(request.redeals.or(redeals), &source, variant)
        .map_err(|e| e.to_string().replace("--redeals", "redeals"))?;
    let redeals = source.redeals(count);
    let report =
        solve_one(solver, &start, &options, redeals.as_ref()).map_err(|e| e.to_string())?;
    Ok(solve_json(&start, &options, &report, game))
}

/// `json` with the memory its search was given (`stats.memory_mb`) when it runs the
/// exact search, as the service reports it.
fn with_memory(mut json: SolveJson, options: &SolveOptions) -> SolveJson {
    if sizes_memory(options.algorithm, options.variant) {
        json.stats.memory_mb = options.memory_limit.map_or(0, |bytes| (bytes >> 20) as u64);
    }
    json
}
