//! Every solution of a PySolFC game, replayed on PySolFC's own board under PySolFC's own
//! rules, written here apart from the engine from `pysollib/games/montana.py`:
//! `Montana_RowStack.acceptsCards` (column 0 takes the base rank; another gap the card
//! of the left neighbour's suit and the next rank of the game's ranks: Paganini's Six
//! follows its Ace), the other row stacks' `acceptsCards` (`Galary_RowStack`,
//! `Jungle_RowStack`, `SpacesAndAces_RowStack`), `Montana.isGameWon`, and `Montana_Talon.dealCards` for the
//! redeals (each row's run stays, the cards after the runs are gathered in reading
//! order and dealt back, the gaps left where the game's `getRedealSpaces` puts them).
//! How a redeal shuffles is checked against PySolFC's generator in
//! `pysol::redeals_match_pysolfc`.
use crate::cli::gaps;
use serde_json::Value;

type Board = Vec<Vec<Option<String>>>;

/// A game as PySolFC's code has it.
pub(crate) struct Rules {
    pub(crate) game: &'static str,
    /// The deck's ranks, lowest first.
    ranks: &'static str,
    /// `RBASE`: the index in `ranks` of the rank column 0 takes.
    base: usize,
    /// Where a redeal leaves the gaps.
    spaces: Spaces,
    /// What a gap outside column 0 takes.
    takes: Takes,
    /// How many of games 1..=12 must be won within the test's time.
    min_won: usize,
}

#[derive(PartialEq)]
enum Takes {
    /// The left neighbour's successor (`Montana_RowStack`).
    Successor,
    /// That, or the card below the right neighbour, the next row's first cell being
    /// the right neighbour of a row's last (`Galary_RowStack`).
    OrBelowRight,
    /// The next rank after the left neighbour's, any suit (`Jungle_RowStack`).
    AnySuit,
    /// Any higher card of the left neighbour's suit (`SpacesAndAces_RowStack`).
    Higher,
}

#[derive(PartialEq)]
enum Spaces {
    /// The first cell after each row's run.
    AfterRun,
    /// The last cell of each row (Station).
    RowEnds,
    /// Any four gathered cells (Spaces: drawn by the generator).
    Drawn,
}

pub(crate) const GAMES: [Rules; 12] = [
    Rules {
        game: "montana",
        ranks: "A23456789TJQK",
        base: 1,
        spaces: Spaces::AfterRun,
        takes: Takes::Successor,
        min_won: 6,
    },
    Rules {
        game: "blue-moon",
        ranks: "A23456789TJQK",
        base: 0,
        spaces: Spaces::AfterRun,
        takes: Takes::Successor,
        min_won: 6,
    },
    Rules {
        game: "spaces",
        ranks: "A23456789TJQK",
        base: 1,
        spaces: Spaces::Drawn,
        takes: Takes::Successor,
        min_won: 6,
    },
    Rules {
        game: "red-moon",
        ranks: "A23456789TJQK",
        base: 0,
        spaces: Spaces::AfterRun,
        takes: Takes::Successor,
        min_won: 6,
    },
    Rules {
        game: "paganini",
        ranks: "A6789TJQK",
        base: 0,
        spaces: Spaces::AfterRun,
        takes: Takes::Successor,
        min_won: 6,
    },
    Rules {
        game: "house-of-commons",
        ranks: "A23456789T",
        base: 1,
        spaces: Spaces::AfterRun,
        takes: Takes::Successor,
        min_won: 6,
    },
    Rules {
        game: "line-up",
        ranks: "A23456",
        base: 0,
        spaces: Spaces::AfterRun,
        takes: Takes::Successor,
        min_won: 6,
    },
    Rules {
        game: "station",
        ranks: "A23456789TJQK",
        base: 1,
        spaces: Spaces::RowEnds,
        takes: Takes::Successor,
        min_won: 6,
    },
    // The games played on their own boards, held to 400,000 nodes a game: the wins
    // that the board search finds within them (docs/pysol.md has the rates at 60 s).
    Rules {
        game: "galary",
        ranks: "A23456789TJQK",
        base: 0,
        spaces: Spaces::AfterRun,
        takes: Takes::OrBelowRight,
        min_won: 6,
    },
    Rules {
        game: "free-parking",
        ranks: "A23456789TJQK",
        base: 1,
        spaces: Spaces::AfterRun,
        takes: Takes::OrBelowRight,
        min_won: 3,
    },
    Rules {
        game: "jungle",
        ranks: "A23456789TJQK",
        base: 0,
        spaces: Spaces::AfterRun,
        takes: Takes::AnySuit,
        min_won: 2,
    },
    Rules {
        game: "spaces-and-aces",
        ranks: "A23456789TJQK",
        base: 0,
        spaces: Spaces::AfterRun,
        takes: Takes::Higher,
        min_won: 1,
    },
];

fn parse_board(board: &str) -> Board {
    board
        .split('/')
        .map(|row| {
            row.split(' ')
                .map(|c| (c != "--").then(|| c.to_string()))
                .collect()
        })
        .collect()
}

impl Rules {
    /// The index of a card's rank in the deck's ranks.
    fn rank(&self, card: &str) -> usize {
        self.ranks.find(&card[..1]).expect("a rank of the deck")
    }

    /// How many cells of `row`, from column 0, are in sequence (`dealCards`).
    fn run(&self, row: &[Option<String>]) -> usize {
        let suit = row[0].as_deref().map(|c| c[1..].to_string());
        (0..row.len())
            .take_while(|&j| {
                row[j].as_deref().is_some_and(|c| {
                    self.rank(c) == self.base + j && Some(c[1..].to_string()) == suit
                })
            })
            .count()
    }

    /// Checks a redeal of `rows` that dealt `dealt` after gathering `gathered`.
    fn check_redeal(&self, rows: &Board, gathered: &[Value], dealt: &Board) -> Result<(), String> {
        let mut expected_gathered = Vec::new();
        let mut dealt_cards = Vec::new();
        let mut gaps = 0;
        for (row, new_row) in rows.iter().zip(dealt) {
            let run = self.run(row);
            if new_row[..run] != row[..run] {
                return Err(format!("row {row:?} redealt as {new_row:?}: its run moved"));
            }
            let gap_ok = match self.spaces {
                Spaces::AfterRun => new_row[run].is_none(),
                Spaces::RowEnds => new_row[row.len() - 1].is_none(),
                Spaces::Drawn => true,
            };
            if !gap_ok {
                return Err(format!(
                    "row {row:?} redealt as {new_row:?}: no gap where due"
                ));
            }
            gaps += new_row[run..].iter().filter(|c| c.is_none()).count();
            expected_gathered.extend(row[run..].iter().flatten().cloned());
            dealt_cards.extend(new_row[run..].iter().flatten().cloned());
        }
        if gaps != 4 {
            return Err(format!("{gaps} gaps after the redeal"));
        }
        let gathered: Vec<String> = gathered
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        if gathered != expected_gathered {
            return Err(format!(
                "gathered {gathered:?}, expected {expected_gathered:?}"
            ));
        }
        dealt_cards.sort();
        expected_gathered.sort();
        if dealt_cards != expected_gathered {
            return Err("the cards dealt are not the cards gathered".into());
        }
        Ok(())
    }

    /// Whether the gap at `(tr, tc)`, `tc > 0`, takes `card` under the game's rule.
    fn accepts(&self, rows: &Board, tr: usize, tc: usize, card: &str) -> bool {
        let rank = self.rank(card);
        let left = rows[tr][tc - 1].as_deref();
        let from_left = left.is_some_and(|left| match self.takes {
            Takes::AnySuit => self.rank(left) + 1 == rank,
            Takes::Higher => left[1..] == card[1..] && self.rank(left) < rank,
            Takes::Successor | Takes::OrBelowRight => {
                left[1..] == card[1..] && self.rank(left) + 1 == rank
            }
        });
        let len = rows[tr].len();
        let right = if tc + 1 < len {
            rows[tr][tc + 1].as_deref()
        } else {
            rows.get(tr + 1).and_then(|row| row[0].as_deref())
        };
        let from_right = self.takes == Takes::OrBelowRight
            && right.is_some_and(|right| right[1..] == card[1..] && self.rank(right) == rank + 1);
        from_left || from_right
    }

    /// Whether `card` may go to the gap at `(tr, tc)` of `rows` under the game's rule:
    /// the base rank into column 0, else what [`Rules::accepts`] says.
    fn may_go(&self, rows: &Board, tr: usize, tc: usize, card: &str) -> bool {
        tc == 0 && self.rank(card) == self.base || tc > 0 && self.accepts(rows, tr, tc, card)
    }

    /// Every move PySolFC's rule allows on `board` (card, from, to), a card into a
    /// gap: what the answer's `legal_moves` must list.
    pub(crate) fn legal_moves(
        &self,
        board: &str,
    ) -> std::collections::BTreeSet<(String, [usize; 2], [usize; 2])> {
        let rows = parse_board(board);
        let cells = || {
            rows.iter()
                .enumerate()
                .flat_map(|(r, row)| row.iter().enumerate().map(move |(c, x)| (r, c, x)))
        };
        let mut moves = std::collections::BTreeSet::new();
        for (tr, tc, gap) in cells() {
            if gap.is_some() {
                continue;
            }
            for (fr, fc, card) in cells() {
                if let Some(card) = card {
                    if self.may_go(&rows, tr, tc, card) {
                        moves.insert((card.clone(), [fr, fc], [tr, tc]));
                    }
                }
            }
        }
        moves
    }

    /// Plays `steps` on `board`; whether the last board is won. A redeal step
    /// `{"redeal": k}` goes on from the board `redealt[k - 1]` shows, once
    /// [`Rules::check_redeal`] accepts it.
    pub(crate) fn replay(
        &self,
        board: &str,
        steps: &[Value],
        redealt: &[Value],
    ) -> Result<bool, String> {
        let mut rows = parse_board(board);
        for (i, m) in steps.iter().enumerate() {
            if let Some(k) = m["redeal"].as_u64() {
                let shown = &redealt[k as usize - 1];
                let dealt = parse_board(shown["board"].as_str().unwrap());
                self.check_redeal(&rows, shown["gathered"].as_array().unwrap(), &dealt)?;
                rows = dealt;
                continue;
            }
            let at = |k: &str, j: usize| m[k][j].as_u64().unwrap() as usize;
            let (fr, fc, tr, tc) = (at("from", 0), at("from", 1), at("to", 0), at("to", 1));
            let card = m["card"].as_str().unwrap();
            if rows[fr][fc].as_deref() != Some(card) || rows[tr][tc].is_some() {
                return Err(format!("move {i}: {m} does not match the board"));
            }
            if !self.may_go(&rows, tr, tc, card) {
                return Err(format!("move {i}: {m} is not allowed by PySolFC's rule"));
            }
            rows[tr][tc] = rows[fr][fc].take();
        }
        Ok(rows.iter().all(|row| self.run(row) >= row.len() - 1))
    }
}

#[test]
fn every_solved_games_solutions_win_under_pysolfcs_own_rules_on_its_board() {
    for rules in &GAMES {
        let (mut won, mut redealt) = (0, 0);
        for number in 1..=12 {
            let game = format!("{}:{number}", rules.game);
            // The board search is held to nodes rather than time: the same games are
            // won on every machine.
            let limit = if rules.takes == Takes::Successor {
                ["--time-ms", "3000"]
            } else {
                ["--nodes", "400000"]
            };
            let out = gaps()
                .args(["solve", "--json", "--pysol", &game])
                .args(limit)
                .output()
                .unwrap();
            assert!(out.status.success(), "{game}: {out:?}");
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            // The board is PySolFC's (tests/pysol.rs checks it card for card).
            let shown = gaps().args(["deal", "--pysol", &game]).output().unwrap();
            let board = v["pysol"]["board"].as_str().unwrap();
            assert_eq!(String::from_utf8(shown.stdout).unwrap().trim_end(), board);
            if v["verdict"] != "solvable" {
                continue;
            }
            let steps = v["pysol"]["board_solution"].as_array().unwrap();
            let redeals = v["rounds"]["redealt"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            assert_eq!(rules.replay(board, steps, &redeals), Ok(true), "{game}");
            won += 1;
            redealt += redeals.len();
        }
        // Every one of these games is won more often than not (docs/pysol.md).
        assert!(won >= rules.min_won, "{}: only {won} of 12 won", rules.game);
        eprintln!(
            "{}: {won} of 12 won, {redealt} redeals replayed",
            rules.game
        );
    }
}

#[test]
fn exact_searches_a_board_games_round_exhaustively() {
    // Free Parking 2's first round: won by the exhaustive search (52,984 positions), the
    // line replayed here under PySolFC's rules.
    let out = gaps()
        .args([
            "solve",
            "--pysol",
            "free-parking:2",
            "--algorithm",
            "exact",
            "--redeals",
            "0",
        ])
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&j["verdict"], &j["algorithm"]),
        (&serde_json::json!("solvable"), &serde_json::json!("exact")),
        "{j}"
    );
    let rules = GAMES.iter().find(|r| r.game == "free-parking").unwrap();
    let board = j["pysol"]["board"].as_str().unwrap();
    let steps = j["pysol"]["board_solution"].as_array().unwrap();
    assert_eq!(rules.replay(board, steps, &[]), Ok(true), "{j}");
    // From a game in progress it is refused, as the service refuses it (exit 2).
    let played =
        std::env::temp_dir().join(format!("gaps-exact-played-{}.json", std::process::id()));
    std::fs::write(&played, "[]").unwrap();
    for command in ["solve", "review"] {
        let out = gaps()
            .args([
                command,
                "--pysol",
                "galary:3",
                "--algorithm",
                "exact",
                "--redeals",
                "0",
            ])
            .arg("--played")
            .arg(&played)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("give no played steps"), "{command}: {err}");
    }
    std::fs::remove_file(&played).unwrap();
}

#[test]
fn games_played_on_their_boards_refuse_what_does_not_apply_to_them() {
    for (args, wanted) in [
        (
            &["--pysol", "jungle:5", "--redeals", "2"][..],
            "jungle allows at most 1 redeal",
        ),
        (
            &["--pysol", "galary:5", "--variant", "basic"][..],
            "its own board",
        ),
        (
            &["--pysol", "free-parking:5", "--algorithm", "blocks"][..],
            "board search",
        ),
        (
            &["--pysol", "galary:5", "--algorithm", "exact"][..],
            "exact searches a round without redeals",
        ),
        (&["--pysol", "spaces-and-aces:0"][..], "from 1 to 10^20"),
        // Said over HTTP too (`requests`), and once ignored here.
        (
            &["--pysol", "galary:3", "--probes", "5"][..],
            "--probes: 5: pysol galary:3 is searched by its board search, which makes no probes",
        ),
        (
            &["--pysol", "jungle:3", "--no-it"][..],
            "--no-it: jungle is searched by its board search",
        ),
    ] {
        let out = gaps().arg("solve").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(wanted), "{args:?}: {err}");
    }
    let out = gaps()
        .args(["solve", "--pysol", "klondike:5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("spaces-and-aces"),
        "the known games are listed: {err}"
    );
    // More redeals than the game's own.
    for (game, redeals) in [("paganini:1", "2"), ("line-up:1", "1")] {
        let out = gaps()
            .args(["solve", "--pysol", game, "--redeals", redeals])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{game}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("allows"), "{err}");
    }
}

#[test]
fn winnable_lists_the_won_numbers_in_pysolfcs_form() {
    let out = gaps()
        .args(["winnable", "--pysol", "line-up", "--count", "24"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("SOLVABLE_SEEDS = (\n"), "{text}");
    let numbers: Vec<u64> = text
        .lines()
        .filter(|l| l.starts_with("    "))
        .flat_map(|l| l.split(',').filter_map(|n| n.trim().parse().ok()))
        .collect();
    // Each listed number is won, each left out is not.
    for number in 32000..32024u64 {
        let out = gaps()
            .args(["solve", "--json", "--pysol", &format!("line-up:{number}")])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            numbers.contains(&number),
            v["verdict"] == "solvable",
            "line-up:{number}: {}",
            v["verdict"]
        );
    }
    assert!(text.contains(&format!("# {} seeds, covering 32000-32023.", numbers.len())));
    gaps()
        .args(["winnable", "--pysol", "klondike", "--count", "3"])
        .assert()
        .code(2);
    // A game played on its own board lists its won numbers too.
    let out = gaps()
        .args([
            "winnable", "--pysol", "galary", "--from", "1", "--count", "2",
        ])
        .args(["--nodes", "300000", "--format", "lines"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "2\n");
    // A list made under limits says how it was made and how many numbers it left out
    // undecided (Spaces and Aces' 32003 is not won within the limit, the others are).
    let out = gaps()
        .args(["winnable", "--pysol", "spaces-and-aces", "--count", "5"])
        .args(["--nodes", "200000", "--threads", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("--from 32000 --count 5 --nodes 200000`:"),
        "{text}"
    );
    assert!(
        text.contains(
            "# 4 seeds, covering 32000-32004.\n\
             # 1 number of that range was left undecided by the search's limits\n\
             # and is not listed: it may be winnable.\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("SOLVABLE_SEEDS = (\n    32000, 32001, 32002, 32004,\n)"),
        "{text}"
    );
}
