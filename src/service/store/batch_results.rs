//! A batch's results, one line a job in the order of the batch (`GET
//! /v1/batches/{id}/results`, `gaps results`): as NDJSON, or CSV in the columns of the
//! batch's kind (a Gaps search's verdict, or an odds job's bounds).
//!
//! Invariant: the results are streamed in constant memory, read as they are sent; a
//! line shows only what its job's row holds. A batch of odds jobs's figures over all
//! deals are summed by the database over its answered jobs, as `gaps odds --deals`
//! makes them over its file.

use super::{on_pool, Store};
use crate::report::odds::mean_over_deals;
use crate::report::odds::{BoundJson, OddsJson};
use crate::service::job::JobState;
use sqlx::types::Json;

/// One line of a batch's results.
#[derive(Clone, Debug, sqlx::FromRow, serde::Serialize, PartialEq)]
pub struct BatchResult {
    /// The deal's number, or in a batch of PySolFC games the game's.
    #[sqlx(skip)]
    #[serde(serialize_with = "crate::report::serialize_game_number_opt")]
    pub deal: Option<u128>,
    /// The job's deal number (none for a PySolFC game).
    #[serde(skip)]
    pub deal_seed: Option<i64>,
    pub position: String,
    pub state: JobState,
    pub verdict: Option<String>,
    pub nodes: Option<i64>,
    pub milliseconds: Option<f64>,
    pub algorithm: Option<String>,
    pub node_id: Option<String>,
    /// The PySolFC game of the job (`montana:5`), in a batch of games; `deal` is then
    /// its number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pysol: Option<String>,
    /// An odds job's answer, as stored (shown as `lower`, `upper` and `exact`).
    #[serde(skip)]
    pub odds_answer: Option<Json<OddsJson>>,
    /// An odds job's bounds once answered (`odds.lower`, `odds.upper` of its view).
    #[sqlx(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower: Option<BoundJson>,
    #[sqlx(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper: Option<BoundJson>,
    /// An odds job's exact chance, where it is known.
    #[sqlx(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<f64>,
}

impl BatchResult {
    /// The line as shown: its deal's number, and an odds job's bounds.
    fn shown(mut self) -> BatchResult {
        self.deal = match self.pysol.as_deref().and_then(|p| p.split_once(':')) {
            Some((_, number)) => number.parse().ok(),
            None => self.deal_seed.and_then(|seed| u128::try_from(seed).ok()),
        };
        if let Some(Json(answer)) = self.odds_answer.take() {
            self.lower = Some(answer.odds.lower);
            self.upper = Some(answer.odds.upper);
            self.exact = answer.odds.exact;
        }
        self
    }
}

/// The header line of a batch's results as CSV.
pub const CSV_HEADER: &str = "deal,position,state,verdict,nodes,milliseconds,algorithm,node_id\n";

/// The header line of the results of a batch of odds jobs as CSV.
pub const ODDS_CSV_HEADER: &str = "deal,position,state,lower,lower_ci95_low,lower_ci95_high,\
     upper,upper_ci95_low,upper_ci95_high,exact,samples,lower_unknown,upper_unknown,nodes,\
     milliseconds,node_id\n";

/// One result as an NDJSON line.
pub fn ndjson_line(row: &BatchResult) -> String {
    let mut line = serde_json::to_string(row).expect("a result row serialises");
    line.push('\n');
    line
}

/// One result as a CSV line (fields with a comma, quote or newline quoted), in the
/// columns of [`ODDS_CSV_HEADER`] for a batch of odds jobs, else of [`CSV_HEADER`].
pub fn csv_line(row: &BatchResult, odds_batch: bool) -> String {
    let field = |v: Option<String>| {
        let v = v.unwrap_or_default();
        if v.contains([',', '"', '\n']) {
            format!("\"{}\"", v.replace('"', "\"\""))
        } else {
            v
        }
    };
    let number = |v: Option<f64>| field(v.map(|v| v.to_string()));
    let count = |v: Option<u32>| field(v.map(|v| v.to_string()));
    let (lower, upper) = (row.lower.as_ref(), row.upper.as_ref());
    let head = [
        field(row.deal.map(|d| d.to_string())),
        field(Some(row.position.clone())),
        field(Some(row.state.name().to_string())),
    ];
    let odds = [
        number(lower.map(|b| b.chance)),
        number(lower.map(|b| b.ci95_low)),
        number(lower.map(|b| b.ci95_high)),
        number(upper.map(|b| b.chance)),
        number(upper.map(|b| b.ci95_low)),
        number(upper.map(|b| b.ci95_high)),
        number(row.exact),
        count(lower.map(|b| b.samples)),
        count(lower.map(|b| b.unknown)),
        count(upper.map(|b| b.unknown)),
    ];
    let effort = [
        field(row.nodes.map(|n| n.to_string())),
        field(row.milliseconds.map(|m| format!("{m:.3}"))),
    ];
    let fields: Vec<String> = match odds_batch {
        true => [&head[..], &odds, &effort, &[field(row.node_id.clone())]].concat(),
        false => [
            &head[..],
            &[field(row.verdict.clone())],
            &effort,
            &[field(row.algorithm.clone()), field(row.node_id.clone())],
        ]
        .concat(),
    };
    let mut line = fields.join(",");
    line.push('\n');
    line
}

impl Store {
    /// Sends the results of batch `batch_id`'s jobs, in deal order, to `out` as they are
    /// read (the bounded channel keeps memory constant); stops early when `out` closes.
    /// A read error is sent as the last item.
    pub async fn stream_batch_results(
        &self,
        batch_id: &str,
        out: tokio::sync::mpsc::Sender<sqlx::Result<BatchResult>>,
    ) -> sqlx::Result<()> {
        use futures_util::TryStreamExt;
        on_pool!(self, read, |Db, pool, _d| {
            let mut rows = sqlx::query_as::<Db, BatchResult>(
                "SELECT COALESCE(g.deal_seed, o.deal_seed) AS deal_seed,
                     COALESCE(g.position, o.position) AS position, j.state, g.verdict,
                     j.nodes, j.elapsed_ms AS milliseconds, g.used_algorithm AS algorithm,
                     j.node_id, g.pysol, o.answer AS odds_answer
                 FROM jobs j LEFT JOIN gaps_searches g ON g.id = j.id
                     LEFT JOIN odds_jobs o ON o.id = j.id
                 WHERE j.batch_id = $1 ORDER BY j.seq",
            )
            .bind(batch_id)
            .fetch(pool);
            loop {
                let row = rows.try_next().await;
                let end = !matches!(row, Ok(Some(_)));
                let sent = match row {
                    Ok(Some(row)) => out.send(Ok(row.shown())).await,
                    Ok(None) => break,
                    Err(e) => out.send(Err(e)).await,
                };
                if sent.is_err() || end {
                    break;
                }
            }
            Ok(())
        })
    }
}

/// A batch of odds jobs over all its deals answered so far: each bound is the mean of
/// the deals' chances (an exact deal counts its exact chance for both), with a normal
/// 95% interval over the deals, as `gaps odds --deals` gives it. A job counts once
/// done with every sample played (not cancelled, failed, or stopped by a limit).
#[derive(Clone, Debug, serde::Serialize, utoipa::ToSchema, PartialEq)]
pub struct OddsSummary {
    /// Deals counted.
    pub deals: i64,
    /// Of them, deals whose chance is exact.
    pub exact: i64,
    pub lower: f64,
    pub lower_ci95: [f64; 2],
    pub upper: f64,
    pub upper_ci95: [f64; 2],
}

impl Store {
    /// The figures over the answered odds jobs of batch `batch_id`.
    pub async fn odds_summary(&self, batch_id: &str) -> sqlx::Result<OddsSummary> {
        let sums = on_pool!(self, read, |Db, pool, d| {
            let number = |path: &[&str]| (d.json_number)("o.answer", path);
            sqlx::query_as::<Db, (i64, i64, f64, f64, f64, f64)>(&format!(
                "SELECT CAST(COUNT(*) AS BIGINT),
                     CAST(COALESCE(SUM(CASE WHEN x IS NULL THEN 0 ELSE 1 END), 0) AS BIGINT),
                     CAST(COALESCE(SUM(l), 0) AS DOUBLE PRECISION),
                     CAST(COALESCE(SUM(l * l), 0) AS DOUBLE PRECISION),
                     CAST(COALESCE(SUM(u), 0) AS DOUBLE PRECISION),
                     CAST(COALESCE(SUM(u * u), 0) AS DOUBLE PRECISION)
                 FROM (SELECT {lower} AS l, {upper} AS u, {exact} AS x
                       FROM odds_jobs o JOIN jobs j ON j.id = o.id
                       WHERE j.batch_id = $1 AND j.state = 'done' AND j.stopped IS NULL
                           AND o.answer IS NOT NULL) AS t",
                lower = number(&["odds", "lower", "chance"]),
                upper = number(&["odds", "upper", "chance"]),
                exact = number(&["odds", "exact"]),
            ))
            .bind(batch_id)
            .fetch_one(pool)
            .await?
        });
        let (deals, exact, lower, lower_squares, upper, upper_squares) = sums;
        let n = u64::try_from(deals).unwrap_or(0);
        let (lower, lower_ci95) = mean_over_deals(n, lower, lower_squares);
        let (upper, upper_ci95) = mean_over_deals(n, upper, upper_squares);
        Ok(OddsSummary {
            deals,
            exact,
            lower,
            lower_ci95,
            upper,
            upper_ci95,
        })
    }
}
