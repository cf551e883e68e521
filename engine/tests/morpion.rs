//! Morpion endgame proofs on the two fixture records: pinned node counts, the
//! hash-set count of distinct positions, and the methods and splits agreeing.

use gaps_engine::internals::Budget;
use gaps_engine::morpion::board::MorpionVariant;
use gaps_engine::morpion::endgame::{
    conclude, count_positions, prefix, prove, search_unit, EndgameOptions, Frontier, Method,
    Searcher,
};
use gaps_engine::morpion::record::Record;

const BRUNEAU: &str = include_str!("data/morpion/bruneau170.json");
const ROSIN: &str = include_str!("data/morpion/rosin178.json");

fn record(text: &str) -> Record {
    Record::parse(text).expect("a fixture decodes")
}

fn run(
    record: &Record,
    from: usize,
    method: Method,
    threads: usize,
    split: Option<usize>,
) -> (usize, bool, u64) {
    let options = EndgameOptions {
        method,
        threads,
        split_depth: split,
        table_bytes: 16 << 20,
        ..EndgameOptions::default()
    };
    let report =
        prove(record, MorpionVariant::T5, from, &options, None, None).expect("the record replays");
    (report.best, report.proved, report.nodes)
}

/// `dfs_it` node counts: the number of distinct positions reachable once the first K
/// moves are kept (root included); each record is optimal from every K here.
#[test]
fn pinned_incremental_counts() {
    type Pinned = (&'static str, usize, [(usize, u64); 5]);
    let pinned: [Pinned; 2] = [
        (
            BRUNEAU,
            170,
            [
                (160, 50),
                (150, 88),
                (140, 2936),
                (130, 268_911),
                (120, 6_597_732),
            ],
        ),
        (
            ROSIN,
            178,
            [
                (160, 96),
                (150, 250),
                (140, 1793),
                (130, 34_859),
                (120, 208_248),
            ],
        ),
    ];
    for (text, length, counts) in pinned {
        let record = record(text);
        for (from, nodes) in counts {
            assert_eq!(
                run(&record, from, Method::Incremental, 1, None),
                (length, true, nodes),
                "{length}-move record from K = {from}"
            );
        }
    }
}

#[test]
fn incremental_counts_equal_hash_set_counts_of_distinct_positions() {
    for (text, froms) in [
        (BRUNEAU, &[160, 150, 140][..]),
        (ROSIN, &[160, 150, 140][..]),
    ] {
        let record = record(text);
        for &from in froms {
            let board = record.replay(MorpionVariant::T5, from).unwrap();
            let distinct = count_positions(&board, 100_000).expect("small enough");
            assert_eq!(
                run(&record, from, Method::Incremental, 1, None).2,
                distinct,
                "K = {from}"
            );
        }
    }
}

#[test]
fn splits_threads_and_move_order_leave_the_count_unchanged() {
    let record = record(BRUNEAU);
    let alone = run(&record, 130, Method::Incremental, 1, None);
    for (threads, split) in [(1, Some(1)), (2, Some(2)), (2, Some(4)), (2, None)] {
        assert_eq!(
            run(&record, 130, Method::Incremental, threads, split),
            alone
        );
    }
    // The root's moves in reverse order: the same positions, the same count.
    let mut board = record.replay(MorpionVariant::T5, 130).unwrap();
    let mut moves = board.legal_moves();
    moves.reverse();
    let found = Searcher::new(0).search(
        &mut board,
        &moves,
        0,
        Method::Incremental,
        &Budget::unlimited(),
        None,
    );
    assert!(found.complete());
    assert_eq!(found.nodes, alone.2);
    assert_eq!(130 + found.line.len(), alone.0);
}

#[test]
fn units_searched_one_at_a_time_conclude_to_the_whole_proof() {
    // What the nodes of a shared proof do: each unit alone, in any order, then one
    // conclusion over all of them.
    let record = record(BRUNEAU);
    let alone = run(&record, 130, Method::Incremental, 1, None);
    let mut board = prefix(&record, MorpionVariant::T5, 130).unwrap();
    let frontier = Frontier::with_units(&mut board, 40, Method::Incremental);
    assert!(frontier.units.len() >= 40);
    let options = EndgameOptions::default();
    let mut results = vec![None; frontier.units.len()];
    for index in (0..frontier.units.len()).rev() {
        let (result, stop) = search_unit(&board, &frontier, index, &options, None, None);
        assert!(stop.is_none() && result.complete);
        results[index] = Some(result);
    }
    let report = conclude(
        &record,
        MorpionVariant::T5,
        130,
        &board,
        &frontier,
        &results,
        None,
    );
    assert_eq!((report.best, report.proved, report.nodes), alone);
    // A unit cut short by its limit says so, and the conclusion is then not a proof.
    let tight = EndgameOptions {
        max_nodes: Some(10),
        ..EndgameOptions::default()
    };
    let biggest = (0..frontier.units.len())
        .max_by_key(|&i| results[i].as_ref().unwrap().nodes)
        .unwrap();
    let (cut, stop) = search_unit(&board, &frontier, biggest, &tight, None, None);
    assert!(!cut.complete && stop.is_some());
    results[biggest] = Some(cut);
    let report = conclude(
        &record,
        MorpionVariant::T5,
        130,
        &board,
        &frontier,
        &results,
        stop,
    );
    assert!(!report.proved);
}

#[test]
fn a_table_large_enough_enters_the_same_positions_and_plain_dfs_more() {
    // Plain DFS searches every order of the moves: its tree explodes below these K.
    for (text, table_from, plain_from) in [
        (BRUNEAU, [145, 140], [160, 150]),
        (ROSIN, [145, 140], [165, 160]),
    ] {
        let record = record(text);
        for from in table_from {
            let it = run(&record, from, Method::Incremental, 1, None);
            assert_eq!(run(&record, from, Method::Table, 1, None), it);
        }
        for from in plain_from {
            let it = run(&record, from, Method::Incremental, 1, None);
            let plain = run(&record, from, Method::Plain, 2, None);
            assert_eq!((plain.0, plain.1), (it.0, it.1));
            assert!(plain.2 > it.2, "transpositions exist from K = {from}");
        }
    }
    // Pinned plain counts (the size of the whole tree).
    assert_eq!(
        run(&record(BRUNEAU), 150, Method::Plain, 1, None).2,
        1_822_734
    );
    assert_eq!(run(&record(ROSIN), 160, Method::Plain, 1, None).2, 463_530);
}

#[test]
fn a_node_limit_stops_without_a_proof_and_keeps_the_record() {
    let record = record(BRUNEAU);
    let options = EndgameOptions {
        max_nodes: Some(10_000),
        threads: 2,
        ..EndgameOptions::default()
    };
    let report = prove(&record, MorpionVariant::T5, 120, &options, None, None).unwrap();
    assert!(!report.proved);
    assert_eq!(report.best, 170, "the record's own line stands");
    assert!(report.nodes < 40_000);
    let frontier = Frontier::at_depth(
        &mut record.replay(MorpionVariant::T5, 120).unwrap(),
        2,
        Method::Incremental,
    );
    assert!(frontier.units.len() > 1);
}
