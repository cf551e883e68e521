//! `GET /v1/verdicts?game=montana&from=1&to=1000[&verdict=solvable]`: the known
//! verdicts of a range of PySolFC game numbers, one line per number in number order,
//! as NDJSON (default) or CSV (`Accept: text/csv`).
//!
//! Invariants: numbers without a known verdict are left out (nothing is searched or
//! stored), and `to` below `from` is an empty list; the body is streamed a page of the
//! store (`store::pysol`) per chunk through a channel holding one page, so a list of
//! any length takes constant memory and a slow reader holds no database connection; a
//! failed read ends the body unfinished, so the client sees it was cut.

use super::lines::{streamed, wants_csv};
use crate::service::api::error::{ApiError, ApiResult};
use crate::service::api::model::pysol_variant;
use crate::service::api::state::AppState;
use crate::service::job::subject::{JobPosition, JobVariant};
use crate::service::store::{PysolRange, PysolVerdict};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::Response;
use gaps_engine::{parse_game_number_digits, PysolGame, Variant, Verdict, PYSOL_MAX_NUMBER};
use serde::Serialize;

/// The header line of a list as CSV.
const CSV_HEADER: &str =
    "game,number,verdict,variant,position,algorithm,nodes,elapsed_ms,job_id,time_ms\n";

/// One line of a list.
#[derive(Serialize)]
struct ListLine<'a> {
    game: &'a str,
    #[serde(serialize_with = "crate::report::serialize_game_number")]
    number: u128,
    verdict: &'static str,
    variant: String,
    /// Canonical notation, or the board as PySolFC shows it for a game played on its
    /// own board (stored as its game and number).
    position: String,
    algorithm: &'static str,
    nodes: i64,
    elapsed_ms: f64,
    job_id: &'a str,
    /// For `unknown`: the time limit (ms) of the longest search tried.
    #[serde(skip_serializing_if = "Option::is_none")]
    time_ms: Option<i64>,
}

impl<'a> ListLine<'a> {
    fn new(game: &'a str, row: &'a PysolVerdict) -> ListLine<'a> {
        ListLine {
            game,
            number: row.number.0,
            verdict: row.verdict.0.name(),
            variant: row.variant.0.to_string(),
            position: match row.variant.0 {
                JobVariant::Board(_) => row
                    .position
                    .parse::<JobPosition>()
                    .map_or_else(|_| row.position.clone(), |p| p.shown()),
                JobVariant::Engine(_) => row.position.clone(),
            },
            algorithm: row.algorithm.0.name(),
            nodes: row.nodes,
            elapsed_ms: row.elapsed_ms,
            job_id: &row.job_id,
            time_ms: (row.verdict.0 == Verdict::Unknown).then_some(row.limit_time_ms),
        }
    }

    fn ndjson(&self) -> String {
        let mut line = serde_json::to_string(self).expect("a list line serialises");
        line.push('\n');
        line
    }

    /// The fields hold no comma, quote or newline (names, numbers, ids and positions,
    /// whose notation separates cells by spaces and rows by `/`).
    fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{:.3},{},{}\n",
            self.game,
            self.number,
            self.verdict,
            self.variant,
            self.position,
            self.algorithm,
            self.nodes,
            self.elapsed_ms,
            self.job_id,
            self.time_ms.map(|t| t.to_string()).unwrap_or_default()
        )
    }
}

/// The parameters of a list (the query of `GET /v1/verdicts` with `game`).
pub struct ListQuery<'a> {
    pub game: &'a str,
    pub variant: Option<&'a str>,
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
    pub verdict: Option<&'a str>,
    /// True when the query also names a single position (`position`, `deal`, `suits`,
    /// `ranks` or `pysol`), which a list does not take.
    pub names_a_position: bool,
}

impl ListQuery<'_> {
    /// The range a list query asks for, or a 422 naming what is wrong.
    fn range(&self) -> Result<PysolRange, ApiError> {
        let bad = |m: String| ApiError::Unprocessable(m);
        let game = self.game;
        if self.names_a_position {
            return Err(bad(
                "a list (`game`, `from`, `to`) takes no `position`, `deal`, `suits`, `ranks` \
                 or `pysol`"
                    .into(),
            ));
        }
        let parsed = PysolGame::named(game).map_err(|e| bad(format!("game: {e}")))?;
        match self.variant {
            Some(named) if parsed.is_board_played() => {
                return Err(bad(format!(
                    "variant: {named}: game {parsed} is played on its own board under its \
                     own rules ({}): give no `variant`",
                    JobVariant::Board(parsed)
                )));
            }
            Some(named) => {
                let named = named
                    .parse::<Variant>()
                    .map_err(|e| bad(format!("variant: {e}")))?;
                pysol_variant(parsed, &format!("game {parsed}"), Some(named))?;
            }
            None => {}
        }
        // PySolFC's range (1 ..= 10^20) for both ends, in the engine's words.
        let end = |name: &str, given: Option<&str>, default: u128| match given {
            None => Ok(default),
            Some(digits) => {
                parse_game_number_digits(digits).map_err(|e| bad(format!("{name}: {e}")))
            }
        };
        let from = end("from", self.from, 1)?;
        let to = end("to", self.to, PYSOL_MAX_NUMBER)?;
        let verdict = self
            .verdict
            .map(|v| {
                v.parse::<Verdict>()
                    .map_err(|e| bad(format!("verdict: {e}")))
            })
            .transpose()?;
        Ok(PysolRange {
            game: parsed.name().to_string(),
            from,
            to,
            verdict,
        })
    }
}

/// The list answer of `GET /v1/verdicts` (see the module doc).
pub async fn list(
    state: AppState,
    query: ListQuery<'_>,
    headers: &HeaderMap,
) -> ApiResult<Response> {
    let range = query.range()?;
    let csv = wants_csv(headers);
    // Pages of up to 1,000 lines, one waiting at most.
    let (sender, receiver) = tokio::sync::mpsc::channel(1);
    let store = state.store.clone();
    let game = range.game.clone();
    tokio::spawn(async move { store.stream_pysol_verdicts(range, sender).await });
    let page_lines = move |page: &Vec<PysolVerdict>, csv: bool| {
        page.iter()
            .map(|row| {
                let line = ListLine::new(&game, row);
                if csv {
                    line.csv()
                } else {
                    line.ndjson()
                }
            })
            .collect::<String>()
    };
    let mut response = streamed(receiver, csv, CSV_HEADER, page_lines);
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}
