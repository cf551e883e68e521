//! The web page at `/` and what only it needs: its embedded assets, and the layouts of
//! numbered deals and PySolFC games.
//!
//! Invariants: the assets are compiled into the binary (no build step, no CDN, works
//! offline) and served with a content security policy that allows only this origin;
//! `GET /v1/deals/{seed}` and `GET /v1/pysol/{game}/{number}` are pure functions of
//! their inputs and store nothing.

use super::ApiQuery;
use crate::service::api::error::{ApiError, ApiResult};
use crate::service::api::model::DealSpec;
use crate::service::job::subject::{JobPysol, JobVariant};
use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use gaps_engine::{format_position, parse_game_number_digits, DealSource, PysolGame};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
                   script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

/// The page: board, solve, replay, history and statistics.
pub async fn index() -> Response {
    asset(
        "text/html; charset=utf-8",
        include_str!("../assets/ui/index.html"),
    )
}

/// The page's script.
pub async fn script() -> Response {
    asset(
        "text/javascript; charset=utf-8",
        include_str!("../assets/ui/app.js"),
    )
}

/// The page's play board (a game played step by step, judged by the service).
pub async fn play_script() -> Response {
    asset(
        "text/javascript; charset=utf-8",
        include_str!("../assets/ui/play.js"),
    )
}

/// The page's style sheet.
pub async fn style() -> Response {
    asset(
        "text/css; charset=utf-8",
        include_str!("../assets/ui/app.css"),
    )
}

/// The Morpion page: a record, K, the proof as a job, the grid drawn.
pub async fn morpion_page() -> Response {
    asset(
        "text/html; charset=utf-8",
        include_str!("../assets/ui/morpion.html"),
    )
}

/// The Morpion page's script.
pub async fn morpion_script() -> Response {
    asset(
        "text/javascript; charset=utf-8",
        include_str!("../assets/ui/morpion.js"),
    )
}

/// The record games the Morpion page offers (MSR JSON, as published with their
/// origin and licence in the engine's test data).
pub async fn morpion_record(Path(name): Path<String>) -> ApiResult<Response> {
    let text = match name.as_str() {
        "bruneau170.json" => include_str!("../../../engine/tests/data/morpion/bruneau170.json"),
        "rosin178.json" => include_str!("../../../engine/tests/data/morpion/rosin178.json"),
        _ => return Err(ApiError::NotFound(format!("no record {name:?}"))),
    };
    Ok(asset("application/json", text))
}

/// Size of a numbered deal.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DealQuery {
    /// Suits (1..8, default 4).
    #[param(minimum = 1, maximum = 8)]
    pub suits: Option<usize>,
    /// Ranks (3..13, default 13).
    #[param(minimum = 3, maximum = 13)]
    pub ranks: Option<usize>,
}

/// A numbered deal and its starting position (aces taken out).
#[derive(Serialize, ToSchema)]
pub struct DealView {
    pub seed: u64,
    pub suits: usize,
    pub ranks: usize,
    /// Canonical position, as `gaps deal` prints it with the aces replaced by gaps.
    pub position: String,
}

/// The starting position of a numbered deal (the same as `gaps deal --seed N`).
#[utoipa::path(get, path = "/v1/deals/{seed}", params(("seed" = u64, Path, description = "Deal number"), DealQuery),
    responses(
        (status = 200, description = "The deal", body = DealView),
        (status = 422, description = "Bad deal number or size", body = crate::service::api::error::Problem, content_type = "application/problem+json"),
    ))]
pub async fn deal(
    Path(seed): Path<String>,
    ApiQuery(query): ApiQuery<DealQuery>,
) -> ApiResult<Json<DealView>> {
    let seed = seed.parse::<u64>().map_err(|_| {
        ApiError::Unprocessable(format!("deal number {seed:?} is not a whole number"))
    })?;
    let spec = DealSpec {
        seed,
        suits: query.suits.unwrap_or(4),
        ranks: query.ranks.unwrap_or(13),
    };
    let position = spec.position()?;
    Ok(Json(DealView {
        seed,
        suits: spec.suits,
        ranks: spec.ranks,
        position: format_position(&position),
    }))
}

/// A PySolFC game and the position its first round is.
#[derive(Serialize, ToSchema)]
pub struct PysolGameView {
    /// The game (`montana`, `blue-moon`, ...).
    pub game: String,
    /// PySolFC's title of the game ("Montana", "Blue Moon", ...).
    pub title: String,
    /// The game number (an integer up to 2^64-1, digits above).
    #[serde(serialize_with = "crate::report::serialize_game_number")]
    #[schema(value_type = u64)] // `openapi_document` writes the schema.
    pub number: u128,
    /// The variant its first round is played as (`board:GAME` for a game played on its
    /// own board: its own rules).
    pub variant: String,
    /// Canonical position of its first round, as the engine plays it (docs/pysol.md);
    /// for a game played on its own board, that board.
    pub position: String,
    /// The board as PySolFC shows it (`blue-moon`: each row's Ace in column 0), as
    /// `gaps deal --pysol GAME:N` prints it.
    pub board: String,
    /// The redeals the game allows (a solve's default).
    pub redeals: u8,
}

/// A PySolFC game's layout (the same as `gaps deal --pysol GAME:N`); stores nothing.
#[utoipa::path(get, path = "/v1/pysol/{game}/{number}",
    params(
        ("game" = String, Path, description = "A PySolFC Gaps game the engine solves (`montana`, `blue-moon`, `galary`, ...)"),
        ("number" = String, Path, description = "Game number, 1 ..= 10^20 (digits, leading zeros allowed)"),
    ),
    responses(
        (status = 200, description = "The game", body = PysolGameView),
        (status = 422, description = "Unknown game or bad number", body = crate::service::api::error::Problem, content_type = "application/problem+json"),
    ))]
pub async fn pysol_game(
    Path((game, number)): Path<(String, String)>,
) -> ApiResult<Json<PysolGameView>> {
    let bad = |m: String| ApiError::Unprocessable(m);
    let game = PysolGame::named(&game).map_err(|e| bad(format!("game: {e}")))?;
    let number = parse_game_number_digits(&number).map_err(|e| bad(format!("number: {e}")))?;
    let (variant, position, board) =
        match JobPysol::new(game, number).map_err(|e| bad(format!("{e}")))? {
            JobPysol::Position(deal) => (
                game.variant().name().to_string(),
                format_position(&DealSource::Pysol(deal).start()),
                deal.board_text(),
            ),
            JobPysol::Board(deal) => {
                let board = deal.board().to_string();
                (JobVariant::Board(game).to_string(), board.clone(), board)
            }
        };
    Ok(Json(PysolGameView {
        game: game.name().into(),
        title: game.spec().title.into(),
        number,
        variant,
        position,
        board,
        redeals: game.own_redeals(),
    }))
}
