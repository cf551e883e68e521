//! Helpers shared by the engine's integration tests.

use gaps_engine::*;

/// Solves with the given detectors and a table of `table_bytes`.
pub fn solve_with(
    solver: &mut Solver,
    pos: &Position,
    variant: Variant,
    table: bool,
    incremental: bool,
    complete: bool,
) -> SolveReport {
    let options = SolveOptions {
        variant,
        algorithm: Algorithm::Dfs,
        dfs: DfsOptions {
            table,
            incremental,
            complete,
            reduce: true,
            prune_dead: false,
        },
        ..SolveOptions::default()
    };
    solver.solve(pos, &options, None).expect("solve")
}

/// Parses a position or panics with the message.
pub fn pos(text: &str) -> Position {
    parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}
