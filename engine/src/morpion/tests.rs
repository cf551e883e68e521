//! Unit tests of the Morpion rules and records on the two fixture records.

use super::board::{cross, Board, Dir, MorpionVariant};
use super::endgame::{count_positions, prove, EndgameOptions, Method};
use super::record::{pentasol_text, Record, RecordError, RecordMove};

const BRUNEAU: &str = include_str!("../../tests/data/morpion/bruneau170.json");
const ROSIN: &str = include_str!("../../tests/data/morpion/rosin178.json");
const ROSIN_5D: &str = include_str!("../../tests/data/morpion/rosin82-5d.json");

#[test]
fn the_cross_has_36_dots_and_28_first_moves() {
    assert_eq!(cross().len(), 36);
    let board = Board::new(MorpionVariant::T5);
    assert_eq!(board.legal_moves().len(), 28);
    let board = Board::new(MorpionVariant::D5);
    assert_eq!(board.legal_moves().len(), 28);
}

#[test]
fn the_records_replay_to_terminal_positions() {
    for (text, len) in [(BRUNEAU, 170), (ROSIN, 178)] {
        let record = Record::parse(text).unwrap();
        assert_eq!(record.moves.len(), len);
        let board = record.replay(MorpionVariant::T5, len).unwrap();
        assert!(
            board.legal_moves().is_empty(),
            "a record ends with no move left"
        );
        assert_eq!(board.dots().len(), 36 + len);
        assert_eq!(board.key(), board.key_from_scratch());
    }
}

#[test]
fn incremental_lists_equal_lists_from_scratch_along_the_records() {
    for text in [BRUNEAU, ROSIN] {
        let record = Record::parse(text).unwrap();
        let mut board = Board::new(MorpionVariant::T5);
        let mut list = board.legal_moves();
        for rm in &record.moves {
            let m = board.find_move(rm.x, rm.y, rm.dir, rm.pos).unwrap();
            let mut next: Vec<_> = list
                .iter()
                .copied()
                .filter(|&t| t != m && t.compatible(m, 4))
                .collect();
            board.play(m);
            let len = next.len();
            next.resize(len + 64, Default::default());
            let end = board.moves_through(m, &mut next, len).unwrap();
            next.truncate(end);
            let mut scratch = board.legal_moves();
            let mut sorted = next.clone();
            sorted.sort_by_key(|m| (m.dot(), m.dir() as u8, m.pos()));
            scratch.sort_by_key(|m| (m.dot(), m.dir() as u8, m.pos()));
            assert_eq!(sorted, scratch);
            list = next;
        }
    }
}

#[test]
fn a_record_is_not_a_5d_game_and_a_bad_move_is_named() {
    let record = Record::parse(BRUNEAU).unwrap();
    assert!(matches!(
        record.variant_for(Some(MorpionVariant::D5)),
        Err(RecordError::VariantMismatch { .. })
    ));
    let err = record.replay(MorpionVariant::D5, 170).unwrap_err();
    assert!(matches!(err, RecordError::Illegal { .. }), "{err}");
    let mut broken = record.clone();
    broken.moves[3].pos = 2;
    let err = broken.replay(MorpionVariant::T5, 170).unwrap_err();
    assert!(err.to_string().starts_with("move 4 ("), "{err}");
}

#[test]
fn pentasol_text_reads_back_as_the_same_game() {
    let record = Record::parse(ROSIN).unwrap();
    let text = pentasol_text(&record.moves, 28, 28);
    let back = Record::parse(&text).unwrap();
    assert_eq!(back.moves, record.moves);
    assert!(back.replay(MorpionVariant::T5, 178).is_ok());
    // Rosin's 177-move game A starts (28,28) / (27,25) - +2 / (32,32) / 0 / (30,28) - +2
    // / (28,35) | -2 in its published Pentasol file.
    let published = "# Pentasol\n(28,28)\n(27,25) - +2\n(32,32) / 0\n(30,28) - +2\n(28,35) | -2\n";
    let game = Record::parse(published).unwrap();
    let expect = [
        (2, 0, Dir::H, 0),
        (7, 7, Dir::DP, 2),
        (5, 3, Dir::H, 0),
        (3, 10, Dir::V, 4),
    ];
    let expect: Vec<RecordMove> = expect
        .iter()
        .map(|&(x, y, dir, pos)| RecordMove { x, y, dir, pos })
        .collect();
    assert_eq!(game.moves, expect);
    assert!(game.replay(MorpionVariant::T5, 4).is_ok());
}

#[test]
fn every_method_finds_the_same_optimum_and_it_counts_distinct_positions() {
    let record = Record::parse(BRUNEAU).unwrap();
    for from in [160, 155] {
        let board = record.replay(MorpionVariant::T5, from).unwrap();
        let distinct = count_positions(&board, 1_000_000).unwrap();
        let run = |method, threads| {
            let options = EndgameOptions {
                method,
                threads,
                ..EndgameOptions::default()
            };
            prove(&record, MorpionVariant::T5, from, &options, None, None).unwrap()
        };
        let it = run(Method::Incremental, 1);
        assert!(it.proved);
        assert_eq!(
            it.nodes, distinct,
            "dfs_it enters each position once (K = {from})"
        );
        let split = run(Method::Incremental, 2);
        assert_eq!((split.nodes, split.best), (it.nodes, it.best));
        let table = run(Method::Table, 1);
        assert_eq!((table.nodes, table.best), (it.nodes, it.best));
        let plain = run(Method::Plain, 1);
        assert_eq!(plain.best, it.best);
        assert!(plain.nodes >= it.nodes);
    }
}

#[test]
fn the_5d_record_replays_only_as_5d_and_its_endgames_count_distinct_positions() {
    let record = Record::parse(ROSIN_5D).unwrap();
    assert_eq!(record.variant, Some(MorpionVariant::D5));
    let board = record.replay(MorpionVariant::D5, 82).unwrap();
    assert!(board.legal_moves().is_empty(), "terminal in 5D");
    // A 5D game is a legal 5T game; along it, 5T allows more moves (touching lines).
    let mut more = 0;
    for count in 0..=82 {
        let disjoint = record
            .replay(MorpionVariant::D5, count)
            .unwrap()
            .legal_moves();
        let touching = record
            .replay(MorpionVariant::T5, count)
            .unwrap()
            .legal_moves();
        assert!(disjoint.iter().all(|m| touching.contains(m)));
        more += usize::from(touching.len() > disjoint.len());
    }
    assert!(more > 10, "5T moves beyond 5D in {more} positions");
    for from in [72, 66, 60] {
        let board = record.replay(MorpionVariant::D5, from).unwrap();
        let distinct = count_positions(&board, 1_000_000).unwrap();
        let options = EndgameOptions::default();
        let it = prove(&record, MorpionVariant::D5, from, &options, None, None).unwrap();
        assert!(it.proved);
        assert_eq!(it.nodes, distinct, "5D from K = {from}");
        assert!(it.best >= 82);
    }
}
