use super::*;
use crate::card::Layout;
use crate::deal::deal;
use crate::notation::parse_position;
use crate::pysol::{PysolDeal, PysolGame};
use crate::source::DealSource;

fn mv(card: &str, from: (usize, usize), to: (usize, usize)) -> PlayedStep {
    PlayedStep::Move {
        card: crate::notation::parse_card(card).unwrap().unwrap(),
        from,
        to,
    }
}

fn refusal(start: &str, variant: Variant, step: PlayedStep) -> IllegalStep {
    let state = GameState::start(parse_position(start).unwrap(), None);
    PlayedLine::replay(state, variant, None, &[step])
        .unwrap_err()
        .why
}

#[test]
fn each_refusal_says_why() {
    let pos = "2S 3S -- 4H/2H 3H 4S --";
    assert_eq!(
        refusal(pos, Variant::Common, mv("4S", (0, 0), (0, 2))).to_string(),
        "4S is not at (0,0): 2S is"
    );
    assert_eq!(
        refusal(pos, Variant::Common, mv("4S", (1, 2), (0, 1))).to_string(),
        "(0,1) is not a gap: 3S is there"
    );
    assert_eq!(
        refusal(pos, Variant::Common, mv("4H", (0, 3), (0, 2))).to_string(),
        "the gap at (0,2) does not take 4H: it takes only 4S"
    );
    assert_eq!(
        refusal(pos, Variant::Common, mv("4H", (0, 3), (7, 2))),
        IllegalStep::OutsideBoard { row: 7, col: 2 }
    );
    // A gap after a King (the top rank, 4 here) takes nothing.
    let after_top = "2S 3S 4S --/2H 3H -- 4H";
    assert_eq!(
        refusal(after_top, Variant::Common, mv("4H", (1, 3), (0, 3))).to_string(),
        "the gap at (0,3) does not take 4H: it takes nothing: 4S on its left is the top rank"
    );
    // aisleriot: the run from column 0 never moves again.
    let run = "2S 3S -- --/2H 3H 4S 4H";
    assert_eq!(
        refusal(run, Variant::Aisleriot, mv("2S", (0, 0), (0, 3))),
        IllegalStep::Locked {
            card: crate::notation::parse_card("2S").unwrap().unwrap()
        }
    );
    // A redeal of a game without redeals.
    assert_eq!(
        refusal(pos, Variant::Common, PlayedStep::Redeal { number: 1 }),
        IllegalStep::NoRedealLeft { allowed: 0 }
    );
}

#[test]
fn the_index_is_the_first_bad_step() {
    let state = GameState::start(parse_position("2S 3S -- 4H/2H 3H 4S --").unwrap(), None);
    let steps = [mv("4S", (1, 2), (0, 2)), mv("4S", (0, 2), (1, 3))];
    let err = PlayedLine::replay(state, Variant::Common, None, &steps).unwrap_err();
    assert_eq!(err.index, 1);
    assert!(err.to_string().starts_with("played step 1: "), "{err}");
}

#[test]
fn redeals_are_numbered_and_continue_the_games_stream() {
    let layout = Layout::new(3, 5).unwrap();
    let source = DealSource::Numbered { seed: 11, layout };
    let redeals = source.redeals(2).unwrap();
    let start = GameState::start(source.start(), Some(&redeals));
    let variant = Variant::Common;
    let two = [
        PlayedStep::Redeal { number: 1 },
        PlayedStep::Redeal { number: 2 },
    ];
    let line = PlayedLine::replay(start.clone(), variant, None, &two).unwrap();
    // The same as redealing twice with the game's stream.
    let mut stream = redeals.stream.clone();
    let once = redeal(&source.start(), variant, &mut stream).unwrap();
    let twice = redeal(&once, variant, &mut stream).unwrap();
    assert_eq!(line.states[1].position, once);
    assert_eq!(line.last().position, twice);
    assert_eq!(line.last().redeals_left(), 0);
    let err = PlayedLine::replay(start.clone(), variant, None, &[two[1]]).unwrap_err();
    assert_eq!(
        err.why,
        IllegalStep::RedealNumber {
            expected: 1,
            got: 2
        }
    );
    let three = [two[0], two[1], PlayedStep::Redeal { number: 3 }];
    let err = PlayedLine::replay(start, variant, None, &three).unwrap_err();
    assert_eq!(
        (err.index, err.why),
        (2, IllegalStep::NoRedealLeft { allowed: 2 })
    );
}

#[test]
fn blue_moon_steps_are_read_on_its_board() {
    let game = PysolDeal::new(PysolGame::BlueMoon, 5).unwrap();
    let (board, map) = game.board_and_map();
    let source = DealSource::Pysol(game);
    let start = GameState::start(source.start(), source.redeals(2).as_ref());
    let variant = map.variant();
    // The first legal move of the engine, given on the board.
    let mut list = MoveList::<MAX_MOVES>::default();
    start.position.legal_moves(variant, &mut list);
    let m = list.as_slice()[0];
    let ((fr, fc), (tr, tc)) = (m.from_rc(), m.to_rc());
    let on_board = PlayedStep::Move {
        card: map.board_card(m.card),
        from: (fr, map.board_col(fc)),
        to: (tr, map.board_col(tc)),
    };
    let line = PlayedLine::replay(start.clone(), variant, Some(&map), &[on_board]).unwrap();
    assert_eq!(line.steps, [Step::Move(m)]);
    // The Aces column is the board's, not the engine's.
    let ace = board.rows[0][0].unwrap();
    let err = PlayedLine::replay(
        start.clone(),
        variant,
        Some(&map),
        &[PlayedStep::Move {
            card: ace,
            from: (0, 0),
            to: (tr, map.board_col(tc)),
        }],
    )
    .unwrap_err();
    assert_eq!(err.why, IllegalStep::AcesColumn);
    // The engine's own coordinates are off by the Aces column on the board.
    let engine_form = PlayedStep::Move {
        card: map.board_card(m.card),
        from: (fr, fc),
        to: (tr, tc),
    };
    assert!(PlayedLine::replay(start, variant, Some(&map), &[engine_form]).is_err());
}

#[test]
fn a_solution_played_step_by_step_ends_won() {
    let layout = Layout::new(3, 5).unwrap();
    let mut solver = crate::solve::Solver::with_table_bytes(1 << 20);
    let options = crate::solve::SolveOptions::default();
    let mut won = 0;
    for seed in 0..40 {
        let start = deal(seed, layout);
        let report = solver.solve(&start, &options, None).unwrap();
        if report.verdict != crate::solve::Verdict::Solvable {
            continue;
        }
        let steps: Vec<PlayedStep> = report
            .solution
            .iter()
            .map(|m| PlayedStep::Move {
                card: m.card,
                from: m.from_rc(),
                to: m.to_rc(),
            })
            .collect();
        let line = PlayedLine::replay(GameState::start(start, None), options.variant, None, &steps)
            .unwrap();
        assert!(line.last().position.is_won(options.variant));
        assert_eq!(line.states.len(), steps.len() + 1);
        won += 1;
    }
    assert!(won > 5);
}
