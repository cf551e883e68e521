//! The frozen cards of the board search (`BoardPosition::frozen_cards`, the last
//! round's pruning `frozen_out_of_place`) checked against the plain reference of
//! `pysol_boards.rs`: on small boards of every rule, dealt at random and reached by
//! random play, every board reachable in the round (breadth first, under the
//! reference's rules) keeps each frozen card on its cell, and no board said frozen out
//! of place reaches a won board.
use super::pysol_boards::{moves, position, random_board, round_boards, Board, Shape, ALL_ACCEPTS};
use gaps_engine::*;

/// `board` after up to `steps` random moves of the reference.
fn random_play(shape: Shape, mut board: Board, steps: usize, rng: &mut SplitMix64) -> Board {
    for _ in 0..steps {
        let legal = moves(shape, &board);
        if legal.is_empty() {
            break;
        }
        let (from, to) = legal[rng.below(legal.len() as u64) as usize];
        board[to] = board[from].take();
    }
    board
}

#[test]
fn frozen_cards_never_move_and_frozen_out_of_place_boards_are_lost() {
    for accepts in ALL_ACCEPTS {
        // Boards with some card frozen, and with one frozen out of place.
        let (mut with_frozen, mut out_of_place, mut lost) = (0, 0, 0);
        for (suits, base, top, deals) in [
            (2, 1, 4, 150),
            (3, 1, 3, 150),
            (3, 0, 2, 150),
            (2, 0, 3, 150),
            (4, 1, 2, 100),
        ] {
            let shape = Shape {
                suits,
                base,
                top,
                accepts,
            };
            let len = shape.row_len();
            for seed in 0..deals {
                let mut rng = SplitMix64::new(seed ^ 0xf402e);
                let dealt = random_board(shape, seed);
                for steps in [0, 3, 8, 20] {
                    let board = random_play(shape, dealt.clone(), steps, &mut rng);
                    let pos = position(shape, &board);
                    let frozen = pos.frozen_cards();
                    let dead = pos.frozen_out_of_place();
                    let what = format!("{shape:?} seed {seed} after {steps}: {board:?}");
                    if frozen.is_empty() {
                        assert!(!dead, "{what}: out of place with nothing frozen");
                        continue;
                    }
                    let Some((all, wins)) = round_boards(shape, &board, 100_000, false) else {
                        continue;
                    };
                    with_frozen += 1;
                    let cells: Vec<(usize, (u8, u8))> = frozen
                        .iter()
                        .map(|card| {
                            let (suit, rank) = (card.suit(), card.rank());
                            let at = board.iter().position(|&c| c == Some((suit, rank)));
                            (at.expect("a frozen card is on the board"), (suit, rank))
                        })
                        .collect();
                    for reached in &all {
                        for &(at, card) in &cells {
                            assert_eq!(
                                reached[at],
                                Some(card),
                                "{what}: frozen {card:?} left cell ({}, {}) in {reached:?}",
                                at / len,
                                at % len
                            );
                        }
                    }
                    if dead {
                        out_of_place += 1;
                        assert!(
                            !wins,
                            "{what}: said frozen out of place, but a win is reachable"
                        );
                    }
                    if !wins {
                        lost += 1;
                    }
                }
            }
        }
        // The test is not vacuous: the analysis freezes cards and finds lost boards.
        assert!(
            with_frozen >= 200 && out_of_place >= 50,
            "{accepts:?}: {with_frozen} boards with frozen cards, {out_of_place} out of place ({lost} lost)"
        );
        eprintln!(
            "{accepts:?}: {with_frozen} boards with frozen cards, {out_of_place} found lost by them, of {lost} lost"
        );
    }
}
