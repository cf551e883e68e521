//! Measures how much two symmetries of the `common` variant could shrink a search, by
//! counting every position reachable from small deals (breadth first, exact positions)
//! and the classes they fall into (docs/performance.md, "The exact search"):
//!
//! - *Two shuffles*: while column 0 holds at least one gap and one Two, the Twos of
//!   column 0 can be moved among its gap-or-Two cells in any arrangement and back, so
//!   all those arrangements are one strongly connected class.
//! - *Row permutations*: the `common` rules and goal do not depend on row order.
//!
//! Usage: `cargo run --release -p gaps-engine --example common_classes -- SUITS RANKS DEALS`

use gaps_engine::{deal, Layout, MoveList, Position, Variant, MAX_MOVES};
use std::collections::{HashSet, VecDeque};

/// Rows of cell bytes (card code + 1, 0 for a gap).
type Grid = Vec<Vec<u8>>;

/// Spaces above this many positions are cut short (and counted as far as reached).
const MAX_POSITIONS: usize = 3_000_000;

fn grid(p: &Position) -> Grid {
    let l = p.layout();
    (0..l.suits())
        .map(|r| {
            (0..l.ranks())
                .map(|c| p.at(r, c).map_or(0, |c| c.code() + 1))
                .collect()
        })
        .collect()
}

fn is_two(byte: u8) -> bool {
    byte != 0 && (byte - 1) & 15 == 1
}

/// The column-0 cells that may take part in a shuffle (a gap or a Two) and whether a
/// shuffle is possible (at least one gap and one Two among them).
fn shuffle_rows(g: &Grid) -> (Vec<usize>, bool) {
    let rows: Vec<usize> = (0..g.len())
        .filter(|&r| g[r][0] == 0 || is_two(g[r][0]))
        .collect();
    let twos = rows.iter().filter(|&&r| g[r][0] != 0).count();
    let live = twos > 0 && twos < rows.len();
    (rows, live)
}

/// Canonical form under shuffles: column 0's shuffling cells get their Twos in suit
/// order, gaps last.
fn shuffle_class(mut g: Grid) -> Grid {
    let (rows, live) = shuffle_rows(&g);
    if live {
        let mut twos: Vec<u8> = rows.iter().map(|&r| g[r][0]).filter(|&v| v != 0).collect();
        twos.sort_unstable();
        for (i, &r) in rows.iter().enumerate() {
            g[r][0] = twos.get(i).copied().unwrap_or(0);
        }
    }
    g
}

/// Canonical form under row permutations: rows sorted.
fn row_class(mut g: Grid) -> Grid {
    g.sort_unstable();
    g
}

/// Canonical form under both: shuffling cells become a wildcard (255), rows are sorted,
/// and the Twos that shuffle are appended as one more sorted row.
fn joint_class(mut g: Grid) -> Grid {
    let (rows, live) = shuffle_rows(&g);
    let mut twos = Vec::new();
    if live {
        for &r in &rows {
            if g[r][0] != 0 {
                twos.push(g[r][0]);
            }
            g[r][0] = 255;
        }
    }
    twos.sort_unstable();
    g.sort_unstable();
    g.push(twos);
    g
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: common_classes SUITS RANKS DEALS"))
        .collect();
    let [suits, ranks, deals] = args[..] else {
        panic!("usage: common_classes SUITS RANKS DEALS");
    };
    let layout = Layout::new(suits, ranks).expect("a valid size");
    let (mut positions, mut settled, mut cut) = (0, 0, 0);
    let (mut shuffles, mut rows, mut joint) = (0, 0, 0);
    let mut moves = MoveList::<MAX_MOVES>::default();
    for seed in 0..deals as u64 {
        let start = deal(seed, layout);
        let mut seen: HashSet<Grid> = HashSet::from([grid(&start)]);
        let mut queue = VecDeque::from([start]);
        while let Some(p) = queue.pop_front() {
            settled += usize::from(p.column0_all_twos());
            p.legal_moves(Variant::Common, &mut moves);
            for &m in moves.as_slice() {
                let mut child = p;
                child.play(m);
                if seen.insert(grid(&child)) {
                    queue.push_back(child);
                }
            }
            if seen.len() > MAX_POSITIONS {
                cut += 1;
                break;
            }
        }
        positions += seen.len();
        shuffles += seen
            .iter()
            .map(|g| shuffle_class(g.clone()))
            .collect::<HashSet<_>>()
            .len();
        rows += seen
            .iter()
            .map(|g| row_class(g.clone()))
            .collect::<HashSet<_>>()
            .len();
        joint += seen
            .iter()
            .map(|g| joint_class(g.clone()))
            .collect::<HashSet<_>>()
            .len();
    }
    let share = |n: usize| n as f64 / positions as f64;
    println!(
        "common {suits}x{ranks}, deals 0..{deals} ({cut} cut at {MAX_POSITIONS}): {positions} \
         positions, {:.1}% settled; classes / positions: shuffles {:.3}, row permutations \
         {:.3}, both {:.3}",
        100.0 * share(settled),
        share(shuffles),
        share(rows),
        share(joint)
    );
}
