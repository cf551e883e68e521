//! The rules of a request for a PySolFC game played on its own board (Galary, Free
//! Parking, Jungle, Spaces and Aces; docs/pysol.md): its rules and search are the
//! game's own, so it names no variant; it is searched by the board search (`auto`) or
//! the exhaustive search of a round without redeals (`exact`), on one thread, without
//! probes; its redeals are at most the game's own, none for `exact`, and `exact`
//! searches from the deal, never a game in progress.
//!
//! Invariant: [`BoardAsk::check`] is the one place these rules are applied; the
//! command line and the API refuse the same requests with the same words.

use super::rounds::RedealCount;
use super::{Field, Refusal};
use gaps_engine::{Algorithm, PysolGame};

/// What a request for a board game asks beside the game (`None`: not given).
#[derive(Debug, Clone, Copy, Default)]
pub struct BoardAsk<'a> {
    pub variant: Option<&'a str>,
    pub algorithm: Option<&'a str>,
    pub probes: Option<u64>,
    pub threads: Option<u64>,
    pub redeals: Option<u64>,
    /// Whether the request gives played steps (a game in progress).
    pub played: bool,
}

/// What a valid board request searches: `Auto` (the board search) or `Exact`, and
/// with how many redeals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardChoice {
    pub algorithm: Algorithm,
    pub redeals: RedealCount,
}

impl BoardAsk<'_> {
    /// The search and redeals of this request for `game` (named `what` in messages,
    /// as `pysol galary:3`), or the first rule it breaks.
    pub fn check(&self, game: PysolGame, what: &str) -> Result<BoardChoice, Refusal> {
        let bad = |field, message: String| Err(Refusal::new(field, message));
        if let Some(named) = self.variant {
            return bad(
                Field::Variant,
                format!(
                    "{named}: {what} is played on its own board under its own rules \
                     (docs/pysol.md), so a request for it names no variant"
                ),
            );
        }
        let algorithm = match self.algorithm.unwrap_or("auto") {
            "auto" => Algorithm::Auto,
            "exact" => Algorithm::Exact,
            named => {
                return bad(
                    Field::Algorithm,
                    format!(
                        "{named}: {what} is searched by its board search (auto) or its \
                         exhaustive search of a round without redeals (exact)"
                    ),
                )
            }
        };
        if let Some(probes) = self.probes {
            return bad(
                Field::Probes,
                format!("{probes}: {what} is searched by its board search, which makes no probes"),
            );
        }
        if let Some(threads) = self.threads.filter(|&t| t > 1) {
            return bad(
                Field::Threads,
                format!("{threads}: {what} is searched by its board search, on one thread"),
            );
        }
        let own = game.own_redeals();
        let redeals = match self.redeals {
            None => own,
            Some(asked) if asked <= u64::from(own) => asked as u8,
            Some(asked) => {
                return bad(
                    Field::Redeals,
                    format!("{game} allows at most {own} redeal(s) (got {asked})"),
                )
            }
        };
        let redeals = RedealCount::new(redeals).expect("a game allows at most MAX_REDEALS");
        if algorithm == Algorithm::Exact && redeals.any() {
            return bad(
                Field::Algorithm,
                format!(
                    "exact searches a round without redeals: ask for 0 redeals ({game} \
                     allows {own}, its default)"
                ),
            );
        }
        if algorithm == Algorithm::Exact && self.played {
            return bad(
                Field::Algorithm,
                "exact searches a board game from its deal, not a game in progress: give \
                 no played steps"
                    .into(),
            );
        }
        Ok(BoardChoice { algorithm, redeals })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_is_refused_in_order_and_a_plain_request_takes_the_games_redeals() {
        let galary = PysolGame::named("galary").unwrap();
        let what = "pysol galary:3";
        let check = |ask: BoardAsk| ask.check(galary, what);
        assert_eq!(
            check(BoardAsk::default()),
            Ok(BoardChoice {
                algorithm: Algorithm::Auto,
                redeals: RedealCount::new(galary.own_redeals()).unwrap()
            })
        );
        let exact = BoardAsk {
            algorithm: Some("exact"),
            redeals: Some(0),
            threads: Some(1),
            ..BoardAsk::default()
        };
        assert_eq!(
            check(exact),
            Ok(BoardChoice {
                algorithm: Algorithm::Exact,
                redeals: RedealCount::NONE
            })
        );
        for (ask, field) in [
            (
                BoardAsk {
                    variant: Some("common"),
                    ..exact
                },
                Field::Variant,
            ),
            (
                BoardAsk {
                    algorithm: Some("dfs"),
                    ..exact
                },
                Field::Algorithm,
            ),
            (
                BoardAsk {
                    probes: Some(5),
                    ..exact
                },
                Field::Probes,
            ),
            (
                BoardAsk {
                    threads: Some(2),
                    ..exact
                },
                Field::Threads,
            ),
            (
                BoardAsk {
                    redeals: Some(9),
                    ..exact
                },
                Field::Redeals,
            ),
            (
                BoardAsk {
                    redeals: None,
                    ..exact
                },
                Field::Algorithm,
            ),
            (
                BoardAsk {
                    played: true,
                    ..exact
                },
                Field::Algorithm,
            ),
        ] {
            let refusal = check(ask).unwrap_err();
            assert_eq!(refusal.field, field, "{ask:?}: {refusal}");
            assert!(refusal.for_cli().starts_with(field.flag()), "{refusal:?}");
            assert!(refusal.for_api().starts_with(field.json()), "{refusal:?}");
        }
    }
}
