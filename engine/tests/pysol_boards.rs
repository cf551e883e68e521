//! The board search of PySolFC's games (`BoardSearcher`, every rule of `Accepts`)
//! checked against a plain reference written here from PySolFC's `acceptsCards`,
//! `isGameWon` and `Montana_Talon.dealCards`: a breadth-first search over boards held
//! as plain vectors, which tries every card on every gap (no candidate lists), and
//! redeals on its own. On thousands of small boards, first round and with redeals under
//! the three gap rules, the verdicts must agree and every winning line must replay under
//! the reference's rules. On the games the engine also plays as `common`, the board
//! search must agree with the engine's own verdicts.
use gaps_engine::internals::Budget;
use gaps_engine::*;
use std::collections::{HashSet, VecDeque};

pub(crate) type Board = Vec<Option<(u8, u8)>>;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub suits: usize,
    pub base: u8,
    pub top: u8,
    pub accepts: Accepts,
}

impl Shape {
    pub fn row_len(self) -> usize {
        (self.top - self.base) as usize + 2
    }
    fn rules(self) -> BoardRules {
        BoardRules {
            suits: self.suits as u8,
            top: self.top,
            base: self.base,
            accepts: self.accepts,
        }
    }
}

/// `acceptsCards` of the game's row stack for `card` into the gap `at`.
pub(crate) fn accepts(shape: Shape, board: &Board, at: usize, card: (u8, u8)) -> bool {
    let len = shape.row_len();
    if at.is_multiple_of(len) {
        return card.1 == shape.base;
    }
    let left = board[at - 1];
    let (suit, rank) = card;
    match shape.accepts {
        Accepts::Successor => left == Some((suit, rank.wrapping_sub(1))),
        Accepts::SuccessorOrBelowRight => {
            left.is_some_and(|l| l.0 == suit && l.1 + 1 == rank)
                || (at < board.len() - 1
                    && board[at + 1].is_some_and(|r| r.0 == suit && r.1 == rank + 1))
        }
        Accepts::AnySuitSuccessor => left.is_some_and(|l| l.1 + 1 == rank),
        Accepts::HigherSameSuit => left.is_some_and(|l| l.0 == suit && l.1 < rank),
    }
}

pub(crate) fn moves(shape: Shape, board: &Board) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for to in (0..board.len()).filter(|&i| board[i].is_none()) {
        for (from, card) in board.iter().enumerate() {
            if let Some(card) = *card {
                if accepts(shape, board, to, card) {
                    out.push((from, to));
                }
            }
        }
    }
    out
}

fn run(shape: Shape, board: &Board, row: usize) -> usize {
    let len = shape.row_len();
    let Some((suit, rank)) = board[row * len] else {
        return 0;
    };
    if rank != shape.base {
        return 0;
    }
    (0..len - 1)
        .take_while(|&c| board[row * len + c] == Some((suit, shape.base + c as u8)))
        .count()
}

pub(crate) fn won(shape: Shape, board: &Board) -> bool {
    (0..shape.suits).all(|row| run(shape, board, row) == shape.row_len() - 1)
}

/// `Montana_Talon.dealCards`, with the stream's rule for the gaps.
pub(crate) fn redeal(shape: Shape, board: &Board, stream: &mut RedealStream) -> Board {
    let len = shape.row_len();
    let runs: Vec<usize> = (0..shape.suits).map(|r| run(shape, board, r)).collect();
    let stacks: Vec<usize> = (0..shape.suits)
        .flat_map(|r| (runs[r]..len).map(move |c| r * len + c))
        .collect();
    let mut talon: Vec<(u8, u8)> = stacks.iter().filter_map(|&i| board[i]).collect();
    for n in (1..talon.len()).rev() {
        let j = stream.below(n + 1);
        talon.swap(n, j);
    }
    let mut spaces: Vec<usize> = match stream.gaps() {
        RedealGaps::AfterRun => (0..shape.suits).map(|r| r * len + runs[r]).collect(),
        RedealGaps::RowEnds => (0..shape.suits).map(|r| r * len + len - 1).collect(),
        RedealGaps::Random => {
            let mut chosen = Vec::new();
            while chosen.len() < shape.suits {
                let s = stacks[stream.below(stacks.len())];
                if !chosen.contains(&s) {
                    chosen.push(s);
                }
            }
            chosen
        }
    };
    spaces.sort_unstable();
    let mut after = board.clone();
    for &i in &stacks {
        after[i] = if spaces.contains(&i) {
            None
        } else {
            talon.pop()
        };
    }
    after
}

/// The boards reachable from `start` in its round (breadth first, no redeal) and
/// whether one of them is won; with `stop_at_win`, only those reached up to the first
/// won one. `None` past `limit` boards.
pub(crate) fn round_boards(
    shape: Shape,
    start: &Board,
    limit: usize,
    stop_at_win: bool,
) -> Option<(Vec<Board>, bool)> {
    let mut seen: HashSet<Board> = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([start.clone()]);
    let mut all = Vec::new();
    let mut any_won = false;
    while let Some(board) = queue.pop_front() {
        if won(shape, &board) {
            any_won = true;
            if stop_at_win {
                return Some((all, true));
            }
        }
        for (from, to) in moves(shape, &board) {
            let mut child = board.clone();
            child[to] = child[from].take();
            if seen.insert(child.clone()) {
                if seen.len() > limit {
                    return None;
                }
                queue.push_back(child);
            }
        }
        all.push(board);
    }
    Some((all, any_won))
}

/// Whether some line with at most `left` redeals wins, or `None` past `limit` boards.
pub(crate) fn reference(
    shape: Shape,
    start: &Board,
    stream: &RedealStream,
    left: u8,
    limit: usize,
) -> Option<bool> {
    let (all, any_won) = round_boards(shape, start, limit, true)?;
    if any_won {
        return Some(true);
    }
    if left == 0 {
        return Some(false);
    }
    let mut unknown = false;
    for board in all {
        let mut next = stream.clone();
        let after = redeal(shape, &board, &mut next);
        match reference(shape, &after, &next, left - 1, limit) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => unknown = true,
        }
    }
    (!unknown).then_some(false)
}

/// A random board of `shape`: every card in play and one gap a suit, anywhere.
pub(crate) fn random_board(shape: Shape, seed: u64) -> Board {
    let mut cells: Board = (0..shape.suits as u8)
        .flat_map(|s| (shape.base..=shape.top).map(move |r| Some((s, r))))
        .collect();
    cells.extend((0..shape.suits).map(|_| None));
    let mut rng = SplitMix64::new(seed);
    for i in (1..cells.len()).rev() {
        cells.swap(i, rng.below(i as u64 + 1) as usize);
    }
    cells
}

pub(crate) fn position(shape: Shape, board: &Board) -> BoardPosition {
    let cards: Vec<Option<Card>> = board
        .iter()
        .map(|c| c.map(|(s, r)| Card::new(s, r)))
        .collect();
    let rows: Vec<&[Option<Card>]> = cards.chunks(shape.row_len()).collect();
    BoardPosition::new(shape.rules(), &rows).unwrap()
}

/// Replays `line` under the reference's rules; true if it ends won.
pub(crate) fn replays(
    shape: Shape,
    start: &Board,
    stream: Option<&RedealStream>,
    redeals: u8,
    line: &[Step],
) -> bool {
    let len = shape.row_len();
    let mut board = start.clone();
    let mut stream = stream.cloned();
    let mut used = 0;
    for step in line {
        match *step {
            Step::Move(m) => {
                let from = (m.from >> 4) as usize * len + (m.from & 15) as usize;
                let to = (m.to >> 4) as usize * len + (m.to & 15) as usize;
                let card = (m.card.suit(), m.card.rank());
                if board[from] != Some(card)
                    || board[to].is_some()
                    || !accepts(shape, &board, to, card)
                {
                    return false;
                }
                board[to] = board[from].take();
            }
            Step::Redeal => {
                let Some(s) = stream.as_mut() else {
                    return false;
                };
                if used == redeals || won(shape, &board) {
                    return false;
                }
                used += 1;
                board = redeal(shape, &board, s);
            }
        }
    }
    won(shape, &board)
}

pub(crate) const ALL_ACCEPTS: [Accepts; 4] = [
    Accepts::Successor,
    Accepts::SuccessorOrBelowRight,
    Accepts::AnySuitSuccessor,
    Accepts::HigherSameSuit,
];

fn check(
    shape: Shape,
    seeds: std::ops::Range<u64>,
    redeals: u8,
    gaps: RedealGaps,
    limit: usize,
) -> [u32; 4] {
    let mut searcher = BoardSearcher::with_memory(4 << 20);
    // 1024 keys (the least a searcher keeps): the round's whole search and its
    // restarts share them.
    let mut small = BoardSearcher::with_memory(1);
    // Won, lost, skipped, and decided by `small` after reaching more than its 1024 keys
    // in all (so the whole search or the restarts were dropped and the other went on).
    let mut kinds = [0u32; 4];
    for seed in seeds {
        let board = random_board(shape, seed);
        let cards = shape.suits * (shape.top - shape.base + 1) as usize;
        let stream = RedealStream::deal(seed, cards).with_gaps(gaps);
        let what = format!("{shape:?} seed {seed} redeals {redeals} {gaps:?}");
        let Some(expected) = reference(shape, &board, &stream, redeals, limit) else {
            kinds[2] += 1;
            continue;
        };
        let start = position(shape, &board);
        let mut stats = SearchStats::default();
        let stream_arg = (redeals > 0).then_some(&stream);
        let outcome = searcher.solve(
            &start,
            stream_arg,
            redeals,
            &Budget::unlimited(),
            &mut stats,
        );
        if redeals == 0 {
            let mut small_stats = SearchStats::default();
            let decided = match small.solve(&start, None, 0, &Budget::unlimited(), &mut small_stats)
            {
                BoardOutcome::Won(line) => {
                    assert!(expected, "{what}: small memory wins a lost board");
                    assert!(
                        replays(shape, &board, None, 0, &line),
                        "{what}: small memory"
                    );
                    true
                }
                BoardOutcome::Lost => {
                    assert!(!expected, "{what}: small memory loses a won board");
                    true
                }
                BoardOutcome::Unknown(reason) => {
                    assert_eq!(reason, StopReason::MemoryLimit, "{what}: small memory");
                    false
                }
            };
            kinds[3] += u32::from(decided && small_stats.nodes > 1026);
            // The exhaustive search (`exact`): the same verdict, a line that replays,
            // and, counting, every position of the round once (won ones included).
            let exhaustive = searcher.solve_exhaustively(&start, &Budget::unlimited(), &mut stats);
            assert_eq!(
                matches!(exhaustive, BoardOutcome::Won(_)),
                expected,
                "{what}: exhaustive ({exhaustive:?})"
            );
            if let BoardOutcome::Won(line) = &exhaustive {
                assert!(
                    replays(shape, &board, None, 0, line),
                    "{what}: exhaustive line"
                );
            }
            let (all, any_won) =
                round_boards(shape, &board, limit, false).expect("the reference ended");
            let won_boards = all.iter().filter(|b| won(shape, b)).count() as u64;
            assert_eq!(any_won, expected, "{what}");
            assert_eq!(
                searcher.count_round(&start, &Budget::unlimited(), &mut SearchStats::default()),
                Ok((all.len() as u64, won_boards)),
                "{what}: positions of the round"
            );
            match small.solve_exhaustively(
                &start,
                &Budget::unlimited(),
                &mut SearchStats::default(),
            ) {
                BoardOutcome::Won(line) => {
                    assert!(expected, "{what}: exhaustive, small memory");
                    assert!(
                        replays(shape, &board, None, 0, &line),
                        "{what}: small memory line"
                    );
                }
                BoardOutcome::Lost => assert!(!expected, "{what}: exhaustive, small memory"),
                BoardOutcome::Unknown(reason) => {
                    assert_eq!(reason, StopReason::MemoryLimit, "{what}: exhaustive, small")
                }
            }
            // The depth-first search of the same board game: the same verdict.
            let dfs = searcher.solve_depth_first(&start, &Budget::unlimited(), &mut stats);
            assert_eq!(
                matches!(dfs, BoardOutcome::Won(_)),
                expected,
                "{what}: depth-first"
            );
            if let BoardOutcome::Won(line) = &dfs {
                assert!(
                    replays(shape, &board, None, 0, line),
                    "{what}: depth-first line"
                );
            }
        }
        match outcome {
            BoardOutcome::Won(line) => {
                assert!(expected, "{what}: the engine wins a lost board");
                assert!(
                    replays(shape, &board, stream_arg, redeals, &line),
                    "{what}: {line:?}"
                );
                assert!(
                    replay_board(&start, stream_arg, redeals, &line).is_ok(),
                    "{what}"
                );
                kinds[0] += 1;
            }
            BoardOutcome::Lost => {
                assert!(!expected, "{what}: the engine loses a won board");
                kinds[1] += 1;
            }
            BoardOutcome::Unknown(r) => panic!("{what}: unknown ({r:?}) without limits"),
        }
    }
    kinds
}

#[test]
fn every_rule_agrees_with_the_reference_in_the_first_round() {
    let mut dropped_in_all = 0;
    for accepts in ALL_ACCEPTS {
        for (suits, base, top, deals) in [
            (2, 1, 4, 300),
            (3, 1, 3, 300),
            (3, 0, 2, 300),
            (2, 0, 3, 300),
            (4, 1, 2, 200),
        ] {
            let shape = Shape {
                suits,
                base,
                top,
                accepts,
            };
            let [won, lost, skipped, dropped] =
                check(shape, 0..deals, 0, RedealGaps::AfterRun, 100_000);
            dropped_in_all += dropped;
            assert!(
                won > 0 && lost > 0,
                "{shape:?}: both verdicts occur ({won} won, {lost} lost)"
            );
            assert!(
                skipped < deals as u32 / 4,
                "{shape:?}: {skipped} boards past the reference's limit"
            );
        }
    }
    // 4 of the 7,500 rounds (a path taken, not a rate).
    assert!(
        dropped_in_all >= 3,
        "rounds decided after a search was dropped for memory: {dropped_in_all}"
    );
}

#[test]
fn every_rule_agrees_with_the_reference_with_redeals() {
    for accepts in ALL_ACCEPTS {
        for gaps in [
            RedealGaps::AfterRun,
            RedealGaps::RowEnds,
            RedealGaps::Random,
        ] {
            for (suits, base, top, redeals) in [(2, 1, 3, 2), (2, 0, 2, 2), (3, 1, 2, 1)] {
                let shape = Shape {
                    suits,
                    base,
                    top,
                    accepts,
                };
                let [won, lost, _, _] = check(shape, 0..100, redeals, gaps, 2_000);
                assert!(
                    won > 0,
                    "{shape:?} {gaps:?}: some boards are won ({won} won, {lost} lost)"
                );
            }
        }
    }
}

#[test]
fn montanas_rule_on_the_board_agrees_with_the_engines_common() {
    // With the Aces out (base 1) and the successor rule, a board is a `common` position.
    let mut searcher = BoardSearcher::with_memory(8 << 20);
    let mut solver = Solver::with_table_bytes(8 << 20);
    for (suits, ranks, deals) in [(3, 5, 300), (4, 5, 100)] {
        let layout = Layout::new(suits, ranks).unwrap();
        let rules = BoardRules {
            suits: suits as u8,
            top: ranks as u8 - 1,
            base: 1,
            accepts: Accepts::Successor,
        };
        for seed in 0..deals {
            let pos = deal(seed, layout);
            let cells = pos.to_cells();
            let rows: Vec<&[Option<Card>]> = cells.chunks(ranks).collect();
            let board = BoardPosition::new(rules, &rows).unwrap();
            let options = SolveOptions {
                variant: Variant::Common,
                ..SolveOptions::default()
            };
            let engine = solver.solve(&pos, &options, None).unwrap().verdict;
            let mut stats = SearchStats::default();
            let outcome = searcher.solve(&board, None, 0, &Budget::unlimited(), &mut stats);
            let verdict = match outcome {
                BoardOutcome::Won(_) => Verdict::Solvable,
                BoardOutcome::Lost => Verdict::Unsolvable,
                BoardOutcome::Unknown(_) => Verdict::Unknown,
            };
            assert_eq!(verdict, engine, "{layout} deal {seed}");
        }
    }
}

#[test]
fn pysol_boards_of_every_rule_are_positions_and_back() {
    for game in PysolGame::ALL {
        let Some(rules) = BoardRules::of(game) else {
            assert_eq!(game, PysolGame::Paganini);
            continue;
        };
        assert_eq!(rules.row_len(), game.spec().row_len, "{game}");
        for number in [1, 2, 31_999, 32_000, 1 << 40] {
            let board = pysol_board(game, number).unwrap();
            let pos = BoardPosition::of_board(&board).unwrap();
            assert_eq!(pos.to_board(game), board, "{game}:{number}");
        }
    }
}

#[test]
fn random_play_on_every_board_keeps_the_invariants() {
    // Keys incremental and equal to a recompute, cells and places inverse, one gap a
    // suit, `unplay` exact; and every move generated is one the reference allows.
    let mut moves = MoveList::<64>::default();
    for game in PysolGame::ALL.into_iter().filter(|g| g.is_board_played()) {
        let rules = BoardRules::of(game).unwrap();
        let spec = game.spec();
        let shape = Shape {
            suits: 4,
            base: rules.base,
            top: rules.top,
            accepts: spec.accepts,
        };
        for number in 1..=20u64 {
            let mut pos =
                BoardPosition::of_board(&pysol_board(game, u128::from(number)).unwrap()).unwrap();
            let mut rng = SplitMix64::new(number);
            for _ in 0..300 {
                pos.check_invariants();
                pos.moves(&mut moves);
                let board: Board = pos
                    .rows()
                    .concat()
                    .iter()
                    .map(|c| c.map(|c| (c.suit(), c.rank())))
                    .collect();
                assert_eq!(
                    moves.len(),
                    self::moves(shape, &board).len(),
                    "{game}:{number}"
                );
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.below(moves.len() as u64) as usize];
                let before = pos;
                pos.play(m);
                pos.check_invariants();
                let mut back = pos;
                back.unplay(m);
                assert_eq!(back, before, "{game}:{number}: unplay");
            }
        }
    }
}
