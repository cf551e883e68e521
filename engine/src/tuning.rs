//! Every tuning constant of the engine, with one line of why: numbers chosen by
//! measurement, whose change changes speed or memory but never a verdict. The
//! measurements behind them are in `docs/performance.md` (section "Tuning constants").
//!
//! Invariants: this module imports nothing of the crate, so every module may read it
//! (it sits at the bottom of the crate's layers: docs/engine.md, "Crate map"); limits that a request may set (their ranges) are in `solve::limits`, and sizes
//! that define a structure's layout (slots a bucket, probe lengths) stay with that
//! structure, since changing one changes the structure rather than a trade-off.

use std::time::Duration;

// --- Budgets ---

/// Nodes between two checks of a search's limits (a power of two): a stop within
/// microseconds, at the cost of one counter comparison a node.
pub const CHECK_INTERVAL: u64 = 1024;

/// A search with more time than this (or no time limit) is long: `auto` on several
/// threads chains its phases instead of running them beside the exact search, its
/// breadth-first phase takes [`AUTO_HYBRID_BYTES_LONG`], and the exact search gets the
/// larger settled tables ([`SETTLED_TABLE_MAX_LONG`]); past it the chain's exact
/// search has had both threads long enough to be faster on hard deals.
pub const LONG_SEARCH: Duration = Duration::from_secs(30);

/// The share of a search over rounds' time limit that its first round gets alone,
/// before redeal points are tried (one eighth), and the most a look for a line with
/// fewer redeals may take of a game in progress's limits: a round that is hard alone
/// is often won quickly with a redeal, and a hint should not wait for the round (a
/// quarter answered 94.4% of random-play positions within 1 s at a 5-s limit, an eighth
/// 97.0%; docs/performance.md, "Games in progress").
pub const FIRST_ROUND_SHARE: u32 = 8;

// --- Default sizes of a solve ---

/// A solver's transposition-table budget: what a `common` depth-first search fills.
pub const DEFAULT_TABLE_BYTES: usize = 64 << 20;

/// The table a `basic` depth-first search uses by default: with incremental
/// transpositions a small table loses few nodes and stays in cache, so 2 MiB is faster
/// than 4 or 64 MiB on 4x13 deals.
pub const BASIC_TABLE_BYTES: usize = 2 << 20;

/// Probes of `sampling` when the request names none.
pub const DEFAULT_PROBES: u64 = 1_000_000;

/// Memory a solve that names none gets for each second of its time limit and each of
/// its threads when it runs the exact search (`solve::sizing`): two threads fill about
/// 2.1 GiB in 60 s on the hardest 4x13 deals (half of it the settled tables, which take
/// at most a quarter of the budget) and 0.2-0.3 GiB in 10 s, so this gives the tables
/// their full size and the set over three times the room it used.
pub const MEMORY_PER_THREAD_SECOND: usize = 64 << 20;

// --- The `auto` portfolio on `common` ---

/// Probes of `auto`'s sampling phase: wins that random probes find, they find early.
pub const AUTO_PROBES: u64 = 100_000;

/// Most memory of `auto`'s breadth-first phase (10.1M positions): the median decision
/// of that phase on 4x13 deals took about a second at 10 s a deal.
pub const AUTO_HYBRID_BYTES: usize = 256 << 20;

/// Most memory of that phase in a [`LONG_SEARCH`]: it fills sooner and leaves the rest
/// to the exact search, while still winning the deals that need 128 MiB of it.
pub const AUTO_HYBRID_BYTES_LONG: usize = 128 << 20;

/// Node limits of a search over suit assignments (`search::assign`): a pair of
/// knobs, so it is defined with the constant that sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssignmentCaps {
    /// Most nodes for one assignment.
    pub per_assignment: u64,
    /// Most nodes for all of them.
    pub total: u64,
}

/// Node caps of `auto`'s suit-assignment phase: they keep it under about two seconds
/// (uncapped, a median 0.6M nodes and at most 25M over all 24 assignments).
pub const AUTO_ASSIGNMENT_CAPS: AssignmentCaps = AssignmentCaps {
    per_assignment: 1 << 20,
    total: 24 << 20,
};

// --- The exact search ---

/// The exact search gives `1 / SETTLED_TABLE_SHARE` of its memory to the tables of
/// the depth-first searches of settled positions, the rest to its visited set...
pub const SETTLED_TABLE_SHARE: usize = 4;

/// ...and at most this many bytes a thread (a 32 MiB table of lost boards and an 8 MiB
/// memo) when it is not long: a probe of a table far beyond the caches costs more time
/// than the nodes it saves on short proofs.
pub const SETTLED_TABLE_MAX: usize = 64 << 20;

/// ...and at most this many a thread in a [`LONG_SEARCH`] (a 512 MiB table of lost
/// boards and a 16 MiB memo): the longest proofs are fastest with it.
pub const SETTLED_TABLE_MAX_LONG: usize = (512 + 16) << 20;

/// Most bytes of the table of a settled child searched alone (boards of more than four
/// rows): smaller re-searches too much, larger misses the caches on every probe.
pub const ONE_CHILD_TABLE_MAX: usize = 64 << 20;

/// Filter bits a key spilled by the exact search's set to its store
/// (`search::visited::spill`): about 1.5% of lookups of an absent key then read the
/// store, for 1.25 bytes of memory a spilled key. Chosen, not measured against others.
pub const SPILL_FILTER_BITS_PER_KEY: usize = 10;

/// Fewest keys the in-memory set must still hold after a spill for the search to go on:
/// below it, runs would multiply faster than they hold keys.
pub const SPILL_MIN_HOT_KEYS: usize = 1 << 8;

/// Most runs a spilling set writes: every lookup of a key not in memory tests each
/// run's filter, so past this many the search would crawl (a budget of gigabytes
/// fills with filters in about ten).
pub const SPILL_MAX_RUNS: usize = 64;

/// Slots of the parallel exact search's first shared set (4 MiB): larger ones are
/// slower to fault in on small proofs, and growth phases cost little on large ones.
pub const PARALLEL_FIRST_SLOTS: usize = 1 << 18;

/// Moves a thread of the parallel exact search looks at before it looks again for work
/// to give, after it had none (each look takes the exchange's lock).
pub const GIVE_RETRY: u64 = 1024;

/// How long a thread waiting for work sleeps between looks: a working thread answers
/// at its next move, so this is the delay a waiting thread adds.
pub const WORK_NAP: Duration = Duration::from_micros(100);

/// How long a gated thread sleeps between looks at its gate: its core runs other work
/// meanwhile (`auto`'s finders), which each wake-up interrupts.
pub const GATE_NAP: Duration = Duration::from_millis(1);

// --- Visited sets ---

/// Slots a one-thread visited set starts with, over all shards (each grows by
/// doubling): small searches allocate little.
pub const VISITED_FIRST_SLOTS: usize = 1 << 14;

/// The largest shard aimed for: small enough that its growth needs little room twice,
/// large enough that shards fill evenly (about 1.8M keys each).
pub const SHARD_BYTES: usize = 32 << 20;

/// Most shards of a set (a 16 GiB set has 512).
pub const MAX_SHARDS: usize = 1 << 12;

/// Shards a set has at least, while each is at least [`MIN_SHARD_BYTES`]: with few
/// shards the spare room for a growing one is a large part of the budget.
pub const MIN_SHARDS: usize = 64;

/// See [`MIN_SHARDS`].
pub const MIN_SHARD_BYTES: usize = 256 << 10;

// --- Tables that start small and grow ---

/// Buckets a depth-first search's table uses at first (1 MiB): clearing costs what the
/// previous search used, so a small search stays cheap.
pub const DFS_TABLE_FIRST_BUCKETS: usize = 1 << 14;

/// Buckets block search's table uses at first, for the same reason.
pub const BLOCK_TABLE_FIRST_BUCKETS: usize = 1 << 13;

/// Buckets the joint searches' board table uses at first (1 MiB), for the same reason.
pub const JOINT_TABLE_FIRST_BUCKETS: usize = 1 << 14;

// --- Breadth-first search's probe helpers ---

/// Nodes handed to a probe helper at a time: one lock for many probes.
pub const PROBE_BATCH: usize = 64;

/// Batches waiting per helper before the searching thread probes one itself, so the
/// queue never holds more than the helpers can take soon.
pub const QUEUED_PER_HELPER: usize = 8;
