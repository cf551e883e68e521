//! The properties the fuzz targets check, shared with `tests/fuzz_corpus.rs`, which
//! runs them on every committed corpus and regression input under plain `cargo test`.
//! Each takes any bytes and panics only when a property fails.

use gaps::service::api::model::{from_json, BatchGames, BatchRequest, JobRequest};
use gaps::service::config::Config;
use gaps_engine::{
    deal, format_position, parse_position, verify_solution, Card, Layout, Move, MoveList,
    ReplayError, Variant, MAX_MOVES,
};
use std::sync::OnceLock;

/// The notation parser on any text: it never panics, and what it accepts formats to
/// the canonical form, which parses back to the same position (a fixed point).
pub fn notation(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(position) = parse_position(text) {
        position.check_invariants();
        let canonical = format_position(&position);
        let again = parse_position(&canonical).expect("the canonical form parses");
        assert_eq!(again, position, "{text:?} -> {canonical:?}");
        assert_eq!(format_position(&again), canonical);
    }
}

fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(Config::defaults)
}

/// The JSON request model on any bytes, through the same path as the HTTP handlers
/// (`model::from_json`, then validation against the default configuration): it never
/// panics, and an accepted job's recorded size is its position's.
pub fn request_json(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Ok(request) = from_json::<JobRequest>(value.clone()) {
        if let Ok(job) = request.validate("id".into(), "fuzz", config()) {
            // A game played on its own board is 4 x 13 (52 cards); every other job's
            // size is its position's.
            let (suits, ranks) = match job.position.0.engine() {
                Some(position) => (position.layout().suits(), position.layout().ranks()),
                None => (4, 13),
            };
            assert_eq!((job.suits, job.ranks), (suits as i64, ranks as i64));
            assert!(job.limit_time_ms >= 1);
            assert!(job.threads >= 1);
        }
        if let Ok(job) = request.validate_odds("id".into(), "fuzz", config()) {
            let layout = job.position.0.layout();
            assert_eq!(
                (job.suits, job.ranks),
                (layout.suits() as i64, layout.ranks() as i64)
            );
            assert!((1..=1_000_000).contains(&job.samples));
            assert!(job.limit_time_ms >= 1);
        }
    }
    if let Ok(request) = from_json::<BatchRequest>(value) {
        if let Ok((batch, jobs)) = request.validate("id".into(), "fuzz", config()) {
            assert!(batch.count >= 1);
            assert!(batch.seed.checked_add(batch.count - 1).is_some());
            // A batch of games holds its jobs, one a game; a range none yet.
            let listed = if batch.games { batch.count as usize } else { 0 };
            let batch_ids: Vec<Option<&str>> = match &jobs {
                BatchGames::Gaps(jobs) => jobs.iter().map(|j| j.batch_id.as_deref()).collect(),
                BatchGames::Odds(jobs) => jobs.iter().map(|j| j.batch_id.as_deref()).collect(),
            };
            assert_eq!(batch_ids.len(), listed);
            assert!(batch_ids.iter().all(|id| *id == Some("id")));
            // A batch of games holds one kind, the batch's.
            if batch.games {
                let odds = matches!(jobs, BatchGames::Odds(_));
                assert_eq!(batch.odds_samples.is_some(), odds);
            }
        }
    }
}

/// Move play and solution replay on any sequence of moves, legal or not. From a
/// numbered deal of a size and variant chosen by the input, each 4-byte step plays
/// either a legal move (by index) or an arbitrary one (any card code, any cells):
/// `try_play` applies exactly the legal ones, every invariant (incremental Zobrist
/// key, gap list, home count) holds after each, and replaying the applied moves with
/// `verify_solution` reaches the same position, never reporting an illegal move.
pub fn replay(data: &[u8]) {
    let [suits, ranks, variant, seed, steps @ ..] = data else {
        return;
    };
    let Ok(layout) = Layout::new(1 + usize::from(*suits % 8), 3 + usize::from(*ranks % 11)) else {
        return;
    };
    let variant = Variant::ALL[usize::from(*variant % 2)];
    let start = deal(u64::from(*seed), layout);
    let mut position = start;
    let mut applied: Vec<Move> = Vec::new();
    for step in steps.chunks_exact(4) {
        let mut legal = MoveList::<MAX_MOVES>::default();
        position.legal_moves(variant, &mut legal);
        let candidate = if step[0] % 2 == 0 && !legal.as_slice().is_empty() {
            legal.as_slice()[usize::from(step[1]) % legal.as_slice().len()]
        } else {
            Move {
                card: Card::from_code(step[1]),
                from: step[2],
                to: step[3],
                gap: step[0] >> 1,
            }
        };
        let is_legal = legal
            .as_slice()
            .iter()
            .any(|m| m.card == candidate.card && m.from == candidate.from && m.to == candidate.to);
        let before = position;
        let played = position.try_play(variant, candidate);
        assert_eq!(played, is_legal, "{candidate:?}");
        if played {
            applied.push(candidate);
        } else {
            assert_eq!(position, before, "a refused move changed the position");
        }
        position.check_invariants();
    }
    match verify_solution(&start, variant, &applied) {
        Ok(end) => {
            assert_eq!(end, position);
            assert!(position.is_won(variant));
        }
        Err(ReplayError::NotWon) => assert!(!position.is_won(variant)),
        Err(e) => panic!("replaying legal moves failed: {e}"),
    }
}
