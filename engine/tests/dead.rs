//! Dead-position detection against brute force on small boards: every card the analysis
//! calls frozen stays on its cell in every reachable position, a position called dead
//! has no reachable win, and the fast test agrees with the full frozen set.
use gaps_engine::*;
use std::collections::{HashSet, VecDeque};

/// Every position reachable from `start` (small boards only).
fn reachable_positions(start: &Position, variant: Variant) -> Vec<Position> {
    let mut seen = HashSet::new();
    let mut all = vec![];
    let mut queue = VecDeque::from([*start]);
    seen.insert(start.to_cells());
    let mut moves = MoveList::<MAX_MOVES>::default();
    while let Some(pos) = queue.pop_front() {
        all.push(pos);
        pos.legal_moves(variant, &mut moves);
        for &m in moves.as_slice() {
            let mut child = pos;
            child.play(m);
            if seen.insert(child.to_cells()) {
                queue.push_back(child);
            }
        }
    }
    all
}

fn frozen(pos: &Position, variant: Variant) -> Vec<Card> {
    let mask = match variant {
        Variant::Basic => pos.frozen_cards::<false>(),
        Variant::Common | Variant::Aisleriot => pos.frozen_cards::<true>(),
    };
    (0..128u8)
        .filter(|&c| mask >> c & 1 == 1)
        .map(Card::from_code)
        .collect()
}

/// Whether a frozen card stands where no won position of `variant` has it.
fn misplaced(pos: &Position, variant: Variant, card: Card) -> bool {
    let (row, col) = pos.find(card).expect("card on the board");
    match variant {
        Variant::Basic => (row, col) != (card.suit() as usize, card.rank() as usize - 1),
        Variant::Common | Variant::Aisleriot if card.rank() == 1 => col != 0,
        Variant::Common | Variant::Aisleriot => {
            col == 0 || pos.at(row, col - 1) != Some(Card::new(card.suit(), card.rank() - 1))
        }
    }
}

fn is_dead(pos: &Position, variant: Variant) -> bool {
    match variant {
        Variant::Basic => pos.is_dead_basic(),
        Variant::Common | Variant::Aisleriot => pos.is_dead_common(),
    }
}

fn check(suits: usize, ranks: usize, variant: Variant, deals: u64) {
    let layout = Layout::new(suits, ranks).unwrap();
    let (mut dead_positions, mut frozen_misplaced_cards, mut checked) = (0, 0, 0);
    for seed in 0..deals {
        let start = deal(seed, layout);
        let space = reachable_positions(&start, variant);
        // Sample positions of the space as starting points (the deal, then every 37th).
        for from in space.iter().step_by(37).chain(std::iter::once(&start)) {
            checked += 1;
            let cards = frozen(from, variant);
            let dead = cards.iter().any(|&c| misplaced(from, variant, c));
            frozen_misplaced_cards += cards
                .iter()
                .filter(|&&c| misplaced(from, variant, c))
                .count();
            assert_eq!(
                is_dead(from, variant),
                dead,
                "{variant} {layout} deal {seed}"
            );
            let later = reachable_positions(from, variant);
            for pos in &later {
                for &c in &cards {
                    assert_eq!(
                        pos.find(c),
                        from.find(c),
                        "{variant} {layout} deal {seed}: frozen {c} moved"
                    );
                }
            }
            if dead {
                dead_positions += 1;
                assert!(
                    !later.iter().any(|p| p.is_won(variant)),
                    "{variant} {layout} deal {seed}: a dead position reaches a win"
                );
            }
        }
    }
    eprintln!("{variant} {layout}: {dead_positions} dead of {checked}, {frozen_misplaced_cards} frozen misplaced cards");
    // Not vacuous: the rule fires on a fair share of positions.
    assert!(
        dead_positions * 20 > checked && frozen_misplaced_cards > dead_positions,
        "{variant} {layout}: {dead_positions} dead of {checked}"
    );
}

#[test]
fn basic_frozen_cards_never_move_and_dead_positions_never_win() {
    check(4, 4, Variant::Basic, 150);
    check(3, 5, Variant::Basic, 150);
}

#[test]
fn common_frozen_cards_never_move_and_dead_positions_never_win() {
    check(3, 4, Variant::Common, 150);
    check(2, 6, Variant::Common, 150);
}

/// A hand-made deadlock with moves left: 2S needs column 0 of the spade row, held by
/// 3H; 3H needs the cell right of 2H, held by 4H, which needs that same cell; 2H needs
/// column 0 of the heart row, held by 3S, which needs the cell right of 2S, held by 4S.
/// Only the fives can move, so the game is lost, and the analysis sees it at once.
#[test]
fn a_crossed_pair_of_rows_is_dead() {
    let pos = parse_position("3H 2H 4H 5S --/3S 2S 4S -- 5H").unwrap();
    let mut moves = MoveList::<MAX_MOVES>::default();
    pos.legal_moves(Variant::Basic, &mut moves);
    assert_eq!(moves.len(), 1);
    assert!(pos.is_dead_basic());
    let mut cards: Vec<String> = frozen(&pos, Variant::Basic)
        .iter()
        .map(|c| c.to_string())
        .collect();
    cards.sort();
    assert_eq!(cards, ["2H", "2S", "3H", "3S", "4H", "4S"]);
    assert!(!reachable_positions(&pos, Variant::Basic)
        .iter()
        .any(|p| p.is_won(Variant::Basic)));
}

fn is_dead_after(pos: &Position, variant: Variant, moved: Card) -> bool {
    match variant {
        Variant::Basic => pos.is_dead_basic_after(moved),
        Variant::Common | Variant::Aisleriot => pos.is_dead_common_after(moved),
    }
}

/// The incremental test against the full one on every move out of every position that
/// is not dead, in `positions`; returns how many children were dead.
fn check_after(positions: &[Position], variant: Variant, what: &str) -> usize {
    let mut moves = MoveList::<MAX_MOVES>::default();
    let mut dead_children = 0;
    for from in positions.iter().filter(|p| !is_dead(p, variant)) {
        from.legal_moves(variant, &mut moves);
        for &m in moves.as_slice() {
            let mut child = *from;
            child.play(m);
            let dead = is_dead(&child, variant);
            assert_eq!(
                is_dead_after(&child, variant, m.card),
                dead,
                "{variant} {what}: {m:?} from {from}"
            );
            dead_children += usize::from(dead);
        }
    }
    dead_children
}

#[test]
fn the_dead_test_after_a_move_agrees_with_the_full_test() {
    for (suits, ranks, variant) in [
        (4, 4, Variant::Basic),
        (3, 5, Variant::Basic),
        (3, 4, Variant::Common),
        (2, 6, Variant::Common),
    ] {
        let layout = Layout::new(suits, ranks).unwrap();
        let mut dead_children = 0;
        for seed in 0..60 {
            let space = reachable_positions(&deal(seed, layout), variant);
            dead_children += check_after(&space, variant, &format!("{layout} deal {seed}"));
        }
        assert!(dead_children > 100, "{variant} {layout}: {dead_children}");
    }
    // 4x13: the positions along random lines of play.
    let layout = Layout::new(4, 13).unwrap();
    let mut moves = MoveList::<MAX_MOVES>::default();
    for variant in [Variant::Basic, Variant::Common] {
        let mut dead_children = 0;
        for seed in 0..300u64 {
            let mut pos = deal(seed, layout);
            let mut line = vec![pos];
            let mut rng = SplitMix64::new(seed);
            for _ in 0..200 {
                pos.legal_moves(variant, &mut moves);
                if moves.is_empty() {
                    break;
                }
                pos.play(moves[rng.below(moves.len() as u64) as usize]);
                line.push(pos);
            }
            dead_children += check_after(&line, variant, &format!("4x13 deal {seed}"));
        }
        assert!(dead_children > 100, "{variant} 4x13: {dead_children}");
    }
}
