//! PySolFC's games played on their own boards, in progress, against the plain reference
//! of `pysol_boards` (boards as vectors, every card tried on every gap, its own
//! redeal): random play on small boards of every gap rule, with 0, 1 and 2 redeals
//! (redeal steps among the random steps) and every rule for a redeal's gaps. At every
//! prefix the board the steps reach must be the reference's, the answer about the rest
//! must agree with the reference's verdict from there (with the redeals left and the
//! generator where the played ones left it), its line must replay under the reference's
//! rules, and a line said to use the fewest redeals must need them; the review of every
//! game must name the first step after which the reference says it was lost.
use super::pysol_boards::{
    moves, position, random_board, redeal, reference, replays, won, Board, Shape, ALL_ACCEPTS,
};
use gaps_engine::*;

/// A board game played at random from `board`: its steps, and the reference's board,
/// stream and redeals left after each prefix.
struct Played {
    steps: Vec<PlayedStep>,
    states: Vec<(Board, RedealStream, u8)>,
}

fn play_at_random(
    shape: Shape,
    board: &Board,
    stream: &RedealStream,
    redeals: u8,
    rng: &mut SplitMix64,
    max: usize,
) -> Played {
    let len = shape.row_len();
    let mut states = vec![(board.clone(), stream.clone(), redeals)];
    let mut steps = Vec::new();
    for _ in 0..max {
        let (board, stream, left) = states.last().cloned().expect("the deal");
        let list = moves(shape, &board);
        let can_redeal = left > 0 && !won(shape, &board);
        if can_redeal && (list.is_empty() || rng.below(6) == 0) {
            let mut stream = stream;
            let after = redeal(shape, &board, &mut stream);
            steps.push(PlayedStep::Redeal {
                number: redeals - left + 1,
            });
            states.push((after, stream, left - 1));
        } else if list.is_empty() {
            break;
        } else {
            let (from, to) = list[rng.below(list.len() as u64) as usize];
            let (suit, rank) = board[from].expect("a card moves");
            steps.push(PlayedStep::Move {
                card: Card::new(suit, rank),
                from: (from / len, from % len),
                to: (to / len, to % len),
            });
            let mut after = board;
            after[to] = after[from].take();
            states.push((after, stream, left));
        }
    }
    Played { steps, states }
}

fn same_board(shape: Shape, board: &Board, pos: &BoardPosition) -> bool {
    let len = shape.row_len();
    board
        .iter()
        .enumerate()
        .all(|(i, c)| pos.at(i / len, i % len) == c.map(|(s, r)| Card::new(s, r)))
}

#[test]
fn board_games_in_progress_agree_with_the_reference() {
    let gaps_rules = [
        RedealGaps::AfterRun,
        RedealGaps::RowEnds,
        RedealGaps::Random,
    ];
    let options = SolveOptions {
        memory_limit: Some(4 << 20),
        ..SolveOptions::default()
    };
    let mut checked = [0usize; 3]; // answers won, answers lost, reviews with a fatal step
    for accepts in ALL_ACCEPTS {
        for (suits, base, top) in [(2, 1, 3), (2, 0, 2), (3, 1, 2)] {
            let shape = Shape {
                suits,
                base,
                top,
                accepts,
            };
            for seed in 0..40u64 {
                let redeals = (seed % 3) as u8;
                let gaps = gaps_rules[(seed / 3 % 3) as usize];
                let board = random_board(shape, seed);
                let cards = shape.suits * (shape.top - shape.base + 1) as usize;
                let stream = RedealStream::deal(seed, cards).with_gaps(gaps);
                let mut rng = SplitMix64::new(seed ^ 0xb0a4d);
                let played = play_at_random(shape, &board, &stream, redeals, &mut rng, 12);
                let what = format!("{shape:?} seed {seed} redeals {redeals} {gaps:?}");
                let start = GameState::start(
                    position(shape, &board),
                    Some(&Redeals {
                        count: redeals,
                        stream: stream.clone(),
                    }),
                );
                let line = PlayedLine::replay_board(start, &played.steps)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let mut truth = Vec::new();
                for (k, (state, (board, stream, left))) in
                    line.states.iter().zip(&played.states).enumerate()
                {
                    assert!(
                        same_board(shape, board, &state.position),
                        "{what} state {k}"
                    );
                    assert_eq!(state.redeals_left(), *left, "{what} state {k}");
                    let expected = reference(shape, board, stream, *left, 2_000);
                    truth.push(expected);
                    let Some(expected) = expected else { continue };
                    let rest = solve_board_rest(state, &options, SolveControls::default())
                        .unwrap_or_else(|e| panic!("{what} state {k}: {e}"));
                    let report = &rest.report;
                    assert_eq!(
                        report.verdict == Verdict::Solvable,
                        expected,
                        "{what} state {k}: {:?}",
                        report.verdict
                    );
                    if report.verdict == Verdict::Unsolvable {
                        checked[1] += 1;
                        continue;
                    }
                    checked[0] += 1;
                    assert!(
                        replays(shape, board, Some(stream), *left, &report.steps),
                        "{what} state {k}: {:?}",
                        report.steps
                    );
                    let used = report.rounds_used() as u8 - 1;
                    if rest.fewest_redeals && used > 0 {
                        assert_ne!(
                            reference(shape, board, stream, used - 1, 2_000),
                            Some(true),
                            "{what} state {k}: {used} redeals said the fewest"
                        );
                    }
                }
                if truth.iter().any(Option::is_none) {
                    continue;
                }
                let lost_at = truth.iter().position(|t| *t == Some(false));
                let found = review(
                    played.steps.len(),
                    |k| {
                        let rest =
                            solve_board_rest(&line.states[k], &options, SolveControls::default())
                                .expect("a board state");
                        match rest.report.verdict {
                            Verdict::Solvable => Answer::Won(rest.report.steps.clone()),
                            Verdict::Unsolvable => Answer::Lost,
                            Verdict::Unknown => Answer::Unknown,
                        }
                    },
                    |k, steps: &Vec<Step>| {
                        let followed = steps
                            .iter()
                            .zip(&line.steps[k..])
                            .take_while(|(a, b)| a.same_as(b))
                            .count();
                        (followed, steps[followed..].to_vec())
                    },
                );
                assert_eq!(found.lost_from_start, lost_at == Some(0), "{what}");
                let fatal = lost_at.filter(|&k| k > 0).map(|k| k - 1);
                assert_eq!(found.fatal_step, fatal, "{what}");
                if fatal.is_some() {
                    checked[2] += 1;
                }
            }
        }
    }
    let [won, lost, fatal] = checked;
    assert!(
        won > 200 && lost > 200 && fatal > 20,
        "both verdicts and fatal steps occur: {checked:?}"
    );
}

#[test]
fn an_illegal_board_step_is_named_by_its_index() {
    let deal: BoardDeal = "galary:1".parse().unwrap();
    let start = deal.game_state(2).unwrap();
    let board = deal.board();
    // Galary's Twos go to column 1 after the Aces; 2C stands at (2,11).
    assert_eq!(board.row(2)[11], parse_card("2C").unwrap());
    let two = PlayedStep::Move {
        card: parse_card("2C").unwrap().unwrap(),
        from: (2, 11),
        to: (0, 1),
    };
    let line = PlayedLine::replay_board(start.clone(), &[two]).unwrap();
    assert_eq!(line.last().position.at(0, 1), board.row(2)[11]);
    // The same card again: it is no longer there.
    let err = PlayedLine::replay_board(start.clone(), &[two, two]).unwrap_err();
    assert_eq!(err.index, 1);
    assert!(matches!(err.why, IllegalStep::NotThere { .. }), "{err}");
    // A card the gap does not take.
    let wrong = PlayedStep::Move {
        card: parse_card("9H").unwrap().unwrap(),
        from: (0, 4),
        to: (0, 1),
    };
    let err = PlayedLine::replay_board(start.clone(), &[wrong]).unwrap_err();
    assert!(matches!(err.why, IllegalStep::Refused { .. }), "{err}");
    // Outside the board, a third redeal, a redeal out of turn.
    let outside = PlayedStep::Move {
        card: parse_card("9H").unwrap().unwrap(),
        from: (0, 4),
        to: (4, 1),
    };
    let err = PlayedLine::replay_board(start.clone(), &[outside]).unwrap_err();
    assert!(matches!(err.why, IllegalStep::OutsideBoard { .. }), "{err}");
    let redeal = |number| PlayedStep::Redeal { number };
    let err =
        PlayedLine::replay_board(start.clone(), &[redeal(1), redeal(2), redeal(3)]).unwrap_err();
    assert_eq!(err.index, 2);
    assert!(
        matches!(err.why, IllegalStep::NoRedealLeft { allowed: 2 }),
        "{err}"
    );
    let err = PlayedLine::replay_board(start.clone(), &[redeal(2)]).unwrap_err();
    assert!(matches!(err.why, IllegalStep::RedealNumber { .. }), "{err}");
    let none = deal.game_state(0).unwrap();
    let err = PlayedLine::replay_board(none, &[redeal(1)]).unwrap_err();
    assert!(
        matches!(err.why, IllegalStep::NoRedealLeft { allowed: 0 }),
        "{err}"
    );
    // A redeal is the game's own: the board and generator after it are the ones the
    // solve of the whole game redeals to.
    let line = PlayedLine::replay_board(start.clone(), &[redeal(1)]).unwrap();
    let mut stream = board_stream(deal.game, deal.number);
    let expected = BoardPosition::of_board(&board)
        .unwrap()
        .redeal(&mut stream)
        .unwrap();
    assert_eq!(
        line.last().position.to_board(deal.game),
        expected.to_board(deal.game)
    );
    assert!(deal.game_state(3).is_err());
}
